"""Witness records of shared-memory bank claims: a conflicting phase, a split or misaligned vector, a wavefront
total, a base shift (``properties.banks``) and a compiled kernel's conflicting row (``properties.ptx_smem``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from layoutcheck.witness_record import Witness


# -- shared-memory banks ------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Conflict(Witness):
    """Instruction ``instruction`` needs ``wavefronts`` > ``ideal``: in its worst phase (``phase``; ``merged`` when
    phases merged) ``lanes`` hit ``bank`` with the distinct 32-bit ``words``; ``coords`` the lanes' tile coordinates."""

    instruction: int
    phase: int | None = None
    bank: int
    words: list[int]
    lanes: list[int]
    wavefronts: int
    ideal: int
    coords: list[Any] | None = None
    merged: bool | None = None
    kind: ClassVar[str] = "conflict"


@dataclass(frozen=True, slots=True, eq=False)
class Split(Witness):
    """Lane ``lane`` of ``instruction`` moves one contiguous vector, but its elements (tile ``coords``) lie at the
    byte ``addresses``, which are not contiguous."""

    instruction: int
    lane: int
    coords: list[Any]
    addresses: list[int]
    kind: ClassVar[str] = "split"


@dataclass(frozen=True, slots=True, eq=False)
class Misaligned(Witness):
    """Lane ``lane`` of ``instruction`` gives byte ``address`` (tile ``coord``), not a multiple of its access size."""

    instruction: int
    lane: int
    address: int
    coord: list[int]
    kind: ClassVar[str] = "misaligned"


@dataclass(frozen=True, slots=True, eq=False)
class WavefrontTotal(Witness):
    """The access needs ``wavefronts`` in all, not the number the claim states."""

    wavefronts: int
    kind: ClassVar[str] = "count"


@dataclass(frozen=True, slots=True, eq=False)
class Base(Witness):
    """Shifted by ``s`` periods the access is no longer conflict-free."""

    s: int
    kind: ClassVar[str] = "base"


# -- a kernel as compiled (properties.ptx_smem) ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class PtxConflict(Witness):
    """Row ``instruction`` of a compiled kernel's access group -- warp ``warp`` executing PTX line ``ptx_line`` --
    needs ``wavefronts`` > ``ideal``: ``lanes`` hit ``bank`` with the distinct 32-bit ``words``."""

    instruction: int
    warp: int
    ptx_line: int
    bank: int
    words: list[int]
    lanes: list[int]
    wavefronts: int
    ideal: int
    kind: ClassVar[str] = "conflict"
