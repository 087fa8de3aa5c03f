"""Benchmark: ownership of an 8192x8192 tiled TV map checked end to end on the GPU (target < 2 s on an H100).

End to end = allocate the owner/count maps, run the generated ownership kernel (one 64x64 tile of the tiled
m16n8k16 C partition per CTA), and compare every element on the GPU with the fused one-pass compare kernel (the
oracle is the inverse layout's expression evaluated on the device: 8 B read per element, no oracle arrays). The
first compile is excluded (one warm-up run). Reports seconds and GB/s: the ownership kernel (12 B per element: owner
store + count atomic), the compare (8 B per element) against a device-to-device copy measured in the same run (the
reference) and against the HBM peak, and the previous compare (oracle maps built with ``Layout.offsets(xp=cupy)``).
The compare is timed two ways: ``compare`` is the whole ``case.compare`` call (launch, wait for the stream, read
the count its last CTA wrote to host-mapped memory), ``compare_kernel`` the fused kernel alone between two events.
``--sweep`` also times the kernel for other unroll factors (``-DLC_UNROLL``) and grid sizes.

The whole call cannot beat its fixed cost: ``roundtrip_s`` is the same call on an empty map (``n = 0``: the launch of
the full grid, the last CTA's report, the stream synchronisation and the mapped read), and ``call_bound_vs_peak`` the
best whole-call ratio a compare streaming at copy speed could reach, ``8n / (8n / copy + roundtrip) / peak``. The
whole call is also timed on the host (``perf_counter`` around it), once per repeat (``compare_runs_vs_peak``).

Usage: ``python benchmarks/gpu.py [N] [--repeats R] [--sweep]``; prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing


class _WithoutRawKernel:
    """CuPy without ``RawKernel``: makes ``compare`` take its previous path (oracle maps built on the device)."""

    def __init__(self, xp: object) -> None:
        self._xp = xp

    def __getattr__(self, name: str) -> object:
        if name == "RawKernel":
            raise AttributeError(name)
        return getattr(self._xp, name)


def _median_s(fn: object, repeats: int) -> float:
    """Median seconds of ``fn()`` between two CUDA events (after one untimed call)."""
    import cupy

    fn()
    times = []
    for _ in range(max(repeats, 3)):
        a, b = cupy.cuda.Event(), cupy.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(cupy.cuda.get_elapsed_time(a, b) / 1e3)
    return sorted(times)[len(times) // 2]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="?", type=int, default=8192)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sweep", action="store_true")
    args = ap.parse_args(argv)
    import cupy
    import numpy as np

    from layoutcheck.codegen.cases import COMPARE_BLOCK, MappedWord, big_ownership_case, compare_grid
    from layoutcheck.gpu.runner import compiled

    t_gen = time.perf_counter()
    case = big_ownership_case(args.n)
    gen_s = time.perf_counter() - t_gen
    fn = compiled(case)
    results = []
    for i in range(args.repeats + 1):  # run 0 is the warm-up (compile, CuPy kernels' first use)
        cupy.cuda.runtime.deviceSynchronize()
        t0 = time.perf_counter()
        out = case.inputs(cupy)
        k0, k1 = cupy.cuda.Event(), cupy.cuda.Event()
        k0.record()
        fn((case.grid,), (case.block,), tuple(out))
        k1.record()
        checked, bad, note = case.compare(out, cupy)
        cupy.cuda.runtime.deviceSynchronize()
        wall = time.perf_counter() - t0
        if i:
            results.append((wall, cupy.cuda.get_elapsed_time(k0, k1) / 1e3, checked, bad, note))
        del out
    wall, kern, checked, bad, note = sorted(results)[len(results) // 2]
    out = case.inputs(cupy)
    fn((case.grid,), (case.block,), tuple(out))
    fused = _median_s(lambda: case.compare(out, cupy), args.repeats)
    host_runs = []
    for _ in range(args.repeats):
        cupy.cuda.runtime.deviceSynchronize()
        t0 = time.perf_counter()
        case.compare(out, cupy)
        host_runs.append(time.perf_counter() - t0)
    host_oracle = _median_s(lambda: case.compare(out, _WithoutRawKernel(cupy)), args.repeats)
    src, dst = cupy.empty(2 * checked, cupy.uint32), cupy.empty(2 * checked, cupy.uint32)
    copy = _median_s(lambda: dst.data.copy_from_device(src.data, 8 * checked), args.repeats)
    props = cupy.cuda.runtime.getDeviceProperties(0)
    peak = 2 * props["memoryClockRate"] * 1e3 * props["memoryBusWidth"] / 8  # DDR: two transfers per clock
    compare_bw, copy_bw = 8 * checked / fused, 16 * checked / copy
    state, result = cupy.zeros(2, cupy.uint32), MappedWord(cupy)

    def kernel_s(unroll: int | None, grid: int) -> float:
        opts = ("-std=c++17",) + ((f"-DLC_UNROLL={unroll}",) if unroll else ())
        k = cupy.RawKernel(case.compare_source, f"{case.name}_compare", options=opts)
        return _median_s(lambda: k((grid,), (COMPARE_BLOCK,), (out[0], out[1], np.uint32(checked), state,
                                                                   result.device_pointer)),
                         args.repeats)

    wave = compare_grid(cupy)
    kern_only = kernel_s(None, wave)
    k0 = cupy.RawKernel(case.compare_source, f"{case.name}_compare", options=("-std=c++17",))

    def empty_call() -> None:
        k0((wave,), (COMPARE_BLOCK,), (out[0], out[1], np.uint32(0), state, result.device_pointer))
        result.read_after(cupy.cuda.get_current_stream())

    roundtrip = _median_s(empty_call, max(args.repeats, 21))
    bound = 8 * checked / (8 * checked / copy_bw + roundtrip) / peak
    sweep = {}
    if args.sweep:
        for unroll in (1, 2, 4):
            for grid in (wave, 2 * wave, props["multiProcessorCount"] * 16):
                sweep[f"unroll{unroll}_grid{grid}"] = round(8 * checked / kernel_s(unroll, grid) / 1e9, 1)
    rec = {"n": args.n, "elements": checked, "mismatches": bad, "note": note, "end_to_end_s": round(wall, 4),
           "kernel_s": round(kern, 5), "kernel_GBps": round(12 * checked / kern / 1e9, 1),
           "compare_s": round(fused, 5), "compare_GBps": round(compare_bw / 1e9, 1),
           "compare_kernel_s": round(kern_only, 6), "compare_kernel_GBps": round(8 * checked / kern_only / 1e9, 1),
           "compare_kernel_vs_peak": round(8 * checked / kern_only / peak, 2), "grid": wave,
           "copy_GBps_reference": round(copy_bw / 1e9, 1), "compare_vs_copy": round(compare_bw / copy_bw, 2),
           "hbm_peak_GBps": round(peak / 1e9, 1), "compare_vs_peak": round(compare_bw / peak, 2),
           "compare_runs_vs_peak": [round(8 * checked / t / peak, 3) for t in host_runs],
           "roundtrip_s": round(roundtrip, 7), "call_bound_vs_peak": round(bound, 3),
           "previous_compare_s": round(host_oracle, 5), "speedup_vs_previous": round(host_oracle / fused, 1),
           "generate_s": round(gen_s, 3), "device": props["name"].decode(), "sweep_GBps": sweep,
           "pass": bad == 0 and wall < 2.0 and compare_bw >= 0.8 * peak}
    print(json.dumps(rec))
    return 0 if rec["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
