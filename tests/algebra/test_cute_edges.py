"""Issue #15: every reproducer gives CuTe C++'s answer, or a rejection naming the law C++'s answer breaks."""

from __future__ import annotations

import itertools

import pytest

import layoutcheck
from layoutcheck.algebra.layout import Layout, extended, extended_offsets, size
from layoutcheck.errors import LayoutError
from tests.differential.reproducers import REPRODUCERS


@pytest.mark.parametrize(("op", "args", "cpp", "ours"), REPRODUCERS, ids=[f"{r[0]}{r[1]}" for r in REPRODUCERS])
def test_reproducer(op: str, args: tuple, cpp: str, ours: str | None) -> None:
    fn = getattr(layoutcheck, op)
    if ours is None:
        assert str(fn(*args)) == cpp
    else:
        with pytest.raises(getattr(layoutcheck, ours[1:])) as info:
            fn(*args)
        assert any(law in str(info.value) for law in ("divisibility", "carry", "law")), info.value


def test_strict_evaluation_stays_the_default() -> None:
    L = Layout((3, (2, 4)), (2, (1, 6)))
    with pytest.raises(LayoutError, match="out of range"):
        L(100)
    assert extended(L, 100) == 99  # CuTe's: the last mode runs on
    assert extended_offsets(L, 101)[100] == 99
    assert [extended(L, i) for i in range(size(L))] == L.offsets().tolist()


def test_extended_takes_coordinates_too() -> None:
    L = Layout((3, (2, 4)), (2, (1, 6)))
    assert extended(L, 1, 33) == extended(L, 100) == 99  # (1, 33): 33 unfolds over (2,4), the last leaf runs on
    assert extended(L, (2, (1, 5))) == 2 * 2 + 1 + 5 * 6
    with pytest.raises(LayoutError, match="negative"):
        extended(L, -1)
    with pytest.raises(LayoutError, match="profile"):
        extended(L, (1, 2, 3))


# -- the laws, on generated families (tests/strategies.py) ----------------------------------------------------------
from hypothesis import given  # noqa: E402

from layoutcheck import CompositionError, coalesce, complement, composition, left_inverse, logical_divide  # noqa: E402
from layoutcheck.algebra.layout import make_layout  # noqa: E402
from tests.strategies import (  # noqa: E402
    compact_layouts,
    layouts,
    layouts_with_unit_and_zero_modes,
    non_dividing_tilers,
    past_the_end_pairs,
)


@given(non_dividing_tilers())
def test_non_dividing_logical_divide_is_a_composition_running_past(pair) -> None:
    a, t = pair
    try:
        r = logical_divide(a, t)
    except CompositionError:
        return  # C++ would answer; tests/differential checks such answers break the law
    full = make_layout(t, complement(t, coalesce(a).shape))
    assert size(r) == size(full) >= size(a)
    assert r.offsets().tolist() == [extended(a, full(i)) for i in range(size(full))]
    assert sorted(set(r.offsets().tolist()) & set(range(size(a)))) == sorted(a.offsets().tolist())  # covers A


@given(past_the_end_pairs())
def test_past_the_end_composition_is_extended_function_composition(pair) -> None:
    a, b = pair
    try:
        r = composition(a, b)
    except CompositionError:
        return
    assert r.offsets().tolist() == [extended(a, b(i)) for i in range(size(b))]


@given(layouts_with_unit_and_zero_modes(), compact_layouts())
def test_composition_with_unit_and_zero_modes(a: Layout, b: Layout) -> None:
    try:
        r = composition(a, b)
    except CompositionError:
        return
    assert r.offsets().tolist() == [extended(a, b(i)) for i in range(size(b))]


@given(layouts_with_unit_and_zero_modes())
def test_left_inverse_with_stride_0_modes_is_a_quasi_inverse(L: Layout) -> None:
    try:
        R = left_inverse(L)
    except LayoutError as e:
        assert "divisibility" in str(e) or "law" in str(e)
        return
    assert all(extended(L, extended(R, L(i))) == L(i) for i in range(size(L)))


@given(layouts())
def test_complement_of_any_layout_is_disjoint_or_named_non_injective(L: Layout) -> None:
    try:
        R = complement(L, size(L) * 2)
    except LayoutError as e:
        assert "Non-injective" in str(e) or "negative" in str(e)
        return
    joint = make_layout(L, R)
    assert size(joint) > 0
    offs = R.offsets()
    assert all(x < y for x, y in itertools.pairwise(offs))  # R's strides increase
    image = set(L.offsets().tolist())
    assert not image & set(offs[1:].tolist())  # C++'s @post: R(i) not in L's image for i >= 1
