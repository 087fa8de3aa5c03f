"""TiledMMA / ThrMMA against a brute-force re-derivation of CuTe's partitioning, and the seed-000 configurations.

The brute force (``_brute_C`` and friends) restates CuTe's semantics without the layout algebra: for a permutation
``P`` of ``[0, p)`` in mode M, the flat index ``f`` along M (tile index ``f % p``, tile ``f // p``) sits at row
``P(f % p) + p * (f // p)``; atoms divide ``f`` as ``a + AtomM * (thrM + ThrM * rest)``; the atom's TV layout maps
``(lane, frg value)`` to ``a_m + AtomM * a_n``; thread ids come from ``v + V * atom_layout(m, n, k)``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from layoutcheck import Layout, LayoutError, size
from layoutcheck.hw.mma import mma_atom
from layoutcheck.models.tiled_mma import Tensor, make_tiled_mma, ownership, tile_frame

SIMT_PERM = (Layout((16, 4), (4, 1)), Layout((16, 4), (4, 1)))
ROW_MAJOR_C = Layout((128, 128), (128, 1))


def _perm_fn(p, extent: int):
    if p is None:
        p = extent
    if isinstance(p, int):
        return p, (lambda i: i)
    return size(p), (lambda i: p(i))


def _mode_index(f: int, p, ps: int) -> int:
    fn = _perm_fn(p, ps)[1]
    return fn(f % ps) + ps * (f // ps)


def _brute(tiled, operand: str, tensor: Layout) -> dict[int, list[int]]:
    """thread -> [tensor offset of value j] following the module docstring, for operand A, B or C."""
    atom = tiled.atom
    i0, i1, rep = {"C": (0, 1, 2), "A": (0, 2, 1), "B": (1, 2, 0)}[operand]
    tv = {"C": atom.tv_layout_C, "A": atom.tv_layout_A, "B": atom.tv_layout_B}[operand]
    al = tiled.atom_layout
    thr = [size(al[i]) for i in range(3)]
    tile = tiled.tile_size_mnk
    ext = (size(tensor[0]), size(tensor[1]))
    am, an = atom.shape_mnk[i0], atom.shape_mnk[i1]
    rest0 = ext[0] // (am * thr[i0])
    rest1 = ext[1] // (an * thr[i1])
    nv = size(tv[1])
    V = atom.num_threads
    out: dict[int, list[int]] = {}
    for v, c0, c1, cr in itertools.product(range(V), range(thr[i0]), range(thr[i1]), range(thr[rep])):
        crd = [0, 0, 0]
        crd[i0], crd[i1], crd[rep] = c0, c1, cr
        tid = atom.thr_id(v) + V * al(tuple(crd))
        vals = []
        for q1, q0, fv in itertools.product(range(rest1), range(rest0), range(nv)):  # colex (fv, q0, q1)
            a = tv(v, fv)
            a0, a1 = a % am, a // am
            f0 = a0 + am * (c0 + thr[i0] * q0)
            f1 = a1 + an * (c1 + thr[i1] * q1)
            r = _mode_index(f0, tiled.permutation[i0], tile[i0])
            c = _mode_index(f1, tiled.permutation[i1], tile[i1])
            vals.append(tensor(r, c))
        out[tid] = vals
    return out


CONFIGS = [
    ("UniversalFMA", (16, 16), SIMT_PERM, (128, 128)),
    ("UniversalFMA", Layout((16, 16), (16, 1)), SIMT_PERM, (128, 128)),
    ("UniversalFMA", (4, 8), (Layout((4, 2), (2, 1)), 16), (16, 32)),
    ("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (32, 32, 16), (64, 64)),
    ("SM80_16x8x16_F16F16F16F16_TN", (1, 1, 1), (None, None, None), (32, 16)),
    ("SM80_16x8x8_F32TF32TF32F32_TN", (2, 1, 1), (32, Layout((2, 4, 2), (1, 4, 2)), 8), (32, 32)),
    ("SM80_8x8x4_F64F64F64F64_TN", Layout((2, 2), (2, 1)), (16, 16, 8), (32, 32)),
    ("SM80_16x8x32_S32S8S8S32_TN", (1, 2, 1), (16, 32, 32), (32, 64)),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}")
@pytest.mark.parametrize("operand", ["A", "B", "C"])
def test_partition_matches_brute_force(cfg, operand: str) -> None:
    name, al, perm, (rows, cols) = cfg
    tiled = make_tiled_mma(name, al, perm)
    kt = tiled.tile_size_mnk[2] * 2
    shape = {"C": (rows, cols), "A": (rows, kt), "B": (cols, kt)}[operand]
    tensor = Layout(shape, (shape[1], 1))  # row-major, so offsets differ from colex indices
    expected = _brute(tiled, operand, tensor)
    assert sorted(expected) == list(range(tiled.size))
    for tid in range(tiled.size):
        part = getattr(tiled.get_slice(tid), f"partition_{operand}")(tensor)
        assert part.offsets().tolist() == expected[tid], f"thread {tid}"


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}")
def test_exact_cover_and_replication(cfg) -> None:
    name, al, perm, (rows, cols) = cfg
    tiled = make_tiled_mma(name, al, perm)
    kt = tiled.tile_size_mnk[2]
    c = ownership(tiled, "C", (rows, cols))
    assert c.replication == 1 * tiled.thr_size(3)
    assert np.array_equal(np.sort(c.thread.ravel()), np.repeat(np.arange(tiled.size), c.values_per_thread))
    a = ownership(tiled, "A", (rows, kt))
    b = ownership(tiled, "B", (cols, kt))
    assert a.replication == tiled.thr_size(2) and b.replication == tiled.thr_size(1)
    for o in (a, b, c):  # every (thread, value) is one element, and the element's owners list that thread
        t = np.arange(o.num_threads)[:, None].repeat(o.values_per_thread, 1)
        owners = o.thread[o.row_of, o.col_of]
        assert np.all((owners == t[..., None]).sum(-1) == 1)
        assert np.array_equal(o.value[o.row_of, o.col_of], np.broadcast_to(np.arange(o.values_per_thread), t.shape))


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}")
def test_ownership_offsets_match_partition(cfg) -> None:
    name, al, perm, (rows, cols) = cfg
    tiled = make_tiled_mma(name, al, perm)
    tensor = Layout((rows, cols), (cols + 3, 1))  # padded row-major
    o = ownership(tiled, "C", tensor)
    for tid in range(tiled.size):
        assert o.offset_of[tid].tolist() == tiled.get_slice(tid).partition_C(tensor).offsets().tolist()


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}")
@pytest.mark.parametrize("operand", ["A", "B", "C"])
def test_tv_layouts_agree_with_partition_of_the_tile(cfg, operand: str) -> None:
    name, al, perm, _ = cfg
    tiled = make_tiled_mma(name, al, perm)
    m, n, k = tiled.tile_size_mnk
    shape = {"C": (m, n), "A": (m, k), "B": (n, k)}[operand]
    tv = getattr(tiled, f"tv_layout_{operand}")
    assert size(tv[0]) == tiled.size
    for tid in range(tiled.size):
        part = getattr(tiled.get_slice(tid), f"partition_{operand}")(Layout(shape))
        assert [tv(tid, v) for v in range(size(tv[1]))] == part.offsets().tolist()


# -- seed 000 / 004: the SIMT step-1 kernel ----------------------------------------------------------------------
def _rows_cols(t: Tensor, ld: int = 128) -> tuple[list[int], list[int]]:
    o = t.offsets()
    return sorted(set((o // ld).tolist())), sorted(set((o % ld).tolist()))


def test_simt_step1_sizes_and_thread0() -> None:
    tiled = make_tiled_mma("UniversalFMA", (16, 16), SIMT_PERM)
    assert tiled.size == 256 and tiled.tile_size_mnk == (64, 64, 1)
    assert str(tiled.thr_layout_vmnk) == "(1,16,16,1):(0,1,16,0)"  # as CuTe C++ prints it (thr_id 1:0)
    t0 = tiled.get_slice(0).partition_C(ROW_MAJOR_C)
    assert str(t0) == "0 + (1,(4,2),(4,2)):(0,(128,8192),(1,64))"  # seed 004's tCgC, for thread 0
    rows, cols = _rows_cols(t0)
    assert rows == [0, 1, 2, 3, 64, 65, 66, 67] and cols == [0, 1, 2, 3, 64, 65, 66, 67]
    assert size(t0.layout) == 64


def test_simt_thread_order_is_column_major() -> None:
    """CuTe's int-tuple atom layout is column-major: thread 1 is (m=1, n=0), so it moves down 4 rows, not right."""
    tiled = make_tiled_mma("UniversalFMA", (16, 16), SIMT_PERM)
    assert tiled.get_slice(1).thr_vmnk == (0, 1, 0, 0)
    assert _rows_cols(tiled.get_slice(1).partition_C(ROW_MAJOR_C)) == ([4, 5, 6, 7, 68, 69, 70, 71],
                                                                      [0, 1, 2, 3, 64, 65, 66, 67])
    rm = make_tiled_mma("UniversalFMA", Layout((16, 16), (16, 1)), SIMT_PERM)
    assert rm.get_slice(1).thr_vmnk == (0, 0, 1, 0)
    assert _rows_cols(rm.get_slice(1).partition_C(ROW_MAJOR_C)) == ([0, 1, 2, 3, 64, 65, 66, 67],
                                                                    [4, 5, 6, 7, 68, 69, 70, 71])


