"""``scan.value_bounds`` (the range every scan sizes its marks by) bounds every value of a swizzled layout with an
offset, and never goes below 0 when no value can (killing the mutants of its arithmetic that the suite let live)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.properties.scan import value_bounds

shapes = st.lists(st.integers(1, 5), min_size=1, max_size=3)


@st.composite
def composed(draw: st.DrawFn) -> ComposedLayout:
    shape = draw(shapes)
    stride = [draw(st.integers(-9, 40)) for _ in shape]
    b, m = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    s = draw(st.integers(max(b, 1), 5))
    return ComposedLayout(Swizzle(b, m, s), draw(st.integers(0, 300)), Layout(tuple(shape), tuple(stride)))


def _values(x: ComposedLayout) -> list[int]:
    return [x.swizzle(x.offset + x.layout(i)) for i in range(size(x.layout))]


@given(composed())
def test_value_bounds_hold_every_value(x: ComposedLayout) -> None:
    lo, hi = value_bounds(x)
    assert all(lo <= v <= hi for v in _values(x))


@given(composed())
def test_value_bounds_stay_non_negative_when_every_value_is(x: ComposedLayout) -> None:
    plain_lo = min(x.offset + x.layout(i) for i in range(size(x.layout)))
    if plain_lo >= 0:  # a swizzle maps non-negative ints to non-negative ints
        assert value_bounds(x)[0] >= 0


def test_value_bounds_of_an_offset_swizzle() -> None:
    x = ComposedLayout(Swizzle(1, 0, 1), 4, Layout((2,), (1,)))  # values 4 ^ 0, 5 ^ 0 (bit 1 is 0): 4, 5
    lo, hi = value_bounds(x)
    assert lo <= 4 and hi >= 5 and lo >= 0


@given(st.sampled_from([64, 96, 128, 256, 384]))
def test_zip_chunks_walks_both_layouts_in_step(chunk: int) -> None:
    """Two layouts of one size, chunked in pieces of ``chunk`` indices (each layout cuts where its modes allow): the
    starts are consecutive from 0, the pieces are ``x(i)`` and ``y(i)`` at those indices, and together they cover
    ``[0, size)`` once."""
    from layoutcheck.properties.scan import zip_chunks

    x = Layout((64, 64), (64, 1))
    y = ComposedLayout(Swizzle(1, 0, 1), 3, Layout((8, 8, 64), (1, 8, 64)))
    xs, ys, seen = x.offsets().tolist(), [y.swizzle(y.offset + v) for v in y.layout.offsets().tolist()], 0
    for start, a, b in zip_chunks(x, y, chunk):
        assert start == seen and a.size == b.size > 0
        assert a.tolist() == xs[start:start + a.size] and b.tolist() == ys[start:start + b.size]
        seen += a.size
    assert seen == size(x) > chunk
