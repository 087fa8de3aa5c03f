"""``shared_offsets``: the offsets of a layout, read-only, evaluated once per (subject, dtype) up to
``SHARED_OFFSETS_MAX`` points (the models of one config read the same layout's offsets many times)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import SHARED_OFFSETS_MAX, ComposedLayout, Swizzle, shared_offsets
from tests.strategies import layouts


@given(layouts(), st.sampled_from([None, np.int64]))
def test_shared_offsets_are_the_offsets(lay, dtype):
    got = shared_offsets(lay, dtype)
    want = lay.offsets(dtype)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert not got.flags.writeable


@pytest.mark.parametrize("sw", [Swizzle(3, 3, 3), Swizzle(2, 4, 3), Swizzle(0, 0, 0)])
def test_swizzled_offsets_and_one_evaluation_per_subject(sw):
    lay = ComposedLayout(sw, 8, Layout((64, 64), (64, 1)))
    got = shared_offsets(lay, np.int64)
    assert np.array_equal(got, [lay(i) for i in range(64 * 64)])
    assert shared_offsets(ComposedLayout(sw, 8, Layout((64, 64), (64, 1))), np.int64) is got  # equal subject: kept
    assert shared_offsets(lay) is not got  # another dtype is another array
    with pytest.raises(ValueError):
        got[0] = 1  # callers may not write into what the next caller reads


def test_a_large_subject_is_not_kept():
    lay = Layout(SHARED_OFFSETS_MAX * 2)
    a, b = shared_offsets(lay), shared_offsets(lay)
    assert a is not b and not a.flags.writeable and np.array_equal(a, np.arange(SHARED_OFFSETS_MAX * 2))