@pytest.mark.parametrize("R, rows", [
    (1, [0, 16, 32, 48, 64, 80, 96, 112]),
    (2, [0, 1, 32, 33, 64, 65, 96, 97]),
    (4, [0, 1, 2, 3, 64, 65, 66, 67]),
    (8, [0, 1, 2, 3, 4, 5, 6, 7]),
])
def test_simt_permutations_thread0(R: int, rows: list[int]) -> None:
    perm = Layout((16, R), (R, 1))
    tiled = make_tiled_mma("UniversalFMA", (16, 16), (perm, perm))
    assert tiled.tile_size_mnk == (16 * R, 16 * R, 1)
    got_rows, got_cols = _rows_cols(tiled.get_slice(0).partition_C(ROW_MAJOR_C))
    assert got_rows == rows and got_cols == rows


def test_tensor_core_step4_counts() -> None:
    """m16n8k16 x (2,2,1), permutation (32,32,16) on 128x128x32: CuTe's counts (seed 000 says 64 accumulators and
    32 MMAs per k-tile; both drop its own N-expansion factor of 2)."""
    tiled = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (32, 32, 16))
    assert tiled.size == 128 and tiled.tile_size_mnk == (32, 32, 16)
    s = tiled.get_slice(0)
    c = s.partition_C(ROW_MAJOR_C)
    a = s.partition_A(Layout((128, 32), (32, 1)))
    b = s.partition_B(Layout((128, 32), (32, 1)))
    assert c.layout.shape == ((2, 2), 4, 8) and size(c.layout) == 128  # accumulators per thread
    assert size(a.layout[0]) == 8 and size(b.layout[0]) == 4
    rest_m, rest_n, rest_k = size(c.layout[1]), size(c.layout[2]), size(a.layout[2])
    assert (rest_m, rest_n, rest_k) == (4, 8, 2)
    assert rest_m * rest_n * rest_k == 64  # mma.sync per warp per k-tile
    assert str(tiled.tv_layout_C) == "((4,8,2,2),((2,2),(1,2))):((64,1,16,256),((32,8),(0,512)))"


