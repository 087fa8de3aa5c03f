"""The defining properties of the core algebra, on hand-picked edge cases and generated layouts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from layoutcheck import (
    CompositionError,
    Layout,
    LayoutError,
    coalesce,
    complement,
    composition,
    cosize,
    filter,
    filter_zeros,
    left_inverse,
    make_layout,
    right_inverse,
    size,
)
from layoutcheck.algebra.inttuple import flatten
from layoutcheck.algebra.layout import extended
from tests.strategies import compact_layouts, injective_layouts, layouts


# -- coalesce / filter -------------------------------------------------------------------------------------------
@given(layouts())
def test_coalesce_keeps_the_function(L: Layout) -> None:
    C = coalesce(L)
    assert size(C) == size(L)
    assert np.array_equal(C.offsets(), L.offsets())
    assert len(flatten(C.shape)) <= len(flatten(L.shape))


@given(layouts())
def test_coalesce_by_mode_keeps_rank_and_function(L: Layout) -> None:
    profile = tuple(1 for _ in range(len(L))) if isinstance(L.shape, tuple) else None
    C = coalesce(L, profile)
    assert np.array_equal(C.offsets(), L.offsets())
    if profile:
        assert len(C) == len(L)


def test_coalesce_examples() -> None:
    assert str(coalesce(Layout((2, (1, 6)), (1, (6, 2))))) == "12:1"
    assert str(coalesce(Layout((2, 4), (1, 4)))) == "(2,4):(1,4)"
    assert str(coalesce(Layout((1, 1), (3, 5)))) == "1:0"
    assert str(coalesce(Layout(((4, 2), (2, 2)), ((1, 4), (8, 16))), (1, 1))) == "(8,4):(1,8)"


@given(layouts())
def test_filter_keeps_the_image(L: Layout) -> None:
    assert set(filter(L).offsets()) == set(L.offsets())
    assert np.array_equal(filter_zeros(L).offsets() if size(filter_zeros(L)) == size(L) else L.offsets(),
                          L.offsets())


# -- composition ---------------------------------------------------------------------------------------------------
@st.composite
def composable_pairs(draw):
    """(A, B) where B's strides and shapes are built from A's coalesced mode boundaries, so most are admissible."""
    a = draw(layouts(allow_zero=False))
    flat = [s for s in flatten(coalesce(a).shape)] if isinstance(coalesce(a).shape, tuple) else [coalesce(a).shape]
    bounds = [1]
    for s in flat:
        bounds.append(bounds[-1] * s)
    n_modes = draw(st.integers(1, 3))
    shapes, strides = [], []
    for _ in range(n_modes):
        base = draw(st.sampled_from(bounds))
        sub = draw(st.sampled_from([1, 2, 3, 4]))
        shapes.append(draw(st.sampled_from([1, 2, 3, 4, 6, 8])))
        strides.append(base * sub if draw(st.booleans()) else draw(st.integers(0, 12)))
    b = Layout(tuple(shapes), tuple(strides)) if n_modes > 1 else Layout(shapes[0], strides[0])
    return a, b


@given(composable_pairs())
def test_composition_is_function_composition(pair) -> None:
    a, b = pair
    try:
        r = composition(a, b)
    except CompositionError:
        assume(False)
        return
    assert size(r) == size(b)
    # inside A's domain this is plain A(B(i)); beyond it A's last mode runs on (CuTe's extended evaluation)
    expected = [extended(a, int(j)) for j in b.offsets()]
    assert list(r.offsets()) == expected


def test_composition_examples() -> None:
    assert str(composition(Layout((6, 2), (8, 2)), Layout((4, 3), (3, 1)))) == "((2,2),3):((24,2),8)"
    assert str(composition(Layout(20, 2), Layout((4, 5), (1, 4)))) == "(4,5):(2,8)"
    assert str(composition(Layout((10, 2), (16, 4)), Layout((5, 4), (1, 5)))) == "(5,(2,2)):(16,(80,4))"
    assert str(composition(Layout((4, 8), (8, 1)), 8)) == "(4,2):(8,1)"


@pytest.mark.parametrize(
    ("a", "b", "law"),
    [
        (Layout((5, 3), (7, 1)), Layout(7, 1), "shape divisibility"),  # pycute returns 5:7
        (Layout((4, 6, 8), (2, 3, 5)), Layout(6, 3), "stride divisibility"),  # CUTLASS #3177
        (Layout((4, 3), (1, 10)), Layout(2, 6), "stride divisibility"),
    ],
)
def test_inadmissible_compositions_are_rejected(a: Layout, b: Layout, law: str) -> None:
    with pytest.raises(CompositionError, match=law) as e:
        composition(a, b)
    assert str(a) in str(e.value)


def test_composition_by_mode_tiler() -> None:
    a = Layout((128, 128), (128, 1))
    r = composition(a, (Layout(16, 4), None))
    assert str(r) == "(16,128):(512,1)"
    with pytest.raises(LayoutError, match="rank"):
        composition(Layout(8, 1), (2, 2))


def test_composition_rejects_negative_stride_tiler() -> None:
    with pytest.raises(CompositionError, match="negative"):
        composition(Layout(8, 1), Layout(4, -1))


# -- complement -----------------------------------------------------------------------------------------------------
@given(injective_layouts(), st.integers(1, 4))
def test_complement_is_disjoint_ordered_and_bounded(L: Layout, mult: int) -> None:
    m = cosize(L) * mult
    R = complement(L, m)
    joint = make_layout(L, R).offsets()
    assert len(np.unique(joint)) == len(joint), "L and its complement overlap"
    # CuTe's @post conditions (layout.hpp): R strictly increasing, R(i) not in L's image for i >= 1, and
    # size(R) >= M / size(filter(L)). (The fact sheet's "cosize(R) <= round_up(M, cosize(L))" is false:
    # complement(2:2, 9) == (2,3):(1,4) has cosize 10 > 9; see docs/seeds.md.)
    r = R.offsets()
    assert np.all(np.diff(r) > 0)
    assert not set(r[1:].tolist()) & set(L.offsets().tolist())
    assert size(R) * size(filter(L)) >= m


def test_complement_examples() -> None:
    assert str(complement(Layout(4, 1), 24)) == "6:4"
    assert str(complement(Layout(6, 4), 24)) == "4:1"
    assert str(complement(Layout((4, 6), (1, 4)), 24)) == "1:0"
    assert str(complement(Layout((2, 2), (1, 6)), 24)) == "(3,2):(2,12)"
    assert str(complement(Layout(4, 2), 24)) == "(2,3):(1,8)"


def test_fact_sheet_complement_bound_is_false() -> None:
    R = complement(Layout(2, 2), 9)
    assert str(R) == "(2,3):(1,4)" and cosize(R) == 10  # > round_up(9, cosize(2:2) = 3) = 9


def test_complement_of_overlapping_layout_is_an_error() -> None:
    with pytest.raises(LayoutError, match="complement"):
        complement(Layout((2, 2), (2, 3)), 16)


# -- inverses -------------------------------------------------------------------------------------------------------
@given(layouts())
def test_right_inverse(L: Layout) -> None:
    R = right_inverse(L)
    for i in range(size(R)):
        assert L(R(i)) == i


def _right_inverse_by_fold(L: Layout) -> str:
    """C++'s ``right_inverse`` written as its fold, the reference for the stride-chain lookup: sort the coalesced modes
    by stride (C++'s exchange sort), keep each mode whose stride is the size reached so far."""
    modes = [(s, d) for s, d in zip(flatten(coalesce(L).shape), flatten(coalesce(L).stride), strict=True) if s > 1]
    pre = [int(np.prod([s for s, _ in modes[:i]])) for i in range(len(modes))]
    order = list(range(len(modes)))
    keys = [d for _, d in modes]
    for i in range(len(keys)):
        for j in range(i + 1, len(keys)):
            if keys[j] < keys[i]:
                keys[i], keys[j], order[i], order[j] = keys[j], keys[i], order[j], order[i]
    out, cur = [], 1
    for i in order:
        if modes[i][1] == cur:
            out.append((modes[i][0], pre[i]))
            cur *= modes[i][0]
    return str(coalesce(Layout(tuple(s for s, _ in out), tuple(d for _, d in out)))) if out else "1:0"


@given(layouts())
def test_right_inverse_is_the_fold_cpp_computes(L: Layout) -> None:
    assert str(right_inverse(L)) == _right_inverse_by_fold(L)


def test_right_inverse_with_tied_strides_takes_the_mode_cpp_takes() -> None:
    assert str(right_inverse(Layout((4, 2), (1, 1)))) == _right_inverse_by_fold(Layout((4, 2), (1, 1))) == "4:1"
    assert str(right_inverse(Layout((2, 4, 3), (1, 1, 2)))) == _right_inverse_by_fold(Layout((2, 4, 3), (1, 1, 2)))


@given(compact_layouts())
def test_right_inverse_of_bijection_is_full(L: Layout) -> None:
    R = right_inverse(L)
    assert size(R) == size(L)
    assert np.array_equal(R.offsets()[L.offsets()], np.arange(size(L)))


@given(injective_layouts())
def test_left_inverse(L: Layout) -> None:
    R = left_inverse(L)
    for i in range(size(L)):
        assert extended(R, L(i)) == i


def test_left_inverse_without_complement() -> None:
    # CUTLASS #2094: the C++ result is wrong here; the complement does not exist (65536 % 160 != 0)
    L = Layout((128, 160), (65536, 1))
    R = left_inverse(L)
    assert str(R) == "(65536,128):(128,1)"
    offs = L.offsets()
    assert np.array_equal(R.offsets()[offs], np.arange(size(L)))  # R(L(i)) == i for every i


def test_right_inverse_seed_example() -> None:
    # seed 003: the inverse TV layout of m16n8k8 A / SM80_16x8_Row
    R = right_inverse(Layout(((4, 8), (2, 2)), ((32, 1), (16, 8))))
    assert str(R) == "(8,2,2,4):(4,64,32,1)"
    L = Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))
    assert all(L(R(i)) == i for i in range(128))


