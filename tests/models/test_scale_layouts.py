"""Named scale-factor layouts and the raw-block-index reading (``layoutcheck.models.block_scale``, issue #27)."""

from __future__ import annotations

import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.errors import LayoutError
from layoutcheck.hw.block_scale import SCALE_LAYOUTS, SF_BLOCK_BYTES
from layoutcheck.models.block_scale import ScaleLayout, block_index_tile, launch_indices, scale_layout, scale_tile
from layoutcheck.models.schedulers import TileScheduler

# the worked table of layoutcheck/hw/block_scale.py: vec = 32, K = 256 (KS = 8)
TABLE = {(0, 0): (0, 0), (1, 0): (16, 8), (32, 0): (4, 256), (0, 1): (1, 1), (0, 4): (512, 4), (128, 0): (1024, 1024)}


@pytest.mark.parametrize(("crd", "want"), sorted(TABLE.items()))
def test_worked_table(crd, want) -> None:
    m, kb = crd
    inter, lin = scale_layout("128x4", 256, 256, 32), scale_layout("linear", 256, 256, 32)
    assert (inter.byte(m, kb * 32), lin.byte(m, kb * 32)) == want
    assert inter.grid()[m, kb] == want[0]


def test_every_interleaved_name_is_one_layout_and_pads_like_cute() -> None:
    lays = {n: scale_layout(n, 200, 330, 16).layout for n, k in SCALE_LAYOUTS.items() if k.form == "interleaved"}
    assert len(set(lays.values())) == 1
    lay = lays["128x4"]
    assert (lay.shape, lay.stride) == (((32, 4, 2), (16, 4, 6)), ((16, 4, 6 * SF_BLOCK_BYTES), (0, 1, 512)))


def test_vector_constant_and_scales_injective() -> None:
    for name in SCALE_LAYOUTS:
        s = scale_layout(name, 130, 100, 32)
        g = s.grid(1)  # every element
        assert (g[:, :32] == g[:, :1]).all()
        scales = s.grid()
        assert len(set(scales.ravel().tolist())) == scales.size, name


@pytest.mark.parametrize(("args", "msg"), [(("nope", 128, 128, 32), "unknown scale layout"),
                                           (("128x4", 128, 128, 64), "16, 32"),
                                           (("linear", 0, 128, 32), ">= 1")])
def test_bad_inputs_are_named(args, msg) -> None:
    with pytest.raises(LayoutError, match=msg):
        scale_layout(*args)


def test_hand_written_layout_must_cover_the_operand() -> None:
    with pytest.raises(LayoutError, match="does not cover"):
        ScaleLayout("x", 256, 128, 32, Layout((128, (32, 4)), (4, (0, 1))))


def test_block_index_reading_per_launch_kind() -> None:
    sw, plain, grouped = TileScheduler("swizzle", log=1), TileScheduler("plain"), TileScheduler("grouped", group=2,
                                                                                                 ctas=3)
    assert block_index_tile(sw, (5, 1), 3, 4) == (5, 1)  # (blockIdx.x, blockIdx.y), outside a 3-row grid
    assert block_index_tile(plain, (7,), 3, 4) == (1, 2)
    assert block_index_tile(grouped, (2, 1), 3, 4) == (2, 1)  # t = 2 + 3*1 = 5
    assert scale_tile(sw, (5, 1), 3, 4, "scheduled") == (2, 3)
    assert launch_indices(sw, 2, 3)[:3] == [(0, 0), (1, 0), (2, 0)]
    with pytest.raises(LayoutError, match="reads"):
        scale_tile(sw, (0, 0), 2, 2, "raw")


def _cutlass_rows() -> list[dict]:
    import json
    from pathlib import Path

    return json.loads((Path(__file__).resolve().parents[1] / "data" / "tmem_atoms.json").read_text())["sf_layouts"]


@pytest.mark.parametrize("r", _cutlass_rows(), ids=lambda r: f"vec{r['vec']}-{r['mn']}x{r['k']}")
def test_named_interleave_is_what_cutlass_tile_atom_to_shape_sfa_printed(r: dict) -> None:
    """Every element's byte under ``sm1xx_sfa`` equals CUTLASS's printed ``tile_atom_to_shape_SFA`` layout's."""
    from layoutcheck.algebra.notation import parse_layout

    ref = parse_layout(r["layout"].replace("_", ""))
    ours = scale_layout("sm1xx_sfa", r["mn"], r["k"], r["vec"])
    assert (ours.grid(1) == ref[0].offsets()[:, None] + ref[1].offsets()[None, :]).all()
