"""Engine benchmark: time per engine on bijectivity of swizzled layouts, and the exhaustive engine's peak memory.

Run: ``python benchmarks/engines.py``. Prints one table row per (case, engine): verdict, wall time, peak traced
memory (NumPy allocations are traced by ``tracemalloc``).
"""

from __future__ import annotations

import time
import tracemalloc

from layoutcheck import ComposedLayout, Layout, Swizzle
from layoutcheck.properties import bijective
from layoutcheck.proving import prove

CASES = [
    ("Sw<3,4,3> o (64,64):(64,1)", ComposedLayout(Swizzle(3, 4, 3), 0, Layout((64, 64), (64, 1))),
     ("exhaustive", "linear", "z3", "sympy", "auto")),
    ("2^24: Sw<3,4,3> o (4096,4096):(4096,1)", ComposedLayout(Swizzle(3, 4, 3), 0, Layout((4096, 4096), (4096, 1))),
     ("exhaustive", "linear", "z3")),
    ("2^32: Sw<3,4,3> o (65536,65536):(65536,1)",
     ComposedLayout(Swizzle(3, 4, 3), 0, Layout((1 << 16, 1 << 16), (1 << 16, 1))), ("linear", "z3", "exhaustive")),
]


def run(layout: object, engine: str) -> tuple[str, float, float, str]:
    prop = bijective(layout)
    prove(prop, engine=engine) if engine != "exhaustive" else None  # warm imports outside the timing
    tracemalloc.start()
    t0 = time.perf_counter()
    res = prove(prop, engine=engine, timeout=60)
    dt = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return str(res.status), dt, peak / 2**20, res.engine if res.status.value != "UNKNOWN" else (res.reason or "")[:60]


def main() -> None:
    print(f"{'case':44} {'engine':11} {'verdict':8} {'time':>10} {'peak MiB':>9}  decided by / reason")
    for name, layout, engines in CASES:
        for eng in engines:
            status, dt, peak, note = run(layout, eng)
            print(f"{name:44} {eng:11} {status:8} {dt * 1e3:8.2f}ms {peak:9.1f}  {note}")


if __name__ == "__main__":
    main()
