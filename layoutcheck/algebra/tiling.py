"""Dividing a layout into tiles and repeating a tile over a layout: CuTe's divides and products.

``logical_divide(A, B) = composition(A, make_layout(B, complement(B, shape(coalesce(A)))))``: mode 0 walks the
tile ``B`` inside ``A``, mode 1 walks the tiles. When ``B`` does not divide ``A`` the complement rounds up
(``ceil_div``) and the result runs past the end of ``A`` -- evaluated with CuTe's extended semantics, the last mode
running on -- exactly as CuTe computes it: ``logical_divide(32:1, 3:1) == (3,11):(1,3)`` covers 33 indices, the last
tile is a residue tile. That is how ``local_tile`` works on ragged problems; the predicate (``coord < shape`` on an
identity tensor) that keeps the accesses in bounds is a property (``properties/residue.py``), not the algebra's job.

``logical_product(A, B) = make_layout(A, composition(complement(A, size(A)*cosize(B)), B))``: mode 0 is ``A``,
mode 1 places copies of ``A`` where ``B`` says. (pycute computes a divide when ``B`` is an int; CUTLASS #3478.)

A *tiler* is a layout (applied to the whole layout), an int ``n`` (``n:1``), or a tuple with one entry per mode
(layout, int or ``None`` = keep the mode). The ``zipped_``, ``tiled_`` and ``flat_`` forms only regroup modes::

    logical_divide : ((TileM,RestM), (TileN,RestN), L)
    zipped_divide  : ((TileM,TileN), (RestM,RestN,L))
    tiled_divide   : ((TileM,TileN), RestM, RestN, L)
    flat_divide    : (TileM, TileN, RestM, RestN, L)

In the regrouping forms a ``None`` tiler entry follows CuTe (C++ ``tile_unzip``/``zip2_by``, and the CuTe DSL): the
kept mode must already be rank-2 ``(tile, rest)`` and its halves are regrouped like the others
(``zipped_divide(((2,4),16):((1,2),8), (None,4)) == ((2,4),(4,4)):((1,8),(2,32))``); any other rank is a
``LayoutError``. pycute's ``hier_unzip`` differs: it puts ``1:0`` in the tile and the whole mode in the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from layoutcheck.algebra.inttuple import ceil_div, flatten, is_int, is_tuple, product
from layoutcheck.algebra.layout import Layout, _concat, _leaf_modes, _make, append, as_layout, cosize, rank, size
from layoutcheck.algebra.ops import (
    _coalesce_modes,
    _coalesced,
    _complement_modes,
    _compose,
    coalesce,
    composition,
    right_inverse,
)
from layoutcheck.errors import LayoutError, NotDivisibleError

Tiler = Any  # Layout | int | tuple[Layout | int | None, ...] | None


def _tiler_str(t: Tiler) -> str:
    if is_tuple(t):
        return "(" + ",".join(_tiler_str(m) for m in t) + ")"
    return str(t)


def _by_mode(op: Callable[[Layout, Tiler], Layout], a: Layout, tiler: tuple, name: str) -> Layout:
    shape, stride = _mode_tuples(a)
    if len(tiler) > len(shape):
        raise LayoutError(f"{name}: tiler {_tiler_str(tiler)} has rank {len(tiler)} > rank {len(a)} of {a}")
    shapes, strides = list(shape), list(stride)
    for i, t in enumerate(tiler):
        if t is not None:
            m = op(_make(shape[i], stride[i]), t)
            shapes[i], strides[i] = m.shape, m.stride
    return _make(tuple(shapes), tuple(strides))


def _tiler_layout(op: Callable[[Layout, Tiler], Layout], a: Layout, tiler: Tiler,
                  name: str) -> tuple[Layout, Layout | None, Layout | None]:
    """``(A, tiler, None)`` with the tiler as a ``Layout`` (an int ``n`` is ``n:1``), or ``(A, None, result)`` where
    the tiler decides alone: ``None`` keeps ``A``, a tuple applies ``op`` by mode. The one tiler dispatch of
    ``logical_divide`` and ``logical_product``."""
    if type(a) is not Layout:
        a = as_layout(a)
    if type(tiler) is Layout:
        return a, tiler, None
    if tiler is None:
        return a, None, a
    if is_int(tiler):
        return a, Layout(tiler), None
    if is_tuple(tiler):
        return a, None, _by_mode(op, a, tiler, name)
    if isinstance(tiler, Layout):
        return a, tiler, None
    raise LayoutError(f"{name}: bad tiler {tiler!r}")


def _mode_tuples(a: Layout) -> tuple[tuple, tuple]:
    """The modes' shapes and strides of ``a`` as tuples (a rank-1 layout is its own single mode)."""
    shape, stride = a.shape, a.stride
    return (shape, stride) if type(shape) is tuple else ((shape,), (stride,))


