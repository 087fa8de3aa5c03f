"""Typed counterexamples: one frozen record per kind of witness, one JSON encoding, one owner encoding.

A REFUTED claim carries a *witness*: the smallest concrete input on which it fails, in plain ints. Each kind of
witness is a frozen record below, named after what it shows; the fields shared between kinds mean the same thing
everywhere:

    i, j          flat indices into a subject's domain (CuTe's colexicographic index of its coordinate), i < j
    y             an element of a codomain (a tile index ``row + ROWS*col``, an offset)
    t, thread     a thread;  g, value  a value (a register slot of that thread)
    owners        owner ids of one element, ascending (see *Owner encoding* below)
    instruction   a warp-wide instruction's index;  lane  a lane of it (0..31)
    address(es)   byte addresses;  coord(s)  tile coordinates in CuTe notation (lists of ints)
    size, count   how many points / owners / writes were counted

``to_json()`` is the record's JSON object: ``{"kind": <kind>, <field>: <value>, ...}`` in the field order declared
below (a field left ``None`` is omitted); it is the ``counterexample.data`` object of ``check --json``, SARIF's
``properties.counterexample`` and what the HTML report draws from. A record is also a read-only ``Mapping`` over
that object, so ``w["i"]`` reads a field as the claims' ``recheck`` and ``explain`` always did. ``from_json`` reads
one back (the record whose kind and field names match), so a report can be checked to hold only typed witnesses.

Owner encoding
--------------
An *owner* is a ``(thread, value)`` pair of a TV layout of shape ``(T, V)``. Wherever an owner is one integer --
the ``owners`` of a JSON / SARIF counterexample, the HTML report's cells, the ``owner`` array of ``layoutcheck
vectors`` (npz, json, h) and the ids the generated ownership kernels write -- it is CuTe's colexicographic index of
the coordinate ``(t, v)`` in ``(T, V)``::

    owner_id(t, v) = t + T * v        (= crd2idx((t, v), (T, V)): the index of the TV layout itself)
    t = id % T,  v = id // T

>>> owner_id(5, 2, 32), owner_of(69, 32)
(69, (5, 2))
>>> Collision(3, 7).to_json()
{'kind': 'collision', 'i': 3, 'j': 7}
>>> from_json({"kind": "differ", "i": 4})
Differ(i=4)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar


def owner_id(thread: int, value: int, threads: int) -> int:
    """The owner id of ``(thread, value)`` in a TV layout of ``threads`` threads: ``thread + threads * value``.

    Pre: ``0 <= thread < threads``, ``value >= 0``. Post: ``owner_of(owner_id(t, v, T), T) == (t, v)``.

    >>> owner_id(0, 1, 128)
    128
    """
    return thread + threads * value


def owner_of(owner: int, threads: int) -> tuple[int, int]:
    """``(thread, value)`` of an owner id (the inverse of ``owner_id``).

    >>> owner_of(128, 128)
    (0, 1)
    """
    return owner % threads, owner // threads


def _plain(x: Any) -> Any:
    """Plain JSON values: tuples become lists, NumPy integers ints (``tolist``)."""
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if hasattr(x, "tolist"):
        return x.tolist()
    return x


@dataclass(frozen=True, slots=True, eq=False)
class Witness(Mapping[str, Any]):
    """Base of every witness record: ``kind`` (class attribute) names it in JSON; see the module docstring.

    ``LEAD``: fields written before ``"kind"`` in JSON when present (a data-path witness names its path and stage
    first, as the reports always printed them)."""

    kind: ClassVar[str] = ""
    LEAD: ClassVar[tuple[str, ...]] = ()
    JSON_NAMES: ClassVar[dict[str, str]] = {}
    """Field -> its JSON key where the two differ (a JSON key that is a ``Mapping`` method, ``values``)."""
    NULLABLE: ClassVar[tuple[str, ...]] = ()
    """Fields written as ``null`` when ``None`` (every other ``None`` field is left out)."""

    def to_json(self) -> dict[str, Any]:
        """The record as its JSON object (``kind`` -- none for a kind-less record -- and every field that is not
        ``None``, in declared order)."""
        items = [(self.JSON_NAMES.get(f.name, f.name), _plain(getattr(self, f.name))) for f in fields(self)
                 if getattr(self, f.name) is not None or f.name in self.NULLABLE]
        lead = [kv for kv in items if kv[0] in self.LEAD]
        kind = [("kind", self.kind)] if self.kind else []
        return dict([*lead, *kind, *(kv for kv in items if kv[0] not in self.LEAD)])

    # -- a read-only Mapping over to_json() ------------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        if key == "kind" and self.kind:
            return self.kind
        name = {j: f for f, j in self.JSON_NAMES.items()}.get(key, key)
        if name in _field_names(type(self)):
            v = getattr(self, name)
            if v is not None or name in self.NULLABLE:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def __len__(self) -> int:
        return len(self.to_json())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self.to_json() == _plain(dict(other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # fields may be lists


def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))


KINDS: dict[str, tuple[type[Witness], ...]] = {}
"""JSON kind -> the records of that kind (a few kinds name two records with different fields)."""


def witness(cls: type[Witness]) -> type[Witness]:
    """Register a record under its ``kind`` (decorator; every record of this module is registered)."""
    KINDS[cls.kind] = (*KINDS.get(cls.kind, ()), cls)
    return cls


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


def with_fields(w: Mapping[str, Any] | None, **extra: Any) -> Mapping[str, Any]:
    """``w`` with the ``extra`` fields (a claim that wraps another's witness: the writer, the block): the typed
    record with them set where it declares them, else a plain dict with ``extra`` first."""
    if isinstance(w, Witness) and set(extra) <= _field_names(type(w)):
        return replace(w, **extra)
    return {**extra, **(w or {})}


# -- one domain: a pair, a point, an element -------------------------------------------------------------------
@witness
@dataclass(frozen=True, slots=True, eq=False)
class Collision(Witness):
    """Indices ``i < j`` of one domain mapped to one point (injectivity fails)."""

    i: int
    j: int
    kind: ClassVar[str] = "collision"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class SameThread(Witness):
    """Indices ``i < j`` of a TV layout, both of one thread, mapped to one element (a thread holds it twice)."""

    i: int
    j: int
    kind: ClassVar[str] = "same_thread"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class OutOfRange(Witness):
    """Index ``i`` maps outside the codomain; for a TileLang map, output ``dim`` has ``value`` outside ``extent``."""

    i: int
    dim: int | None = None
    value: int | None = None
    extent: int | None = None
    kind: ClassVar[str] = "out"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class Missing(Witness):
    """Element ``y`` of the codomain is reached by no index (surjectivity fails)."""

    y: int
    kind: ClassVar[str] = "missing"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class Differ(Witness):
    """Index ``i`` is the first where two maps that should agree give different points."""

    i: int
    kind: ClassVar[str] = "differ"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class SizeMismatch(Witness):
    """Two maps that should agree have sizes ``size_a`` and ``size_b``; ``i`` the first index only one has."""

    i: int
    size_a: int
    size_b: int
    kind: ClassVar[str] = "size"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class Count(Witness):
    """A domain of ``size`` points cannot be a bijection onto a codomain of ``codomain`` points."""

    size: int
    codomain: int
    kind: ClassVar[str] = "count"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class LinearCount(Witness):
    """A linear layout of ``inputs`` input and ``outputs`` output points cannot be a bijection."""

    inputs: int
    outputs: int
    kind: ClassVar[str] = "count"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class TvCount(Witness):
    """A TV layout of ``size`` pairs cannot cover a ``tile`` of that many elements ``replication`` times each."""

    size: int
    tile: int
    replication: int
    kind: ClassVar[str] = "count"


# -- ownership of a tile -----------------------------------------------------------------------------------------
@witness
@dataclass(frozen=True, slots=True, eq=False)
class Owners(Witness):
    """Element ``y`` of the tile has ``count`` owners (at least ``count`` when ``at_least``), the first of them
    ``owners`` (owner ids ``t + T*v``, ascending), where an exact cover needs another number."""

    y: int
    owners: list[int]
    count: int
    at_least: bool | None = None
    kind: ClassVar[str] = "owners"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class Vector(Witness):
    """Thread ``t``'s value group ``g`` is not one contiguous vector of the memory layout."""

    t: int
    g: int
    kind: ClassVar[str] = "vector"


# -- shared-memory banks ------------------------------------------------------------------------------------------
@witness
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


@witness
@dataclass(frozen=True, slots=True, eq=False)
class Split(Witness):
    """Lane ``lane`` of ``instruction`` moves one contiguous vector, but its elements (tile ``coords``) lie at the
    byte ``addresses``, which are not contiguous."""

    instruction: int
    lane: int
    coords: list[Any]
    addresses: list[int]
    kind: ClassVar[str] = "split"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class Misaligned(Witness):
    """Lane ``lane`` of ``instruction`` gives byte ``address`` (tile ``coord``), not a multiple of its access size."""

    instruction: int
    lane: int
    address: int
    coord: list[int]
    kind: ClassVar[str] = "misaligned"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class WavefrontTotal(Witness):
    """The access needs ``wavefronts`` in all, not the number the claim states."""

    wavefronts: int
    kind: ClassVar[str] = "count"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class Base(Witness):
    """Shifted by ``s`` periods the access is no longer conflict-free."""

    s: int
    kind: ClassVar[str] = "base"


# -- ragged tilings and tile schedulers (properties.residue, models.residue, engines.sizes_z3) ---------------------
@witness
@dataclass(frozen=True, slots=True, eq=False)
class ResidueOwners(Witness):
    """At problem size ``sizes``, global coordinate ``coord`` has ``count`` owners (an exact cover needs 1)."""

    sizes: list[int]
    coord: list[int]
    count: int
    kind: ClassVar[str] = "owners"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class ResidueOob(Witness):
    """At problem size ``sizes``, an unpredicated access reaches ``coord``, outside the problem."""

    sizes: list[int]
    coord: list[int]
    kind: ClassVar[str] = "oob"


@witness
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


@witness
@dataclass(frozen=True, slots=True, eq=False)
class TileOutside(_GridTile):
    """Launch ``index`` computes tile ``tile``, outside the ``grid``."""

    kind: ClassVar[str] = "outside"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class TileMissing(_GridTile):
    """No launch computes tile ``tile`` of the ``grid``."""

    kind: ClassVar[str] = "missing"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class TileDuplicate(_GridTile):
    """Launches ``index`` and ``other`` both compute tile ``tile`` of the ``grid`` (``count`` times in all)."""

    kind: ClassVar[str] = "duplicate"


@witness
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


@witness
@dataclass(frozen=True, slots=True, eq=False)
class GroupedOutside(_GroupedTile):
    """A launch computes a tile outside its problem."""

    kind: ClassVar[str] = "outside"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class GroupedMissing(_GroupedTile):
    """No launch computes the tile."""

    kind: ClassVar[str] = "missing"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class GroupedDuplicate(_GroupedTile):
    """Two launches compute the tile."""

    kind: ClassVar[str] = "duplicate"


# -- TMA boxes (properties.tma) ---------------------------------------------------------------------------------
@witness
@dataclass(frozen=True, slots=True, eq=False)
class Descriptor(Witness):
    """The tensor map breaks a driver rule (``violation``: its index among ``TmaBox.violations()``, when named)."""

    violation: int | None = None
    kind: ClassVar[str] = "descriptor"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class Divide(Witness):
    """Box mode ``mode`` (tensor dimension ``dim``) of ``n`` elements does not divide the tile's ``extent``."""

    mode: int
    dim: int
    n: int
    extent: int
    kind: ClassVar[str] = "divide"


@witness
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Place(Witness):
    """Element ``i`` (of block ``block``) lands at another address than the layout keeps it at; ``writer`` names
    who stored the stage (``gmma_addresses``: ``tma`` or ``threads``)."""

    writer: str | None = None
    block: int | None = None
    i: int
    kind: ClassVar[str] = "place"
    LEAD: ClassVar[tuple[str, ...]] = ("writer",)


@witness
@dataclass(frozen=True, slots=True, eq=False)
class Dst(Witness):
    """Box ``i``'s shared-memory destination is not aligned as TMA requires."""

    i: int
    kind: ClassVar[str] = "dst"


# -- wgmma / UMMA descriptors (properties.gmma, properties.descriptors): ``writer`` (and ``block``) lead ----------
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class _DescriptorWitness(Witness):
    """A descriptor-family witness: ``writer`` names who stored the stage (``tma`` or ``threads``) when the claim
    depends on it; ``block`` the K block whose descriptor fails."""

    writer: str | None = None
    block: int | None = None
    LEAD: ClassVar[tuple[str, ...]] = ("writer",)


@witness
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Canonical(_DescriptorWitness):
    """The stage is not one of the canonical GMMA / UMMA operand forms (no descriptor describes it)."""

    kind: ClassVar[str] = "canonical"


@witness
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class BaseOffset(_DescriptorWitness):
    """The descriptor's base-offset field disagrees with where the stage's swizzle pattern starts."""

    kind: ClassVar[str] = "base_offset"


@witness
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class LayoutType(_DescriptorWitness):
    """The descriptor's layout type is not the stage's swizzle mode."""

    kind: ClassVar[str] = "layout_type"


@witness
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Major(_DescriptorWitness):
    """The stage is not the declared major-ness (``i``: the first chunk that breaks it, when known)."""

    i: int | None = None
    kind: ClassVar[str] = "major"
    LEAD: ClassVar[tuple[str, ...]] = ("writer", "block")


@witness
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Align(_DescriptorWitness):
    """Block ``block``'s start address is not aligned as the descriptor requires."""

    kind: ClassVar[str] = "align"


@witness
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Range(_DescriptorWitness):
    """Block ``block``'s descriptor field leaves its range (``GmmaDescriptor.violations``: ``range``)."""

    kind: ClassVar[str] = "range"


@witness
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class FieldOverflow(_DescriptorWitness):
    """Block ``block``'s descriptor cannot be encoded (a field overflows)."""

    kind: ClassVar[str] = "field"


@witness
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Word(_DescriptorWitness):
    """The descriptor word's ``field`` breaks the format (a fixed bit, an undefined code, a reserved bit)."""

    field: str
    kind: ClassVar[str] = "word"


@witness
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Mma(_DescriptorWitness):
    """The instruction descriptor names no MMA the hardware has."""

    kind: ClassVar[str] = "mma"


@witness
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Shape(_DescriptorWitness):
    """The instruction descriptor's M / N fields are not the claimed shape."""

    kind: ClassVar[str] = "shape"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class FieldOutside(Witness):
    """Field ``f`` of a descriptor format leaves its word."""

    f: int
    kind: ClassVar[str] = "outside"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class FieldFit(Witness):
    """Field ``f`` cannot hold ``value``."""

    f: int
    value: int
    kind: ClassVar[str] = "fit"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class FieldOverlap(Witness):
    """Field ``field`` encodes the distinct ``values`` to one word."""

    values_: list[int]
    field: str
    kind: ClassVar[str] = "overlap"
    JSON_NAMES: ClassVar[dict[str, str]] = {"values_": "values"}


# -- tensor memory (properties.tmem) ----------------------------------------------------------------------------
@witness
@dataclass(frozen=True, slots=True, eq=False)
class TmemOutside(Witness):
    """Load ``load`` gives ``thread`` the ``element`` outside the tile."""

    load: int
    thread: int
    element: int
    kind: ClassVar[str] = "outside"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class TmemLane(Witness):
    """Load ``load`` has ``thread`` touch TMEM ``lane``, outside its warp's sub-partition (kind-less, as printed)."""

    load: int
    thread: int
    lane: int


@witness
@dataclass(frozen=True, slots=True, eq=False)
class TmemMissed(Witness):
    """TMEM cell ``i`` is read ``count`` (0) times."""

    i: int
    count: int
    kind: ClassVar[str] = "missed"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class TmemTwice(Witness):
    """TMEM cell ``i`` is read ``count`` (> 1) times."""

    i: int
    count: int
    kind: ClassVar[str] = "twice"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class AllocationSize(Witness):
    """Allocation ``i`` asks for a column count tcgen05.alloc refuses."""

    i: int
    kind: ClassVar[str] = "size"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class AllocationTotal(Witness):
    """Allocations ``0..i`` ask for more columns than tensor memory has."""

    i: int
    kind: ClassVar[str] = "total"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class ScaleVector(Witness):
    """Scale element ``(m, k)`` differs from the first of its ``vec``-wide group."""

    m: int
    k: int
    kind: ClassVar[str] = "vector"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class ScaleShared(Witness):
    """Scale groups ``(m, k)`` and ``(m2, k2)`` share one TMEM cell."""

    m: int
    k: int
    m2: int
    k2: int
    kind: ClassVar[str] = "shared"


# -- imported maps (properties.equivalence, .tilelang, .ttgir, .composition) -----------------------------------------
@witness
@dataclass(frozen=True, slots=True, eq=False)
class DomainMismatch(Witness):
    """Two maps have different input dimensions ``a`` and ``b`` (name, size)."""

    a: list[Any]
    b: list[Any]
    kind: ClassVar[str] = "domain"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class CodomainMismatch(Witness):
    """Two maps have different output dimensions ``a`` and ``b`` (name, size)."""

    a: list[Any]
    b: list[Any]
    kind: ClassVar[str] = "codomain"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class SlotMissing(Witness):
    """Output slot ``slot`` of ``slots`` is reached by none of the ``points`` input points."""

    slot: list[int]
    points: int
    slots: int
    kind: ClassVar[str] = "missing"


@witness
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


@witness
@dataclass(frozen=True, slots=True, eq=False)
class CompositionSize(Witness):
    """The composition has ``size_r`` points, the layout it should equal ``size_b``."""

    size_r: int
    size_b: int
    kind: ClassVar[str] = "size"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class Rank(Witness):
    """The memory layout has rank ``rank``, not the tile's."""

    rank: int
    kind: ClassVar[str] = "rank"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class Coord(Witness):
    """Tile index ``i`` (coordinate ``tile``) sits at memory coordinate ``memory`` (``null``: past the memory
    layout) of another shape: the memory layout does not keep the tile's modes."""

    i: int
    tile: list[int]
    memory: list[int] | None
    kind: ClassVar[str] = "coord"
    NULLABLE: ClassVar[tuple[str, ...]] = ("memory",)


# -- block scaling (properties.block_scale): kind-less, as the reports always printed them ------------------------
@witness
@dataclass(frozen=True, slots=True, eq=False)
class ScaleMismatch(Witness):
    """The producer and consumer of the scale factors disagree on scale ``(m, k)``."""

    m: int
    k: int


@witness
@dataclass(frozen=True, slots=True, eq=False)
class ScaleTile(Witness):
    """On grid ``gm`` x ``gn``, launch ``idx`` computes tile ``own`` but reads the scales of tile ``read``; they
    differ at scale row ``r``, K block ``kb``."""

    gm: int
    gn: int
    idx: list[int]
    own: int
    read: int
    r: int
    kb: int


# -- data paths (models.datapath.first_fault): path and stage first ------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class PathFault(Witness):
    """Stage ``stage`` of the data path ``path`` fails at element (or move) ``i``; an address fault adds the access's
    memory ``space``, start ``address``, ``bytes``, required ``align`` and buffer ``limit``."""

    path: str
    stage: int
    i: int
    space: str | None = None
    address: int | None = None
    bytes: int | None = None
    align: int | None = None
    limit: int | None = None
    LEAD: ClassVar[tuple[str, ...]] = ("path", "stage")


def _path_fault(kind: str, doc: str) -> type[PathFault]:
    cls = dataclass(frozen=True, slots=True, eq=False)(
        type(f"Path{kind.title().replace('_', '')}", (PathFault,), {"kind": kind, "__doc__": doc}))
    return witness(cls)


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
)}
"""``models.datapath.first_fault``'s fault kinds -> their records (one shape, ``PathFault``)."""


