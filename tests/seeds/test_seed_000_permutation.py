"""Seed 000 (``000_ff4f99d83629144d.txt``): tiled-MMA permutations.

Part 1, SIMT (``UniversalFMA``, atom layout 16x16, 128x128 tile, permutation ``(16,R):(R,1)`` per mode): thread 0's
elements, periods, repetitions and the seed's coalescing column. Part 2, tensor cores (``SM80_16x8x16_F32F16F16F32_TN``,
atom layout ``(2,2,1)``, permutation ``(32,32,16)``, tile 128x128x32): threads, iterations, MMA instructions and
accumulators per thread.

Every value is derived twice: with layoutcheck (``logical_divide``, ``make_tiled_mma``/``partition_C``) and by a
brute-force model written from CuTe's definitions (``mma_atom.hpp``: ``thr_layout_vmnk = tiled_product(thr_id,
atom_layout)``, ``thrfrg_C`` = divide by the permutation, by the atom, compose the atom's C TV layout, divide the rest
by the atom layout), looping over threads and values. Verdicts are listed in ``docs/seeds.md``.
"""

from __future__ import annotations

import itertools

import pytest

from layoutcheck import Layout, logical_divide, size

BM = BN = 128
F = 16  # atoms (threads) per mode in the SIMT configuration
SECTOR = 32  # bytes; global-memory transactions are made of 32-byte sectors (CUDA C++ Best Practices Guide, 9.2.1)


def perm_r(r: int) -> Layout:
    """The seed's ``permutation_M = (F,R):(R,1)``."""
    return Layout((F, r), (r, 1))


def as_perm(p: Layout | int) -> Layout:
    return Layout(p) if isinstance(p, int) else p


# -- brute-force CuTe TiledMMA (mma_atom.hpp, thrfrg_C), independent of models.tiled_mma

def brute_partition_c(tv_c: Layout, atom_mn: tuple[int, int], thr_atom: int, atom_layout: Layout,
                      perms: tuple[Layout, Layout], tile: tuple[int, int], tid: int) -> list[tuple[int, int]]:
    """Thread ``tid``'s C elements ``(m, n)`` in partition_C value order ``(FrgV, (RestM), (RestN))`` (colex).

    thread id = v + thr_atom * atom_layout(am, an); permuted index m' = cm + aM*(am + AM*rm), M = PM(m') + |PM|*jm,
    where (cm, cn) is the atom's C TV layout at (v, fv) read column-major in the aM x aN atom tile.
    """
    (a_m, a_n), (t_m, t_n) = atom_mn, (size(atom_layout[0]), size(atom_layout[1]))
    v, a = tid % thr_atom, tid // thr_atom
    am, an = next((i, j) for i in range(t_m) for j in range(t_n) if atom_layout(i, j) == a)
    pm, pn = perms
    rm_n, jm_n = size(pm) // (a_m * t_m), tile[0] // size(pm)
    rn_n, jn_n = size(pn) // (a_n * t_n), tile[1] // size(pn)
    out = []
    for jn, rn, jm, rm, fv in itertools.product(range(jn_n), range(rn_n), range(jm_n), range(rm_n),
                                                range(size(tv_c[1]))):  # last loop fastest = colex order
        idx = tv_c(v, fv)
        cm, cn = idx % a_m, idx // a_m
        m = pm(cm + a_m * (am + t_m * rm)) + size(pm) * jm
        n = pn(cn + a_n * (an + t_n * rn)) + size(pn) * jn
        out.append((m, n))
    return out


def simt_elements(r: int, tid: int, atom_layout: Layout) -> list[tuple[int, int]]:
    return brute_partition_c(Layout((1, 1)), (1, 1), 1, atom_layout, (perm_r(r), perm_r(r)), (BM, BN), tid)


CUTE_ORDER = Layout((16, 16))  # CuTe default: column-major, thread t -> (m, n) = (t % 16, t // 16)
SEED_ORDER = Layout((16, 16), (16, 1))  # the step-1 CUDA code: tm = t / 16, tn = t % 16


