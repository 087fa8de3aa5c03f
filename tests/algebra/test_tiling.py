"""Divides and products: size and function are kept; the regrouped forms hold the same modes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given

from layoutcheck import (
    CompositionError,
    Layout,
    LayoutError,
    NotDivisibleError,
    blocked_product,
    complement,
    composition,
    cosize,
    downcast,
    flat_divide,
    flat_product,
    logical_divide,
    logical_product,
    make_layout,
    make_layout_tv,
    max_common_layout,
    max_common_vector,
    raked_product,
    size,
    tile_to_shape,
    tiled_divide,
    tiled_product,
    upcast,
    zipped_divide,
    zipped_product,
)
from layoutcheck.algebra.inttuple import flatten
from tests.strategies import compact_layouts, divisible_tilers, layouts


def leaves(L: Layout) -> list[tuple[int, int]]:
    return sorted(zip(flatten(L.shape), flatten(L.stride), strict=True))


def _divide_or_skip(a: Layout, b: Layout) -> Layout:
    """The tile divides the size; the composition may still be inadmissible (then it must say so)."""
    try:
        return logical_divide(a, b)
    except CompositionError:
        assume(False)
        raise


@given(divisible_tilers())
def test_logical_divide_keeps_size_and_function(pair) -> None:
    a, b = pair
    r = _divide_or_skip(a, b)
    assert size(r) == size(a)
    full = make_layout(b, complement(b, size(a)))
    assert np.array_equal(r.offsets(), a.offsets()[full.offsets()])
    assert size(r[0]) == size(b)


@given(divisible_tilers())
def test_divide_variants_regroup_the_same_modes(pair) -> None:
    a, b = pair
    ref = leaves(_divide_or_skip(a, b))
    for f in (zipped_divide, tiled_divide, flat_divide):
        assert leaves(f(a, b)) == ref


def test_seed_step1_logical_divides() -> None:
    gc = Layout((128, 128), (128, 1))
    assert str(logical_divide(Layout(128, 128), Layout((16, 4), (4, 1)))) == "((16,4),2):((512,128),8192)"
    assert str(logical_divide(Layout(128, 128), Layout((16, 4), (1, 16)))) == "((16,4),2):((128,2048),8192)"
    assert str(logical_divide(Layout(128, 128), Layout((16, 8), (8, 1)))) == "((16,8),1):((1024,128),0)"
    two_d = logical_divide(gc, (Layout((16, 4), (4, 1)), Layout((16, 4), (4, 1))))
    assert str(two_d) == "(((16,4),2),((16,4),2)):(((512,128),8192),((4,1),64))"


def test_by_mode_tilers() -> None:
    a = Layout((8, 6), (1, 8))
    assert str(logical_divide(a, (4, None))) == "((4,2),6):((1,4),8)"
    assert str(zipped_divide(a, (4, 3))) == "((4,3),(2,2)):((1,8),(4,24))"
    assert str(tiled_divide(a, (4, 3))) == "((4,3),2,2):((1,8),4,24)"
    assert str(flat_divide(a, (4, 3))) == "(4,3,2,2):(1,8,4,24)"


@pytest.mark.parametrize(
    ("a", "tiler", "expected"),
    [(Layout(10, 1), 4, "(4,3):(1,4)"), (Layout(16, 1), Layout(4, 8), "(4,8):(8,1)"),
     (Layout((8, 6), (1, 8)), (3, None), "((3,3),6):((1,3),8)")],
)
def test_non_dividing_tiler_runs_past_as_cute_does(a, tiler, expected) -> None:
    """CuTe's complement rounds up: the last tile is a residue tile running past ``size(A)`` (values from C++)."""
    r = logical_divide(a, tiler)
    assert str(r) == expected
    t = tiler if isinstance(tiler, Layout) else None
    if t is not None:  # R(i) == extended(A, (T, complement(T))(i)) over the whole (larger) domain
        from layoutcheck.algebra.layout import extended, make_layout
        from layoutcheck.algebra.ops import complement

        full = make_layout(t, complement(t, size(a)))
        assert [r(i) for i in range(size(r))] == [extended(a, full(i)) for i in range(size(full))]


