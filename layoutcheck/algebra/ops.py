"""The core CuTe layout algebra: coalesce, filter, composition, complement and the inverses.

Definitions (``A``, ``B`` layouts; ``n = size``):

* ``coalesce(L)`` is the same function on ``[0, n)`` with the fewest modes: size-1 modes dropped, mode ``j+1``
  merged into mode ``j`` when ``s_j * d_j == d_{j+1}``.
* ``composition(A, B)(i) == A(B(i))`` where ``A`` is evaluated as CuTe does, its last mode running on past
  ``size(A)`` (``extended``; C++ ``coalesce_x`` keeps a trailing size-1 mode's stride for that, so
  ``(4,1):(1,0) o 8:1 == (4,2):(1,0)``). A tuple tiler composes mode by mode and drops A's unmatched modes
  (C++ and the CuTe DSL; pycute keeps them). It exists as a layout only under two divisibility conditions, checked while
  each mode of ``B`` (shape ``n``, stride ``r``) walks the coalesced modes ``(s, d)`` of ``A``:
  *stride divisibility* -- ``r`` is a multiple of ``s`` (the B mode skips the A mode whole) or ``s`` a multiple of
  ``r``; *shape divisibility* -- if the B mode spills past the A mode (``n > s/r``) then ``s/r`` divides ``n``.
  pycute checks only the first and so returns ``5:7`` for ``(5,3):(7,1) o 7:1``; CUTLASS checks a weaker form of the
  second and accepts ``(4,6,8):(2,3,5) o 6:3`` (issue #3177). Both are rejected here with the failing condition.
* ``complement(L, M)`` is the layout ``R`` whose image interleaves with ``L``'s, as C++ builds it: the modes of
  ``filter(L)`` taken by increasing stride ``d_j`` get the gaps ``d_j // (s_{j-1} d_{j-1})`` (floor: a gap that is
  not a whole number of periods is partly left out, ``complement((4,6):(1,6)) == 1:0``), then a rest mode
  ``ceil_div(M, s_last d_last)`` rounds up (a shape ``M`` divides by folding, C++ ``ceil_div``), so ``R`` may run past
  ``M``: that is how non-dividing tiles get their residue. ``make_layout(L, R)`` is injective and ``R``'s strides
  increase. A gap of 0 (two modes of ``L`` overlap) is CuTe's "Non-injective Layout" and a ``LayoutError``.
* ``right_inverse(L)``: ``L(R(i)) == i`` for ``i < size(R)`` (largest such ``R`` built from L's stride-1 chain).
* ``left_inverse(L)``: ``L(R(L(i))) == L(i)`` for every ``i < size(L)`` (``R(L(i)) == i`` when ``L`` is injective);
  stride-0 modes are skipped, as C++ does, so ``left_inverse(4:0) == 4:0``.
* Ties between equal strides are broken as C++ breaks them (its compile-time exchange sort, which is not stable).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from math import gcd
from operator import itemgetter

from layoutcheck.algebra.inttuple import IntTuple, ceil_div, flatten, is_int, is_tuple
from layoutcheck.algebra.layout import Layout, _concat, _leaf_modes, _make, as_layout, extended_offsets
from layoutcheck.errors import ComplementError, CompositionError, LayoutError

Modes = list[tuple[int, int]]  # the (shape, stride) leaves of a flat layout, in order


def _split_modes(modes: Modes) -> tuple[IntTuple, IntTuple]:
    """``(shape, stride)`` of the flat layout of ``modes``: ``(1, 0)`` for none, a bare ``(s, d)`` for one."""
    if len(modes) > 1:
        return tuple(zip(*modes))  # type: ignore[return-value]  # noqa: B905 -- pairs: (shapes, strides)
    return modes[0] if modes else (1, 0)


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


def _coalesced(modes: Iterable[tuple[int, int]]) -> tuple[IntTuple, IntTuple]:
    """``(shape, stride)`` of the flat layout of ``_coalesce_modes(modes)``, built in one pass."""
    shapes: list[int] = []
    strides: list[int] = []
    for s, d in modes:
        if s == 1:
            continue
        if shapes and shapes[-1] * strides[-1] == d:
            shapes[-1] *= s
        else:
            shapes.append(s)
            strides.append(d)
    if len(shapes) > 1:
        return tuple(shapes), tuple(strides)
    return (shapes[0], strides[0]) if shapes else (1, 0)


def coalesce(layout: Layout, profile: object = None) -> Layout:
    """Same function, fewest modes. With a tuple ``profile``, coalesce each mode separately (by-mode).

    >>> str(coalesce(Layout((2,(1,6)), (1,(6,2)))))
    '12:1'
    """
    if type(layout) is not Layout:
        layout = as_layout(layout)
    if type(profile) is tuple:
        if len(profile) > len(layout):
            raise LayoutError(f"coalesce profile {profile} has more modes than {layout}")
        modes = [coalesce(layout[i], profile[i]) for i in range(len(profile))]
        return _concat(modes + list(layout)[len(profile):])
    shape = layout.shape
    if type(shape) is not tuple:  # one mode: already coalesced, unless it has size 1
        return layout if shape != 1 else _make(1, 0)
    return _make(*_coalesced(_leaf_modes(layout)))


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

    Pre: both divisibility conditions hold (else ``CompositionError`` naming the one that fails).
    Post: ``composition(A,B)(i) == extended(A, B(i))`` for every ``i`` in ``[0, size(B))`` -- B's image may run
    past ``size(A)``, A's last mode runs on as in CuTe; shape compatible with B's.

    >>> str(composition(Layout((6,2),(8,2)), Layout((4,3),(3,1))))
    '((2,2),3):((24,2),8)'
    """
    if type(a) is not Layout:
        a = as_layout(a)
    if type(b) is not Layout:
        if b is None:
            return a
        if is_int(b):
            b = Layout(b)
        elif is_tuple(b):
            if len(b) > len(a):
                raise LayoutError(f"tiler {_fmt_tiler(b)} has rank {len(b)} > rank {len(a)} of {a}")
            # C++ ``composition(layout, tuple)`` and the CuTe DSL drop A's modes the tiler does not reach
            return _concat([composition(a[i], b[i]) for i in range(len(b))])
        elif not isinstance(b, Layout):
            raise LayoutError(f"cannot compose with {b!r}")
    return _make(*_compose(a, b.shape, b.stride))


