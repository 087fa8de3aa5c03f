"""Layout value, evaluation, notation round trip and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

from layoutcheck import (
    ComposedLayout,
    Layout,
    LayoutError,
    ParseError,
    Swizzle,
    cosize,
    depth,
    make_layout,
    parse_layout,
    rank,
    size,
)
from layoutcheck.algebra.inttuple import crd2idx, idx2crd
from tests.strategies import layouts


def test_default_stride_is_column_major() -> None:
    assert Layout((4, (2, 3))).stride == (1, (4, 8))
    assert str(make_layout((4, 2))) == "(4,2):(1,4)"


def test_colexicographic_evaluation() -> None:
    L = Layout((4, 2), (2, 1))
    assert [L(i) for i in range(8)] == [0, 2, 4, 6, 1, 3, 5, 7]
    assert L(1, 1) == 3 and L((3, 1)) == 7
    assert list(L.offsets()) == [0, 2, 4, 6, 1, 3, 5, 7]


def test_hierarchical_coordinates() -> None:
    L = Layout((4, (2, 2)), (1, (4, 8)))
    assert (size(L), cosize(L), rank(L), depth(L)) == (16, 16, 2, 2)
    assert L((1, (1, 0))) == 5
    assert L((1, 3)) == 1 + 8 + 4  # int coordinate 3 in mode (2,2) unfolds to (1,1)
    assert str(L(None, (1, 0))) == "4:1"


def test_slicing_with_none() -> None:
    L = Layout((8, 4), (4, 1))
    assert str(L(None, 2)) == "8:4"
    assert str(L(3, None)) == "4:1"


def test_modes_and_concatenation() -> None:
    L = Layout((4, (2, 2)), (1, (4, 8)))
    assert str(L[1]) == "(2,2):(4,8)"
    assert str(make_layout(L[0], L[1])) == str(L)
    assert len(L) == 2


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (((4, 2), (1, 2, 3)), "differ in rank"),
        (((0, 2), (1, 2)), "positive"),
        (((4, -2), (1, 2)), "positive"),
        (((4, 2.5), (1, 2)), "ints"),
    ],
)
def test_bad_layouts_are_named(args, match) -> None:
    with pytest.raises(LayoutError, match=match):
        Layout(*args)


def test_out_of_domain_is_an_error() -> None:
    L = Layout((4, 2), (2, 1))
    with pytest.raises(LayoutError, match="out of range"):
        L(8)
    with pytest.raises(LayoutError, match="out of range"):
        L(4, 0)
    with pytest.raises(LayoutError, match="rank"):
        L((1, 1, 1))


@given(layouts())
def test_offsets_match_scalar_evaluation(L: Layout) -> None:
    offs = L.offsets()
    assert offs.shape == (size(L),)
    for i in range(0, size(L), max(1, size(L) // 64)):
        assert offs[i] == L(i) == crd2idx(idx2crd(i, L.shape), L.shape, L.stride)


@given(layouts())
def test_parse_str_round_trip(L: Layout) -> None:
    assert parse_layout(str(L)) == L
    assert hash(parse_layout(str(L))) == hash(L)


def test_parse_accepts_static_ints_and_spaces() -> None:
    assert parse_layout(" ( _8 , _4 ) : ( _4 , _1 ) ") == Layout((8, 4), (4, 1))
    assert parse_layout("(8,4)") == Layout((8, 4))


def test_parse_composed() -> None:
    c = parse_layout("Sw<3,4,3> o 0 o (8,64):(64,1)")
    assert isinstance(c, ComposedLayout)
    assert str(c) == "Sw<3,4,3> o 0 o (8,64):(64,1)"
    assert parse_layout("Sw<3,4,3> o (8,64):(64,1)") == c
    assert parse_layout("Swizzle<2,4,3> o 16 o 8:1").offset == 16


@pytest.mark.parametrize(
    ("text", "col"),
    [("(4,2):(1", 9), ("(4,2)::(1,4)", 7), ("(4,2):(1,4) x", 13), ("(4;2):(1,4)", 3), ("", 1), ("Sw<3,4> o 8:1", 7)],
)
def test_parse_errors_point_at_the_column(text: str, col: int) -> None:
    with pytest.raises(ParseError) as e:
        parse_layout(text)
    assert f"column {col}" in str(e.value)
    assert "\n" not in str(e.value)
    assert "^" in e.value.caret


def test_swizzle_is_an_involution_and_bijective() -> None:
    sw = Swizzle(3, 4, 3)
    x = np.arange(1 << 12)
    assert np.array_equal(sw(sw(x)), x)
    assert len(np.unique(sw(x))) == len(x)
    assert sw(144) == 128  # the module docstring's worked example


@pytest.mark.parametrize("bms", [(-1, 4, 3), (3, -1, 3), (3, 4, 2)])
def test_bad_swizzles(bms) -> None:
    with pytest.raises(LayoutError):
        Swizzle(*bms)


def test_negative_shift_swizzle() -> None:
    sw = Swizzle(2, 0, -3)
    x = np.arange(256)
    assert np.array_equal(sw(sw(x)), x)
    assert sw(0b1) == 0b1001


@pytest.mark.parametrize("bms", [(3, 4, 3), (2, 0, -3), (1, 0, -1), (2, 1, 2), (0, 4, 3)])
def test_swizzle_period(bms) -> None:
    sw = Swizzle(*bms)
    x = np.arange(4 * sw.period)
    assert np.array_equal(sw(x + sw.period), sw(x) + sw.period)
    if sw.bits:
        half = sw.period // 2
        assert not np.array_equal(sw(x + half), sw(x) + half)  # and no smaller power of two


@pytest.mark.parametrize("bms", [(3, 4, 3), (2, 4, 3), (1, 4, 3), (0, 4, 3), (3, 7, 3), (2, 5, -3)])
@pytest.mark.parametrize("old_bits,new_bits", [(8, 8), (8, 16), (8, 32), (8, 64), (16, 8), (32, 8), (8, 4)])
def test_recast_swizzle_reads_the_same_bits(bms, old_bits, new_bits) -> None:
    """Post of ``recast_swizzle``: ``sw(x / old) * old == result(x / new) * new`` at every shared unit offset."""
    from layoutcheck.algebra.swizzle import recast_swizzle

    sw = Swizzle(*bms)
    got = recast_swizzle(sw, old_bits, new_bits)
    unit = max(old_bits, new_bits)
    x = np.arange(0, 4 * sw.period * old_bits, unit)
    assert np.array_equal(sw(x // old_bits) * old_bits, got(x // new_bits) * new_bits)


def test_recast_swizzle_below_bit_zero_is_an_error() -> None:
    from layoutcheck.algebra.swizzle import recast_swizzle

    with pytest.raises(LayoutError):
        recast_swizzle(Swizzle(3, 2, 3), 8, 64)  # the 16-byte chunk bits lie inside one 8-byte element
