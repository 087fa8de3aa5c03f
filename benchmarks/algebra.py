"""Algebra benchmark: the same cases through layoutcheck, pycute and the CuTe DSL in one run; times and ratios.

Run: ``python benchmarks/algebra.py``. Targets (issue #19): every op <= 0.5x pycute and <= 1.0x the CuTe DSL;
whole-domain evaluation (``Layout.offsets``) of a rank-6 layout with 2^24 elements no slower than a NumPy copy of its
output; per-element ``L(i)`` no slower than pycute. The layoutcheck and pycute sides alternate repeat by repeat (the
machine is shared) and their ``ratio`` is the median of the per-repeat ratios; times are CPU time of this thread
(``time.thread_time``), so other processes on the machine pre-empting it do not count. Each op is timed twice: on
inputs built beforehand (``op``: the op alone) and with its input layouts built in the timed call (``+ inputs``:
layoutcheck's ``Layout(shape, stride)`` validates, pycute's does not; the constructor has its own row). The CuTe DSL
evaluates static layouts while tracing a ``@cute.jit`` function, so its ops are timed inside one trace
(``dsl_times``), median of the repeats.
"""

from __future__ import annotations

import operator
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
    """CPU seconds of this thread per call (pre-emption by other processes on the shared machine not counted)."""
    t = time.thread_time()
    for _ in range(number):
        fn()
    return (time.thread_time() - t) / number


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
    """``(name, build)``: ``build(m)`` makes the inputs with module ``m`` (layoutcheck, pycute or the DSL) and returns
    ``(op, args)``."""
    A = ((128, 128), (128, 1))
    B = ((16, 4), (4, 1))
    T = (((4, 8), (2, 2)), ((32, 1), (16, 8)))
    C = (((6, 2), (8, 2)), ((4, 3), (3, 1)))
    yield "Layout(shape, stride)", lambda m: (m.Layout, (((2, (1, 6)), (4, 2)), ((1, (6, 2)), (12, 48))))
    yield "coalesce", lambda m: (m.coalesce, (m.Layout(((2, (1, 6)), (4, 2)), ((1, (6, 2)), (12, 48))),))
    yield "composition", lambda m: (m.composition, (m.Layout(*C[0]), m.Layout(*C[1])))
    yield "complement", lambda m: (m.complement, (m.Layout(*B), 128))
    yield "right_inverse", lambda m: (m.right_inverse, (m.Layout(*T),))
    yield "left_inverse", lambda m: (m.left_inverse, (m.Layout((4, 8), (8, 1)),))
    yield "logical_divide", lambda m: (m.logical_divide, (m.Layout(128, 128), m.Layout(*B)))
    yield "zipped_divide 2-D", lambda m: (m.zipped_divide, (m.Layout(*A), (m.Layout(*B), m.Layout(*B))))
    yield "logical_product", lambda m: (m.logical_product, (m.Layout((2, 2), (4, 1)), m.Layout(6, 1)))
    yield "blocked_product", lambda m: (m.blocked_product, (m.Layout((2, 2), (2, 1)), m.Layout((3, 4), (1, 3))))
    yield "left_inverse TV", lambda m: (m.left_inverse, (m.Layout(*T),))


def _op(build: Callable[[object], tuple], m: object) -> Callable[[], object]:
    """The op alone, on inputs built now."""
    fn, args = build(m)
    return lambda: fn(*args)


def _with_inputs(build: Callable[[object], tuple], m: object) -> Callable[[], object]:
    """Building the inputs and the op, in one call."""
    def go() -> object:
        fn, args = build(m)
        return fn(*args)
    return go


class _Dsl:
    """The CuTe DSL under the names the cases use (``Layout(shape, stride)``, the free functions)."""

    def __init__(self, cute: object) -> None:
        self._cute = cute

    def Layout(self, shape: object, stride: object = None) -> object:
        return self._cute.make_layout(shape, stride=stride)

    def __getattr__(self, name: str) -> object:
        return getattr(self._cute, name)


def _measure_all(m: object, names: list[str], fns: list[Callable[[object], object]], out: dict[str, float],
                 repeat: int, number: int) -> None:
    for name, build in zip(names, fns, strict=True):
        try:
            op = _op(build, m)
            op()
        except Exception:  # an op the DSL does not offer under this name
            continue
        out[name] = statistics.median(_time(op, number) for _ in range(repeat))


