"""layoutcheck.models.datapath: the hops' hardware semantics against the PTX ISA's own formulas (written out here
independently of the atoms' CuTe layouts), the copy tilings, the token trace and the fault attribution."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.algebra.tiling import tile_to_shape
from layoutcheck.errors import DescriptorError, LayoutError
from layoutcheck.hw.copy import copy_atom
from layoutcheck.models.datapath import CONFLICT, UNWRITTEN, _apply, first_fault, hops, trace
from layoutcheck.models.datapath_fragments import copy_tv, fragment
from layoutcheck.models.datapath_hops import row_addresses
from layoutcheck.models.datapath_values import (
    EpiloguePath,
    Hop,
    MatrixCopy,
    OperandPath,
    ThreadCopy,
    TmaCopy,
    WgmmaRead,
)
from layoutcheck.models.gmma import descriptor_reads, gmma_blocks
from layoutcheck.models.tiled_mma import make_tiled_mma
from layoutcheck.models.tma import TmaBox, mma_smem_layout

F16_16816 = "SM80_16x8x16_F32F16F16F32_TN"
CP16 = "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>"


def _sw(bits: int, atom: Layout, tile: tuple[int, int]) -> ComposedLayout:
    return ComposedLayout(Swizzle(bits, 3, 3), 0, tile_to_shape(atom, tile))


# -- ldmatrix / stmatrix against the PTX ISA (9.7.14.5.15 / .16), one warp, one mma.m16n8k16 ------------------------
def _ptx_a_16816(lane: int, v: int) -> tuple[int, int]:
    """PTX ISA 'Matrix Fragments for mma.m16n8k16' (f16 A): a_v of lane -> (row, col)."""
    g, t = lane >> 2, lane % 4
    return g + 8 * ((v >> 1) & 1), 2 * t + (v & 1) + 8 * (v >> 2)


@pytest.mark.parametrize("smem", [Layout((16, 16), (16, 1)), _sw(1, Layout((8, 16), (16, 1)), (16, 16)),
                                  Layout((16, 16), (24, 1))])
def test_ldmatrix_x4_reads_what_the_ptx_says(smem):
    """ldmatrix.x4: lane 8i+r supplies row r of matrix i, register i of lane l holds row l//4, cols 2(l%4)+{0,1}.
    The kernel points matrix i at the A sub-block (m-half i%2, k-half i//2) -- a_{2i}, a_{2i+1} of mma.m16n8k16."""
    mma = make_tiled_mma(F16_16816, (1, 1, 1))
    frag = fragment(mma, "A", (16, 16))
    offs = np.array([smem(i) for i in range(256)])
    got = row_addresses(copy_atom("SM75_U32x4_LDSM_N"), 16, frag.tile, offs, "read")
    for lane in range(32):
        for v in range(8):
            i, e = v // 2, v % 2
            row_addr = smem(lane // 4 + 8 * (i % 2), 8 * (i // 2))  # what lane 8i + lane//4 supplies
            assert got[lane, v] == row_addr + 2 * (lane % 4) + e
            assert frag.tile[lane, v] == _ptx_a_16816(lane, v)[0] + 16 * _ptx_a_16816(lane, v)[1]


def test_ldmatrix_trans_reads_an_mn_major_b():
    """ldmatrix.x4.trans on an N-major B (two n8 atoms): matrix i's row r is k = r + 8*(i%2) of atom i//2, 8
    consecutive n; lane l's register i holds (row 2(l%4)+h, col l//4) -- b_{2i%4 + h} = (k, n) of the PTX B fragment."""
    mma = make_tiled_mma(F16_16816, (1, 1, 1), (16, 16, 16))
    smem = Layout((16, 16), (1, 16))  # (n, k) -> n + 16k: N-major
    frag = fragment(mma, "B", (16, 16))
    offs = smem.offsets()
    got = row_addresses(copy_atom("SM75_U16x8_LDSM_T"), 16, frag.tile, offs, "read")
    for lane in range(32):
        for v in range(8):
            i, h = v // 2, v % 2
            k = 2 * (lane % 4) + h + 8 * (i % 2)
            n = lane // 4 + 8 * (i // 2)
            assert got[lane, v] == smem(n, k)
            assert frag.tile[lane, v] == n + 16 * k  # the hardware delivers what the fragment wants


def test_stmatrix_writes_what_the_ptx_says():
    """stmatrix.x4 (not trans) of an mma.m16n8 C fragment pair into a row-major tile: lane l's register i goes to row
    l//4 of matrix i at cols 2(l%4)+{0,1}; its row address is the one lane 8i + l//4 supplies."""
    mma = make_tiled_mma(F16_16816, (1, 1, 1), (16, 16, 16))
    smem = Layout((16, 16), (16, 1))
    frag = fragment(mma, "C", (16, 16))
    got = row_addresses(copy_atom("SM90_U32x4_STSM_N"), 16, frag.tile, smem.offsets(), "write")
    for lane in range(32):
        for v in range(8):
            i, p = v // 2, v % 2
            m, n = lane // 4 + 8 * (i % 2), 2 * (lane % 4) + p + 8 * (i // 2)
            assert got[lane, v] == smem(m, n)
            assert frag.tile[lane, v] == m + 16 * n


def test_row_addresses_refuse_an_atom_in_the_wrong_direction():
    frag = fragment(make_tiled_mma(F16_16816, (1, 1, 1)), "A", (16, 16))
    with pytest.raises(LayoutError, match="not a shared-memory store"):
        row_addresses(copy_atom("SM75_U32x4_LDSM_N"), 16, frag.tile, np.arange(256), "write")
    with pytest.raises(LayoutError, match="not a one-thread vector copy"):
        row_addresses(copy_atom("SM75_U32x4_LDSM_N"), 16, frag.tile, np.arange(256), "copy")
    with pytest.raises(LayoutError, match="moves 8 values"):
        row_addresses(copy_atom("SM75_U32x4_LDSM_N"), 16, frag.tile[:, :4], np.arange(256), "read")


# -- thread copies ---------------------------------------------------------------------------------------------
def test_copy_tv_is_make_tiled_copy_repeated_over_the_tile():
    """CUTLASS's SM80 K-major A copy: threads (32,4):(4,1), 8 halves each: thread t, value (j, r) -> (t//4 + 32r,
    8(t%4) + j)."""
    tv = copy_tv(Layout((32, 4), (4, 1)), Layout((1, 8)), (128, 32))
    for t in range(128):
        for v in range(32):
            j, r = v % 8, v // 8
            assert tv(t, v) == (t // 4 + 32 * r) + 128 * (8 * (t % 4) + j)
    assert sorted(tv.offsets().tolist()) == list(range(128 * 32))
    with pytest.raises(LayoutError, match="does not divide"):
        copy_tv(Layout((32, 4), (4, 1)), Layout((1, 8)), (100, 32))


def test_fragment_is_the_tiled_mma_tv_layout():
    mma = make_tiled_mma(F16_16816, (2, 2, 1), (32, 32, 16))
    frag = fragment(mma, "A", (32, 16))
    tv = mma.tv_layout_A
    for t in range(mma.size):
        assert frag.tile[t].tolist() == [tv(t, v) for v in range(frag.values)]


def test_wgmma_operand_fragment_has_one_row_per_warpgroup():
    mma = make_tiled_mma("SM90_64x128x16_F32F16F16_SS", (2, 1, 1))
    frag = fragment(mma, "A", (128, 64), True)
    assert frag.threads.tolist() == [0, 128] and frag.values == 64 * 64
    assert fragment(mma, "A", (128, 64)).threads.size == 256


# -- trace ---------------------------------------------------------------------------------------------------
def _hop(src, dst):
    a, b = np.array(src), np.array(dst)
    return Hop("x", "x", ("global", "smem"), a, b, a, b, a, "global")


def test_apply_marks_conflicts_and_unwritten_reads():
    out, counts, read = _apply(np.array([10, 11, 12]), _hop([0, 1, 2, 5], [3, 3, 0, 1]))
    assert out.tolist() == [12, UNWRITTEN, UNWRITTEN, CONFLICT]
    assert counts.tolist() == [1, 1, 0, 2] and read.tolist() == [10, 11, 12, UNWRITTEN]


# -- whole paths ---------------------------------------------------------------------------------------------
def _sm80_a(write_bits: int, read_bits: int) -> OperandPath:
    mma = make_tiled_mma(F16_16816, (2, 2, 1), (32, 32, 16))
    atom = Layout((8, 32), (32, 1))
    tv = copy_tv(Layout((32, 4), (4, 1)), Layout((1, 8)), (128, 32))
    return OperandPath("A", mma, (128, 32), 16, "f16", _sw(read_bits, atom, (128, 32)),
                       ThreadCopy(CP16, tv, Layout((128, 32), (32, 1)), _sw(write_bits, atom, (128, 32))),
                       MatrixCopy("SM75_U32x4_LDSM_N"))


@given(st.integers(0, 3), st.integers(0, 3))
def test_cp_async_and_ldmatrix_agree_iff_their_swizzles_do(w, r):
    """A K=32 f16 tile (64-byte rows): every swizzle Sw<B,3,3> B <= 3 keeps the 16-byte vectors whole, so the path
    is right exactly when cp.async writes with the swizzle ldmatrix reads with; otherwise cp.async is blamed."""
    fault = first_fault(_sm80_a(w, r))
    assert (fault is None) == (w == r)
    if fault is not None:
        assert fault["stage"] == 0 and fault["kind"] == "misplaced"


def test_the_first_misplaced_element_is_the_smallest_global_index():
    p = _sm80_a(3, 2)
    fault = first_fault(p)
    load = hops(p)[0]
    wrong = {int(load.element[i]) for i in range(load.src.size) if load.dst[i] != load.want_dst[i]}
    assert int(load.element[fault["i"]]) == min(wrong) == 8  # (m,k) = (8,0): Sw<3> also flips bit 5 of row 8


def test_compensating_stages_are_a_right_path():
    """Written and read with Sw<3,3,3> while the declared layout says Sw<2,3,3>: the data still arrives."""
    p = _sm80_a(3, 2)
    p = OperandPath(p.operand, p.mma, p.tile, 16, "f16", p.smem, p.load,
                    MatrixCopy("SM75_U32x4_LDSM_N", p.load.smem))
    assert first_fault(p) is None


def test_a_non_contiguous_smem_vector_is_caught_at_the_copy():
    """cp.async writes 16 contiguous bytes: an M-major smem layout scatters a K-vector, so cp.async is blamed."""
    p = _sm80_a(0, 0)
    p = OperandPath("A", p.mma, p.tile, 16, "f16", Layout((128, 32)), ThreadCopy(CP16, p.load.tv, p.load.gmem),
                    p.read)
    fault = first_fault(p)
    assert fault["stage"] == 0 and fault["kind"] == "misplaced"


def _sm90(mn: int, tma_swizzle: str, desc_layout=None) -> OperandPath:
    mma = make_tiled_mma("SM90_64x128x16_F32F16F16_SS", (2, 1, 1))
    stage = mma_smem_layout("K", "128B", "float16", (mn, 64), "col")
    w = {"128B": 64, "64B": 32, "32B": 16, "none": 8}[tma_swizzle]
    box = TmaBox("float16", (64, mn), (128,), (w, mn), swizzle=tma_swizzle)
    return OperandPath("A", mma, (mn, 64), 16, "f16", stage, TmaCopy(box, (1, 0)), WgmmaRead("K", desc_layout))


@pytest.mark.parametrize("tma_swizzle", ["128B", "64B", "32B", "none"])
def test_tma_box_swizzle_must_match_the_stage(tma_swizzle):
    fault = first_fault(_sm90(128, tma_swizzle))
    assert (fault is None) == (tma_swizzle == "128B")
    if fault is not None:
        assert fault["stage"] == 0


def test_descriptors_of_another_layout_are_blamed_on_the_wgmma():
    fault = first_fault(_sm90(128, "128B", mma_smem_layout("K", "64B", "float16", (128, 64), "col")))
    assert fault["stage"] == 1 and fault["kind"] == "misplaced"


def test_descriptor_reads_agree_with_the_stage_exactly_when_described():
    st_ = mma_smem_layout("MN", "128B", "float16", (128, 64), "row")
    exp = gmma_blocks(st_, "f16", 64).expected(0, 2)
    assert np.array_equal(descriptor_reads(st_, "f16", "MN", 64).addresses(), exp)
    with pytest.raises(DescriptorError):  # an MN-major layout is no canonical K layout
        descriptor_reads(st_, "f16", "K", 64)
    other = mma_smem_layout("MN", "64B", "float16", (128, 64), "row")
    assert not np.array_equal(descriptor_reads(st_, "f16", "MN", 64, 0, other).addresses(), exp)


def test_epilogue_double_store_and_missed_half():
    mma = make_tiled_mma(F16_16816, (2, 2, 1), (32, 32, 16))
    smem = _sw(3, Layout((8, 64), (64, 1)), (128, 128))
    good = Layout(((8, 16), (8, (8, 2))), ((1024, 1), (128, (16, 8192))))
    bad = Layout(((8, 16), (8, (8, 2))), ((1024, 1), (128, (16, 0))))
    gmem = Layout((128, 128), (128, 1))
    path = EpiloguePath(mma, (128, 128), 16, smem, MatrixCopy("UniversalCopy<uint32_t>"),
                        ThreadCopy("UniversalCopy<uint128_t>", good, gmem))
    assert first_fault(path) is None
    broken = EpiloguePath(mma, (128, 128), 16, smem, MatrixCopy("UniversalCopy<uint32_t>"),
                          ThreadCopy("UniversalCopy<uint128_t>", bad, gmem))
    assert first_fault(broken) == {"stage": 1, "kind": "doubled", "i": 0}
    counts = trace(broken).counts[-1]
    assert counts.size == 128 * 64 and set(counts.tolist()) == {2}  # the left half twice, the right half never


def test_stmatrix_tma_store_epilogue():
    mma = make_tiled_mma("SM90_64x128x16_F32F16F16_SS", (2, 1, 1))
    smem = mma_smem_layout("K", "128B", "float16", (128, 128), "col")
    box = TmaBox("float16", (128, 128), (256,), (64, 128), swizzle="128B")
    right = EpiloguePath(mma, (128, 128), 16, smem, MatrixCopy("SM90_U32x4_STSM_N"), TmaCopy(box, (1, 0)))
    assert first_fault(right) is None
    box64 = TmaBox("float16", (128, 128), (256,), (32, 128), swizzle="64B")
    wrong = EpiloguePath(mma, (128, 128), 16, smem, MatrixCopy("SM90_U32x4_STSM_N"), TmaCopy(box64, (1, 0)))
    assert first_fault(wrong)["stage"] == 1


def test_the_read_must_be_how_the_mma_takes_its_operand():
    p = _sm90(128, "128B")
    with pytest.raises(LayoutError, match="through its descriptors"):
        hops(OperandPath("A", p.mma, p.tile, 16, "f16", p.smem, p.load, MatrixCopy("SM75_U32x4_LDSM_N")))
    q = _sm80_a(2, 2)
    with pytest.raises(LayoutError, match="from registers"):
        hops(OperandPath("A", q.mma, q.tile, 16, "f16", q.smem, q.load, WgmmaRead("K")))


# -- tcgen05.ld epilogues (accumulators in tensor memory) ------------------------------------------------------------
def _tmem_path(data_path: str, assumed: str | None, atom: str, write: str, m: int) -> EpiloguePath:
    from layoutcheck.models.datapath_values import TmemRead
    from layoutcheck.models.tmem import datapath_layout
    from layoutcheck.spec.bind_tcgen05 import tmem_loads

    acc = datapath_layout(data_path, 128)
    assumed_acc = None if assumed is None else datapath_layout(assumed, 128)
    smem = mma_smem_layout("K", "128B", "float16", (m, 128), "col")
    box = TmaBox("float16", (128, m), (256,), (64, m), swizzle="128B")
    return EpiloguePath(None, (m, 128), 16, smem, MatrixCopy(write), TmaCopy(box, (1, 0)),
                        TmemRead(tmem_loads(atom, assumed_acc or acc), acc, assumed_acc))


def test_tmem_fragment_of_32dp32b_is_one_row_per_thread():
    from layoutcheck.models.datapath_fragments import tmem_fragment

    frag = tmem_fragment(_tmem_path("D", None, "SM100_TMEM_LOAD_32dp32b32x", "UniversalCopy<uint128_t>", 128).tmem)
    assert frag.threads.tolist() == list(range(128)) and frag.values == 128
    t, v = 37, 70  # warp 1, lane 5 -> TMEM lane 37 = row 37; value 70 -> column 70
    assert frag.tile[t, v] == 37 + 128 * 70


def test_tmem_epilogues():
    assert first_fault(_tmem_path("D", None, "SM100_TMEM_LOAD_32dp32b32x", "UniversalCopy<uint128_t>", 128)) is None
    assert first_fault(_tmem_path("F", None, "SM100_TMEM_LOAD_16dp256b1x", "SM90_U32x4_STSM_N", 64)) is None
    # 32 consecutive columns per thread are no stmatrix fragment
    assert first_fault(_tmem_path("D", None, "SM100_TMEM_LOAD_32dp32b32x", "SM90_U32x4_STSM_N", 128))["stage"] == 1
    # apache/tvm#20075: data path B read as F
    fault = first_fault(_tmem_path("B", "F", "SM100_TMEM_LOAD_16dp256b1x", "SM90_U32x4_STSM_N", 64))
    assert fault["stage"] == 0 and fault["kind"] == "misplaced"


# -- generated SM80 kernels: any consistent choice is a right path, any swizzle mismatch is caught at cp.async --------
@st.composite
def sm80_operand_paths(draw):
    """An SM80 operand path as CUTLASS builds one: a tiled mma.sync m16n8k16 (1, 2 or 4 warps per mode), an
    MN x K stage of 8-row K-major swizzle atoms (Sw<B,3,3>, B no larger than the 16-byte chunks per row allow) or of
    64-wide MN-major ones, cp.async threads that cover it with 16-byte vectors, and the matching ldmatrix."""
    wm, wn = draw(st.sampled_from([(1, 1), (2, 1), (1, 2), (2, 2), (4, 1), (1, 4)]))
    operand = draw(st.sampled_from("AB"))
    k = draw(st.sampled_from([32, 64]))
    mma = make_tiled_mma(F16_16816, (wm, wn, 1), (16 * wm, 16 * wn, 16))
    mn = (16 * wm if operand == "A" else 16 * wn) * draw(st.sampled_from([4, 8]))
    threads = 32 * wm * wn
    if draw(st.booleans()):  # K-major
        bits = draw(st.integers(0, 2 if k == 32 else 3))
        smem = _sw(bits, Layout((8, k), (k, 1)), (mn, k))
        cols = k // 8
        thr, val, gmem, read = Layout((threads // cols, cols), (cols, 1)), Layout((1, 8)), Layout((mn, k), (k, 1)), \
            "SM75_U32x4_LDSM_N"
    else:
        bits = draw(st.integers(0, 3))
        smem = _sw(bits, Layout((64, 8), (1, 64)), (mn, k))
        thr, val, gmem, read = Layout((8, threads // 8), (1, 8)), Layout((8, 1)), Layout((mn, k)), "SM75_U16x8_LDSM_T"
    tv = copy_tv(thr, val, (mn, k))
    return OperandPath(operand, mma, (mn, k), 16, "f16", smem, ThreadCopy(CP16, tv, gmem), MatrixCopy(read)), bits


@given(sm80_operand_paths(), st.integers(0, 3))
def test_generated_sm80_paths(case, other):
    path, _ = case
    assert first_fault(path) is None
    written = ComposedLayout(Swizzle(other, 3, 3), 0, path.smem.layout)
    wrong = OperandPath(path.operand, path.mma, path.tile, 16, "f16", path.smem,
                        ThreadCopy(CP16, path.load.tv, path.load.gmem, written), path.read)
    fault = first_fault(wrong)
    assert (fault is None) == np.array_equal(written.offsets(), path.smem.offsets())
    if fault is not None:
        assert fault["stage"] == 0 and fault["kind"] == "misplaced"


def _row_addresses_by_definition(atom, bits, frag, offsets, direction):
    """``row_addresses`` one (thread, value) at a time, as its docstring defines it: the hardware touches
    ``offsets[tile index of the row's first element] + (position in the row)``; -1 where that element is not placed."""
    from layoutcheck.models.datapath_hops import _atom_sides

    table, ta, r = _atom_sides(copy_atom(atom), bits, direction)
    va = table.shape[1]
    where = {int(table[lane, a]): (lane, a) for lane in range(ta) for a in range(va)}  # reference element -> slot
    out = np.empty(frag.shape, dtype=np.int64)
    for t in range(frag.shape[0]):
        for v in range(frag.shape[1]):
            row, j = divmod(int(table[t % ta, v % va]), r)
            lane0, a0 = where[row * r]
            c0 = int(frag[(t // ta) * ta + lane0, (v // va) * va + a0])
            out[t, v] = offsets[c0] + j if c0 >= 0 else -1
    return out


@pytest.mark.parametrize("atom, direction", [("SM75_U32x4_LDSM_N", "read"), ("SM75_U16x8_LDSM_T", "read"),
                                             ("SM90_U32x4_STSM_N", "write"), ("UniversalCopy<uint128_t>", "copy")])
@given(st.integers(1, 3), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_row_addresses_match_their_definition(atom, direction, groups, chunks, seed):
    from layoutcheck.models.datapath_hops import _atom_sides

    table, ta, _ = _atom_sides(copy_atom(atom), 16, direction)
    rng = np.random.default_rng(seed)
    frag = rng.integers(-1, 512, size=(groups * ta, chunks * table.shape[1]))
    offsets = rng.integers(0, 1 << 20, size=512)
    got = row_addresses(copy_atom(atom), 16, frag, offsets, direction)
    assert got.dtype == np.int64
    assert np.array_equal(got, _row_addresses_by_definition(atom, 16, frag, offsets, direction))


@given(st.lists(st.integers(-1, 9), min_size=1, max_size=12), st.data())
def test_apply_moves_tokens_as_defined(src, data):
    """Each move carries ``tokens[src]`` (UNWRITTEN when ``src`` is outside) to ``dst`` (nothing when -1); a location
    written twice holds CONFLICT; in range or not, the fast path and the masked one agree with the definition."""
    dst = data.draw(st.lists(st.integers(-1, 9), min_size=len(src), max_size=len(src)))
    tokens = np.arange(100, 108, dtype=np.int64)
    out, counts, read = _apply(tokens, _hop(src, dst))
    want_read = [int(tokens[s]) if 0 <= s < tokens.size else UNWRITTEN for s in src]
    live = [d for d in dst if d >= 0]
    extent = max(live) + 1 if live else 0
    want = [UNWRITTEN] * extent
    for d, x in zip(dst, want_read, strict=True):
        if d >= 0:
            want[d] = CONFLICT if live.count(d) > 1 else x
    assert read.tolist() == want_read and out.tolist() == want
    assert counts.tolist() == [live.count(d) for d in range(extent)]


# -- SM100 mainloop: TMA -> smem -> UMMA descriptors -> tcgen05.mma operand ----------------------------------------
def _ptx_canonical_byte(d, major: str, bits: int, mn: int, k: int) -> int:
    """The byte a tcgen05 descriptor ``d`` reads for operand element ``(mn, k)`` of its block, from its fields and the
    PTX ISA's canonical layouts (9.7.16.4.1, written out here, not taken from ``models.canonical``): 16-byte chunks of
    ``t`` elements, ``w`` chunks per swizzle row, then ``Swizzle<log2 w, 4, 3>`` on the address."""
    e8, t = bits // 8, 128 // bits
    w = {"SWIZZLE_NONE": 1, "SWIZZLE_32B": 2, "SWIZZLE_64B": 4, "SWIZZLE_128B": 8}[d.swizzle.name]
    lbo, sbo = 16 * d.leading_byte_offset, 16 * d.stride_byte_offset
    if major == "K" and w == 1:  # 8 x 16-byte core matrices: rows 16 B apart, SBO steps 8 rows, LBO steps K chunks
        off = (mn % 8) * 16 + (mn // 8) * sbo + (k // t) * lbo + (k % t) * e8
    elif major == "K":  # rows w*16 B apart, SBO steps 8-row groups, K runs along the row
        off = (mn % 8) * 16 * w + (mn // 8) * sbo + k * e8
    else:  # MN runs along the row (w*t elements), LBO steps MN rows, SBO steps 8-row K groups
        off = (mn % (w * t)) * e8 + (mn // (w * t)) * lbo + (k % 8) * 16 * w + (k // 8) * sbo
    a = d.start_address_bytes + off
    b = w.bit_length() - 1
    return a ^ (((a >> 7) & ((1 << b) - 1)) << 4)


SM100_MAINLOOPS = [  # (major, swizzle, dtype, (MN, K), descriptor swizzle)
    ("K", "128B", "float16", (128, 64), None), ("K", "128B", "float16", (256, 64), None),
    ("MN", "128B", "bfloat16", (128, 64), None), ("K", "64B", "float16", (128, 32), None),
    ("MN", "32B", "float16", (128, 32), None), ("K", "none", "float16", (64, 32), None),
    ("K", "128B", "uint8", (128, 128), None), ("K", "128B", "float16", (128, 64), "64B"),
    ("MN", "128B", "bfloat16", (128, 64), "64B"),
]
_SHORT = {"float16": "f16", "bfloat16": "bf16", "uint8": "e4m3"}


def _sm100_operand(major, swizzle, dtype, shape, desc_swizzle, tma_swizzle=None):
    from layoutcheck.models.datapath_values import UmmaRead
    smem = mma_smem_layout(major, swizzle, dtype, shape, "col" if major == "K" else "row")
    desc = None if desc_swizzle is None else mma_smem_layout(major, desc_swizzle, dtype, shape,
                                                             "col" if major == "K" else "row")
    es = 1 if dtype == "uint8" else 2
    sw = tma_swizzle or swizzle
    dims = (shape[1], shape[0]) if major == "K" else shape  # driver order: the contiguous dim first
    inner = {"none": 16, "32B": 32, "64B": 64, "128B": 128}[sw] // es  # one swizzle span (INTER: one 16-byte chunk)
    box = TmaBox(dtype, dims, (es * dims[0],), (min(inner, dims[0]), dims[1]), swizzle=sw)
    return OperandPath("A", None, shape, 8 * es, _SHORT[dtype], smem,
                       TmaCopy(box, (1, 0) if major == "K" else (0, 1)), UmmaRead(major, desc))


@pytest.mark.parametrize("case", SM100_MAINLOOPS, ids=lambda c: "-".join(str(x) for x in c))
def test_umma_hop_reads_what_each_descriptor_decodes_to_element_by_element(case):
    from layoutcheck.models.umma import umma_reads
    major, _, _, shape, desc_swizzle = case
    path = _sm100_operand(*case)
    hop = hops(path)[1]
    assert hop.stage == "umma" and hop.spaces == ("smem", "operand") and hop.element_space == "operand"
    rd = umma_reads(path.smem, path.dtype, major, 0, path.read.umma_layout)
    mb, kb = rd.block
    assert mb == shape[0] and kb * path.dtype_bits == 256  # one instruction: the whole MN, 256 bits of K
    for i in range(0, shape[0] * shape[1], 7 if shape[0] * shape[1] > 8192 else 1):
        mn, k = i % shape[0], i // shape[0]
        d = rd.descs[k // kb]
        assert d.advance(0).value == d.value
        assert hop.src[i] == _ptx_canonical_byte(d, major, path.dtype_bits, mn, k % kb), (mn, k)
    assert (first_fault(path) is None) == (desc_swizzle is None)
    if desc_swizzle is not None:
        f = first_fault(path)
        assert f["stage"] == 1 and f["kind"] == "misplaced"


def test_umma_hop_start_addresses_advance_per_k_block():
    """K-major SW128 f16: the K blocks' descriptors start 32 bytes apart inside the 128-byte rows (CuTe's
    DescriptorIterator advances the start address by 2 x 16 B), MN-major SW128 ones an atom group of 8 K rows apart."""
    from layoutcheck.models.umma import umma_reads
    k = _sm100_operand("K", "128B", "float16", (128, 64), None)
    assert [d.start_address_bytes for d in umma_reads(k.smem, "f16", "K").descs] == [0, 32, 64, 96]
    mn = _sm100_operand("MN", "128B", "bfloat16", (128, 64), None)
    assert [d.start_address_bytes for d in umma_reads(mn.smem, "bf16", "MN").descs] == [0, 2048, 4096, 6144]


def test_a_non_canonical_stage_is_misread_at_the_umma_stage():
    """A plain row-major K-major stage (32-byte rows: what an unswizzled 16 x 64 TMA box writes) is no canonical UMMA
    layout (core-matrix rows must be 16 bytes apart): REFUTED at the UMMA hop, nothing read, not an input error."""
    from layoutcheck.models.datapath_values import UmmaRead
    from layoutcheck.properties.datapath import datapath
    smem = Layout((64, 16), (16, 1))
    box = TmaBox("float16", (16, 64), (32,), (16, 64))
    path = OperandPath("B", None, (64, 16), 16, "f16", smem, TmaCopy(box, (1, 0)), UmmaRead("K"))
    assert (hops(path)[1].src == -1).all()
    claim = datapath([path])
    d = claim.exhaustive()
    assert not d.holds and d.witness["stage"] == 1 and claim.recheck(d.witness)
    assert "operand (n,k) = (0,0) comes from no smem byte" in claim.explain(d.witness)


def test_the_tma_stage_is_blamed_before_the_umma_one():
    """TMA writes 64-byte swizzled atoms into a stage the UMMA descriptors read as 128-byte ones: stage 1 (tma)."""
    path = _sm100_operand("K", "128B", "float16", (128, 64), None, tma_swizzle="64B")
    f = first_fault(path)
    assert f["stage"] == 0 and f["kind"] == "misplaced"


def test_cp_async_into_a_umma_stage():
    """The load may be cp.async (CUTLASS's SM100 cp.async mainloops): 16-byte copies into a K-major SW128 stage, read
    through UMMA descriptors, are a right path; the same copies written unswizzled are blamed on the cp.async."""
    from layoutcheck.models.datapath_values import UmmaRead
    smem = mma_smem_layout("K", "128B", "float16", (128, 64), "col")
    tv = copy_tv(Layout((16, 8), (8, 1)), Layout((1, 8)), (128, 64))
    gmem = Layout((128, 64), (64, 1))
    ok = OperandPath("A", None, (128, 64), 16, "f16", smem, ThreadCopy(CP16, tv, gmem), UmmaRead("K"))
    assert first_fault(ok) is None
    bad = OperandPath("A", None, (128, 64), 16, "f16", smem, ThreadCopy(CP16, tv, gmem, Layout((128, 64), (64, 1))),
                      UmmaRead("K"))
    f = first_fault(bad)
    assert f["stage"] == 0 and f["kind"] == "misplaced"


# -- address rules (issue #31) -------------------------------------------------------------------------------------
def test_every_access_of_a_right_path_obeys_its_rule():
    """cp.async and ldmatrix of a Sw<2,3,3> stage: 16-byte accesses, all 16-byte aligned and inside the 8192-byte
    stage buffer; one access per 8-half row (512 cp.async copies, 4 ldmatrix.x4 per warp and k-block)."""
    from layoutcheck.models.datapath import address_fault

    hs = hops(_sm80_a(2, 2))
    for hop in hs:
        assert address_fault(hop) is None
        for acc in hop.accesses:
            assert acc.size == 16 and acc.align == 16 and not (acc.start % 16).any()
    smem, glob = hs[0].accesses
    assert (smem.space, glob.space, smem.limit, glob.limit) == ("smem", "global", 8192, None)
    assert smem.start.size == glob.start.size == 128 * 32 // 8


def test_a_swizzle_that_moves_rows_8_bytes_is_misaligned_even_when_the_composition_is_right():
    """Sw<1,2,4> o (128,32):(64,1): the odd rows move 4 halves; the tokens arrive (the copies do not overlap), but
    half the cp.async copies and ldmatrix rows are 8 bytes off, and the last row's last copy ends past the buffer."""
    from layoutcheck.models.datapath import address_fault, end_to_end_ok

    p = _sm80_a(2, 2)
    stage = ComposedLayout(Swizzle(1, 2, 4), 0, Layout((128, 32), (64, 1)))
    p = OperandPath("A", p.mma, p.tile, 16, "f16", stage, ThreadCopy(CP16, p.load.tv, p.load.gmem), p.read)
    hs = hops(p)
    assert end_to_end_ok(p, trace(p, hs))
    smem = hs[0].accesses[0]
    assert int(np.sum(smem.start % 16 != 0)) == smem.start.size // 2
    assert int(smem.start.max()) + 16 > smem.limit  # the last row writes past the buffer
    assert address_fault(hs[1]) is not None and address_fault(hs[1])["kind"] == "misaligned"
    f = first_fault(p)
    assert (f["stage"], f["kind"], f["space"], f["address"], f["align"]) == (0, "misaligned", "smem", 136, 16)
