"""``exact_cover``: owners are counted (issue #25), sizes that do not match refute, a frame names what runs past."""

from __future__ import annotations

import pytest

from layoutcheck import Layout, LayoutError
from layoutcheck.engines.prove import prove
from layoutcheck.properties.tv import exact_cover
from layoutcheck.result import Verdict

REPLICATED = Layout(((32, 2), 4), ((1, 0), 32))  # threads t and t+32 own the same elements


@pytest.mark.parametrize("engine", ["auto", "structural", "exhaustive"])
def test_two_owners_per_element_is_not_a_partition(engine: str) -> None:
    r = prove(exact_cover(REPLICATED, 128), engine=engine)
    assert r.status is Verdict.REFUTED, r
    assert str(r.counterexample) == ("tile element (0) is owned 2 times (expected 1): (thread 0, value 0), "
                                     "(thread 32, value 0)")
    assert prove(exact_cover(REPLICATED, 128, 2), engine=engine).status is Verdict.PROVEN


def test_size_mismatch_is_refuted_by_count_above_the_budget() -> None:
    big = Layout(((1 << 20, 2), 1 << 20), ((1, 0), 1 << 20))
    p = exact_cover(big, 1 << 40)
    assert p.count_witness() == {"kind": "count", "size": 1 << 41, "tile": 1 << 40, "replication": 1}
    r = prove(p, engine="structural")
    assert r.status is Verdict.REFUTED and r.counterexample.data["kind"] == "count", r
    assert prove(exact_cover(big, 1 << 40, 2), engine="structural").status is Verdict.PROVEN


def test_stride_0_value_mode_is_one_thread_twice() -> None:
    r = prove(exact_cover(Layout((32, (4, 2)), (1, (32, 0))), 128, 2))
    assert r.status is Verdict.REFUTED and "thread 0 owns tile element (0) twice" in str(r.counterexample), r


def test_frame_names_the_coordinate_outside() -> None:
    tv = Layout((4, 8), (1, 4))  # 32 elements of a 4x8 frame; the tile is 3x8
    p = exact_cover(tv, (3, 8), frame=(4, 8))
    r = prove(p)
    assert r.status is Verdict.REFUTED, r
    assert str(r.counterexample) == "thread 3, value 0 -> tile coordinate (3,0), outside the 3x8 tile (row 3 >= 3)"
    assert exact_cover(tv, (4, 8), frame=(4, 8)).frame is None  # a frame equal to the tile is no frame
    with pytest.raises(LayoutError, match="frame"):
        exact_cover(tv, (4, 8), frame=(2, 8))
