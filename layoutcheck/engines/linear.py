"""The linear engine: layouts that are affine maps over GF(2) on the index bits (Triton's LinearLayout view).

A layout of power-of-two modes has a domain of ``2**n`` indices whose bits are the bits of its modes (first mode
lowest). Bit ``j`` of mode ``(s, d)`` contributes the *column* ``d << j``. The layout is GF(2)-linear exactly when
``L(i)`` equals the XOR of the columns of ``i``'s set bits for every ``i``; since ``a + b == a ^ b`` iff
``a & b == 0``, that holds iff the non-zero columns are pairwise bit-disjoint (no carries). Worked cases::

    (4,2):(2,1)    columns 2, 4, 1        disjoint -> linear
    4:3            columns 3, 6           3 & 6 = 2: 1+2 -> 3+6 = 9 but 3^6 = 5 -> NOT linear
    2:3            column 3               linear (0 -> 0, 1 -> 3)
    (2,2):(1,1)    columns 1, 1           carry (1+1 = 2) -> NOT linear

``Sw<B,M,S> o off o L`` is affine when ``L`` is linear and ``off`` shares no bit with ``L``'s columns (then
``off + x == off ^ x``): ``Swizzle`` is GF(2)-linear, so the columns become ``sw(column)`` and the constant
``sw(off)``.

Decisions, for ``A(i) = M i ^ c`` with ``M`` the column matrix: injective iff ``rank M == n``, and the smallest
non-zero kernel vector ``k`` gives the lexicographically smallest colliding pair ``(0, k)``; the image is the affine
subspace ``c ^ span(M)`` (its maximum by greedy reduction over an echelon basis); equivalence compares columns and
constants. Each decision costs ``O(n^2)`` word operations: a ``2**32``-element domain takes microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from layoutcheck.algebra.gf2 import Echelon, echelon, span_prefix
from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.linear_layout import LinearLayout, gf2_columns
from layoutcheck.algebra.swizzle import ComposedLayout, Subject
from layoutcheck.engines.base import HandlerEngine, Limits, register_engine
from layoutcheck.memo import memoised
from layoutcheck.models.banks.gf2 import gf2_wavefronts
from layoutcheck.models.banks.model import _merged
from layoutcheck.properties.banks import ConflictFree, _instruction_report, misaligned_witness
from layoutcheck.properties.base import Decision, Property, Undecided, subject_size
from layoutcheck.properties.equivalence import MapEquivalent
from layoutcheck.properties.layout import Equivalent, InBounds, Injective, Onto
from layoutcheck.properties.linear import LinearBijective, LinearExactCover, LinearInjective, LinearSurjective
from layoutcheck.properties.tv import ExactCover, Vectorizable
from layoutcheck.witness_maps import Collision, Differ, LinearCount, Missing, OutOfRange, Owners, SameThread, Vector


@dataclass(frozen=True, slots=True)
class Affine:
    """``i -> XOR of cols[b] for set bits b of i, XOR const``: an affine map over GF(2) on ``len(cols)`` bits."""

    cols: tuple[int, ...]
    const: int

    def __call__(self, i: int) -> int:
        out = self.const
        for b, c in enumerate(self.cols):
            if i >> b & 1:
                out ^= c
        return out


@memoised(64)
def to_affine(x: Subject | LinearLayout) -> Affine | str:
    """The GF(2) affine form of ``x`` (a CuTe layout, a swizzled one, or a ``LinearLayout`` on its flat views), or
    the reason it has none (once per subject: ``supports`` and the handler both ask)."""
    return _affine_form(x)


def _affine_form(x: Subject | LinearLayout) -> Affine | str:
    if isinstance(x, LinearLayout):
        return Affine(x.columns(), 0)
    if not isinstance(x, (Layout, ComposedLayout)):  # an index formula, a TileLang map: decided on its expressions
        return f"unsupported: {type(x).__name__} has no GF(2) column form"
    got = gf2_columns(x)
    return got if isinstance(got, str) else Affine(*got)


def image_max(a: Affine, e: Echelon) -> tuple[int, int]:
    """``(max over i of a(i), an i reaching it)``: greedy over the echelon basis from the highest lead."""
    x, m = a.const, 0
    for h in sorted(e.basis, reverse=True):
        if not x >> h & 1:
            v, bm = e.basis[h]
            x, m = x ^ v, m ^ bm
    return x, m


def _affine(prop: Property) -> tuple[Affine, ...]:
    out = tuple(to_affine(s) for s in prop.subjects())
    assert all(isinstance(a, Affine) for a in out)  # guaranteed by precondition()
    return out  # type: ignore[return-value]


class LinearEngine(HandlerEngine):
    def precondition(self, prop: Property) -> str | None:
        for s in prop.subjects():
            a = to_affine(s)
            if isinstance(a, str):
                return a
        return None


LINEAR = register_engine(LinearEngine("linear"))


def _stats(a: Affine, e: Echelon) -> dict[str, int]:
    return {"bits": len(a.cols), "rank": e.rank}


@LINEAR.handles(Injective)
def _injective(prop: Injective, limits: Limits) -> Decision:
    (a,) = _affine(prop)
    e = echelon(a.cols)
    stats = {**_stats(a, e), "collisions": (1 << len(a.cols)) - (1 << e.rank)}
    return Decision(True, None, stats) if not e.kernel else Decision(False, Collision(0, e.kernel[0]), stats)


def _out_of_range(a: Affine, e: Echelon, extent: int) -> dict | None:
    hi, i = image_max(a, e)
    return OutOfRange(i) if hi >= extent else None


@LINEAR.handles(InBounds)
def _in_bounds(prop: InBounds, limits: Limits) -> Decision:
    (a,) = _affine(prop)
    e = echelon(a.cols)
    w = _out_of_range(a, e, prop.extent)
    return Decision(w is None, w, _stats(a, e))


@LINEAR.handles(Onto)
def _onto(prop: Onto, limits: Limits) -> Decision | Undecided:
    (a,) = _affine(prop)
    e, n, m = echelon(a.cols), prop.codomain, subject_size(prop.layout)
    stats = _stats(a, e)
    count = prop.count_witness()
    if count is not None:
        return Decision(False, count, stats)
    w = _out_of_range(a, e, n)
    if w is not None:
        return Decision(False, w, stats)
    if m == n:  # onto a set of its own size == injective
        return Decision(not e.kernel, Collision(0, e.kernel[0]) if e.kernel else None, stats)
    if 1 << e.rank == n:  # an image of n points inside [0, n)
        return Decision(True, None, stats)
    return Undecided("a missing offset of a non-injective map is a counting witness; left to the exhaustive engine",
                     stats)


@LINEAR.handles(Equivalent)
@LINEAR.handles(MapEquivalent)
def _equivalent(prop: Equivalent | MapEquivalent, limits: Limits) -> Decision:
    sw = prop.size_witness() if isinstance(prop, Equivalent) else prop.structure_witness()
    if sw is not None:  # sizes (or two Triton layouts' named dimensions) alone refute it
        return Decision(False, sw)
    a, b = _affine(prop)
    if a.const != b.const:
        return Decision(False, Differ(0))
    diff = [bit for bit, (ca, cb) in enumerate(zip(a.cols, b.cols, strict=True)) if ca != cb]
    # every i below 2**diff[0] uses only equal columns, so 2**diff[0] is the smallest differing index
    return Decision(not diff, Differ(1 << diff[0]) if diff else None)


@LINEAR.handles(ExactCover)
def _exact_cover(prop: ExactCover, limits: Limits) -> Decision | Undecided:
    if not prop.sizes_match:
        return Undecided("size(tv) != replication x size(tile): left to enumeration, which names a missed element")
    (a,) = _affine(prop)
    e, n, k = echelon(a.cols), prop.tile_size, prop.replication
    stats = _stats(a, e)
    w = _out_of_range(a, e, n)
    if w is not None:
        return Decision(False, w, stats)
    if 1 << e.rank != n:  # image smaller than the tile: tv(0) has more than k owners (size == k*n)
        owners = span_prefix(e.kernel, k + 1)
        return Decision(False, Owners(a.const, owners, 1 << (len(a.cols) - e.rank)),
                        stats)
    tb = prop.threads.bit_length() - 1  # value bits are the columns above the thread bits
    ev = echelon(a.cols[tb:])
    if ev.kernel:  # two values of one thread own the same element
        return Decision(False, SameThread(0, ev.kernel[0] << tb), stats)
    return Decision(True, None, stats)


@LINEAR.handles(Vectorizable)
def _vectorizable(prop: Vectorizable, limits: Limits) -> Decision:
    (a,) = _affine(prop)
    tb, vb = prop.threads.bit_length() - 1, prop.vector.bit_length() - 1
    low = (1 << vb) - 1
    run = a.cols[tb:tb + vb]
    stats = {"bits": len(a.cols)}
    if run != tuple(1 << j for j in range(vb)) or a.const & low:
        return Decision(False, Vector(0, 0), stats)
    bad_val = [b for b, c in enumerate(a.cols[tb + vb:]) if c & low]
    if bad_val:
        return Decision(False, Vector(0, 1 << bad_val[0]), stats)
    bad_thr = [b for b, c in enumerate(a.cols[:tb]) if c & low]
    if bad_thr:
        return Decision(False, Vector(1 << bad_thr[0], 0), stats)
    return Decision(True, None, stats)


# -- shared-memory banks: the GF(2) rank argument ------------------------------------------------------------
@LINEAR.handles(ConflictFree)
def _conflict_free_gf2(prop: ConflictFree, limits: Any) -> Decision | Undecided:
    mis = misaligned_witness(prop)
    if mis is not None:  # the hardware faults before any bank is counted
        return Decision(False, mis)
    addrs = prop.addresses
    k = prop.access.kind
    if (addrs[:, : k.address_lanes] < 0).any():
        return Undecided("unsupported: inactive lanes")
    uni = _merged(k, addrs)  # merged instructions are counted per merged group, as the model counts them
    counts = [gf2_wavefronts(k, addrs[rows], group) for rows, group in ((~uni, 0), (uni, k.merge_group_lanes))
              if rows.any()]
    if None in counts:
        return Undecided("unsupported: the word address is not GF(2)-affine in the lane bits")
    per = max(counts, default=1)
    stats = {"wavefronts_per_phase": per, "instructions": prop.access.instructions}
    if per == 1:
        return Decision(True, None, stats)
    for i in range(prop.access.instructions):
        rep = _instruction_report(prop, i)
        if rep["wavefronts"] > rep["ideal"]:
            return Decision(False, rep, stats)
    return Undecided("internal: GF(2) rank found a conflict the model did not")  # pragma: no cover


# -- linear layouts (Triton's LinearLayout): the same rank arguments on the flat columns --------------------------
@LINEAR.handles(LinearInjective)
def _ll_injective(prop: LinearInjective, limits: Limits) -> Decision:
    (a,) = _affine(prop)
    e = echelon(a.cols)
    w = Collision(0, e.kernel[0]) if e.kernel else None
    return Decision(w is None, w, _stats(a, e))


def _first_missing(e: Echelon, bits: int) -> int | None:
    """The smallest unit output ``2**b`` outside the span (one exists iff the rank is below ``bits``)."""
    for b in range(bits):
        v = 1 << b
        while v:
            h = v.bit_length() - 1
            if h not in e.basis:
                return 1 << b
            v ^= e.basis[h][0]
    return None


@LINEAR.handles(LinearSurjective)
def _ll_surjective(prop: LinearSurjective, limits: Limits) -> Decision:
    (a,) = _affine(prop)
    e = echelon(a.cols)
    y = _first_missing(e, prop.layout.out_bits)
    return Decision(y is None, None if y is None else Missing(y), _stats(a, e))


@LINEAR.handles(LinearExactCover)
def _ll_exact_cover(prop: LinearExactCover, limits: Limits) -> Decision:
    (a,) = _affine(prop)
    e = echelon(a.cols)
    stats = _stats(a, e)
    y = _first_missing(e, prop.layout.out_bits)
    if y is not None:
        return Decision(False, Missing(y), stats)
    bits = prop.nonzero_bits()  # the non-zero columns must be independent: kernel = span of the zero bases
    sub = echelon(tuple(a.cols[b] for b in bits))
    if not sub.kernel:
        return Decision(True, None, stats)
    k = sum(1 << bits[j] for j in range(len(bits)) if sub.kernel[0] >> j & 1)
    return Decision(False, Collision(0, k), stats)


@LINEAR.handles(LinearBijective)
def _ll_bijective(prop: LinearBijective, limits: Limits) -> Decision:
    (a,) = _affine(prop)
    e = echelon(a.cols)
    ll = prop.layout
    if ll.in_size != ll.out_size:
        return Decision(False, LinearCount(ll.in_size, ll.out_size), _stats(a, e))
    w = Collision(0, e.kernel[0]) if e.kernel else None
    return Decision(w is None, w, _stats(a, e))
