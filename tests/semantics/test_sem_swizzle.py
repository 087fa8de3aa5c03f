"""Semantics of the layout claims on swizzled layouts ``Sw<B,M,S> o L``: ``injective``, ``bijective``, ``in_bounds``.

Authority: CuTe ``include/cute/swizzle.hpp``: ``Swizzle<B,M,S>(x) = x ^ ((x & yyy_msk) >> S)`` with
``yyy_msk = ((1 << B) - 1) << (M + max(0, S))`` (a left shift for ``S < 0``); a composed layout evaluates
``Sw(L(i))`` (``composed_layout.hpp``). Definitions: injective ``f(i) == f(j) => i == j`` on ``[0, size)``;
bijective onto ``[0, n)`` (``n`` = the codomain, default the size): injective and the image is exactly
``[0, n)``; in_bounds(``bound``): ``0 <= f(i) < bound`` for every ``i``.

The oracle evaluates every point with plain integers; it shares no code with ``layoutcheck.properties``,
``.models`` or ``.engines`` (nor with ``algebra.swizzle``) and reaches the claims only through ``check_property``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.semantics.naive_common import agree, colex, layout_text, prod, scaled, spec_rows, swizzle
from tests.strategies_sem_swizzle import swizzled_layouts


def image(sw: tuple[int, int, int], shape: tuple, stride: tuple) -> list[int]:
    return [swizzle(*sw, colex(shape, stride, i)) for i in range(prod(shape))]


def naive(prop: str, sw: tuple, shape: tuple, stride: tuple, bound: int) -> bool:
    img = image(sw, shape, stride)
    if prop == "injective":
        return len(set(img)) == len(img)
    if prop == "bijective":
        return sorted(img) == list(range(bound))
    return all(0 <= y < bound for y in img)


def spec(prop: str, sw: tuple, shape: tuple, stride: tuple, bound: int) -> str:
    p = {"injective": '"injective"', "bijective": f'{{ name = "bijective", codomain = {bound} }}',
         "in_bounds": f'{{ name = "in_bounds", bound = {bound} }}'}[prop]
    return (f'[[config]]\nname = "c"\nkind = "layout"\nlayout = "{layout_text(shape, stride, sw)}"\n'
            f"properties = [{p}]\n")


@scaled(0.4)
@pytest.mark.parametrize("prop", ["injective", "bijective", "in_bounds"])
@given(case=swizzled_layouts(), slack=st.sampled_from([0, 0, 1, -1, 64]))
def test_every_engine_agrees_with_the_swizzled_image(prop: str, case: tuple, slack: int) -> None:
    sw, shape, stride = case
    bound = max(1, prod(shape) + slack)
    agree(spec_rows(spec(prop, sw, shape, stride, bound)), naive(prop, sw, shape, stride, bound), (prop, case, bound))


def test_broken_variant_is_refuted() -> None:
    """``Sw<3,3,3> o (8,64):(64,1)`` is a bijection of [0,512); with the row stride 63 it collides and leaves holes."""
    good, bad = ((8, 64), (64, 1)), ((8, 64), (63, 1))
    for prop in ("injective", "bijective"):
        agree(spec_rows(spec(prop, (3, 3, 3), *good, 512)), True, good)
        agree(spec_rows(spec(prop, (3, 3, 3), *bad, 512)), False, bad)
