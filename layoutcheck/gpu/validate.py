"""The one GPU validation run: every silicon check of layoutcheck in a single call, summary table last.

    python -m layoutcheck.gpu.validate OUT_DIR [--skip NAME ...]

Sections (each independent; one failing does not stop the others):

* ``kernels``    -- every generated kernel vs its oracle, element by element (``layoutcheck.gpu.runner``);
* ``kernel_ncu`` -- Nsight Compute shared-memory wavefronts of the warp-transpose kernels (XOR k = 0, 1, 2) vs the
  bank model's prediction computed from the same layout objects that generated the kernels' index math;
* ``banks``      -- the bank model vs ncu on >= 1300 single-instruction probes (``layoutcheck.gpu.bank_probe``);
* ``tma``        -- ``cuTensorMapEncodeTiled`` accept/reject vs the model, and real TMA loads vs the model's
  shared-memory image (``layoutcheck.gpu.tma_probe``);
* ``sanitizer``  -- compute-sanitizer memcheck and racecheck over every kernel.

Writes ``OUT_DIR/summary.json`` (and each section's own JSON); exit 0 when every section passed.
"""

from __future__ import annotations

import csv
import io
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..layout import Layout

ROOT = Path(__file__).resolve().parents[2]
METRIC_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
METRIC_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
PERMUTE_KS = (0, 1, 2)


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")


# -- sections ----------------------------------------------------------------------------------------------------
def section_kernels(out: Path) -> dict[str, Any]:
    from .runner import format_table, run_all

    rows = run_all(None, big=8192, repeats=3)
    table = format_table(rows)
    (out / "kernels.txt").write_text(table + "\n")
    print(table)
    return {"ok": all(r.ok for r in rows), "kernels": len(rows), "elements": sum(r.elements for r in rows),
            "mismatches": sum(r.mismatches for r in rows), "errors": sum(bool(r.error) for r in rows)}


def section_sanitizer(out: Path) -> dict[str, Any]:
    res: dict[str, Any] = {"ok": True}
    for tool in ("memcheck", "racecheck"):
        cmd = ["compute-sanitizer", "--tool", tool, "--error-exitcode", "9", sys.executable, "-m",
               "layoutcheck.gpu.runner", "--sanitize"]
        p = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=200)
        text = p.stdout + p.stderr
        (out / f"sanitizer_{tool}.txt").write_text(text)
        summary = [ln for ln in text.splitlines() if "SUMMARY" in ln]
        res[tool] = {"exit": p.returncode, "summary": summary[-1] if summary else "(no summary line)"}
        res["ok"] &= p.returncode == 0
    return res


def permute_prediction(k: int) -> tuple[int, int]:
    """Predicted (load, store) wavefronts of the whole ``permute_transpose_k{k}`` kernel from the bank model.

    The addresses come from the same layouts the kernel's index math was generated from (see
    ``layoutcheck.gpu.kernels.permute_case``): copy-in (sSrc[i] = src[i]; sDst[i] = 0), per stage P loads of
    ``src(lane, r ^ swz(lane), s)`` and P stores of ``dst(lane, r ^ swz(lane), s)``, copy-out.
    """
    from ..banks import wavefronts

    stages, rows, cols, shift = 2, 4, 32, 3
    elems, p = rows * cols * stages, rows * cols // 32
    src_l = Layout((cols, rows, stages), (1, cols, rows * cols))
    dst_l = Layout((cols, rows, stages), (rows, 1, rows * cols))
    lane = np.arange(32)
    s_src, s_dst = 0, elems * 4  # byte bases of the two __shared__ arrays (declared in this order)
    ld = st = 0
    for i in range(0, elems, 32):  # copy-in and zero-fill: lanes hit consecutive words
        st += wavefronts("sts32", s_src + 4 * (i + lane)) + wavefronts("sts32", s_dst + 4 * (i + lane))
        ld += wavefronts("lds32", s_dst + 4 * (i + lane))  # copy-out
    for s in range(stages):
        for r in range(p):
            j = r ^ ((lane >> shift) & ((1 << k) - 1))
            src = np.array([src_l(int(c), int(jj), s) for c, jj in zip(lane, j, strict=True)])
            dst = np.array([dst_l(int(c), int(jj), s) for c, jj in zip(lane, j, strict=True)])
            ld += wavefronts("lds32", s_src + 4 * src)
            st += wavefronts("sts32", s_dst + 4 * dst)
    return ld, st


def _launch_permutes() -> None:
    """Child body under ncu: one launch of each permute kernel."""
    from .kernels import permute_case
    from .runner import run_case

    for k in PERMUTE_KS:
        row = run_case(permute_case(xor_bits=k), repeats=0)
        if not row.ok:
            raise SystemExit(f"permute k={k} failed: {row.error or row.mismatches}")


