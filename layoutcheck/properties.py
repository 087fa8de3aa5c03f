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
Inputs that cannot be compared (a codomain smaller than the image, a TV map whose size is not the tile's, a vector
width that is not a multiple of the element size) raise ``LayoutError`` when the property is *built*, before any
engine runs.

The protocol (for engineers adding properties in their own modules)
-------------------------------------------------------------------
Subclass ``Property`` as a frozen dataclass and implement:

- ``name`` (class attribute) and ``subject()`` -> text in CuTe notation; ``describe()`` has a default;
- ``subjects()`` -> the layouts the claim is about (engines use it to test their preconditions);
- ``domain_size()`` -> how many points the exhaustive engine evaluates (it refuses above its memory budget);
- ``exhaustive()`` -> ``Decision``: decide the claim over the whole finite domain with NumPy. On failure return
  ``Decision(False, witness)`` with ``witness`` a small dict of plain ints;
- ``recheck(witness)`` -> ``True`` iff evaluating the subjects confirms the witness violates the claim (every
  engine's witness goes through it before it is reported), and ``explain(witness)`` -> one line in CuTe coordinates.

Validate inputs in ``__post_init__`` (raise ``LayoutError``). Other engines (linear, z3, sympy) learn a property
through ``Engine.handles(PropertyType)`` (see ``layoutcheck.engines.base``); without a handler they decline, and
``prove(..., engine="auto")`` falls through to the exhaustive engine. Example::

    @dataclass(frozen=True, slots=True)
    class EvenOffsets(Property):
        layout: Layout
        name: ClassVar[str] = "even_offsets"

        def subjects(self): return (self.layout,)
        def subject(self): return str(self.layout)
        def domain_size(self): return size(self.layout)
        def exhaustive(self):
            odd = np.flatnonzero(self.layout.offsets() % 2)
            return Decision(True) if odd.size == 0 else Decision(False, {"i": int(odd[0])}, {"odd": int(odd.size)})
        def recheck(self, w): return self.layout(w["i"]) % 2 == 1
        def explain(self, w): return f"L{at(self.layout, w['i'])} = {self.layout(w['i'])} is odd"

    prove(EvenOffsets(Layout((4, 2), (2, 1))))          # REFUTED: L(4) = (0,1) -> 1 is odd
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .errors import LayoutError
from .inttuple import flatten, idx2crd, is_int, is_tuple, product
from .layout import Layout, format_inttuple, size
from .swizzle import ComposedLayout

Subject = Layout | ComposedLayout


# -- decisions ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Decision:
    """An engine's decision: ``holds`` over the whole domain, or not with a ``witness`` (plain ints)."""

    holds: bool
    witness: dict[str, Any] | None = None
    stats: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Undecided:
    """An engine could not decide: ``reason`` says why (timeout, solver unknown, too large, unsupported)."""

    reason: str
    stats: dict[str, Any] = field(default_factory=dict)


# -- helpers shared by properties -----------------------------------------------------------------------------
def as_subject(x: Any, what: str = "subject") -> Subject:
    """A ``Layout`` / ``ComposedLayout``, or CuTe notation text parsed into one."""
    if isinstance(x, (Layout, ComposedLayout)):
        return x
    if isinstance(x, str):
        from .notation import parse_layout

        return as_subject(parse_layout(x), what)
    raise LayoutError(f"{what} must be a Layout or ComposedLayout, found {type(x).__name__} {x!r}")


def inner(x: Subject) -> Layout:
    return x.layout if isinstance(x, ComposedLayout) else x


def subject_size(x: Subject) -> int:
    return size(inner(x))


def at(x: Subject, i: int) -> str:
    """``(crd) -> offset`` text for flat index ``i`` of ``x``, in CuTe coordinates."""
    crd = format_inttuple(idx2crd(i, inner(x).shape))
    return f"{crd if crd.startswith('(') else f'({crd})'} -> {x(i)}"


def offset_range(x: Subject) -> tuple[int, int]:
    """Exact ``(min, max)`` of a plain layout's offsets; for a swizzled one a range the image certainly reaches."""
    lay = inner(x)
    lo = sum((s - 1) * d for s, d in zip(flatten(lay.shape), flatten(lay.stride), strict=True) if d < 0)
    hi = sum((s - 1) * d for s, d in zip(flatten(lay.shape), flatten(lay.stride), strict=True) if d > 0)
    if isinstance(x, ComposedLayout):  # the swizzle only rewrites the zzz bits: f(y) >= y & ~zzz
        lo, hi = lo + x.offset, (hi + x.offset) & ~x.swizzle.zzz_mask
    return lo, hi


def smallest_collision(offs: np.ndarray) -> tuple[int, int] | None:
    """The lexicographically smallest ``(i, j)``, ``i < j``, with ``offs[i] == offs[j]``; ``None`` if injective."""
    if offs.size < 2:
        return None
    lo, hi = int(offs.min()), int(offs.max())
    if hi - lo <= 4 * offs.size:  # dense image: counting beats sorting
        counts = np.bincount(offs - lo)
        dup = np.flatnonzero(counts[offs - lo] > 1)
    else:
        order = np.argsort(offs, kind="stable")
        srt = offs[order]
        eq = np.flatnonzero(srt[1:] == srt[:-1])
        dup = np.sort(np.concatenate([order[eq], order[eq + 1]])) if eq.size else eq
    if dup.size == 0:
        return None
    i = int(dup[0])  # the smallest duplicated index is the first occurrence of its offset
    j = i + 1 + int(np.flatnonzero(offs[i + 1:] == offs[i])[0])
    return i, j


def first_out_of_range(offs: np.ndarray, extent: int) -> int | None:
    if offs.size == 0 or (int(offs.min()) >= 0 and int(offs.max()) < extent):
        return None
    bad = np.flatnonzero((offs < 0) | (offs >= extent))
    return int(bad[0]) if bad.size else None


# -- the property base ----------------------------------------------------------------------------------------
class Property:
    """Base of every claim; subclasses are frozen dataclasses (see the module docstring for the protocol)."""

    __slots__ = ()
    name: ClassVar[str] = "property"
    bytes_per_point: ClassVar[int] = 32
    """Peak bytes the exhaustive decision needs per domain point (offsets, counts or sort permutation)."""

    def subjects(self) -> tuple[Subject, ...]:
        raise NotImplementedError

    def subject(self) -> str:
        return ", ".join(str(s) for s in self.subjects())

    def describe(self) -> str:
        return f"{self.name}({self.subject()})"

    def __str__(self) -> str:
        return self.describe()

    def domain_size(self) -> int:
        return max(subject_size(s) for s in self.subjects())

    def exhaustive(self) -> Decision:
        raise NotImplementedError

    def recheck(self, witness: dict[str, Any]) -> bool:
        raise NotImplementedError

    def explain(self, witness: dict[str, Any]) -> str:
        raise NotImplementedError


def _count_witness(n_dom: int, n: int) -> dict[str, Any]:
    return {"kind": "count", "size": n_dom, "codomain": n}


# -- injective / surjective / bijective / in_bounds -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Injective(Property):
    """``L(i) == L(j) => i == j``."""

    layout: Subject
    name: ClassVar[str] = "injective"
    bytes_per_point: ClassVar[int] = 40

    def __post_init__(self) -> None:
        object.__setattr__(self, "layout", as_subject(self.layout))

    def subjects(self) -> tuple[Subject, ...]:
        return (self.layout,)

    def exhaustive(self) -> Decision:
        offs = self.layout.offsets()
        pair = smallest_collision(offs)
        stats = {"collisions": int(offs.size - np.unique(offs).size)} if pair else {"collisions": 0}
        return Decision(True, None, stats) if pair is None else Decision(False, _pair(*pair), stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        return _recheck_pair(self.layout, w)

    def explain(self, w: dict[str, Any]) -> str:
        return _explain_pair(self.layout, w)


def _pair(i: int, j: int) -> dict[str, Any]:
    return {"kind": "collision", "i": i, "j": j}


def _recheck_pair(x: Subject, w: dict[str, Any]) -> bool:
    n = subject_size(x)
    i, j = w["i"], w["j"]
    return 0 <= i < j < n and x(i) == x(j)


def _explain_pair(x: Subject, w: dict[str, Any]) -> str:
    return f"indices {w['i']} and {w['j']} collide: {at(x, w['i'])} and {at(x, w['j'])}"


@dataclass(frozen=True, slots=True)
class InBounds(Property):
    """``0 <= L(i) < extent`` for every ``i``."""

    layout: Subject
    extent: int
    name: ClassVar[str] = "in_bounds"
    bytes_per_point: ClassVar[int] = 16

    def __post_init__(self) -> None:
        object.__setattr__(self, "layout", as_subject(self.layout))
        if not is_int(self.extent) or self.extent <= 0:
            raise LayoutError(f"in_bounds extent must be a positive int, found {self.extent!r}")

    def subjects(self) -> tuple[Subject, ...]:
        return (self.layout,)

    def subject(self) -> str:
        return f"{self.layout}, {self.extent}"

    def exhaustive(self) -> Decision:
        offs = self.layout.offsets()
        i = first_out_of_range(offs, self.extent)
        stats = {"out_of_bounds": int(((offs < 0) | (offs >= self.extent)).sum())}
        return Decision(True, None, stats) if i is None else Decision(False, {"kind": "out", "i": i}, stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        return _recheck_out(self.layout, w, self.extent)

    def explain(self, w: dict[str, Any]) -> str:
        return f"index {w['i']}: {at(self.layout, w['i'])} is outside [0,{self.extent})"


def _recheck_out(x: Subject, w: dict[str, Any], extent: int) -> bool:
    i = w["i"]
    return 0 <= i < subject_size(x) and not 0 <= x(i) < extent


def _check_codomain(x: Subject, n: int, what: str) -> None:
    if not is_int(n) or n <= 0:
        raise LayoutError(f"{what} codomain must be a positive int, found {n!r}")
    lo, hi = offset_range(x)
    if lo < 0:
        raise LayoutError(f"{what}: codomain [0,{n}) cannot hold the image of {x}, which reaches {lo} < 0")
    if hi >= n:
        raise LayoutError(f"{what}: codomain [0,{n}) is smaller than the image of {x}, which reaches {hi}")


@dataclass(frozen=True, slots=True)
class Onto(Property):
    """Base of ``Surjective`` and ``Bijective``: ``L`` maps into ``[0, n)`` and hits every ``y`` in it, and, when
    ``need_injective``, hits each once. ``n`` defaults to ``size(L)``. Engines may handle both with one handler."""

    layout: Subject
    codomain: int | None = None
    name: ClassVar[str] = "onto"
    need_injective: ClassVar[bool] = False
    bytes_per_point: ClassVar[int] = 32

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
        {'kind': 'count', 'size': 4, 'codomain': 8}
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
    offs = x.offsets()
    i = first_out_of_range(offs, n)
    if i is not None:
        return Decision(False, {"kind": "out", "i": i}, {})
    counts = np.bincount(offs, minlength=n)
    stats = {"missing": int((counts == 0).sum()), "multiply_hit": int((counts > 1).sum())}
    if m == n and stats["missing"] == 0:  # n offsets covering [0, n): injective too
        return Decision(True, None, stats)
    if need_injective or m == n:
        pair = smallest_collision(offs)
        return Decision(True, None, stats) if pair is None else Decision(False, _pair(*pair), stats)
    missing = np.flatnonzero(counts == 0)
    return Decision(True, None, stats) if missing.size == 0 else Decision(False, {"kind": "missing",
                                                                                   "y": int(missing[0])}, stats)


def _recheck_onto(x: Subject, n: int, w: dict[str, Any]) -> bool:
    kind = w["kind"]
    if kind == "count":
        return w["size"] == subject_size(x) and w["codomain"] == n and w["size"] != n
    if kind == "out":
        return _recheck_out(x, w, n)
    if kind == "collision":
        return _recheck_pair(x, w) and subject_size(x) <= n
    return kind == "missing" and 0 <= w["y"] < n and not bool((x.offsets() == w["y"]).any())


def _explain_onto(x: Subject, n: int, w: dict[str, Any]) -> str:
    kind = w["kind"]
    if kind == "count":
        return f"size {w['size']} != codomain size {n}"
    if kind == "out":
        return f"index {w['i']}: {at(x, w['i'])} is outside [0,{n})"
    if kind == "collision":
        return _explain_pair(x, w) + f" (so, with size {subject_size(x)} <= {n}, some offset is never hit)"
    return f"offset {w['y']} in [0,{n}) is never hit"


# -- equivalent -----------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Equivalent(Property):
    """``A(i) == B(i)`` for every ``i`` in ``[0, size)``: e.g. two encodings of one TV map."""

    a: Subject
    b: Subject
    name: ClassVar[str] = "equivalent"
    bytes_per_point: ClassVar[int] = 32

    def __post_init__(self) -> None:
        object.__setattr__(self, "a", as_subject(self.a, "equivalent: A"))
        object.__setattr__(self, "b", as_subject(self.b, "equivalent: B"))
        na, nb = subject_size(self.a), subject_size(self.b)
        if na != nb:
            raise LayoutError(f"equivalent: sizes differ, size(A) = {na} for {self.a}, size(B) = {nb} for {self.b}")

    def subjects(self) -> tuple[Subject, ...]:
        return (self.a, self.b)

    def exhaustive(self) -> Decision:
        diff = np.flatnonzero(self.a.offsets() != self.b.offsets())
        stats = {"differing": int(diff.size)}
        return Decision(True, None, stats) if diff.size == 0 else Decision(False, {"kind": "differ",
                                                                                   "i": int(diff[0])}, stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        i = w["i"]
        return 0 <= i < subject_size(self.a) and self.a(i) != self.b(i)

    def explain(self, w: dict[str, Any]) -> str:
        return f"index {w['i']}: A{at(self.a, w['i'])} but B{at(self.b, w['i'])}"


# -- exact cover of a tile by a TV map ------------------------------------------------------------------------
Tile = int | tuple | Layout


def _tile_shape(tile: Any) -> Any:
    if isinstance(tile, Layout):
        return tile.shape
    if is_int(tile) or is_tuple(tile):
        if any(not is_int(s) or s <= 0 for s in flatten(tile)):
            raise LayoutError(f"exact_cover: tile shape must hold positive ints, found {tile!r}")
        return tile
    raise LayoutError(f"exact_cover: tile must be an int, a shape tuple or a Layout, found {tile!r}")


def _tv_of(tv_map: Any, operand: str) -> tuple[Subject, Any, int | None]:
    """``(tv, tile, replication)`` of a TV map, or of a tiled MMA's operand (anything with ``tv_layout_C``)."""
    attr = f"tv_layout_{operand}"
    if hasattr(tv_map, attr):
        m, n, k = tv_map.tile_size_mnk
        tile = {"A": (m, k), "B": (n, k), "C": (m, n)}[operand]
        return as_subject(getattr(tv_map, attr), f"exact_cover: {attr}"), tile, None if operand != "C" else 1
    return as_subject(tv_map, "exact_cover: tv_map"), None, 1


@dataclass(frozen=True, slots=True)
class ExactCover(Property):
    """Every tile index is owned by exactly ``replication`` ``(thread, value)`` pairs, of distinct threads.

    ``tv`` is rank 2: mode 0 the threads, mode 1 each thread's values; ``tv(t, v)`` is a colex index of the tile.
    """

    tv: Subject
    tile: Tile
    replication: int = 1
    name: ClassVar[str] = "exact_cover"

    def __post_init__(self) -> None:
        tv = as_subject(self.tv, "exact_cover: tv_map")
        object.__setattr__(self, "tv", tv)
        n = product(_tile_shape(self.tile))
        if len(inner(tv)) != 2:
            raise LayoutError(f"exact_cover: the TV map must have rank 2 (thread, value), found rank {len(tv)}: {tv}")
        k = self.replication
        if not is_int(k) or k <= 0:
            raise LayoutError(f"exact_cover: replication must be a positive int, found {k!r}")
        if subject_size(tv) != k * n:
            raise LayoutError(f"exact_cover: size of the TV map {tv} is {subject_size(tv)}, but the tile "
                              f"{_show_tile(self.tile)} has {n} elements" + (f" x {k} owners" if k > 1 else ""))

    @property
    def threads(self) -> int:
        return size(inner(self.tv)[0])

    @property
    def tile_size(self) -> int:
        return product(_tile_shape(self.tile))

    def subjects(self) -> tuple[Subject, ...]:
        return (self.tv,)

    def subject(self) -> str:
        k = f", x{self.replication}" if self.replication > 1 else ""
        return f"{self.tv} on tile {_show_tile(self.tile)}{k}"

    def exhaustive(self) -> Decision:
        offs, n, k, nt = self.tv.offsets(), self.tile_size, self.replication, self.threads
        i = first_out_of_range(offs, n)
        if i is not None:
            return Decision(False, {"kind": "out", "i": i}, {})
        counts = np.bincount(offs, minlength=n)
        stats = {"missing": int((counts == 0).sum()), "over_owned": int((counts > k).sum()),
                 "under_owned": int((counts < k).sum())}
        bad = np.flatnonzero(counts != k)
        if bad.size:
            y = int(bad[0])
            owners = _owners(offs, y, limit=max(64, k + 1))
            return Decision(False, {"kind": "owners", "y": y, "owners": owners, "count": int(counts[y])}, stats)
        if k > 1:  # each thread owns an element at most once: (index, thread) pairs are distinct
            pair = smallest_collision(offs * nt + np.arange(offs.size, dtype=offs.dtype) % nt)
            if pair is not None:
                return Decision(False, {"kind": "same_thread", "i": pair[0], "j": pair[1]}, stats)
        return Decision(True, None, stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        n, tv, kind = self.tile_size, self.tv, w["kind"]
        if kind == "out":
            return _recheck_out(tv, w, n)
        if kind == "same_thread":
            i, j = w["i"], w["j"]
            return i != j and i % self.threads == j % self.threads and tv(i) == tv(j)
        owners = w["owners"]
        listed_ok = all(tv(o) == w["y"] for o in owners) and len(set(owners)) == len(owners)
        if len(owners) > self.replication:  # over-owned: the listed owners alone prove it
            return listed_ok
        # under-owned: the list must be complete, which only enumeration shows (the exhaustive engine's domain)
        return listed_ok and subject_size(tv) <= 1 << 26 and sorted(owners) == _owners(tv.offsets(), w["y"], None)

    def explain(self, w: dict[str, Any]) -> str:
        kind, nt = w["kind"], self.threads
        if kind == "out":
            i = w["i"]
            return f"thread {i % nt}, value {i // nt} -> {self.tv(i)}, outside the tile [0,{self.tile_size})"
        if kind == "same_thread":
            i, j = w["i"], w["j"]
            return f"thread {i % nt} owns tile element {self._crd(self.tv(i))} twice: values {i // nt} and {j // nt}"
        y, owners = w["y"], w["owners"]
        count = w.get("count", len(owners))
        who = ", ".join(f"(thread {o % nt}, value {o // nt})" for o in owners[:8]) or "nobody"
        more = f" and {count - min(8, len(owners))} more" if count > 8 else ""
        times = f"at least {count}" if w.get("at_least") else f"{count}"
        return f"tile element {self._crd(y)} is owned {times} times (expected {self.replication}): {who}{more}"

    def _crd(self, y: int) -> str:
        shape = _tile_shape(self.tile)
        crd = format_inttuple(idx2crd(y, shape))
        crd = crd if crd.startswith("(") else f"({crd})"
        return f"{crd} [offset {self.tile(y)}]" if isinstance(self.tile, Layout) else crd


def _owners(offs: np.ndarray, y: int, limit: int | None = 64) -> list[int]:
    found = np.flatnonzero(offs == y)
    return [int(o) for o in (found if limit is None else found[:limit])]


def _show_tile(tile: Tile) -> str:
    return str(tile) if isinstance(tile, Layout) else format_inttuple(tile)


# -- vectorizable ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Vectorizable(Property):
    """Each thread's values, in groups of ``W = width_bytes / dtype_bytes``, are contiguous runs aligned to ``W``.

    ``layout`` is a TV map composed with a memory layout: ``(thread, value) -> element offset``.
    """

    layout: Subject
    width_bytes: int
    dtype_bytes: int
    name: ClassVar[str] = "vectorizable"
    bytes_per_point: ClassVar[int] = 32

    def __post_init__(self) -> None:
        lay = as_subject(self.layout, "vectorizable: layout")
        object.__setattr__(self, "layout", lay)
        w, e = self.width_bytes, self.dtype_bytes
        if not (is_int(w) and is_int(e) and w > 0 and e > 0 and w % e == 0):
            raise LayoutError(f"vectorizable: width {w!r} bytes must be a positive multiple of the {e!r}-byte dtype")
        if len(inner(lay)) != 2:
            raise LayoutError(f"vectorizable: expected a rank-2 (thread, value) layout, found rank {len(lay)}: {lay}")
        nv = size(inner(lay)[1])
        if nv % (w // e):
            raise LayoutError(f"vectorizable: {nv} values per thread in {lay} do not split into "
                              f"{w // e}-element ({w}-byte) vectors")

    @property
    def vector(self) -> int:
        return self.width_bytes // self.dtype_bytes

    @property
    def threads(self) -> int:
        return size(inner(self.layout)[0])

    def subject(self) -> str:
        return f"{self.layout}, {self.width_bytes} B of {self.dtype_bytes}-byte elements"

    def subjects(self) -> tuple[Subject, ...]:
        return (self.layout,)

    def exhaustive(self) -> Decision:
        nt, w = self.threads, self.vector
        offs = self.layout.offsets().reshape(-1, w, nt)  # [group, j, thread]
        base = offs[:, :1, :]
        ok = ((offs - base) == np.arange(w).reshape(1, w, 1)).all(axis=1) & (base[:, 0, :] % w == 0)
        bad = np.argwhere(~ok)  # rows (group, thread), sorted by group then thread
        stats = {"vectors": int(ok.size), "failing_vectors": int(bad.shape[0])}
        if bad.shape[0] == 0:
            return Decision(True, None, stats)
        g, t = (int(v) for v in bad[np.lexsort((bad[:, 0], bad[:, 1]))[0]])  # smallest thread, then group
        return Decision(False, {"kind": "vector", "t": t, "g": g}, stats)

    def _run(self, w: dict[str, Any]) -> list[int]:
        t, g, nt, vw = w["t"], w["g"], self.threads, self.vector
        return [self.layout(t + nt * (g * vw + j)) for j in range(vw)]

    def recheck(self, w: dict[str, Any]) -> bool:
        if not (0 <= w["t"] < self.threads and 0 <= w["g"] * self.vector < subject_size(self.layout) // self.threads):
            return False
        run = self._run(w)
        return run != list(range(run[0], run[0] + self.vector)) or run[0] % self.vector != 0

    def explain(self, w: dict[str, Any]) -> str:
        run = self._run(w)
        why = "not contiguous" if run != list(range(run[0], run[0] + self.vector)) else \
            f"misaligned ({run[0]} % {self.vector} != 0)"
        return (f"thread {w['t']}, values {w['g'] * self.vector}..{(w['g'] + 1) * self.vector - 1} -> offsets "
                f"{run}: {why}")


# -- the public constructors (CuTe-style free functions) ------------------------------------------------------
def injective(layout: Any) -> Injective:
    """Claim: ``layout`` never maps two indices to one offset.

    >>> str(injective(Layout((4, 2), (2, 1))))
    'injective((4,2):(2,1))'
    """
    return Injective(layout)


def surjective(layout: Any, codomain: int | None = None) -> Surjective:
    """Claim: ``layout`` maps onto ``[0, codomain)`` (default ``size(layout)``). Pre: the image fits the codomain."""
    return Surjective(layout, codomain)


def bijective(layout: Any, codomain: int | None = None) -> Bijective:
    """Claim: ``layout`` is a bijection onto ``[0, codomain)`` (default ``size(layout)``)."""
    return Bijective(layout, codomain)


def equivalent(a: Any, b: Any) -> Equivalent:
    """Claim: ``a(i) == b(i)`` for all ``i``. Pre: ``size(a) == size(b)``."""
    return Equivalent(a, b)


def in_bounds(layout: Any, extent: int) -> InBounds:
    """Claim: every offset of ``layout`` lies in ``[0, extent)``."""
    return InBounds(layout, extent)


def exact_cover(tv_map: Any, tile: Tile | None = None, replication: int | None = None,
                operand: str = "C") -> ExactCover:
    """Claim: the TV map owns every element of ``tile`` exactly ``replication`` times (default 1).

    ``tv_map`` may also be a tiled MMA (anything with ``tv_layout_A/B/C`` and ``tile_size_mnk``); ``operand`` picks
    the fragment, and for A/B the replication defaults to ``size(tv) / size(tile)`` (threads sharing an operand).
    Pre: ``size(tv_map) == replication * size(tile)``.

    >>> str(exact_cover(Layout((4, 2), (2, 1)), (2, 4)))
    'exact_cover((4,2):(2,1) on tile (2,4))'
    """
    if operand not in ("A", "B", "C"):
        raise LayoutError(f"exact_cover: operand must be 'A', 'B' or 'C', found {operand!r}")
    tv, mma_tile, k = _tv_of(tv_map, operand)
    tile = mma_tile if tile is None else tile
    if tile is None:
        raise LayoutError(f"exact_cover: no tile given for the TV map {tv}")
    if replication is None:
        n = product(_tile_shape(tile))
        replication = k if k is not None else max(1, subject_size(tv) // n)
    return ExactCover(tv, tile, replication)


def vectorizable(layout: Any, width_bytes: int, dtype_bytes: int) -> Vectorizable:
    """Claim: each thread's values form aligned contiguous ``width_bytes`` vectors of ``dtype_bytes`` elements."""
    return Vectorizable(layout, width_bytes, dtype_bytes)


__all__ = [
    "Bijective", "Decision", "Equivalent", "ExactCover", "InBounds", "Injective", "Onto", "Property", "Subject",
    "Surjective", "Undecided", "Vectorizable", "at", "bijective", "equivalent", "exact_cover", "in_bounds",
    "injective", "surjective", "vectorizable",
]
