"""The interpreters of the expression IR agree: NumPy, Z3, SymPy and C give every tree the same value.

Reference: ``_ref``, a direct structural recursion over the node classes written here (independent of ``fold`` and
of every interpreter's table). Domains are small enough to be exhaustive: every point for NumPy and C, every point
of a layout of size <= 64 for Z3 and SymPy (term substituted and simplified to a number).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutcheck import ComposedLayout, Layout, Swizzle, size
from layoutcheck.expr.c import c_expr, eval_c
from layoutcheck.expr.ir import And, Const, Div, Expr, Mod, Mul, Op, Shl, Shr, Sum, Var, Xor, fold, nodes, variables
from layoutcheck.expr.lower import index_ast, swizzle_ast
from layoutcheck.expr.numpy import evaluate, offsets_of
from layoutcheck.expr.sympy import to_sympy
from layoutcheck.expr.z3 import to_z3
from tests.strategies import layouts
from tests.strategies_expr import VARS, composed_layouts, nonneg_trees, signed_layouts, swizzles


def _ref(e: Expr, env: dict[str, int]) -> int:
    match e:
        case Const(value=v):
            return v
        case Var(name=n):
            return env[n]
        case Sum(terms=ts):
            return sum(_ref(t, env) for t in ts)
        case Mul(x=x, k=k):
            return _ref(x, env) * k
        case Div(x=x, k=k):
            return _ref(x, env) // k
        case Mod(x=x, k=k):
            return _ref(x, env) % k
        case Xor(a=a, b=b):
            return _ref(a, env) ^ _ref(b, env)
        case And(x=x, mask=m):
            return _ref(x, env) & m
        case Shr(x=x, k=k):
            return _ref(x, env) >> k
        case Shl(x=x, k=k):
            return _ref(x, env) << k
        case Op(name="sub", srcs=(a, b)):
            return _ref(a, env) - _ref(b, env)
        case Op(name="mul", srcs=(a, b)):
            return _ref(a, env) * _ref(b, env)
    raise AssertionError(f"no reference for {e!r}")


def _grid(names: dict[str, int]) -> dict[str, np.ndarray]:
    axes = np.meshgrid(*(np.arange(u) for u in names.values()), indexing="ij")
    return {n: a.ravel() for n, a in zip(names, axes, strict=True)}


def _width(e: Expr) -> int:
    """Bits for every sub-tree's value (all ``nonneg``), plus a sign bit and a margin."""
    return max(n.bound for n in nodes(e)).bit_length() + 2


def _z3_values(e: Expr, points: list[dict[str, int]], width: int) -> list[int]:
    import z3

    env = {n: z3.BitVec(n, width) for n in variables(e)}
    term = to_z3(e, env, width)
    out = []
    for p in points:
        v = z3.simplify(z3.substitute(term, *((env[n], z3.BitVecVal(p[n], width)) for n in env)))
        out.append(v.as_signed_long())
    return out


# -- random trees: every operation, exhaustively over VARS (4096 points) ---------------------------------------
@given(nonneg_trees())
def test_numpy_and_c_agree_with_the_reference_everywhere(e: Expr) -> None:
    names = variables(e)
    env = _grid(names)
    ref = np.array([_ref(e, {n: int(env[n][i]) for n in names}) for i in range(len(next(iter(env.values()), [0])))])
    got = np.broadcast_to(np.asarray(evaluate(e, env), dtype=np.int64), ref.shape)
    assert np.array_equal(got, ref)
    assert (ref >= 0).all() and (ref < e.bound).all()  # the bound is an exclusive upper bound
    if e.bound <= 1 << 32:
        assert np.array_equal(np.broadcast_to(eval_c(c_expr(e), env).astype(np.int64), ref.shape), ref)


@settings(max_examples=40)
@given(nonneg_trees(depth=3), st.lists(st.tuples(*(st.integers(0, u - 1) for _, u in VARS)), min_size=1,
                                       max_size=6))
def test_z3_and_sympy_agree_with_the_reference(e: Expr, pts: list[tuple[int, ...]]) -> None:
    points = [dict(zip([n for n, _ in VARS], p, strict=True)) for p in pts]
    ref = [_ref(e, p) for p in points]
    assert _z3_values(e, points, _width(e)) == ref
    sym = to_sympy(e)
    assert [int(sym.subs({s: p[s.name] for s in sym.free_symbols})) for p in points] == ref


# -- layouts and swizzles: every index -------------------------------------------------------------------------
def _small(x: Layout | ComposedLayout) -> bool:
    return size(x.layout if isinstance(x, ComposedLayout) else x) <= 64


