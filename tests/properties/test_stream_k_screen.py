"""``StreamKCover.exact`` (the per-problem screen) is sound: where it says the walk is exact, the piece-by-piece
``violation`` finds nothing -- over every problem of small boxes, CUTLASS's arithmetic and the broken variants."""

from __future__ import annotations

import itertools

import pytest

from layoutcheck.models.stream_k import StreamKScheduler
from layoutcheck.properties.stream_k import stream_k_cover


@pytest.mark.parametrize("kw", [
    {"ctas": 8}, {"ctas": 8, "decomposition": "stream_k"}, {"ctas": 6, "decomposition": "stream_k", "max_groups": 8},
    {"ctas": 5, "decomposition": "stream_k", "alignment": 2}, {"ctas": 8, "decomposition": "stream_k",
                                                               "big_units": False},
    {"ctas": 8, "decomposition": "stream_k", "end_adjust": False}, {"ctas": 4, "splits": 3},
])
def test_screen_implies_no_violation(kw) -> None:
    p = stream_k_cover(StreamKScheduler(**kw), ((1, 30), (1, 40)))
    screened = 0
    for tiles, k in itertools.product(range(1, 31), range(1, 41)):
        if p.exact(tiles, k):
            screened += 1
            assert p.violation(tiles, k) is None, (kw, tiles, k)
    assert screened > 0 or kw.get("splits", 1) > 1  # split-K: decided piece by piece, never screened


def test_empty_unit_ends_its_cta() -> None:
    """2 tiles x 12 k-tiles on 132 SMs: unit 1's boundaries both move onto k = 12, so it computes nothing and its CTA
    stops (``WorkTileInfo::is_valid``); no other unit is lost, and the walk is exact."""
    s = StreamKScheduler(132)
    assert s.stopped(2, 12) == [1]
    assert [(p.unit, p.tile, p.k, p.count) for p in s.pieces(2, 12)] == [(0, 0, 0, 12), (2, 1, 0, 12)]
    assert stream_k_cover(s, ((2, 2), (12, 12))).violation(2, 12) is None


@pytest.mark.parametrize("kw", [
    {"ctas": 8}, {"ctas": 6, "decomposition": "stream_k", "max_groups": 8},
    {"ctas": 5, "decomposition": "stream_k", "alignment": 2, "end_adjust": False},
    {"ctas": 8, "decomposition": "stream_k", "big_units": False}, {"ctas": 132},
])
def test_problems_screened_together_as_alone(kw) -> None:
    """``exact_all`` of a box, in a shuffled order, is each problem's screen alone: no unit of one problem leaks
    into another's segments (the batch is one array over every problem's units)."""
    p = stream_k_cover(StreamKScheduler(**kw), ((1, 30), (1, 40)))
    problems = list(itertools.product(range(1, 31), range(1, 41)))
    problems = problems[::7] + problems[3::7] + problems[1::7] + problems[5::7] + problems[2::7] + problems[6::7] + \
        problems[4::7]
    together = p.exact_all(problems)
    alone = [bool(p.exact_all([q])[0]) for q in problems]
    assert together.tolist() == alone
    assert sum(alone) > 0
