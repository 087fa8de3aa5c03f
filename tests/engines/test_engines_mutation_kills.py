"""Tests written for the mutants of ``layoutcheck/engines`` that the suite let live (docs/soundness.md, "Mutation
score"); each is named after the law it checks, against values computed here."""

from __future__ import annotations

import pytest

from layoutcheck import Verdict, prove
from layoutcheck.models.schedulers import TileScheduler
from layoutcheck.properties.residue import schedule_bijection

T = "(cta + ctas*iteration)"


def test_z3_refutes_a_loop_one_past_the_grid_naming_the_launch_outside() -> None:
    """A persistent loop over ``GM*GN + 1`` work indices with a column-major raster: the last index ``t = GM*GN``
    decodes to tile ``(0, GN)``, outside the grid. The z3 engine (it alone solves the formula for every grid) must
    refute it with an ``outside`` witness naming that launch (CTA ``t % ctas`` at iteration ``t // ctas``)."""
    s = TileScheduler("expr", ctas=4, tile_m=f"{T} % GM", tile_n=f"{T} // GM", total_expr="GM*GN + 1")
    r = prove(schedule_bijection(s, ((2, 3), (2, 3))), engine="z3", timeout=120)
    assert r.status is Verdict.REFUTED, r
    w = r.counterexample.data
    gm, gn = w["grid"]
    cta, it = w["index"]
    assert w["kind"] == "outside" and w["tile"] == [0, gn] and cta + 4 * it == gm * gn


def test_unknown_reason_puts_what_the_engines_said_before_the_engines_with_no_handler() -> None:
    """An UNKNOWN's reason says first why the engines that tried did not decide, then names (only) the engines that
    have no handler for the claim; when none tried, every engine's line is kept."""
    from layoutcheck.engines.prove import _NO_HANDLER, _unknown_reason

    idle = f"sympy: {_NO_HANDLER}claim"
    assert _unknown_reason(["z3: timeout after 1 s", idle]) == "z3: timeout after 1 s (no handler in sympy)"
    assert _unknown_reason(["z3: timeout after 1 s"]) == "z3: timeout after 1 s"
    assert _unknown_reason([idle, f"linear: {_NO_HANDLER}claim"]) == f"{idle}; linear: {_NO_HANDLER}claim"


def test_linear_in_bounds_finds_the_maximum_when_the_offset_sets_a_pivot_bit() -> None:
    """``Sw<1,0,1> o 2 + (2):(1)`` takes the values ``Sw(2) = 3`` and ``Sw(3) = 2``: over GF(2) the constant 3 already
    has the basis vector's lead bit 0 set, so the greedy maximum keeps it (3) instead of XOR-ing it away (2). The
    linear engine must refute ``in_bounds(3)`` at index 0, as brute force does."""
    from layoutcheck.algebra.layout import Layout
    from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
    from layoutcheck.properties.layout import in_bounds

    x = ComposedLayout(Swizzle(1, 0, 1), 2, Layout((2,), (1,)))
    assert [x.swizzle(x.offset + x.layout(i)) for i in range(2)] == [3, 2]
    r = prove(in_bounds(x, 3), engine="linear")
    assert r.status is Verdict.REFUTED and r.counterexample.data == {"kind": "out", "i": 0}
    assert prove(in_bounds(x, 4), engine="linear").status is Verdict.PROVEN


def test_structural_collision_witness_claims_at_least_its_owner_count() -> None:
    """The structural engine refutes ``exact_cover`` of ``((2,2),2):((1,1),1)`` over 8 elements by a collision of two
    modes: it knows 2 owners of element 1, which in fact has 3 (indices 1, 2, 4). Its own witness (kept in the stats
    beside the smallest one, found by enumeration) must say "at least 2" -- an exact count of 2 would be false."""
    from layoutcheck.algebra.layout import Layout
    from layoutcheck.properties.tv import exact_cover

    tv = Layout(((2, 2), 2), ((1, 1), 1))
    r = prove(exact_cover(tv, (8,)), engine="structural")
    assert r.status is Verdict.REFUTED
    w = r.stats["structural_witness"]
    owners = [i for i in range(8) if tv(i) == w["y"]]
    assert set(w["owners"]) <= set(owners) and len(owners) == 3 > w["count"] == 2
    assert w["at_least"] is True


class _Clock:
    """A ``time`` stand-in whose ``monotonic`` returns the given readings in turn."""

    def __init__(self, *readings: float) -> None:
        self._readings = iter(readings)

    def monotonic(self) -> float:
        return next(self._readings)


def test_z3_in_range_then_injective_gives_the_second_query_only_the_time_left(monkeypatch) -> None:
    """``onto`` (and every in-range-then-injective claim) runs two z3 queries under one timeout: the injective query
    may spend only what the range query left (10 s budget, 4 s spent: 6 s), and none is left when the first query
    used the whole budget -- then the answer is UNKNOWN ("timeout") and the second query never runs."""
    from layoutcheck.engines import z3 as z3e
    from layoutcheck.engines.base import Limits
    from layoutcheck.properties.base import Decision, Undecided

    given: list[Limits] = []
    monkeypatch.setattr(z3e, "_out_query", lambda x, n, limits: Decision(True))
    monkeypatch.setattr(z3e, "_injective_query", lambda x, limits: given.append(limits) or Decision(True))
    monkeypatch.setattr(z3e, "time", _Clock(100.0, 104.0))
    assert z3e._in_range_and_injective(None, 8, Limits(10.0)) == Decision(True)
    assert [lim.timeout for lim in given] == [6.0]
    monkeypatch.setattr(z3e, "time", _Clock(100.0, 112.0))
    assert z3e._in_range_and_injective(None, 8, Limits(10.0)) == Undecided("timeout")
    assert len(given) == 1


