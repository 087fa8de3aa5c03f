"""``layoutcheck.importers.fit``: the layout it returns has the table it was given, at every point (Hypothesis-
generated CuTe layouts, plain and swizzled); TileLang printouts written back by ``printout`` read back the same."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.linear_layout import LinearLayout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.errors import LayoutError
from layoutcheck.importers.fit import fit
from tests.strategies import compact_layouts, layouts
from tests.strategies_expr import swizzles


def table_of(x) -> np.ndarray:
    return np.asarray(x.offsets(), dtype=np.int64)


def top_modes(lay: Layout) -> list[tuple[str, int]]:
    shape = lay.shape if isinstance(lay.shape, tuple) else (lay.shape,)
    return [(f"m{k}", size(s)) for k, s in enumerate(shape)]


def outs_for(offs: np.ndarray) -> list[tuple[str, int]]:
    return [("offset", 1 << max(int(offs.max()), 1).bit_length())]


@given(layouts())
def test_fit_reproduces_any_layout(lay):
    """A plain CuTe layout (any nesting, strides >= 0, zero strides included) is always recovered: same table."""
    offs = table_of(lay)
    got = fit(offs, top_modes(lay), outs_for(offs))
    assert np.array_equal(table_of(got), offs)
    assert not isinstance(got, LinearLayout) or all(n & (n - 1) == 0 for _, n in top_modes(lay))


@given(compact_layouts(pow2=True), swizzles())
def test_fit_reproduces_swizzled_power_of_two_layouts(lay, sw):
    """``Sw o 0 o L`` on a power-of-two domain is GF(2)-linear: always recovered (a CuTe form or the linear layout)."""
    x = ComposedLayout(sw, 0, lay)
    offs = table_of(x)
    if offs.min() < 0:
        return  # a left-shifting swizzle can leave the codomain's bits: not a table of offsets >= 0
    got = fit(offs, top_modes(lay), outs_for(offs))
    assert np.array_equal(table_of(got), offs)


@given(st.sampled_from([3, 5, 6, 12]), st.integers(1, 3), st.integers(2, 4))
def test_fit_finds_swizzles_over_other_domains(rows, b, m):
    """Rows that are not a power of two over a ``Sw<B,M,3>``-swizzled row-major tile: found by the swizzle search."""
    cols = 1 << (m + b + 1)
    x = ComposedLayout(Swizzle(b, m, 3), 0,
                       Layout((8 * rows, cols), (cols, 1)))
    offs = table_of(x)
    got = fit(offs, [("r", 8 * rows), ("c", cols)], [("offset", int(offs.max()) + 1)])
    assert np.array_equal(table_of(got), offs)


def test_fit_refuses_what_it_cannot_represent():
    with pytest.raises(LayoutError, match="no CuTe layout"):
        fit(np.array([0, 2, 1]), [("a", 3)], [("offset", 3)])
    with pytest.raises(LayoutError, match="no CuTe layout"):
        fit(np.array([1, 2, 3]), [("a", 3)], [("offset", 4)])  # f(0) != 0: no layout without an offset
