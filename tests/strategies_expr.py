"""Hypothesis strategies for the expression IR (``layoutcheck.expr``), named after the precondition they guarantee."""

from __future__ import annotations

from hypothesis import strategies as st

from layoutcheck import ComposedLayout, Layout, Swizzle
from layoutcheck.algebra.inttuple import flatten, unflatten
from layoutcheck.expr.ir import Expr, add, band, const, div, mod, mul, shl, shr, var, xor
from tests.strategies import layouts


@st.composite
def swizzles(draw, max_bits: int = 3) -> Swizzle:
    """A valid ``Swizzle<B,M,S>``: ``|S| >= B`` (non-overlapping read and written bits), shifts of either sign."""
    b = draw(st.integers(0, max_bits))
    m = draw(st.integers(0, 4))
    s = draw(st.integers(max(b, 1), 4)) * draw(st.sampled_from([1, -1]))
    if s < 0 and m + s < 0:  # a left shift moves bits from below M; keep the written bits at or above 0
        m = -s
    return Swizzle(b, m, s)


@st.composite
def composed_layouts(draw) -> ComposedLayout:
    """``Sw o offset o L`` with a non-negative offset and strides (what C and the unsigned back ends take)."""
    return ComposedLayout(draw(swizzles()), draw(st.integers(0, 64)), draw(layouts()))


@st.composite
def signed_layouts(draw) -> Layout:
    """A layout with strides of either sign (the z3 engine's two's-complement case)."""
    lay = draw(layouts())
    signs = [draw(st.sampled_from([1, -1])) for _ in flatten(lay.stride)]
    strides = tuple(s * d for s, d in zip(signs, flatten(lay.stride), strict=True))
    return Layout(lay.shape, unflatten(strides, lay.shape))


VARS = (("a", 16), ("b", 8), ("c", 32))
"""The variables of ``nonneg_trees`` and their extents (exhaustive domain: 4096 points)."""


@st.composite
def nonneg_trees(draw, depth: int = 4) -> Expr:
    """A random non-negative tree over ``VARS`` built by the simplifying constructors (every op of the IR)."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()):
            return const(draw(st.integers(0, 40)))
        n, u = draw(st.sampled_from(VARS))
        return var(n, u)
    x = draw(nonneg_trees(depth - 1))
    k = draw(st.integers(1, 12))
    op = draw(st.sampled_from(["add", "mul", "div", "mod", "xor", "and", "shr", "shl"]))
    if op in ("add", "xor"):
        y = draw(nonneg_trees(depth - 1))
        return add(x, y) if op == "add" else xor(x, y)
    return {"mul": mul, "div": div, "mod": mod, "and": band, "shr": lambda e, k: shr(e, k % 4),
            "shl": lambda e, k: shl(e, k % 4)}[op](x, k)