def section_kernel_ncu(out: Path) -> dict[str, Any]:
    log = out / "kernel_ncu.csv"
    cmd = ["ncu", "--csv", "--log-file", str(log), "--metrics", f"{METRIC_LD},{METRIC_ST}", "-k",
           "regex:permute_transpose", "--cache-control", "none", "--clock-control", "none", sys.executable, "-c",
           "from layoutcheck.gpu.validate import _launch_permutes; _launch_permutes()"]
    p = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=300)
    if p.returncode != 0 or not log.exists():
        return {"ok": False, "error": f"ncu exit {p.returncode}: {(p.stdout + p.stderr)[-800:]}"}
    text = log.read_text()
    rows = csv.DictReader(io.StringIO(text[text.find('"ID"'):]))
    measured: dict[str, dict[str, float]] = {}
    for r in rows:
        name = re.sub(r"\(.*", "", r.get("Kernel Name", ""))
        if r.get("Metric Name") in (METRIC_LD, METRIC_ST):
            measured.setdefault(name, {})[r["Metric Name"]] = float(str(r["Metric Value"]).replace(",", ""))
    table = []
    for k in PERMUTE_KS:
        name = f"permute_transpose_k{k}"
        ld, st = permute_prediction(k)
        m = measured.get(name, {})
        table.append({"kernel": name, "model_ld": ld, "ncu_ld": m.get(METRIC_LD), "model_st": st,
                      "ncu_st": m.get(METRIC_ST), "match": m.get(METRIC_LD) == ld and m.get(METRIC_ST) == st,
                      "sass_shared": _sass_shared(k, out)})
    for t in table:
        print(f"{t['kernel']:<22} ld model {t['model_ld']:>4} ncu {t['ncu_ld']}   st model {t['model_st']:>4} "
              f"ncu {t['ncu_st']}   {'match' if t['match'] else 'MISMATCH'}")
    return {"ok": all(t["match"] for t in table), "kernels": table}


def _sass_shared(k: int, out: Path) -> dict[str, int]:
    """Count the shared-memory SASS instructions of the permute kernel (nvcc -cubin + cuobjdump), for diagnosis."""
    from .kernels import permute_case

    src = out / f"permute_k{k}.cu"
    src.write_text(permute_case(xor_bits=k).source)
    cubin = out / f"permute_k{k}.cubin"
    try:
        subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-o", str(cubin), str(src)], check=True, timeout=120,
                       capture_output=True)
        sass = subprocess.run(["cuobjdump", "-sass", str(cubin)], capture_output=True, text=True, timeout=60).stdout
    except Exception as e:
        return {"error": str(e)[:200]}  # type: ignore[dict-item]
    ops = re.findall(r"\b((?:LDS|STS)(?:\.[A-Z0-9]+)*)\b", sass)
    return {op: ops.count(op) for op in sorted(set(ops))}


def section_banks(out: Path) -> dict[str, Any]:
    from .bank_probe import run

    results = run(out)
    bad = [r for r in results if not r["match"]]
    for r in bad[:20]:
        print("MISMATCH", r["kind"], "measured", r["measured"], "model", r["model"], r["addrs"])
    kinds = sorted({r["kind"] for r in results})
    return {"ok": not bad, "patterns": len(results), "mismatches": len(bad), "kinds": len(kinds),
            "per_kind": {k: sum(r["kind"] == k for r in results) for k in kinds}}


def section_tma(out: Path) -> dict[str, Any]:
    from .tma_probe import run

    recs = run(out)
    s = recs[-1]
    for r in recs:
        if r.get("kind") == "encode" and r.get("in_model") and not r.get("agree"):
            print("TMA DISAGREE", r.get("driver_result"), r.get("model"), json.dumps(r.get("config")))
    ok = s["encode_disagreements"] == 0 and s["load_mismatched_elements"] == 0 and s["load_errors"] == 0
    return {"ok": ok, **{k: v for k, v in s.items() if k != "kind"}}


SECTIONS: dict[str, Callable[[Path], dict[str, Any]]] = {
    "kernels": section_kernels,
    "kernel_ncu": section_kernel_ncu,
    "banks": section_banks,
    "tma": section_tma,
    "sanitizer": section_sanitizer,  # last: the slowest, and the kernel cache is warm by then
}


def _device() -> dict[str, Any]:
    info: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "host": platform.node()}
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        info["gpu"] = q.stdout.strip()
        v = subprocess.run(["ncu", "--version"], capture_output=True, text=True, timeout=30)
        info["ncu"] = v.stdout.strip().splitlines()[-1] if v.stdout else "?"
        n = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, timeout=30)
        info["nvcc"] = n.stdout.strip().splitlines()[-1] if n.stdout else "?"
    except Exception as e:  # pragma: no cover - informational only
        info["error"] = str(e)
    return info


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    skip = set()
    while "--skip" in args:
        i = args.index("--skip")
        skip.add(args[i + 1])
        del args[i : i + 2]
    out = Path(args[0] if args else "gpu-validation-out")
    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {"device": _device(), "sections": {}}
    print(json.dumps(summary["device"]))
    for name, fn in SECTIONS.items():
        if name in skip:
            continue
        t0 = time.perf_counter()
        print(f"== {name}", flush=True)
        try:
            res = fn(out)
        except Exception as e:
            res = {"ok": False, "error": f"{type(e).__name__}: {str(e)[:500]}"}
        res["seconds"] = round(time.perf_counter() - t0, 1)
        summary["sections"][name] = res
        (out / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    print("\n== summary")
    print(f"{'section':<12} {'ok':<4} {'seconds':>8}  details")
    for name, res in summary["sections"].items():
        details = {k: v for k, v in res.items() if k not in ("ok", "seconds", "kernels", "per_kind")}
        print(f"{name:<12} {'yes' if res['ok'] else 'NO':<4} {res['seconds']:>8}  {json.dumps(details, default=str)}")
    return 0 if all(r["ok"] for r in summary["sections"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
