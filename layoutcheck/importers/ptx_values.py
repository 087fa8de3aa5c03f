"""What running a PTX kernel records: the values ``importers.ptx_run``'s entry points return.

``Access``: one shared-memory instruction one warp executes, with each lane's byte address; ``Run``: every such access
of a run (``shared_accesses``); ``WgmmaExec`` / ``WgmmaRun``: the descriptors of every ``wgmma.mma_async`` a warpgroup
executes (``wgmma_executions``); ``UmmaExec``: those of every ``tcgen05.mma`` a thread issues (``umma_executions``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class Access:
    """One shared-memory instruction executed by one warp: the instruction's index in ``Kernel.instrs``, the warp
    (CTA-linear: ``cta * warps_per_cta + warp``), and the byte address of each of its 32 lanes (``-1``: inactive)."""

    pc: int
    warp: int
    addrs: np.ndarray


@dataclass(frozen=True)
class Run:
    """What running a kernel gave: every shared access by warp, in program order per warp; the instructions that
    touch shared memory but are not ld/st/ldmatrix/stmatrix (``other``: pc -> executions); ``stopped`` the reason
    the run could not finish (``""``: it ran to the end of every thread)."""

    accesses: tuple[Access, ...]
    other: Mapping[int, int]
    stopped: str = ""
    steps: int = 0
    unplaced: frozenset[int] = frozenset()
    """pcs of generic ld/st whose address the run could not place (in ``other`` too)."""
    copies: tuple[Access, ...] = ()
    """Every ``cp.async`` (non-bulk: LDGSTS) a warp executes, with the shared byte address each active lane writes
    (its ``[dst]``); in ``other`` too. Those whose destination or lanes the run does not know: ``copy_unknown``."""
    copy_unknown: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class WgmmaExec:
    """One ``wgmma.mma_async`` executed by one warpgroup (``warpgroup`` = CTA-linear warp // 4), or a
    ``wgmma.commit_group`` (``shape == ""``): the 64-bit descriptors of A (``None``: A is in registers) and B as the
    threads hold them, ``shape`` (``m64n64k16``), the A / B types, ``imm-trans-a`` / ``imm-trans-b`` (0: K-major;
    1: MN-major; 0 where the type has none), and ``unknown``: why a descriptor could not be evaluated (``""``)."""

    pc: int
    warpgroup: int
    shape: str = ""
    atype: str = ""
    btype: str = ""
    desc_a: int | None = None
    desc_b: int | None = None
    trans_a: int = 0
    trans_b: int = 0
    unknown: str = ""


@dataclass(frozen=True)
class WgmmaRun:
    """Every wgmma execution (and commit) in program order per warpgroup; ``stopped`` as ``Run.stopped``."""

    execs: tuple[WgmmaExec, ...]
    stopped: str = ""


@dataclass(frozen=True, slots=True)
class UmmaExec:
    """One ``tcgen05.mma`` issued by one thread of warp ``warp`` (CTA-linear), or a ``tcgen05.commit``
    (``kind == ""``): ``kind`` (``f16``, ``tf32``, ...), the 64-bit shared-memory descriptors of A (``None``: A in
    tensor memory) and B, the 32-bit instruction descriptor, and ``unknown``: why they could not be evaluated."""

    pc: int
    warp: int
    kind: str = ""
    desc_a: int | None = None
    desc_b: int | None = None
    idesc: int | None = None
    unknown: str = ""


__all__ = ["Access", "Run", "UmmaExec", "WgmmaExec", "WgmmaRun"]
