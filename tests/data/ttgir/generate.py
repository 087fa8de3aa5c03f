"""Regenerate the TTGIR samples in this folder: real Triton kernels compiled on a CPU-only machine.

Provenance: ``python3 tests/data/ttgir/generate.py`` with ``pip install triton`` (the version is written into each
file's first line); ``triton.compile(ASTSource(...), target=GPUTarget("cuda", cc, 32))`` needs no GPU, and only the
``ttgir`` stage is kept. Kernels: matmuls (f16, bf16, fp8e4m3, tf32) over several block sizes and warp counts for
sm_80 (mma.sync: ``#nvidia_mma`` v2, ``#dot_op``, ``#swizzled_shared``), sm_90 (wgmma: v3, ``#nvmma_shared``) and
sm_100 (tcgen05: ``#ttng.tensor_memory_encoding``), a fused attention forward, a softmax, a transpose, a reduction,
and a matmul compiled with ``num_ctas = 2`` (a CTA cluster: ``CGALayout`` on every encoding; the A tile's shared
layout replicates over the two CTAs, which is correct: each CTA has its own shared memory).
"""

from __future__ import annotations

import sys
from pathlib import Path

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

HERE = Path(__file__).parent


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def attention(q_ptr, k_ptr, v_ptr, o_ptr, L, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    m_i = tl.full((BM,), float("-inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for start in range(0, L, BN):
        rn = start + tl.arange(0, BN)
        k = tl.load(k_ptr + rn[None, :] * D + rd[:, None])
        s = tl.dot(q, k)
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + rn[:, None] * D + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def softmax(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=float("-inf"))
    x = x - tl.max(x, 0)
    e = tl.exp(x)
    tl.store(y_ptr + row * N + cols, e / tl.sum(e, 0), mask=cols < N)


@triton.jit
def transpose(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(y_ptr + rn[:, None] * M + rm[None, :], tl.trans(x))


@triton.jit
def reduce_rows(x_ptr, y_ptr, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(y_ptr + rm, tl.sum(x, 1))


MM_SIG = {"a_ptr": "*{a}", "b_ptr": "*{a}", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
          "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
MATMULS = [  # (dtype, BM, BN, BK, warps, cc)
    ("fp16", 128, 128, 64, 4, 90), ("fp16", 64, 64, 32, 4, 90), ("fp16", 128, 256, 64, 8, 90),
    ("bf16", 128, 128, 64, 8, 90), ("fp8e4nv", 128, 128, 128, 4, 90), ("fp32", 64, 64, 32, 4, 90),
    ("fp16", 128, 128, 32, 4, 80), ("fp16", 64, 32, 32, 2, 80), ("bf16", 128, 64, 64, 8, 80),
    ("fp32", 64, 64, 16, 4, 80), ("fp16", 16, 16, 16, 1, 80), ("fp16", 128, 128, 64, 4, 100),
]


CLUSTERS = [("fp16", 128, 128, 64, 4, 90, 2)]  # (dtype, BM, BN, BK, warps, cc, num_ctas)


def compile_ttgir(fn, sig: dict[str, str], consts: dict[str, int], cc: int, warps: int, **opts) -> str:
    src = ASTSource(fn=fn, signature=sig, constexprs=consts)
    opts = {"num_warps": warps, "num_stages": 3, **opts}
    return triton.compile(src, target=GPUTarget("cuda", cc, 32), options=opts).asm["ttgir"]


def main() -> None:
    jobs = []
    for dt, bm, bn, bk, w, cc in MATMULS:
        sig = {k: v.format(a=dt) for k, v in MM_SIG.items()}
        jobs.append((f"matmul_{dt}_{bm}x{bn}x{bk}_w{w}_sm{cc}", matmul, sig, {"BM": bm, "BN": bn, "BK": bk}, cc, w, {}))
    for dt, bm, bn, bk, w, cc, ctas in CLUSTERS:
        sig = {k: v.format(a=dt) for k, v in MM_SIG.items()}
        jobs.append((f"matmul_{dt}_{bm}x{bn}x{bk}_w{w}_sm{cc}_ctas{ctas}", matmul, sig, {"BM": bm, "BN": bn, "BK": bk},
                     cc, w, {"num_ctas": ctas}))
    att = {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16", "L": "i32", "BM": "constexpr",
           "BN": "constexpr", "D": "constexpr"}
    for cc in (80, 90):
        jobs.append((f"attention_fp16_128x64x64_w4_sm{cc}", attention, att, {"BM": 128, "BN": 64, "D": 64}, cc, 4,
                     {}))
    jobs.append(("softmax_fp32_1024_w4_sm90", softmax, {"x_ptr": "*fp32", "y_ptr": "*fp32", "N": "i32",
                                                        "BLOCK": "constexpr"}, {"BLOCK": 1024}, 90, 4, {}))
    jobs.append(("transpose_fp16_64x64_w4_sm90", transpose, {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32",
                                                              "N": "i32", "BM": "constexpr", "BN": "constexpr"},
                 {"BM": 64, "BN": 64}, 90, 4, {}))
    jobs.append(("reduce_rows_fp32_32x256_w8_sm90", reduce_rows, {"x_ptr": "*fp32", "y_ptr": "*fp32", "N": "i32",
                                                                   "BM": "constexpr", "BN": "constexpr"},
                 {"BM": 32, "BN": 256}, 90, 8, {}))
    only = set(sys.argv[1:])
    for name, fn, sig, consts, cc, w, opts in jobs:
        if only and name not in only:
            continue
        try:
            text = compile_ttgir(fn, sig, consts, cc, w, **opts)
        except Exception as e:  # a kernel Triton cannot compile here is reported and skipped
            print(f"skip {name}: {type(e).__name__}: {str(e)[:200]}")
            continue
        extra = "".join(f", {k}={v}" for k, v in opts.items())
        head = (f"// {name}: triton {triton.__version__}, GPUTarget('cuda', {cc}, 32), num_warps={w}{extra}; "
                "generate.py\n")
        (HERE / f"{name}.ttgir").write_text(head + text)
        print("wrote", name)


if __name__ == "__main__":
    main()
