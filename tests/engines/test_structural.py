"""The structural engine on huge layouts (decided from strides, nothing enumerated), its worked cases, what it declines,
the fixed ``auto`` order, and z3 honouring its own timeout on a case it cannot decide."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from layoutcheck import ComposedLayout, Layout, Swizzle, Verdict, prove
from layoutcheck.engines.base import AUTO_ORDER, engines
from layoutcheck.properties.layout import bijective, equivalent, in_bounds, injective, surjective
from layoutcheck.properties.tv import exact_cover, vectorizable

HUGE = Layout((1000000, 1000000), (1, 1000000))  # 10**12 points, not a power of two: only structure decides it


def _timed(prop, **kw):
    engines()  # imports outside the timing
    t0 = time.perf_counter()
    r = prove(prop, **kw)
    return r, time.perf_counter() - t0


def test_huge_injective_proven_instantly() -> None:
    r, dt = _timed(injective(HUGE))
    assert r.status is Verdict.PROVEN and r.engine == "structural" and dt < 0.1, (r, dt)
    r, dt = _timed(bijective(HUGE))
    assert r.status is Verdict.PROVEN and r.engine == "structural" and dt < 0.1, (r, dt)


def test_huge_refutations_are_rechecked_witnesses() -> None:
    bad = Layout((1000000, 1000000), (1, 999999))  # 999999 * 1 == 1 * 999999
    r, dt = _timed(injective(bad))
    i, j = r.counterexample.data["i"], r.counterexample.data["j"]
    assert r.status is Verdict.REFUTED and dt < 0.1 and i < j and bad(i) == bad(j), r
    neg = Layout((1000000, 1000), (1, -999))  # opposite signs: 999 * 1 + 1 * (-999) == 0
    r = prove(injective(neg), engine="structural")
    assert r.status is Verdict.REFUTED and r.counterexample.data["i"] == 0 and neg(r.counterexample.data["j"]) == 0
    r = prove(in_bounds(neg, 1000000), engine="structural")
    assert r.status is Verdict.REFUTED and r.counterexample.data["i"] == 1000000 and neg(1000000) == -999, r  # smallest


def test_out_witness_is_the_smallest_index_on_2_pow_40_points() -> None:
    """Issue #30: the counterexample is the smallest index outside, not the largest (1099511627775)."""
    for x, bound, want in ((Layout(1 << 40, 1), 1000, 1000), (Layout((1 << 20, 1 << 20), (1, 1 << 20)), 1000, 1000),
                           (Layout((1 << 20, 1 << 20), (1 << 20, 1)), 1 << 20, 1), (Layout((1 << 20, 1 << 20),
                                                                                            (3, -5)), 7, 3)):
        r = prove(in_bounds(x, bound), engine="structural")
        assert r.status is Verdict.REFUTED and r.counterexample.data["i"] == want, r


def test_huge_surjective_with_broadcast_modes() -> None:
    x = Layout((1000, 7, 1000), (1, 0, 1000))  # the stride-0 mode repeats the compact image [0, 10**6)
    r = prove(surjective(x, 1000000), engine="structural")
    assert r.status is Verdict.PROVEN and "stride-0 modes dropped" in r.stats["rule"], r
    assert prove(bijective(x, 7000000), engine="structural").status is Verdict.REFUTED  # a collision at 0 and 1000


def test_worked_cases_of_the_docstring() -> None:
    r = prove(injective(Layout((4, 2), (2, 2))), engine="structural")
    assert str(r.counterexample) == "indices 1 and 4 collide: (1,0) -> 2 and (0,1) -> 2"
    r = prove(injective(Layout((4, 2), (1, -2))), engine="structural")
    assert (r.counterexample.data["i"], r.counterexample.data["j"]) == (0, 6)
    r = prove(injective(Layout((3, 3, 2), (2, 3, 7))), engine="structural")
    assert r.status is Verdict.REFUTED and r.stats["rule"] == "prefix"
    r = prove(injective(Layout((3, 3, 1 << 30), (2, 3, 16))), engine="structural")
    assert r.status is Verdict.PROVEN and r.stats["rule"] == "prefix+chain"
    r = prove(bijective(ComposedLayout(Swizzle(3, 4, 3), 0, Layout((64, 64), (64, 1)))), engine="structural")
    assert r.status is Verdict.PROVEN


