"""Nsight Compute on kernels nvcc compiles (CUDA C++ and CuTe C++): the PTX road's wavefronts vs the hardware's.

One validation section, ``ptx_ncu``: each ``.cu`` of ``tests/data/ptx`` is compiled on the device with nvcc for its
architecture, to PTX (``-lineinfo``) and to a cubin from that same PTX (``ptxas``), so the prediction and the launch
use one compilation. The prediction is ``layoutcheck.properties.ptx_smem.ptx_traffic`` of the PTX with the cubin
checked against it (``importers.sass``): the ld / st wavefronts of every CTA of the launch, or "not exact" when the
SASS does not run the PTX's shared accesses one for one. Every kernel launches once under ncu (CuPy,
``RawModule`` of the cubin) and the section compares ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum``.

Needs a CUDA GPU, CuPy, nvcc, ncu; the kernels are read from the source tree (``ROOT / tests/data/ptx``) and the
CuTe headers from the ``nvidia-cutlass`` wheel (``cutlass_library/source/include``) when a kernel includes them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "ptx"
METRIC_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
METRIC_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"


@dataclass(frozen=True)
class PtxCase:
    """One kernel of a ``.cu`` file: its grid and block, and its arguments (``("buffer", bytes)`` for a device
    buffer, ``("int", value)`` for an int)."""

    source: str
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple[tuple[str, int], ...]


CASES: tuple[PtxCase, ...] = (
    PtxCase("transpose.cu", "transpose_naive", (2, 2, 1), (32, 8, 1), (("buffer", 64 * 64 * 4),
                                                                        ("buffer", 64 * 64 * 4), ("int", 64))),
    PtxCase("transpose.cu", "transpose_padded", (2, 2, 1), (32, 8, 1), (("buffer", 64 * 64 * 4),
                                                                         ("buffer", 64 * 64 * 4), ("int", 64))),
    PtxCase("cute_smem.cu", "smem_swizzled", (1, 1, 1), (128, 1, 1), (("buffer", 128 * 32 * 2), ("buffer", 512))),
    PtxCase("cute_smem.cu", "smem_plain", (1, 1, 1), (128, 1, 1), (("buffer", 128 * 32 * 2), ("buffer", 512))),
)


def _include() -> list[str]:
    """The CUTLASS include directory: ``LAYOUTCHECK_CUTLASS_INCLUDE`` if set, else the ``nvidia-cutlass`` wheel's."""
    import os

    if os.environ.get("LAYOUTCHECK_CUTLASS_INCLUDE"):
        return ["-I", os.environ["LAYOUTCHECK_CUTLASS_INCLUDE"]]
    try:
        import cutlass_library

        return ["-I", str(Path(cutlass_library.__file__).parent / "source" / "include")]
    except ImportError:
        return []


def compile_source(source: str, arch: str, out: Path) -> tuple[str, bytes]:
    """The PTX (``-lineinfo``) of ``tests/data/ptx/<source>`` and the cubin ``ptxas`` makes of that PTX."""
    out.mkdir(parents=True, exist_ok=True)
    stem = out / Path(source).stem
    subprocess.run(["nvcc", "-ptx", f"-arch={arch}", "-std=c++17", "-lineinfo", *_include(), str(DATA / source),
                    "-o", f"{stem}.ptx"], check=True, capture_output=True, timeout=600)
    subprocess.run(["ptxas", f"-arch={arch}", f"{stem}.ptx", "-o", f"{stem}.cubin"], check=True,
                   capture_output=True, timeout=600)
    return Path(f"{stem}.ptx").read_text(), Path(f"{stem}.cubin").read_bytes()


