"""Nsight Compute on kernels Triton compiles itself: ``layoutcheck triton``'s predicted wavefronts vs the H100's.

One validation section, ``triton_ncu``: each case of ``CASES`` is a kernel of ``tests/data/triton_kernels/`` (Gluon
kernels, whose every shared-memory operation the model covers, and Triton tutorial kernels, whose conversions,
reductions and MMA-operand copies it does not); the section compiles each for the device's architecture with the
installed Triton, launches it once under ncu on CuPy buffers (pointer arguments are passed as integers, which Triton's
launcher accepts), and reads ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum`` / ``_op_st.sum``.

The prediction is ``layoutcheck.properties.ttgir_smem.smem_traffic`` of the kernel's own TTGIR: per CTA, the sum of
the modelled operations' wavefronts (loads for ``local_load``, stores for ``local_store`` / ``local_alloc``), times
the number of CTAs. It is *exact* only for a kernel whose every shared-memory operation is modelled and runs once per
CTA (no ``scf.for`` around it); such a case must match the counters exactly (``ok``), the others are recorded with
what is not modelled, so the report shows how far the model reaches.

Needs a CUDA GPU, CuPy, ncu and Triton; the kernels are read from the source tree (``ROOT / tests/data``).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "triton_kernels"
METRIC_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
METRIC_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
METRIC_LDGSTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"
METRICS = (METRIC_LD, METRIC_ST, METRIC_LDGSTS, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smsp__inst_executed_op_shared_ld.sum",
           "smsp__inst_executed_op_shared_st.sum")


@dataclass(frozen=True)
class TritonCase:
    """One kernel launch: ``FILE::KERNEL``, its signature and constexprs, warps, the grid, and the bytes of each
    pointer argument's buffer (scalars get ``scalars``)."""

    label: str
    where: str
    signature: dict[str, str]
    constexprs: dict[str, Any]
    grid: tuple[int, ...]
    buffer_bytes: int
    num_warps: int = 4
    scalars: dict[str, int] = field(default_factory=dict)


