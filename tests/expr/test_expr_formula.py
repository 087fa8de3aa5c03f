"""Index formulas (``layoutcheck.expr.formula``): the colexicographic domain, evaluation, errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck.errors import LayoutError, ParseError
from layoutcheck.expr.formula import parse_formula


def test_first_coordinate_is_fastest():
    f = parse_formula("i*64 + j", {"j": 64, "i": 8})
    assert f.shape == (64, 8) and f.size == 512
    assert f.point(65) == {"j": 1, "i": 1} and f(65) == 65
    assert f.show(65) == "(j=1, i=1)"


def test_rotation_is_a_permutation_and_c_division_floors():
    f = parse_formula("i*64 + ((j/8 + i) % 8)*8 + j%8", {"j": 64, "i": 8})
    assert sorted(f.offsets().tolist()) == list(range(512))
    assert f(56 + 64) == 64  # row 1, chunk 7 -> chunk (7 + 1) % 8 = 0


@given(st.integers(1, 9), st.integers(1, 9), st.integers(-20, 20))
def test_vectorised_and_pointwise_agree(n, m, k):
    f = parse_formula(f"(a * {k} - b) % 7 + (a ^ b) / 3", {"a": n, "b": m})
    offs = f.offsets().tolist()
    assert offs == [f(i) for i in range(n * m)]
    assert offs == [((a * k - b) % 7) + (a ^ b) // 3 for b in range(m) for a in range(n)]


def test_errors_name_what_is_wrong():
    with pytest.raises(LayoutError, match="unknown variable 'k'"):
        parse_formula("j * k", {"j": 4})
    with pytest.raises(LayoutError, match="needs its coordinates"):
        parse_formula("0", {})
    with pytest.raises(LayoutError, match="positive int"):
        parse_formula("j", {"j": 0})
    with pytest.raises(ParseError):
        parse_formula("j +", {"j": 4})
    f = parse_formula("j / (i - 1)", {"j": 4, "i": 3})
    with pytest.raises(LayoutError, match=r"divides by zero at \(j=0, i=1\)"):
        f.offsets()
    with pytest.raises(LayoutError, match="outside the formula's domain"):
        f(12)
