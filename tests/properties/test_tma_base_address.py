"""``tma_compatible`` with a tile buffer that does not start on a 1024-byte boundary: the TMA swizzles absolute
shared-memory addresses, the layout is read from the buffer start (tile-ai/tilelang#2379, PR #2391)."""

from __future__ import annotations

import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.engines.prove import prove
from layoutcheck.errors import LayoutError
from layoutcheck.models.tma import TmaBox
from layoutcheck.properties.tma import tma_compatible
from layoutcheck.result import Verdict

# fp32 64 x 32 tile, 128 B rows, the 128B swizzle on 16-byte chunks (Sw<3,2,3> in fp32 elements)
LAYOUT = ComposedLayout(Swizzle(3, 2, 3), 0, Layout((64, 32), (32, 1)))
PERIOD = {"32B": 256, "64B": 512, "128B": 1024}


def _box(swizzle: str = "128B") -> TmaBox:
    return TmaBox("float32", (32, 64), (128,), (32, 64), swizzle=swizzle)


@pytest.mark.parametrize("base", [0, 1024, 2048])
def test_pattern_aligned_buffers_are_proven(base: int) -> None:
    assert prove(tma_compatible(_box(), LAYOUT, (1, 0), base)).status is Verdict.PROVEN


@pytest.mark.parametrize("base", [128, 256, 512, 896])
def test_buffers_off_the_pattern_are_refuted(base: int) -> None:
    prop = tma_compatible(_box(), LAYOUT, (1, 0), base)
    r = prove(prop)
    assert r.status is Verdict.REFUTED and prop.recheck(r.counterexample.data)
    assert f"starts {base} B past a 1024 B boundary" in r.counterexample.text


def test_the_first_misplaced_element_at_128() -> None:
    r = prove(tma_compatible(_box(), LAYOUT, (1, 0), 128))
    assert r.counterexample.text.startswith("tile element (0,0) [box at (0,0), box element (0,0)]: TMA puts it at "
                                            "smem byte 16, the layout expects byte 0")


@pytest.mark.parametrize("swizzle, sw", [("32B", Swizzle(1, 2, 3)), ("64B", Swizzle(2, 2, 3))])
def test_smaller_swizzles_need_their_own_period(swizzle: str, sw: Swizzle) -> None:
    width = {"32B": 8, "64B": 16}[swizzle]  # fp32 elements per swizzle row
    lay = ComposedLayout(sw, 0, Layout((64, width), (width, 1)))
    box = TmaBox("float32", (width, 64), (4 * width,), (width, 64), swizzle=swizzle)
    assert prove(tma_compatible(box, lay, (1, 0), PERIOD[swizzle])).status is Verdict.PROVEN
    assert prove(tma_compatible(box, lay, (1, 0), PERIOD[swizzle] // 2)).status is Verdict.REFUTED


def test_unswizzled_boxes_do_not_care() -> None:
    plain = Layout((64, 32), (32, 1))
    assert prove(tma_compatible(_box("none"), plain, (1, 0), 128)).status is Verdict.PROVEN


def test_negative_base_is_a_layout_error() -> None:
    with pytest.raises(LayoutError, match="base_address"):
        tma_compatible(_box(), LAYOUT, (1, 0), -16)
