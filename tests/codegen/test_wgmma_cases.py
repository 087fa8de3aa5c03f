"""The generated wgmma kernels: every printed index expression evaluated against the layout it came from, the
operand encodings, and (when nvcc is installed) one compile for sm_90a."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from layoutcheck.codegen.wgmma_cases import (
    SMEM_C,
    _stage,
    encode,
    kfirst_cases,
    ncu_cases,
    probe_cases,
    type_cases,
    wgmma_atom_name,
    wgmma_gemm_case,
    wgmma_gemm_cases,
)
from layoutcheck.errors import LayoutError
from layoutcheck.expr.c import eval_c
from layoutcheck.hw.mma import mma_atom
from layoutcheck.models.gmma import GmmaDescriptor, decode_gmma_descriptor, gmma_blocks
from layoutcheck.models.tiled_mma import make_tiled_mma
from layoutcheck.properties.tma import plan_boxes

CASES = wgmma_gemm_cases()


def test_cases_are_unique_and_cover_the_matrix() -> None:
    assert len({c.name for c in CASES}) == len(CASES) == 32
    assert {c.config.split()[0] for c in CASES} == {"f16", "bf16", "tf32", "e4m3", "e5m2", "s8"}
    assert all(c.arch == "sm_90a" for c in CASES + probe_cases())


def _expr(src: str, pattern: str) -> str:
    return re.search(pattern, src).group(1)


@pytest.mark.parametrize("args", [("f16", "MN", "K", "64B", 128, 64, 128), ("bf16", "K", "K", "128B", 128, 256, 64),
                                  ("tf32", "K", "K", "32B", 128, 64, 32), ("f16", "K", "MN", "none", 64, 64, 64)])
def test_descriptor_advance_and_c_store_equal_the_layouts(args) -> None:
    dtype, ma, mb, sw, M, N, K = args
    case = wgmma_gemm_case(dtype, ma, mb, sw, M, N, K)
    src = case.source
    e = {"f16": 2, "bf16": 2, "tf32": 4}[dtype]
    tname = {"f16": "float16", "bf16": "bfloat16", "tf32": "float32"}[dtype]
    ba = gmma_blocks(plan_boxes(ma, sw, tname, (M, K)).layout, dtype, 64)
    bb = gmma_blocks(plan_boxes(mb, sw, tname, (N, K)).layout, dtype, N)
    off_a = _expr(src, r"desc_a = desc_a0 \+ \(\((.*)\) >> 4\);")
    off_b = _expr(src, r"desc_b = desc_b0 \+ \(\((.*)\) >> 4\);")
    for kb in range(K // (32 // e)):
        assert eval_c(off_b, {"kb": kb}) == e * bb.block_offset(kb)
        for wg in range(M // 64):
            assert eval_c(off_a, {"kb": kb, "wg": wg}) == e * ba.block_offset(wg + (M // 64) * kb)
    # the descriptor word the kernel starts from reads the stage block 0 (decoded independently)
    d0 = GmmaDescriptor.from_value(int(_expr(src, r"desc_a0 = (0x[0-9a-f]+)ull"), 16))
    assert np.array_equal(decode_gmma_descriptor(d0, dtype, ma, 64).addresses(), ba.expected(0, e)[0])
    # C store: gC[m*N + n] for (m, n) = tv_layout_C(t, v) of the tiled wgmma
    c_off = _expr(src, r"gC\[(.*)\] = static_cast<float>\(d\[v\]\);")
    tiled = make_tiled_mma(mma_atom(_atom(dtype, N)), (M // 64, 1, 1))
    tv = tiled.tv_layout_C
    for t in range(0, tiled.size, 7):
        for v in range(0, N // 2, 3 if N <= 64 else 13):
            el = tv(t, v)
            assert eval_c(c_off, {"t": t, "v": v}) == (el % M) * N + el // M


def _atom(dtype: str, n: int) -> str:
    return {"f16": f"SM90_64x{n}x16_F32F16F16_SS", "bf16": f"SM90_64x{n}x16_F32BF16BF16_SS",
            "tf32": f"SM90_64x{n}x8_F32TF32TF32_SS_TN"}[dtype]


def test_encodings_are_exact() -> None:
    x = np.array([-3, -1, 0, 1, 2, 3, 64, 128])
    assert np.array_equal(encode(x, "f16").view(np.float16).astype(int), x)
    bf = (encode(x, "bf16").astype(np.uint32) << 16).view(np.float32)
    assert np.array_equal(bf.astype(int), x)
    assert encode(np.array([1, -2, 64]), "e4m3").tolist() == [0x38, 0xC0, 0x68]
    assert encode(np.array([1, -2, 3]), "e5m2").tolist() == [0x3C, 0xC0, 0x42]
    assert encode(np.array([-3, 3]), "s8").tolist() == [0xFD, 0x03]


@pytest.mark.parametrize("dtype", ["f16", "bf16", "e4m3", "s8"])
def test_encode_writes_row_major_bytes_for_a_transposed_view(dtype: str) -> None:
    # a kernel reads the raw buffer: a transposed (Fortran-ordered) operand must reach it as its rows, not as A.T
    # (the matmultutorial_14 read-out once passed A = values.reshape(K, M).T and the GPU read A.T: 4,094 wrong)
    a = np.arange(12).reshape(3, 4).T
    got = encode(a, dtype)
    assert got.flags["C_CONTIGUOUS"]
    assert got.tobytes() == encode(np.array(a.tolist()), dtype).tobytes()


def test_matmultutorial_14_readout_operand_reaches_the_kernel_in_row_major_order() -> None:
    # the TMA -> wgmma read-out of specs/zoo/matmultutorial_14.toml: the array the kernel gets as gA holds A[m, k] at
    # m * K + k, the order the tensor map describes
    from layoutcheck.codegen.refuted_cases import refuted_cases

    spec = Path(__file__).parents[2] / "specs/zoo/matmultutorial_14.toml"
    rc = next(r for r in refuted_cases([str(spec)]) if r.readout is not None)
    _, stored = rc.readout
    ga = rc.case.inputs(np)[0]
    assert ga.flags["C_CONTIGUOUS"]
    assert np.array_equal(ga.view(np.float16).reshape(-1).astype(np.float32), stored.reshape(-1))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_rs_kernel_compiles_for_sm90a(tmp_path) -> None:
    case = wgmma_gemm_case("bf16", "K", "MN", "64B", 128, 128, 64, "RS")
    f = tmp_path / "k.cu"
    f.write_text(case.source)
    r = subprocess.run(["nvcc", "-gencode", "arch=compute_90a,code=sm_90a", "-std=c++17", "-c", str(f), "-o",
                        str(tmp_path / "k.o")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]


# -- K-first MN-major stages, operand types, the ncu kernels ---------------------------------------------------------
KFIRST = kfirst_cases()
TYPES = type_cases()


def test_kfirst_stages_are_the_spec_kinds_stages_and_differ_from_mn_first() -> None:
    from layoutcheck.models.tma import mma_smem_layout
    from layoutcheck.spec.values import WGMMA_ATOM_ORDER

    assert len({c.name for c in KFIRST + TYPES}) == len(KFIRST + TYPES) == 15 + 17
    for sw in ("none", "32B", "64B", "128B"):
        kf = _stage("MN", sw, "f16", 128, 64, "cutlass").layout
        assert kf == mma_smem_layout("MN", sw, "float16", (128, 64), WGMMA_ATOM_ORDER["MN"])
        assert kf != _stage("MN", sw, "f16", 128, 64, "mn_first").layout
        assert str(kf) in next(c.source for c in KFIRST if f"mnmn_{sw.lower()}_128x128x64" in c.name)


@pytest.mark.parametrize("args", [("f16", "MN", "MN", "none", 128, 128, 64), ("f16", "MN", "MN", "128B", 128, 128, 64),
                                  ("bf16", "MN", "MN", "32B", 64, 256, 64), ("f16", "MN", "K", "64B", 128, 64, 128)])
def test_kfirst_descriptors_read_the_stage(args) -> None:
    from layoutcheck.properties.gmma import gmma_addresses

    dtype, ma, mb, sw, M, N, K = args
    src = wgmma_gemm_case(dtype, ma, mb, sw, M, N, K, atom_order="cutlass").source
    e = 2
    for major, mn, blk, pat in ((ma, M, 64, r"desc_a = desc_a0 \+ \(\((.*)\) >> 4\);"),
                                (mb, N, N, r"desc_b = desc_b0 \+ \(\((.*)\) >> 4\);")):
        stage = _stage(major, sw, dtype, mn, K, "cutlass").layout
        assert gmma_addresses(stage, dtype, major, 0, blk).exhaustive().holds
        b = gmma_blocks(stage, dtype, blk)
        off = _expr(src, pat)
        for kb in range(K // 16):
            for wg in range(mn // blk if blk == 64 else 1):
                assert eval_c(off, {"kb": kb, "wg": wg}) == e * b.block_offset(wg + (mn // blk) * kb)


def test_tf32_mn_major_registers_come_from_the_stage_layout() -> None:
    case = wgmma_gemm_case("tf32", "MN", "K", "128B", 128, 64, 32, "RS", atom_order="cutlass")
    off = _expr(case.source, r"reinterpret_cast<const unsigned\*>\(sA\)\[(.*)\]\); \};")
    stage = _stage("MN", "128B", "tf32", 128, 32, "cutlass").layout
    tiled = make_tiled_mma(mma_atom("SM90_64x64x8_F32TF32TF32_RS_TN"), (2, 1, 1))
    for t in range(0, 256, 5):
        for v in range(4):
            el = tiled.tv_layout_A(t, v)
            for kb in range(4):
                assert eval_c(off, {"t": t, "v": v, "kb": kb}) == stage(el % 128, el // 128 + 8 * kb)


def test_operand_types_pick_the_right_atoms_and_encodings() -> None:
    names = {c.name: c.source for c in TYPES}
    assert "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.u8" in names["wgmma_gemm_s8xu8_ss_kk_128b_64x64x128"]
    assert "m64n64k32.s32.u8.s8" in names["wgmma_gemm_u8xs8_ss_kk_128b_128x64x128"]
    f16acc = names["wgmma_gemm_e4m3_f16_ss_kk_128b_64x64x128"]
    assert "m64n64k32.f16.e4m3.e4m3" in f16acc and '"+r"(d[15])' in f16acc and "unsigned d[16];" in f16acc
    assert "f16_bits_to_float(static_cast<unsigned short>(d[v >> 1] >> (16u * (v & 1u))))" in f16acc
    assert encode(np.array([0, 3, 2]), "u8").tolist() == [0, 3, 2]
    with pytest.raises(ValueError):
        encode(np.array([-1]), "u8")
    with pytest.raises(LayoutError):
        wgmma_atom_name("s8", "e4m3", "s32", 64, "SS")


def test_ncu_epilogue_prediction_reads_the_kernel_expressions() -> None:
    from layoutcheck.gpu.smem_ncu import epilogue_prediction, parse_metric_names

    cases = {c.name: c for _, _, c in ncu_cases()}
    # row-major: pairs stored by st.shared.v2.f32, 2-way; column-major: single floats, 4-way stores and 32-way
    # copy-out; Sw<3,2,3>: pairs, conflict-free
    want = {"row": (128, 512, "st.shared.v2.f32"), "col": (4096, 512, "st.shared.f32"),
            "sw323": (128, 128, "st.shared.v2.f32")}
    for k, lay in SMEM_C.items():
        c = cases[f"wgmma_gemm_f16_ss_kk_128b_64x64x64_smemc_{k}"]
        p = epilogue_prediction(c.name, lay, c.source)
        assert (p["ld"], p["st"]) == want[k][:2] and p["ideal_st"] == 128 and p["ideal_ld"] == 128
        assert want[k][2] + " [" in c.source
    issue = "m64n64k16.f32.f16.f16 {%0"
    assert issue in cases["wgmma_gemm_f16_ss_kk_128b_64x64x64"].source
    assert issue not in cases["wgmma_gemm_f16_ss_kk_128b_64x64x64_nowgmma"].source
    assert parse_metric_names("x\nl1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma  Counter  # of\n"
                              "smsp__warp_issue_stalled_gmma_per_warp_active  Ratio\nl1tex__t_bytes  Counter\n") == [
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum"]


def test_core_matrix_reading_covers_every_operand_byte_once_per_wgmma() -> None:
    from layoutcheck.gpu.smem_ncu import gmma_core_matrix_reads

    for role, args, _ in ncu_cases():
        if role == "operands":
            M, N, K = args.get("M", 64), args.get("N", 64), args.get("K", 64)
            r = gmma_core_matrix_reads(args)
            a = M if args.get("form", "SS") == "SS" else 0  # RS: A comes from registers
            assert r["bytes"] == 2 * K * (a + N * (M // 64))  # A once, B once per warpgroup
            assert r["wavefronts"] == r["core_matrices"] == r["bytes"] // 128  # no core matrix meets a bank twice


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_new_kernel_forms_compile_for_sm90a(tmp_path) -> None:
    cases = [next(c for c in KFIRST if "tf32" in c.name), next(c for c in TYPES if "f16_rs" in c.name),
             next(c for _, _, c in ncu_cases() if "smemc" in c.name)]
    for case in cases:
        f = tmp_path / f"{case.name}.cu"
        f.write_text(case.source)
        r = subprocess.run(["nvcc", "-gencode", "arch=compute_90a,code=sm_90a", "-std=c++17", "-c", str(f), "-o",
                            str(tmp_path / "k.o")], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