def test_swizzle_block_rule_declines_when_the_codomain_is_not_whole_blocks() -> None:
    x = ComposedLayout(Swizzle(1, 0, 3), 0, Layout(8, 1))  # reads bit 3, which [0,8) never sets: identity here
    r = prove(bijective(x), engine="structural")
    assert r.status is Verdict.UNKNOWN and "not provably inside [0,8)" in r.reason, r
    assert prove(bijective(x)).engine == "linear"
    r = prove(injective(ComposedLayout(Swizzle(2, 1, -3), 5, Layout((3, 5), (5, 1)))), engine="structural")
    assert r.status is Verdict.PROVEN  # a swizzle is a bijection of the integers: injective iff the layout is


def test_declines_what_it_cannot_decide() -> None:
    a = Layout((4, 2), (2, 1))
    for prop in (equivalent(a, a), vectorizable(Layout((4, 8), (8, 1)), 8, 4),
                 exact_cover(Layout((8, 2), (1, 8)), (4, 2), 2, frame=(8, 2)),
                 injective(Layout((1 << 17, 2, 2), (2, 3, 5)))):
        r = prove(prop, engine="structural")
        assert r.status is Verdict.UNKNOWN and r.reason, r


def test_z3_honours_its_timeout_on_the_huge_case() -> None:
    # HUGE itself coalesces to 10**12:1 in the expression IR (z3 proves it at once); this one does not coalesce
    hard = Layout((1000000, 1000000), (1000001, 1))
    r, dt = _timed(injective(hard), engine="z3", timeout=1)
    assert r.status is Verdict.UNKNOWN and "timeout" in r.reason and dt < 2.5, (r, dt)


BUILTIN = ["structural", "linear", "exhaustive", "z3", "sympy"]
ORDERS = [
    ("sympy", "z3", "exhaustive", "linear", "structural"),
    ("exhaustive", "structural", "sympy", "linear", "z3"),
]
SCRIPT = """
import importlib, sys
from layoutcheck.engines.base import AUTO_ORDER, Engine, register_engine
class Mine(Engine):
    name = "mine"
register_engine(Mine())  # a third-party engine registered before the built-ins still runs after them
for mod in sys.argv[1:]:
    importlib.import_module("layoutcheck.engines." + mod)
print(",".join(AUTO_ORDER))
"""


def test_auto_order() -> None:
    engines()
    assert AUTO_ORDER == BUILTIN


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o[0])
def test_auto_order_is_independent_of_import_order(order) -> None:
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", SCRIPT, *order], capture_output=True, text=True, check=True, cwd=root)
    assert out.stdout.strip().split(",") == [*BUILTIN, "mine"]


def test_stride_0_collision_is_the_smallest_pair_on_huge_layouts() -> None:
    """Issue #30: with a stride-0 mode, index 0 collides, and its smallest partner may come before that mode."""
    x = Layout((2, 2, 2, 1 << 38), (1, -1, 0, 4))  # (1,1,0,0) -> 0 == L(0): index 3, before the stride-0 mode (4)
    r = prove(injective(x), engine="structural")
    assert r.status is Verdict.REFUTED and (r.counterexample.data["i"], r.counterexample.data["j"]) == (0, 3), r
    small = Layout((2, 2, 2, 4), (1, -1, 0, 4))
    ref = prove(injective(small), engine="exhaustive").counterexample.data
    assert (ref["i"], ref["j"]) == (0, 3)
