"""Pictures: the print_layout grid, TV and bank grids, SVG/HTML output."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from layoutcheck import Layout
from layoutcheck.errors import LayoutError
from layoutcheck.models.banks.access import access_from_fn, byte_addresses
from layoutcheck.models.banks.model import breakdown, conflict_lanes, ideal_batch, wavefronts_batch
from layoutcheck.report.show import (
    access_conflicts,
    bank_of,
    banks_grid,
    build_grid,
    plain_grid,
    render_svg,
    render_text,
    run_show,
    tv_grid,
)


def test_plain_grid_is_print_layout():
    g = plain_grid(Layout((4, 2), (2, 1)))
    assert g.text == [["0", "1"], ["2", "3"], ["4", "5"], ["6", "7"]]
    text = render_text(g)
    assert text.splitlines()[0] == "(4,2):(2,1)" and "| 6 | 7 |" in text


def test_rank1_is_one_column_and_rank3_rejected():
    assert plain_grid(Layout(3, 5)).text == [["0"], ["5"], ["10"]]
    with pytest.raises(LayoutError, match="rank-1 or rank-2"):
        plain_grid(Layout((2, 2, 2)))


def test_tv_grid_owners_and_alerts():
    g = tv_grid(Layout(((4, 8), (2, 2)), ((32, 1), (16, 8))), 16, 8)
    assert g.text[0][:3] == ["T0V0", "T0V1", "T1V0"] and g.text[8][0] == "T0V2" and not g.alert
    bad = tv_grid(Layout(((4, 8), (2, 2)), ((1, 8), (16, 8))), 16, 8)
    assert (4, 0) in bad.alert and bad.text[4][0] == "" and "red" in bad.legend


def test_bank_of():
    assert bank_of(np.array([0, 1, 2, 63, 64]), 16).tolist() == [0, 0, 1, 31, 0]
    assert bank_of(np.array([0, 1, 32]), 32).tolist() == [0, 1, 0]


def test_banks_grid_and_conflicts():
    g = build_grid("(8,16):(16,1)", None, "f16", "ldsm_x2")
    assert g.text[0][0].startswith("0 b0 L") and g.text[4][0].startswith("64 b0 L")
    assert (0, 0) in g.alert and (4, 0) in g.alert  # rows 0 and 4 share bank 0: 2-way conflict
    ok = build_grid("Sw<3,3,3> o (8,64):(64,1)", None, "f16", "ldsm_x4")
    assert not ok.alert and "no bank conflicts" in ok.legend
    assert banks_grid(Layout((2, 2)), 32).fill[0][0].startswith("#")


def test_svg_is_well_formed(tmp_path):
    g = tv_grid(Layout(((4, 8), (2, 2)), ((1, 8), (16, 8))), 16, 8)
    root = ET.fromstring(render_svg(g))
    assert root.tag.endswith("svg")
    rects = [r for r in root if r.tag.endswith("rect")]
    assert len(rects) >= 16 * 8
    assert "wrote 4x2 picture" in run_show("(4,2):(1,4)", html=str(tmp_path / "x.html"))
    assert (tmp_path / "x.html").read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(("expr", "tv", "banks", "access", "fragment"), [
    ("(4096,4096):(1,4096)", None, None, None, "over the limit"),
    ("(4,2):(1,4)", (4, 2), "f16", None, "pick one"),
    ("(4,2):(1,4)", None, "f17", None, "unknown dtype"),
    ("(4,2):(1,4)", None, None, "lds32", "--access goes with --banks"),
])
def test_bad_show_requests(expr, tv, banks, access, fragment):
    with pytest.raises(LayoutError, match=fragment):
        build_grid(expr, tv, banks, access)


def test_bank_picture_agrees_with_the_model_when_phases_merge() -> None:
    """LDS.64 with lanes l, l^1 on one address merges its two 16-lane phases into one 32-lane group: lanes 0-15 hit
    bytes 0..63 and lanes 16-31 bytes 128..191, the same 16 banks -> 2 wavefronts for an ideal of 1. Counted per
    phase (the rule the picture used before it asked the model) each phase is conflict-free and nothing is outlined."""
    acc = access_from_fn("lds64", lambda i, lane: np.where(lane < 16, lane // 2, 16 + (lane - 16) // 2), 1, 64)
    smem = Layout(32, 1)
    addrs = byte_addresses(smem, acc)
    assert wavefronts_batch("lds64", addrs).tolist() == [2] and ideal_batch("lds64", addrs).tolist() == [1]
    assert [(p.merged, p.lanes, p.wavefronts) for p in breakdown("lds64", addrs[0])] == [(True, tuple(range(32)), 2)]
    cells, note, tags = access_conflicts(smem, 64, acc)
    assert set(tags) == {(e, 0) for e in [*range(8), *range(16, 24)]}  # every element of a conflicting lane
    # the first conflict is outlined and names its lanes: lanes 0 and 1 read element 0, lanes 16 and 17 element 16,
    # both in bank 0 (different words)
    assert cells == {(0, 0), (16, 0)} and tags[0, 0] == "L0,1" and tags[16, 0] == "L16,17"
    assert "merged group 0" in note and "bank 0" in note and "under lds64" in note
    assert conflict_lanes("lds64", addrs).all()
