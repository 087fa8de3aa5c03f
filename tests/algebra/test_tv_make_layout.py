"""``algebra.tv.make_layout_tv``: CuTe's ``make_layout_tv(thr, val)``, restated from its definition."""

from __future__ import annotations

import pytest

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.tv import make_layout_tv


def test_the_cute_example() -> None:
    tiler, tv = make_layout_tv(Layout((4, 8), (8, 1)), Layout((2, 4), (4, 1)))
    assert tiler == (8, 32)
    assert str(tv) == "((8,4),(4,2)):((32,2),(8,1))"


@pytest.mark.parametrize(("thr", "val"), [
    (Layout((4, 8), (8, 1)), Layout((2, 4), (4, 1))),
    (Layout((32, 1), (1, 0)), Layout((1, 4), (0, 1))),
    (Layout((8, 4), (1, 8)), Layout((2, 2), (1, 2))),
])
def test_every_tile_element_has_exactly_one_thread_value(thr: Layout, val: Layout) -> None:
    tiler, tv = make_layout_tv(thr, val)
    n = size(thr) * size(val)
    assert size(Layout(tiler)) == n and size(tv) == n
    assert sorted(tv(i) for i in range(n)) == list(range(n))
    assert size(tv[0]) == size(thr) and size(tv[1]) == size(val)
