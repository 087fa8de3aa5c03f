"""Tests written for the mutants of ``layoutcheck/properties`` that the suite let live (docs/soundness.md, "Mutation
score"); each is named after the law it checks, and checks it against values computed here by brute force."""

from __future__ import annotations

import pytest

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.properties.scan import value_bounds


def _values(x: ComposedLayout) -> list[int]:
    return [x.swizzle(x.offset + x.layout(i)) for i in range(size(x.layout))]


def test_value_bounds_reach_below_minus_one_when_a_swizzle_moves_a_negative_value() -> None:
    """``Sw<1,0,1> o (2):(-1)`` has the plain values 0, -1; the swizzle maps -1 to -2 (bit 0 flipped by bit 1), so the
    lower bound must be at most -2, not clamped at 0 (the clamp is only for a layout with no negative value)."""
    x = ComposedLayout(Swizzle(1, 0, 1), 0, Layout((2,), (-1,)))
    assert _values(x) == [0, -2]
    lo, hi = value_bounds(x)
    assert lo <= -2 and hi >= 0


def test_value_bounds_are_clamped_at_zero_for_a_non_negative_swizzled_layout() -> None:
    """``Sw<1,0,1> o (2):(1)`` (values 0, 1 -> 0, 1): the swizzle may move a value down by ``zzz = 1`` but never below
    0, so the lower bound is exactly 0 (a scan sized from -1 would mark a value no index can hit)."""
    x = ComposedLayout(Swizzle(1, 0, 1), 0, Layout((2,), (1,)))
    assert min(_values(x)) == 0
    assert value_bounds(x)[0] == 0


def test_problem_list_recheck_refuses_a_missing_tile_one_row_past_the_grid() -> None:
    """A grouped GEMM whose walk is right (host count = the device's own total): a forged witness "tile (GM, 0) is
    computed by no CTA" names a tile outside its problem's grid (``0 <= m < GM`` fails), so the re-check that guards
    every engine's counterexample must refuse it."""
    from layoutcheck.models.schedulers import ProblemListScheduler
    from layoutcheck.properties.residue import schedule_bijection

    s = ProblemListScheduler((2, 2), 3, "tiles", "(M + TM - 1) // TM * ((N + TN - 1) // TN)")
    prop = schedule_bijection(s, ((4, 4), (4, 4)), (1, 1))  # one 4x4 problem in 2x2 tiles: GM = GN = 2
    assert prop.recheck({"kind": "missing", "problems": [[4, 4]], "problem": 0, "tile": [1, 1]}) is False
    assert prop.recheck({"kind": "missing", "problems": [[4, 4]], "problem": 0, "tile": [2, 0]}) is False



def test_tile_partition_recheck_reads_a_rank_1_tv_as_one_thread() -> None:
    """``tv = (4):(2)`` over a 4-element tile reaches indices 0, 2, 4, 6: value 2 of the one thread of a rank-1 map is
    access 2, at tile index 4 past the tile, so that witness is true against the definition and re-checks; value 1
    (index 2, inside) does not. (The exhaustive engine reports the unowned element 1 first -- a tv of the tile's
    size that reaches past it leaves an element unowned -- so only the re-check reads this form.)"""
    from layoutcheck.models.residue import ResidueTiling
    from layoutcheck.properties.residue import tile_partition

    prop = tile_partition(ResidueTiling(("M",), (4,), tv=Layout((4,), (2,))))
    assert prop.recheck({"kind": "partition", "local": 4, "thread": 0, "value": 2})
    assert not prop.recheck({"kind": "partition", "local": 4, "thread": 0, "value": 1})


def test_tma_witness_of_a_one_dimensional_box_names_the_byte_the_box_writes() -> None:
    """A rank-1 f32 box of 32 elements over the tile ``(64):(2)``: box ``b`` is issued at ``dst = 8 * 32 b`` (the
    layout's byte offset of its first element) and writes its element ``j`` at ``dst + 4 j`` -- no row term in one
    dimension -- while the layout wants element ``i`` at ``8 i``. The first misplaced element is 1 (byte 4, not 8);
    element 33 lands at 256 + 4."""
    from layoutcheck import Verdict, prove
    from layoutcheck.models.tma import TmaBox
    from layoutcheck.properties.tma import tma_compatible

    prop = tma_compatible(TmaBox("float32", (64,), (), (32,)), Layout((64,), (2,)), (0,))
    r = prove(prop)
    assert r.status is Verdict.REFUTED and r.counterexample.data == {"kind": "place", "i": 1}
    assert "TMA puts it at smem byte 4, the layout expects byte 8" in r.counterexample.text
    assert prop.recheck(r.counterexample.data)
    e = prop._element(33)
    assert (e["dst"], e["actual"], e["expected"]) == (256, 260, 264)


def test_schedule_bijection_domain_counts_each_launch_index_and_each_tile_of_every_grid() -> None:
    """``domain_size`` is what the exhaustive engine evaluates (and sizes its memory by): for a plain scheduler (one
    launch index per tile) every grid ``GM x GN`` of the box contributes its launch indices and its tile counts,
    ``2 GM GN``; here 2 (2+3+4)(3+4+5) = 216, summed grid by grid (both ranges start above 1, so the closed form's
    subtracted prefixes ``(a-1) a / 2`` and ``(c-1) c / 2`` are not 0)."""
    from math import prod

    from layoutcheck.models.schedulers import TileScheduler
    from layoutcheck.properties.residue import ScheduleBijection

    s = TileScheduler("plain")
    p = ScheduleBijection(s, ((2, 4), (3, 5)))
    grids = [(gm, gn) for gm in range(2, 5) for gn in range(3, 6)]
    assert p.domain_size() == sum(prod(s.launch_bounds(gm, gn)) + gm * gn for gm, gn in grids) == 216


