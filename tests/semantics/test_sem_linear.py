"""Semantics of the GF(2) claims on Triton linear layouts: ``injective``, ``surjective``, ``bijective``,
``exact_cover`` of a ``#ttg.linear`` layout.

Authority: Triton ``include/triton/Tools/LinearLayout.h``: a linear layout maps input bits to output coordinates by
XOR -- ``L(x) = XOR of bases[d][k] over the set bits k of each input dimension d`` -- inputs flattened with the first
input dimension lowest. Definitions (the claim's docstring): injective ``L(x) == L(y) => x == y``; surjective: every
output coordinate is reached; bijective: both; exact cover: surjective, and ``L(x) == L(y)`` only when ``x ^ y`` is a
sum of zero bases (every element owned once up to broadcast).

The oracle enumerates every input (at most 2^12 here) with plain integer XOR; it shares no code with
``layoutcheck.properties``, ``.models`` or ``.engines`` (nor with ``algebra.gf2``) and reaches the claims only
through ``check_property`` on a spec's text.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from tests.semantics.naive_common import agree, spec_rows
from tests.strategies_sem_linear import DIMS, Linear, linear_layouts, permutation_bases


def table(lin: Linear) -> tuple[list[tuple[int, int]], list[int]]:
    """``[L(x) for every flat input x]`` and the bit positions of the zero bases."""
    vecs = [tuple(v) for d in DIMS for v in lin.bases.get(d, [])]
    zero = [k for k, v in enumerate(vecs) if v == (0, 0)]
    out = []
    for x in range(1 << len(vecs)):
        a = b = 0
        for k, v in enumerate(vecs):
            if x >> k & 1:
                a, b = a ^ v[0], b ^ v[1]
        out.append((a, b))
    return out, zero


def naive(lin: Linear, prop: str) -> bool:
    img, zero = table(lin)
    onto = set(img) == {(a, b) for a in range(lin.shape[0]) for b in range(lin.shape[1])}
    one_to_one = len(set(img)) == len(img)
    if prop == "injective":
        return one_to_one
    if prop == "surjective":
        return onto
    if prop == "bijective":
        return onto and one_to_one
    zmask = sum(1 << k for k in zero)
    first: dict = {}
    for x, y in enumerate(img):
        if y in first and (x ^ first[y]) & ~zmask:
            return False
        first.setdefault(y, x)
    return onto


def spec(lin: Linear, prop: str) -> str:
    return (f'[[config]]\nname = "c"\nkind = "layout"\n'
            f'layout = {{ triton = "{lin.text()}", shape = [{lin.shape[0]}, {lin.shape[1]}] }}\n'
            f'properties = ["{prop}"]\n')


@pytest.mark.parametrize("prop", ["injective", "surjective", "bijective", "exact_cover"])
@given(lin=linear_layouts())
def test_every_engine_agrees_with_the_xor_table(prop: str, lin: Linear) -> None:
    agree(spec_rows(spec(lin, prop)), naive(lin, prop), (prop, lin))


@given(lin=permutation_bases())
def test_permutations_are_bijective(lin: Linear) -> None:
    assert naive(lin, "bijective")
    agree(spec_rows(spec(lin, "bijective")), True, lin)


def test_broken_variant_is_refuted() -> None:
    """``lane = [[1], [1]]`` onto a dim of 4 (the claim's worked example): lanes 1 and 2 collide, 2 and 3 are never
    reached -- neither injective nor an exact cover; with ``[[1], [2]]`` it is a bijection."""
    bad = Linear((4, 1), {"lane": [(1, 0), (1, 0)]})
    good = Linear((4, 1), {"lane": [(1, 0), (2, 0)]})
    for prop in ("injective", "exact_cover", "bijective"):
        agree(spec_rows(spec(bad, prop)), False, (prop, bad))
        agree(spec_rows(spec(good, prop)), True, (prop, good))
