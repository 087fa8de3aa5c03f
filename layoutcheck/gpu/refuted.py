"""Run the REFUTED configurations (``layoutcheck.codegen.refuted_cases``) on the GPU and say, per row, whether the
silicon does exactly what the counterexample says: ``confirmed``, ``not confirmed`` (with the first disagreement)
or ``not instantiable`` (why). Results go to a JSON file that ``check --html ... --gpu-results FILE`` reads.

    python -m layoutcheck.gpu.refuted [PATHS ...] [--json FILE]      (default paths: specs/broken specs/zoo)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PATHS = (str(ROOT / "specs" / "broken"), str(ROOT / "specs" / "zoo"))
SCHEMA = "layoutcheck-gpu-refuted/1"


def device_name() -> str:
    """The CUDA device's name (CuPy), e.g. ``NVIDIA H100 80GB HBM3``."""
    import cupy

    return cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()


def run_refuted_case(rc: Any) -> tuple[str, str]:
    """(``confirmed`` | ``not confirmed``, detail) of one instantiated ``RefutedCase`` on the GPU."""
    import cupy

    from layoutcheck.codegen.refuted_cases import confirm
    from layoutcheck.gpu.runner import compiled

    try:
        fn = compiled(rc.case)
        args = rc.case.inputs(cupy)
        fn((rc.case.grid,), (rc.case.block,), tuple(args))
        cupy.cuda.runtime.deviceSynchronize()
        owner, count = (cupy.asnumpy(args[i]) for i in rc.case.outputs)
    except Exception as e:
        return "not confirmed", f"kernel failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    ok, detail = confirm(rc.prediction, owner, count, rc.witness)
    return ("confirmed" if ok else "not confirmed"), detail


def results(paths: list[str], device: str, run: Any = run_refuted_case) -> dict[str, Any]:
    """The results document: one entry per REFUTED row (``run`` is the GPU step; tests pass a fake)."""
    from layoutcheck.codegen.refuted_cases import refuted_cases

    rows = []
    for rc in refuted_cases(paths):
        if rc.case is None:
            gpu, detail = "not instantiable", rc.reason
        else:
            gpu, detail = run(rc)
        rows.append({"file": rc.file, "line": rc.line, "config": rc.config, "property": rc.property,
                     "status": "REFUTED", "gpu": gpu, "detail": detail, "kernel": rc.case.name if rc.case else None,
                     "predicted_wrong": int(rc.prediction.wrong.size) if rc.prediction is not None else None,
                     "counterexample": rc.counterexample})
    return {"schema": SCHEMA, "device": device, "rows": rows,
            "summary": {k: sum(r["gpu"] == k for r in rows) for k in ("confirmed", "not confirmed",
                                                                      "not instantiable")}}


def format_rows(doc: dict[str, Any]) -> str:
    lines = [f"{r['gpu']:<16} {r['file']}:{r['line']} {r['config']} [{r['property']}] -- {r['detail']}"
             for r in doc["rows"]]
    s = doc["summary"]
    lines.append(f"{s['confirmed']} confirmed on {doc['device']}, {s['not confirmed']} not confirmed, "
                 f"{s['not instantiable']} not instantiable")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python3 -m layoutcheck.gpu.refuted",
                                 description="run the REFUTED configurations on the GPU")
    ap.add_argument("paths", nargs="*", default=list(DEFAULT_PATHS))
    ap.add_argument("--json", default="gpu-refuted.json", help="results file (for check --gpu-results)")
    ns = ap.parse_args(argv)
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
        device = device_name()
    except Exception as e:
        print(f"layoutcheck.gpu.refuted: no GPU (needs CuPy and a CUDA device: {type(e).__name__}: {e})",
              file=sys.stderr)
        return 2
    doc = results(ns.paths, device)
    Path(ns.json).write_text(json.dumps(doc, indent=1))
    print(format_rows(doc))
    return 0 if doc["summary"]["not confirmed"] == 0 and doc["summary"]["confirmed"] else 1


if __name__ == "__main__":
    sys.exit(main())
