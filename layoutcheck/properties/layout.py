"""Properties: the claims layoutcheck can prove about layouts, and the protocol for adding new ones.

A *property* is a frozen value naming a claim about one or more *subjects* -- ``Layout``s or ``ComposedLayout``s
(swizzled), seen as functions from a flat index ``i`` in ``[0, size)`` to an offset. ``prove(prop)`` hands it to an
engine (``layoutcheck.engines``) which answers PROVEN / REFUTED / UNKNOWN.

Definitions (``L`` a subject, ``n`` a codomain size, ``T`` the thread count of a TV map)::

    injective(L)            L(i) == L(j)  =>  i == j                         for i, j in [0, size(L))
    surjective(L, n)        L maps into [0, n) and every y in [0, n) is some L(i)       (n defaults to size(L))
    bijective(L, n)         both of the above (so size(L) == n)
    equivalent(A, B)        A(i) == B(i) for every i in [0, size(A)); size(A) == size(B)
    in_bounds(L, e)         0 <= L(i) < e for every i
    exact_cover(tv, tile, k) every tile index y in [0, size(tile)) is tv(t, v) for exactly k pairs (t, v), of k
                            distinct threads t (k = 1: a partition of the tile; k > 1: MMA A/B replication)
    vectorizable(L, w, e)   L a TV map to memory offsets (elements of e bytes): for every thread t and every group g
                            of W = w/e consecutive values, L(t, g*W + j) == L(t, g*W) + j and L(t, g*W) % W == 0

Worked example: ``(4,2):(2,1)`` maps ``i = 0..7`` to ``0 2 4 6 1 3 5 7``: injective, bijective onto 8, in_bounds 8.
``(4,2):(2,2)`` maps to ``0 2 4 6 2 4 6 8``: the lexicographically smallest colliding pair is ``(1, 4)`` (both 2).

Edge cases: size-1 modes and stride-0 modes are ordinary; a stride-0 mode of size > 1 breaks injectivity.
A layout whose image leaves the codomain, a TV map whose size is not the tile's, two layouts of different sizes: these
are the layout's fault and are REFUTED with a witness (an index out of range, a missed or doubly owned element, the
first index only one side defines). Only ill-formed claims (a codomain that is not a positive int, a vector width
that is not a multiple of the element size) raise ``LayoutError`` when the property is built.

Where things live: the protocol every property follows (``Property``, ``Decision``, ``Undecided``, ``Subject``,
``as_subject``, the witness helpers) and its essay are in ``layoutcheck.properties.base``; ``exact_cover`` and
``vectorizable`` (claims about TV maps) are in ``layoutcheck.properties.tv``; import each name from the module that
defines it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.inttuple import is_int
from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.notation import as_subject
from layoutcheck.algebra.swizzle import ComposedLayout, Subject
from layoutcheck.errors import LayoutError
from layoutcheck.properties.base import (
    Decision,
    Property,
    at,
    explain_pair,
    pair_witness,
    recheck_out,
    recheck_pair,
    subject_size,
)
from layoutcheck.properties.scan import chunks, collision, counts, marks, value_bounds, zip_chunks
from layoutcheck.witness_maps import Count, Differ, Missing, OutOfRange, SizeMismatch

DENSE = 8
"""An image spanning at most ``DENSE * size`` values is decided by marking (one byte per value), else by sorting."""


# -- injective / surjective / bijective / in_bounds -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Injective(Property):
    """``L(i) == L(j) => i == j``."""

    layout: Subject
    name: ClassVar[str] = "injective"
    bytes_per_point: ClassVar[int] = 9  # one mark byte per value of a dense image (<= 8 per point), else the sort

    def __post_init__(self) -> None:
        object.__setattr__(self, "layout", as_subject(self.layout))

    def subjects(self) -> tuple[Subject, ...]:
        return (self.layout,)

    def exhaustive(self) -> Decision:
        x, m = self.layout, subject_size(self.layout)
        lo, hi = value_bounds(x)
        if hi - lo < DENSE * m:  # mark each value: m indices hit m distinct values iff injective
            distinct = int(np.count_nonzero(marks(x, lo, hi - lo + 1)[0]))
            if distinct == m:
                return Decision(True, None, {"collisions": 0})
            hits = counts(x, lo, hi - lo + 1, 2)
            pair = collision(x, lambda a: hits[a - lo] > 1)
        else:  # a sparse image: sort the offsets
            srt = x.offsets()
            srt.sort()
            same = srt[1:] == srt[:-1]
            distinct = m - int(np.count_nonzero(same))
            if distinct == m:
                return Decision(True, None, {"collisions": 0})
            dup = np.unique(srt[1:][same])
            del srt, same
            pair = collision(x, lambda a: dup[np.minimum(np.searchsorted(dup, a), dup.size - 1)] == a)
        assert pair is not None  # fewer distinct values than indices
        return Decision(False, pair_witness(*pair), {"collisions": m - distinct})

    def recheck(self, w: dict[str, Any]) -> bool:
        return recheck_pair(self.layout, w)

    def explain(self, w: dict[str, Any]) -> str:
        return explain_pair(self.layout, w)


@dataclass(frozen=True, slots=True)
class InBounds(Property):
    """``0 <= L(i) < extent`` for every ``i``."""

    layout: Subject
    extent: int
    name: ClassVar[str] = "in_bounds"
    bytes_per_point: ClassVar[int] = 1  # chunk by chunk: no per-point storage

    def __post_init__(self) -> None:
        object.__setattr__(self, "layout", as_subject(self.layout))
        if not is_int(self.extent) or self.extent <= 0:
            raise LayoutError(f"in_bounds extent must be a positive int, found {self.extent!r}")

    def subjects(self) -> tuple[Subject, ...]:
        return (self.layout,)

    def subject(self) -> str:
        return f"{self.layout}, {self.extent}"

    def exhaustive(self) -> Decision:
        e, first, out = self.extent, None, 0
        for start, a in chunks(self.layout):
            if int(a.min()) < 0 or int(a.max()) >= e:
                bad = (a < 0) | (a >= e)
                out += int(np.count_nonzero(bad))
                first = start + int(np.flatnonzero(bad)[0]) if first is None else first
        stats = {"out_of_bounds": out}
        return Decision(True, None, stats) if first is None else Decision(False, OutOfRange(first), stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        return recheck_out(self.layout, w, self.extent)

    def explain(self, w: dict[str, Any]) -> str:
        return f"index {w['i']}: {at(self.layout, w['i'])} is outside [0,{self.extent})"


def _check_codomain(x: Subject, n: int, what: str) -> None:
    """A codomain is a positive int. An image reaching outside ``[0, n)`` is not an error: it refutes the claim
    (the engines find the offending index)."""
    if not is_int(n) or n <= 0:
        raise LayoutError(f"{what} codomain must be a positive int, found {n!r}")


def _count_witness(n_dom: int, n: int) -> dict[str, Any]:
    return Count(n_dom, n)


@dataclass(frozen=True, slots=True)
class Onto(Property):
    """Base of ``Surjective`` and ``Bijective``: ``L`` maps into ``[0, n)`` and hits every ``y`` in it, and, when
    ``need_injective``, hits each once. ``n`` defaults to ``size(L)``. Engines may handle both with one handler."""

    layout: Subject
    codomain: int | None = None
    name: ClassVar[str] = "onto"
    need_injective: ClassVar[bool] = False
    bytes_per_point: ClassVar[int] = 2  # one mark byte per codomain value (codomain <= size), then one count byte

    def __post_init__(self) -> None:
        object.__setattr__(self, "layout", as_subject(self.layout))
        n = subject_size(self.layout) if self.codomain is None else self.codomain
        _check_codomain(self.layout, n, self.name)
        object.__setattr__(self, "codomain", n)

    def subjects(self) -> tuple[Subject, ...]:
        return (self.layout,)

    def subject(self) -> str:
        return f"{self.layout}, {self.codomain}"

    def count_witness(self) -> dict[str, Any] | None:
        """The ``count`` witness when sizes alone refute the claim (``size < n``, or ``size != n`` for a bijection).

        >>> bijective(Layout(4, 1), 8).count_witness()
        Count(size=4, codomain=8)
        """
        m, n = subject_size(self.layout), self.codomain
        assert n is not None  # set by __post_init__
        return _count_witness(m, n) if m < n or (self.need_injective and m != n) else None

    def exhaustive(self) -> Decision:
        return _onto(self, self.codomain)

    def recheck(self, w: dict[str, Any]) -> bool:
        return _recheck_onto(self.layout, self.codomain, w)

    def explain(self, w: dict[str, Any]) -> str:
        return _explain_onto(self.layout, self.codomain, w)


@dataclass(frozen=True, slots=True)
class Surjective(Onto):
    """``L`` maps into ``[0, n)`` and hits every ``y`` in it; ``n`` defaults to ``size(L)``."""

    name: ClassVar[str] = "surjective"


@dataclass(frozen=True, slots=True)
class Bijective(Onto):
    """``L`` is a bijection ``[0, size) -> [0, n)``; ``n`` defaults to ``size(L)``."""

    name: ClassVar[str] = "bijective"
    need_injective: ClassVar[bool] = True


def _onto(prop: Onto, n: int) -> Decision:
    """Decide surjectivity (and injectivity) onto ``[0, n)`` by evaluating every index.

    Witness order: a size mismatch (counting), an offset outside ``[0, n)``, the smallest colliding pair, the smallest
    uncovered ``y`` (only when ``size > n``; otherwise a collision is always found first).
    """
    x, m, need_injective = prop.layout, subject_size(prop.layout), prop.need_injective
    count = prop.count_witness()
    if count is not None:
        return Decision(False, count, {"size": m, "codomain": n})
    seen, i = marks(x, 0, n)
    if i is not None:
        return Decision(False, OutOfRange(i), {})
    hit = int(np.count_nonzero(seen))
    del seen
    if m == n and hit == n:  # n offsets covering [0, n): injective too
        return Decision(True, None, {"missing": 0, "multiply_hit": 0})
    hits = counts(x, 0, n, 2)
    stats = {"missing": n - hit, "multiply_hit": int(np.count_nonzero(hits > 1))}
    if need_injective or m == n:
        pair = collision(x, lambda a: hits[a] > 1)
        return Decision(True, None, stats) if pair is None else Decision(False, pair_witness(*pair), stats)
    missing = np.flatnonzero(hits == 0)
    return Decision(True, None, stats) if missing.size == 0 else Decision(False, Missing(int(missing[0])), stats)


def _recheck_onto(x: Subject, n: int, w: dict[str, Any]) -> bool:
    kind = w["kind"]
    if kind == "count":
        return w["size"] == subject_size(x) and w["codomain"] == n and w["size"] != n
    if kind == "out":
        return recheck_out(x, w, n)
    if kind == "collision":
        return recheck_pair(x, w) and subject_size(x) <= n
    return kind == "missing" and 0 <= w["y"] < n and not bool((x.offsets() == w["y"]).any())


def _explain_onto(x: Subject, n: int, w: dict[str, Any]) -> str:
    kind = w["kind"]
    if kind == "count":
        return f"size {w['size']} != codomain size {n}"
    if kind == "out":
        return f"index {w['i']}: {at(x, w['i'])} is outside [0,{n})"
    if kind == "collision":
        return explain_pair(x, w) + f" (so, with size {subject_size(x)} <= {n}, some offset is never hit)"
    return f"offset {w['y']} in [0,{n}) is never hit"


# -- equivalent -----------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Equivalent(Property):
    """``A(i) == B(i)`` for every ``i`` in ``[0, size)``: e.g. two encodings of one TV map."""

    a: Subject
    b: Subject
    name: ClassVar[str] = "equivalent"
    bytes_per_point: ClassVar[int] = 1  # chunk by chunk: no per-point storage

    def __post_init__(self) -> None:
        object.__setattr__(self, "a", as_subject(self.a, "equivalent: A"))
        object.__setattr__(self, "b", as_subject(self.b, "equivalent: B"))

    def subjects(self) -> tuple[Subject, ...]:
        return (self.a, self.b)

    def size_witness(self) -> dict[str, Any] | None:
        """The ``size`` witness when the sizes differ: index ``min(size(A), size(B))`` exists on one side only.

        >>> equivalent(Layout(4, 1), Layout(8, 1)).size_witness()
        SizeMismatch(i=4, size_a=4, size_b=8)
        """
        na, nb = subject_size(self.a), subject_size(self.b)
        return None if na == nb else SizeMismatch(min(na, nb), na, nb)

    def exhaustive(self) -> Decision:
        sw = self.size_witness()
        if sw is not None:
            return Decision(False, sw)
        first, differing = None, 0
        for start, a, b in zip_chunks(self.a, self.b):
            diff = np.flatnonzero(a != b)
            differing += diff.size
            first = start + int(diff[0]) if first is None and diff.size else first
        stats = {"differing": differing}
        return Decision(True, None, stats) if first is None else Decision(False, Differ(first), stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        i = w["i"]
        if w["kind"] == "size":
            return w == self.size_witness()
        return 0 <= i < subject_size(self.a) == subject_size(self.b) and self.a(i) != self.b(i)

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "size":
            side, x = ("A", self.a) if w["size_a"] > w["size_b"] else ("B", self.b)
            return (f"sizes differ: size(A) = {w['size_a']}, size(B) = {w['size_b']}; index {w['i']} exists only in "
                    f"{side}: {side}{at(x, w['i'])}")
        return f"index {w['i']}: A{at(self.a, w['i'])} but B{at(self.b, w['i'])}"


# -- the public constructors (CuTe-style free functions) ------------------------------------------------------
def injective(layout: Any) -> Injective:
    """Claim: ``layout`` never maps two indices to one offset.

    >>> str(injective(Layout((4, 2), (2, 1))))
    'injective((4,2):(2,1))'
    """
    return Injective(layout)


def surjective(layout: Any, codomain: int | None = None) -> Surjective:
    """Claim: ``layout`` maps into and onto ``[0, codomain)`` (default ``size(layout)``)."""
    return Surjective(layout, codomain)


def bijective(layout: Any, codomain: int | None = None) -> Bijective:
    """Claim: ``layout`` is a bijection onto ``[0, codomain)`` (default ``size(layout)``)."""
    return Bijective(layout, codomain)


def equivalent(a: Any, b: Any) -> Property:
    """Claim: ``size(a) == size(b)`` and ``a(i) == b(i)`` for all ``i``: ``Equivalent`` for two CuTe layouts, else
    ``MapEquivalent`` (any two forms: Triton linear layouts, TileLang maps, index formulas;
    ``layoutcheck.properties.equivalence``)."""
    if all(isinstance(x, (str, Layout, ComposedLayout)) for x in (a, b)):
        return Equivalent(a, b)
    from layoutcheck.properties.equivalence import MapEquivalent

    return MapEquivalent(a, b)


def in_bounds(layout: Any, extent: int) -> InBounds:
    """Claim: every offset of ``layout`` lies in ``[0, extent)``."""
    return InBounds(layout, extent)


__all__ = [
    "Bijective", "Equivalent", "InBounds", "Injective", "Onto", "Surjective", "bijective", "equivalent", "in_bounds",
    "injective", "surjective",
]
