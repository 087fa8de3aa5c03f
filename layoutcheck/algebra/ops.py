"""The core CuTe layout algebra: coalesce, filter, composition, complement and the inverses.

Definitions (``A``, ``B`` layouts; ``n = size``):

* ``coalesce(L)`` is the same function on ``[0, n)`` with the fewest modes: size-1 modes dropped, mode ``j+1``
  merged into mode ``j`` when ``s_j * d_j == d_{j+1}``.
* ``composition(A, B)(i) == A(B(i))``. It exists as a layout only under two divisibility conditions, checked while
  each mode of ``B`` (shape ``n``, stride ``r``) walks the coalesced modes ``(s, d)`` of ``A``:
  *stride divisibility* -- ``r`` is a multiple of ``s`` (the B mode skips the A mode whole) or ``s`` a multiple of
  ``r``; *shape divisibility* -- if the B mode spills past the A mode (``n > s/r``) then ``s/r`` divides ``n``.
  pycute checks only the first and so returns ``5:7`` for ``(5,3):(7,1) o 7:1``; CUTLASS checks a weaker form of the
  second and accepts ``(4,6,8):(2,3,5) o 6:3`` (issue #3177). Both are rejected here with the failing condition.
* ``complement(L, M)`` is the layout ``R`` whose image interleaves with ``L``'s: ``make_layout(L, R)`` is injective,
  ``R`` has ordered strides and ``cosize(R) <= round_up(M, cosize(L))``.
* ``right_inverse(L)``: ``L(R(i)) == i`` for ``i < size(R)`` (largest such ``R`` built from L's stride-1 chain).
* ``left_inverse(L)``: ``R(L(i)) == i`` for every ``i < size(L)`` (``L`` injective).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from math import gcd

from layoutcheck.algebra.inttuple import ceil_div, flatten, is_int, is_tuple, product
from layoutcheck.algebra.layout import Layout, _concat, _leaf_modes, _make, as_layout
from layoutcheck.errors import CompositionError, LayoutError

Modes = list[tuple[int, int]]  # the (shape, stride) leaves of a flat layout, in order


def _from_modes(modes: Modes) -> Layout:
    """The flat layout of ``modes``: ``1:0`` for none, a bare ``s:d`` for one."""
    if not modes:
        return _make(1, 0)
    if len(modes) == 1:
        return _make(*modes[0])
    return _make(tuple([s for s, _ in modes]), tuple([d for _, d in modes]))


def _coalesce_modes(modes: Iterable[tuple[int, int]]) -> Modes:
    """The coalesced leaves of a flat layout: size-1 modes dropped, ``(s1,d1)`` merged into ``(s0,d0)`` when
    ``s0*d0 == d1``; ``[]`` when every mode has size 1."""
    out: Modes = []
    last_s = last_d = 0
    for s, d in modes:
        if s == 1:
            continue
        if out and last_s * last_d == d:
            last_s *= s
            out[-1] = (last_s, last_d)
        else:
            last_s, last_d = s, d
            out.append((s, d))
    return out


def coalesce(layout: Layout, profile: object = None) -> Layout:
    """Same function, fewest modes. With a tuple ``profile``, coalesce each mode separately (by-mode).

    >>> str(coalesce(Layout((2,(1,6)), (1,(6,2)))))
    '12:1'
    """
    layout = as_layout(layout)
    if is_tuple(profile):
        if len(profile) > len(layout):
            raise LayoutError(f"coalesce profile {profile} has more modes than {layout}")
        modes = [coalesce(layout[i], profile[i]) for i in range(len(profile))]
        return _concat(modes + list(layout)[len(profile):])
    return _from_modes(_coalesce_modes(_leaf_modes(layout)))


def filter_zeros(layout: Layout) -> Layout:
    """Replace stride-0 modes by size-1 modes (keeps the profile)."""
    layout = as_layout(layout)

    def go(s, d):  # tuple, tuple | int, int
        if is_tuple(s):
            return tuple(go(a, b) for a, b in zip(s, d, strict=True))
        return 1 if d == 0 else s

    return _make(go(layout.shape, layout.stride), layout.stride)


def filter(layout: Layout) -> Layout:
    """Drop stride-0 and size-1 modes, then coalesce: the injective part's shape."""
    return coalesce(filter_zeros(layout))