def logical_divide(a: Layout, tiler: Tiler) -> Layout:
    """Split ``A`` into (tile, rest) by ``tiler``; by-mode for a tuple tiler.

    Pre: the composition is admissible (``CompositionError`` otherwise); the tile need not divide ``A``.
    Post: ``R(i) == extended(A, T(i))`` for ``T = make_layout(B, complement(B, shape(coalesce(A))))``; when ``B``
    divides ``A`` this is ``A`` re-ordered (same size); otherwise ``size(R) >= size(A)`` and the residue runs past.

    >>> str(logical_divide(Layout(128, 128), Layout((16,4),(4,1))))
    '((16,4),2):((512,128),8192)'
    >>> str(logical_divide(Layout(32, 1), 3))
    '(3,11):(1,3)'
    """
    a, tiler, done = _tiler_layout(logical_divide, a, tiler, "logical_divide")
    if done is not None:
        return done
    # the rest is complement(tiler, shape(coalesce(A))): the cotarget's leaves are A's coalesced sizes
    cotarget = [s for s, _ in _coalesce_modes(_leaf_modes(a))] or [1]
    rest_shape, rest_stride = _coalesced(_complement_modes(tiler, cotarget))
    return _make(*_compose(a, (tiler.shape, rest_shape), (tiler.stride, rest_stride)))


def logical_product(a: Layout, tiler: Tiler) -> Layout:
    """Repeat ``A`` as ``B`` says: mode 0 is ``A``, mode 1 the copies; by-mode for a tuple tiler.

    >>> str(logical_product(Layout((2,2),(4,1)), Layout(6, 1)))
    '((2,2),(2,3)):((4,1),(2,8))'
    """
    a, tiler, done = _tiler_layout(logical_product, a, tiler, "logical_product")
    if done is not None:
        return done
    copies = _make(*_coalesced(_complement_modes(a, (product(a.shape) * cosize(tiler),))))
    shape, stride = _compose(copies, tiler.shape, tiler.stride)
    return _make((a.shape, shape), (a.stride, stride))


def _tile_unzip(op: Callable[[Layout, Tiler], Layout], a: Layout, tiler: Tiler, name: str) -> Layout:
    """CuTe's ``tile_unzip(op(a, tiler), tiler)``: apply ``op`` by mode, then gather the first halves into mode 0
    and the second halves (plus any untiled modes of ``A``) into mode 1.

    ``None`` (CuTe's ``_``) keeps a mode of ``A`` that already is ``(tile, rest)``: it must have rank 2, and its
    two sub-modes go to the tile and the rest (CUTLASS ``zip2_by``; the CuTe DSL rejects other ranks). pycute's
    ``hier_unzip`` instead puts ``1:0`` in the tile and the whole mode in the rest.
    """
    if tiler is None:
        if len(a) != 2:
            raise LayoutError(
                f"{name}: None in the tiler keeps mode {a} as (tile, rest), so it must have rank 2, "
                f"found rank {len(a)} (CuTe's tile_unzip)"
            )
        return a
    if type(tiler) is tuple:
        shape, stride = _mode_tuples(a)
        n = len(tiler)
        if n > len(shape):
            raise LayoutError(f"tiler {_tiler_str(tiler)} has rank {n} > rank {len(a)} of {a}")
        tile_s, tile_d, rest_s, rest_d = [], [], list(shape[n:]), list(stride[n:])
        for i, t in enumerate(tiler):
            m = _tile_unzip(op, _make(shape[i], stride[i]), t, name)
            (ts, rs), (td, rd) = m.shape, m.stride  # rank 2: (tile, rest)
            tile_s.append(ts)
            tile_d.append(td)
            rest_s.insert(i, rs)
            rest_d.insert(i, rd)
        return _make((tuple(tile_s), tuple(rest_s)), (tuple(tile_d), tuple(rest_d)))
    return op(a, tiler)


def _mode(l: Layout, i: int) -> Layout:
    """Mode ``i`` of a rank-2 layout (``l[i]`` without the range check)."""
    return _make(l.shape[i], l.stride[i])


def zipped_divide(a: Layout, tiler: Tiler) -> Layout:
    """``((tile modes), (rest modes))``: CuTe's ``tile_unzip(logical_divide(A, tiler), tiler)``.

    A ``None`` entry of a by-mode tiler keeps a rank-2 mode of ``A`` as its own (tile, rest), as CuTe does (C++ and
    DSL); pycute puts ``1:0`` in the tile instead. Any other rank for that mode is a ``LayoutError``.

    >>> str(zipped_divide(Layout((8,6),(1,8)), (4,3)))
    '((4,3),(2,2)):((1,8),(4,24))'
    >>> str(zipped_divide(Layout(((2,4),16),((1,2),8)), (None,4)))
    '((2,4),(4,4)):((1,8),(2,32))'
    """
    return _tile_unzip(logical_divide, as_layout(a), tiler, "zipped_divide")


