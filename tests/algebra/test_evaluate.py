"""Whole-domain evaluation (``Layout.offsets``, ``evaluate_chunks``) and per-element ``L(i)`` against the definition.

Every fast path restates ``L(i) == crd2idx(idx2crd(i, shape), shape, stride)`` over the whole domain, on nested
layouts with zero and negative strides, and against pycute where it is installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutcheck import ComposedLayout, Layout, Swizzle
from layoutcheck.algebra.inttuple import crd2idx, flatten, idx2crd, product
from layoutcheck.algebra.layout import evaluate_chunks, offset_dtype
from layoutcheck.errors import LayoutError
from tests.strategies import layouts


def _definition(lay: Layout) -> list[int]:
    return [crd2idx(idx2crd(i, lay.shape), lay.shape, lay.stride) for i in range(product(lay.shape))]


@st.composite
def signed_layouts(draw) -> Layout:
    """Any layout, some strides negated (the image may reach below 0)."""
    lay = draw(layouts())
    signs = [draw(st.sampled_from([1, -1])) for _ in flatten(lay.stride)]
    from layoutcheck.algebra.inttuple import unflatten

    return Layout(lay.shape, unflatten(tuple(s * d for s, d in zip(signs, flatten(lay.stride), strict=True)),
                                       lay.stride))


@settings(max_examples=200, deadline=None)
@given(signed_layouts(), st.integers(1, 40))
def test_offsets_chunks_and_call_follow_the_definition(lay: Layout, chunk: int) -> None:
    ref = _definition(lay)
    assert lay.offsets().tolist() == ref
    assert lay.offsets(np.int64).tolist() == ref
    assert [lay(i) for i in range(len(ref))] == ref
    pieces = list((i, a.copy()) for i, a in evaluate_chunks(flatten(lay.shape), flatten(lay.stride), chunk))
    assert [i for i, _ in pieces] == list(np.cumsum([0] + [a.size for _, a in pieces[:-1]]))
    assert np.concatenate([a for _, a in pieces]).tolist() == ref


def test_offsets_dtype_is_int32_only_when_every_offset_fits() -> None:
    assert Layout((4, 8), (1, 4)).offsets().dtype == np.int32
    assert Layout(2, 1 << 31).offsets().dtype == np.int64
    assert Layout(2, -(1 << 31)).offsets().dtype == np.int32
    assert offset_dtype(0, (1 << 31) - 1) == np.int32 and offset_dtype(-(1 << 31) - 1, 0) == np.int64
    big = ComposedLayout(Swizzle(3, 28, 3), 0, Layout(8, 1))  # the swizzle masks reach bit 33: int64
    assert big.offsets().dtype == np.int64 and big.offsets().tolist() == [big(i) for i in range(8)]


def test_large_chunked_evaluation_streams_in_rows() -> None:
    lay = Layout((16, 100, 3, 64), (300, 3, 1, 4800))
    ref = lay.offsets()
    got = [(i, a.copy()) for i, a in evaluate_chunks(flatten(lay.shape), flatten(lay.stride), 1 << 12)]
    assert len(got) > 50 and max(a.size for _, a in got) <= 2 << 12
    assert np.array_equal(np.concatenate([a for _, a in got]), ref)


@pytest.mark.parametrize("bad", [(4, (0, 0)), (1, (2, 0)), 16, -1, (1,), True, np.int64(3)])
def test_call_still_rejects_bad_coordinates(bad: object) -> None:
    with pytest.raises(LayoutError):
        Layout((4, (2, 2)), (1, (4, 8)))(bad)


def test_call_agrees_with_pycute() -> None:
    pycute = pytest.importorskip("pycute")
    lay = Layout((4, (2, 3), 5), (15, (1, 60), 2))
    ref = pycute.Layout(lay.shape, lay.stride)
    assert [lay(i) for i in range(120)] == [ref(i) for i in range(120)]
    crds = [(a, (b, c), d) for a in range(4) for b in range(2) for c in range(3) for d in range(5)]
    assert [lay(c) for c in crds] == [ref(c) for c in crds]


@pytest.mark.slow
@pytest.mark.parametrize("lay", [Layout((4, 1 << 18), (1 << 18, 1)),  # a short fast run under a huge slow mode
                                 Layout((2, 3, 65537 * 2), (7, 1, -2)),  # widened by a factor of the slow mode
                                 Layout((3, 1 << 17), (0, 3)),  # a broadcast fast mode
                                 Layout((2, 65537), (1, 2)),  # prime slow mode: no factor to widen by
                                 Layout((16, 4, 8, 32), (1, 16, 64, 512)),  # one strided run: arange itself
                                 Layout(1 << 12, -3),
                                 Layout((16,) * 6, (1, 4096, 16, 65536, 256, 1048576)),  # 2^24: rows, threads
                                 Layout((5, 3, 7, 1 << 16), (1 << 20, 1, 5, -35)),  # large, rows cut mid-mode
                                 Layout((1 << 21, 3), (3, 1))])  # large, the row a factor of one huge mode
def test_offsets_fast_paths_follow_the_definition(lay: Layout) -> None:
    """The widening of a short run, the one-run arange and the outer sum of a cache-sized row (written by several
    threads when large) give the definition's offsets at every index."""
    n = product(lay.shape)
    i = np.arange(n)
    crd = np.stack(np.unravel_index(i, tuple(reversed(flatten(lay.shape)))))[::-1]  # colex coordinates
    ref = sum(c * d for c, d in zip(crd, flatten(lay.stride), strict=True))
    assert np.array_equal(lay.offsets(np.int64), ref)
    assert lay.offsets().tolist() == ref.tolist()
