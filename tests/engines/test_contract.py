"""The verdict contract: limits give UNKNOWN (never PROVEN), bad inputs raise before any engine runs, the budget
refuses large enumerations, the linear and z3 engines decide 2**32-element domains fast, ``auto`` names its engine."""

from __future__ import annotations

import time

import pytest

from layoutcheck import (
    ComposedLayout,
    Layout,
    LayoutError,
    Swizzle,
    Verdict,
    bijective,
    equivalent,
    exact_cover,
    in_bounds,
    injective,
    make_layout_tv,
    prove,
    surjective,
    vectorizable,
)

BIG = ComposedLayout(Swizzle(3, 4, 3), 0, Layout((1 << 16, 1 << 16), (1 << 16, 1)))  # 2**32 elements


@pytest.mark.parametrize("limits", [{"rlimit": 1}, {"timeout": 1e-9}], ids=["rlimit", "timeout"])
def test_forced_limits_give_unknown(limits) -> None:
    for prop in (bijective(BIG), injective(Layout((64, 64), (1, 63)))):
        r = prove(prop, engine="z3", **limits)
        assert r.status is Verdict.UNKNOWN and r.reason, r


def test_auto_never_proves_from_a_timeout() -> None:
    r = prove(injective(Layout((3, 5, 7), (35, 7, 1))), timeout=1e-9)
    assert r.status is Verdict.UNKNOWN


def test_exhaustive_refuses_beyond_budget() -> None:
    r = prove(bijective(BIG), engine="exhaustive")
    assert r.status is Verdict.UNKNOWN and "domain too large" in r.reason
    r = prove(injective(Layout(4096, 1)), engine="exhaustive", memory_budget=1024)
    assert r.status is Verdict.UNKNOWN and "4096" in r.reason


def test_sampled_sympy_cannot_prove() -> None:
    # (3,4):(4,1) vs (3,4):(4,1) as a different but equal expression: proven symbolically or UNKNOWN, never by probes
    a, b = Layout((2, 3), (3, 1)), Layout((2, 3), (1, 2))
    r = prove(equivalent(a, b), engine="sympy")
    assert r.status is Verdict.REFUTED and a(r.counterexample.data["i"]) != b(r.counterexample.data["i"])


@pytest.mark.parametrize("make", [
    lambda: exact_cover(Layout(8, 1), 8),                       # not rank 2
    lambda: vectorizable(Layout((4, 6), (6, 1)), 16, 4),        # 6 values do not split into 4-vectors
    lambda: vectorizable(Layout((4, 8), (8, 1)), 6, 4),         # 6 bytes is not a multiple of 4
    lambda: in_bounds(Layout(4, 1), 0),
    lambda: injective("(4,2):(1"),
    lambda: injective(42),
])
def test_mismatched_inputs_raise_layout_error(make) -> None:
    with pytest.raises(LayoutError):
        make()


@pytest.mark.parametrize(("make", "fragment"), [
    (lambda: surjective(Layout(8, 2), 8), "-> 8 is outside [0,8)"),               # image reaches 14
    (lambda: bijective(Layout(4, -1), 4), "-> -1 is outside [0,4)"),              # negative offsets
    (lambda: exact_cover(Layout((4, 2), (1, 4)), (4, 4)), "owned 0 times"),       # size 8 vs tile 16
    (lambda: exact_cover(Layout((4, 2), (1, 4)), 4, 3), "outside the tile"),      # 8 != 3 * 4
    (lambda: equivalent(Layout(8, 1), Layout(4, 1)), "sizes differ"),             # sizes differ
])
def test_mismatches_are_the_layouts_fault_refuted_by_every_engine(make, fragment) -> None:
    # issue 14: a wrong layout is REFUTED with a re-checked witness, never "bad input"
    for engine in ("auto", "exhaustive", "linear", "structural", "z3"):
        r = prove(make(), engine=engine)
        assert r.status in (Verdict.REFUTED, Verdict.UNKNOWN), (engine, r)
        if engine in ("auto", "exhaustive"):
            assert r.status is Verdict.REFUTED and fragment in str(r.counterexample), (engine, r)