@settings(max_examples=60)
@given(st.one_of(layouts(), composed_layouts()))
def test_all_interpreters_agree_on_layouts(x: Layout | ComposedLayout) -> None:
    n = size(x.layout if isinstance(x, ComposedLayout) else x)
    e = index_ast(x, "i")
    want = x.offsets()
    assert np.array_equal(offsets_of(e, [("i", n)]), want)
    assert np.array_equal(np.broadcast_to(eval_c(c_expr(e), {"i": np.arange(n)}).astype(np.int64), (n,)), want)
    if _small(x):
        pts = [{"i": i} for i in range(n)]
        assert _z3_values(e, pts, _width(e)) == want.tolist()
        sym = to_sympy(e)
        assert [int(sym.subs({s: i for s in sym.free_symbols})) for i in range(n)] == want.tolist()


@settings(max_examples=60)
@given(signed_layouts())
def test_z3_takes_negative_strides_in_twos_complement(L: Layout) -> None:
    e = index_ast(L, "i", signed=True)
    n = size(L)
    assert np.array_equal(offsets_of(e, [("i", n)]), L.offsets())
    if n <= 64:
        width = (sum((s - 1) * abs(d) for s, d in zip(_leaves(L.shape), _leaves(L.stride), strict=True))
                 + n).bit_length() + 2
        assert _z3_values(e, [{"i": i} for i in range(n)], width) == L.offsets().tolist()


def _leaves(t: object) -> list[int]:
    return [t] if isinstance(t, int) else [x for s in t for x in _leaves(s)]  # type: ignore[union-attr]


def test_swizzle_tree_equals_swizzle_on_every_value() -> None:
    """Exhaustive: every Swizzle<B,M,S> with B <= 3, M <= 4, |S| <= 4, on two periods of values."""
    for b, m, s in itertools.product(range(4), range(5), range(-4, 5)):
        if abs(s) < b or (s < 0 and m + s < 0):
            continue
        sw = Swizzle(b, m, s)
        n = 2 * sw.period
        x = np.arange(n, dtype=np.int64)
        tree = swizzle_ast(sw, Var("x", n))
        assert np.array_equal(evaluate(tree, {"x": x}), sw(x)), sw
        assert [sw(int(v)) for v in x] == sw(x).tolist()
        if n <= 1 << 12:
            assert np.array_equal(eval_c(c_expr(tree), {"x": x}).astype(np.int64), sw(x)), sw


@given(swizzles(), st.integers(0, 1 << 12))
def test_swizzle_lowering_is_an_involution(sw: Swizzle, x: int) -> None:
    tree = swizzle_ast(sw, swizzle_ast(sw, Var("x", 1 << 13)))
    assert evaluate(tree, {"x": x}) == x


def test_fold_shares_common_subtrees_and_names_unknown_operations() -> None:
    from layoutcheck.errors import LayoutError

    calls: list[str] = []
    memo: dict = {}
    alu = {"var": lambda n, u: calls.append(n) or 1, "const": lambda v: v, "add": lambda *t: sum(t),
           "mul": lambda a, b: a * b}
    x = Var("x", 4) * 3
    assert fold(x + 1, alu, memo=memo) == 4 and fold(x + 2, alu, memo=memo) == 5 and calls == ["x"]
    with pytest.raises(LayoutError, match="no meaning"):
        fold(Var("x", 4) // 2, alu)


def test_sympy_bit_field_of_a_mod_is_not_rewritten_wrongly() -> None:
    """``(a & 12) % 3`` at ``a = 8`` is 2; SymPy 1.14 turns ``Mod(4*Mod(floor(a/4), 4), 3)`` into
    ``Mod(Mod(floor(a/4), 4)**2, 3)`` (1 at ``a = 8``), so the interpreter never builds that form."""
    from layoutcheck.expr.ir import var

    a = var("a", 16)
    e = (a & 12) % 3
    sym = to_sympy(e)
    assert [int(sym.subs({s: v for s in sym.free_symbols})) for v in range(16)] == [(v & 12) % 3 for v in range(16)]


def test_sympy_keeps_a_mod_of_a_scaled_mod_unevaluated() -> None:
    # Sw<1,0,1> o (3,2):(3,0): SymPy 1.14 rewrites Mod(3*Mod(i, 3), 4) to Mod(3*Mod(i, 3)**2, 4) (6 instead of 7 at
    # i = 2); the interpreter leaves such a Mod unevaluated and numbers evaluate it exactly
    from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle

    x = ComposedLayout(Swizzle(1, 0, 1), 0, Layout((3, 2), (3, 0)))
    sym = to_sympy(index_ast(x, "i"))
    assert [int(sym.subs({s: i for s in sym.free_symbols})) for i in range(6)] == x.offsets().tolist()
