"""Closed-form index expressions of layouts: one small expression tree that prints to SymPy and to C.

A flat layout ``(s_0,...,s_k):(d_0,...,d_k)`` with exclusive prefix products ``p_j`` maps an index ``i`` to::

    L(i) = sum_j ((i // p_j) % s_j) * d_j

``index_ast(L, x)`` builds that sum for an expression ``x`` (a variable, or any expression with a known bound),
after ``coalesce`` (same function, fewer modes), and simplifies it with the bound of every sub-expression:

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

A ``Swizzle<B,M,S>`` is ``x ^ ((x & yyy) >> S)`` on the tree (``Xor``, ``And``, ``Shr``/``Shl``); ``to_sympy`` turns
``>>``/``<<`` and contiguous masks into ``floor``/``Mod`` and keeps XOR as the SymPy function ``BitXor``.

Every node carries ``bound``: its value lies in ``[0, bound)``. Strides must be non-negative (the C side uses
unsigned integers); a negative stride is a ``LayoutError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from typing import Any

import numpy as np

from layoutcheck.algebra.inttuple import flatten, is_tuple, prefix_product
from layoutcheck.algebra.layout import Layout, flat_modes, size
from layoutcheck.algebra.ops import coalesce
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.errors import LayoutError


# -- the expression tree --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Expr:
    """Base of the expression nodes; ``bound`` is an exclusive upper bound of the (non-negative) value."""

    @property
    def bound(self) -> int:  # pragma: no cover - every node overrides
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Const(Expr):
    value: int

    @property
    def bound(self) -> int:
        return self.value + 1


@dataclass(frozen=True, slots=True)
class Var(Expr):
    """A variable ``0 <= name < upper``."""

    name: str
    upper: int

    @property
    def bound(self) -> int:
        return self.upper


@dataclass(frozen=True, slots=True)
class Sum(Expr):
    terms: tuple[Expr, ...]

    @property
    def bound(self) -> int:
        return sum(t.bound - 1 for t in self.terms) + 1


@dataclass(frozen=True, slots=True)
class Mul(Expr):
    x: Expr
    k: int

    @property
    def bound(self) -> int:
        return (self.x.bound - 1) * self.k + 1


@dataclass(frozen=True, slots=True)
class Div(Expr):
    """Floor division by a positive constant."""

    x: Expr
    k: int

    @property
    def bound(self) -> int:
        return (self.x.bound - 1) // self.k + 1


@dataclass(frozen=True, slots=True)
class Mod(Expr):
    x: Expr
    k: int

    @property
    def bound(self) -> int:
        return min(self.x.bound, self.k)


@dataclass(frozen=True, slots=True)
class Xor(Expr):
    a: Expr
    b: Expr

    @property
    def bound(self) -> int:
        return 1 << (max(self.a.bound, self.b.bound) - 1).bit_length()


@dataclass(frozen=True, slots=True)
class And(Expr):
    x: Expr
    mask: int

    @property
    def bound(self) -> int:
        return min(self.x.bound, self.mask + 1)


@dataclass(frozen=True, slots=True)
class Shr(Expr):
    x: Expr
    k: int

    @property
    def bound(self) -> int:
        return ((self.x.bound - 1) >> self.k) + 1


@dataclass(frozen=True, slots=True)
class Shl(Expr):
    x: Expr
    k: int

    @property
    def bound(self) -> int:
        return ((self.x.bound - 1) << self.k) + 1


# -- simplifying constructors ------------------------------------------------------------------------------------------
def const(v: int) -> Const:
    if v < 0:
        raise LayoutError(f"closed forms take non-negative values only, found constant {v}")
    return Const(v)


def var(name: str, upper: int) -> Var:
    """``0 <= name < upper``.

    >>> var("t", 32).bound
    32
    """
    if upper < 1:
        raise LayoutError(f"variable {name} needs a positive upper bound, found {upper}")
    return Var(name, upper)


def add(*xs: Expr) -> Expr:
    """Flattened sum; constants folded, zeros dropped."""
    terms: list[Expr] = []
    c = 0
    for x in xs:
        for t in (x.terms if isinstance(x, Sum) else (x,)):
            if isinstance(t, Const):
                c += t.value
            else:
                terms.append(t)
    if c:
        terms.append(Const(c))
    if not terms:
        return Const(0)
    return terms[0] if len(terms) == 1 else Sum(tuple(terms))


def mul(x: Expr, k: int) -> Expr:
    if k < 0:
        raise LayoutError(f"closed forms take non-negative strides only, found stride {k}")
    if k == 0 or x == Const(0):
        return Const(0)
    if k == 1:
        return x
    if isinstance(x, Const):
        return Const(x.value * k)
    if isinstance(x, Mul):
        return mul(x.x, x.k * k)
    if isinstance(x, Sum):
        return add(*(mul(t, k) for t in x.terms))
    return Mul(x, k)


def _hi_lo(t: Expr, k: int) -> tuple[Expr, Expr]:
    """``t == k*hi + lo`` with ``lo`` as small as the term's structure allows."""
    if isinstance(t, Const):
        return Const(t.value // k), Const(t.value % k)
    x, a = (t.x, t.k) if isinstance(t, Mul) else (t, 1)
    if a % k == 0:
        return mul(x, a // k), Const(0)
    if k % a == 0:
        return div(x, k // a), mul(mod(x, k // a), a)
    return Const(0), t


def _split(x: Expr, k: int) -> tuple[Expr, Expr] | None:
    """``x == k*hi + lo`` with ``lo < k`` (so ``x // k == hi`` and ``x % k == lo``), or None."""
    parts = [_hi_lo(t, k) for t in (x.terms if isinstance(x, Sum) else (x,))]
    lo = add(*(p[1] for p in parts))
    if lo.bound > k:
        return None
    return add(*(p[0] for p in parts)), lo


def div(x: Expr, k: int) -> Expr:
    """``x // k`` (floor), simplified with bounds and multiples.

    >>> div(mul(var("i", 4), 8), 4)
    Mul(x=Var(name='i', upper=4), k=2)
    """
    if k <= 0:
        raise LayoutError(f"division by non-positive constant {k}")
    if k == 1:
        return x
    if x.bound <= k:
        return Const(0)
    if isinstance(x, Const):
        return Const(x.value // k)
    if isinstance(x, Div):
        return div(x.x, x.k * k)
    if isinstance(x, Mul):
        if x.k % k == 0:
            return mul(x.x, x.k // k)
        if k % x.k == 0:
            return div(x.x, k // x.k)
    if isinstance(x, Mod) and x.k % k == 0:  # (y % (k*b)) // k == (y // k) % b
        return mod(div(x.x, k), x.k // k)
    if isinstance(x, Sum) and (hl := _split(x, k)) is not None:
        return hl[0]
    return Div(x, k)


def mod(x: Expr, k: int) -> Expr:
    """``x % k``, simplified with bounds and multiples.

    >>> mod(add(mul(var("i", 4), 8), var("j", 8)), 8)
    Var(name='j', upper=8)
    """
    if k <= 0:
        raise LayoutError(f"modulus by non-positive constant {k}")
    if k == 1:
        return Const(0)
    if x.bound <= k:
        return x
    if isinstance(x, Const):
        return Const(x.value % k)
    if isinstance(x, Mod) and x.k % k == 0:
        return mod(x.x, k)
    if isinstance(x, Mul):
        if x.k % k == 0:
            return Const(0)
        if k % x.k == 0:  # (y*a) % (a*b) == (y % b) * a
            return mul(mod(x.x, k // x.k), x.k)
    if isinstance(x, Sum):
        if (hl := _split(x, k)) is not None:
            return hl[1]
        kept = [t for t in x.terms if not (isinstance(t, (Mul, Const)) and _hi_lo(t, k)[1] == Const(0))]
        if len(kept) < len(x.terms):
            return mod(add(*kept), k)
    return Mod(x, k)


def xor(a: Expr, b: Expr) -> Expr:
    if a == Const(0):
        return b
    if b == Const(0):
        return a
    if isinstance(a, Const) and isinstance(b, Const):
        return Const(a.value ^ b.value)
    return Xor(a, b)


def band(x: Expr, mask: int) -> Expr:
    """``x & mask``; a low contiguous mask is ``x % 2**b``."""
    if mask < 0:
        raise LayoutError(f"bit mask must be non-negative, found {mask}")
    if mask == 0:
        return Const(0)
    if isinstance(x, Const):
        return Const(x.value & mask)
    if mask & (mask + 1) == 0:
        return mod(x, mask + 1)
    if x.bound <= (mask & -mask):  # every bit of x is below the mask
        return Const(0)
    return And(x, mask)


def shr(x: Expr, k: int) -> Expr:
    return div(x, 1 << k) if k >= 0 else shl(x, -k)


def shl(x: Expr, k: int) -> Expr:
    return mul(x, 1 << k) if k >= 0 else shr(x, -k)


# -- layouts -> expressions ------------------------------------------------------------------------------------------
def _flat_index_ast(layout: Layout, x: Expr) -> Expr:
    n = size(layout)
    if x.bound > n:
        raise LayoutError(f"index expression may reach {x.bound - 1}, outside [0,{n}) of {layout}")
    modes = [(s, d) for s, d in flat_modes(coalesce(layout)) if s != 1]
    for _, d in modes:
        if d < 0:
            raise LayoutError(f"closed forms need non-negative strides; {layout} has stride {d}")
    prefixes = flatten(prefix_product(tuple(s for s, _ in modes))) if modes else ()
    return add(*(mul(mod(div(x, p), s), d) for (s, d), p in zip(modes, prefixes, strict=True)))


def _as_expr(v: Any, upper: int) -> Expr:
    if isinstance(v, Expr):
        return v
    if isinstance(v, int):
        return const(v)
    return var(str(v), upper)


def index_ast(layout: Layout | ComposedLayout, x: Any = "i") -> Expr:
    """The expression tree of ``layout`` at ``x``: a flat index (name, ``Expr`` or int) or one per top-level mode.

    Pre: strides non-negative; ``x``'s bound <= the size of its mode. Post: ``evaluate(index_ast(L, x), env) ==
    L(env[x])`` for every value of the variables in range.

    >>> index_ast(Layout((4, 2), (2, 1)), "i") == add(mul(mod(var("i", 8), 4), 2), div(var("i", 8), 4))
    True
    """
    if isinstance(layout, ComposedLayout):
        return swizzle_ast(layout.swizzle, add(const(layout.offset), index_ast(layout.layout, x)))
    if isinstance(x, (tuple, list)):
        modes = list(layout) if is_tuple(layout.shape) else [layout]
        if len(x) != len(modes):
            raise LayoutError(f"{len(x)} coordinate variables for rank-{len(modes)} layout {layout}")
        return add(*(index_ast(m, xi) for m, xi in zip(modes, x, strict=True)))
    return _flat_index_ast(layout, _as_expr(x, size(layout)))


def swizzle_ast(sw: Swizzle, x: Expr) -> Expr:
    """``Swizzle<B,M,S>`` applied to ``x``: ``x ^ ((x & yyy) >> S)``.

    >>> swizzle_ast(Swizzle(0, 4, 3), var("x", 64))
    Var(name='x', upper=64)
    """
    if sw.bits == 0:
        return x
    return xor(x, shr(band(x, sw.yyy_mask), sw.shift))


def tv_coord_ast(tv: Layout, tile_m: int, t: Any = "t", v: Any = "v") -> tuple[Expr, Expr]:
    """``(row, col)`` of a rank-2 TV layout whose image is the colex index ``m + tile_m*n`` of a tile.

    Pre: ``rank(tv) == 2``. Post: ``row + tile_m*col == tv(t, v)`` and ``row < tile_m``.

    >>> from layoutcheck.hw.mma import SM80_16x8_Row
    >>> r, c = tv_coord_ast(SM80_16x8_Row, 16)
    >>> str(to_sympy(r)), str(to_sympy(c))
    ('floor(t/4) + 8*floor(v/2)', '2*(Mod(t, 4)) + Mod(v, 2)')
    """
    if len(tv) != 2:
        raise LayoutError(f"a TV layout has rank 2 (thread, value); {tv} has rank {len(tv)}")
    off = index_ast(tv, (t, v))
    return mod(off, tile_m), div(off, tile_m)


# -- evaluation ------------------------------------------------------------------------------------------------------
def evaluate(e: Expr, env: Mapping[str, Any]) -> Any:
    """Value of ``e`` with ``env`` giving each variable (ints or NumPy integer arrays, broadcast together).

    >>> evaluate(index_ast(Layout((4, 2), (2, 1))), {"i": np.arange(8)}).tolist()
    [0, 2, 4, 6, 1, 3, 5, 7]
    """
    match e:
        case Const(value=v):
            return v
        case Var(name=n):
            return env[n]
        case Sum(terms=ts):
            return reduce(lambda a, b: a + b, (evaluate(t, env) for t in ts))
        case Mul(x=x, k=k):
            return evaluate(x, env) * k
        case Div(x=x, k=k):
            return evaluate(x, env) // k
        case Mod(x=x, k=k):
            return evaluate(x, env) % k
        case Xor(a=a, b=b):
            return evaluate(a, env) ^ evaluate(b, env)
        case And(x=x, mask=m):
            return evaluate(x, env) & m
        case Shr(x=x, k=k):
            return evaluate(x, env) >> k
        case Shl(x=x, k=k):
            return evaluate(x, env) << k
    raise TypeError(f"not an expression node: {e!r}")


def variables(e: Expr) -> dict[str, int]:
    """Every variable of ``e`` with its upper bound."""
    match e:
        case Var(name=n, upper=u):
            return {n: u}
        case Sum(terms=ts):
            return {k: v for t in ts for k, v in variables(t).items()}
        case Xor(a=a, b=b):
            return {**variables(a), **variables(b)}
        case Mul(x=x) | Div(x=x) | Mod(x=x) | And(x=x) | Shr(x=x) | Shl(x=x):
            return variables(x)
    return {}


# -- SymPy -------------------------------------------------------------------------------------------------------------
def _sympy_funcs() -> Any:
    import sympy

    class BitXor(sympy.Function):
        """Bitwise XOR of two non-negative integers (evaluates when both are numbers)."""

        is_integer = True
        is_nonnegative = True

        @classmethod
        def eval(cls, a: Any, b: Any) -> Any:
            if a.is_Integer and b.is_Integer:
                return sympy.Integer(int(a) ^ int(b))
            if a == 0:
                return b
            if b == 0:
                return a
            return None

    class BitAnd(sympy.Function):
        """Bitwise AND of a non-negative integer with a constant mask."""

        is_integer = True
        is_nonnegative = True

        @classmethod
        def eval(cls, a: Any, b: Any) -> Any:
            if a.is_Integer and b.is_Integer:
                return sympy.Integer(int(a) & int(b))
            return None

    return BitXor, BitAnd


_FUNCS: list[Any] = []


def sympy_functions() -> tuple[Any, Any]:
    """The SymPy functions ``(BitXor, BitAnd)`` used by ``to_sympy`` (created once, on first use)."""
    if not _FUNCS:
        _FUNCS.extend(_sympy_funcs())
    return _FUNCS[0], _FUNCS[1]


def to_sympy(e: Expr, symbols: Mapping[str, Any] | None = None) -> Any:
    """The SymPy form of ``e``: ``floor``/``Mod`` for division, ``BitXor``/``BitAnd`` for bit operations.

    Variables become ``Symbol(name, integer=True, nonnegative=True)`` unless ``symbols`` maps their names.
    """
    import sympy

    bitxor, bitand = sympy_functions()
    symbols = dict(symbols or {})

    def go(x: Expr) -> Any:
        match x:
            case Const(value=v):
                return sympy.Integer(v)
            case Var(name=n):
                if n not in symbols:
                    symbols[n] = sympy.Symbol(n, integer=True, nonnegative=True)
                return symbols[n]
            case Sum(terms=ts):
                return sympy.Add(*(go(t) for t in ts))
            case Mul(x=y, k=k):
                return go(y) * k
            case Div(x=y, k=k):
                return sympy.floor(go(y) / k)
            case Shr(x=y, k=k):
                return sympy.floor(go(y) / (1 << k))
            case Mod(x=y, k=k):
                return sympy.Mod(go(y), k)
            case Xor(a=a, b=b):
                return bitxor(go(a), go(b))
            case And(x=y, mask=m):
                low = m & -m
                if ((m // low) & (m // low + 1)) == 0:  # contiguous mask: a bit field
                    return sympy.Mod(sympy.floor(go(y) / low), m // low + 1) * low
                return bitand(go(y), m)
            case Shl(x=y, k=k):
                return go(y) * (1 << k)
        raise TypeError(f"not an expression node: {x!r}")

    return go(e)


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


def offsets_of(e: Expr, domain: Sequence[tuple[str, int]]) -> np.ndarray:
    """``e`` at every point of ``domain`` (``(name, upper)`` pairs, the first fastest: colex), as int64.

    >>> offsets_of(index_ast(Layout((4, 2), (2, 1)), ("a", "b")), [("a", 4), ("b", 2)]).tolist()
    [0, 2, 4, 6, 1, 3, 5, 7]
    """
    axes = [np.arange(u, dtype=np.int64) for _, u in domain]
    grids = np.meshgrid(*axes, indexing="ij") if axes else []
    env = {n: g for (n, _), g in zip(domain, grids, strict=True)}
    shape = tuple(u for _, u in domain)
    vals = np.broadcast_to(np.asarray(evaluate(e, env), dtype=np.int64), shape)
    return vals.transpose().reshape(-1)
