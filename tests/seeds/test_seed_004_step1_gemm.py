"""Seed 004 (``004_82f5a2134830d7d5.txt``): the step-1 SIMT GEMM's thread-to-element map.

``UniversalFMA``, 256 threads as a 16x16 atom layout, C tile ``gC = (128,128):(128,1)`` (row-major), permutation
``(16,4):(4,1)`` in M and N. Checked: the three ``logical_divide`` results, every intermediate of the 5-step
derivation of ``tCgC = (1,(4,2),(4,2)):(0,(128,8192),(1,64))``, all 64 elements of thread 0, the worked offsets
323 / 8322 / 8451, and the thread order. Each value is computed with layoutcheck and re-derived by explicit loops.

Verdict (``docs/seeds.md``): the algebra agrees (the seed flattens nested modes, which is the same function); the
CUDA code's thread order ``tm = threadIdx.x / 16`` is *not* CuTe's default: CuTe's column-major atom layout gives
``tm = threadIdx.x % 16``. They agree only with atom layout ``(16,16):(16,1)``.
"""

from __future__ import annotations

import itertools

import pytest

from layoutcheck import Layout, logical_divide, parse_layout, size, zipped_divide

GC = Layout((128, 128), (128, 1))
P = Layout((16, 4), (4, 1))
ROWS0 = [0, 1, 2, 3, 64, 65, 66, 67]
TCGC = "(1,(4,2),(4,2)):(0,(128,8192),(1,64))"


def same_function(a: Layout, b: Layout) -> bool:
    """Equal as functions of the flat index (nesting and size-1 strides ignored)."""
    return size(a) == size(b) and a.offsets().tolist() == b.offsets().tolist()


def cuda_rows(tm: int) -> list[int]:
    """The seed's CUDA code: my_rows[i] = tm*4 + i, my_rows[4+i] = tm*4 + 64 + i."""
    return [tm * 4 + i for i in range(4)] + [tm * 4 + 64 + i for i in range(4)]


def brute_thread_elements(tid: int, atom_layout: Layout) -> list[int]:
    """CuTe's thrfrg_C for a 1x1 atom, by loops: thread -> (tm, tn) with atom_layout(tm, tn) == tid; value
    (rm, jm, rn, jn) colex -> row P(tm + 16*rm) + 64*jm, col P(tn + 16*rn) + 64*jn; offset row*128 + col."""
    tm, tn = next((i, j) for i in range(16) for j in range(16) if atom_layout(i, j) == tid)
    out = []
    for jn, rn, jm, rm in itertools.product(range(2), range(4), range(2), range(4)):
        out.append((P(tm + 16 * rm) + 64 * jm) * 128 + P(tn + 16 * rn) + 64 * jn)
    return out