def predict(case: PtxCase, ptx: str, cubin: bytes) -> dict[str, Any]:
    from layoutcheck.properties.ptx_smem import ptx_traffic, totals

    traffic = ptx_traffic(ptx, grid=case.grid, entry=case.kernel, block=case.block, cubin=cubin)
    ld, st = totals(traffic)
    return {"ld": ld, "st": st, "conflicted": sum(t.excess or 0 for t in traffic),
            "not_counted": sorted({t.reason for t in traffic if t.wavefronts is None})}


def _launch(cubins: str) -> None:
    """Child body under ncu: each case once, in ``CASES`` order (``cubins``: JSON {source: cubin path})."""
    import cupy

    paths = json.loads(cubins)
    keep = []
    for case in CASES:
        fn = cupy.RawModule(path=paths[case.source]).get_function(case.kernel)
        args = []
        for kind, v in case.args:
            if kind == "buffer":
                keep.append(cupy.zeros(v, dtype=cupy.uint8))
                args.append(keep[-1])
            else:
                args.append(cupy.int32(v))
        fn(case.grid, case.block, tuple(args))
        cupy.cuda.runtime.deviceSynchronize()


def section_ptx_ncu(out: Path) -> dict[str, Any]:
    """``ptx_ncu`` (module docstring). ``ok``: every exact prediction equals ncu's ld and st wavefronts."""
    import cupy

    from layoutcheck.gpu.tools import ncu_csv

    cc = int(cupy.cuda.Device().compute_capability)
    arch = f"sm_{cc}a" if cc >= 90 else f"sm_{cc}"
    work = out / "ptx_ncu"
    built = {src: compile_source(src, arch, work) for src in dict.fromkeys(c.source for c in CASES)}
    preds = [(c, predict(c, *built[c.source])) for c in CASES]
    cubins = {src: str(work / f"{Path(src).stem}.cubin") for src in built}
    measured, err = ncu_csv(out / "ptx_ncu.csv", "|".join(sorted({c.kernel for c in CASES})), [METRIC_LD, METRIC_ST],
                            f"from layoutcheck.gpu.ptx_ncu import _launch; _launch({json.dumps(json.dumps(cubins))})")
    if err:
        return {"ok": False, "error": err[-800:]}
    rows = []
    for case, pred in preds:
        m = (measured.get(case.kernel) or [{}])[0]
        exact = pred["ld"] is not None
        match = exact and m.get(METRIC_LD) == pred["ld"] and m.get(METRIC_ST) == pred["st"]
        rows.append({"source": case.source, "kernel": case.kernel, "arch": arch, "model": pred, "ncu": m,
                     "exact": exact, "match": match})
        print(f"{case.source}::{case.kernel:<20} ptx ld {pred['ld']} st {pred['st']} (conflicts {pred['conflicted']})"
              f"  ncu ld {m.get(METRIC_LD)} st {m.get(METRIC_ST)}  "
              f"{'match' if match else ('MISMATCH' if exact else 'not exact')}", file=sys.stdout)
    (out / "ptx_ncu.json").write_text(json.dumps(rows, indent=1, default=str))
    exact_rows = [r for r in rows if r["exact"]]
    return {"ok": bool(exact_rows) and all(r["match"] for r in exact_rows),
            "matched": sum(r["match"] for r in exact_rows), "of": len(exact_rows), "cases": len(rows),
            "rows": rows}


# -- cp.async (LDGSTS): the write side's wavefronts, a hypothesis put to the hardware -------------------------------
COPY_METRICS = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum", "smsp__inst_executed_op_ldgsts.sum")
COPY_KERNELS = ("cg16_contiguous", "cg16_rows", "cg16_rows_swizzled", "cg16_half_rows", "ca8_contiguous", "ca8_rows",
                "ca4_contiguous", "ca4_skewed", "ca4_stride2", "ca4_rows")
COPY_CASES: tuple[PtxCase, ...] = tuple(
    PtxCase("cp_async.cu", name, (1, 1, 1), (128, 1, 1), (("buffer", 128 * 4 * 16), ("buffer", 64)))
    for name in COPY_KERNELS)