@pytest.mark.timeout(60)
def test_schedule_bijection_exhaustive_ends_after_the_last_batch_of_grids() -> None:
    """The exhaustive engine screens the grids in batches and stops after the last one: a correct plain scheduler
    over 9 grids is PROVEN with every grid counted, well within the test's 60 s bound (it takes milliseconds; a
    loop that revisits the empty batch past the last grid never returns and fails by timeout)."""
    from layoutcheck.models.schedulers import TileScheduler
    from layoutcheck.properties.residue import ScheduleBijection

    d = ScheduleBijection(TileScheduler("plain"), ((2, 4), (1, 3))).exhaustive()
    assert d.holds and d.stats == {"grids": 9}


def test_umma_chunk_break_of_a_k_major_tile_is_the_first_element_off_its_16_byte_run() -> None:
    """K-major f16 (2-byte elements, 8 per 16-byte chunk): ``(8,16):(16,1)`` keeps every K run contiguous (no break);
    with K stride 2 the first element not 2 bytes after its K predecessor inside a chunk is ``(0, 1)``, flat colex
    index ``0 + 8 * 1 = 8``, as brute force over the byte offsets finds."""
    from layoutcheck.properties.descriptors import _chunk_break

    def brute(lay: Layout) -> int | None:
        mn, k = size(lay[0]), size(lay[1])
        off = [[2 * lay(m + mn * j) for j in range(k)] for m in range(mn)]
        bad = [m + mn * j for j in range(1, k) for m in range(mn) if j % 8 and off[m][j] != off[m][j - 1] + 2]
        return min(bad) if bad else None

    good, broken = Layout((8, 16), (16, 1)), Layout((8, 16), (32, 2))
    assert brute(good) is None and brute(broken) == 8
    assert _chunk_break(good, 2, "K") is None
    assert _chunk_break(broken, 2, "K") == 8


def test_tilelang_out_of_range_recheck_refuses_a_point_one_past_the_domain() -> None:
    """``(_i,) -> (_i + 4,)`` over 4 points into 4 slots: every point is out of range, and a witness must name a
    point of the domain -- point 4 is not one (it would wrap to point 0, whose value 4 is out of range)."""
    from layoutcheck.importers.tilelang import parse_tilelang
    from layoutcheck.properties.tilelang import tilelang_property

    prop = tilelang_property("in_bounds", parse_tilelang("Layout((4,) -> (4,), transform: (_i,) -> (_i + 4,))"))
    assert prop.recheck({"kind": "out", "i": 0, "dim": 0, "value": 4}) is True
    assert prop.recheck({"kind": "out", "i": 4, "dim": 0, "value": 4}) is False


def test_tmem_allocation_domain_is_one_point_per_allocation() -> None:
    """The claim's domain (what the exhaustive engine budgets and reports) is its list of allocations: n points for
    n of them, and one point for an empty list."""
    from layoutcheck.properties.tmem import TmemAllocation

    assert [TmemAllocation(c).domain_size() for c in ((), (128,), (128, 256), (32,) * 5)] == [1, 1, 2, 5]


def test_module_consistency_recheck_refuses_a_size_the_module_allows() -> None:
    """``consistent_with_module``'s witness says the layout's size of a dimension is one the module does not allow;
    a forged witness naming an allowed size (here 32 lanes where the module fixes 32) must not re-check."""
    from layoutcheck.algebra.linear_layout import LinearLayout
    from layoutcheck.properties.ttgir import ConsistentWithModule

    ll = LinearLayout.make({"lane": [[1], [2], [4], [8], [16]]}, {"dim0": 32})
    ok = ConsistentWithModule(ll, "#blocked", (("lane", "threadsPerWarp", "ttg.threads-per-warp", (32,)),))
    wrong = ConsistentWithModule(ll, "#blocked", (("lane", "threadsPerWarp", "ttg.threads-per-warp", (64,)),))
    w = {"dim": "lane", "encoding": 32}
    assert wrong.recheck(w) is True
    assert ok.recheck(w) is False
    assert ok.recheck({"dim": "warp", "encoding": 1}) is False  # a dimension the module does not fix


def test_vector_width_reaches_128_bits_inclusive() -> None:
    """Eight registers at consecutive shared offsets, lanes above them: the widest aligned vector is 128 bits, the
    bound included -- 4 x 32-bit, 2 x 64-bit, and the 8 registers there are for 16 and 8 bits."""
    from layoutcheck.algebra.linear_layout import LinearLayout
    from layoutcheck.properties.linear import vector_width

    reg = LinearLayout.make({"register": [[1], [2], [4]], "lane": [[8], [16], [32], [64], [128]], "warp": []},
                            {"dim0": 256})
    shared = LinearLayout.make({"offset": [[1 << i] for i in range(8)]}, {"dim0": 256})
    assert [vector_width(reg, shared, bits) for bits in (8, 16, 32, 64)] == [8, 8, 4, 2]


def test_copy_rows_name_the_line_of_their_operation_also_after_a_leading_blank_line() -> None:
    """A shared-memory copy's row is at the 1-based line of its ``ttg.local_load`` / ``local_store`` / ``local_alloc``
    in the file as given: a file that starts with an empty line moves every row down by one."""
    from pathlib import Path

    from layoutcheck.properties.ttgir import copies

    text = (Path(__file__).resolve().parents[1] / "data" / "ttgir" / "matmul_fp16_64x32x32_w2_sm80.ttgir").read_text()
    rows = copies(text)
    assert rows
    lines = text.splitlines()
    for c in rows:
        assert "ttg.local_" in lines[c.line - 1], (c.line, lines[c.line - 1])
    assert [c.line + 1 for c in rows] == [c.line for c in copies("\n" + text)]