def _tiled(z: Layout) -> Layout:
    """``((tile), (rest0, rest1, ...))`` -> ``((tile), rest0, rest1, ...)`` (CuTe's ``tiled_*``)."""
    return _concat([_mode(z, 0), *_modes(_mode(z, 1))])


def _flat(z: Layout) -> Layout:
    """``((tile0, ...), (rest0, ...))`` -> ``(tile0, ..., rest0, ...)`` (CuTe's ``flat_*``)."""
    return _concat(_modes(_mode(z, 0)) + _modes(_mode(z, 1)))


def tiled_divide(a: Layout, tiler: Tiler) -> Layout:
    """``((tile modes), rest0, rest1, ...)`` (``None`` in the tiler as in ``zipped_divide``)."""
    return _tiled(_tile_unzip(logical_divide, as_layout(a), tiler, "tiled_divide"))


def flat_divide(a: Layout, tiler: Tiler) -> Layout:
    """``(tile0, tile1, ..., rest0, rest1, ...)`` (``None`` in the tiler as in ``zipped_divide``)."""
    return _flat(_tile_unzip(logical_divide, as_layout(a), tiler, "flat_divide"))


def zipped_product(a: Layout, tiler: Tiler) -> Layout:
    """``((A modes), (copy modes))``: CuTe's ``tile_unzip(logical_product(A, tiler), tiler)`` (``None`` in the
    tiler as in ``zipped_divide``)."""
    return _tile_unzip(logical_product, as_layout(a), tiler, "zipped_product")


def tiled_product(a: Layout, tiler: Tiler) -> Layout:
    return _tiled(_tile_unzip(logical_product, as_layout(a), tiler, "tiled_product"))


def flat_product(a: Layout, tiler: Tiler) -> Layout:
    return _flat(_tile_unzip(logical_product, as_layout(a), tiler, "flat_product"))


def _modes(l: Layout) -> list[Layout]:
    return list(l) if is_tuple(l.shape) else [l]


def _zip(x: Layout, y: Layout) -> Layout:
    """The layout whose mode ``i`` is ``(x_i, y_i)`` (a rank-1 layout is its own single mode)."""
    xs, xd = _mode_tuples(x)
    ys, yd = _mode_tuples(y)
    return _make(tuple(zip(xs, ys, strict=True)), tuple(zip(xd, yd, strict=True)))


def _product_halves(block: Layout, tiler: Layout) -> tuple[Layout, Layout]:
    """Modes 0 (the block) and 1 (the copies) of ``logical_product`` of ``block`` and ``tiler``, both padded with
    ``1:0`` modes to the larger rank first (CuTe's ``blocked_product``/``raked_product``)."""
    if type(block) is not Layout:
        block = as_layout(block)
    if type(tiler) is not Layout:
        tiler = as_layout(tiler)
    rb, rt = rank(block), rank(tiler)
    if rb < rt:
        block = append(block, n=rt)
    elif rt < rb:
        tiler = append(tiler, n=rb)
    p = logical_product(block, tiler)
    (bs, cs), (bd, cd) = p.shape, p.stride
    return _make(bs, bd), _make(cs, cd)


def blocked_product(block: Layout, tiler: Layout) -> Layout:
    """Each mode ``(block_i, tiler_i)``: whole blocks laid out as ``tiler`` says.

    >>> str(blocked_product(Layout((2,5),(5,1)), Layout((3,4),(1,3))))
    '((2,3),(5,4)):((5,10),(1,30))'
    """
    x, y = _product_halves(block, tiler)
    return _zip(x, y)


def raked_product(block: Layout, tiler: Layout) -> Layout:
    """Each mode ``(tiler_i, block_i)``: the blocks' elements interleaved (raked) across the tiler.

    >>> str(raked_product(Layout((2,5),(5,1)), Layout((3,4),(1,3))))
    '((3,2),(4,5)):((10,5),(30,1))'
    """
    x, y = _product_halves(block, tiler)
    return _zip(y, x)


