"""TileLang maps with no CuTe or linear form (``T.max`` / ``T.min`` / ``T.if_then_else`` / comparisons): the Z3
engine agrees with the exhaustive engine -- the same verdict and the same (first, smallest) witness -- on every
claim of the real TileLang samples and on hand-made maps, and decides maps whose domain is past the exhaustive
engine's memory budget."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutcheck import Verdict, prove
from layoutcheck.expr.numpy import evaluate
from layoutcheck.expr.parse import parse
from layoutcheck.expr.z3 import value_range, width_of
from layoutcheck.importers.tilelang import parse_tilelang
from layoutcheck.properties.base import Property
from layoutcheck.properties.tilelang import tilelang_claims, tilelang_property

pytest.importorskip("z3")

DATA = Path(__file__).resolve().parents[1] / "data" / "tilelang"
SAMPLES = sorted(p for p in DATA.iterdir() if p.suffix in (".txt", ".tir"))
CLAIMS = ("in_bounds", "injective", "bijective")


def assert_agree(prop: Property) -> None:
    """Both engines decide ``prop`` alike; a refutation carries the exhaustive engine's witness and re-checks. The
    one exception: a bijection with fewer points than slots, in bounds and injective, misses a slot that Z3 does not
    look for (UNKNOWN, never PROVEN)."""
    ex, z = prove(prop, engine="exhaustive"), prove(prop, engine="z3", timeout=60)
    assert ex.status is not Verdict.UNKNOWN, ex.reason
    if ex.counterexample is not None and ex.counterexample.data["kind"] == "missing":
        assert z.status is Verdict.UNKNOWN and "quantifier" in z.reason
        return
    assert z.status is ex.status, (z.reason, ex.counterexample)
    if ex.status is Verdict.REFUTED:
        assert z.counterexample.data == ex.counterexample.data
        assert z.counterexample.text == ex.counterexample.text
        assert prop.recheck(z.counterexample.data)


@pytest.mark.slow
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_z3_agrees_with_exhaustive_on_every_sample_claim(path: Path) -> None:
    claims = tilelang_claims(path.read_text())
    assert claims
    for c in claims:
        assert_agree(c.prop)


HAND_MADE = [
    # correct: two column blocks stored one after the other
    "Layout((16, 12) -> (192,), transform: (_i, _j) -> (T.if_then_else(_j < 8, _i * 8 + _j, _i * 4 + _j + 120),))",
    # broken: the tail block overlaps the body (collision), and a clamp (T.min) folds the last row
    "Layout((16, 12) -> (192,), transform: (_i, _j) -> (T.if_then_else(_j < 8, _i * 8 + _j, _i * 4 + _j + 116),))",
    "Layout((8, 8) -> (64,), transform: (_i, _j) -> (T.min(_i, 6) * 8 + _j,))",
    # a reflection: correct into (24, 16), broken (negative coordinate) when the reflection overshoots
    "Layout((16, 16) -> (24, 16), transform: (_i, _j) -> (T.Select(_i < 8, _i, 23 - _i), _j))",
    "Layout((16, 16) -> (16, 16), transform: (_i, _j) -> (T.Select(_i < 8, _i, 7 - _i), _j))",
    # max / min: a folded square (2-d and 1-d: collisions); a transposed upper triangle sent past the extent
    "Layout((8, 8) -> (8, 8), transform: (_i, _j) -> (T.max(_i, _j), T.min(_i, _j)))",
    "Layout((8, 8) -> (64,), transform: (_i, _j) -> (T.max(_i, _j) * 8 + T.min(_i, _j),))",
    "Layout((8, 8) -> (64,), transform: (_i, _j) -> (T.if_then_else(_j <= _i, _i * 8 + _j, _j * 8 + _i + 64),))",
    # a conditional xor swizzle, correct and with the condition wrong in one row
    "Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8 + T.bitwise_xor(_j, T.Select(_i % 2 == 1, 1, 0)),))",
    "Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8 + T.bitwise_xor(_j, T.Select(_i == 3, 8, 0)),))",
    # fragments: a column tail in a third register of 64 threads (correct), one whose tail threads run past the
    # thread count, and replicas of a folded square (collisions)
    "Fragment((16, 12) -> (3,), replicate: 1, thread: 64, forward_thread: T.if_then_else(_j < 8, _i * 4 + _j // 2, "
    "_i * 4 + (_j - 8)), forward_index: (T.if_then_else(_j < 8, _j % 2, 2),))",
    "Fragment((16, 12) -> (3,), replicate: 1, thread: 32, forward_thread: T.if_then_else(_j < 8, _i * 2 + _j // 4, "
    "_i * 4 + (_j - 8)), forward_index: (T.if_then_else(_j < 8, _j % 4, 2),))",
    "Fragment((8, 8) -> (2,), replicate: 2, thread: 64, forward_thread: _rep * 32 + T.max(_i, _j) * 4 + _j // 2, "
    "forward_index: (_j % 2,))",
]


@pytest.mark.parametrize("text", HAND_MADE)
def test_z3_agrees_with_exhaustive_on_hand_made_maps(text: str) -> None:
    x = parse_tilelang(text)
    for name in CLAIMS:
        assert_agree(tilelang_property(name, x))


PIECE = st.tuples(st.integers(-3, 9), st.integers(-3, 9), st.integers(-8, 40))


def _affine(p: tuple[int, int, int]) -> str:
    return f"_i * {p[0]} + _j * {p[1]} + {p[2]}"


@st.composite
def conditional_maps(draw: st.DrawFn) -> str:
    """A 2-d TileLang Layout whose one output coordinate is an affine piece under ``if_then_else`` / ``max`` /
    ``min`` (any verdict: in bounds or not, injective or not)."""
    m, n = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    a, b = _affine(draw(PIECE)), _affine(draw(PIECE))
    form = draw(st.sampled_from([f"T.if_then_else(_j < {draw(st.integers(0, n))}, {a}, {b})",
                                 f"T.if_then_else(_i <= _j, {a}, {b})", f"T.max({a}, {b})", f"T.min({a}, {b})"]))
    return f"Layout(({m}, {n}) -> ({draw(st.integers(1, 80))},), transform: (_i, _j) -> ({form},))"


@st.composite
def conditional_fragments(draw: st.DrawFn) -> str:
    """A 2-d TileLang Fragment with replicas: thread and register each an affine piece under ``if_then_else`` or
    ``max`` (any verdict)."""
    m, n, rep = draw(st.integers(1, 6)), draw(st.integers(1, 6)), draw(st.integers(1, 2))
    a, b = _affine(draw(PIECE)), _affine(draw(PIECE))
    c = draw(st.integers(0, n))
    thread = draw(st.sampled_from([f"_rep * 16 + T.if_then_else(_j < {c}, {a}, {b}) % 16",
                                   f"T.max({a}, {b}) + _rep * {draw(st.integers(0, 20))}"]))
    index = draw(st.sampled_from([f"T.if_then_else(_j < {c}, 0, 1)", f"T.min(_j, {draw(st.integers(0, 3))})"]))
    return (f"Fragment(({m}, {n}) -> ({draw(st.integers(1, 3))},), replicate: {rep}, thread: "
            f"{draw(st.integers(1, 40))}, forward_thread: {thread}, forward_index: ({index},))")


@settings(max_examples=40, deadline=None)
@given(st.one_of(conditional_maps(), conditional_fragments()))
def test_z3_agrees_with_exhaustive_on_generated_conditional_maps(text: str) -> None:
    x = parse_tilelang(text)
    for name in CLAIMS:
        assert_agree(tilelang_property(name, x))


BIG = 1 << 13  # a (8192, 8192) domain: 2^26 points, about 2 GiB for the exhaustive engine


OUT = {"kind": "out", "i": BIG * BIG - 1, "dim": 0, "value": BIG * BIG, "extent": BIG * BIG}


@pytest.mark.parametrize(("body", "witnesses"), [
    (f"T.if_then_else(_j < {BIG // 2}, _i * {BIG // 2} + _j, _i * {BIG // 2} + _j + {BIG * BIG // 2 - BIG // 2})",
     {}),
    (f"T.max(_i, _j) * {BIG} + T.min(_i, _j)",
     {"injective": {"kind": "collision", "i": 1, "j": BIG}, "bijective": {"kind": "collision", "i": 1, "j": BIG}}),
    (f"T.if_then_else(_j < {BIG - 1}, _i * {BIG} + _j, _i * {BIG} + _j + 1)",  # the last column steps one too far
     {"in_bounds": OUT, "injective": {"kind": "collision", "i": 1, "j": BIG * (BIG - 1)}, "bijective": OUT}),
], ids=["split-columns", "folded-square", "tail-overshoot"])
def test_z3_decides_a_map_past_the_exhaustive_budget(body: str, witnesses: dict[str, dict]) -> None:
    """2^26 points: the exhaustive engine declines under a 1 MiB budget, ``auto`` falls through to Z3, which reports
    the witness enumeration would report first (each re-checked at its points)."""
    x = parse_tilelang(f"Layout(({BIG}, {BIG}) -> ({BIG * BIG},), transform: (_i, _j) -> ({body},))")
    for name in CLAIMS:
        prop = tilelang_property(name, x)
        assert prop.domain_size() == 1 << 26
        assert prove(prop, engine="exhaustive", memory_budget=1 << 20).status is Verdict.UNKNOWN
        r = prove(prop, memory_budget=1 << 20, timeout=60)
        assert r.engine == "z3", r.reason
        assert r.status is (Verdict.REFUTED if name in witnesses else Verdict.PROVEN), r.reason
        assert (r.counterexample.data if r.counterexample else None) == witnesses.get(name)


def test_an_exhausted_resource_limit_is_unknown_never_proven() -> None:
    x = parse_tilelang(f"Layout(({BIG}, {BIG}) -> ({BIG * BIG},), transform: (_i, _j) -> (T.max(_i, _j) * {BIG} + "
                       "T.min(_i, _j),))")
    for name in CLAIMS:
        r = prove(tilelang_property(name, x), engine="z3", rlimit=100)
        assert r.status is Verdict.UNKNOWN and "resource limit" in r.reason


def test_a_bijection_with_fewer_points_than_slots_is_unknown_not_proven() -> None:
    x = parse_tilelang("Layout((4, 4) -> (20,), transform: (_i, _j) -> (T.min(_i, 3) * 5 + _j,))")
    assert prove(tilelang_property("bijective", x), engine="z3").status is Verdict.UNKNOWN
    assert prove(tilelang_property("bijective", x), engine="exhaustive").status is Verdict.REFUTED


def test_an_expression_with_a_divisor_that_may_be_zero_is_unknown() -> None:
    x = parse_tilelang("Layout((4, 4) -> (16,), transform: (_i, _j) -> (_i // _j + _j * 4,))")
    r = prove(tilelang_property("in_bounds", x), engine="z3")
    assert r.status is Verdict.UNKNOWN and "no bit-vector encoding" in r.reason


@pytest.mark.parametrize("text", ["_i - _j * 3", "T.max(_i, 7 - _j) * 5 // 2", "T.bitwise_xor(_i, _j) % 3 - 4",
                                  "T.if_then_else(_i < _j, _i - 20, _j * _i)", "T.min(_i * -2, _j) // 3"])
def test_value_range_holds_every_value(text: str) -> None:
    e = parse(text, {"_i": 8, "_j": 8}, dialect="tir")
    lo, hi = value_range(e)
    values = [int(evaluate(e, {"_i": i, "_j": j})) for i in range(8) for j in range(8)]
    assert lo <= min(values) and max(values) <= hi
    assert max(abs(lo), abs(hi)).bit_length() < width_of(e)


def test_the_z3_engine_handles_the_claims_without_loading_them() -> None:
    """The handlers are keyed by the claims' qualified names (``check`` of other specs never imports the TileLang
    importers); each name resolves to its claim."""
    from layoutcheck.engines.z3 import Z3

    x = parse_tilelang("Layout((4,) -> (4,), transform: (_i,) -> (T.min(_i, 3),))")
    assert all(Z3.supports(tilelang_property(name, x)) is None for name in CLAIMS)
