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
