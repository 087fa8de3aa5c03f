"""Ragged problems: the Z3 engine's proofs over all sizes agree with the exhaustive engine over small ranges, and
its counterexamples are the smallest failing sizes, re-checked by enumeration."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutcheck import Layout, Verdict, prove
from layoutcheck.models.residue import COUNTS, PREDICATES, ResidueTiling
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


def _wrap_columns(self, lin, gm, gn):  # m = t % GM, n = t // (2*GM): tiles of odd columns computed twice
    from layoutcheck.expr.ir import lt

    (t,) = lin
    return t % gm, t // (gm * 2), lt(t, self.total(gm, gn))


def _halve_last_column(self, lin, gm, gn):  # the last column's rows halved: (2r, n) and (2r+1, n) both -> (r, n)
    from layoutcheck.expr.ir import ite, lt

    (t,) = lin
    n = t // gm
    return ite(lt(n, gn - 1), t % gm, t % gm // 2), n, lt(t, self.total(gm, gn))


@pytest.mark.parametrize("wrong, grids, want", [(_wrap_columns, ((1, 12), (1, 6)), ([1, 2], [0, 0])),
                                                (_wrap_columns, ((3, 40), (2, 9)), ([3, 2], [0, 0])),
                                                (_halve_last_column, ((2, 12), (2, 6)), ([2, 2], [0, 1]))])
def test_grouped_duplicates_over_the_linear_index_are_the_pairwise_query(monkeypatch, wrong, grids, want) -> None:
    """A grouped scheduler that computes tiles twice: the query over ``t = c + ctas*i`` finds the same smallest grid
    and tile as the pairwise query over ``(c, i)``, and the exhaustive engine agrees."""
    from layoutcheck.engines.sizes_z3 import _duplicate

    monkeypatch.setattr(TileScheduler, "linear_tile", wrong)
    prop = schedule_bijection(TileScheduler("grouped", group=3, ctas=5), grids)
    linear = _duplicate(prop, _query())
    monkeypatch.setattr(TileScheduler, "linear_bounds", lambda self, gm, gn: None)  # the query over (c, i)
    pairwise = _duplicate(prop, _query())
    assert _core(linear) == _core(pairwise) and linear["kind"] == "duplicate"
    assert (linear["grid"], linear["tile"]) == want and prop.recheck(linear) and prop.recheck(pairwise)
    monkeypatch.undo()
    monkeypatch.setattr(TileScheduler, "linear_tile", wrong)
    ex = prove(prop, engine="exhaustive")
    assert ex.status is Verdict.REFUTED and ex.counterexample.data["grid"] == want[0]


def _core(w: dict | None) -> dict | None:
    """A scheduler witness without its launch indices (each engine names some pair; the re-check evaluates them)."""
    return None if w is None else {k: v for k, v in w.items() if k not in ("index", "other")}


def _smallest_break(prop) -> dict | None:
    """The definition of the Z3 engine's witness: the lexicographically smallest (size, coordinate) where an
    in-bounds element is not owned exactly once by the performed accesses, or a performed access is out of bounds,
    every size of the box and every element enumerated."""
    import itertools
    from collections import Counter

    for sizes in itertools.product(*[range(lo, hi + 1) for lo, hi in prop.sizes]):
        crd, done = prop.tiling.accesses(sizes)
        live = [tuple(int(x) for x in c) for c in crd[done]]
        owners = Counter(c for c in live if all(x < s for x, s in zip(c, sizes, strict=True)))
        broken = [(list(c), "oob") for c in live if any(x >= s for x, s in zip(c, sizes, strict=True))]
        broken += [(list(e), "owners") for e in itertools.product(*map(range, sizes)) if owners[e] != 1]
        if broken:
            coord, kind = min(broken)
            e = tuple(coord)
            return {"kind": kind, "sizes": list(sizes), "coord": coord, **({"count": owners[e]} if kind == "owners"
                                                                             else {})}
    return None


@st.composite
def _bijective_tv_covers(draw):
    """``ResidueCover`` of every count and predicate, tile extents 1..5 in 1..3 modes, ``tv`` the identity or a
    bijection onto the tile (the colex identity with its modes permuted), small boxes of sizes."""
    rank = draw(st.integers(1, 3))
    tile = tuple(draw(st.integers(1, 5)) for _ in range(rank))
    tv = None
    if rank > 1 and draw(st.booleans()):
        perm = draw(st.permutations(range(rank)))
        strides = [math.prod(tile[:d]) for d in range(rank)]
        tv = Layout(tuple(tile[d] for d in perm), tuple(strides[d] for d in perm))
    tiling = ResidueTiling(("M", "N", "K")[:rank], tile, draw(st.sampled_from(COUNTS)),
                           draw(st.sampled_from(PREDICATES)), tv)
    sizes = []
    for _ in range(rank):
        lo = draw(st.integers(1, 11))
        sizes.append((lo, lo + draw(st.integers(0, 8 if rank < 3 else 3))))
    return residue_cover(tiling, tuple(sizes))


@settings(max_examples=120, deadline=None)
@given(_bijective_tv_covers())
def test_per_mode_query_is_the_definition(prop) -> None:
    """The one per-mode query over the sizes (``tiling.mode_fails``) and the coordinate from the lemma
    (``smallest_break``): the verdict of the exhaustive engine, and the lexicographically smallest (size, coordinate)
    that breaks the claim -- the witness the queries over sizes and elements found by minimising."""
    _z3_is_the_definition(prop, _smallest_break(prop))


def _z3_is_the_definition(prop, want: dict | None) -> None:
    """The Z3 engine's verdict is the exhaustive engine's, and its witness is ``want`` (``None``: the claim holds)."""
    z, ex = prove(prop, engine="z3", timeout=60), prove(prop, engine="exhaustive")
    assert z.status is ex.status is not Verdict.UNKNOWN
    assert (z.status is Verdict.REFUTED) is (want is not None)
    if want is not None:
        assert _core(z.counterexample.data) == _core(want)


def _scheduler_reference(prop) -> dict | None:
    """The definition of the Z3 engine's scheduler witness, by enumerating every grid of the box in order: for each
    query (outside, duplicate, onto) its first failing grid and the smallest tile there; the smallest of these by
    (grid, tile), the first query on a tie; a ``missing`` one is named by enumerating its grid (``violation``).
    Onto is by count (``visits``, tile (0, 0)) where the scheduler has one, else by its inverse ``index``."""
    import itertools

    import numpy as np

    s = prop.scheduler
    firsts: dict[str, tuple] = {}
    for gm, gn in itertools.product(*[range(lo, hi + 1) for lo, hi in prop.grids]):
        tiles = [s.tile(idx, gm, gn) for idx in itertools.product(*map(range, s.launch_bounds(gm, gn)))]
        live = [(int(m), int(n)) for m, n, ok in tiles if ok]
        outside = [t for t in live if not (0 <= t[0] < gm and 0 <= t[1] < gn)]
        twice = [t for t in set(live) if live.count(t) > 1 and t not in outside]
        if s.visits(1, 1) is not None:
            missing = [(0, 0)] if int(np.asarray(s.visits(gm, gn))) != gm * gn else []
        else:
            def reached(m, n, gm=gm, gn=gn):
                idx = s.index(m, n, gm, gn)
                if not all(0 <= i < b for i, b in zip(idx, s.launch_bounds(gm, gn), strict=True)):
                    return False
                tm, tn, ok = s.tile(idx, gm, gn)
                return bool(ok) and (tm, tn) == (m, n)
            missing = [(m, n) for m, n in itertools.product(range(gm), range(gn)) if not reached(m, n)]
        for kind, bad in (("outside", outside), ("duplicate", twice), ("missing", missing)):
            if bad and kind not in firsts:
                firsts[kind] = ([gm, gn], list(min(bad)))
    found = [(g, t, k) for k in ("outside", "duplicate", "missing") if k in firsts for g, t in [firsts[k]]]
    if not found:
        return None
    grid, tile, kind = min(found, key=lambda f: (f[0], f[1]))
    if kind == "missing":  # named by enumerating its grid: the smallest tile no launch index computes
        gm, gn = grid
        hit = {(int(m), int(n)) for idx in itertools.product(*map(range, s.launch_bounds(gm, gn)))
               for m, n, ok in [s.tile(idx, gm, gn)] if ok}
        tile = list(min(t for t in itertools.product(range(gm), range(gn)) if t not in hit))
    return {"kind": kind, "grid": grid, "tile": tile, **({"count": 2} if kind == "duplicate" else
                                                         {"count": 0} if kind == "missing" else {})}


@st.composite
def _schedulers(draw):
    """Every scheduler kind with small parameters, correct and broken, over small boxes of grids."""
    kind = draw(st.sampled_from(("plain", "swizzle", "grouped", "split_k")))
    s = {"plain": lambda: TileScheduler("plain"),
         "swizzle": lambda: TileScheduler("swizzle", log=draw(st.integers(0, 2))),
         "grouped": lambda: TileScheduler("grouped", group=draw(st.integers(1, 4)), ctas=draw(st.integers(1, 6)),
                                          drop_partial_group=draw(st.booleans())),
         "split_k": lambda: TileScheduler("split_k", splits=draw(st.integers(1, 5)),
                                          count=draw(st.sampled_from(("ceil_div", "div"))))}[kind]()
    grids = []
    for _ in range(2):
        lo = draw(st.integers(1, 6))
        grids.append((lo, lo + draw(st.integers(0, 4))))
    return schedule_bijection(s, tuple(grids))


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(_schedulers())
def test_scheduler_queries_are_the_definition(prop) -> None:
    """Over a linear launch index (``linearize``), with the count ``visits`` for onto, in one context where no
    formula divides by an unknown: the exhaustive engine's verdict, and the witness the definition gives."""
    _z3_is_the_definition(prop, _scheduler_reference(prop))


@pytest.mark.parametrize("kind", ["split_k", "swizzle"])
def test_formulas_that_fold_to_constants(kind: str) -> None:
    """A launch bound or an inverse coordinate that the IR folds to an int (``GM // 2`` for ``GM <= 1``, ``GN // 8``
    for ``GN <= 7``) is still a term of the query's context (main raised z3's 'Context mismatch' for the first)."""
    s = TileScheduler("split_k", splits=2, count="div") if kind == "split_k" else TileScheduler("swizzle", log=3)
    prop = schedule_bijection(s, ((1, 1), (1, 1)) if kind == "split_k" else ((1, 3), (1, 7)))
    z, ex = prove(prop, engine="z3", timeout=60), prove(prop, engine="exhaustive")
    assert z.status is ex.status is not Verdict.UNKNOWN
    assert z.status is Verdict.PROVEN or _core(z.counterexample.data) == _core(ex.counterexample.data)
