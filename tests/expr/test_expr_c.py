"""Generated C index expressions (``layoutcheck.expr.c``) read back and evaluated against ``layout(c)`` for every c.

Every kernel index is ``c_expr`` of a lowered layout (MMA TV coordinates: ``tests/unit/test_codegen.py``); here
each printed expression is parsed back into the IR (``parse_c``) and evaluated with C's 32-bit unsigned semantics
over the whole domain -- no compiler needed.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

from layoutcheck import ComposedLayout, Layout, size
from layoutcheck.errors import LayoutError, ParseError
from layoutcheck.expr.c import c_expr, eval_c, parse_c
from layoutcheck.expr.ir import variables
from layoutcheck.expr.lower import index_ast
from layoutcheck.expr.numpy import evaluate, offsets_of
from layoutcheck.hw.smem import all_gmma_smem_atoms
from tests.strategies import layouts
from tests.strategies_expr import composed_layouts, nonneg_trees


def _all_points(x: Layout | ComposedLayout) -> np.ndarray:
    return np.arange(size(x.layout if isinstance(x, ComposedLayout) else x))


@given(layouts())
def test_printed_layout_reads_back_equal_everywhere(L: Layout) -> None:
    text = c_expr(index_ast(L, "i"))
    i = _all_points(L)
    assert np.array_equal(np.broadcast_to(eval_c(text, {"i": i}), i.shape).astype(np.int64), L.offsets())


@given(composed_layouts())
def test_printed_swizzled_layout_reads_back_equal_everywhere(C: ComposedLayout) -> None:
    text = c_expr(index_ast(C, "i"))
    i = _all_points(C)
    assert np.array_equal(np.broadcast_to(eval_c(text, {"i": i}), i.shape).astype(np.int64), C.offsets())


@given(nonneg_trees())
def test_print_parse_round_trip_keeps_the_value(e) -> None:
    names = variables(e)
    dom = list(names.items())
    back = parse_c(c_expr(e))
    assert np.array_equal(offsets_of(back, dom), offsets_of(e, dom))


def test_every_gmma_atom_prints_exactly() -> None:
    for atom in all_gmma_smem_atoms():
        for x in (atom.layout, ComposedLayout(atom.element_swizzle, 0, atom.layout)):
            i = _all_points(x)
            assert np.array_equal(eval_c(c_expr(index_ast(x, "i")), {"i": i}).astype(np.int64), x.offsets())


def test_c_semantics_and_refusals() -> None:
    assert int(eval_c("4294967295u + 2u", {})) == 1  # unsigned wrap-around at every operation
    assert int(eval_c("(0u - 1u) >> 28u", {})) == 15
    assert int(eval_c("7u / 2u % 3u", {})) == 0
    with pytest.raises(ParseError):
        parse_c("i // 2u")  # not C
    with pytest.raises(LayoutError, match="negative"):
        c_expr(index_ast(Layout(4, -1), "i", signed=True))
    assert evaluate(parse_c("(i & 3u) * 2u"), {"i": 7}) == 6
