"""Ragged problems: the Z3 engine's proofs over all sizes agree with the exhaustive engine over small ranges, and
its counterexamples are the smallest failing sizes, re-checked by enumeration."""

from __future__ import annotations

import pytest

from layoutcheck import Layout, Verdict, prove
from layoutcheck.models.residue import ResidueTiling
from layoutcheck.models.schedulers import TileScheduler
from layoutcheck.properties.residue import residue_cover, schedule_bijection

pytest.importorskip("z3")

TILINGS = [
    ResidueTiling(("M", "N"), (4, 8)),
    ResidueTiling(("M", "N"), (4, 8), count="div"),
    ResidueTiling(("M", "N"), (4, 8), predicate="none"),
    ResidueTiling(("M", "N"), (4, 8), predicate="tma"),
    ResidueTiling(("M", "N"), (4, 4), tv=Layout(((2, 2), (2, 2)), ((1, 8), (2, 4)))),
    ResidueTiling(("M", "N"), (4, 4), tv=Layout(((2, 2), (2, 2)), ((1, 8), (2, 2)))),  # tv owns some twice
    ResidueTiling(("M", "N", "K"), (3, 2, 5), count="div"),
]


@pytest.mark.parametrize("tiling", TILINGS, ids=lambda t: f"{t.tile}-{t.count}-{t.predicate}-{t.tv}")
def test_z3_agrees_with_exhaustive_on_small_ranges(tiling: ResidueTiling) -> None:
    prop = residue_cover(tiling, tuple((1, 13) for _ in tiling.dims))
    ex, z = prove(prop, engine="exhaustive"), prove(prop, engine="z3", timeout=60)
    assert ex.status is z.status is not Verdict.UNKNOWN
    if ex.status is Verdict.REFUTED:  # both report the smallest failing size
        assert ex.counterexample.data["sizes"] == z.counterexample.data["sizes"]


def test_parametric_proof_for_every_size_up_to_2_to_the_20() -> None:
    r = prove(residue_cover(ResidueTiling(("M", "N"), (128, 128)), ((1, 1 << 20), (1, 1 << 20))), timeout=60)
    assert r.status is Verdict.PROVEN and r.engine == "z3"


def test_div_instead_of_ceil_div_is_refuted_at_the_smallest_size() -> None:
    prop = residue_cover(ResidueTiling(("M", "N"), (128, 128), count="div"), ((129, 1 << 20), (128, 1 << 20)))
    r = prove(prop, timeout=60)
    assert r.status is Verdict.REFUTED
    assert r.counterexample.data["sizes"] == [129, 128] and r.counterexample.data["coord"] == [128, 0]


SCHEDS = [TileScheduler("plain"), TileScheduler("swizzle", log=2), TileScheduler("grouped", group=3, ctas=5),
          TileScheduler("grouped", group=3, ctas=5, drop_partial_group=True), TileScheduler("split_k", splits=3),
          TileScheduler("split_k", splits=3, count="div")]


@pytest.mark.parametrize("s", SCHEDS, ids=lambda s: s.describe())
def test_scheduler_z3_agrees_with_exhaustive(s: TileScheduler) -> None:
    grids = ((1, 12), (1, 1)) if s.kind == "split_k" else ((1, 12), (1, 6))
    prop = schedule_bijection(s, grids)
    ex, z = prove(prop, engine="exhaustive"), prove(prop, engine="z3", timeout=60)
    assert ex.status is z.status is not Verdict.UNKNOWN
    if ex.status is Verdict.REFUTED:
        assert ex.counterexample.data["grid"] == z.counterexample.data["grid"]


def test_dropped_partial_group_smallest_grid() -> None:
    s = TileScheduler("grouped", group=8, ctas=132, drop_partial_group=True)
    r = prove(schedule_bijection(s, ((8, 1024), (1, 1024))), timeout=60)
    assert r.status is Verdict.REFUTED and r.counterexample.data["grid"] == [9, 1]
    assert r.counterexample.data["tile"] == [8, 0] and "no CTA" in r.counterexample.text


def _query(limits_timeout: float = 60.0):
    import time

    from layoutcheck.engines.base import DEFAULT_MEMORY_BUDGET, Limits
    from layoutcheck.engines.sizes_z3 import _IntQuery

    return _IntQuery(Limits(limits_timeout, DEFAULT_MEMORY_BUDGET, None), time.monotonic() + limits_timeout)


def _wrap_columns(self, t, gm, gn):  # m = t % GM, n = t // (2*GM): tiles of odd columns computed twice
    from layoutcheck.expr.ir import lt

    return t % gm, t // (gm * 2), lt(t, self.total(gm, gn))


def _halve_last_column(self, t, gm, gn):  # the last column's rows halved: (2r, n) and (2r+1, n) both -> (r, n)
    from layoutcheck.expr.ir import ite, lt

    n = t // gm
    return ite(lt(n, gn - 1), t % gm, t % gm // 2), n, lt(t, self.total(gm, gn))


@pytest.mark.parametrize("wrong, grids, want", [(_wrap_columns, ((1, 12), (1, 6)), ([1, 2], [0, 0])),
                                                (_wrap_columns, ((3, 40), (2, 9)), ([3, 2], [0, 0])),
                                                (_halve_last_column, ((2, 12), (2, 6)), ([2, 2], [0, 1]))])
def test_grouped_duplicates_over_the_linear_index_are_the_pairwise_query(monkeypatch, wrong, grids, want) -> None:
    """A grouped scheduler that computes tiles twice: the query over ``t = c + ctas*i`` finds the same smallest grid
    and tile as the pairwise query over ``(c, i)``, and the exhaustive engine agrees."""
    from layoutcheck.engines.sizes_z3 import _duplicate, _duplicate_linear

    monkeypatch.setattr(TileScheduler, "linear_tile", wrong)
    prop = schedule_bijection(TileScheduler("grouped", group=3, ctas=5), grids)
    linear, pairwise = _duplicate_linear(prop, _query()), _duplicate(prop, _query())
    assert linear == pairwise and linear["kind"] == "duplicate" and (linear["grid"], linear["tile"]) == want
    ex = prove(prop, engine="exhaustive")
    assert ex.status is Verdict.REFUTED and ex.counterexample.data["grid"] == want[0]
