"""Differential tests against NVIDIA's pure-Python pycute (a test-only oracle; skipped when it is absent).

Where pycute is known wrong -- composition without the shape divisibility check, ``logical_product`` with an int
tiler (CUTLASS #3478) -- the test records pycute's answer and asserts that ours matches brute force instead.
"""

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
    left_inverse,
    logical_divide,
    logical_product,
    right_inverse,
    size,
    zipped_divide,
)
from layoutcheck.algebra.inttuple import crd2idx, flatten
from layoutcheck.algebra.layout import extended_offsets
from tests.strategies import compact_layouts, injective_layouts, layouts

pycute = pytest.importorskip("pycute")


def to_py(L: Layout):
    return pycute.Layout(L.shape, L.stride)


def from_py(P) -> Layout:
    return Layout(P.shape, P.stride)


def offsets_py(P) -> list[int]:
    return [P(i) for i in range(pycute.size(P))]


def same(ours: Layout, theirs) -> bool:
    return str(ours) == str(from_py(theirs))


@given(layouts())
def test_coalesce(L: Layout) -> None:
    assert same(coalesce(L), pycute.coalesce(to_py(L)))


@given(injective_layouts(), st.integers(1, 3))
def test_complement(L: Layout, mult: int) -> None:
    m = size(L) * mult
    ours = complement(L, m)
    theirs = pycute.complement(to_py(L), m)
    assert same(ours, theirs)


@given(layouts())
def test_right_inverse(L: Layout) -> None:
    ours, theirs = right_inverse(L), pycute.right_inverse(to_py(L))
    if not same(ours, theirs):
        # pycute stops at the first mode whose stride is not the next one expected (a stride-0 mode, or a repeated
        # stride: (2,2):(0,1) -> 1:0, (2,2,2):(1,1,2) -> 2:1); CuTe C++ searches on for the next stride (-> 2:2,
        # (2,2):(1,4)). Both are right inverses; ours is never the smaller one.
        assert size(ours) >= pycute.size(theirs)
    assert all(L(ours(i)) == i for i in range(size(ours)))


def test_right_inverse_skips_stride_zero_modes_as_cute_does() -> None:
    L = Layout((2, 2), (0, 1))
    assert str(right_inverse(L)) == "2:2"
    assert str(from_py(pycute.right_inverse(to_py(L)))) == "1:0"


@given(injective_layouts())
def test_left_inverse(L: Layout) -> None:
    ours = left_inverse(L)
    theirs = pycute.left_inverse(to_py(L))
    # pycute keeps the older right_inverse(make_layout(L, complement(L))); ours is C++'s stride fold (they differ on
    # strides of size-1 or padding modes). Both must be left inverses.
    offs = L.offsets()
    assert np.array_equal(extended_offsets(ours, int(offs.max()) + 1)[offs], np.arange(size(L)))
    assert [theirs(int(o)) for o in offs] == list(range(size(L)))


@given(layouts(allow_zero=False), layouts())
def test_composition_agrees_or_pycute_is_wrong(a: Layout, b: Layout) -> None:
    assume(max(b.offsets()) < size(a))
    try:
        ours = composition(a, b)
    except CompositionError:
        # we reject: pycute must then be wrong (or fail) on this pair -- never reject a pair pycute gets right
        try:
            theirs = pycute.composition(to_py(a), to_py(b))
        except Exception:
            return
        truth = [a(int(j)) for j in b.offsets()]
        assert pycute.size(theirs) != size(b) or offsets_py(theirs) != truth
        return
    truth = [a(int(j)) for j in b.offsets()]
    assert ours.offsets().tolist() == truth
    try:
        theirs = pycute.composition(to_py(a), to_py(b))
    except AssertionError:
        return  # pycute's stride check rejects some pairs that are admissible (e.g. B of size 1)
    assert offsets_py(theirs) == truth or pycute.size(theirs) != size(b)


def test_known_pycute_composition_bug() -> None:
    a, b = Layout((5, 3), (7, 1)), Layout(7, 1)
    theirs = pycute.composition(to_py(a), to_py(b))
    assert str(from_py(theirs)) == "5:7"  # pycute: size 5 instead of 7 -- silently wrong
    with pytest.raises(CompositionError, match="shape divisibility"):
        composition(a, b)


def test_multi_mode_carry_is_rejected() -> None:
    a = b = Layout((2, 2), (1, 1))
    theirs = pycute.composition(to_py(a), to_py(b))
    assert offsets_py(theirs) != [a(int(j)) for j in b.offsets()]  # pycute silently wrong
    with pytest.raises(CompositionError, match="carry"):
        composition(a, b)


def test_known_pycute_logical_product_int_bug() -> None:
    a = Layout((2, 2), (4, 1))
    theirs = pycute.logical_product(to_py(a), 6)
    ours = logical_product(a, 6)
    assert pycute.size(theirs) != size(a) * 6  # pycute computes a divide
    assert size(ours) == 24
    offs = ours.offsets().reshape(6, 4)
    assert np.array_equal(offs - offs[:, :1], np.broadcast_to(a.offsets(), (6, 4)))


@given(compact_layouts(), compact_layouts())
def test_logical_product(a: Layout, b: Layout) -> None:
    assert same(logical_product(a, b), pycute.logical_product(to_py(a), to_py(b)))


@given(layouts(allow_zero=False), st.data())
def test_logical_divide(a: Layout, data) -> None:
    """Dividing tilers: the same function as pycute. (pycute's complement takes ``size(A)`` where C++ takes
    ``shape(coalesce(A))``, so on non-dividing tilers the rest mode may differ in size: not compared here.)"""
    n = size(a)
    t = data.draw(st.sampled_from([d for d in range(1, n + 1) if n % d == 0]))
    tiler = Layout(t, 1)
    try:
        ours = logical_divide(a, tiler)
    except LayoutError:
        assume(False)
        return
    theirs = pycute.logical_divide(to_py(a), to_py(tiler))
    assert size(ours) == pycute.size(theirs) == n
    assert ours.offsets().tolist() == offsets_py(theirs)


@pytest.mark.slow
@given(compact_layouts(), st.integers(1, 9))
def test_logical_divide_by_a_non_dividing_tile_matches_pycute(a: Layout, t: int) -> None:
    """When a compact A without size-1 modes coalesces to one mode, pycute's ``size(A)`` cotarget is C++'s shape and
    both run A on past its end the same way: the same layout. (A trailing size-1 mode keeps its stride in C++'s
    ``coalesce_x`` but not in pycute's ``coalesce``; tested against the compiled headers instead.)"""
    assume(1 not in flatten(a.shape) and len(flatten(coalesce(a).shape)) == 1)
    assert same(logical_divide(a, Layout(t, 1)), pycute.logical_divide(to_py(a), to_py(Layout(t, 1))))


def test_zipped_divide_by_mode() -> None:
    a = Layout((128, 128), (128, 1))
    tiler = (Layout((16, 4), (4, 1)), Layout((16, 4), (4, 1)))
    theirs = pycute.zipped_divide(to_py(a), tuple(to_py(t) for t in tiler))
    assert same(zipped_divide(a, tiler), theirs)


def test_extended_evaluation_matches_pycute() -> None:
    L = Layout((4, (2, 3)), (1, (8, 16)))
    for i in range(40):  # pycute lets the last mode run on; crd2idx does too
        assert crd2idx(i, L.shape, L.stride) == to_py(L)(i)