def test_atom_by_name_or_value() -> None:
    a = mma_atom("SM80_16x8x8_F32TF32TF32F32_TN")
    assert make_tiled_mma(a).size == make_tiled_mma(a.name).size == 32


# -- errors ----------------------------------------------------------------------------------------------------------
def test_permutation_smaller_than_coverage_is_cute_s_tiler() -> None:
    """CuTe accepts a permutation smaller than the atoms' coverage (the CuTe DSL 4.x prints the same thrfrg_C): it
    is a tiler, and the thread division of the rest takes the other rows."""
    t = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (16, 32, 16))
    assert t.tile_size_mnk == (16, 32, 16)
    assert str(t.thrfrg_C(Layout((128, 32)))) == \
        "(((4,8),(2,2)),((2,2),(4,2))):(((256,1),(16,1024)),((128,8),(32,2048)))"
    tv, frame = tile_frame(t, "C", (128, 32))
    assert frame == (128, 32) and sorted(tv.offsets().tolist()) == list(range(128 * 32))


def test_tile_not_divisible_by_permutation_runs_past_it() -> None:
    """CuTe's rounding-up complement: a 24-row tile under a 16-row atom is partitioned as 32 rows (the CuTe DSL
    prints ``(((4,8),(1,1)),((2,2),(2,1))):(((48,1),(0,0)),((24,8),(16,0)))`` for thrfrg_C of ``(24,8)``)."""
    t = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN")
    assert str(t.thrfrg_C(Layout((24, 8)))) == "(((4,8),(1,1)),((2,2),(2,1))):(((48,1),(16,0)),((24,8),(16,0)))"
    tv, frame = tile_frame(t, "C", (24, 8))
    assert frame == (32, 8)
    crd = [(o % 32, o // 32) for o in tv.offsets().tolist()]
    assert sorted(crd) == sorted((r, c) for r in range(32) for c in range(8))  # rows 24..31 fall outside the tile
    tiled = make_tiled_mma("UniversalFMA", (16, 16), SIMT_PERM)
    with pytest.raises(LayoutError, match="reaches past the 128x100"):
        ownership(tiled, "C", (128, 100))


def test_split_k_replicates_c() -> None:
    """ThrK > 1: thread ``t`` and ``t + 128`` hold the same C partition (``partition_C`` ignores k), so every C
    element has two owners; A keeps ThrN owners, B ThrM."""
    t = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 2))
    c = t.tv_layout("C", Layout((32, 16)))
    assert size(c[0]) == 256 and c(5, 3) == c(5 + 128, 3)
    offs = c.offsets()
    assert sorted(offs.tolist()) == sorted(list(range(512)) * 2)
    assert (t.replication("A"), t.replication("B"), t.replication("C")) == (2, 2, 1)
    for tid in (0, 37, 200):
        assert t.get_slice(tid).partition_C(Layout((32, 16))).offsets().tolist() == \
            [c(tid, v) for v in range(size(c[1]))]