# -- part 1: SIMT permutations ----------------------------------------------------------------------------------------

SEED_TABLE = {  # R: (period, repetitions, thread 0's M elements, shape)
    1: (16, 8, [0, 16, 32, 48, 64, 80, 96, 112], (1, 8)),
    2: (32, 4, [0, 1, 32, 33, 64, 65, 96, 97], (2, 4)),
    4: (64, 2, [0, 1, 2, 3, 64, 65, 66, 67], (4, 2)),
    8: (128, 1, [0, 1, 2, 3, 4, 5, 6, 7], (8, 1)),
}


@pytest.mark.parametrize("r", [1, 2, 4, 8])
def test_period_reps_and_thread0_elements(r: int) -> None:
    period, reps, thread0, shape = SEED_TABLE[r]
    assert size(perm_r(r)) == F * r == period
    divided = logical_divide(Layout(BM), perm_r(r))  # ((F,R),reps):((R,1),F*R)
    expected = Layout(((F, r), reps), ((r, 1), period))
    assert divided.shape == expected.shape  # equal as functions (a size-1 mode's stride is immaterial)
    assert divided.offsets().tolist() == expected.offsets().tolist()
    per_thread = [divided((0, i), j) for j in range(reps) for i in range(r)]
    assert per_thread == thread0
    assert (r, reps) == shape
    # brute force: thread 0's rows (and, symmetrically, columns) in the 128x128 tile
    rows = sorted({m for m, _ in simt_elements(r, 0, CUTE_ORDER)})
    assert rows == thread0


@pytest.mark.parametrize("r", range(1, 17))
def test_valid_r_are_divisors_of_8(r: int) -> None:
    """"R must divide 128/16 = 8": the permutation tiles the 128 rows exactly for R in {1,2,4,8}; for any other R
    CuTe's logical_divide rounds the rest mode up and runs past row 128 (a residue the tiled MMA cannot have)."""
    d = logical_divide(Layout(BM), perm_r(r))
    assert (size(d) == BM) == (r in (1, 2, 4, 8))
    assert size(d) >= BM


def test_section5_thread_columns() -> None:
    """Section 5 (threads indexed along N): R=4 T0 {0..3,64..67}, T1 4..7, T15 60..63 (agrees); R=8 T0 0..7,
    T1 8..15 (agrees); R=1 "T0 writes cols {0,8,...,56}, T1 {1,9,...,57}" is wrong: {0,16,...,112}, {1,17,...,113}."""
    def cols(r: int, tn: int) -> list[int]:
        d = logical_divide(Layout(BN), perm_r(r))
        return sorted(d((tn, i), j) for j in range(size(d[1])) for i in range(r))

    assert cols(4, 0) == [0, 1, 2, 3, 64, 65, 66, 67]
    assert cols(4, 1)[:4] == [4, 5, 6, 7] and cols(4, 15)[:4] == [60, 61, 62, 63]
    assert cols(8, 0) == list(range(8)) and cols(8, 1) == list(range(8, 16))
    assert cols(1, 0) == list(range(0, 128, 16)) != list(range(0, 64, 8))
    assert cols(1, 1) == list(range(1, 128, 16)) != list(range(1, 64, 8))


