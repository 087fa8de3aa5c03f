"""The structural engine: decide a claim from the modes' shapes and strides alone, in ``O(rank^2)`` integer steps.

A subject is ``x(i) = sw(off + L(c))`` with ``L(c) = sum_k c_k d_k`` over the flat modes ``(s_k, d_k)`` and ``c``
the colex coordinate of ``i`` (``sw`` the identity and ``off = 0`` for a plain layout). Size-1 modes contribute
nothing and are dropped; ``P_k`` (the prefix product of the flat shape) is the flat index of the unit coordinate
``e_k``, so coordinate ``c`` is index ``sum_k c_k P_k``. Nothing is enumerated: ``(1000000,1000000):(1,1000000)``
(``10^12`` points) is decided in microseconds. Five facts, each proved here, decide the claims; anything they do not
cover is *declined* (UNKNOWN with a reason), so ``prove(engine="auto")`` tries the next engine.

**Pairs (exact for two modes).** Let modes ``a != b`` have ``d_a, d_b != 0``, ``g = gcd(|d_a|, |d_b|)``,
``p = |d_b| / g``, ``q = |d_a| / g``. Two coordinates that differ only in modes ``a`` and ``b``, by ``(u, v)``, collide
iff ``u d_a + v d_b = 0`` with ``(u, v) != 0``, ``|u| < s_a``, ``|v| < s_b``. Dividing by ``g``: ``u q = -sgn(d_a d_b)
v p`` with ``p, q`` coprime, so the solutions are exactly ``t (p, -sgn(d_a d_b) q)``, ``t`` an integer, and a non-zero
one fits iff ``p < s_a`` and ``q < s_b``. Witness: strides of one sign give ``p d_a = q d_b``, indices ``p P_a`` and
``q P_b``; opposite signs give ``p d_a + q d_b = 0 = L(0)``, indices ``0`` and ``p P_a + q P_b``. A mode with ``d = 0``
and ``s > 1`` collides alone: indices ``0`` and ``P_k``. With at most two non-trivial modes every collision is of this
form, so then the pair test *decides* injectivity; with more it can only refute.

**Chain (sufficient).** Order the non-trivial modes by ``|d|``. If ``|d_j| > sum_{i<j} (s_i - 1) |d_i|`` for every
``j``, then ``L`` is injective. Proof: for coordinates ``c != c'`` let ``j`` be the last mode (in this order) where
they differ; then ``|L(c) - L(c')| >= |c_j - c'_j| |d_j| - sum_{i<j} |c_i - c'_i| |d_i| >= |d_j| - sum_{i<j} (s_i - 1)
|d_i| > 0``. Signs are free (the bound uses ``|d|``). A compact layout (sorted strides ``1, s_0, s_0 s_1, ...``) is a
chain with ``|d_j| = sum_{i<j} (s_i - 1) |d_i| + 1``, and its image is ``[0, size)``. The condition is not necessary
(``(3,2):(2,3)`` is injective and fails it; two modes are still decided by the pair test).

**Prefix (exact, by a small enumeration).** Sorted by ``|d|``, let the chain inequality hold for every mode from
``k`` on. Then ``L`` is injective iff its restriction to the first ``k`` modes (the others at 0) is: if ``c != c'``
differ in a mode ``>= k``, the last such mode ``j`` gives ``|L(c) - L(c')| > 0`` exactly as in *Chain*; otherwise
they differ only in the prefix and ``L(c) - L(c')`` is the prefix's difference. A prefix collision is a collision of
``L`` (pad with 0). The prefix is enumerated when it has at most ``PREFIX_LIMIT`` points (``(3,3,2^30):(2,3,16)``:
9 points, then ``16 > 2*2 + 2*3``).

**Range (exact).** ``L``'s image lies in ``[lo, hi]``, ``lo = sum_{d<0} (s-1) d``, ``hi = sum_{d>0} (s-1) d``, and
both ends are reached: at the coordinate that is ``s-1`` on the negative (resp. positive) modes and ``0`` elsewhere.

**Swizzle.** ``Sw<B,M,S>`` XORs the bits ``yyy`` (shifted by ``S``) into the bits ``zzz``; ``|S| >= B`` (checked by
``Swizzle``) makes the masks disjoint, so the bits it reads are never written and ``sw(sw(y)) = y``: ``sw`` is a
bijection of the integers, and ``sw o (off + L)`` collides exactly where ``L`` does. ``sw`` changes no bit at or
above ``T = bitlength(yyy | zzz)`` (and keeps the sign), so it maps each block ``[k 2^T, (k+1) 2^T)`` onto itself: an
image of ``off + L`` inside ``[0, hi]`` stays inside ``[0, roundup(hi + 1, 2^T))``.

Decisions (witnesses are re-checked by ``prop.recheck``, like every engine's). A refutation is *decided* by these
rules; its reported witness is the property's canonical one (the exhaustive engine's: smallest colliding pair, first
index out of bounds, smallest mis-owned tile element), found by enumeration, whenever the domain fits the memory
budget, so ``auto``'s counterexamples do not depend on which engine refuted (the rule's own witness is kept in
``stats["structural_witness"]``); above the budget the rule's witness is reported.

- ``injective``: stride-0 or pair collision -> REFUTED; at most two non-trivial modes, or a chain -> PROVEN; a
  chain above a small prefix -> the prefix's verdict.
- ``bijective(x, n)`` / ``surjective(x, n)``: sizes alone (``size < n``, or ``size != n`` for a bijection) -> REFUTED
  by count; ``size == n``: a collision -> REFUTED, injective with the image inside ``[0, n)`` -> PROVEN (``n``
  distinct offsets in ``[0, n)``). ``surjective`` with ``size > n``: stride-0 modes do not change the image, so if
  the other modes are injective, ``n`` points, inside ``[0, n)`` -> PROVEN.
- ``in_bounds(x, e)``: image inside ``[0, e)`` -> PROVEN; an extreme index outside -> REFUTED.
- ``exact_cover(tv, tile, k)``: ``size(tv) != k size(tile)`` -> REFUTED by count; an index outside the tile ->
  REFUTED; then *Replication* (see ``_exact_cover``): the stride-0 modes must be thread modes replicating exactly
  ``k`` times and the other modes a bijection onto the tile. A TV map indexed in a larger frame is declined.

**Smallest (exact).** The smallest index ``i`` with ``off + L(i) >= b``: take the modes from the most significant
(largest ``P_k``) down, each at the smallest coordinate that still lets the modes below reach ``b`` at their
maximum (``c_k = ceil((b - fixed - below_k) / d_k)``, 0 if nothing is needed); colex indices compare like their
coordinates read from the most significant mode, so this is the smallest. ``off + L(i) < 0`` is the same with the
signs flipped. So an ``out`` witness is the smallest index outside the codomain, as the exhaustive engine's, even
on ``2^40`` points; under a swizzle only when its ``2^T`` blocks tile the codomain. A stride-0 mode ``z`` makes
index 0 collide, so the smallest pair is ``(0, j)`` with ``j`` the smallest partner, found below ``P_z``
(``zero_partner``).

Everything else (equivalent, vectorizable, replicated covers whose stride-0 modes replicate fewer than ``k`` times,
TV maps indexed in a frame, modes that neither collide pairwise nor form a chain
above a prefix of at most ``PREFIX_LIMIT`` points, swizzled images not provably inside the codomain) is declined.
Worked cases::

    (1000000,1000000):(1,1000000)   pair: g = 1, p = 10^6 not < 10^6         -> injective PROVEN
    (4,2):(2,2)                      pair: g = 2, p = 1 < 4, q = 1 < 2          -> REFUTED, indices 1 and 4 (-> 2)
    (4,2):(1,-2)                     pair: g = 1, p = 2 < 4, q = 1 < 2, signs differ -> REFUTED, indices 0 and 6
    (3,3,2):(2,3,7)                  no pair collides; 3 <= 2*2, 7 <= 2*2+2*3: prefix is everything (18 points)
                                     -> REFUTED by enumeration, indices 5 and 9 (2*2+3*1 = 7*1)
    (3,3,2**30):(2,3,16)             prefix (3,3):(2,3) injective, 16 > 10     -> injective PROVEN
    Sw<3,4,3> o (64,64):(64,1)       chain; image [0,4095]; T = 10, 4096 = 4 * 2^10 -> bijective PROVEN
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import gcd
from typing import Any

import numpy as np

from layoutcheck.algebra.inttuple import flatten, idx2crd, prefix_product
from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout, Subject, inner
from layoutcheck.engines.base import Handler, HandlerEngine, Limits, register_engine
from layoutcheck.properties.base import Decision, Property, Undecided, smallest_collision, subject_size
from layoutcheck.properties.layout import InBounds, Injective, Onto
from layoutcheck.properties.tv import ExactCover
from layoutcheck.witness_maps import Collision, OutOfRange, Owners, SameThread

PREFIX_LIMIT = 1 << 16
"""Most points of the non-chain prefix the engine enumerates (a few hundred kB of NumPy, well under a millisecond)."""


@dataclass(frozen=True, slots=True)
class Mode:
    """A non-trivial flat mode: ``size > 1``, ``stride``, and ``index`` = the flat index of its unit coordinate."""

    size: int
    stride: int
    index: int


def modes(x: Subject) -> list[Mode]:
    """The non-trivial flat modes of ``x``'s layout, in flat order.

    >>> from layoutcheck import Layout
    >>> modes(Layout((4, 1, 2), (2, 9, 1)))
    [Mode(size=4, stride=2, index=1), Mode(size=2, stride=1, index=4)]
    """
    lay = inner(x)
    shape, stride = flatten(lay.shape), flatten(lay.stride)
    index = flatten(prefix_product(shape))
    return [Mode(s, d, p) for s, d, p in zip(shape, stride, index, strict=True) if s > 1]


def pair_collision(a: Mode, b: Mode) -> tuple[int, int] | None:
    """Two indices ``i < j`` that collide by changing only modes ``a`` and ``b``, or ``None`` if none do.

    Pre: ``a.stride != 0 != b.stride``. Post: exact (see the module docstring, *Pairs*).

    >>> pair_collision(Mode(4, 2, 1), Mode(2, 2, 4))   # (4,2):(2,2): 1*2 == 1*2
    (1, 4)
    """
    g = gcd(abs(a.stride), abs(b.stride))
    p, q = abs(b.stride) // g, abs(a.stride) // g
    if p >= a.size or q >= b.size:
        return None
    if (a.stride > 0) == (b.stride > 0):
        i, j = p * a.index, q * b.index
        return min(i, j), max(i, j)
    return 0, p * a.index + q * b.index


def zero_partner(ms: list[Mode], z: Mode) -> int:
    """The smallest ``j > 0`` with ``L(j) == L(0)``, given ``z``, the first stride-0 mode (so ``j <= P_z``): the
    indices below ``P_z`` are the box of the modes before ``z``, enumerated when it has at most ``PREFIX_LIMIT``
    points (else ``P_z``, a valid but perhaps not the smallest partner). With ``i = 0`` the pair is the smallest."""
    below = [m for m in ms if m.index < z.index]
    if not below or z.index > PREFIX_LIMIT:
        return z.index
    offs = Layout(tuple(m.size for m in below), tuple(m.stride for m in below)).offsets()
    hit = np.flatnonzero(offs[1:] == 0)
    return int(hit[0]) + 1 if hit.size else z.index


def collision(ms: list[Mode]) -> tuple[int, int] | None:
    """A colliding pair of indices found by a stride-0 mode (then the smallest pair, ``(0, zero_partner)``) or a
    colliding pair of modes, else ``None``."""
    for m in ms:
        if m.stride == 0:
            return 0, zero_partner(ms, m)
    for k, a in enumerate(ms):
        for b in ms[k + 1:]:
            pair = pair_collision(a, b)
            if pair is not None:
                return pair
    return None


def chain_start(ms: list[Mode]) -> int:
    """With ``ms`` sorted by ``|d|``: the smallest ``k`` such that every ``j >= k`` has ``|d_j| > sum_{i<j} (s_i - 1)
    |d_i|`` (*Chain* from ``k`` on); ``0`` means ``ms`` is a chain, so injective.

    >>> chain_start([Mode(1000000, 1, 1), Mode(1000000, 1000000, 1000000)])
    0
    >>> chain_start([Mode(3, 2, 1), Mode(3, 3, 3), Mode(2 ** 30, 16, 9)])   # 3 <= 2*2, then 16 > 2*2 + 2*3
    2
    """
    k, span = 0, 0
    for j, m in enumerate(ms):
        if abs(m.stride) <= span:
            k = j + 1
        span += (m.size - 1) * abs(m.stride)
    return k


def prefix_collision(prefix: list[Mode]) -> tuple[int, int] | None:
    """Enumerate the box of ``prefix`` (other modes at 0): a colliding pair of full indices, or ``None``."""
    lay = Layout(tuple(m.size for m in prefix), tuple(m.stride for m in prefix))
    pair = smallest_collision(lay.offsets())
    if pair is None:
        return None
    i, j = (sum(c * m.index for c, m in zip(idx2crd(k, lay.shape), prefix, strict=True)) for k in pair)
    return min(i, j), max(i, j)


def injectivity(ms: list[Mode]) -> tuple[bool | None, dict[str, Any], str]:
    """``(True, {}, rule)`` if injective, ``(False, witness, rule)`` if not, ``(None, {}, reason)`` if undecided.

    Rules in order: stride 0 / a colliding pair (REFUTED); at most two modes (PROVEN, the pair test is exact); a chain
    (PROVEN); a chain above a prefix of at most ``PREFIX_LIMIT`` points, decided by enumerating the prefix (*Prefix*).
    """
    pair = collision(ms)
    if pair is not None:
        return False, Collision(pair[0], pair[1]), "pair"
    if len(ms) <= 2:
        return True, {}, "pair"
    srt = sorted(ms, key=lambda m: abs(m.stride))
    k = chain_start(srt)
    if k == 0:
        return True, {}, "chain"
    points = 1
    for m in srt[:k]:
        points *= m.size
    if points > PREFIX_LIMIT:
        return None, {}, (f"not decided structurally: no two of the {len(ms)} modes collide, and the modes below the "
                          f"chain (|d_j| > sum of (s_i - 1)|d_i| below it) span {points} > {PREFIX_LIMIT} points")
    pair = prefix_collision(srt[:k])
    if pair is not None:
        return False, Collision(pair[0], pair[1]), "prefix"
    return True, {}, "prefix+chain"


@dataclass(frozen=True, slots=True)
class Extremes:
    """``off + L``'s exact image bounds ``[lo, hi]`` and indices reaching them."""

    lo: int
    hi: int
    i_lo: int
    i_hi: int


