"""``report.gmma.descriptor_grid``: each cell is the byte offset of its 16-byte chunk, as the stage layout says."""

from __future__ import annotations

import pytest

from layoutcheck.errors import LayoutError
from layoutcheck.models.tma import mma_smem_layout
from layoutcheck.report.gmma import descriptor_grid


def test_cells_are_the_stage_offsets_of_each_chunk() -> None:
    stage = mma_smem_layout("K", "128B", "float16", (64, 64))
    g = descriptor_grid(stage, "f16", 4)
    assert len(g.text) == 4 and len(g.text[0]) == 64 // 8
    assert all(g.text[r][c] == f"+{2 * int(stage(r + 64 * c * 8))}" for r in range(4) for c in range(8))
    assert g.text[1][:3] == ["+144", "+128", "+176"]


def test_more_rows_than_the_stage_has_is_an_error() -> None:
    with pytest.raises(LayoutError, match="at least 128 rows"):
        descriptor_grid(mma_smem_layout("K", "128B", "float16", (64, 64)), "f16", 128)
