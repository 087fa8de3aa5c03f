"""Witness records of data movement: a data path's first fault (``models.datapath.first_fault``: path and stage
first, one record shape, ``PathFault``, per fault kind), a pipeline's K-block step and a multicast TMA's row."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from layoutcheck.witness_record import Witness


# -- data paths (models.datapath.first_fault): path and stage first ------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class PathFault(Witness):
    """Stage ``stage`` of the data path ``path`` fails at element (or move) ``i``; an address fault adds the access's
    memory ``space``, start ``address``, ``bytes``, required ``align`` and buffer ``limit`` (an overlap: the start
    ``other`` of the access it overlaps)."""

    path: str
    stage: int
    i: int
    space: str | None = None
    address: int | None = None
    bytes: int | None = None
    align: int | None = None
    limit: int | None = None
    other: int | None = None
    LEAD: ClassVar[tuple[str, ...]] = ("path", "stage")


def _path_fault(kind: str, doc: str) -> type[PathFault]:
    cls = dataclass(frozen=True, slots=True, eq=False)(
        type(f"Path{kind.title().replace('_', '')}", (PathFault,), {"kind": kind, "__doc__": doc}))
    return cls


PATH_FAULTS: dict[str, type[PathFault]] = {k: _path_fault(k, doc) for k, doc in (
    ("misplaced", "Stage ``stage`` moves element ``i`` elsewhere than the layouts say."),
    ("doubled", "Two elements land on the location stage ``stage`` writes element ``i`` to."),
    ("unwritten", "Stage ``stage`` reads, for ``i``, a location nothing wrote."),
    ("missed", "Final location ``i`` is never written."),
    ("wrong", "Final location ``i`` receives the wrong element."),
    ("outside", "An element lands at ``i``, outside the final tile."),
    ("misaligned", "Move ``i`` of stage ``stage`` breaks its instruction's alignment (``address % align``)."),
    ("outside_buffer", "Move ``i`` of stage ``stage`` leaves its stage buffer (``[address, address + bytes)`` past "
                       "``limit``)."),
    ("overlapping", "Move ``i`` of stage ``stage`` writes bytes another access of the stage writes (``[address, "
                    "address + bytes)`` meets the access starting at ``other``: two TMA boxes on one region)."),
)}
"""``models.datapath.first_fault``'s fault kinds -> their records (one shape, ``PathFault``)."""


def path_fault(path: str, fault: Mapping[str, Any]) -> PathFault:
    """The record of a data-path fault ``{"stage", "kind", "i", ...}`` (``models.datapath.first_fault``) on ``path``."""
    rest = {k: v for k, v in fault.items() if k != "kind"}
    return PATH_FAULTS[fault["kind"]](path=path, **rest)


# -- pipelines and multicast (properties.pipeline, properties.multicast) ---------------------------------------------
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class PipelineStep(Witness):
    """K-block ``kb`` breaks ``rule`` (stage, bounds, align, consumer_phase, producer_phase): its ``stage``, the
    earlier ``uses`` of that stage, the two parities it waits on and its buffer's byte ``address``."""

    rule: str
    kb: int
    stage: int
    uses: int
    consumer_phase: int
    producer_phase: int
    address: int
    kind: ClassVar[str] = "pipeline"


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class MulticastWrite(Witness):
    """Row ``row`` of CTA ``dest``'s tile (cluster ranks) breaks ``rule`` (outside, foreign, missing, twice); the
    ranks of the CTAs whose TMA wrote it, ``issuers``."""

    rule: str
    dest: int
    row: int
    issuers: list[int]
    kind: ClassVar[str] = "multicast"