def test_permutation_that_is_not_a_bijection_is_a_tiler() -> None:
    """``(16,1):(2,1)`` along M of a 128-row tile: rows 0,2,..,30 first, the complement ``(2,4):(1,32)`` the rest."""
    t = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (1, 1, 1), (Layout((16, 1), (2, 1)), 8, 16))
    tv, frame = tile_frame(t, "C", (128, 8))
    assert frame == (128, 8) and sorted(tv.offsets().tolist()) == list(range(1024))
    _tv16, frame16 = tile_frame(t, "C", (16, 8))
    assert frame16 == (32, 8)  # on a 16-row tile the rows 16..30 leave it


def test_bad_thread_ids() -> None:
    tiled = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (32, 32, 16))
    for bad in (-1, 128, 1.5):
        with pytest.raises(LayoutError, match=r"thread id .* out of range"):
            tiled.get_slice(bad)  # type: ignore[arg-type]


def test_rank_mismatches() -> None:
    with pytest.raises(LayoutError, match=r"atom_layout .* rank 4"):
        make_tiled_mma("UniversalFMA", (2, 2, 2, 2))
    with pytest.raises(LayoutError, match="permutation has 4 entries"):
        make_tiled_mma("UniversalFMA", (2, 2), (None, None, None, None))
    with pytest.raises(LayoutError, match="permutation K must be"):
        make_tiled_mma("UniversalFMA", (2, 2), (None, None, "x"))
    with pytest.raises(LayoutError, match="rank >= 2"):
        make_tiled_mma("UniversalFMA", (2, 2)).get_slice(0).partition_C(Layout(16))
    with pytest.raises(LayoutError, match="rank-2"):
        ownership(make_tiled_mma("UniversalFMA", (2, 2)), "C", Layout((4, 4, 2)))
    with pytest.raises(LayoutError, match="operand"):
        ownership(make_tiled_mma("UniversalFMA", (2, 2)), "D")


def test_unknown_atom_suggests() -> None:
    with pytest.raises(LayoutError, match="did you mean SM80_16x8x16_F32BF16BF16F32_TN"):
        make_tiled_mma("SM80_16x8x16_F32BF16BF16F32")


def test_non_compact_atom_layout_and_bad_permutation() -> None:
    with pytest.raises(LayoutError, match="not compact"):
        make_tiled_mma("UniversalFMA", Layout((2, 2), (1, 4)))
    assert make_tiled_mma("UniversalFMA", (2, 2), (Layout((2, 2), (2, 2)), None)).tile_size_mnk == (4, 2, 1)


def test_tensor_value() -> None:
    t = Tensor(5, Layout((2, 3), (3, 1)))
    assert t(1) == 8 and t((1, 2)) == 10 and len(t) == 2 and "5 + (2,3):(3,1)" in repr(t) + str(t)


@pytest.mark.parametrize("atom, atom_layout", [("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1)),
                                               ("SM80_16x8x16_F32F16F16F32_TN", Layout((2, 2, 2), (2, 1, 4))),
                                               ("UniversalFMA", (4, 2, 1)),
                                               ("SM90_64x128x16_F32F16F16_SS", (2, 1, 1))])
def test_thr_coords_is_thr_coord_of_every_thread(atom: str, atom_layout) -> None:
    mma = make_tiled_mma(atom, atom_layout)
    assert mma.thr_coords().tolist() == [list(mma.thr_coord(t)) for t in range(mma.size)]
