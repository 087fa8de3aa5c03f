"""Closed forms (``layoutcheck.expr.ir``) against ``layout(c)`` over the whole domain."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck import ComposedLayout, Layout, Swizzle, make_layout_tv, size
from layoutcheck.errors import LayoutError
from layoutcheck.expr.ir import Div, Mod, var
from layoutcheck.expr.lower import index_ast, swizzle_ast, tv_coord_ast
from layoutcheck.expr.numpy import evaluate, offsets_of
from layoutcheck.expr.sympy import index_expr, to_sympy, tv_coord_exprs
from layoutcheck.hw.mma import all_mma_atoms
from layoutcheck.hw.smem import all_gmma_smem_atoms
from tests.strategies import layouts


def _modes(L: Layout) -> list[Layout]:
    return list(L) if isinstance(L.shape, tuple) else [L]


def _nodes(e):  # every node of the tree
    yield e
    for f in ("x", "a", "b"):
        if hasattr(e, f):
            yield from _nodes(getattr(e, f))
    for t in getattr(e, "terms", ()):
        yield from _nodes(t)


@given(layouts())
def test_flat_index_matches_layout_everywhere(L: Layout) -> None:
    e = index_ast(L, "i")
    assert np.array_equal(offsets_of(e, [("i", size(L))]), L.offsets())


@given(layouts())
def test_mode_coordinates_match_layout_everywhere(L: Layout) -> None:
    names = [f"c{j}" for j in range(len(_modes(L)))]
    e = index_ast(L, tuple(names))
    dom = [(n, size(m)) for n, m in zip(names, _modes(L), strict=True)]
    assert np.array_equal(offsets_of(e, dom), L.offsets())


@given(layouts(), st.sampled_from([Swizzle(1, 2, 3), Swizzle(2, 0, 2), Swizzle(3, 4, 3), Swizzle(2, 3, -3)]),
       st.integers(0, 64))
def test_swizzled_layout_matches_everywhere(L: Layout, sw: Swizzle, off: int) -> None:
    C = ComposedLayout(sw, off, L)
    assert np.array_equal(offsets_of(index_ast(C, "i"), [("i", size(L))]), C.offsets())


@given(layouts())
def test_last_mode_needs_no_modulus(L: Layout) -> None:
    """``i < size`` so the slowest mode's ``% s`` is dropped: no ``Mod`` whose argument could not exceed it."""
    for node in _nodes(index_ast(L, "i")):
        if isinstance(node, Mod):
            assert node.x.bound > node.k


def test_known_closed_forms() -> None:
    assert str(index_expr(Layout((4, 2), (2, 1)))) == "2*(Mod(i, 4)) + floor(i/4)"
    assert str(index_expr(Layout((4, (2, 2)), (1, (4, 8))))) == "i"
    assert str(index_expr(Layout((8, 8), (8, 1)), ("m", "k"))) == "k + 8*m"


def test_sympy_symbols_are_used() -> None:
    import sympy

    t = sympy.Symbol("t", integer=True, nonnegative=True)
    e = index_expr(Layout(32, 2), t)
    assert e == 2 * t


@pytest.mark.parametrize("atom", all_mma_atoms(), ids=lambda a: a.name)
def test_mma_tv_coordinates(atom) -> None:
    m, _, _ = atom.shape_mnk
    tv = atom.tv_layout_C
    r, c = tv_coord_ast(tv, m)
    T, V = size(tv[0]), size(tv[1])
    dom = [("t", T), ("v", V)]
    off = tv.offsets()
    assert np.array_equal(offsets_of(r, dom), off % m)
    assert np.array_equal(offsets_of(c, dom), off // m)


def test_sm80_16x8_row_splits_without_div_or_mod_of_the_sum() -> None:
    from layoutcheck.hw.mma import SM80_16x8_Row

    r, c = tv_coord_ast(SM80_16x8_Row, 16)
    for e in (r, c):
        for node in _nodes(e):
            if isinstance(node, (Div, Mod)):
                assert type(node.x).__name__ == "Var"


@given(st.sampled_from([(4, 8), (8, 4), (2, 16), (16, 2)]), st.sampled_from([(2, 2), (4, 1), (1, 4), (2, 4)]))
def test_make_layout_tv_coordinates(thr: tuple[int, int], val: tuple[int, int]) -> None:
    tiler, tv = make_layout_tv(Layout(thr), Layout(val))
    r, c = tv_coord_ast(tv, tiler[0])
    dom = [("t", size(tv[0])), ("v", size(tv[1]))]
    off = tv.offsets()
    assert np.array_equal(offsets_of(r, dom) + tiler[0] * offsets_of(c, dom), off)


@pytest.mark.parametrize("atom", all_gmma_smem_atoms(), ids=lambda a: a.name)
def test_gmma_smem_atoms(atom) -> None:
    C = atom.composed
    e = index_ast(C, ("r", "c"))
    dom = [("r", size(C.layout[0])), ("c", size(C.layout[1]))]
    assert np.array_equal(offsets_of(e, dom), C.offsets())


def test_sympy_form_evaluates_like_the_tree() -> None:
    import sympy

    C = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1)))
    e = index_ast(C, ("r", "c"))
    s = to_sympy(e)
    r, c = sympy.Symbol("r", integer=True, nonnegative=True), sympy.Symbol("c", integer=True, nonnegative=True)
    for rv, cv in [(0, 0), (1, 8), (3, 17), (7, 63), (5, 40)]:
        assert int(s.subs({r: rv, c: cv})) == C(rv, cv) == evaluate(e, {"r": rv, "c": cv})


def test_tv_coord_exprs_sympy() -> None:
    from layoutcheck.hw.mma import SM80_16x8_Row

    r, c = tv_coord_exprs(SM80_16x8_Row, 16)
    assert (str(r), str(c)) == ("floor(t/4) + 8*floor(v/2)", "2*(Mod(t, 4)) + Mod(v, 2)")


def test_errors() -> None:
    with pytest.raises(LayoutError, match="non-negative strides"):
        index_ast(Layout((4, 2), (-1, 4)))
    with pytest.raises(LayoutError, match="outside"):
        index_ast(Layout(8, 1), var("i", 9))
    with pytest.raises(LayoutError, match="rank 2"):
        tv_coord_ast(Layout((2, 2, 2)), 4)
    assert swizzle_ast(Swizzle(0, 4, 3), var("x", 8)) == var("x", 8)
