"""The exhaustive scans write marks and counts in memory order (issue #29); the answer is the index-order answer."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck import ComposedLayout, Layout, Swizzle
from layoutcheck.algebra.inttuple import flatten
from layoutcheck.properties.scan import counts, marks, memory_order
from tests.strategies import layouts


def _values(x: Layout | ComposedLayout) -> np.ndarray:
    lay = x.layout if isinstance(x, ComposedLayout) else x
    return np.array([x(i) for i in range(math.prod(flatten(lay.shape)))], dtype=np.int64)


@given(layouts(max_stride=16), st.booleans(), st.integers(0, 3), st.integers(-2, 2))
def test_marks_and_counts_equal_index_order(lay: Layout, swizzled: bool, trim: int, shift: int) -> None:
    if swizzled and min(flatten(lay.stride)) >= 0:
        x: Layout | ComposedLayout = ComposedLayout(Swizzle(1, 0, 2), 0, lay)
    else:
        x = lay
    vals = _values(x)
    lo, hi = int(vals.min()), int(vals.max())
    lo, n = lo + shift, max(1, hi - lo - shift + 1 - trim)
    seen, first_out = marks(x, lo, n)
    outside = np.flatnonzero((vals < lo) | (vals >= lo + n))
    assert first_out == (int(outside[0]) if outside.size else None)
    if first_out is None:
        assert np.array_equal(seen, (np.bincount(vals - lo, minlength=n) > 0).astype(np.uint8))
        assert np.array_equal(counts(x, lo, n, 2), np.minimum(np.bincount(vals - lo, minlength=n), 2))


def test_memory_order_sorts_modes_by_stride() -> None:
    assert memory_order(Layout(((2, 4), 8), ((64, 1), 8))) == Layout((4, 8, 2), (1, 8, 64))
    sw = ComposedLayout(Swizzle(3, 4, 3), 16, Layout((64, 64), (64, 1)))
    assert memory_order(sw) == ComposedLayout(Swizzle(3, 4, 3), 16, Layout((64, 64), (1, 64)))
