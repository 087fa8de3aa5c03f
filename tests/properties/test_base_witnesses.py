"""The witness helpers every claim shares (``layoutcheck.properties.base``): forged witnesses are rejected at every
bound, and the collision / range helpers equal brute force on both of their code paths (the dense counting path and
the sorting path) -- the re-check is what makes a REFUTED trustworthy, so it is tested against forgeries."""

from __future__ import annotations

import numpy as np
import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.properties.base import (
    first_out_of_range,
    offset_range,
    recheck_out,
    recheck_pair,
    smallest_collision,
)

L = Layout((4, 2), (1, 2))  # offsets 0 1 2 3 2 3 4 5: indices 2 and 4 collide


@pytest.mark.parametrize(("i", "j", "ok"), [(2, 4, True), (3, 5, True), (4, 2, False), (2, 2, False),
                                            (-6, 4, False), (2, 8, False), (0, 1, False), (0, 7, False)])
def test_recheck_pair_rejects_forged_collisions(i: int, j: int, ok: bool) -> None:
    assert recheck_pair(L, {"kind": "collision", "i": i, "j": j}) is ok


@pytest.mark.parametrize(("i", "extent", "ok"), [(7, 5, True), (7, 6, False), (6, 5, False), (0, 1, False),
                                                 (-1, 5, False), (8, 5, False), (6, 4, True), (5, 4, False)])
def test_recheck_out_rejects_forged_witnesses(i: int, extent: int, ok: bool) -> None:
    assert recheck_out(L, {"kind": "out", "i": i}, extent) is ok


def _brute_pair(offs: list[int]) -> tuple[int, int] | None:
    return min(((a, b) for b in range(len(offs)) for a in range(b) if offs[a] == offs[b]), default=None)


@pytest.mark.parametrize("offs", [[], [5], [3, 3], [0, 1, 2], [2, 1, 2, 1], [0, 100, 7, 100, 7], [9, 1000, 9],
                                  [-5, 0, -5], [0, 10**6, 3, 10**6], [1, 2, 3, 4, 3], [*range(40), 0]])
def test_smallest_collision_is_the_brute_force_pair(offs: list[int]) -> None:
    assert smallest_collision(np.array(offs, dtype=np.int64)) == _brute_pair(offs)


def test_smallest_collision_on_both_paths_of_a_random_image() -> None:
    rng = np.random.default_rng(0)
    for spread in (2, 4, 5, 50, 10**6):  # dense (counting) and sparse (sorting) images
        for n in (2, 3, 17, 64):
            offs = rng.integers(0, spread * n, n)
            assert smallest_collision(offs) == _brute_pair(offs.tolist()), (spread, n, offs)


@pytest.mark.parametrize(("offs", "extent", "want"), [([0, 1, 2], 3, None), ([0, 1, 3], 3, 2), ([-1, 0], 3, 0),
                                                      ([0, 2], 2, 1), ([1, 1], 1, 0), ([], 0, None), ([0], 1, None)])
def test_first_out_of_range(offs: list[int], extent: int, want: int | None) -> None:
    assert first_out_of_range(np.array(offs, dtype=np.int64), extent) == want


@pytest.mark.parametrize("lay", [Layout((4, 3), (2, -5)), Layout((2, 2, 3), (-1, 0, 7)), Layout(5, -1), Layout(1, 9),
                                 Layout((3, (2, 2)), (4, (-3, 1)))])
def test_offset_range_of_a_plain_layout_is_exact(lay: Layout) -> None:
    offs = lay.offsets().tolist()
    assert offset_range(lay) == (min(offs), max(offs))


@pytest.mark.parametrize(("sw", "lay", "off"), [(Swizzle(3, 3, 3), Layout((8, 64), (64, 1)), 0),
                                                (Swizzle(2, 0, 2), Layout((4, 4), (4, 1)), 16),
                                                (Swizzle(1, 1, 3), Layout((4, 4), (8, 1)), 3)])
def test_offset_range_of_a_swizzled_layout_is_reached(sw: Swizzle, lay: Layout, off: int) -> None:
    """Swizzled: ``[lo, hi]`` is a range the image certainly reaches (its minimum and maximum lie outside it)."""
    c = ComposedLayout(sw, off, lay)
    lo, hi = offset_range(c)
    offs = [c(i) for i in range(lay.offsets().size)]
    assert min(offs) <= lo <= hi <= max(offs)
