"""Typed counterexamples: the record every witness kind is (``Witness``), its one JSON encoding, one owner encoding.

A REFUTED claim carries a *witness*: the smallest concrete input on which it fails, in plain ints. Each kind of
witness is a frozen record (``layoutcheck.witness`` lists them all, by family module), named after what it shows; the
fields shared between kinds mean the same thing everywhere:

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


def with_fields(w: Mapping[str, Any] | None, **extra: Any) -> Mapping[str, Any]:
    """``w`` with the ``extra`` fields (a claim that wraps another's witness: the writer, the block): the typed
    record with them set where it declares them, else a plain dict with ``extra`` first."""
    if isinstance(w, Witness) and set(extra) <= _field_names(type(w)):
        return replace(w, **extra)
    return {**extra, **(w or {})}