def extremes(x: Subject, ms: list[Mode]) -> Extremes:
    """The exact minimum and maximum of ``off + L`` over the domain, with an index reaching each (*Range*)."""
    off = x.offset if isinstance(x, ComposedLayout) else 0
    neg, pos = [m for m in ms if m.stride < 0], [m for m in ms if m.stride > 0]
    return Extremes(off + sum((m.size - 1) * m.stride for m in neg), off + sum((m.size - 1) * m.stride for m in pos),
                    sum((m.size - 1) * m.index for m in neg), sum((m.size - 1) * m.index for m in pos))


def image_below(x: Subject, e: Extremes) -> int | None:
    """An ``n`` with ``x``'s image inside ``[0, n)``, as small as these facts give; ``None`` if ``lo < 0``."""
    if e.lo < 0:
        return None
    if not isinstance(x, ComposedLayout) or x.swizzle.is_identity():
        return e.hi + 1
    block = _block(x)  # *Swizzle*: blocks of 2^T map onto themselves
    return -(-(e.hi + 1) // block) * block


def smallest_reaching(off: int, ms: list[Mode], bound: int) -> int | None:
    """The smallest index ``i`` with ``off + L(i) >= bound``, or ``None`` if no index reaches it (*Smallest*).

    >>> smallest_reaching(0, [Mode(1 << 20, 1, 1), Mode(1 << 20, 1 << 20, 1 << 20)], 1000)
    1000
    """
    below = [0]  # below[k]: the largest sum the modes under k can add
    for m in ms:
        below.append(below[-1] + max(0, (m.size - 1) * m.stride))
    if off + below[-1] < bound:
        return None
    fixed, idx = off, 0
    for k in reversed(range(len(ms))):
        need = bound - fixed - below[k]
        c = 0 if need <= 0 else -(-need // ms[k].stride)  # need > 0 only for a positive stride (the invariant)
        fixed, idx = fixed + c * ms[k].stride, idx + c * ms[k].index
    return idx


def _outside(x: Subject, e: Extremes, n: int) -> dict[str, Any] | None:
    """An ``out`` witness: the smallest index outside ``[0, n)`` (*Smallest*) for a plain layout, or under a swizzle
    whose blocks of ``2^T`` tile ``[0, n)`` (then it keeps ``[0, n)`` and its outside apart); else an extreme index
    that happens to land outside (not necessarily the smallest)."""
    ms = modes(x)
    off = x.offset if isinstance(x, ComposedLayout) else 0
    if not isinstance(x, ComposedLayout) or x.swizzle.is_identity() or n % _block(x) == 0:
        flip = [Mode(m.size, -m.stride, m.index) for m in ms]
        found = [i for i in (smallest_reaching(off, ms, n), smallest_reaching(-off, flip, 1)) if i is not None]
        return OutOfRange(min(found)) if found else None
    for i in (e.i_hi, e.i_lo):
        if not 0 <= x(i) < n:
            return OutOfRange(i)
    return None


def _block(x: ComposedLayout) -> int:
    return 1 << (x.swizzle.yyy_mask | x.swizzle.zzz_mask).bit_length()


class StructuralEngine(HandlerEngine):
    """Decides from strides alone; declines (UNKNOWN with a reason) whatever its rules do not cover."""


STRUCTURAL = register_engine(StructuralEngine("structural"))


def _stats(ms: list[Mode], rule: str) -> dict[str, Any]:
    return {"modes": len(ms), "rule": rule}


ENUMERATE_BYTES = 32
"""A refutation is re-derived by enumeration only up to ``memory_budget / ENUMERATE_BYTES`` points (2^26 by default):
beyond that the scan's time, not its memory, is the limit, and the structural witness is reported."""


def _refuted(prop: Property, witness: dict[str, Any], stats: dict[str, Any], limits: Limits) -> Decision | Undecided:
    """A structural refutation, reported with the property's canonical witness (the exhaustive engine's: smallest
    colliding pair, first index out of bounds, smallest mis-owned tile element) when the domain is enumerable within
    the memory budget, so ``auto``'s counterexamples do not depend on which engine refuted; else the structural one.
    Post: an enumeration that finds the claim holding is an internal error (UNKNOWN), never a REFUTED."""
    n = prop.domain_size()
    if n * prop.bytes_per_point > limits.memory_budget or n * ENUMERATE_BYTES > limits.memory_budget:
        return Decision(False, witness, stats)
    ref = prop.exhaustive()
    if ref.holds:
        return Undecided(f"internal error: the structural engine refuted {prop} with {witness}, but enumeration shows "
                         "it holds", stats)
    return Decision(False, ref.witness, {**stats, "structural_witness": witness, "witness": "smallest, by enumeration"})


def _handles(prop_type: type) -> Callable[[Handler], Handler]:
    """Register a structural rule for ``prop_type``; its refutations go through ``_refuted``."""
    def register(rule: Handler) -> Handler:
        def handler(prop: Property, limits: Limits) -> Decision | Undecided:
            out = rule(prop, limits)
            if isinstance(out, Decision) and not out.holds:
                return _refuted(prop, out.witness or {}, out.stats, limits)
            return out

        STRUCTURAL.handles(prop_type)(handler)
        return rule

    return register


@_handles(Injective)
def _injective(prop: Injective, limits: Limits) -> Decision | Undecided:
    ms = modes(prop.layout)
    holds, w, rule = injectivity(ms)
    if holds is None:
        return Undecided(rule, {"modes": len(ms)})
    return Decision(holds, None if holds else w, _stats(ms, rule))


def _onto_of_size(x: Subject, n: int) -> Decision | Undecided:
    """``x`` with ``size(x) == n`` onto ``[0, n)``: iff its image is inside ``[0, n)`` and it is injective (checked in
    that order, the exhaustive engine's witness order)."""
    ms = modes(x)
    e = extremes(x, ms)
    top = image_below(x, e)
    inside = top is not None and top <= n
    if not inside:
        out = _outside(x, e, n)
        if out is not None:
            return Decision(False, out, _stats(ms, "range"))
    holds, w, rule = injectivity(ms)
    if holds is None:
        return Undecided(rule, {"modes": len(ms)})
    if not holds:
        return Decision(False, w, _stats(ms, rule))
    if not inside:
        return Undecided(f"not decided structurally: injective, but the image is not provably inside [0,{n})",
                         _stats(ms, rule))
    return Decision(True, None, _stats(ms, f"{rule}+range"))


@_handles(Onto)
def _onto(prop: Onto, limits: Limits) -> Decision | Undecided:
    count = prop.count_witness()
    if count is not None:
        return Decision(False, count, {"rule": "count"})
    n = prop.codomain
    assert n is not None  # set by the property
    if subject_size(prop.layout) == n:
        return _onto_of_size(prop.layout, n)
    ms = [m for m in modes(prop.layout) if m.stride != 0]  # stride-0 modes repeat offsets: the image is unchanged
    holds, _, rule = injectivity(ms)
    top = image_below(prop.layout, extremes(prop.layout, ms))
    image = 1
    for m in ms:
        image *= m.size
    if holds and image == n and top is not None and top <= n:
        return Decision(True, None, _stats(ms, f"{rule}+range, stride-0 modes dropped"))
    return Undecided("not decided structurally: a surjection from a larger domain whose non-broadcast modes are not "
                     f"provably an injection of {n} points into [0,{n})", {"modes": len(ms)})


@_handles(InBounds)
def _in_bounds(prop: InBounds, limits: Limits) -> Decision | Undecided:
    x, ms = prop.layout, modes(prop.layout)
    e = extremes(x, ms)
    top = image_below(x, e)
    if top is not None and top <= prop.extent:
        return Decision(True, None, _stats(ms, "range"))
    out = _outside(x, e, prop.extent)
    if out is not None:
        return Decision(False, out, _stats(ms, "range"))
    return Undecided(f"not decided structurally: the swizzled image is not provably inside [0,{prop.extent})",
                     {"modes": len(ms)})


OWNERS_LIMIT = 1 << 12
"""Most owners a structural ``exact_cover`` witness lists (each is re-evaluated by ``recheck``)."""


def _box(ms: list[Mode], count: int) -> list[int]:
    """The smallest ``count`` indices whose coordinates are zero outside the modes ``ms`` (colex order)."""
    out = [0]
    for m in ms:
        out = sorted(i + c * m.index for c in range(m.size) for i in out)[:count]
    return out


@_handles(ExactCover)
def _exact_cover(prop: ExactCover, limits: Limits) -> Decision | Undecided:
    """*Replication*: with the image inside ``[0, n)`` and ``size == k n``, the stride-0 modes ``Z`` (all of them
    thread modes) of ``prod Z == k`` sizes and the other modes injective, every element has exactly ``k`` owners,
    which differ only in ``Z``: ``k`` distinct threads. Refuted: a count mismatch, an index outside, a stride-0 value
    mode (one thread owns an element twice), ``prod Z > k`` (``x(0)`` has ``prod Z`` owners), or a collision of the
    other modes (its element has ``2k`` owners)."""
    if prop.frame is not None:
        return Undecided("not decided structurally: the TV map is indexed in a frame larger than the tile")
    count = prop.count_witness()
    if count is not None:
        return Decision(False, count, {"rule": "count"})
    x, n, k = prop.tv, prop.tile_size, prop.replication
    ms = modes(x)
    e = extremes(x, ms)
    top = image_below(x, e)
    if top is None or top > n:
        out = _outside(x, e, n)
        if out is not None:
            return Decision(False, out, _stats(ms, "range"))
        return Undecided(f"not decided structurally: the image is not provably inside the tile [0,{n})")
    zero = [m for m in ms if m.stride == 0]
    if k > 1:
        same = next((m for m in zero if m.index >= prop.threads), None)
        if same is not None:  # a stride-0 value mode: thread 0 owns x(0) at values 0 and 1 of that mode
            return Decision(False, SameThread(0, same.index), _stats(ms, "stride-0 value"))
    zk = 1
    for m in zero:
        zk *= m.size
    if zk > k:
        owners = _box(zero, k + 1)
        return Decision(False, Owners(x(0), owners, zk, at_least=True),
                        _stats(ms, "stride 0"))
    if zk < k:
        return Undecided(f"not decided structurally: the stride-0 modes replicate {zk} times, fewer than {k}")
    rest = [m for m in ms if m.stride != 0]
    holds, w, rule = injectivity(rest)
    if holds is None:
        return Undecided(rule, {"modes": len(ms)})
    if holds:
        return Decision(True, None, _stats(ms, f"{rule}+range" + (", stride-0 thread modes" if zero else "")))
    if 2 * k > OWNERS_LIMIT:
        return Undecided(f"not decided structurally: a collision, but its {2 * k} owners are too many to list")
    i, j = w["i"], w["j"]
    owners = sorted(a + z for a in (i, j) for z in _box(zero, k))
    return Decision(False, Owners(x(i), owners, 2 * k, at_least=True),
                    _stats(ms, rule))
