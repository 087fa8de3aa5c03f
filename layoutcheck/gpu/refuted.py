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
    """(``confirmed`` | ``not confirmed``, detail) of one instantiated ``RefutedCase`` with a kernel on the GPU: an
    ownership kernel (owner and count maps) or a wgmma read-out (``C = A'``)."""
    import cupy

    from layoutcheck.codegen.refuted_cases import confirm, confirm_readout
    from layoutcheck.codegen.wgmma_cases import readout_c
    from layoutcheck.gpu.runner import compiled, fill_tensor_maps

    try:
        fn = compiled(rc.case)
        args = rc.case.inputs(cupy)
        fill_tensor_maps(rc.case, args)
        fn((rc.case.grid,), (rc.case.block,), tuple(args))
        cupy.cuda.runtime.deviceSynchronize()
        outs = [cupy.asnumpy(args[i]) for i in rc.case.outputs]
    except Exception as e:
        return "not confirmed", f"kernel failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    if rc.readout is not None and not rc.readout_dump and int(outs[1].reshape(-1)[0]) != 0:
        return "not confirmed", f"kernel status {int(outs[1].reshape(-1)[0])} (1: mbarrier timeout, 2: misaligned)"
    if rc.readout is not None:
        c = readout_c(outs[0], rc.readout[0].shape[1]) if rc.readout_dump else outs[0]
        ok, detail = confirm_readout(rc, c)
    else:
        ok, detail = confirm(rc.prediction, outs[0], outs[1], rc.witness)
    return ("confirmed" if ok else "not confirmed"), detail


def measure_bank_patterns(patterns: list[tuple[str, Any]], out: Path) -> list[int]:
    """ncu's shared-memory wavefronts of each ``(access kind, 32 lane addresses)`` on the bank probe kernel, in one
    ncu process (``gpu.probes.banks.run``; its files go to ``out/refuted_banks``)."""
    from layoutcheck.gpu.probes.banks import run

    work = out / "refuted_banks"
    work.mkdir(parents=True, exist_ok=True)
    return [int(r["measured"]) for r in run(work, patterns)]


def results(paths: list[str], device: str, run: Any = run_refuted_case, measure: Any = measure_bank_patterns,
            out: Path | None = None) -> dict[str, Any]:
    """The results document: one entry per REFUTED row (``run`` runs an ownership kernel, ``measure`` the bank
    patterns of every bank row at once; tests pass fakes)."""
    from layoutcheck.codegen.refuted_cases import confirm_banks, refuted_cases

    cases = refuted_cases(paths)
    banked = [rc for rc in cases if rc.bank_patterns]
    measured: dict[int, list[int]] = {}
    bank_error = ""
    if banked:
        flat = [(k, a) for rc in banked for k, a, _ in rc.bank_patterns]
        try:
            got = measure(flat, out if out is not None else Path("."))
        except Exception as e:  # ncu missing or failing: every bank row says so
            bank_error = f"ncu measurement failed: {type(e).__name__}: {' '.join(str(e).split())[:300]}"
        else:
            i = 0
            for rc in banked:
                measured[id(rc)] = got[i:i + len(rc.bank_patterns)]
                i += len(rc.bank_patterns)
    rows = []
    for rc in cases:
        if not rc.instantiated:
            gpu, detail = "not instantiable", rc.reason
        elif rc.bank_patterns:
            ok, detail = confirm_banks(rc, measured[id(rc)]) if not bank_error else (False, bank_error)
            gpu = "confirmed" if ok else "not confirmed"
        else:
            gpu, detail = run(rc)
        rows.append({"file": rc.file, "line": rc.line, "config": rc.config, "property": rc.property,
                     "status": "REFUTED", "gpu": gpu, "detail": detail,
                     "experiment": ("wgmma read-out" if rc.readout_dump else "TMA -> wgmma read-out")
                     if rc.readout is not None else
                     "ownership kernel" if rc.case is not None else
                     "bank probe under ncu" if rc.bank_patterns else None,
                     "kernel": rc.case.name if rc.case is not None else None,
                     "predicted_wrong": int(rc.prediction.wrong.size) if rc.prediction is not None else None,
                     "predicted_wavefronts": [w for _, _, w in rc.bank_patterns] or None,
                     "measured_wavefronts": measured.get(id(rc)),
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
    doc = results(ns.paths, device, out=Path(ns.json).resolve().parent)
    Path(ns.json).write_text(json.dumps(doc, indent=1))
    print(format_rows(doc))
    return 0 if doc["summary"]["not confirmed"] == 0 and doc["summary"]["confirmed"] else 1


if __name__ == "__main__":
    sys.exit(main())