def path_fault(path: str, fault: Mapping[str, Any]) -> PathFault:
    """The record of a data-path fault ``{"stage", "kind", "i", ...}`` (``models.datapath.first_fault``) on ``path``."""
    rest = {k: v for k, v in fault.items() if k != "kind"}
    return PATH_FAULTS[fault["kind"]](path=path, **rest)



# -- kernels as compiled, pipelines, multicast ------------------------------------------------------------------------
@witness
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


@witness
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


@witness
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class MulticastWrite(Witness):
    """Row ``row`` of CTA ``dest``'s tile (cluster ranks) breaks ``rule`` (outside, foreign, missing, twice); the
    ranks of the CTAs whose TMA wrote it, ``issuers``."""

    rule: str
    dest: int
    row: int
    issuers: list[int]
    kind: ClassVar[str] = "multicast"



# -- a Triton dot's wgmma descriptors against its nvmma_shared layout (properties.nvmma) ------------------------------
@witness
@dataclass(frozen=True, slots=True, eq=False)
class DescriptorPair(Witness):
    """Reads ``a`` (operand A) and ``b`` (operand B) of one wgmma take different K blocks."""

    a: int
    b: int
    kind: ClassVar[str] = "pair"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class DescriptorDecode(Witness):
    """Read ``read``'s descriptor has no canonical layout in the model (``message``): not modelled."""

    read: int
    message: str
    kind: ClassVar[str] = "decode"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class DescriptorOrigin(Witness):
    """Read ``read``'s first element is no element of its operand at a block boundary."""

    read: int
    kind: ClassVar[str] = "origin"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class DescriptorElement(Witness):
    """Element ``(i, j)`` of read ``read``'s block is read from a byte that holds another element."""

    read: int
    i: int
    j: int
    kind: ClassVar[str] = "element"