def _compose(a: Layout, shape: IntTuple, stride: IntTuple) -> tuple[IntTuple, IntTuple]:
    """``(shape, stride)`` of ``composition(A, shape:stride)`` for a layout ``shape:stride`` (the algebra's core)."""
    flat = _coalesce_x_modes(a)
    if type(shape) is tuple:
        if len(flat) > 1:
            _check_no_carry(a, shape, stride, flat)
        return _compose_modes(a, shape, stride, flat)
    return _compose_mode(a, shape, stride, flat)


def _coalesce_x_modes(a: Layout) -> Modes:
    """C++ ``coalesce_x``: the coalesced leaves of ``A`` as a function on all of ``N`` (its last mode runs on).

    A trailing size-1 leaf keeps its stride (as a placeholder mode of size 2, which only its stride is read from:
    the last mode's shape never matters past the domain), so ``(4,1):(1,0)`` runs on as ``(4,inf):(1,0)``.
    """
    leaves = _leaf_modes(a)
    if leaves[-1][0] == 1:
        leaves[-1] = (2, leaves[-1][1])
    return _coalesce_modes(leaves)


def _compose_modes(a: Layout, shape: tuple, stride: tuple, flat: Modes) -> tuple[tuple, tuple]:
    """``(shape, stride)`` of A composed with every leaf mode of B's ``shape:stride``, keeping B's nesting."""
    shapes, strides = [], []
    for s, d in zip(shape, stride):  # noqa: B905 -- congruent by construction
        x, y = _compose_modes(a, s, d, flat) if type(s) is tuple else _compose_mode(a, s, d, flat)
        shapes.append(x)
        strides.append(y)
    return tuple(shapes), tuple(strides)


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


def _check_no_carry(a: Layout, shape: tuple, stride: tuple, flat: Modes) -> None:
    """Composing by B's modes assumes ``A(x + y) == A(x) + A(y)`` for offsets of different B modes. That holds
    exactly when adding the modes' offsets never carries across a boundary between A's coalesced modes: for every
    boundary ``P`` (product of a prefix of A's coalesced shape), ``sum_k max_j (j*r_k mod P) < P``. CuTe assumes
    it silently; e.g. ``(2,2):(1,1) o (2,2):(1,1)`` would give 2 where A(B(3)) is 1."""
    if len(flat) < 2:
        return  # A is a single mode: no boundary to carry across
    modes = [(s, d) for s, d in _leaf_modes(_make(shape, stride)) if s > 1 and d != 0]
    if len(modes) < 2:
        return
    p = 1
    for s, _ in flat[:-1]:
        p *= s
        if sum(_max_residue(n, r, p) for n, r in modes) >= p:
            raise CompositionError(
                f"inadmissible composition {a} o {_make(shape, stride)}: the modes of B carry across A's mode "
                f"boundary at {p} (offsets of different B modes add up past {p}, so A is not additive over them)"
            )