def _gluon(kernel: str, dtype: str, m: int, n: int, warps: int = 4) -> TritonCase:
    bits = int(dtype.removeprefix("*").removeprefix("fp").removeprefix("bf"))
    return TritonCase(f"{kernel}_{dtype.strip('*')}_{m}x{n}", f"{DATA / 'gluon_kernels.py'}::{kernel}",
                      {"x_ptr": dtype, "y_ptr": dtype}, {"M": m, "N": n}, (1,), m * n * bits // 8, warps)


CASES: tuple[TritonCase, ...] = (
    _gluon("transpose_kernel", "*fp16", 64, 64), _gluon("transpose_conflicts_kernel", "*fp16", 64, 64),
    _gluon("transpose_kernel", "*fp32", 64, 64), _gluon("transpose_conflicts_kernel", "*fp32", 64, 64),
    _gluon("transpose_kernel", "*fp16", 128, 64), _gluon("transpose_conflicts_kernel", "*fp16", 32, 128),
    TritonCase("tutorial_transpose_fp16_64x64", f"{DATA / 'tutorials.py'}::transpose_kernel",
               {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32", "N": "i32"}, {"BM": 64, "BN": 64}, (1, 1),
               64 * 64 * 2, scalars={"M": 64, "N": 64}),
    TritonCase("tutorial_reduce_axis0_fp32_64x64", f"{DATA / 'tutorials.py'}::reduce_cols_kernel",
               {"x_ptr": "*fp32", "y_ptr": "*fp32", "N": "i32"}, {"BM": 64, "BN": 64}, (1,), 64 * 64 * 4,
               scalars={"N": 64}),
    TritonCase("tutorial_softmax_fp32_2x1024", f"{DATA / 'tutorials.py'}::softmax_kernel",
               {"x_ptr": "*fp32", "y_ptr": "*fp32", "n_cols": "i32"}, {"BLOCK": 1024}, (2,), 2 * 1024 * 4,
               scalars={"n_cols": 1024}),
    TritonCase("tutorial_layer_norm_fp16_2x1024", f"{DATA / 'tutorials.py'}::layer_norm_kernel",
               {"x_ptr": "*fp16", "y_ptr": "*fp16", "w_ptr": "*fp16", "b_ptr": "*fp16", "n_cols": "i32",
                "eps": "fp32"}, {"BLOCK": 1024}, (2,), 2 * 1024 * 2, scalars={"n_cols": 1024}),
    TritonCase("tutorial_matmul_fp16_64x64x128", f"{DATA / 'tutorials.py'}::matmul_kernel",
               {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"},
               {"BM": 64, "BN": 64, "BK": 32}, (1, 1), 64 * 128 * 2, scalars={"M": 64, "N": 64, "K": 128}),
    TritonCase("tutorial_matmul_fp8_rowmajor_b_64x64x128", f"{DATA / 'tutorials.py'}::matmul_kernel",
               {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"},
               {"BM": 64, "BN": 64, "BK": 64}, (1, 1), 64 * 128 * 2, scalars={"M": 64, "N": 64, "K": 128}),
    TritonCase("tutorial_matmul_fma_fp32_32x32x64", f"{DATA / 'tutorials.py'}::matmul_fma_kernel",
               {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"},
               {"BM": 32, "BN": 32, "BK": 32}, (1, 1), 64 * 64 * 4, scalars={"M": 32, "N": 32, "K": 64}),
    TritonCase("tutorial_matmul_fp16_aligned_cp_async_64x64x128", f"{DATA / 'tutorials.py'}::matmul_kernel",
               {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp16:16", "M": "i32:16", "N": "i32:16",
                "K": "i32:16"}, {"BM": 64, "BN": 64, "BK": 32}, (1, 1), 64 * 128 * 2,
               scalars={"M": 64, "N": 64, "K": 128}),
    TritonCase("tutorial_attention_fwd_fp16_64x128x64", f"{DATA / 'tutorials.py'}::attention_fwd_kernel",
               {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16", "L": "i32"},
               {"BM": 64, "BN": 64, "D": 64}, (1,), 128 * 64 * 2, scalars={"L": 128}),
)
"""Exact cases first (Gluon copies), then tutorial kernels recorded against what the model leaves out."""


def _target() -> str:
    import cupy

    cc = int(cupy.cuda.Device().compute_capability)  # "90" on an H100
    return f"cuda:{cc}"


def _compile(case: TritonCase, target: str) -> tuple[Any, dict[str, str]]:
    """Triton's ``CompiledKernel`` for ``case`` (the same compile ``layoutcheck triton`` reads the TTGIR of) and the
    full signature (every argument in order, ``constexpr`` for the constexprs)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from layoutcheck.importers.triton_kernel import KernelSpec, _divisibility, load_kernel

    spec = KernelSpec(case.where, case.signature, case.constexprs, case.num_warps, 3, target)
    fn = load_kernel(spec)
    sig, attrs = _divisibility(fn, {a: case.signature.get(a, "constexpr") for a in fn.arg_names})
    source_cls = ASTSource
    if type(fn).__module__.startswith("triton.experimental.gluon"):
        from triton.experimental.gluon._runtime import GluonASTSource

        source_cls = GluonASTSource
    arch = int(target.split(":")[1])
    k = triton.compile(source_cls(fn=fn, signature=sig, constexprs=case.constexprs, attrs=attrs),
                       target=GPUTarget("cuda", arch, 32), options={"num_warps": case.num_warps})
    return k, sig


def predict(ttgir: str, ctas: int) -> dict[str, Any]:
    """The model's LSU wavefronts of one launch: ``{"ld", "st"}`` (``None`` where some operation is not modelled or
    sits in a loop) and the list of what is not modelled."""
    from layoutcheck.properties.ttgir_smem import smem_traffic

    ld = st = 0
    missing = [f"ttgir:{t.line} {t.subject}: {t.reason}" for t in smem_traffic(ttgir) if t.wavefronts is None]
    for t in smem_traffic(ttgir):
        if t.wavefronts is not None:
            if t.subject.startswith("local_load"):
                ld += t.wavefronts
            else:
                st += t.wavefronts
    if "scf.for" in ttgir or "scf.while" in ttgir:
        missing.append("a loop: operations inside run a data-dependent number of times")
    exact = not missing
    return {"ld": ld * ctas if exact else None, "st": st * ctas if exact else None,
            "ld_modelled": ld * ctas, "st_modelled": st * ctas, "not_modelled": missing}


def predict_ptx(ptx: str, case: TritonCase, params: list[str], cubin: bytes | None = None) -> dict[str, Any]:
    """The LSU wavefronts of one launch read off the kernel's PTX (``layoutcheck.properties.ptx_smem``: every CTA
    of the grid run, loops included): ``{"ld", "st"}`` (``None`` when the run could not finish) and what is not
    counted (cp.async, TMA, wgmma operand reads)."""
    from layoutcheck.properties.ptx_smem import ptx_traffic, totals

    scalars = {str(params.index(n)): v for n, v in case.scalars.items() if n in params}
    traffic = ptx_traffic(ptx, grid=case.grid, scalars=scalars, cubin=cubin)
    ld, st = totals(traffic)
    copies = [t for t in traffic if t.instruction.startswith("cp.async.") and ".bulk" not in t.instruction]
    hyp = sum(t.hypothesis for t in copies) if copies and all(t.hypothesis is not None for t in copies) else None
    return {"ld": ld, "st": st, "not_counted": sorted({t.reason for t in traffic if t.wavefronts is None}),
            "conflicted": sum(t.excess or 0 for t in traffic), "ldgsts_hypothesis": hyp}


def _launch() -> None:
    """Child body under ncu: each case once, in ``CASES`` order."""
    import cupy

    target = _target()
    keep = []
    for case in CASES:
        k, sig = _compile(case, target)
        args: list[Any] = []
        for name, ty in sig.items():  # every argument in order; the launcher skips the constexprs
            if ty.startswith("*"):
                keep.append(cupy.zeros(case.buffer_bytes, dtype=cupy.uint8))
                args.append(int(keep[-1].data.ptr))
            elif ty == "constexpr":
                args.append(case.constexprs[name])
            else:
                args.append(case.scalars.get(name, 0.0 if ty.startswith(("fp", "bf")) else 0))
        k[(*case.grid, 1, 1)[:3]](*args)
        cupy.cuda.runtime.deviceSynchronize()


def section_triton_ncu(out: Path) -> dict[str, Any]:
    """``triton_ncu`` (module docstring). ``ok``: every exact case's ld and st wavefronts equal ncu's counters."""
    from layoutcheck.gpu.tools import ncu_csv

    target = _target()
    preds = []
    for case in CASES:
        k, _ = _compile(case, target)
        ctas = 1
        for g in case.grid:
            ctas *= g
        params = [a for a, t in _compile(case, target)[1].items() if t != "constexpr"]
        ptx = predict_ptx(k.asm["ptx"], case, params, k.asm.get("cubin"))
        preds.append((case, str(k.name), predict(k.asm["ttgir"], ctas) | {"ptx": ptx}))
    names = sorted({name for _, name, _ in preds})
    measured, err = ncu_csv(out / "triton_ncu.csv", "|".join(names), list(METRICS),
                             "from layoutcheck.gpu.triton_ncu import _launch; _launch()")
    if err:
        return {"ok": False, "error": err[-800:]}
    seen: dict[str, int] = {}
    rows = []
    for case, name, pred in preds:
        i = seen.get(name, 0)
        seen[name] = i + 1
        launches = measured.get(name, [])
        m = launches[i] if len(launches) > i else {}
        exact = pred["ld"] is not None
        match = exact and m.get(METRIC_LD) == pred["ld"] and m.get(METRIC_ST) == pred["st"]
        px = pred["ptx"]
        ptx_exact = px["ld"] is not None
        ptx_match = ptx_exact and m.get(METRIC_LD) == px["ld"] and m.get(METRIC_ST) == px["st"]
        rows.append({"case": case.label, "kernel": name, "target": target, "model": pred, "ncu": m,
                     "exact": exact, "match": match, "ptx_exact": ptx_exact, "ptx_match": ptx_match})
        print(f"{case.label:<40} ttgir ld {pred['ld_modelled']} st {pred['st_modelled']}  ptx ld {px['ld']} st "
              f"{px['st']}  ncu ld {m.get(METRIC_LD)} st {m.get(METRIC_ST)}  "
              f"ttgir {'match' if match else ('MISMATCH' if exact else 'not exact')}, "
              f"ptx {'match' if ptx_match else ('MISMATCH' if ptx_exact else 'stopped')}"
              + (f"  ldgsts hypothesis {px['ldgsts_hypothesis']} ncu {m.get(METRIC_LDGSTS)}"
                 if px.get("ldgsts_hypothesis") is not None else ""), file=sys.stdout)
    (out / "triton_ncu.json").write_text(json.dumps(rows, indent=1, default=str))
    exact_rows = [r for r in rows if r["exact"]]
    ptx_rows = [r for r in rows if r["ptx_exact"]]
    import triton

    ok = bool(exact_rows) and all(r["match"] for r in exact_rows) and all(r["ptx_match"] for r in ptx_rows)
    return {"triton": triton.__version__, "ok": ok,
            "matched": sum(r["match"] for r in exact_rows), "of": len(exact_rows),
            "ptx_matched": sum(r["ptx_match"] for r in ptx_rows), "ptx_of": len(ptx_rows),
            "ptx_mismatches": {r["case"]: {"ptx": r["model"]["ptx"], "ncu": r["ncu"]} for r in ptx_rows
                               if not r["ptx_match"]},
            "ldgsts": {r["case"]: {"hypothesis": r["model"]["ptx"]["ldgsts_hypothesis"],
                                   "ncu": r["ncu"].get(METRIC_LDGSTS)}
                       for r in rows if r["model"]["ptx"].get("ldgsts_hypothesis") is not None},
            "recorded": {r["case"]: {"ncu": r["ncu"], "not_modelled": r["model"]["not_modelled"]}
                         for r in rows if not r["exact"]}, "rows": rows}


__all__ = ["CASES", "TritonCase", "predict", "predict_ptx", "section_triton_ncu"]
