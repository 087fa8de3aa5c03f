"""Contracts of layoutcheck.algebra.linear_layout: apply, compose, product, invert, CuTe conversions."""

from __future__ import annotations

import pytest
from hypothesis import given

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.linear_layout import LinearLayout, linear_from_cute, to_cute
from layoutcheck.algebra.notation import parse_layout
from layoutcheck.algebra.swizzle import inner
from layoutcheck.errors import LayoutError
from tests.strategies_linear import linear_layouts, permutation_layouts


def _brute(ll: LinearLayout, i: int) -> tuple[int, ...]:
    """The definition: XOR of the bases of the set bits of every input dimension."""
    out = [0] * len(ll.out_dims)
    for name, x in ll.unflatten_in(i).items():
        for j, b in enumerate(ll.bases[name]):
            if x >> j & 1:
                out = [o ^ v for o, v in zip(out, b, strict=True)]
    return tuple(out)


@given(linear_layouts())
def test_offsets_are_the_xor_of_bases(ll):
    offs = ll.offsets()
    for i in range(ll.in_size):
        assert ll.unflatten_out(int(offs[i])) == _brute(ll, i) == ll.apply(ll.unflatten_in(i))


@given(permutation_layouts())
def test_invert_is_the_inverse(ll):
    inv = ll.invert()
    for i in range(ll.in_size):
        y = ll.apply(ll.unflatten_in(i))
        back = inv.apply(dict(zip(ll.out_names, y, strict=True)))
        assert dict(zip(inv.out_names, back, strict=True)) == ll.unflatten_in(i)


@given(permutation_layouts(), linear_layouts())
def test_compose_is_function_composition(a, b):
    outer = b.transpose_outs(b.out_names)  # any layout with a's outputs as inputs
    outer = LinearLayout.make({n: [[(k * 7 + j) % s for s in b.out_shape] for j in range(a.out_dim_size(n).bit_length()
                                                                                        - 1)]
                               for k, n in enumerate(a.out_names)}, dict(b.out_dims))
    r = a.compose(outer)
    for i in range(a.in_size):
        y = a.apply(a.unflatten_in(i))
        assert r.apply(a.unflatten_in(i)) == outer.apply(dict(zip(a.out_names, y, strict=True)))


@given(linear_layouts(max_in_bits=4, max_out_bits=4), linear_layouts(max_in_bits=4, max_out_bits=4))
def test_product_scales_the_right_factor(a, b):
    p = a * b
    for n, s in p.out_dims:
        assert s == dict(a.out_dims).get(n, 1) * dict(b.out_dims).get(n, 1)
    for name in b.in_dims:
        got = p.bases[name][a.in_dim_bits(name):]
        for gb, bb in zip(got, b.bases[name], strict=True):
            vals = dict(zip(b.out_names, bb, strict=True))
            assert dict(zip(p.out_names, gb, strict=True)) == {n: vals.get(n, 0) * dict(a.out_dims).get(n, 1)
                                                               for n in p.out_names}


@given(linear_layouts())
def test_to_cute_has_the_same_flat_map_where_it_exists(ll):
    try:
        c = to_cute(ll)
    except LayoutError:
        return
    assert (c.offsets() == ll.offsets()).all()
    back = linear_from_cute(c, {n: ll.in_dim_size(n) for n in ll.in_dims}, dict(ll.out_dims))
    assert back == ll


@pytest.mark.parametrize("text", ["(4,8):(8,1)", "((2,4),8):((1,16),2)", "Sw<3,4,3> o 0 o (8,64):(64,1)",
                                  "Sw<2,0,2> o 0 o (4,4):(4,1)"])
def test_from_cute_round_trips(text):
    x = parse_layout(text)
    n = size(inner(x))
    ll = linear_from_cute(x, {"offset": n}, {"dim0": 1 << (int(max(x.offsets())).bit_length())})
    assert (ll.offsets() == x.offsets()).all()
    assert (to_cute(ll).offsets() == x.offsets()).all()


def test_worked_example_blocked():
    ll = LinearLayout.make({"register": [[0, 1]], "lane": [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]]},
                           {"dim0": 4, "dim1": 16})
    assert ll.apply({"lane": 9}) == (1, 2)
    assert str(to_cute(ll)) == "(2,(8,4)):(4,(8,1))"


def test_errors_name_the_broken_rule():
    with pytest.raises(LayoutError, match="outside output dimension 'dim0'"):
        LinearLayout.make({"lane": [[4]]}, {"dim0": 4})
    with pytest.raises(LayoutError, match="power of two"):
        LinearLayout.make({"lane": [[1]]}, {"dim0": 3})
    with pytest.raises(LayoutError, match="not injective"):
        LinearLayout.make({"lane": [[1], [1]]}, {"dim0": 4}).invert()
    with pytest.raises(LayoutError, match="linear_from_cute"):
        linear_from_cute(Layout(4, 3), {"lane": 4}, {"dim0": 16})
