"""Swizzle search: cheapest Sw<B,M,S> for a write + read pair, and a decided 'none in the family'."""

from __future__ import annotations

from layoutcheck import Layout
from layoutcheck.models.banks.access import column_access, row_access
from layoutcheck.models.banks.search import search_swizzle


def test_textbook_transpose_picks_sw505() -> None:
    res = search_swizzle(Layout((32, 32), (32, 1)), row_access(32, 32, 32), column_access(32, 32, 32))
    assert str(res.choice) == "Sw<5,0,5>"
    assert res.tried[0][1:] == (32, 1024)  # no swizzle: rows 1 wavefront each, columns 32


def test_no_swizzle_in_a_too_small_family() -> None:
    res = search_swizzle(Layout((32, 32), (32, 1)), row_access(32, 32, 32), column_access(32, 32, 32), max_bits=2)
    assert not res.found and len(res.tried) > 1
