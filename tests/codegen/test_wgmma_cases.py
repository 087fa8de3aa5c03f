"""The generated wgmma kernels: every printed index expression evaluated against the layout it came from, the
operand encodings, and (when nvcc is installed) one compile for sm_90a."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from layoutcheck.codegen.wgmma_cases import encode, probe_cases, wgmma_gemm_case, wgmma_gemm_cases
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


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_rs_kernel_compiles_for_sm90a(tmp_path) -> None:
    case = wgmma_gemm_case("bf16", "K", "MN", "64B", 128, 128, 64, "RS")
    f = tmp_path / "k.cu"
    f.write_text(case.source)
    r = subprocess.run(["nvcc", "-gencode", "arch=compute_90a,code=sm_90a", "-std=c++17", "-c", str(f), "-o",
                        str(tmp_path / "k.o")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
