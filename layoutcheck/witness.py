"""Typed counterexamples: every witness record, by kind, and ``from_json``, which reads one back.

A REFUTED claim carries a *witness*: a frozen record named after what it shows (``witness_record.Witness``: the
fields shared between kinds, the one JSON encoding, the owner encoding ``t + T*v``). The records live in one module
per family of claims, and ``RECORDS`` lists them all, in the order ``from_json`` tries those of one kind:

    witness_maps          one domain (a pair, a point, an element), a tile's owners, imported maps compared
    witness_banks         shared-memory banks, a compiled kernel's conflicting row
    witness_descriptors   TMA boxes, wgmma / UMMA descriptors, descriptor formats, a Triton dot's descriptors
    witness_tmem          tensor memory, block scaling, tcgen05.cp
    witness_paths         data-path faults, pipelines, multicast
    (this module)         ragged tilings and tile schedulers (``properties.residue``, ``models.residue``,
                          ``engines.sizes_z3``, ``properties.stream_k``)

``from_json`` reads a record's JSON object back (the record whose kind and field names match), so a report can be
checked to hold only typed witnesses.

>>> Collision(3, 7).to_json()
{'kind': 'collision', 'i': 3, 'j': 7}
>>> from_json({"kind": "differ", "i": 4})
Differ(i=4)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from layoutcheck.witness_banks import Base, Conflict, Misaligned, PtxConflict, Split, WavefrontTotal
from layoutcheck.witness_descriptors import (
    Align,
    BaseOffset,
    Canonical,
    Descriptor,
    DescriptorCover,
    DescriptorDecode,
    DescriptorElement,
    DescriptorOrigin,
    DescriptorPair,
    Divide,
    Dst,
    FieldFit,
    FieldOutside,
    FieldOverflow,
    FieldOverlap,
    LayoutType,
    Major,
    Mma,
    Place,
    Range,
    Shape,
    Word,
)
from layoutcheck.witness_maps import (
    CodomainMismatch,
    Collision,
    CompositionSize,
    Coord,
    Count,
    Differ,
    DomainMismatch,
    LinearCount,
    Missing,
    ModuleAttribute,
    OutOfRange,
    Owners,
    Rank,
    SameThread,
    SizeMismatch,
    SlotMissing,
    TvCount,
    Vector,
)
from layoutcheck.witness_paths import PATH_FAULTS, MulticastWrite, PipelineStep
from layoutcheck.witness_record import Witness
from layoutcheck.witness_tmem import (
    AllocationSize,
    AllocationTotal,
    ScaleMismatch,
    ScaleShared,
    ScaleTile,
    ScaleVector,
    TmemCopyElement,
    TmemLane,
    TmemMissed,
    TmemOutside,
    TmemTwice,
)


# -- ragged tilings and tile schedulers (properties.residue, models.residue, engines.sizes_z3) ---------------------
@dataclass(frozen=True, slots=True, eq=False)
class ResidueOwners(Witness):
    """At problem size ``sizes``, global coordinate ``coord`` has ``count`` owners (an exact cover needs 1)."""

    sizes: list[int]
    coord: list[int]
    count: int
    kind: ClassVar[str] = "owners"


@dataclass(frozen=True, slots=True, eq=False)
class ResidueOob(Witness):
    """At problem size ``sizes``, an unpredicated access reaches ``coord``, outside the problem."""

    sizes: list[int]
    coord: list[int]
    kind: ClassVar[str] = "oob"


@dataclass(frozen=True, slots=True, eq=False)
class Partition(Witness):
    """Tile index ``local`` (tile coordinate ``coord``) has ``count`` owners, or (``thread``, ``value``) reaches it
    past the tile."""

    local: int
    coord: list[int] | None = None
    count: int | None = None
    thread: int | None = None
    value: int | None = None
    kind: ClassVar[str] = "partition"


@dataclass(frozen=True, slots=True, eq=False)
class _GridTile(Witness):
    """On a ``grid`` of tiles, tile ``tile`` is computed ``count`` times (``index``, ``other``: launch indices)."""

    grid: list[int]
    tile: list[int]
    count: int | None = None
    index: list[int] | None = None
    other: list[int] | None = None


@dataclass(frozen=True, slots=True, eq=False)
class TileOutside(_GridTile):
    """Launch ``index`` computes tile ``tile``, outside the ``grid``."""

    kind: ClassVar[str] = "outside"


@dataclass(frozen=True, slots=True, eq=False)
class TileMissing(_GridTile):
    """No launch computes tile ``tile`` of the ``grid``."""

    kind: ClassVar[str] = "missing"


@dataclass(frozen=True, slots=True, eq=False)
class TileDuplicate(_GridTile):
    """Launches ``index`` and ``other`` both compute tile ``tile`` of the ``grid`` (``count`` times in all)."""

    kind: ClassVar[str] = "duplicate"


@dataclass(frozen=True, slots=True, eq=False)
class StreamKFixup(Witness):
    """Stream-K (``grid`` = ``[tiles, k_tiles]``): the final split of tile ``tile`` (walked by ``index`` =
    ``[cta, iteration]``) may reduce and run the epilogue before peer ``other``'s partial, from k-iteration ``k``, is
    in the workspace (issue #27)."""

    kind: ClassVar[str] = "fixup"
    grid: list[int]
    tile: int
    k: int
    index: list[int]
    other: list[int]


@dataclass(frozen=True, slots=True, eq=False)
class _GroupedTile(Witness):
    """Of the grouped ``problems``, problem ``problem``'s tile ``tile`` is computed wrongly: the host counts
    ``host_count`` tiles, the device walks ``device_tiles``; ``index``/``other`` the launch indices."""

    problems: list[list[int]]
    problem: int
    tile: list[int]
    host_count: int
    device_tiles: int
    index: list[int] | None = None
    other: list[int] | None = None


@dataclass(frozen=True, slots=True, eq=False)
class GroupedOutside(_GroupedTile):
    """A launch computes a tile outside its problem."""

    kind: ClassVar[str] = "outside"


@dataclass(frozen=True, slots=True, eq=False)
class GroupedMissing(_GroupedTile):
    """No launch computes the tile."""

    kind: ClassVar[str] = "missing"


@dataclass(frozen=True, slots=True, eq=False)
class GroupedDuplicate(_GroupedTile):
    """Two launches compute the tile."""

    kind: ClassVar[str] = "duplicate"


# -- every record, by kind ---------------------------------------------------------------------------------------------
RECORDS: tuple[type[Witness], ...] = (
    Collision, SameThread, OutOfRange, Missing, Differ, SizeMismatch, Count, LinearCount, TvCount, Owners, Vector,
    Conflict, Split, Misaligned, WavefrontTotal, Base,
    ResidueOwners, ResidueOob, Partition, TileOutside, TileMissing, TileDuplicate, StreamKFixup,
    GroupedOutside, GroupedMissing, GroupedDuplicate,
    Descriptor, Divide, Place, Dst,
    Canonical, BaseOffset, LayoutType, Major, Align, Range, FieldOverflow, Word, Mma, Shape,
    FieldOutside, FieldFit, FieldOverlap,
    TmemOutside, TmemLane, TmemMissed, TmemTwice, AllocationSize, AllocationTotal, ScaleVector, ScaleShared,
    DomainMismatch, CodomainMismatch, SlotMissing, ModuleAttribute, CompositionSize, Rank, Coord,
    ScaleMismatch, ScaleTile,
    *PATH_FAULTS.values(),
    PtxConflict, PipelineStep, MulticastWrite,
    DescriptorPair, DescriptorDecode, DescriptorOrigin, DescriptorElement, DescriptorCover,
    TmemCopyElement,
)
"""Every witness record: what ``from_json`` can read back (a record missing here is an untyped witness to it)."""


def _by_kind(records: tuple[type[Witness], ...]) -> dict[str, tuple[type[Witness], ...]]:
    """JSON kind -> the records of that kind, in ``records`` order."""
    out: dict[str, tuple[type[Witness], ...]] = {}
    for cls in records:
        out[cls.kind] = (*out.get(cls.kind, ()), cls)
    return out


KINDS: dict[str, tuple[type[Witness], ...]] = _by_kind(RECORDS)
"""JSON kind -> the records of that kind (a few kinds name two records with different fields)."""


def from_json(data: Mapping[str, Any]) -> Witness:
    """The record whose kind and fields ``data`` has (``KeyError`` if none: an untyped or unknown witness).

    Post: ``from_json(w.to_json()).to_json() == w.to_json()``.
    """
    keys = set(data) - {"kind"}
    for cls in KINDS.get(data.get("kind", ""), ()):
        key_of = {f.name: cls.JSON_NAMES.get(f.name, f.name) for f in fields(cls)}
        required = {key_of[f.name] for f in fields(cls) if f.default is not None or f.name in cls.NULLABLE}
        if required <= keys <= set(key_of.values()):
            return cls(**{f: data[k] for f, k in key_of.items() if k in keys})
    raise KeyError(f"no witness record of kind {data.get('kind')!r} with fields {sorted(keys)}")


__all__ = [
    "KINDS",
    "RECORDS",
    "GroupedDuplicate",
    "GroupedMissing",
    "GroupedOutside",
    "Partition",
    "ResidueOob",
    "ResidueOwners",
    "StreamKFixup",
    "TileDuplicate",
    "TileMissing",
    "TileOutside",
    "from_json",
]