def predict_copies(case: PtxCase, ptx: str) -> dict[str, Any]:
    """The hypothesis (``properties.ptx_smem.copy_hypothesis``): wavefronts and ideal of every cp.async the launch
    runs, and how many warp-instructions."""
    from layoutcheck.importers.ptx import parse_ptx
    from layoutcheck.importers.ptx_run import shared_accesses
    from layoutcheck.properties.ptx_smem import copy_hypothesis

    k = parse_ptx(ptx, case.kernel)
    run = shared_accesses(k, case.grid, case.block)
    hyp = None if run.stopped or run.copy_unknown else copy_hypothesis(k, run.copies)
    return {"wavefronts": hyp[0] if hyp else None, "ideal": hyp[1] if hyp else None,
            "instructions": len(run.copies), "stopped": run.stopped}


def _launch_copies(cubin: str) -> None:
    """Child body under ncu: each copy case once."""
    import cupy

    mod = cupy.RawModule(path=cubin)
    for case in COPY_CASES:
        a, b = cupy.zeros(case.args[0][1], dtype=cupy.uint8), cupy.zeros(case.args[1][1], dtype=cupy.uint8)
        mod.get_function(case.kernel)(case.grid, case.block, (a, b))
        cupy.cuda.runtime.deviceSynchronize()


def section_ldgsts_ncu(out: Path) -> dict[str, Any]:
    """``ldgsts_ncu``: for each kernel of ``tests/data/ptx/cp_async.cu`` (16-byte .cg, 8- and 4-byte .ca copies to
    conflict-free, conflicting, swizzled and misaligned shared addresses), the hypothesis that an LDGSTS's shared
    write takes the wavefronts of ``st.shared`` of its width vs ncu's
    ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum``. ``ok``: equal for every kernel (then
    ``copy_hypothesis`` may become a counted fact; until then layoutcheck reports cp.async rows UNKNOWN)."""
    import cupy

    from layoutcheck.gpu.tools import ncu_csv

    cc = int(cupy.cuda.Device().compute_capability)
    arch = f"sm_{cc}a" if cc >= 90 else f"sm_{cc}"
    work = out / "ldgsts_ncu"
    ptx, _ = compile_source("cp_async.cu", arch, work)
    preds = [(c, predict_copies(c, ptx)) for c in COPY_CASES]
    measured, err = ncu_csv(out / "ldgsts_ncu.csv", "|".join(COPY_KERNELS), list(COPY_METRICS),
                            "from layoutcheck.gpu.ptx_ncu import _launch_copies; "
                            f"_launch_copies({json.dumps(str(work / 'cp_async.cubin'))})")
    if err:
        return {"ok": False, "error": err[-800:]}
    rows = []
    for case, pred in preds:
        m = (measured.get(case.kernel) or [{}])[0]
        match = pred["wavefronts"] is not None and m.get(COPY_METRICS[0]) == pred["wavefronts"]
        rows.append({"kernel": case.kernel, "arch": arch, "hypothesis": pred, "ncu": m, "match": match})
        print(f"cp_async.cu::{case.kernel:<20} hypothesis {pred['wavefronts']} (ideal {pred['ideal']}, "
              f"{pred['instructions']} LDGSTS)  ncu {m.get(COPY_METRICS[0])} (conflicts {m.get(COPY_METRICS[1])}, "
              f"{m.get(COPY_METRICS[2])} LDGSTS)  {'match' if match else 'MISMATCH'}", file=sys.stdout)
    (out / "ldgsts_ncu.json").write_text(json.dumps(rows, indent=1, default=str))
    return {"ok": all(r["match"] for r in rows), "matched": sum(r["match"] for r in rows), "of": len(rows),
            "rows": rows}


__all__ = ["CASES", "COPY_CASES", "PtxCase", "compile_source", "predict", "predict_copies", "section_ldgsts_ncu",
           "section_ptx_ncu"]