def dsl_times(names: list[str], fns: list[Callable[[object], object]], repeat: int = 9,
              number: int = 200) -> dict[str, float]:
    """Median seconds per call of each case under the CuTe DSL, timed inside one ``@cute.jit`` trace ({} without the
    DSL)."""
    try:
        import cutlass.cute as cute
    except ImportError:  # pragma: no cover
        return {}
    out: dict[str, float] = {}
    m = _Dsl(cute)

    @cute.jit
    def trace() -> None:
        _measure_all(m, names, fns, out, repeat, number)  # plain Python: the DSL rewrites only this body

    trace()
    return out


def main() -> None:
    rows = []
    named = list(cases())
    for name, build in named:
        try:
            _op(build, pycute)() if pycute is not None else None
            has_pycute = pycute is not None
        except Exception:  # pycute has no such op (blocked_product)
            has_pycute = False
        if not has_pycute:
            op = _op(build, lc)
            ours = statistics.median(_time(op, 200) for _ in range(9))
            rows.append((name, ours * 1e6, float("nan"), float("nan"), float("nan")))
            continue
        ours, theirs, ratio = paired_medians(_op(build, lc), _op(build, pycute))
        _, _, ratio_in = paired_medians(_with_inputs(build, lc), _with_inputs(build, pycute))
        rows.append((name, ours * 1e6, theirs * 1e6, ratio, ratio_in))
    per_element()
    whole_domain()
    # the DSL last: importing it creates millions of Python objects, which slows every later garbage collection
    dsl = dsl_times([n for n, _ in named], [c for _, c in named])
    print(f"\n{'op':<22} {'layoutcheck us':>15} {'pycute us':>10} {'vs pycute':>10} {'+ inputs':>9} "
          f"{'CuTe DSL us':>12} {'vs DSL':>7}")
    for name, o, t, r, ri in rows:
        d = dsl.get(name, float("nan")) * 1e6
        print(f"{name:<22} {o:>15.2f} {t:>10.2f} {r:>10.2f} {ri:>9.2f} {d:>12.1f} {o / d:>7.2f}")


def per_element() -> None:
    """``L(i)`` over a whole rank-4 nested layout, and ``L(c)`` for coordinates, against pycute (paired repeats)."""
    if pycute is None:
        return
    shape, stride = ((4, 8), (2, 2), 8), ((16, 1), (8, 64), 128)
    ours, theirs = Layout(shape, stride), pycute.Layout(shape, stride)
    n = size(ours)
    crd = ((1, 2), (1, 0), 3)
    _, _, r_idx = paired_medians(lambda: [ours(i) for i in range(n)], lambda: [theirs(i) for i in range(n)],
                                 number=20)
    _, _, r_crd = paired_medians(lambda: ours(crd), lambda: theirs(crd), number=2000)
    print(f"per-element L(i) over {ours}: {r_idx:.2f}x pycute; L(c) for a nested coordinate: {r_crd:.2f}x pycute "
          "(target <= 1.0)")


def whole_domain() -> None:
    """``offsets()`` of a rank-6 2^24 layout against a NumPy copy of its result: wall clock (the result is written by
    several threads when large, which thread CPU time would not count), copy and offsets interleaved; also with one
    thread (``algebra.layout._THREADS = 1``)."""
    import layoutcheck.algebra.layout as layout_module

    L = Layout((16, 16, 16, 16, 16, 16), (1, 4096, 16, 65536, 256, 1048576))
    ref = L.offsets()
    n = size(L)

    def wall(fn: Callable[[], object]) -> float:
        t = time.perf_counter()
        fn()
        return time.perf_counter() - t

    threads = layout_module._THREADS
    for label, k in ((f"up to {threads} threads", threads), ("one thread", 1)):
        layout_module._THREADS = k
        ours, copy = [], []
        for _ in range(15):
            ours.append(wall(L.offsets))
            copy.append(wall(ref.copy))
        dt, ratio = statistics.median(ours), statistics.median(map(operator.truediv, ours, copy))
        print(f"whole-domain evaluation {L} ({label}): {n} elements ({ref.dtype}) in {dt * 1e3:.1f} ms (median of "
              f"15, wall) = {n / dt / 1e6:.0f} M elements/s; a NumPy copy of the result "
              f"{statistics.median(copy) * 1e3:.1f} ms: ratio {ratio:.2f} (target <= 1.0)")
    layout_module._THREADS = threads
    tracemalloc.start()
    L.offsets()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"  peak {peak / n:.1f} bytes/element")


if __name__ == "__main__":
    main()
