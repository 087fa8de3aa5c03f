"""Engine benchmark: time per engine on bijectivity of swizzled layouts, on huge non-power-of-two layouts (only the
structural engine decides those; z3 is given a 1 s timeout), and the exhaustive engine's peak memory.

Run: ``python benchmarks/engines.py``. Prints one table row per (case, engine): verdict, wall time, peak traced
memory (NumPy allocations are traced by ``tracemalloc``).
"""

from __future__ import annotations

import time
import tracemalloc

from layoutcheck import ComposedLayout, Layout, Swizzle
from layoutcheck.engines.prove import prove
from layoutcheck.properties.base import Property
from layoutcheck.properties.layout import bijective, injective

HUGE = Layout((1000000, 1000000), (1, 1000000))
CASES = [
    ("Sw<3,4,3> o (64,64):(64,1)", ComposedLayout(Swizzle(3, 4, 3), 0, Layout((64, 64), (64, 1))),
     ("exhaustive", "structural", "linear", "z3", "sympy", "auto")),
    ("2^24: Sw<3,4,3> o (4096,4096):(4096,1)", ComposedLayout(Swizzle(3, 4, 3), 0, Layout((4096, 4096), (4096, 1))),
     ("exhaustive", "structural", "linear", "z3")),
    ("2^32: Sw<3,4,3> o (65536,65536):(65536,1)",
     ComposedLayout(Swizzle(3, 4, 3), 0, Layout((1 << 16, 1 << 16), (1 << 16, 1))),
     ("structural", "linear", "z3", "exhaustive")),
    ("10^12: (10^6,10^6):(1,10^6) [bijective]", HUGE, ("structural", "z3", "auto")),
    ("10^12: (10^6,10^6):(1,10^6) [injective]", injective(HUGE), ("structural", "z3", "auto")),
    ("9*2^30: (3,3,2^30):(2,3,16) [injective]", injective(Layout((3, 3, 1 << 30), (2, 3, 16))),
     ("structural", "z3")),
]
TIMEOUT = {"z3": 1.0}  # z3 cannot decide the huge non-power-of-two cases: show that it gives up on time


def run(subject: object, engine: str) -> tuple[str, float, float, str]:
    prop = subject if isinstance(subject, Property) else bijective(subject)
    timeout = TIMEOUT.get(engine, 60)
    prove(prop, engine=engine, timeout=timeout) if engine != "exhaustive" else None  # warm imports outside timing
    tracemalloc.start()
    t0 = time.perf_counter()
    res = prove(prop, engine=engine, timeout=timeout)
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
