"""Residue tiles and tile schedulers: the models' index math on ints, and the exhaustive decision per size."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck import Layout, LayoutError
from layoutcheck.expr.ir import var
from layoutcheck.expr.numpy import evaluate
from layoutcheck.models.residue import ResidueTiling
from layoutcheck.models.schedulers import TileScheduler


def test_ceil_div_grid_and_owner() -> None:
    t = ResidueTiling(("M", "N"), (128, 128))
    assert t.grid((1000, 1000)) == (8, 8)
    assert ResidueTiling(("M", "N"), (128, 128), count="div").grid((1000, 1000)) == (7, 7)
    assert t.owner((999, 5)) == ((7, 0), (103, 5))
    assert t.violation((1000, 1000)) is None


def test_the_issue_example_1000_by_1000() -> None:
    """1000 x 1000 with 128 x 128 tiles: 64 tiles, the last row and column of tiles are residue tiles."""
    t = ResidueTiling(("M", "N"), (128, 128))
    crd, done = t.accesses((1000, 1000))
    assert len(crd) == 64 * 128 * 128 and int(done.sum()) == 1000 * 1000


@pytest.mark.parametrize(("tiling", "sizes", "kind", "coord"), [
    (ResidueTiling(("M",), (4,), count="div"), (10,), "owners", [8]),  # rows 8, 9 have no tile
    (ResidueTiling(("M",), (4,), predicate="none"), (10,), "oob", [10]),  # the residue tile writes rows 10, 11
    (ResidueTiling(("M", "N"), (2, 2), tv=Layout((2, 2), (1, 1))), (2, 2), "owners", [1, 0]),  # tv owns (1,0) twice
])
def test_violations(tiling: ResidueTiling, sizes, kind: str, coord) -> None:
    w = tiling.violation(sizes)
    assert w is not None and w["kind"] == kind and w["coord"] == coord


def test_bad_tilings_are_named_errors() -> None:
    with pytest.raises(LayoutError, match="count"):
        ResidueTiling(("M",), (4,), count="floor")
    with pytest.raises(LayoutError, match="tv layout"):
        ResidueTiling(("M", "N"), (4, 4), tv=Layout(8))
    with pytest.raises(LayoutError, match="kind"):
        TileScheduler("hilbert")


def _brute(s: TileScheduler, gm: int, gn: int) -> dict[tuple[int, int], list[tuple[int, ...]]]:
    seen: dict[tuple[int, int], list[tuple[int, ...]]] = {}
    for idx in itertools.product(*[range(b) for b in s.launch_bounds(gm, gn)]):
        m, n, valid = s.tile(idx, gm, gn)
        if valid:
            seen.setdefault((m, n), []).append(idx)
    return seen


SCHEDULERS = [TileScheduler("plain"), TileScheduler("swizzle", log=2), TileScheduler("grouped", group=3, ctas=5),
              TileScheduler("grouped", group=8, ctas=132), TileScheduler("split_k", splits=3)]


@pytest.mark.parametrize("s", SCHEDULERS, ids=lambda s: s.describe())
@given(gm=st.integers(1, 20), gn=st.integers(1, 9))
def test_correct_schedulers_are_bijections_and_index_inverts_tile(s: TileScheduler, gm: int, gn: int) -> None:
    gn = 1 if s.kind == "split_k" else gn
    seen = _brute(s, gm, gn)
    assert sorted(seen) == [(m, n) for m in range(gm) for n in range(gn)]
    for (m, n), idx in seen.items():
        assert idx == [s.index(m, n, gm, gn)]


def test_one_formula_on_ints_and_as_a_tree_read_by_numpy() -> None:
    import numpy as np

    s = TileScheduler("grouped", group=3, ctas=5)
    c, i = np.meshgrid(np.arange(5), np.arange(4), indexing="ij")
    env = {"c": c.reshape(-1), "i": i.reshape(-1), "GM": 7, "GN": 2}
    tree = s.tile((var("c", 5), var("i", 4)), var("GM", 8), var("GN", 3))
    m, n, v = (evaluate(x, env) for x in tree)
    for k, (cc, ii) in enumerate(zip(c.reshape(-1), i.reshape(-1), strict=True)):
        assert (int(m[k]), int(n[k]), bool(v[k])) == s.tile((int(cc), int(ii)), 7, 2)


def test_broken_schedulers_drop_tiles() -> None:
    drop = TileScheduler("grouped", group=8, ctas=132, drop_partial_group=True)
    assert (8, 0) not in _brute(drop, 9, 2) and len(_brute(drop, 16, 2)) == 32
    floor = TileScheduler("split_k", splits=4, count="div")
    assert sorted(_brute(floor, 10, 1)) == [(k, 0) for k in range(8)]  # k-tiles 8 and 9 lost


_COUNTED = [TileScheduler("plain"), TileScheduler("grouped", group=3, ctas=5),
            TileScheduler("grouped", group=3, ctas=5, drop_partial_group=True),
            TileScheduler("grouped", group=1, ctas=1), TileScheduler("grouped", group=4, ctas=7),
            TileScheduler("split_k", splits=3),
            TileScheduler("split_k", splits=3, count="div"), TileScheduler("split_k", splits=1)]


@pytest.mark.parametrize("s", _COUNTED, ids=lambda s: s.describe())
def test_visits_counts_the_unmasked_launch_indices(s: TileScheduler) -> None:
    """The closed-form count the Z3 engine's pigeonhole argument rests on, against every launch index."""
    for gm, gn in itertools.product(range(1, 14), range(1, 5)):
        unmasked = sum(1 for idx in itertools.product(*map(range, s.launch_bounds(gm, gn))) if s.tile(idx, gm, gn)[2])
        assert s.visits(gm, gn) == unmasked, (gm, gn)


@pytest.mark.parametrize("s", [s for s in _COUNTED if s.kind != "plain"], ids=lambda s: s.describe())
def test_linearize_is_one_to_one_onto_its_box_and_tile_reads_only_it(s: TileScheduler) -> None:
    """``linearize`` maps the launch box one-to-one onto the box ``linear_bounds`` (Euclid), and ``tile`` is
    ``linear_tile`` of it: the Z3 queries over linear indices state the same claims."""
    for gm, gn in itertools.product(range(1, 14), range(1, 5)):
        launch = list(itertools.product(*map(range, s.launch_bounds(gm, gn))))
        lin = [s.linearize(idx, gm, gn) for idx in launch]
        assert sorted(lin) == list(itertools.product(*map(range, s.linear_bounds(gm, gn)))), (gm, gn)
        assert all(s.tile(i, gm, gn) == s.linear_tile(x, gm, gn) for i, x in zip(launch, lin, strict=True))
