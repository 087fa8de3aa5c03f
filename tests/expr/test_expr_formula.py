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
    f = parse_formula(f"(a * {k} - b) - 7 * ((a * {k} - b) // 7) + (a ^ b) / 3", {"a": n, "b": m})
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
    f = parse_formula("j // (i - 1)", {"j": 4, "i": 3})
    with pytest.raises(LayoutError, match=r"divides by zero at \(j=0, i=1\)"):
        f.offsets()
    with pytest.raises(LayoutError, match="outside the formula's domain"):
        f(12)


@pytest.mark.parametrize("text, coords", [
    ("(i - 3) % 8", {"i": 8}), ("(i - 3) / 8", {"i": 8}), ("j / (i - 1)", {"j": 4, "i": 3}),
    ("(i - j) % 4", {"i": 1 << 12, "j": 1 << 12}), ("(-i) % 8", {"i": 8}),
])
def test_a_possibly_negative_operand_of_c_division_is_refused(text, coords):
    """C's ``/`` and ``%`` truncate toward zero, Python's floor: where an operand may be negative the text has two
    meanings (``(i - 3) % 8`` is a bijection onto [0, 8) in Python, not in C), so it is refused with the way out."""
    with pytest.raises(LayoutError, match="truncates toward zero and Python's floors; write '//'"):
        parse_formula(text, coords)


@pytest.mark.parametrize("text, coords", [
    ("(j - i + 8) % 8", {"j": 8, "i": 8}), ("(i - i % 8) / 8", {"i": 64}), ("(i - 3) // 8", {"i": 8}),
    ("(i - 3) - 8 * ((i - 3) // 8)", {"i": 8}),
])
def test_operands_that_never_go_negative_keep_c_division(text, coords):
    """Non-negative by interval arithmetic, or exactly (every point evaluated), or Python's explicit ``//``."""
    parse_formula(text, coords)


@given(st.integers(-12, 12), st.integers(1, 9), st.integers(1, 16))
def test_c_division_is_accepted_exactly_when_c_and_python_agree_everywhere(shift, k, n):
    """The naive definition: ``(i + shift) % k`` and ``/ k`` are accepted iff no ``i < n`` makes the dividend
    negative, and then C's truncating value (``int(x / k)``, ``math.fmod``) is the formula's at every point."""
    import math

    for op, c_value in (("%", lambda x: int(math.fmod(x, k))), ("/", lambda x: int(x / k))):
        text = f"(i + {shift}) {op} {k}" if shift >= 0 else f"(i - {-shift}) {op} {k}"
        negative = any(i + shift < 0 for i in range(n))
        if negative:
            with pytest.raises(LayoutError):
                parse_formula(text, {"i": n})
        else:
            f = parse_formula(text, {"i": n})
            assert f.offsets().tolist() == [c_value(i + shift) for i in range(n)]