def test_tiler_rank_mismatch_is_an_error() -> None:
    with pytest.raises(LayoutError, match="rank"):
        logical_divide(Layout(8, 1), (2, 2))


@given(compact_layouts(), compact_layouts())
def test_logical_product_repeats_a(a: Layout, b: Layout) -> None:
    r = logical_product(a, b)
    assert size(r) == size(a) * size(b)
    assert r[0] == a
    offs = r.offsets().reshape(size(b), size(a))
    # every copy of A is A shifted: same pattern, distinct copies
    assert np.array_equal(offs - offs[:, :1], np.broadcast_to(a.offsets(), offs.shape))
    assert len(np.unique(r.offsets())) == size(r)  # compact A, compact B -> injective


def test_logical_product_with_int_tiler_is_a_product() -> None:
    # pycute computes a divide for an int tiler (CUTLASS #3478)
    assert str(logical_product(Layout((2, 2), (4, 1)), 6)) == "((2,2),(2,3)):((4,1),(2,8))"


@given(compact_layouts(), compact_layouts())
def test_product_variants_regroup_the_same_modes(a: Layout, b: Layout) -> None:
    ref = leaves(logical_product(a, b))
    for f in (zipped_product, tiled_product, flat_product):
        assert leaves(f(a, b)) == ref


def test_blocked_and_raked_products() -> None:
    a, b = Layout((2, 5), (5, 1)), Layout((3, 4), (1, 3))
    assert str(blocked_product(a, b)) == "((2,3),(5,4)):((5,10),(1,30))"
    assert str(raked_product(a, b)) == "((3,2),(4,5)):((10,5),(30,1))"
    for r in (blocked_product(a, b), raked_product(a, b)):
        assert sorted(r.offsets()) == list(range(120))


def test_make_layout_tv() -> None:
    tiler, tv = make_layout_tv(Layout((4, 8), (8, 1)), Layout((2, 4), (4, 1)))
    assert tiler == (8, 32)
    assert str(tv) == "((8,4),(4,2)):((32,2),(8,1))"
    assert sorted(tv.offsets()) == list(range(256))


def test_tile_to_shape() -> None:
    r = tile_to_shape(Layout((8, 8), (8, 1)), (32, 64))
    assert size(r) == 32 * 64 and sorted(r.offsets()) == list(range(2048))
    assert r(1, 0) == 8 and r(8, 0) == 64  # blocks stacked down M first (column-major order)
    r2 = tile_to_shape(Layout((8, 8), (8, 1)), (32, 64), (1, 0))
    assert r2(8, 0) == 64 * 8  # row-major block order: N blocks first
    with pytest.raises(NotDivisibleError):
        tile_to_shape(Layout((8, 8), (8, 1)), (12, 64))


def test_upcast_downcast() -> None:
    assert str(upcast(Layout((8, 64), (64, 1)), 8)) == "(8,8):(8,1)"
    assert str(downcast(Layout((8, 8), (8, 1)), 2)) == "(8,16):(16,1)"
    with pytest.raises(NotDivisibleError):
        upcast(Layout((8, 6), (6, 1)), 4)


@given(layouts(allow_zero=False))
def test_upcast_downcast_round_trip(L: Layout) -> None:
    try:
        u = upcast(downcast(L, 2), 2)
    except NotDivisibleError:
        return
    assert u == L


def test_max_common_vector() -> None:
    a = Layout((8, 16), (16, 1))
    assert max_common_vector(a, a) == 128
    assert max_common_vector(Layout((8, 16), (1, 8)), Layout((8, 16), (16, 1))) == 1
    assert max_common_vector(Layout((4, 8), (1, 4)), Layout((4, 8), (1, 8))) == 4
    assert size(max_common_layout(Layout((4, 8), (1, 4)), Layout((4, 8), (1, 8)))) == 4


def test_composition_with_cosize_identity() -> None:
    for L in (Layout((4, 8), (8, 1)), Layout(((2, 2), 8), ((1, 16), 2))):
        assert composition(L, Layout(size(L))) .offsets().tolist() == L.offsets().tolist()
        assert cosize(L) == 32
