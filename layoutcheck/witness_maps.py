"""Witness records of claims about one map or two: a pair, a point, an element of one domain (injective,
surjective, bijective, contiguous vectors, equal maps), the owners of a tile's element, and imported maps compared
(TTGIR, TileLang, compositions, memory layouts of a tile)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from layoutcheck.witness_record import Witness


# -- one domain: a pair, a point, an element -------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class Collision(Witness):
    """Indices ``i < j`` of one domain mapped to one point (injectivity fails)."""

    i: int
    j: int
    kind: ClassVar[str] = "collision"


@dataclass(frozen=True, slots=True, eq=False)
class SameThread(Witness):
    """Indices ``i < j`` of a TV layout, both of one thread, mapped to one element (a thread holds it twice)."""

    i: int
    j: int
    kind: ClassVar[str] = "same_thread"


@dataclass(frozen=True, slots=True, eq=False)
class OutOfRange(Witness):
    """Index ``i`` maps outside the codomain; for a TileLang map, output ``dim`` has ``value`` outside ``extent``."""

    i: int
    dim: int | None = None
    value: int | None = None
    extent: int | None = None
    kind: ClassVar[str] = "out"


@dataclass(frozen=True, slots=True, eq=False)
class Missing(Witness):
    """Element ``y`` of the codomain is reached by no index (surjectivity fails)."""

    y: int
    kind: ClassVar[str] = "missing"


@dataclass(frozen=True, slots=True, eq=False)
class Differ(Witness):
    """Index ``i`` is the first where two maps that should agree give different points."""

    i: int
    kind: ClassVar[str] = "differ"


@dataclass(frozen=True, slots=True, eq=False)
class SizeMismatch(Witness):
    """Two maps that should agree have sizes ``size_a`` and ``size_b``; ``i`` the first index only one has."""

    i: int
    size_a: int
    size_b: int
    kind: ClassVar[str] = "size"


@dataclass(frozen=True, slots=True, eq=False)
class Count(Witness):
    """A domain of ``size`` points cannot be a bijection onto a codomain of ``codomain`` points."""

    size: int
    codomain: int
    kind: ClassVar[str] = "count"


@dataclass(frozen=True, slots=True, eq=False)
class LinearCount(Witness):
    """A linear layout of ``inputs`` input and ``outputs`` output points cannot be a bijection."""

    inputs: int
    outputs: int
    kind: ClassVar[str] = "count"


@dataclass(frozen=True, slots=True, eq=False)
class TvCount(Witness):
    """A TV layout of ``size`` pairs cannot cover a ``tile`` of that many elements ``replication`` times each."""

    size: int
    tile: int
    replication: int
    kind: ClassVar[str] = "count"


# -- ownership of a tile -----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class Owners(Witness):
    """Element ``y`` of the tile has ``count`` owners (at least ``count`` when ``at_least``), the first of them
    ``owners`` (owner ids ``t + T*v``, ascending), where an exact cover needs another number."""

    y: int
    owners: list[int]
    count: int
    at_least: bool | None = None
    kind: ClassVar[str] = "owners"


@dataclass(frozen=True, slots=True, eq=False)
class Vector(Witness):
    """Thread ``t``'s value group ``g`` is not one contiguous vector of the memory layout."""

    t: int
    g: int
    kind: ClassVar[str] = "vector"


# -- imported maps (properties.equivalence, .tilelang, .ttgir, .composition) -----------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class DomainMismatch(Witness):
    """Two maps have different input dimensions ``a`` and ``b`` (name, size)."""

    a: list[Any]
    b: list[Any]
    kind: ClassVar[str] = "domain"


@dataclass(frozen=True, slots=True, eq=False)
class CodomainMismatch(Witness):
    """Two maps have different output dimensions ``a`` and ``b`` (name, size)."""

    a: list[Any]
    b: list[Any]
    kind: ClassVar[str] = "codomain"


@dataclass(frozen=True, slots=True, eq=False)
class SlotMissing(Witness):
    """Output slot ``slot`` of ``slots`` is reached by none of the ``points`` input points."""

    slot: list[int]
    points: int
    slots: int
    kind: ClassVar[str] = "missing"


@dataclass(frozen=True, slots=True, eq=False)
class ModuleAttribute(Witness):
    """The encoding's ``attribute`` along ``dim`` is ``encoding``, but the module's ``module_attribute`` is
    ``module``."""

    dim: str
    attribute: str
    encoding: int
    module_attribute: str
    module: int
    kind: ClassVar[str] = "module"


@dataclass(frozen=True, slots=True, eq=False)
class CompositionSize(Witness):
    """The composition has ``size_r`` points, the layout it should equal ``size_b``."""

    size_r: int
    size_b: int
    kind: ClassVar[str] = "size"


@dataclass(frozen=True, slots=True, eq=False)
class Rank(Witness):
    """The memory layout has rank ``rank``, not the tile's."""

    rank: int
    kind: ClassVar[str] = "rank"


@dataclass(frozen=True, slots=True, eq=False)
class Coord(Witness):
    """Tile index ``i`` (coordinate ``tile``) sits at memory coordinate ``memory`` (``null``: past the memory
    layout) of another shape: the memory layout does not keep the tile's modes."""

    i: int
    tile: list[int]
    memory: list[int] | None
    kind: ClassVar[str] = "coord"
    NULLABLE: ClassVar[tuple[str, ...]] = ("memory",)