@given(layouts())
def test_left_inverse_is_a_quasi_inverse(L: Layout) -> None:
    """C++'s contract for any layout it accepts: ``L(R(L(i))) == L(i)``; what breaks it is rejected by name."""
    try:
        R = left_inverse(L)
    except LayoutError as e:
        assert "divisibility" in str(e) or "quasi-inverse law" in str(e)
        return
    for i in range(size(L)):
        assert extended(L, extended(R, L(i))) == L(i)


def test_left_inverse_skips_stride_0_modes_as_cute_does() -> None:
    assert str(left_inverse(Layout(4, 0))) == "4:0"  # C++ (the CuTe DSL answers 1:0, also a quasi-inverse)
    assert str(left_inverse(Layout((2, 4, 8), (32, 0, 2)))) == "(2,16,2):(0,8,1)"
    assert str(left_inverse(Layout((4, 2), (1, 0)))) == "4:1"
    assert str(left_inverse(Layout((2, 2), (1, 1)))) == "2:2"  # overlapping, and CuTe's answer is right


def test_left_inverse_rejects_what_breaks_cutes_law() -> None:
    with pytest.raises(LayoutError, match="divisibility condition"):
        left_inverse(Layout((2, 3), (3, 2)))
    with pytest.raises(LayoutError, match=r"quasi-inverse law .* at i = 8"):
        left_inverse(Layout((3, 3), (2, 1)))  # C++ returns (2,3):(3,1), and L(R(L(8))) != L(8)
