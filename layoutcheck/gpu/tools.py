"""The GPU tools as functions: one Nsight Compute run read back as metrics (``ncu_csv``), one source's SASS
opcodes counted (``sass_ops``, nvcc + cuobjdump). ``validate`` and ``smem_ncu`` both measure through these (neither
imports the other for them).
"""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tool_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")


def ncu_csv(log: Path, regex: str, metrics: list[str], body: str) -> tuple[dict[str, list[dict[str, float]]], str]:
    """Run ``body`` (python -c) under one ncu process; return ``{kernel: [{metric: value} per launch]}`` (launch
    order) and an error text."""
    cmd = ["ncu", "--csv", "--log-file", str(log), "--metrics", ",".join(metrics), "-k", f"regex:{regex}",
           "--cache-control", "none", "--clock-control", "none", sys.executable, "-c", body]
    log.unlink(missing_ok=True)
    p = subprocess.run(cmd, env=tool_env(), capture_output=True, text=True, timeout=300)
    if p.returncode != 0 or not log.exists():
        return {}, f"ncu exit {p.returncode}: {(p.stdout + p.stderr)[-800:]}"
    text = log.read_text()
    by_id: dict[tuple[str, int], dict[str, float]] = {}
    for r in csv.DictReader(io.StringIO(text[text.find('"ID"'):])):
        name = re.sub(r"\(.*", "", r.get("Kernel Name", ""))
        if r.get("Metric Name") in metrics:
            try:
                v = float(str(r["Metric Value"]).replace(",", ""))
            except ValueError:  # "n/a": ncu has no value of this metric for the launch; leave it out
                continue
            by_id.setdefault((name, int(r["ID"])), {})[r["Metric Name"]] = v
    measured: dict[str, list[dict[str, float]]] = {}
    for (name, _), vals in sorted(by_id.items(), key=lambda kv: kv[0][1]):
        measured.setdefault(name, []).append(vals)
    return measured, ""


SASS_SMEM_OPS = ("LDSM", "STSM", "LDS", "STS", "ATOMS", "SYNCS", "UTMALDG")
"""The shared-memory, mbarrier and TMA SASS opcodes ``sass_ops`` counts (in this order: ``LDSM`` before ``LDS``)."""


def sass_ops(name: str, source: str, out: Path, arch: str = "sm_90", extra: tuple[str, ...] = ("LDGSTS",)
              ) -> dict[str, int]:
    """Static counts of the ``SASS_SMEM_OPS`` and ``extra`` SASS instructions of one source (``nvcc -arch`` +
    cuobjdump); ``{"error": ...}`` when either fails."""
    src, cubin = out / f"{name}.cu", out / f"{name}.cubin"
    src.write_text(source)
    try:
        subprocess.run(["nvcc", f"-arch={arch}", "-cubin", "-o", str(cubin), str(src)], check=True, timeout=120,
                       capture_output=True)
        sass = subprocess.run(["cuobjdump", "-sass", str(cubin)], capture_output=True, text=True, timeout=60).stdout
    except Exception as e:
        return {"error": str(e)[:200]}  # type: ignore[dict-item]
    finally:
        src.unlink(missing_ok=True)
        cubin.unlink(missing_ok=True)
    ops = re.findall(rf"\b((?:{'|'.join((*SASS_SMEM_OPS, *extra))})(?:\.[A-Z0-9_]+)*)", sass)
    return {op: ops.count(op) for op in sorted(set(ops))}