def _compose_mode(a: Layout, n: int, r: int, flat: Modes) -> tuple[IntTuple, IntTuple]:
    """``(shape, stride)`` of A composed with the single mode ``n:r`` of B, walking A's coalesced modes ``(s, d)``."""
    if r == 0:
        return n, 0
    b = (n, r)  # for the messages: the B mode as given
    if r < 0 and n > 1:
        raise CompositionError(f"inadmissible composition {a} o {_make(*b)}: negative stride {r} leaves A's domain")
    modes: Modes = []
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
    return _split_modes(modes)


def _fmt_tiler(t: object) -> str:
    if is_tuple(t):
        return "(" + ",".join(_fmt_tiler(m) for m in t) + ")"
    return str(t)


def complement(layout: Layout | int, cotarget: int | tuple = 1) -> Layout:
    """The layout of the offsets ``layout`` skips, up to ``cotarget`` (an int, or a shape divided by folding).

    Pre: no two non-trivial modes of ``filter(L)`` overlap (sorted by stride, ``d_{j+1} >= s_j*d_j``; else CuTe's
    "Non-injective Layout", a ``LayoutError``); strides are non-negative.
    Post: ``make_layout(L, R)`` is injective; ``R``'s strides increase; ``R`` reaches ``cotarget``, rounding up
    (``size(L)*size(R) >= M`` when ``L`` is compact), exactly as C++ ``complement`` computes it.

    >>> str(complement(Layout(4, 2), 24))
    '(2,3):(1,8)'
    >>> str(complement(Layout(3, 1), 32))
    '11:3'
    """
    if type(layout) is not Layout:
        layout = as_layout(layout)
    return _make(*_coalesced(_complement_modes(layout, flatten(cotarget))))


def _ceil_div_shape(leaves: Iterable[int], d: int) -> int:
    """C++ ``coalesce(ceil_div(cotarget, d))`` for a static shape given by its ``leaves``: ``d`` divides them left to
    right, rounding up (``ceil_div((4,6), 3) == (2,6)``, size 12 where ``ceil_div(24, 3)`` is 8)."""
    out = 1
    for m in leaves:
        out *= ceil_div(m, d)
        d = ceil_div(d, m)
    return out


def _complement_modes(layout: Layout, cotarget: Iterable[int]) -> Modes:
    """The leaves of ``complement(layout, M)`` before coalescing, for ``cotarget`` the leaves of ``M``."""
    # filter(L) as C++ builds it: stride-0 modes dropped, then coalesced
    modes = _coalesce_modes([m for m in _leaf_modes(layout) if m[1]])
    modes.sort(key=_STRIDE)  # first minimum stride first (stable), as C++'s fold takes it
    out: Modes = []
    cur = 1
    for s, d in modes:
        if d < 0:
            raise ComplementError(f"complement of {layout}: negative stride {d} is not supported")
        gap = d // cur
        if gap == 0:
            raise ComplementError(
                f"complement of {layout}: Non-injective Layout (CuTe's law): the mode {s}:{d} overlaps the modes "
                f"below it, which already reach {cur}"
            )
        out.append((gap, cur))
        cur = s * d
    out.append((_ceil_div_shape(cotarget, cur), cur))
    return out


_STRIDE = itemgetter(1)


def _exchange_order(strides: list[int]) -> list[int]:
    """The mode indices ordered by stride exactly as C++ ``SortByKey`` orders them (an exchange sort: ties are not
    kept in position order, so ``right_inverse((4,2):(1,1))`` picks the mode C++ picks)."""
    keys = list(strides)
    order = list(range(len(keys)))
    for i in range(len(keys)):
        for j in range(i + 1, len(keys)):
            if keys[j] < keys[i]:
                keys[i], keys[j] = keys[j], keys[i]
                order[i], order[j] = order[j], order[i]
    return order


