"""The batched screens of the ragged claims decide exactly what the one-size-at-a-time enumeration decides."""

from __future__ import annotations

import itertools

import pytest

from layoutcheck.models.schedulers import TileScheduler
from layoutcheck.properties.residue import schedule_bijection

SCHEDS = [TileScheduler("plain"), TileScheduler("swizzle", log=2), TileScheduler("swizzle", log=0),
          TileScheduler("grouped", group=3, ctas=5), TileScheduler("grouped", group=8, ctas=132),
          TileScheduler("grouped", group=3, ctas=5, drop_partial_group=True), TileScheduler("split_k", splits=3),
          TileScheduler("split_k", splits=3, count="div"), TileScheduler("split_k", splits=1)]


@pytest.mark.parametrize("s", SCHEDS, ids=lambda s: s.describe())
def test_failing_grids_is_violation_grid_by_grid(s: TileScheduler) -> None:
    box = ((1, 14), (1, 1)) if s.kind == "split_k" else ((1, 14), (1, 9))
    prop = schedule_bijection(s, box)
    grids = list(itertools.product(range(box[0][0], box[0][1] + 1), range(box[1][0], box[1][1] + 1)))
    assert prop.failing_grids(grids) == [g for g in grids if prop.violation(*g) is not None]
    for k in range(0, len(grids), 7):  # any batch, not only the whole box
        part = grids[k:k + 7]
        assert prop.failing_grids(part) == [g for g in part if prop.violation(*g) is not None]
