"""Seed 001 (``001_8e7a7e7e3788daf1.txt``): the ``mma.sync.m16n8k16`` C/D fragment as a table, a layout string and
row/col formulas.

Authority: PTX ISA 9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating point type" (accumulator ``c_i`` of
lane ``l``: ``row = (l>>2) + 8*(i>=2)``, ``col = 2*(l%4) + (i&1)``) and CUTLASS ``mma_traits_sm80.hpp``
(``CLayout = SM80_16x8_Row = ((4,8),(2,2)):((32,1),(16,8))``, image ``m + 16*n``, colexicographic coordinates).

Verdict (details in ``docs/seeds.md``): the seed's table, its formulas and its store code agree with *each other*
but not with the ISA (lane 0 value 1 is ``C[0,1]``, the seed says ``C[1,0]``); the seed's layout string
``((4,8),(2,2)):((16,1),(8,64))`` is CuTe's *B* layout of the same atom, and reproduces the seed's table only when
the thread mode is read lexicographically and the 16x8 tile row-major -- neither is CuTe's convention.
"""

from __future__ import annotations

import pytest

from layoutcheck import Layout, left_inverse, right_inverse

M, N = 16, 8
SEED_STRING = Layout(((4, 8), (2, 2)), ((16, 1), (8, 64)))
SM80_16x8_ROW = Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))

# The seed's section-3 table, transcribed cell by cell: row r lists (thread, value) for cols 0..7.
SEED_TABLE_TEXT = """
T0:v0 T1:v0 T2:v0 T3:v0 T4:v0 T5:v0 T6:v0 T7:v0
T0:v1 T1:v1 T2:v1 T3:v1 T4:v1 T5:v1 T6:v1 T7:v1
T8:v0 T9:v0 T10:v0 T11:v0 T12:v0 T13:v0 T14:v0 T15:v0
T8:v1 T9:v1 T10:v1 T11:v1 T12:v1 T13:v1 T14:v1 T15:v1
T16:v0 T17:v0 T18:v0 T19:v0 T20:v0 T21:v0 T22:v0 T23:v0
T16:v1 T17:v1 T18:v1 T19:v1 T20:v1 T21:v1 T22:v1 T23:v1
T24:v0 T25:v0 T26:v0 T27:v0 T28:v0 T29:v0 T30:v0 T31:v0
T24:v1 T25:v1 T26:v1 T27:v1 T28:v1 T29:v1 T30:v1 T31:v1
T0:v2 T1:v2 T2:v2 T3:v2 T4:v2 T5:v2 T6:v2 T7:v2
T0:v3 T1:v3 T2:v3 T3:v3 T4:v3 T5:v3 T6:v3 T7:v3
T8:v2 T9:v2 T10:v2 T11:v2 T12:v2 T13:v2 T14:v2 T15:v2
T8:v3 T9:v3 T10:v3 T11:v3 T12:v3 T13:v3 T14:v3 T15:v3
T16:v2 T17:v2 T18:v2 T19:v2 T20:v2 T21:v2 T22:v2 T23:v2
T16:v3 T17:v3 T18:v3 T19:v3 T20:v3 T21:v3 T22:v3 T23:v3
T24:v2 T25:v2 T26:v2 T27:v2 T28:v2 T29:v2 T30:v2 T31:v2
T24:v3 T25:v3 T26:v3 T27:v3 T28:v3 T29:v3 T30:v3 T31:v3
"""

Map = dict[tuple[int, int], tuple[int, int]]  # (thread, value) -> (row, col)


def seed_table() -> Map:
    out: Map = {}
    for row, line in enumerate(SEED_TABLE_TEXT.split()[i:i + 8] for i in range(0, 128, 8)):
        for col, cell in enumerate(line):
            t, v = cell[1:].split(":v")
            out[(int(t), int(v))] = (row, col)
    return out


def ptx_c_fragment(lane: int, i: int) -> tuple[int, int]:
    """PTX ISA 9.7.14.5.8, accumulators of mma.m16n8k16 (f32): groupID = lane>>2, threadID_in_group = lane%4."""
    group, tig = lane >> 2, lane % 4
    return group + 8 * (i >= 2), tig * 2 + (i & 1)