def make_ordered_layout(shape: Any, order: Any = None) -> Layout:
    """Compact layout whose modes get strides in increasing ``order`` (default: column-major)."""
    flat = flatten(shape)
    ordr = list(range(len(flat))) if order is None else list(flatten(order))
    if len(ordr) != len(flat):
        raise LayoutError(f"order {order} does not match shape {shape}")
    strides = [0] * len(flat)
    cur = 1
    for i in sorted(range(len(flat)), key=lambda j: (ordr[j], j)):
        strides[i] = cur
        cur *= flat[i]
    from layoutcheck.algebra.inttuple import unflatten

    return Layout(shape, unflatten(tuple(strides), shape))


def tile_to_shape(block: Layout, target: Any, order: Any = None) -> Layout:
    """Repeat ``block`` until it covers the shape ``target`` (modes ordered by ``order``, default column-major).

    Pre: each mode of ``block`` divides the matching mode of ``target``.

    >>> str(tile_to_shape(Layout((8,8),(8,1)), (32,64)))
    '(32,(8,8)):(8,(1,256))'
    """
    block = as_layout(block)
    tgt = tuple(product(t) for t in target) if is_tuple(target) else (target,)
    r = len(tgt)
    if rank(block) > r:
        raise LayoutError(f"tile_to_shape: block {block} has rank {rank(block)} > rank {r} of target")
    padded = append(block, n=r) if rank(block) < r else block
    bshape = tuple(size(m) for m in _modes(padded))
    for i, (b, t) in enumerate(zip(bshape, tgt, strict=True)):
        if t % b != 0:
            raise NotDivisibleError(f"tile_to_shape: block mode {i} of size {b} does not divide target {t}")
    reps = tuple(ceil_div(t, b) for t, b in zip(tgt, bshape, strict=True))
    return coalesce(blocked_product(padded, make_ordered_layout(reps, order)), reps)


def _cast_args(layout: Layout, n: int, name: str) -> Layout:
    if not is_int(n) or n <= 0:
        raise LayoutError(f"{name}: the factor must be a positive int, found {n!r}")
    layout = as_layout(layout)
    if layout.shape == ():
        raise LayoutError(f"{name}: the empty layout {layout} has no modes to recast")
    return layout


def upcast(layout: Layout, n: int) -> Layout:
    """View ``layout`` (in units of ``x``) in units of ``n*x``, as C++ ``upcast<N>``: each leaf ``s:d`` becomes
    ``ceil_div(s, ceil_div(n,|d|)) : sign(d)*ceil_div(|d|, n)`` (shapes round up); stride 0 stays.

    Pre: every non-zero stride divides ``n`` or is a multiple of it (C++'s "Divisibility condition").

    >>> str(upcast(Layout((8,64),(64,1)), 8))
    '(8,8):(8,1)'
    >>> str(upcast(Layout(24, 2), 8))
    '6:1'
    """
    layout = _cast_args(layout, n, "upcast")

    def go(s, d):  # int tuples, nested alike
        if is_tuple(s):
            return tuple(zip(*(go(a, b) for a, b in zip(s, d, strict=True)), strict=True))
        if d == 0:
            return s, 0
        if d % n != 0 and n % d != 0:
            raise NotDivisibleError(f"upcast by {n}: Divisibility condition fails for stride {d} (neither divides)")
        sign = 1 if d > 0 else -1
        return ceil_div(s, ceil_div(n, abs(d))), sign * ceil_div(abs(d), n)

    s, d = go(layout.shape, layout.stride)
    return Layout(s, d)


def downcast(layout: Layout, n: int) -> Layout:
    """View ``layout`` in units of ``x/n``: the stride-1 mode grows ``n``-fold, other strides scale by ``n``.

    >>> str(downcast(Layout((8,8),(8,1)), 2))
    '(8,16):(16,1)'
    """
    layout = _cast_args(layout, n, "downcast")

    def go(s, d):
        if is_tuple(s):
            return tuple(zip(*(go(a, b) for a, b in zip(s, d, strict=True)), strict=True))
        if abs(d) == 1:
            return s * n, d
        return s, d * n

    s, d = go(layout.shape, layout.stride)
    return Layout(s, d)


def max_common_layout(a: Layout, b: Layout) -> Layout:
    """The largest layout ``R`` with ``a(R(i)) == b(R(i))`` that is contiguous in both (CuTe's definition)."""
    inv_b = right_inverse(b)
    common = coalesce(composition(a, inv_b))
    first = common[0] if is_tuple(common.shape) else common
    if first.stride == 1 and is_int(first.shape):
        return composition(inv_b, first)
    return Layout(1, 0)


def max_common_vector(a: Layout, b: Layout) -> int:
    """How many consecutive indices ``a`` and ``b`` both map to consecutive offsets (a vector width)."""
    inv_b = right_inverse(b)
    common = coalesce(composition(a, inv_b))
    first = common[0] if is_tuple(common.shape) else common
    return first.shape if first.stride == 1 and is_int(first.shape) else 1