def composition(a: Layout, b: Layout | int | tuple | None) -> Layout:
    """``R(i) == A(B(i))``. ``B`` may be a layout, an int ``n`` (``n:1``), or a tuple (by-mode tiler, ``None`` keeps
    the mode).

    Pre: B's image lies in A's domain (A's last mode runs on) and both divisibility conditions hold.
    Post: ``composition(A,B)(i) == A(B(i))`` for every ``i`` in ``[0, size(B))``; shape compatible with B's.

    >>> str(composition(Layout((6,2),(8,2)), Layout((4,3),(3,1))))
    '((2,2),3):((24,2),8)'
    """
    a = as_layout(a)
    if b is None:
        return a
    if is_int(b):
        b = Layout(b)
    elif is_tuple(b):
        if len(b) > len(a):
            raise LayoutError(f"tiler {_fmt_tiler(b)} has rank {len(b)} > rank {len(a)} of {a}")
        modes = [composition(a[i], b[i]) for i in range(len(b))]
        return _concat(modes + list(a)[len(b):])
    elif not isinstance(b, Layout):
        raise LayoutError(f"cannot compose with {b!r}")
    flat = _coalesce_modes(_leaf_modes(a)) or [(1, 0)]
    if is_tuple(b.shape):
        _check_no_carry(a, b, flat)
        return _compose_modes(a, b.shape, b.stride, flat)
    return _compose_mode(a, b.shape, b.stride, flat)


def _compose_modes(a: Layout, shape: tuple, stride: tuple, flat: Modes) -> Layout:
    """Compose A with every leaf mode of B's ``shape:stride``, keeping B's nesting."""
    modes = []
    for i, s in enumerate(shape):
        d = stride[i]
        modes.append(_compose_modes(a, s, d, flat) if type(s) is tuple else _compose_mode(a, s, d, flat))
    return _concat(modes)


