"""Scaling of every engine from 2^10 to 2^32 domain points: time, peak traced memory, verdict, and what the user sees
where an engine stops (UNKNOWN with its reason).

Run: ``python benchmarks/scaling.py [--max-log2 32] [--timeout S] [--memory BYTES]``; prints a Markdown table
(the one in ``docs/benchmarks.md``). Takes a few minutes: the exhaustive engine evaluates up to 2^30 points under
the default 2 GiB budget. Not a test: the numbers depend on the machine.

Workloads, chosen so that every engine that can decide them does (each row one ``prove(prop, engine=...)``):

- structural, linear, exhaustive, z3: ``bijective(Sw<3,4,3> o (R,C):(C,1))``, R x C = 2^k (the 128-byte swizzle
  over a row-major tile), and ``injective((3, 2^k/4):(1, 3))`` -- a non-power-of-two layout (linear declines it);
- sympy (its handlers are ``equivalent`` and ``in_bounds``): ``equivalent((R,C):(C,1), (R,(C/2,2)):(C,(1,C/2)))``.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable

from layoutcheck import ComposedLayout, Layout, Swizzle
from layoutcheck.engines.prove import prove
from layoutcheck.properties.base import Property
from layoutcheck.properties.layout import bijective, equivalent, injective


def swizzled(k: int) -> Property:
    cols = 1 << (k // 2)
    rows = 1 << (k - k // 2)
    return bijective(ComposedLayout(Swizzle(3, 4, 3), 0, Layout((rows, cols), (cols, 1))))


def non_pow2(k: int) -> Property:
    return injective(Layout((3, 1 << (k - 2)), (1, 3)))  # 3 * 2^(k-2) = 0.75 * 2^k points


def two_encodings(k: int) -> Property:
    cols = 1 << (k // 2)
    rows = 1 << (k - k // 2)
    return equivalent(Layout((rows, cols), (cols, 1)), Layout((rows, (cols // 2, 2)), (cols, (1, cols // 2))))


WORKLOADS: list[tuple[str, Callable[[int], Property], tuple[str, ...]]] = [
    ("bijective Sw<3,4,3> o (R,C):(C,1)", swizzled, ("structural", "linear", "exhaustive", "z3")),
    ("injective (3,2^k/4):(1,3)", non_pow2, ("structural", "linear", "exhaustive", "z3")),
    ("equivalent (R,C):(C,1) vs (R,(C/2,2))", two_encodings, ("sympy",)),
]


def run(prop: Property, engine: str, timeout: float, memory: int) -> tuple[str, float, int, str]:
    tracemalloc.start()
    t0 = time.perf_counter()
    res = prove(prop, engine=engine, timeout=timeout, memory_budget=memory)
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return res.status.value, dt, peak, " ".join((res.reason or "").split())


def _size(b: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 1 << shift:
            return f"{b / (1 << shift):.1f} {unit}"
    return f"{b} B"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-log2", type=int, default=32)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per proof (z3, sympy; exhaustive reports "
                                                                   "UNKNOWN after the fact)")
    ap.add_argument("--memory", type=int, default=2 << 30, help="exhaustive engine budget in bytes (default 2 GiB)")
    args = ap.parse_args(argv)
    for prop_fn in (swizzled, two_encodings):  # warm the engines' imports outside the timings
        for eng in ("structural", "linear", "z3", "sympy", "exhaustive"):
            prove(prop_fn(10), engine=eng)
    print("| workload | engine | points | verdict | time | peak memory | reason (UNKNOWN) |")
    print("|---|---|---|---|---|---|---|")
    for title, make, engines in WORKLOADS:
        for eng in engines:
            stopped = False
            for k in range(10, args.max_log2 + 1, 2):
                prop = make(k)
                if stopped:  # an engine past its limit stays past it: say so once, do not wait again
                    continue
                status, dt, peak, reason = run(prop, eng, args.timeout, args.memory)
                print(f"| {title} | {eng} | 2^{k} | {status} | {dt * 1e3:.1f} ms | {_size(peak)} | {reason[:110]} |",
                      flush=True)
                stopped = status == "UNKNOWN"


if __name__ == "__main__":
    main()
