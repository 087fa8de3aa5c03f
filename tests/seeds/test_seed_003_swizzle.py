"""Seed 003 (``003_5d80ed5705a2c364.txt``), the algebra parts: the m16n8k8 A TV layout and its inverse
(``right_inverse``), the ldmatrix register fragments quoted in section 6, the 8 swizzle-atom shapes, and the chunk
orders of the section-5 example (8x64B bf16 K-major tile). Bank-conflict claims (sections 3-6) belong to
``tests/models/test_banks.py`` and the TMA claims (section 9) to ``tests/models/test_tma.py``.

Authorities: PTX ISA 9.7.14.5.7 (mma.m16n8k8 A fragment, .f16/.bf16: ``row = groupID (+8 for a2,a3)``,
``col = 2*threadID_in_group + (i&1)``); PTX ISA ldmatrix (lane ``l`` receives row ``l/4``, elements ``2*(l%4)`` and
``+1`` of each 8x8 b16 matrix; ``.trans`` loads the matrix column-major), cross-checked against CUTLASS
``copy_traits_sm75.hpp`` (``SM75_U32x1_LDSM_N``, ``SM75_U16x2_LDSM_T``, bit-index layouts); CUTLASS
``mma_traits_sm80.hpp`` and ``mma_traits_sm90_gmma.hpp``.
"""

from __future__ import annotations

import itertools

import pytest

from layoutcheck import Layout, parse_layout, right_inverse, size, tile_to_shape

TV_A = Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))  # SM80_16x8_Row: (T32,V4) -> m + 16*k, 16x8 A tile
SEED_INV = "((8,2),(2,4)):((4,64),(32,1))"


def ptx_a_m16n8k8(lane: int, i: int) -> tuple[int, int]:
    return (lane >> 2) + 8 * (i >= 2), 2 * (lane % 4) + (i & 1)


# -- TV layout and inverse TV layout ------------------------------------------------------------------------------

