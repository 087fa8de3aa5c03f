"""Engine benchmark: time per engine on bijectivity of swizzled layouts, on huge non-power-of-two layouts (only the
structural engine decides those; z3 is given a 1 s timeout), and the exhaustive engine's peak memory.

Run: ``python benchmarks/engines.py``. Prints one table row per (case, engine): verdict, wall time, peak traced
memory (NumPy allocations are traced by ``tracemalloc``).
"""

from __future__ import annotations

import statistics
import time
import tracemalloc

import numpy as np

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


def plain_numpy_bijective(rows: int, cols: int) -> bool:
    """The reference: bijectivity of ``Sw<3,4,3> o (rows,cols):(cols,1)`` in plain NumPy -- int32 offsets built in
    one buffer, the swizzle XORed in place, a uint8 "seen" array."""
    offs = np.empty((cols, rows), np.int32)  # [c, r]: index r + rows*c -> offset cols*r + c
    np.add(np.arange(cols, dtype=np.int32)[:, None], np.arange(0, rows * cols, cols, dtype=np.int32)[None, :], out=offs)
    offs = offs.reshape(-1)
    tmp = offs & np.int32(0b111 << 7)
    tmp >>= 3
    offs ^= tmp
    del tmp
    seen = np.zeros(rows * cols, np.uint8)
    seen[offs] = 1
    return bool(seen.all())


def memory_order_numpy_bijective(rows: int, cols: int) -> bool:
    """The stronger reference (issue #29): the same, its offsets built in memory order ([r, c]: offset cols*r + c),
    so the scatter into "seen" walks memory nearly sequentially."""
    offs = np.empty((rows, cols), np.int32)
    np.add(np.arange(0, rows * cols, cols, dtype=np.int32)[:, None], np.arange(cols, dtype=np.int32)[None, :], out=offs)
    offs = offs.reshape(-1)
    tmp = offs & np.int32(0b111 << 7)
    tmp >>= 3
    offs ^= tmp
    del tmp
    seen = np.zeros(rows * cols, np.uint8)
    seen[offs] = 1
    return bool(seen.all())


def measure(fn: object) -> tuple[float, int]:
    tracemalloc.start()
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return dt, peak


def versus_reference(repeat: int = 5, log2: int = 24) -> None:
    """The exhaustive engine against the plain-NumPy references (index order, memory order), paired repeat by repeat
    (targets: time ratio <= 1.2 against the memory-order one, <= 12 bytes per point)."""
    side = 1 << (log2 // 2)
    prop = bijective(ComposedLayout(Swizzle(3, 4, 3), 0, Layout((side, side), (side, 1))))
    n = side * side
    ours, ref, mem = [], [], []
    for _ in range(repeat):
        ours.append(measure(lambda: prove(prop, engine="exhaustive", timeout=600)))
        ref.append(measure(lambda: plain_numpy_bijective(side, side)))
        mem.append(measure(lambda: memory_order_numpy_bijective(side, side)))
    for name, other in (("index-order", ref), ("memory-order", mem)):
        ratio = statistics.median(a[0] / b[0] for a, b in zip(ours, other, strict=True))
        t_ours, t_ref = statistics.median(t for t, _ in ours), statistics.median(t for t, _ in other)
        print(f"exhaustive bijective, 2^{log2} swizzled: {t_ours * 1e3:.0f} ms, "
              f"{max(p for _, p in ours) / n:.2f} B/point; {name} NumPy {t_ref * 1e3:.0f} ms, "
              f"{max(p for _, p in other) / n:.2f} B/point; time ratio {ratio:.2f} (target <= 1.2)")


def main() -> None:
    print(f"{'case':44} {'engine':11} {'verdict':8} {'time':>10} {'peak MiB':>9}  decided by / reason")
    for name, layout, engines in CASES:
        for eng in engines:
            status, dt, peak, note = run(layout, eng)
            print(f"{name:44} {eng:11} {status:8} {dt * 1e3:8.2f}ms {peak:9.1f}  {note}")
    print()
    for log2 in (24, 28):
        versus_reference(log2=log2, repeat=5 if log2 < 28 else 3)


if __name__ == "__main__":
    main()
