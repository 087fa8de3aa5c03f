"""Transaction model: hand-checkable cases, a brute-force recount with Python sets, and the seed-000 C stores."""

from __future__ import annotations

import numpy as np
import pytest

from layoutcheck import Layout, LayoutError
from layoutcheck.models.tiled_mma import make_tiled_mma, ownership
from layoutcheck.models.transactions import contiguous_run, partition_transactions, warp_transactions

C128 = Layout((128, 128), (128, 1))  # row-major fp32 C tile of the step-1 kernel


def _simt(R: int, row_major_threads: bool):
    P = Layout((16, R), (R, 1))
    al = Layout((16, 16), (16, 1)) if row_major_threads else (16, 16)
    return make_tiled_mma("UniversalFMA", al, (P, P))


def test_contiguous_run() -> None:
    assert contiguous_run(Layout((1, (4, 2), (4, 2)), (0, (128, 8192), (1, 64)))) == 4
    assert contiguous_run(Layout((2, 4), (4, 1))) == 8
    assert contiguous_run(Layout((2, 4), (8, 2))) == 1
    assert contiguous_run(Layout((3, 5), (0, 1))) == 5


def test_column_of_lanes_is_ideal() -> None:
    t = make_tiled_mma("UniversalFMA", (32, 1))
    r = partition_transactions(t, "C", Layout((32, 4)), 4)  # lane i writes row i of a column-major column
    assert (r.vector_width, r.instructions_per_warp) == (1, 4)
    assert np.all(r.sectors == 4) and np.all(r.lines == 1) and r.sector_efficiency == 1.0


def test_rows_of_lanes_vectorise() -> None:
    t = make_tiled_mma("UniversalFMA", (32, 1))
    r = partition_transactions(t, "C", Layout((32, 4), (4, 1)), 4)  # lane i owns the 16-byte row i
    assert r.vector_width == 4 and r.instructions_per_warp == 1
    assert r.sectors.tolist() == [[16]] and r.lines.tolist() == [[4]] and r.line_efficiency == 1.0
    s = partition_transactions(t, "C", Layout((32, 4), (4, 1)), 4, width=1)
    assert np.all(s.sectors == 16) and s.ideal_sectors == 4
    h = partition_transactions(t, "C", Layout((32, 4), (4, 1)), 8)  # 8-byte elements: 16-byte cap -> width 2
    assert h.vector_width == 2 and h.vector_bytes == 16


def _brute(offsets: np.ndarray, eb: int, w: int) -> tuple[list[list[int]], list[list[int]]]:
    secs, lines = [], []
    for warp in range(offsets.shape[0] // 32):
        lanes = offsets[32 * warp: 32 * warp + 32]
        vec_starts = [[o for o in row if o % w == 0] for row in lanes.tolist()]
        s_row, l_row = [], []
        for j in range(len(vec_starts[0])):
            bytes_ = {b for lane in vec_starts for b in range(lane[j] * eb, (lane[j] + w) * eb)}
            s_row.append(len({b // 32 for b in bytes_}))
            l_row.append(len({b // 128 for b in bytes_}))
        secs.append(s_row)
        lines.append(l_row)
    return secs, lines


@pytest.mark.parametrize("R", [1, 2, 4, 8])
@pytest.mark.parametrize("row_major", [False, True])
def test_numpy_model_matches_brute_force(R: int, row_major: bool) -> None:
    t = _simt(R, row_major)
    r = partition_transactions(t, "C", C128, 4)
    offs = ownership(t, "C", C128).offset_of.astype(np.int64)
    s, l = _brute(offs[:64], 4, r.vector_width)
    assert r.sectors[:2].tolist() == s and r.lines[:2].tolist() == l


# Seed 000 section 7 claims R=1 "bad", R=2 "OK", R=4 "great", R=8 "great (256-bit)". Computed here for both orders;
# (vector bits, sectors/instr, ideal, lines/instr, ideal). There is no 256-bit store: R=8 is two 128-bit stores.
SEED_C_STORES = {
    # CuTe's column-major atom layout (16,16): warp 0 = m 0..15 x n 0..1 -> 16 rows per instruction
    (1, False): (32, 16, 4, 16, 1),
    (2, False): (64, 16, 8, 16, 2),
    (4, False): (128, 16, 16, 16, 4),
    (8, False): (128, 32, 16, 16, 4),
    # row-major thread order Layout((16,16),(16,1)) (the seed's tn = threadIdx.x % 16): 2 rows per instruction
    (1, True): (32, 4, 4, 2, 1),
    (2, True): (64, 8, 8, 2, 2),
    (4, True): (128, 16, 16, 4, 4),
    (8, True): (128, 32, 16, 8, 4),
}


@pytest.mark.parametrize("key", sorted(SEED_C_STORES))
def test_seed_000_c_store_coalescing(key) -> None:
    R, row_major = key
    r = partition_transactions(_simt(R, row_major), "C", C128, 4)
    got = (r.vector_bytes * 8, r.sectors_per_instruction, r.ideal_sectors, r.lines_per_instruction, r.ideal_lines)
    assert got == SEED_C_STORES[key]
    assert np.all(r.sectors == r.sectors[0, 0]) and r.instructions_per_warp * r.vector_width == 64


def test_tensor_core_c_store() -> None:
    t = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (32, 32, 16))
    r = partition_transactions(t, "C", C128, 4)
    assert r.vector_width == 2 and r.instructions_per_warp == 64  # (c0,c1) pairs: 64-bit stores
    assert r.sectors_per_instruction == 8 and r.lines_per_instruction == 8  # 8 rows x 32 bytes


def test_errors() -> None:
    t = _simt(4, False)
    with pytest.raises(LayoutError, match="element_bytes"):
        partition_transactions(t, "C", C128, 0)
    with pytest.raises(LayoutError, match="vector width 8 is not available"):
        partition_transactions(t, "C", C128, 4, width=8)
    with pytest.raises(LayoutError, match="whole number of warps"):
        warp_transactions(np.zeros((16, 4), dtype=np.int64), 4, 1)
    with pytest.raises(LayoutError, match="aligned vectors"):
        warp_transactions(np.arange(32 * 4).reshape(32, 4) * 3, 4, 2)
