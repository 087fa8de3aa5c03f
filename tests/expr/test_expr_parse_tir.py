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
    ("T.max(_i)", "unsupported call T.max() with 1 argument"),
    ("T.if_then_else(_i, _j)", "unsupported call T.if_then_else() with 2 argument"),
    ("T.popcount(_i)", "unsupported call T.popcount()"),
    ("_i < _j <= 3", "chained comparison"),
    ("_i and", "expression ends early"),
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


# -- T.max / T.min, T.if_then_else / T.Select, comparisons, and / or / not ----------------------------------------
COMPARE = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt,
           ">=": operator.ge}


@st.composite
def tir_preds(draw, depth: int = 2) -> tuple[str, object]:
    """A random TIR condition (comparisons, ``and``/``or``/``not``) and a Python function computing it."""
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        (a, fa), (b, fb) = draw(tir_texts(1)), draw(tir_texts(1))
        op = draw(st.sampled_from(sorted(COMPARE)))
        return f"{a} {op} {b}", (lambda env: COMPARE[op](fa(env), fb(env)))
    kind = draw(st.sampled_from(["and", "or", "not"]))
    p, fp = draw(tir_preds(depth - 1))
    if kind == "not":
        return f"not ({p})", (lambda env: not fp(env))
    q, fq = draw(tir_preds(depth - 1))
    if kind == "and":
        return f"({p}) and ({q})", (lambda env: fp(env) and fq(env))
    return f"({p}) or ({q})", (lambda env: fp(env) or fq(env))


@st.composite
def tir_selects(draw) -> tuple[str, object]:
    """A random ``T.if_then_else`` / ``T.Select`` / ``T.max`` / ``T.min`` over TIR operands."""
    (a, fa), (b, fb) = draw(tir_texts(2)), draw(tir_texts(2))
    kind = draw(st.sampled_from(["T.if_then_else", "T.Select", "T.max", "T.min"]))
    if kind in ("T.max", "T.min"):
        f = max if kind == "T.max" else min
        return f"{kind}({a}, {b})", (lambda env: f(fa(env), fb(env)))
    c, fc = draw(tir_preds())
    return f"{kind}({c}, {a}, {b})", (lambda env: fa(env) if fc(env) else fb(env))


@given(st.one_of(tir_preds(), tir_selects()))
def test_conditions_and_selects_mean_what_tvm_prints(case):
    """Comparisons from ``lt`` / ``lnot`` / ``land`` / ``lor`` equal Python's at every point (negative values too:
    ``_i - 8``)."""
    text, fn = case
    e = parse(text, RANGES, dialect="tir")
    for i, j, r in itertools.product(range(8), range(0, 16, 3), range(2)):
        env = {"_i": i, "_j": j, "_rep": r}
        assert int(evaluate(e, env)) == int(fn(env)), (text, env)


def test_precedence_of_the_logic_words():
    """Python's (and TVMScript's): ``not`` binds looser than a comparison, ``and`` tighter than ``or``."""
    e = parse("not _i < 3 or _i == 5 and _j != 0", RANGES, dialect="tir")
    for i, j in itertools.product(range(8), range(16)):
        assert bool(evaluate(e, {"_i": i, "_j": j})) == ((not i < 3) or (i == 5 and j != 0))
    assert parse("_i < 3", RANGES, dialect="tir").op == "lt"
    assert parse("_i >= 3", RANGES, dialect="tir").op == "lnot"
    e = parse("(_i < 3) * 5 + T.Select(_j, 1, 2)", RANGES, dialect="tir")  # TIR casts: bool -> int, int -> bool
    assert [int(evaluate(e, {"_i": i, "_j": j})) for i, j in ((0, 0), (4, 7))] == [7, 1]


@given(st.one_of(tir_preds(), tir_selects()))
def test_the_printer_and_z3_agree(case):
    """``tir_expr`` reads back to the same value; Z3's bit-vector term has the NumPy value (signed ``<``)."""
    import z3

    from layoutcheck.expr.z3 import to_z3

    text, _ = case
    e = parse(text, RANGES, dialect="tir")
    back = parse(tir_expr(e), RANGES, dialect="tir")
    syms = {n: z3.BitVec(n, 24) for n in RANGES}
    term = to_z3(e, syms, 24)
    for i, j, r in ((0, 0, 0), (3, 9, 1), (7, 15, 0), (5, 2, 1)):
        env = {"_i": i, "_j": j, "_rep": r}
        want = int(evaluate(e, env))
        assert int(evaluate(back, env)) == want
        got = z3.simplify(z3.substitute(term, *[(syms[n], z3.BitVecVal(v, 24)) for n, v in env.items()]))
        assert (z3.is_true(got) if z3.is_bool(got) else got.as_signed_long()) == want, text
