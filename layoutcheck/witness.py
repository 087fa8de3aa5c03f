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
from dataclasses import dataclass, fields
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

    ``KIND_AT``: where ``"kind"`` stands among the JSON keys (0: first; a witness that names the writer or the
    stage of a longer path before its kind sets 1 or 2, as the reports always printed them)."""

    kind: ClassVar[str] = ""
    KIND_AT: ClassVar[int] = 0

    def to_json(self) -> dict[str, Any]:
        """The record as its JSON object (``kind`` and every field that is not ``None``, in declared order)."""
        items = [(f.name, _plain(getattr(self, f.name))) for f in fields(self) if getattr(self, f.name) is not None]
        items.insert(self.KIND_AT, ("kind", self.kind))
        return dict(items)

    # -- a read-only Mapping over to_json() ------------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        if key == "kind":
            return self.kind
        if key in _field_names(type(self)):
            v = getattr(self, key)
            if v is not None:
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
        names = _field_names(cls)
        required = {f.name for f in fields(cls) if f.default is not None}
        if required <= keys <= names:
            return cls(**{k: data[k] for k in keys})
    raise KeyError(f"no witness record of kind {data.get('kind')!r} with fields {sorted(keys)}")


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


__all__ = [
    "KINDS", "Collision", "Count", "Differ", "LinearCount", "Missing", "OutOfRange", "Owners", "SameThread",
    "SizeMismatch", "TvCount", "Vector", "Witness", "from_json", "owner_id", "owner_of", "witness",
]
