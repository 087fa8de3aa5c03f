"""Spec loading in the number of configs (issue #29: a 70k-config spec loaded in < 3 s, progress within 1 s).

    python benchmarks/load.py [--configs 10000,40000,70000] [--repeat 3] [--tree DIR]

Per size, one generated spec file of light layout configs (``check_scaling.spec``: ~110 bytes a config) and two kinds
of fresh process, each the best of ``--repeat``:

* ``load``: ``load_spec(FILE)``, interpreter and imports included, timed from outside: wall, CPU (user + sys,
  ``os.wait4``) and peak RSS. Linear loading means CPU per config flat across the sizes.
* ``progress``: ``check --progress -j 1 FILE``: the wall time from the start to the first byte of its progress bar on
  stderr (the run is then stopped).

Not a test: the numbers depend on the machine; on a shared machine read the CPU column.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_scaling import spec

ROOT = Path(__file__).resolve().parents[1]


def timed_load(path: str, tree: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS KiB) of a fresh process that loads ``path``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    code = f"from layoutcheck.spec.load import load_spec; assert load_spec({path!r}).configs"
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=tree)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"loading {path} failed")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def first_progress(path: str, tree: Path) -> float:
    """Seconds from the start of ``check --progress`` to the first byte it writes on stderr."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "layoutcheck", "check", "--progress", "-j", "1", path],
                            env=env, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    proc.stderr.read(1)
    took = time.perf_counter() - t0
    proc.kill()
    proc.wait()
    return took


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", default="10000,40000,70000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout to run (default: this one)")
    args = ap.parse_args(argv)
    print(f"tree {args.tree}, best of {args.repeat}; load average {os.getloadavg()[0]:.1f}")
    print("| configs | MB | load wall | load CPU | CPU / config | peak RSS | first progress |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as d:
        for n in (int(x) for x in args.configs.split(",")):
            path = str(Path(d, f"load_{n}.toml"))
            Path(path).write_text(spec(n), encoding="utf-8")
            runs = [timed_load(path, args.tree) for _ in range(args.repeat)]
            wall, cpu, rss = min(r[0] for r in runs), min(r[1] for r in runs), min(r[2] for r in runs)
            bar = min(first_progress(path, args.tree) for _ in range(args.repeat))
            print(f"| {n:,} | {os.path.getsize(path) / 1e6:.1f} | {wall:.2f} s | {cpu:.2f} s | "
                  f"{cpu / n * 1e6:.0f} us | {rss // 1024} MiB | {bar:.2f} s |", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