def test_z3_tilelang_bijection_gives_the_collision_query_only_the_time_left(monkeypatch) -> None:
    """The TileLang bijection runs the out-of-bounds query, then the collision query under what is left of the one
    timeout (10 s budget, 4 s spent: 6 s); with the budget spent it is UNKNOWN ("timeout") without a second query."""
    from layoutcheck.engines import z3 as z3e
    from layoutcheck.engines.base import Limits
    from layoutcheck.properties.base import Decision, Undecided

    given: list[Limits] = []
    refuted = Decision(False, {"kind": "collision"})
    monkeypatch.setattr(z3e, "_tl_outside", lambda x, limits: Decision(True))
    monkeypatch.setattr(z3e, "_tl_collision", lambda x, limits: given.append(limits) or refuted)
    monkeypatch.setattr(z3e, "time", _Clock(100.0, 104.0))
    assert z3e._tl_bijective(None, Limits(10.0)) == refuted
    assert [lim.timeout for lim in given] == [6.0]
    monkeypatch.setattr(z3e, "time", _Clock(100.0, 112.0))
    assert z3e._tl_bijective(None, Limits(10.0)) == Undecided("timeout")
    assert len(given) == 1


@pytest.mark.timeout(60)
def test_z3_minimises_a_collision_witness_by_bisection_in_few_checks() -> None:
    """``(8,2):(1,4)`` maps indices 4 and 8 (and others) to one offset: z3 finds some colliding pair, then lowers each
    index by bisection over ``[0, v]`` (``v <= mid`` unsat moves the lower end past ``mid``): at most 3 checks for
    ``i < 8`` and 4 for ``j < 16``, 1 + 3 + 4 in all, ending at the smallest pair ``(4, 8)`` as brute force finds
    it. A bisection that does not advance spins until the engine's 20 s deadline."""
    from layoutcheck.algebra.layout import Layout
    from layoutcheck.properties.layout import injective

    x = Layout((8, 2), (1, 4))
    pairs = [(i, j) for j in range(16) for i in range(j) if x(i) == x(j)]
    assert min(pairs) == (4, 8)
    r = prove(injective(x), engine="z3", timeout=20)
    assert r.status is Verdict.REFUTED and r.counterexample.data == {"kind": "collision", "i": 4, "j": 8}
    assert r.stats["checks"] <= 1 + 3 + 4, r.stats


def test_z3_width_holds_every_offset_plus_layout_value_of_a_composed_layout_signed() -> None:
    """``width_for`` promises bits in which a subject's offsets and partial sums never overflow, signed: for
    ``Sw<0,0,0> o 6 + (2):(3)`` the partial sums ``offset + L(i)`` are 6 and 9, so the width must hold 9 as a signed
    value (at least 5 bits) -- the offset added to the layout's span, not subtracted from it."""
    from layoutcheck.algebra.layout import Layout
    from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
    from layoutcheck.engines.z3 import width_for

    for off in (6, 5, 100, 1000):
        x = ComposedLayout(Swizzle(0, 0, 0), off, Layout((2,), (3,)))
        w = width_for(x)
        sums = [off + x.layout(i) for i in range(2)]
        assert all(-(1 << (w - 1)) <= v < 1 << (w - 1) for v in sums), (off, w, sums)


def test_z3_refutes_a_loop_one_row_past_the_grid_naming_the_launch_outside() -> None:
    """The row-major twin of the loop above: ``GM*GN + 1`` work indices with ``tile = (t // GN, t % GN)``; the last
    index ``t = GM*GN`` decodes to tile ``(GM, 0)``, one row past the grid (``m == GM`` is outside as much as
    ``n == GN`` is). The z3 engine must refute it with an ``outside`` witness naming that launch."""
    s = TileScheduler("expr", ctas=4, tile_m=f"{T} // GN", tile_n=f"{T} % GN", total_expr="GM*GN + 1")
    r = prove(schedule_bijection(s, ((2, 3), (2, 3))), engine="z3", timeout=120)
    assert r.status is Verdict.REFUTED, r
    w = r.counterexample.data
    gm, gn = w["grid"]
    cta, it = w["index"]
    assert w["kind"] == "outside" and w["tile"] == [gm, 0] and cta + 4 * it == gm * gn


def test_z3_refutes_a_schedule_shifted_one_row_down_whose_count_is_right() -> None:
    """``tile = ((t + GN) // GN, t % GN)`` over ``GM*GN`` work indices: rows 1..GM, so the last row is one past the
    grid (``m == GM``) and row 0 is never computed, yet the launch count equals the tile count and no tile is hit
    twice. Only the ``outside`` query sees it (``m >= GM``): with ``m > GM`` there, the count's pigeonhole PROVED it."""
    s = TileScheduler("expr", ctas=4, tile_m=f"({T} + GN) // GN", tile_n=f"{T} % GN", total_expr="GM*GN")
    r = prove(schedule_bijection(s, ((1, 64), (1, 64))), engine="z3", timeout=120)
    assert r.status is Verdict.REFUTED, r
    assert r.counterexample.data["kind"] == "outside" and r.counterexample.data["tile"] == [1, 0]
    assert prove(schedule_bijection(s, ((1, 64), (1, 64))), engine="exhaustive").counterexample.data == \
        r.counterexample.data