def store_efficiency(r: int, order: Layout, vector: bool) -> tuple[int, float]:
    """Warp 0 stores its C elements to row-major fp32 C (offset m*128+n, 128-byte aligned base), one instruction
    per (row index, column group); a vector store writes ``min(R,4)`` consecutive floats (128-bit max on sm_80/90).
    Returns (max 32-byte sectors per instruction, min useful bytes / sector bytes)."""
    w = min(r, 4) if vector else 1
    per_thread = [simt_elements(r, t, order) for t in range(32)]  # value order: (m, n) colex
    worst_sectors, worst_eff = 0, 1.0
    for mi, nj in itertools.product(range(8), range(0, 8, w)):
        sectors: set[int] = set()
        for elems in per_thread:
            grid = [[elems[i + 8 * j] for j in range(8)] for i in range(8)]  # [m index][n index]
            row = grid[mi][0][0]
            run = [grid[mi][nj + k][1] for k in range(w)]
            assert run == list(range(run[0], run[0] + w))  # the w elements are contiguous: one vector store
            sectors |= {(row * BN + c) * 4 // SECTOR for c in run}
        worst_sectors = max(worst_sectors, len(sectors))
        worst_eff = min(worst_eff, 32 * w * 4 / (SECTOR * len(sectors)))
    return worst_sectors, worst_eff


@pytest.mark.parametrize(
    ("r", "scalar", "vector"),
    [(1, (4, 1.0), (4, 1.0)), (2, (8, 0.5), (8, 1.0)), (4, (16, 0.25), (16, 1.0)), (8, (32, 0.125), (32, 0.5))],
)
def test_coalescing_seed_thread_order(r: int, scalar: tuple[int, float], vector: tuple[int, float]) -> None:
    """Under the seed's thread order (consecutive threads along N). With scalar stores -- what the step-1 CUDA code
    does -- R=1 is the *best* (100% sector efficiency) and R=4 uses 25%; the seed's "R=1 bad, R=4 great" holds only
    for vector stores of R floats. R=8 needs two 128-bit stores (256-bit st.global needs sm_100+, PTX 8.8): 50%."""
    assert store_efficiency(r, SEED_ORDER, vector=False) == scalar
    assert store_efficiency(r, SEED_ORDER, vector=True) == vector


@pytest.mark.parametrize(("r", "scalar", "vector"),
                         [(1, 0.25, 0.25), (2, 0.25, 0.5), (4, 0.25, 1.0), (8, 0.125, 0.5)])
def test_coalescing_cute_thread_order(r: int, scalar: float, vector: float) -> None:
    """Under CuTe's default (column-major) atom layout a warp spans 16 rows x 2 column groups: 16 sectors per
    scalar store for every R <= 4, i.e. 25% efficiency; only R=4 with 128-bit stores reaches 100%."""
    assert store_efficiency(r, CUTE_ORDER, vector=False)[1] == scalar
    assert store_efficiency(r, CUTE_ORDER, vector=True)[1] == vector


# -- part 1 against layoutcheck.models.tiled_mma -------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiled_mma_mod():  # type: ignore[no-untyped-def]
    return pytest.importorskip("layoutcheck.models.tiled_mma")


@pytest.mark.parametrize("r", [1, 2, 4, 8])
def test_simt_partition_matches_brute_force(tiled_mma_mod, r: int) -> None:  # type: ignore[no-untyped-def]
    gc = Layout((BM, BN), (BN, 1))
    tiled = tiled_mma_mod.make_tiled_mma("UniversalFMA", (16, 16, 1), (perm_r(r), perm_r(r), None))
    assert tiled.size == 256
    for tid in (0, 1, 15, 16, 17, 100, 255):
        part = tiled.get_slice(tid).partition_C(gc)
        got = [part(i) for i in range(size(part.layout))]
        assert got == [m * BN + n for m, n in simt_elements(r, tid, CUTE_ORDER)]


# -- part 2: the tensor-core configuration -------------------------------------------------------------------------

TC_ATOM = "SM80_16x8x16_F32F16F16F32_TN"
BK = 32


@pytest.fixture(scope="module")
def tc(tiled_mma_mod):  # type: ignore[no-untyped-def]
    return tiled_mma_mod.make_tiled_mma(TC_ATOM, (2, 2, 1), (32, 32, 16))


def tc_elements(tid: int) -> list[tuple[int, int]]:
    from layoutcheck.hw.mma import mma_atom

    atom = mma_atom(TC_ATOM)
    return brute_partition_c(atom.tv_layout_C, (16, 8), 32, Layout((2, 2)), (Layout(32), Layout(32)), (BM, BN), tid)


def test_tc_threads_and_iterations(tc) -> None:  # type: ignore[no-untyped-def]
    """Agrees: 128 threads; permutation tile 32x32x16; iterations 4 (M) x 4 (N) x 2 (K per k-tile)."""
    assert tc.size == 4 * 32 == 128
    assert tc.tile_size_mnk == (32, 32, 16)
    m, n, k = tc.tile_size_mnk
    assert (BM // m, BN // n, BK // k) == (4, 4, 2)


def test_tc_accumulators_per_thread(tc) -> None:  # type: ignore[no-untyped-def]
    """Seed: 4 x 4 x 4 = 64 accumulators per thread. Wrong: partition_C is (4,(1,4),(2,4)) = 128 values (the N
    expansion x2 is missing); 128 threads x 64 would cover only 8192 of the 16384 elements."""
    part = tc.get_slice(0).partition_C(Layout((BM, BN), (BN, 1)))
    assert size(part.layout) == 128 == BM * BN // tc.size
    assert [size(mode) for mode in part.layout] == [4, 4, 8]  # (FrgV, RestM, RestN)
    assert len(tc_elements(0)) == 128


def test_tc_exact_cover_brute_force() -> None:
    """Every C element is owned by exactly one (thread, value) (brute force over 128 threads x 128 values)."""
    owners = [e for t in range(128) for e in tc_elements(t)]
    assert sorted(owners) == [(m, n) for m in range(BM) for n in range(BN)]


def test_tc_partition_matches_brute_force(tc) -> None:  # type: ignore[no-untyped-def]
    gc = Layout((BM, BN), (BN, 1))
    for tid in (0, 1, 4, 31, 32, 63, 64, 127):
        part = tc.get_slice(tid).partition_C(gc)
        assert [part(i) for i in range(size(part.layout))] == [m * BN + n for m, n in tc_elements(tid)]


def test_tc_mma_instructions_per_k_tile() -> None:
    """Seed: "32 MMA calls per k-tile". That is the number of 32x32x16 permutation-tile steps (16 x 2); each step
    is 4 warps x 2 atoms in N, so a k-tile is 64 mma.sync per warp and 256 per CTA (= 128*128*32 / (16*8*16))."""
    rest_m, rest_n = 4, 8  # partition_C (FrgV=4, RestM=(1,4), RestN=(2,4)) of one warp's thread
    k_atoms = BK // 16
    per_warp = rest_m * rest_n * k_atoms
    assert per_warp == 64
    assert per_warp * 4 == 256 == BM * BN * BK // (16 * 8 * 16)
    assert (BM // 32) * (BN // 32) * k_atoms == 32  # the seed's count: tile steps, not instructions


def test_tc_warp_placement() -> None:
    """Seed's picture: Warp0|Warp1 side by side in N, each visiting "2 adjacent 8-col blocks". CuTe: atom layout
    (2,2,1) is column-major, so warp 1 is the *second M* atom (rows 16..31), and with the identity permutation 32 a
    warp's two N atoms are 16 apart: warp 0 covers cols {0..7, 16..23} of each 32-col step, not {0..15}."""
    def block(warp: int) -> tuple[set[int], set[int]]:
        elems = [e for lane in range(32) for e in tc_elements(32 * warp + lane)]
        return {m % 32 for m, _ in elems}, {n % 32 for _, n in elems}

    rows0, cols0 = block(0)
    rows1, cols1 = block(1)
    assert rows0 == set(range(16)) and cols0 == set(range(8)) | set(range(16, 24))
    assert rows1 == set(range(16, 32)) and cols1 == cols0
    rows2, cols2 = block(2)
    assert rows2 == rows0 and cols2 == set(range(8, 16)) | set(range(24, 32))


def test_tc_ownership_api(tiled_mma_mod, tc) -> None:  # type: ignore[no-untyped-def]
    """layoutcheck's ownership map agrees with the brute force for all 128 threads."""
    own = tiled_mma_mod.ownership(tc, "C", (BM, BN))
    assert own.replication == 1 and own.values_per_thread == 128
    for tid in range(128):
        got = list(zip(own.row_of[tid].tolist(), own.col_of[tid].tolist(), strict=True))
        assert got == tc_elements(tid)
