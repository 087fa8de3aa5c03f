"""Layouts, swizzles and TV maps lowered to the expression IR (``layoutcheck.expr.ir``), once.

A flat layout ``(s_0,...,s_k):(d_0,...,d_k)`` with exclusive prefix products ``p_j`` maps an index ``i`` to::

    L(i) = sum_j ((i // p_j) % s_j) * d_j

``index_ast(L, x)`` builds that sum for an expression ``x`` (a variable, or any expression with a known bound),
after ``coalesce`` (same function, fewer modes), simplified with the bound of every sub-expression:

* ``x % s`` disappears when ``x < s`` is known (always for the last mode, since ``i < size(L)``);
* ``x // k`` is ``0`` when ``x < k``; nested divisions merge (``(x // a) // b == x // (a*b)``);
* a sum splits at a modulus ``k``: terms that are multiples of ``k`` drop out of ``% k`` and divide exactly in
  ``// k``, and if the remaining terms are ``< k`` the ``%`` and ``//`` vanish. This is the power-of-two structure
  of TV layouts: ``SM80_16x8_Row = ((4,8),(2,2)):((32,1),(16,8))`` over a 16-row tile gives
  ``row = t//4 + 8*(v//2)`` and ``col = 2*(t%4) + v%2`` with no ``%`` or ``//`` of the whole offset.

Worked table, ``(4,(2,2)):(1,(4,8))`` coalesces to ``(4,2,2):(1,4,8)`` -> ``16:1`` -> ``L(i) = i``; and
``(4,2):(2,1)`` gives ``(i % 4)*2 + i // 4``:

    i     0 1 2 3 4 5 6 7
    L(i)  0 2 4 6 1 3 5 7

A ``Swizzle<B,M,S>`` lowers through its own formula (``Swizzle.__call__`` on a tree: ``x ^ ((x & yyy) >> S)``), so
the formula is written once, in ``layoutcheck.algebra.swizzle``. Strides must be non-negative (the C side uses
unsigned integers) unless ``signed=True`` (the Z3 engine's two's-complement encoding); otherwise ``LayoutError``.
"""

from __future__ import annotations

from typing import Any

from layoutcheck.algebra.inttuple import flatten, is_tuple, prefix_product
from layoutcheck.algebra.layout import Layout, flat_modes, size
from layoutcheck.algebra.ops import coalesce
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.errors import LayoutError
from layoutcheck.expr.ir import Expr, add, const, div, mod, mul, var


def _flat_index_ast(layout: Layout, x: Expr, signed: bool) -> Expr:
    n = size(layout)
    if x.bound > n:
        raise LayoutError(f"index expression may reach {x.bound - 1}, outside [0,{n}) of {layout}")
    modes = [(s, d) for s, d in flat_modes(coalesce(layout)) if s != 1]
    for _, d in modes:
        if d < 0 and not signed:
            raise LayoutError(f"closed forms need non-negative strides; {layout} has stride {d}")
    prefixes = flatten(prefix_product(tuple(s for s, _ in modes))) if modes else ()
    return add(*(mul(mod(div(x, p), s), d, signed) for (s, d), p in zip(modes, prefixes, strict=True)))


def _as_expr(v: Any, upper: int) -> Expr:
    if isinstance(v, Expr):
        return v
    if isinstance(v, int):
        return const(v)
    return var(str(v), upper)


def index_ast(layout: Layout | ComposedLayout, x: Any = "i", signed: bool = False) -> Expr:
    """The expression tree of ``layout`` at ``x``: a flat index (name, ``Expr`` or int) or one per top-level mode.

    Pre: strides non-negative (or ``signed``); ``x``'s bound <= the size of its mode. Post: ``evaluate(index_ast(L,
    x), env) == L(env[x])`` for every value of the variables in range.

    >>> from layoutcheck.expr.ir import add, div, mod, mul, var
    >>> index_ast(Layout((4, 2), (2, 1)), "i") == add(mul(mod(var("i", 8), 4), 2), div(var("i", 8), 4))
    True
    """
    if isinstance(layout, ComposedLayout):
        return swizzle_ast(layout.swizzle, add(const(layout.offset), index_ast(layout.layout, x, signed)))
    if isinstance(x, (tuple, list)):
        modes = list(layout) if is_tuple(layout.shape) else [layout]
        if len(x) != len(modes):
            raise LayoutError(f"{len(x)} coordinate variables for rank-{len(modes)} layout {layout}")
        return add(*(index_ast(m, xi, signed) for m, xi in zip(modes, x, strict=True)))
    return _flat_index_ast(layout, _as_expr(x, size(layout)), signed)


def swizzle_ast(sw: Swizzle, x: Expr) -> Expr:
    """``Swizzle<B,M,S>`` applied to ``x``: the swizzle's own formula evaluated on the tree.

    >>> from layoutcheck.expr.ir import var
    >>> swizzle_ast(Swizzle(0, 4, 3), var("x", 64))
    Var(name='x', upper=64)
    """
    return x if sw.is_identity() else sw(x)


def tv_coord_ast(tv: Layout, tile_m: int, t: Any = "t", v: Any = "v") -> tuple[Expr, Expr]:
    """``(row, col)`` of a rank-2 TV layout whose image is the colex index ``m + tile_m*n`` of a tile.

    Pre: ``rank(tv) == 2``. Post: ``row + tile_m*col == tv(t, v)`` and ``row < tile_m``.

    >>> from layoutcheck.hw.mma import SM80_16x8_Row
    >>> from layoutcheck.expr.sympy import to_sympy
    >>> r, c = tv_coord_ast(SM80_16x8_Row, 16)
    >>> str(to_sympy(r)), str(to_sympy(c))
    ('floor(t/4) + 8*floor(v/2)', '2*(Mod(t, 4)) + Mod(v, 2)')
    """
    if len(tv) != 2:
        raise LayoutError(f"a TV layout has rank 2 (thread, value); {tv} has rank {len(tv)}")
    off = index_ast(tv, (t, v))
    return mod(off, tile_m), div(off, tile_m)
