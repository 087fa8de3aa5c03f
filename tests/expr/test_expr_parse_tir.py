"""The ``tir`` dialect of ``layoutcheck.expr.parse``: TVM/TileLang's printed index expressions, ``T.`` calls as the
operators they compute, on every point of a small domain (Python's meaning of the same operators is the reference)."""

from __future__ import annotations

import itertools
import operator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck.errors import LayoutError, ParseError
from layoutcheck.expr.numpy import evaluate
from layoutcheck.expr.parse import parse
from layoutcheck.expr.tir import tir_expr
from tests.strategies_expr import VARS, nonneg_trees

RANGES = {"_i": 8, "_j": 16, "_rep": 2}
CALLS = {"T.bitwise_xor": operator.xor, "T.bitwise_and": operator.and_, "T.bitwise_or": operator.or_,
         "T.shift_left": operator.lshift, "T.shift_right": operator.rshift, "T.floordiv": operator.floordiv,
         "T.floormod": operator.mod, "T.truncdiv": operator.floordiv, "T.truncmod": operator.mod}


@st.composite
def tir_texts(draw, depth: int = 3) -> tuple[str, object]:
    """A random TIR expression and a Python function computing it."""
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        leaf = draw(st.sampled_from([*RANGES, "3", "8"]))
        return leaf, (lambda env, v=leaf: env[v] if v in env else int(v))
    a, fa = draw(tir_texts(depth - 1))
    kind = draw(st.sampled_from(["call", "+", "*", "//", "%"]))
    if kind == "call":
        fn = draw(st.sampled_from(sorted(CALLS)))
        if fn in ("T.shift_left", "T.shift_right", "T.floordiv", "T.floormod", "T.truncdiv", "T.truncmod"):
            k = draw(st.integers(1, 4))
            return f"{fn}({a}, {k})", (lambda env: CALLS[fn](fa(env), k))
        b, fb = draw(tir_texts(depth - 1))
        return f"{fn}({a}, {b})", (lambda env: CALLS[fn](fa(env), fb(env)))
    if kind in ("//", "%"):
        k = draw(st.integers(1, 9))
        return f"({a} {kind} {k})", (lambda env: fa(env) // k if kind == "//" else fa(env) % k)
    b, fb = draw(tir_texts(depth - 1))
    return f"({a} {kind} {b})", (lambda env: fa(env) + fb(env) if kind == "+" else fa(env) * fb(env))


@given(tir_texts())
def test_tir_text_means_what_tvm_prints(case):
    text, fn = case
    e = parse(text, RANGES, dialect="tir")
    for i, j, r in itertools.product(range(8), range(0, 16, 3), range(2)):
        env = {"_i": i, "_j": j, "_rep": r}
        assert int(evaluate(e, env)) == fn(env), (text, env)


def test_printed_samples():
    e = parse("T.bitwise_xor(_j // 8, _i % 8) * 8 + _j % 8", RANGES, dialect="tir")
    assert int(evaluate(e, {"_i": 3, "_j": 9})) == (1 ^ 3) * 8 + 1
    assert int(evaluate(parse("T.int32(7) + _i", RANGES, dialect="tir"), {"_i": 1})) == 8
    assert int(evaluate(parse("T.bitwise_not(_i) & 7", RANGES, dialect="tir"), {"_i": 2})) == 5


@pytest.mark.parametrize(("text", "what"), [
    ("T.max(_i, _j)", "unsupported call T.max()"),
    ("T.if_then_else(_i, _j, 0)", "unsupported call T.if_then_else()"),
    ("T.bitwise_xor(_i)", "unsupported call T.bitwise_xor() with 1 argument"),
    ("T.bitwise_xor(_i, _j", "expected ')' closing T.bitwise_xor("),
    ("_i, _j", "unexpected ','"),
])
def test_tir_errors_name_the_call(text, what):
    with pytest.raises(ParseError, match=what.replace("(", r"\(").replace(")", r"\)")):
        parse(text, RANGES, dialect="tir")


def test_truncdiv_of_a_negative_operand_is_refused():
    with pytest.raises(LayoutError, match="truncates a possibly negative operand"):
        parse("T.truncdiv(_i - _j, 2)", RANGES, dialect="tir")


def test_python_dialect_keeps_commas_and_dots_out():
    with pytest.raises(ParseError):
        parse("T.bitwise_xor(a, b)")


@given(nonneg_trees())
def test_tir_printer_round_trips(e):
    """``tir_expr`` prints every operation of the IR so that the tir dialect reads back the same value everywhere."""
    back = parse(tir_expr(e), dict(VARS), dialect="tir")
    grid = np.meshgrid(*(np.arange(u) for _, u in VARS), indexing="ij")
    env = {n: g for (n, _), g in zip(VARS, grid, strict=True)}
    assert np.array_equal(np.broadcast_to(evaluate(back, env), grid[0].shape),
                          np.broadcast_to(evaluate(e, env), grid[0].shape))