def ptx_map() -> Map:
    return {(t, v): ptx_c_fragment(t, v) for t in range(32) for v in range(4)}


def cute_tv_map(tv: Layout) -> Map:
    """Read a TV layout the CuTe way: flat (t, v) -> index, index -> (m, n) column-major in the 16x8 tile."""
    return {(t, v): (tv(t, v) % M, tv(t, v) // M) for t in range(32) for v in range(4)}


def seed_formula(tid: int, vid: int) -> tuple[int, int]:
    """Section 5: col = tid % 8, row = (tid/8)*2 + (vid%2) + (vid/2)*8."""
    return (tid // 8) * 2 + vid % 2 + (vid // 2) * 8, tid % 8


def seed_reading_of_string(tid: int, vid: int) -> tuple[int, int]:
    """The seed's own reading of its string: T=(4,8) split as (tid/8, tid%8) (lexicographic!), V=(2,2) as
    (vid%2, vid/2), offset = row*8 + col (row-major 16x8)."""
    t_outer, t_inner = tid // 8, tid % 8
    off = t_inner * 1 + t_outer * 16 + (vid % 2) * 8 + (vid // 2) * 64
    return off // N, off % N


def first_difference(a: Map, b: Map) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]] | None:
    for key in sorted(a):
        if a[key] != b[key]:
            return key, a[key], b[key]
    return None


# -- the seed against itself ----------------------------------------------------------------------------------------

def test_seed_table_covers_the_tile_once() -> None:
    table = seed_table()
    assert sorted(table) == [(t, v) for t in range(32) for v in range(4)]
    assert sorted(table.values()) == [(r, c) for r in range(M) for c in range(N)]


def test_seed_table_agrees_with_seed_formula_and_store_code() -> None:
    table = seed_table()
    assert all(seed_formula(t, v) == table[(t, v)] for (t, v) in table)


def test_seed_string_under_seed_reading_gives_seed_table() -> None:
    assert {k: seed_reading_of_string(*k) for k in seed_table()} == seed_table()


# -- the seed against the ISA and CuTe ------------------------------------------------------------------------------

def test_cute_sm80_16x8_row_is_the_ptx_fragment() -> None:
    assert cute_tv_map(SM80_16x8_ROW) == ptx_map()


def test_hw_mma_atom_c_layout_is_the_ptx_fragment() -> None:
    mma = pytest.importorskip("layoutcheck.hw.mma")
    for name in ("SM80_16x8x16_F32F16F16F32_TN", "SM80_16x8x8_F32F16F16F32_TN"):
        atom = mma.mma_atom(name)
        assert atom.tv_layout_C == SM80_16x8_ROW
        assert cute_tv_map(atom.tv_layout_C) == ptx_map()


def test_seed_table_is_not_the_ptx_fragment() -> None:
    table, ptx = seed_table(), ptx_map()
    diff = first_difference(ptx, table)
    assert diff == ((0, 1), (0, 1), (1, 0))  # lane 0, c1: PTX C[0,1], seed C[1,0]
    agree = sum(table[k] == ptx[k] for k in table)
    assert agree == 16  # only 16 of the 128 cells coincide
    # thread 0: PTX (0,0),(0,1),(8,0),(8,1); seed (0,0),(1,0),(8,0),(9,0)
    assert [ptx[(0, v)] for v in range(4)] == [(0, 0), (0, 1), (8, 0), (8, 1)]
    assert [table[(0, v)] for v in range(4)] == [(0, 0), (1, 0), (8, 0), (9, 0)]
    # the warehouse example, "Worker #5 ... (0,5),(1,5),(8,5),(9,5)": PTX gives (1,2),(1,3),(9,2),(9,3)
    assert [ptx[(5, v)] for v in range(4)] == [(1, 2), (1, 3), (9, 2), (9, 3)]


@pytest.mark.parametrize(
    ("tid", "vid", "seed_rc", "ptx_rc"),
    [
        (0, 0, (0, 0), (0, 0)),
        (0, 1, (1, 0), (0, 1)),
        (0, 2, (8, 0), (8, 0)),
        (0, 3, (9, 0), (8, 1)),
        (5, 1, (1, 5), (1, 3)),
        (8, 0, (2, 0), (2, 0)),
        (24, 2, (14, 0), (14, 0)),
        (31, 3, (15, 7), (15, 7)),
    ],
)
def test_seed_verification_list(tid: int, vid: int, seed_rc: tuple[int, int], ptx_rc: tuple[int, int]) -> None:
    """The seed's eight "verification" rows: 5 coincide with the ISA, (0,1), (0,3) and (5,1) do not."""
    assert seed_formula(tid, vid) == seed_rc
    assert ptx_c_fragment(tid, vid) == ptx_rc
    assert cute_tv_map(SM80_16x8_ROW)[(tid, vid)] == ptx_rc


def test_seed_string_under_cute_semantics() -> None:
    """Evaluated as CuTe does, the seed's string is a valid TV layout of a 16x8 tile, but not the C fragment."""
    got = cute_tv_map(SEED_STRING)
    assert sorted(got.values()) == [(r, c) for r in range(M) for c in range(N)]  # a bijection
    assert [got[(0, v)] for v in range(4)] == [(0, 0), (8, 0), (0, 4), (8, 4)]
    assert first_difference(ptx_map(), got) == ((0, 1), (0, 1), (8, 0))
    assert got != seed_table()


def test_seed_string_is_cute_b_layout_of_the_atom() -> None:
    """``((4,8),(2,2)):((16,1),(8,64))`` is CUTLASS's BLayout of SM80_16x8x16 (N8 x K16, image n + 8k)."""
    mma = pytest.importorskip("layoutcheck.hw.mma")
    assert mma.mma_atom("SM80_16x8x16_F32F16F16F32_TN").tv_layout_B == SEED_STRING


def test_cute_decomposes_thread_mode_colexicographically() -> None:
    """The seed writes T=(4,8) as (tid/8, tid%8). CuTe: tid -> (tid%4, tid/4); thread 1 is (1,0), not (0,1)."""
    t_mode = SEED_STRING[0]
    assert t_mode(1) == t_mode((1, 0)) == 16
    assert t_mode(1) != 1  # the seed's "tid%8 contributes offset (tid%8)*1"


def test_seed_table_and_ptx_as_cute_layouts() -> None:
    """What the two maps are in CuTe notation (column-major 16x8 tile): the seed's table is
    ((8,4),(2,2)):((16,2),(1,8)); the ISA's is SM80_16x8_Row. Row-major (r*8+c) the ISA map would read
    ((4,8),(2,2)):((2,8),(1,64)) -- not the seed's string either."""
    seed_as_cute = Layout(((8, 4), (2, 2)), ((16, 2), (1, 8)))
    assert cute_tv_map(seed_as_cute) == seed_table()
    ptx_row_major = Layout(((4, 8), (2, 2)), ((2, 8), (1, 64)))
    assert {(t, v): divmod(ptx_row_major(t, v), N) for t in range(32) for v in range(4)} == ptx_map()
    assert ptx_row_major != SEED_STRING


def test_c_layout_is_invertible() -> None:
    """Both the CuTe C layout and the seed's string are bijections onto [0,128): left and right inverses agree."""
    for tv in (SM80_16x8_ROW, SEED_STRING):
        inv = right_inverse(tv)
        assert [tv(inv(i)) for i in range(128)] == list(range(128))
        linv = left_inverse(tv)
        assert [linv(tv(i)) for i in range(128)] == list(range(128))


def test_m16n8k8_c_fragment_has_the_same_strides() -> None:
    """Seed: "a different instruction (e.g. mma.sync.m16n8k8) would have different fixed strides". For C it does
    not: m16n8k8's accumulator layout is SM80_16x8_Row too (PTX 9.7.14.5.7 has the same c_i formula)."""
    mma = pytest.importorskip("layoutcheck.hw.mma")
    assert (mma.mma_atom("SM80_16x8x8_F32F16F16F32_TN").tv_layout_C
            == mma.mma_atom("SM80_16x8x16_F32F16F16F32_TN").tv_layout_C)
