"""Scaling of ``layoutcheck check`` in the number of configs: configs per second and peak memory, 10^2 to 10^6.

Run: ``python benchmarks/check_scaling.py [--max-log10 6] [-j 1]``; prints a Markdown table (the one in
``docs/benchmarks.md``). Each size is one fresh ``check`` process on one generated spec of light layout configs
(four layouts, one or two properties each: 4/3 checks per config on average), timed from outside with its CPU time
and peak RSS (``os.wait4``). Not a test: the numbers depend on the machine.
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


def spec(n: int) -> str:
    """``n`` light configs in one spec file."""
    parts = ["format = 1\n"]
    for i in range(n):
        parts.append(f'\n[[config]]\nname = "cfg_{i}"\nkind = "layout"\nlayout = "{SHAPES[i % 4]}"\n'
                     f"properties = {PROPS[i % 3]}\n")
    return "".join(parts)


def measure(path: str, jobs: str) -> tuple[float, float, int, int]:
    """(wall s, cpu s, peak RSS KiB, exit code) of one ``check`` process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "layoutcheck", "check", "-j", jobs, path], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(status)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-log10", type=int, default=6)
    ap.add_argument("-j", default="1")
    args = ap.parse_args(argv)
    print("| configs | checks | wall | CPU | configs / s (wall) | configs / s (CPU) | peak RSS | exit |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as d:
        for k in range(2, args.max_log10 + 1):
            n = 10 ** k
            path = os.path.join(d, f"n{n}.toml")
            Path(path).write_text(spec(n), encoding="utf-8")
            wall, cpu, rss, code = measure(path, args.j)
            checks = sum(2 if i % 3 == 1 else 1 for i in range(n))
            print(f"| {n:,} | {checks:,} | {wall:.2f} s | {cpu:.2f} s | {n / wall:,.0f} | {n / cpu:,.0f} | "
                  f"{rss / 1024:.0f} MiB | {code} |", flush=True)


if __name__ == "__main__":
    main()