@witness
@dataclass(frozen=True, slots=True, eq=False)
class DescriptorCover(Witness):
    """Block ``(mn, k)`` of ``operand`` is read by no wgmma of execution ``execution`` of the dot."""

    operand: int
    execution: int
    mn: int
    k: int
    kind: ClassVar[str] = "cover"


__all__ = [
    "KINDS",
    "PATH_FAULTS",
    "Base",
    "Collision",
    "Conflict",
    "Count",
    "DescriptorCover",
    "DescriptorDecode",
    "DescriptorElement",
    "DescriptorOrigin",
    "DescriptorPair",
    "Differ",
    "LinearCount",
    "Misaligned",
    "Missing",
    "MulticastWrite",
    "OutOfRange",
    "Owners",
    "PathFault",
    "PipelineStep",
    "PtxConflict",
    "SameThread",
    "SizeMismatch",
    "Split",
    "StreamKFixup",
    "TvCount",
    "Vector",
    "WavefrontTotal",
    "Witness",
    "from_json",
    "owner_id",
    "owner_of",
    "path_fault",
    "with_fields",
    "witness",
]


# -- tcgen05.cp (properties.tmem_copy) -----------------------------------------------------------------------------
@witness
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class TmemCopyElement(Witness):
    """Source element ``(row, element)`` of a tcgen05.cp breaks ``rule`` (``outside``: a cell past TMEM's 512
    columns; ``misplaced``: the cells it is ``written`` to differ from the ones the ``declared`` image names;
    ``uncopied``: the declared image names an element the shape does not copy): TMEM slot addresses
    ``lane + 128 * (column * 32/bits + slot)``."""

    rule: str
    row: int
    element: int
    written: list[int]
    declared: list[int]
    kind: ClassVar[str] = "tmem_copy"