def _coalesced_with_prefix(layout: Layout) -> tuple[Modes, list[int]]:
    """The leaves of C++ ``coalesce(L)`` (``[(1, 0)]`` when every mode has size 1) and their colex prefix products."""
    modes = _coalesce_modes(_leaf_modes(layout)) or [(1, 0)]
    pre, cur = [], 1
    for s, _ in modes:
        pre.append(cur)
        cur *= s
    return modes, pre


def right_inverse(layout: Layout | int) -> Layout:
    """The largest ``R`` with ``L(R(i)) == i`` for every ``i < size(R)``, as C++ builds it.

    Post: ``L(R(i)) == i`` for ``i < size(R)``; ``R`` follows the chain of strides from 1 through ``coalesce(L)``.

    >>> str(right_inverse(Layout((4,8),(8,1))))
    '(8,4):(4,1)'
    """
    if type(layout) is not Layout:
        layout = as_layout(layout)
    modes, pre = _coalesced_with_prefix(layout)
    strides = [d for _, d in modes]
    out: Modes = []
    cur = 1
    if len(set(strides)) == len(strides):  # no ties: follow the chain 1 -> s*1 -> ... by stride lookup
        where = {d: i for i, d in enumerate(strides)}
        while (i := where.get(cur)) is not None:
            s = modes[i][0]
            out.append((s, pre[i]))
            cur *= s  # s > 1 for a coalesced mode of stride cur >= 1, so the chain ends
    else:  # ties: the mode C++'s exchange sort puts first
        for i in _exchange_order(strides):
            s, d = modes[i]
            if d == cur:
                out.append((s, pre[i]))
                cur = s * d
    return _make(*_coalesced(out))


def left_inverse(layout: Layout | int) -> Layout:
    """A quasi-inverse ``R`` of ``L``, as C++ builds it: stride-0 modes are skipped, the others sorted by stride.

    Pre: strides are non-negative; each non-zero stride, in sorted order, is a multiple of the product of the
    shapes placed before it (C++'s "Left inverse divisibility condition"; else ``LayoutError``).
    Post: ``L(extended(R, L(i))) == L(i)`` for every ``i < size(L)``; ``R(L(i)) == i`` when ``L`` is injective.

    >>> str(left_inverse(Layout((128,160),(65536,1))))
    '(65536,128):(128,1)'
    >>> str(left_inverse(Layout((2,4,8),(32,0,2))))
    '(2,16,2):(0,8,1)'
    """
    if type(layout) is not Layout:
        layout = as_layout(layout)
    modes, pre = _coalesced_with_prefix(layout)
    if any(d < 0 for _, d in modes):
        raise LayoutError(f"left_inverse of {layout}: negative strides are not supported")
    order = _exchange_order([d for _, d in modes])
    shapes: list[int] = []
    strides = [0]
    placed = 1
    for i in order:
        d = modes[i][1]
        if d == 0:
            continue
        if d % placed != 0:
            raise LayoutError(
                f"left_inverse of {layout} is not a layout: Left inverse divisibility condition fails "
                f"(stride {d} is not a multiple of {placed}, the size placed below it)"
            )
        shapes.append(d // placed)
        strides.append(pre[i])
        placed *= d // placed
    shapes.append(modes[order[-1]][0])
    result = _make(*_coalesced(zip(shapes, strides, strict=True)))
    nonzero = [modes[i] for i in order if modes[i][1] != 0]
    if any(s * d > d1 for (s, d), (_, d1) in itertools.pairwise(nonzero)):
        _check_quasi_inverse(layout, result)  # overlapping modes: C++'s answer is right only sometimes
    return result


def _check_quasi_inverse(layout: Layout, r: Layout) -> None:
    """Raise unless ``L(extended(R, L(i))) == L(i)`` for every ``i`` (checked over the whole domain)."""
    import numpy as np  # NumPy loads on first evaluation, not with the algebra

    offs = layout.offsets()
    back = extended_offsets(layout, 1 + int(extended_offsets(r, int(offs.max()) + 1).max()))
    bad = np.nonzero(back[extended_offsets(r, int(offs.max()) + 1)[offs]] != offs)[0]
    if len(bad):
        i = int(bad[0])
        raise LayoutError(
            f"left_inverse of {layout}: CuTe's answer {r} breaks the quasi-inverse law L(R(L(i))) == L(i) "
            f"at i = {i} (the layout's modes overlap)"
        )