def test_tv_layout_is_the_ptx_a_fragment() -> None:
    for t, v in itertools.product(range(32), range(4)):
        idx = TV_A(t, v)
        assert (idx % 16, idx // 16) == ptx_a_m16n8k8(t, v)


def test_hw_atom_a_layout() -> None:
    mma = pytest.importorskip("layoutcheck.hw.mma")
    assert mma.mma_atom("SM80_16x8x8_F32BF16BF16F32_TN").tv_layout_A == TV_A


def test_seed_tv_derivation() -> None:
    """TV((t0,t1),(v0,v1)) = A(t1 + 8*v1, 2*t0 + v0): agrees for all 128 (thread, value)."""
    for t0, t1, v0, v1 in itertools.product(range(4), range(8), range(2), range(2)):
        assert TV_A((t0, t1), (v0, v1)) == (t1 + 8 * v1) + 16 * (2 * t0 + v0)


def test_right_inverse_is_the_seed_inverse_tv_layout() -> None:
    """right_inverse gives (8,2,2,4):(4,64,32,1) -- the seed's ((8,2),(2,4)):((4,64),(32,1)) with the modes
    grouped as (M,K): the same function. It inverts TV on both sides (TV is a bijection onto [0,128))."""
    inv = right_inverse(TV_A)
    assert str(inv) == "(8,2,2,4):(4,64,32,1)"
    seed = parse_layout(SEED_INV)
    assert inv.offsets().tolist() == seed.offsets().tolist()
    assert all(TV_A(inv(i)) == i for i in range(128))
    assert all(inv(TV_A(j)) == j for j in range(128))


def test_right_inverse_matches_pycute() -> None:
    pycute = pytest.importorskip("pycute")
    ref = pycute.right_inverse(pycute.Layout(((4, 8), (2, 2)), ((32, 1), (16, 8))))
    assert [ref(i) for i in range(128)] == right_inverse(TV_A).offsets().tolist()


def test_seed_inverse_formula() -> None:
    """A((m0,m1),(n0,n1)) = TV(m0*4 + n1, m1*2 + n0) = m0*4 + m1*64 + n0*32 + n1, checked against the ISA:
    element (m, k) = (m0 + 8*m1, n0 + 2*n1) is held by lane m0*4 + n1 as value m1*2 + n0."""
    seed = parse_layout(SEED_INV)
    for m0, m1, n0, n1 in itertools.product(range(8), range(2), range(2), range(4)):
        t, v = m0 * 4 + n1, m1 * 2 + n0
        assert seed((m0, m1), (n0, n1)) == t + 32 * v == m0 * 4 + m1 * 64 + n0 * 32 + n1
        assert ptx_a_m16n8k8(t, v) == (m0 + 8 * m1, n0 + 2 * n1)


# -- ldmatrix fragments (section 6) --------------------------------------------------------------------------------

def ldmatrix_x1(lane: int, trans: bool) -> list[tuple[int, int]]:
    """(stored row, element) pairs lane receives from one 8x8 b16 matrix (PTX ISA ldmatrix)."""
    if trans:
        return [(2 * (lane % 4) + i, lane // 4) for i in range(2)]
    return [(lane // 4, 2 * (lane % 4) + i) for i in range(2)]


def test_ldmatrix_model_matches_cutlass_copy_traits() -> None:
    """CUTLASS DstLayouts map (thread, value) to a *bit* of the row-major 8x8 b16 matrix (128 bits per row)."""
    ldsm_n = Layout((32, 32), (32, 1))  # SM75_U32x1_LDSM_N
    ldsm_t = Layout(((4, 8), (16, 2)), ((256, 16), (1, 128)))  # SM75_U16x2_LDSM_T
    for lane in range(32):
        n_elems = [divmod(ldsm_n(lane, 16 * i) // 16, 8) for i in range(2)]
        t_elems = [divmod(ldsm_t(lane, 16 * i) // 16, 8) for i in range(2)]
        assert n_elems == ldmatrix_x1(lane, trans=False)
        assert t_elems == ldmatrix_x1(lane, trans=True)


def names(pairs: list[tuple[int, int]]) -> list[str]:
    return [f"M{m}K{k}" for m, k in pairs]


def test_k_major_fragment() -> None:
    """K-major smem (stored row = m, element = k). Seed: "T0 will hold M0K0, M0K1, M0K2, M0K3; T22 M5K4..M5K7".
    One ldmatrix.x1 gives each lane 2 b16 values: T0 M0K0, M0K1; T22 M5K4, M5K5 (= mma a0, a1 of lane 22)."""
    for lane, want in ((0, ["M0K0", "M0K1"]), (22, ["M5K4", "M5K5"])):
        got = names([(r, e) for r, e in ldmatrix_x1(lane, trans=False)])
        assert got == want
        assert [ptx_a_m16n8k8(lane, i) for i in range(2)] == [(r, e) for r, e in ldmatrix_x1(lane, trans=False)]


def test_m_major_fragment_with_and_without_trans() -> None:
    """M-major smem (stored row = k, element = m). Without .trans: T0 M0K0, M1K0; T22 M4K5, M5K5 (seed lists 4
    values each). With .trans the seed repeats the same values; correct: T0 M0K0, M0K1; T22 M5K4, M5K5 -- the
    mma A fragment, which is the point of .trans."""
    def m_major(lane: int, trans: bool) -> list[str]:
        return names([(e, r) for r, e in ldmatrix_x1(lane, trans)])  # (m, k) = (element, stored row)

    assert m_major(0, False) == ["M0K0", "M1K0"] and m_major(22, False) == ["M4K5", "M5K5"]
    assert m_major(0, True) == ["M0K0", "M0K1"] and m_major(22, True) == ["M5K4", "M5K5"]
    assert m_major(0, True) != ["M0K0", "M1K0", "M2K0", "M3K0"]
    for lane in range(32):
        assert [(e, r) for r, e in ldmatrix_x1(lane, True)] == [ptx_a_m16n8k8(lane, i) for i in range(2)]


# -- swizzle atoms -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("mode", "width"), [("INTER", 16), ("SW32", 32), ("SW64", 64), ("SW128", 128)])
def test_atom_shapes(mode: str, width: int) -> None:
    """K-major atom = 8 rows x W bytes, MN-major = W bytes x 8 (bf16: W/2 elements); W/16 chunks of 16 B per row,
    8*W/16 chunks and W/16 ldmatrix 8x16B subtiles per atom."""
    smem = pytest.importorskip("layoutcheck.hw.smem")
    k, mn = smem.gmma_smem_atom("K", mode, 16), smem.gmma_smem_atom("MN", mode, 16)
    assert k.layout.shape == (8, width // 2) and mn.layout.shape == (width // 2, 8)
    assert size(k.layout) * 2 // 16 == 8 * width // 16  # chunks per atom (8, 16, 32, 64)
    assert k.span_bytes == width


def chunk_order(mode: str) -> list[int]:
    """GMEM chunk id (row*4 + kbyte/16 of the 8x64B K-major bf16 tile) held in each 16-byte smem slot."""
    smem = pytest.importorskip("layoutcheck.hw.smem")
    atom = smem.gmma_smem_atom("K", mode, 16)
    tile = tile_to_shape(atom.layout, (8, 32))
    slots = [-1] * 32
    for m, k in itertools.product(range(8), range(32)):
        slot = atom.element_swizzle(tile(m, k)) * 2 // 16
        chunk = m * 4 + k // 8
        assert slots[slot] in (-1, chunk)  # 16-byte atomicity: a slot holds one chunk
        slots[slot] = chunk
    return slots


def test_section5_chunk_orders() -> None:
    """First 128 B of smem: none {0,4,...,28}; 32B {0,1,4,5,8,9,12,13}; 64B {0..7}; 64B second 128 B:
    9,8,11,10,13,12,15,14 (all as the seed says)."""
    assert chunk_order("INTER")[:8] == [0, 4, 8, 12, 16, 20, 24, 28]
    assert chunk_order("SW32")[:8] == [0, 1, 4, 5, 8, 9, 12, 13]
    assert chunk_order("SW64")[:8] == list(range(8))
    assert chunk_order("SW64")[8:16] == [9, 8, 11, 10, 13, 12, 15, 14]


@pytest.mark.parametrize(("mode", "run_bytes"), [("INTER", 16), ("SW32", 32), ("SW64", 64)])
def test_section5_gmem_contiguity(mode: str, run_bytes: int) -> None:
    """The chunks one 128-byte smem row holds form GMEM-contiguous runs of 16/32/64 B (the seed's request sizes)."""
    order = chunk_order(mode)
    for row in range(4):
        chunks = sorted(order[8 * row: 8 * row + 8])
        runs, start = [], chunks[0]
        for a, b in itertools.pairwise([*chunks, None]):  # type: ignore[list-item]
            if b is None or b != a + 1 or b // 4 != a // 4:  # same GMEM row, consecutive
                runs.append(a - start + 1)
                start = b
        assert set(runs) == {run_bytes // 16}


def test_section7_atom_counts() -> None:
    """A 16x64B tile holds 8 swizzle-none atoms and 4 swizzle-32B atoms; the m16n8k8 A tile (16x16B) holds 2 none
    atoms; the M-major 32Bx8 tile is 1 MN-major SW32 atom."""
    smem = pytest.importorskip("layoutcheck.hw.smem")
    tile_elems = 16 * 32
    assert tile_elems // size(smem.gmma_smem_atom("K", "INTER", 16).layout) == 8
    assert tile_elems // size(smem.gmma_smem_atom("K", "SW32", 16).layout) == 4
    assert 16 * 8 // size(smem.gmma_smem_atom("K", "INTER", 16).layout) == 2
    assert smem.gmma_smem_atom("MN", "SW32", 16).layout.shape == (16, 8)


def seed_selector(k_bytes: int) -> str:
    """Seed section 5: "the largest possible swizzle atom that can fit the tile"."""
    return next(m for w, m in ((128, "SW128"), (64, "SW64"), (32, "SW32"), (16, "INTER")) if k_bytes >= w)


def cutlass_selector(k_bytes: int) -> str:
    """CUTLASS sm100_smem_selector (sm100_common.inl), K-major: the largest atom whose width *divides* BLK_K."""
    return next(m for w, m in ((128, "SW128"), (64, "SW64"), (32, "SW32"), (16, "INTER")) if k_bytes % w == 0)


@pytest.mark.parametrize(("k_bytes", "seed", "cutlass"),
                         [(16, "INTER", "INTER"), (32, "SW32", "SW32"), (64, "SW64", "SW64"),
                          (128, "SW128", "SW128"), (256, "SW128", "SW128"), (96, "SW64", "SW32"),
                          (192, "SW128", "SW64"), (48, "SW32", "INTER")])
def test_section5_selector_rule(k_bytes: int, seed: str, cutlass: str) -> None:
    """The seed's four cases agree with CUTLASS; "K >= 128B -> SW128" and "fits" are wrong in general: the rule is
    divisibility (K = 192 B: CUTLASS picks SW64, a 128 B atom would leave half an atom)."""
    assert seed_selector(k_bytes) == seed
    assert cutlass_selector(k_bytes) == cutlass
