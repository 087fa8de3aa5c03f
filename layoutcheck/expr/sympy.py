"""The SymPy interpreter of the expression IR: ``floor``/``Mod`` for division, ``BitXor``/``BitAnd`` for bits.

``to_sympy`` folds a tree through one table (``sympy_alu``); ``>>``/``<<`` and contiguous masks become
``floor``/``Mod``, XOR stays the SymPy function ``BitXor``. ``index_expr`` and ``tv_coord_exprs`` are the closed
forms of layouts and TV maps (``layoutcheck.expr.lower``) as SymPy expressions. SymPy is imported on first use.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.expr.ir import Expr, fold
from layoutcheck.expr.lower import index_ast, tv_coord_ast


def _bitwise(name: str, op: Any, zero_is_identity: bool) -> Any:
    """A SymPy function of two non-negative integers: ``op`` when both are numbers; ``f(0, b) == b`` (and
    ``f(a, 0) == a``) when ``zero_is_identity``; otherwise left unevaluated."""
    import sympy

    def eval_(cls: Any, a: Any, b: Any) -> Any:
        if a.is_Integer and b.is_Integer:
            return sympy.Integer(op(int(a), int(b)))
        if zero_is_identity and (a == 0 or b == 0):
            return b if a == 0 else a
        return None

    doc = f"Bitwise {name[3:].upper()} of non-negative integers (evaluates when both are numbers)."
    return type(name, (sympy.Function,), {"__doc__": doc, "is_integer": True, "is_nonnegative": True,
                                          "eval": classmethod(eval_)})


def _sympy_funcs() -> Any:
    return _bitwise("BitXor", operator.xor, True), _bitwise("BitAnd", operator.and_, False)


_FUNCS: list[Any] = []


def sympy_functions() -> tuple[Any, Any]:
    """The SymPy functions ``(BitXor, BitAnd)`` used by ``to_sympy`` (created once, on first use)."""
    if not _FUNCS:
        _FUNCS.extend(_sympy_funcs())
    return _FUNCS[0], _FUNCS[1]


def sympy_alu() -> dict[str, Callable[..., Any]]:
    """Operation -> SymPy constructor (int operands arrive as ``sympy.Integer``)."""
    import sympy

    bitxor, bitand = sympy_functions()

    def mod(y: Any, m: Any) -> Any:
        """``Mod(y, m)``, left unevaluated when ``y`` holds a ``Mod``: SymPy 1.14 rewrites ``Mod(k*Mod(x, n), m)``
        wrongly (``Mod(3*Mod(i, 3), 4)`` becomes ``Mod(3*Mod(i, 3)**2, 4)``: 2 instead of 3 at ``i = 1``); numbers
        substituted later evaluate it exactly."""
        return sympy.Mod(y, m, evaluate=False) if getattr(y, "has", None) and y.has(sympy.Mod) else sympy.Mod(y, m)

    def band(y: Any, m: Any) -> Any:
        m = int(m)
        low = m & -m
        if m and ((m // low) & (m // low + 1)) == 0:  # contiguous mask: a bit field, y mod 2^h - y mod 2^l
            # (not ``Mod(floor(y / low), ...) * low``: SymPy 1.14 rewrites ``Mod(4*Mod(x, 4), 3)`` to
            # ``Mod(Mod(x, 4)**2, 3)``, which is wrong, so no product of a constant and a Mod is built here)
            return mod(y, m + low) - (mod(y, low) if low > 1 else 0)
        return bitand(y, m)

    return {
        "add": sympy.Add, "sub": lambda a, b: a - b, "neg": lambda a: -a, "mul": lambda a, b: a * b,
        "div": lambda a, b: sympy.floor(a / b), "mod": mod, "xor": bitxor, "and": band,
        "shr": lambda a, k: sympy.floor(a / 2**k), "shl": lambda a, k: a * 2**k,
        "ceil_div": lambda a, b: sympy.ceiling(a / b), "min": sympy.Min, "max": sympy.Max, "lt": sympy.Lt,
        "ite": lambda c, a, b: sympy.Piecewise((a, c), (b, True)), "land": sympy.And, "lor": sympy.Or,
        "lnot": sympy.Not,
    }


def to_sympy(e: Expr, symbols: Mapping[str, Any] | None = None) -> Any:
    """The SymPy form of ``e``: ``floor``/``Mod`` for division, ``BitXor``/``BitAnd`` for bit operations.

    Variables become ``Symbol(name, integer=True, nonnegative=True)`` unless ``symbols`` maps their names.

    >>> from layoutcheck.expr.ir import var
    >>> str(to_sympy(var("i", 8) // 2 + 4 * (var("i", 8) % 2)))
    '4*(Mod(i, 2)) + floor(i/2)'
    """
    import sympy

    syms = dict(symbols or {})

    def symbol(name: str, upper: int) -> Any:
        if name not in syms:
            syms[name] = sympy.Symbol(name, integer=True, nonnegative=True)
        return syms[name]

    return fold(e, {**sympy_alu(), "const": sympy.Integer, "var": symbol}, lift=sympy.Integer)


def _names(var_or_vars: Any) -> Any:
    if isinstance(var_or_vars, (tuple, list)):
        return tuple(_names(v) for v in var_or_vars)
    return getattr(var_or_vars, "name", var_or_vars)


def _symbol_map(var_or_vars: Any) -> dict[str, Any]:
    if isinstance(var_or_vars, (tuple, list)):
        return {k: v for x in var_or_vars for k, v in _symbol_map(x).items()}
    if hasattr(var_or_vars, "name") and not isinstance(var_or_vars, str):
        return {var_or_vars.name: var_or_vars}
    return {}


def index_expr(layout: Layout | ComposedLayout, var_or_vars: Any = "i") -> Any:
    """SymPy closed form of ``layout`` at a flat index, or at one variable per top-level mode.

    Variables are SymPy symbols or names (each ranges over its mode: ``0 <= i < size``). Pre/Post as ``index_ast``.

    >>> str(index_expr(Layout((4, 2), (2, 1))))
    '2*(Mod(i, 4)) + floor(i/4)'
    """
    return to_sympy(index_ast(layout, _names(var_or_vars)), _symbol_map(var_or_vars))


def tv_coord_exprs(tv: Layout, tile_m: int, t: Any = "t", v: Any = "v") -> tuple[Any, Any]:
    """SymPy ``(row, col)`` of a TV layout over a tile with ``tile_m`` rows (see ``tv_coord_ast``)."""
    r, c = tv_coord_ast(tv, tile_m, _names(t), _names(v))
    syms = {**_symbol_map(t), **_symbol_map(v)}
    return to_sympy(r, syms), to_sympy(c, syms)
