"""Semantics of ``composes`` and ``equivalent``: naive oracles from CuTe's definitions.

Authority: CuTe ``include/cute/layout.hpp``. A layout maps an index to ``sum(c_k * d_k)`` over the colexicographic
coordinate ``c`` of the index in its (flattened) shape; past the domain, ``crd2idx`` lets the last leaf take the
remainder. ``composition(A, B)`` promises ``@post For all i, 0 <= i < size(B), R(i) == A(B(i))`` with
``size(R) == size(B)``: ``composes(R, A, B)`` claims exactly that. ``equivalent(A, B)``: ``size(A) == size(B)``
and ``A(i) == B(i)`` for every ``i``.

The oracles are plain Python loops; they share no code with ``layoutcheck.properties``, ``.models`` or ``.engines``
and reach the claims only through ``check_property`` on a spec's text.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.semantics.naive_common import agree, colex, layout_text, prod, scaled, spec_rows
from tests.strategies_sem_composition import almost, layouts, nonneg_layouts, same_function


def naive_equivalent(a: tuple, b: tuple) -> bool:
    return prod(a[0]) == prod(b[0]) and all(colex(*a, i) == colex(*b, i) for i in range(prod(a[0])))


def naive_composes(r: tuple, a: tuple, b: tuple) -> bool:
    return prod(r[0]) == prod(b[0]) and all(colex(*r, i) == colex(*a, colex(*b, i)) for i in range(prod(b[0])))


def equivalent_spec(a: tuple, b: tuple) -> str:
    return (f'[[config]]\nname = "c"\nkind = "layout"\nlayout = "{layout_text(*a)}"\nother = "{layout_text(*b)}"\n'
            'properties = ["equivalent"]\n')


def composes_spec(r: tuple, a: tuple, b: tuple) -> str:
    return (f'[[config]]\nname = "c"\nkind = "layout"\nlayout = "{layout_text(*r)}"\nlhs = "{layout_text(*a)}"\n'
            f'rhs = "{layout_text(*b)}"\nproperties = ["composes"]\n')


@st.composite
def equivalent_pairs(draw: st.DrawFn) -> tuple[tuple, tuple]:
    a = draw(layouts())
    b = draw(st.one_of(same_function(a), almost(a), layouts()))
    return a, b


@st.composite
def composes_triples(draw: st.DrawFn) -> tuple[tuple, tuple, tuple]:
    """``(R, A, B)`` with ``R`` the composition tabulated as a layout where one exists (``B`` a single mode whose
    image is an arithmetic run inside one leaf of ``A`` -- the textbook case), else any layout."""
    a = draw(nonneg_layouts(max_leaves=3, max_size=64))
    b = draw(nonneg_layouts(max_leaves=2, max_size=32))
    how = draw(st.sampled_from(["tabulated", "tabulated", "almost", "any"]))
    if how == "tabulated":
        # R = the flat layout (size(B),) evaluated point by point is not a layout in general; use the exact case
        # A = compact (n):(d), B = (m):(s) with m*s <= n: R = (m):(d*s)
        n, d = draw(st.sampled_from([4, 8, 16, 32])), draw(st.integers(1, 5))
        m, s = draw(st.integers(1, 8)), draw(st.integers(0, 4))
        a, b = ((n,), (d,)), ((m,), (s,))
        r = ((m,), (d * s,))
        return r, a, b
    r = draw(st.one_of(almost(b), layouts(max_leaves=2, max_size=32))) if how == "almost" else draw(layouts())
    return r, a, b


@scaled(0.6)
@given(equivalent_pairs())
def test_equivalent_agrees_with_the_pointwise_definition(pair: tuple) -> None:
    a, b = pair
    agree(spec_rows(equivalent_spec(a, b)), naive_equivalent(a, b), pair)


@scaled(0.6)
@given(composes_triples())
def test_composes_agrees_with_cute_composition_post(triple: tuple) -> None:
    r, a, b = triple
    agree(spec_rows(composes_spec(r, a, b)), naive_composes(r, a, b), triple)


def test_broken_variants_are_refuted() -> None:
    """NVIDIA/cutlass#3177: R = (2,3):(6,3) is not (4,6,8):(2,3,5) o 6:3 (R(2) = 3, A(B(2)) = 7); equal layouts
    written twice are equivalent, a stride off by one is not."""
    r, a, b = ((2, 3), (6, 3)), ((4, 6, 8), (2, 3, 5)), ((6,), (3,))
    assert not naive_composes(r, a, b)
    agree(spec_rows(composes_spec(r, a, b)), False, "cutlass#3177")
    x, y = ((4, (2, 3)), (1, (4, 8))), ((4, 2, 3), (1, 4, 8))
    agree(spec_rows(equivalent_spec(x, y)), True, "flattened")
    agree(spec_rows(equivalent_spec(x, ((4, 2, 3), (1, 4, 9)))), False, "stride+1")
