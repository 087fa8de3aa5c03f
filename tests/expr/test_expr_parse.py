"""User expressions (``layoutcheck.expr.parse``) mean what Python means by the same text, on every point tried."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from layoutcheck.errors import LayoutError, ParseError
from layoutcheck.expr.ir import Op
from layoutcheck.expr.numpy import evaluate
from layoutcheck.expr.parse import parse

RANGES = {"lane": 32, "r": 4, "s": 2}


@st.composite
def texts(draw, depth: int = 3) -> str:
    """A random expression in Python syntax over ``RANGES`` with no division by zero and small shifts."""
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from([*RANGES, "0", "3", "7", "0x10", "0b101", "128"]))
    a = draw(texts(depth - 1))
    op = draw(st.sampled_from(["+", "-", "*", "//", "/", "%", "^", "&", "|", "<<", ">>", "~", "-u", "()"]))
    if op in ("~", "-u"):
        return f"{op[0]}({a})"
    if op == "()":
        return f"({a})"
    if op in ("//", "/", "%"):  # parenthesised: the divisor stays the literal
        return f"({a} {op} {draw(st.integers(1, 9))})"
    if op in ("<<", ">>"):
        return f"({a} {op} {draw(st.integers(0, 4))})"
    return f"{a} {op} {draw(texts(depth - 1))}"


@given(texts())
def test_parsed_text_evaluates_like_python(text: str) -> None:
    lane, r, s = np.meshgrid(np.arange(32), np.arange(4), np.arange(2), indexing="ij")
    env = {"lane": lane.ravel(), "r": r.ravel(), "s": s.ravel()}
    py = eval(text.replace("/", "//").replace("////", "//"), {}, {k: v.astype(object) for k, v in env.items()})
    try:
        tree = parse(text, RANGES)
    except LayoutError as e:  # C's / or % of a possibly negative operand: two meanings, refused (test_expr_formula)
        assert "truncates toward zero" in str(e)
        assume(False)
    got = evaluate(tree, env)
    assert np.array_equal(np.broadcast_to(np.asarray(got, dtype=np.int64), lane.size), np.broadcast_to(
        np.asarray(py, dtype=np.int64), lane.size)), text


def test_nodes_are_as_written() -> None:
    e = parse("s*128 + (r ^ ((lane >> 3) & 3)) % 4 * 32 + lane", RANGES)
    assert e.op == "add" and int(evaluate(e, {"s": 1, "r": 1, "lane": 8})) == 128 + 0 + 8
    assert isinstance(parse("r * s", RANGES), Op) and parse("r * 4", RANGES).op == "mul"
    assert parse("4 * r", RANGES) == parse("r * 4", RANGES)


def test_errors_name_the_place() -> None:
    with pytest.raises(ParseError, match="column 7"):
        parse("lane ** 2", RANGES)
    with pytest.raises(ParseError):
        parse("__import__('os')")
    with pytest.raises(ParseError, match="ends early"):
        parse("lane +", RANGES)
    with pytest.raises(LayoutError, match="unknown variable 'q'; known: lane, r, s"):
        parse("q + 1", RANGES)
    with pytest.raises(LayoutError, match="divides by the constant 0"):
        parse("lane % 0", RANGES)
