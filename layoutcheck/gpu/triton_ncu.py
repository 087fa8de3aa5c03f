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
METRICS = (METRIC_LD, METRIC_ST, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
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

    from layoutcheck.importers.triton_kernel import KernelSpec, load_kernel

    spec = KernelSpec(case.where, case.signature, case.constexprs, case.num_warps, 3, target)
    fn = load_kernel(spec)
    sig = {a: case.signature.get(a, "constexpr") for a in fn.arg_names}
    source_cls = ASTSource
    if type(fn).__module__.startswith("triton.experimental.gluon"):
        from triton.experimental.gluon._runtime import GluonASTSource

        source_cls = GluonASTSource
    arch = int(target.split(":")[1])
    k = triton.compile(source_cls(fn=fn, signature=sig, constexprs=case.constexprs),
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
                args.append(case.scalars.get(name, 0))
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
        preds.append((case, str(k.name), predict(k.asm["ttgir"], ctas)))
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
        rows.append({"case": case.label, "kernel": name, "target": target, "model": pred, "ncu": m,
                     "exact": exact, "match": match})
        print(f"{case.label:<40} model ld {pred['ld_modelled']} st {pred['st_modelled']}  ncu ld {m.get(METRIC_LD)} "
              f"st {m.get(METRIC_ST)}  {'match' if match else ('MISMATCH' if exact else 'not exact')}"
              + ("" if exact else f"  ({'; '.join(pred['not_modelled'])[:160]})"), file=sys.stdout)
    (out / "triton_ncu.json").write_text(json.dumps(rows, indent=1, default=str))
    exact_rows = [r for r in rows if r["exact"]]
    return {"ok": bool(exact_rows) and all(r["match"] for r in exact_rows),
            "matched": sum(r["match"] for r in exact_rows), "of": len(exact_rows),
            "recorded": {r["case"]: {"ncu": r["ncu"], "not_modelled": r["model"]["not_modelled"]}
                         for r in rows if not r["exact"]}, "rows": rows}


__all__ = ["CASES", "TritonCase", "predict", "section_triton_ncu"]