# -- logical_divide results (M only) ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("perm", "seed_result", "thread0_rows"),
    [
        ("(16,4):(4,1)", "(16,4,2):(512,128,8192)", [0, 1, 2, 3, 64, 65, 66, 67]),
        ("(16,4):(1,16)", "(16,4,2):(128,2048,8192)", [0, 16, 32, 48, 64, 80, 96, 112]),
        ("(16,8):(8,1)", "(16,8):(1024,128)", [0, 1, 2, 3, 4, 5, 6, 7]),
    ],
)
def test_logical_divide_m(perm: str, seed_result: str, thread0_rows: list[int]) -> None:
    p = parse_layout(perm)
    got = logical_divide(Layout(128, 128), p)
    assert same_function(got, parse_layout(seed_result))  # seed flattens ((16,4),2) to (16,4,2): same function
    rows = sorted(got((0, i), j) // 128 for j in range(size(got[1])) for i in range(size(p[1])))
    assert rows == thread0_rows
    # "output_stride = permutation_stride x input_base_stride" (true here: the M mode is the single stride 128)
    assert [d // 128 for d in got[0].offsets().tolist()] == p.offsets().tolist()


def test_logical_divide_exact_forms() -> None:
    assert str(logical_divide(Layout(128, 128), P)) == "((16,4),2):((512,128),8192)"
    assert str(logical_divide(Layout(128, 128), parse_layout("(16,4):(1,16)"))) == "((16,4),2):((128,2048),8192)"
    assert str(logical_divide(Layout(128, 128), parse_layout("(16,8):(8,1)"))) == "((16,8),1):((1024,128),0)"


# -- the 5-step derivation ----------------------------------------------------------------------------------------

def test_step1_logical_divide_2d() -> None:
    got = logical_divide(GC, (P, P))
    assert str(got) == "(((16,4),2),((16,4),2)):(((512,128),8192),((4,1),64))"
    assert same_function(got, parse_layout("((16,4,2),(16,4,2)):((512,128,8192),(4,1,64))"))


def test_step2_zipped_divide_by_atom() -> None:
    step1 = logical_divide(GC, (P, P))
    got = zipped_divide(step1, (Layout(1), Layout(1)))
    assert size(got[0]) == 1  # the "don't care" atom mode
    assert str(got[1]) == "((16,4,2),(16,4,2)):((512,128,8192),(4,1,64))"
    assert same_function(got[1], step1)


def test_step3_compose_trivial_tv() -> None:
    """(1,1):(0,0) has one (thread, value) and maps it to 0: the composition leaves the rest mode unchanged."""
    tv = Layout((1, 1), (0, 0))
    assert tv.offsets().tolist() == [0]


def test_step4_zipped_divide_by_threads() -> None:
    rest = zipped_divide(logical_divide(GC, (P, P)), (Layout(1), Layout(1)))[1]
    got = zipped_divide(rest, (Layout(16), Layout(16)))
    assert str(got) == "((16,16),((4,2),(4,2))):((512,4),((128,8192),(1,64)))"
    seed = parse_layout("((1,(16,16)),(1,(4,2),(4,2))):((0,(512,4)),(0,(128,8192),(1,64)))")
    assert same_function(got[0], seed[0]) and same_function(got[1], seed[1])


def test_step5_thread0_slice_api() -> None:
    tiled_mma = pytest.importorskip("layoutcheck.models.tiled_mma")
    tiled = tiled_mma.make_tiled_mma("UniversalFMA", (16, 16, 1), (P, P, None))
    frg = tiled.thrfrg_C(GC)
    assert same_function(frg, parse_layout("((1,(16,16)),(1,((4,2),(4,2)))):((0,(512,4)),(0,((128,8192),(1,64))))"))
    t0 = tiled.get_slice(0).partition_C(GC)
    assert t0.offset == 0
    assert t0.layout.shape == parse_layout(TCGC).shape  # the V mode's stride (size 1) is immaterial
    assert same_function(t0.layout, parse_layout(TCGC))


def test_thread0_all_64_elements() -> None:
    tcgc = parse_layout(TCGC)
    offsets = [tcgc(i) for i in range(64)]
    assert sorted(offsets) == sorted(r * 128 + c for r in ROWS0 for c in ROWS0)
    assert offsets == brute_thread_elements(0, Layout((16, 16)))
    # CuTe flat index i <-> (v, m, n) colex: element i is acc[i % 8][i // 8] of the CUDA code
    assert offsets == [ROWS0[i % 8] * 128 + ROWS0[i // 8] for i in range(64)]
    assert [tcgc[1](i) // 128 for i in range(8)] == ROWS0  # (4,2):(128,8192) -> the 8 rows
    assert [tcgc[2](i) for i in range(8)] == ROWS0  # (4,2):(1,64) -> the 8 cols


@pytest.mark.parametrize(
    ("m0", "m1", "n0", "n1", "offset", "row", "col"),
    [(2, 0, 3, 1, 323, 2, 67), (1, 1, 2, 0, 8322, 65, 2), (2, 1, 3, 0, 8451, 66, 3)],
)
def test_worked_offsets(m0: int, m1: int, n0: int, n1: int, offset: int, row: int, col: int) -> None:
    tcgc = parse_layout(TCGC)
    assert tcgc(0, (m0, m1), (n0, n1)) == offset
    assert divmod(offset, 128) == (row, col)


# -- the thread order ---------------------------------------------------------------------------------------------

def test_cute_thread_order_all_256_threads() -> None:
    """Thread t starts at 512*(t%16) + 4*(t//16) and owns row-groups {tm, tm+16} x col-groups {tn, tn+16} with
    (tm, tn) = (t%16, t//16): CuTe's default atom layout (16,16):(1,16)."""
    tiled_mma = pytest.importorskip("layoutcheck.models.tiled_mma")
    tiled = tiled_mma.make_tiled_mma("UniversalFMA", (16, 16, 1), (P, P, None))
    for t in range(256):
        part = tiled.get_slice(t).partition_C(GC)
        tm, tn = t % 16, t // 16
        assert part.offset == 512 * tm + 4 * tn
        assert same_function(part.layout, parse_layout(TCGC))  # every thread has the same fragment layout
        got = [part(i) for i in range(64)]
        assert got == brute_thread_elements(t, Layout((16, 16)))
        assert sorted(got) == sorted(r * 128 + c for r in cuda_rows(tm) for c in cuda_rows(tn))


def test_cuda_code_thread_order_differs_from_cute_default() -> None:
    """The CUDA code's tm = threadIdx.x / 16 matches CuTe only with atom layout (16,16):(16,1). With CuTe's
    default, 240 of 256 threads own a different set; thread 1: CuTe rows {4..7,68..71} x cols {0..3,64..67}, the
    CUDA code rows {0..3,64..67} x cols {4..7,68..71}."""
    def cuda_set(t: int) -> list[int]:
        return sorted(r * 128 + c for r in cuda_rows(t // 16) for c in cuda_rows(t % 16))

    differ = [t for t in range(256) if sorted(brute_thread_elements(t, Layout((16, 16)))) != cuda_set(t)]
    assert len(differ) == 240 and differ[0] == 1
    assert all(sorted(brute_thread_elements(t, Layout((16, 16), (16, 1)))) == cuda_set(t) for t in range(256))
    tiled_mma = pytest.importorskip("layoutcheck.models.tiled_mma")
    row_major = tiled_mma.make_tiled_mma("UniversalFMA", Layout((16, 16, 1), (16, 1, 0)), (P, P, None))
    for t in (0, 1, 17, 255):
        part = row_major.get_slice(t).partition_C(GC)
        assert sorted(part(i) for i in range(64)) == cuda_set(t)


def test_exact_cover() -> None:
    """All 256 threads x 64 values cover the 16384 elements exactly once (brute force)."""
    owned = sorted(o for t in range(256) for o in brute_thread_elements(t, Layout((16, 16))))
    assert owned == list(range(128 * 128))