def _max_residue(n: int, r: int, p: int) -> int:
    """``max((j*r) % p for j < n)``."""
    if n <= 1 or r % p == 0:
        return 0
    if p % r == 0:
        return (min(n, p // r) - 1) * r
    g = gcd(r, p)
    if n >= p // g:
        return p - g
    return max((j * r) % p for j in range(n))


def _check_no_carry(a: Layout, b: Layout, flat: Modes) -> None:
    """Composing by B's modes assumes ``A(x + y) == A(x) + A(y)`` for offsets of different B modes. That holds
    exactly when adding the modes' offsets never carries across a boundary between A's coalesced modes: for every
    boundary ``P`` (product of a prefix of A's coalesced shape), ``sum_k max_j (j*r_k mod P) < P``. CuTe assumes
    it silently; e.g. ``(2,2):(1,1) o (2,2):(1,1)`` would give 2 where A(B(3)) is 1."""
    if len(flat) < 2:
        return  # A is a single mode: no boundary to carry across
    modes = [(s, d) for s, d in _leaf_modes(b) if s > 1 and d != 0]
    if len(modes) < 2:
        return
    p = 1
    for s, _ in flat[:-1]:
        p *= s
        if sum(_max_residue(n, r, p) for n, r in modes) >= p:
            raise CompositionError(
                f"inadmissible composition {a} o {b}: the modes of B carry across A's mode boundary at {p} "
                f"(offsets of different B modes add up past {p}, so A is not additive over them)"
            )


def _compose_mode(a: Layout, n: int, r: int, flat: Modes) -> Layout:
    """Compose A with the single mode ``n:r`` of B, walking A's coalesced modes ``(s, d)``."""
    if r == 0:
        return _make(n, 0)
    b = (n, r)  # for the messages: the B mode as given
    if r < 0 and n > 1:
        raise CompositionError(f"inadmissible composition {a} o {_make(*b)}: negative stride {r} leaves A's domain")
    modes: Modes = []
    if n > 1 and flat == [(1, 0)]:  # size-1 A: keep its stride so that the run-on (CuTe) convention applies
        flat = [(1, flatten(a.stride)[-1])]
    for s, d in flat[:-1]:
        if n == 1:
            new = 1  # nothing left to place; keep walking only to land on CuTe's final stride
        elif r >= s:
            if r % s != 0:
                raise CompositionError(
                    f"inadmissible composition {a} o {_make(*b)}: stride divisibility fails at A mode {s}:{d} "
                    f"(B stride {r} is not a multiple of the mode's size {s})"
                )
            new = 1
        elif (n - 1) * r < s:
            new = n  # the whole B mode stays inside this A mode
        else:
            if s % r != 0:
                raise CompositionError(
                    f"inadmissible composition {a} o {_make(*b)}: stride divisibility fails at A mode {s}:{d} "
                    f"(B mode {n}:{r} runs past it but {r} does not divide {s})"
                )
            new = s // r
            if n % new != 0:
                raise CompositionError(
                    f"inadmissible composition {a} o {_make(*b)}: shape divisibility fails at A mode {s}:{d} "
                    f"(B mode of size {n} spills past it but {new} does not divide {n})"
                )
        if new != 1:
            modes.append((new, r * d))
        n //= new
        r = -(-r // s)  # ceil_div
    if n != 1 or not modes:
        modes.append((n, r * flat[-1][1]))
    return _from_modes(modes)


def _fmt_tiler(t: object) -> str:
    if is_tuple(t):
        return "(" + ",".join(_fmt_tiler(m) for m in t) + ")"
    return str(t)


def complement(layout: Layout | int, cotarget: int | tuple = 1) -> Layout:
    """The layout of the offsets ``layout`` skips, up to ``cotarget`` (an int or a shape, by its size).

    Pre: the non-trivial modes, sorted by stride, chain without overlap (``d_{j+1}`` a multiple of ``s_j*d_j``).
    Post: ``make_layout(L, R)`` is injective; ``R``'s strides are ordered; ``cosize(R) <= round_up(M, cosize(L))``.

    >>> str(complement(Layout(4, 2), 24))
    '(2,3):(1,8)'
    """
    layout = as_layout(layout)
    m = product(cotarget) if is_tuple(cotarget) else cotarget
    return _from_modes(_complement_modes(layout, m))


def _complement_modes(layout: Layout, m: int) -> Modes:
    """The coalesced leaves of ``complement(layout, m)`` (``[]`` for ``1:0``)."""
    modes = sorted([(d, s) for s, d in _leaf_modes(layout) if s != 1 and d != 0])
    out: Modes = []
    cur = 1
    for d, s in modes:
        if d < 0:
            raise LayoutError(f"complement of {layout}: negative stride {d} is not supported")
        if d % cur != 0:
            raise LayoutError(
                f"complement of {layout} does not exist: stride {d} is not a multiple of {cur} "
                f"(the modes below it overlap or leave a gap that is not a whole number of periods)"
            )
        out.append((d // cur, cur))
        cur = s * d
    out.append((ceil_div(m, cur), cur))
    return _coalesce_modes(out)


def _by_stride(modes: Iterable[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """``(stride, shape, colex index stride)`` of every leaf, sorted by stride (ties by shape, then position)."""
    out = []
    cur = 1
    for s, d in modes:
        out.append((d, s, cur))
        cur *= s
    out.sort()
    return out


def right_inverse(layout: Layout | int) -> Layout:
    """The largest ``R`` with ``L(R(i)) == i`` for every ``i < size(R)``.

    >>> str(right_inverse(Layout((4,8),(8,1))))
    '(8,4):(4,1)'
    """
    return _right_inverse_modes(_leaf_modes(as_layout(layout)))


def _right_inverse_modes(modes: Iterable[tuple[int, int]]) -> Layout:
    """``right_inverse`` of the flat layout with these leaves: follow the chain of strides from 1."""
    out: Modes = []
    cur = 1
    for d, s, rd in _by_stride(modes):
        if s == 1:
            continue
        if d != cur:
            if d < cur:
                continue
            break
        out.append((s, rd))
        cur = s * d
    return _from_modes(_coalesce_modes(out))


def left_inverse(layout: Layout | int) -> Layout:
    """An ``R`` with ``R(L(i)) == i`` for every ``i < size(L)``.

    Pre: ``L`` is injective and its sorted strides divide one another (``d_{j+1} % d_j == 0``).
    Uses CuTe's formula ``right_inverse(make_layout(L, complement(L)))`` where the complement exists, and otherwise
    builds ``R`` from the stride ratios directly (CUTLASS #2094: the C++ answer for ``(128,160):(65536,1)`` is wrong).

    >>> str(left_inverse(Layout((128,160),(65536,1))))
    '(65536,128):(128,1)'
    """
    layout = as_layout(layout)
    modes = [m for m in _by_stride(_leaf_modes(layout)) if m[1] != 1]
    if any(d <= 0 for d, _, _ in modes):
        raise LayoutError(f"left_inverse of {layout}: a stride-0 or negative mode makes it non-injective")
    for (d0, s0, _), (d1, _, _) in itertools.pairwise(modes):
        if d1 < s0 * d0:
            raise LayoutError(f"left_inverse of {layout}: not injective (mode {s0}:{d0} overlaps stride {d1})")
    chained = all(d1 % (s0 * d0) == 0 for (d0, s0, _), (d1, _, _) in itertools.pairwise(modes))
    if chained:  # right_inverse(make_layout(L, complement(L))), on the flat leaves
        rest = _complement_modes(layout, 1) or [(1, 0)]
        return _right_inverse_modes(itertools.chain(_leaf_modes(layout), rest))
    out: Modes = []
    if modes and modes[0][0] > 1:
        out.append((modes[0][0], 0))
    for j, (d, s, rd) in enumerate(modes):
        if j + 1 < len(modes):
            nxt = modes[j + 1][0]
            if nxt % d != 0:
                raise LayoutError(
                    f"left_inverse of {layout} is not a layout: stride {nxt} is not a multiple of stride {d}"
                )
            out.append((nxt // d, rd))
        else:
            out.append((s, rd))
    return _from_modes(_coalesce_modes(out))
