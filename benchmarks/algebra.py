"""Algebra benchmark: the same cases through layoutcheck and pycute in one run; median times and the ratio.

Run: ``python benchmarks/algebra.py``. Target: ratio (layoutcheck / pycute) <= 1.0 for every op, and whole-domain
evaluation of a rank-6 layout with 2^24 elements at >= 50 M elements/s using <= 16 bytes per element. The two sides
of an op alternate repeat by repeat (the machine is shared) and ``ratio`` is the median of the per-repeat ratios.
"""

from __future__ import annotations

import statistics
import time
import tracemalloc
from collections.abc import Callable

import layoutcheck as lc
from layoutcheck import Layout, size

try:
    import pycute
except ImportError:  # pragma: no cover
    pycute = None


def _time(fn: Callable[[], object], number: int) -> float:
    t = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t) / number


def paired_medians(ours: Callable[[], object], theirs: Callable[[], object], repeat: int = 9,
                   number: int = 200) -> tuple[float, float, float]:
    """Median time of each side and the median of the per-repeat ratios. The two sides alternate repeat by repeat,
    so a burst of load on the shared machine hits both columns alike."""
    a, b = [], []
    for _ in range(repeat):
        a.append(_time(ours, number))
        b.append(_time(theirs, number))
    return statistics.median(a), statistics.median(b), statistics.median(x / y for x, y in zip(a, b, strict=True))


def cases():
    A = ((128, 128), (128, 1))
    B = ((16, 4), (4, 1))
    T = (((4, 8), (2, 2)), ((32, 1), (16, 8)))
    C = (((6, 2), (8, 2)), ((4, 3), (3, 1)))
    yield "coalesce", lambda m: m.coalesce(m.Layout(((2, (1, 6)), (4, 2)), ((1, (6, 2)), (12, 48))))
    yield "composition", lambda m: m.composition(m.Layout(*C[0]), m.Layout(*C[1]))
    yield "complement", lambda m: m.complement(m.Layout(*B), 128)
    yield "right_inverse", lambda m: m.right_inverse(m.Layout(*T))
    yield "left_inverse", lambda m: m.left_inverse(m.Layout((4, 8), (8, 1)))
    yield "logical_divide", lambda m: m.logical_divide(m.Layout(128, 128), m.Layout(*B))
    yield "zipped_divide 2-D", lambda m: m.zipped_divide(m.Layout(*A), (m.Layout(*B), m.Layout(*B)))
    yield "logical_product", lambda m: m.logical_product(m.Layout((2, 2), (4, 1)), m.Layout(6, 1))


def main() -> None:
    rows = []
    for name, case in cases():
        if pycute is None:
            ours = statistics.median(_time(lambda case=case: case(lc), 200) for _ in range(9))
            rows.append((name, ours * 1e6, float("nan"), float("nan")))
            continue
        ours, theirs, ratio = paired_medians(lambda case=case: case(lc), lambda case=case: case(pycute))
        rows.append((name, ours * 1e6, theirs * 1e6, ratio))
    print(f"{'op':<20} {'layoutcheck us':>15} {'pycute us':>10} {'ratio':>7}")
    for name, o, t, r in rows:
        print(f"{name:<20} {o:>15.1f} {t:>10.1f} {r:>7.2f}")
    L = Layout((16, 16, 16, 16, 16, 16), (1, 4096, 16, 65536, 256, 1048576))
    L.offsets()
    times = []
    for _ in range(5):
        t = time.perf_counter()
        offs = L.offsets()
        times.append(time.perf_counter() - t)
        del offs
    dt = statistics.median(times)
    n = size(L)
    tracemalloc.start()
    L.offsets()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"\nwhole-domain evaluation {L}: {n} elements in {dt:.3f} s (median of 5) = {n / dt / 1e6:.1f} M "
          f"elements/s, peak {peak / n:.1f} bytes/element (pycute: Python loop, not comparable)")


if __name__ == "__main__":
    main()
