"""Where ``layoutcheck check specs/`` spends its time: imports, planning, each kind of unit (cold and warm), shutdown.

Target (issue #19): the whole command <= 0.5 s on 2 cores, interpreter start included (``benchmarks/cli.py`` times the
command). This script splits it into stages, each the best of ``--repeat`` fresh processes (so first-use costs --
building a hardware table, importing the engines -- land in the stage that pays them, as in a real run):

    imports    cli, check, engines.prove, spec.bind (NumPy included)
    plan       collecting and loading every spec file (TOML, CuTe notation, value checks)
    light      the configs whose claims are layout proofs (every kind but the three below)
    range      ``residue`` / ``scheduler`` configs (claims over every problem size: Z3)
    datapath   ``datapath`` configs (whole-kernel token traces)
    shutdown   from the end of ``main`` to the process's exit (interpreter finalization): what the ``layoutcheck``
               command no longer pays (``cli.entry`` leaves ``check`` with ``os._exit``), so not in the sum

Units run in plan order (as ``check -j 1`` runs them) and then again (``warm``: every per-config cache hit; not what a
run pays). Run: ``python benchmarks/startup.py [--repeat 7] [paths...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONPATH": str(REPO)}
"""Bytecode caches written and used, as in an installed package."""

RANGE_KINDS = ("residue", "scheduler")

_STAGES = r"""
import json, sys, time
t0 = time.perf_counter()
import layoutcheck.cli, layoutcheck.check, layoutcheck.engines.prove, layoutcheck.spec.bind
t1 = time.perf_counter()
from layoutcheck.check import _load, plan, run_unit
p = plan(PATHS)
t2 = time.perf_counter()
out = {"imports": t1 - t0, "plan": t2 - t1}
for rnd in ("cold", "warm"):
    for u in p.units:
        kind = _load(u.file).configs[u.index].kind
        group = "datapath" if kind == "datapath" else "range" if kind in RANGE else "light"
        s = time.perf_counter()
        run_unit(u)
        key = f"{group} {rnd}"
        out[key] = out.get(key, 0.0) + time.perf_counter() - s
print(json.dumps(out))
"""

_SHUTDOWN = r"""
import sys, time
from layoutcheck.cli import main
main(["check", "-q", *PATHS])
sys.stdout.flush()
sys.stderr.write(repr(time.time()) + "\n")
"""


def stages(paths: list[str]) -> dict[str, float]:
    """Seconds per stage of one fresh process."""
    code = _STAGES.replace("PATHS", repr(paths)).replace("RANGE", repr(RANGE_KINDS))
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=ENV, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def shutdown(paths: list[str]) -> float:
    """Seconds from the end of ``main(["check", ...])`` to the exit of its process."""
    code = _SHUTDOWN.replace("PATHS", repr(paths))
    p = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=ENV, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, check=False)
    return time.time() - float(p.stderr.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=["specs/"])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    stages(args.paths)  # writes the bytecode caches
    best: dict[str, float] = {}
    for _ in range(args.repeat):
        for k, v in stages(args.paths).items():
            best[k] = min(best.get(k, v), v)
        best["shutdown"] = min(best.get("shutdown", 1e9), shutdown(args.paths))
    print(f"best of {args.repeat} fresh processes, ms:")
    for k, v in best.items():
        print(f"  {k:14s} {1e3 * v:7.1f}")
    cold = ("imports", "plan", "light cold", "range cold", "datapath cold")  # shutdown: skipped by cli.entry
    print(f"  {'sum (cold)':14s} {1e3 * sum(best.get(k, 0.0) for k in cold):7.1f}  (+ interpreter start)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
