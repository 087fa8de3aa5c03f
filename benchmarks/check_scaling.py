"""Scaling of ``layoutcheck check`` in the number of configs: configs per second and peak memory, 10^2 to 10^6.

Run (the table in ``docs/benchmarks.md``)::

    python benchmarks/check_scaling.py [--max-log10 6] [-j 1] [--per-file 1000] [--reports] [--tree DIR]

Each size is one fresh ``check`` process on generated specs of light layout configs (four layouts, one or two
properties each: 4/3 checks per config on average), ``--per-file`` configs to a file (0: all in one file), timed
from outside with its CPU time (user + sys, the process and its workers) and peak RSS (``os.wait4``: the largest
process). ``--reports`` also writes the JSON and JUnit reports; ``--tree`` runs another checkout (e.g. ``main``) on
the same specs. Not a test: the numbers depend on the machine; on a shared machine read the CPU columns.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHAPES = ["(8,4):(4,1)", "(4,8):(1,4)", "((2,4),8):((1,16),2)", "(16,16):(16,1)"]
PROPS = ['["bijective"]', '["injective", "bijective"]', '[{ name = "bijective" }]']


def spec(n: int, start: int = 0) -> str:
    """``n`` light configs in one spec file (named from ``start``)."""
    parts = ["format = 1\n"]
    for i in range(start, start + n):
        parts.append(f'\n[[config]]\nname = "cfg_{i}"\nkind = "layout"\nlayout = "{SHAPES[i % 4]}"\n'
                     f"properties = {PROPS[i % 3]}\n")
    return "".join(parts)


def write_specs(directory: str, n: int, per_file: int) -> None:
    """``n`` configs in files of ``per_file`` (0: one file) under ``directory``."""
    per_file = per_file or n
    for k, start in enumerate(range(0, n, per_file)):
        Path(directory, f"s{k:06d}.toml").write_text(spec(min(per_file, n - start), start), encoding="utf-8")


def measure(path: str, jobs: str, tree: Path, reports: str | None) -> tuple[float, float, int, int]:
    """(wall s, cpu s, peak RSS KiB, exit code) of one ``check`` process (its workers' CPU included)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = ["--json", f"{reports}.json", "--junit", f"{reports}.xml"] if reports else []
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "layoutcheck", "check", "-q", "-j", jobs, path, *out], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)  # the workers are the child's children: counted in its rusage
    wall = time.perf_counter() - t0
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(status)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-log10", type=int, default=2)
    ap.add_argument("--max-log10", type=int, default=6)
    ap.add_argument("-j", default="1")
    ap.add_argument("--per-file", type=int, default=1000, help="configs per spec file (0: all in one file)")
    ap.add_argument("--reports", action="store_true", help="write the JSON and JUnit reports too")
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout to run (default: this one)")
    args = ap.parse_args(argv)
    print(f"tree {args.tree}, -j {args.j}, {args.per_file or 'all'} configs per file"
          f"{', JSON + JUnit reports' if args.reports else ''}; load average {os.getloadavg()[0]:.1f}")
    print("| configs | checks | wall | CPU | configs / s (wall) | configs / s (CPU) | peak RSS | exit |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in range(args.min_log10, args.max_log10 + 1):
        n = 10 ** k
        with tempfile.TemporaryDirectory() as d:
            specs = os.path.join(d, "specs")
            os.mkdir(specs)
            write_specs(specs, n, args.per_file)
            wall, cpu, rss, code = measure(specs, args.j, args.tree, os.path.join(d, "report") if args.reports
                                           else None)
        checks = sum(2 if i % 3 == 1 else 1 for i in range(n))
        print(f"| {n:,} | {checks:,} | {wall:.2f} s | {cpu:.2f} s | {n / wall:,.0f} | {n / cpu:,.0f} | "
              f"{rss / 1024:.0f} MiB | {code} |", flush=True)


if __name__ == "__main__":
    main()