def test_large_power_of_two_swizzle_linear_and_z3_fast() -> None:
    t0 = time.perf_counter()
    r = prove(bijective(BIG), engine="linear")
    assert r.proven and time.perf_counter() - t0 < 0.1, r
    t0 = time.perf_counter()
    r = prove(bijective(BIG), engine="z3")
    assert r.proven and time.perf_counter() - t0 < 5, r
    bad = ComposedLayout(Swizzle(3, 4, 3), 0, Layout((1 << 16, 1 << 16), (1 << 16, 0)))
    for eng in ("linear", "z3"):
        r = prove(injective(bad), engine=eng)
        assert r.status is Verdict.REFUTED and bad(r.counterexample.data["i"]) == bad(r.counterexample.data["j"])
        assert (r.counterexample.data["i"], r.counterexample.data["j"]) == (0, 1 << 16), r


def test_auto_reports_the_engine_that_decided() -> None:
    # structural comes first: compact under a swizzle, two coprime modes, a chain of 3 * 2**30 points
    assert prove(bijective(BIG)).engine == "structural"
    assert prove(injective(Layout((3, 5), (5, 1)))).engine == "structural"
    big_nonlinear = Layout((3, 1 << 30), (1 << 30, 1))
    r = prove(injective(big_nonlinear))
    assert r.proven and r.engine == "structural", r
    # replicated exact cover: a stride-0 thread mode replicating twice, decided structurally
    assert prove(exact_cover(Layout(((4, 2), 2), ((1, 0), 4)), 8, 2)).engine == "structural"
    # carries and a 2**19-point non-chain prefix: structural and linear decline, exhaustive decides
    assert prove(injective(Layout((1 << 17, 2, 2), (2, 3, 5)))).engine == "exhaustive"
    # the same shape of problem at 2**33 points: only z3 can decide
    r = prove(injective(Layout((1 << 30, 2, 2, 2), (2, 3, 5, 1 << 32))))
    assert r.engine == "z3" and r.status is not Verdict.UNKNOWN, r


def test_counterexample_text_is_in_cute_coordinates() -> None:
    r = prove(injective(Layout((4, 2), (2, 2))))
    assert str(r.counterexample) == "indices 1 and 4 collide: (1,0) -> 2 and (0,1) -> 2"
    r = prove(exact_cover(Layout((4, 2), (1, 2)), (2, 4)), engine="exhaustive")
    assert "tile element (0,1) is owned 2 times (expected 1): (thread 2, value 0), (thread 0, value 1)" \
        in str(r.counterexample)
    assert r.stats["missing"] == 2 and r.stats["over_owned"] == 2


def test_exact_cover_of_make_layout_tv_and_stats() -> None:
    tiler, tv = make_layout_tv(Layout((4, 8), (8, 1)), Layout((2, 4), (4, 1)))
    for eng in ("linear", "exhaustive", "z3"):
        assert prove(exact_cover(tv, tiler), engine=eng).proven


def test_exact_cover_replicated() -> None:
    tv = Layout((8, 2), (1, 0))  # 8 threads x 2 values; both values of a thread own the same element
    r = prove(exact_cover(tv, 8, 2), engine="exhaustive")
    assert r.status is Verdict.REFUTED and r.counterexample.data["kind"] == "same_thread"
    tv = Layout(((4, 2), 2), ((1, 0), 4))  # threads t and t+4 share each element: replication 2
    for eng in ("linear", "exhaustive"):
        assert prove(exact_cover(tv, 8, 2), engine=eng).proven


def test_vectorizable_reports_failing_vector_count() -> None:
    r = prove(vectorizable(Layout((4, 8), (1, 4)), 8, 4), engine="exhaustive")
    assert r.status is Verdict.REFUTED and r.stats["failing_vectors"] == 16
    assert prove(vectorizable(Layout((4, (2, 4)), (2, (1, 8))), 8, 4)).proven


def test_sympy_formula_in_stats() -> None:
    r = prove(in_bounds(Layout((4, 2), (2, 1)), 8), engine="sympy")
    assert r.proven and r.stats["formula"] == "2*(Mod(i, 4)) + floor(i/4)"
