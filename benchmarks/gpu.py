"""Benchmark: ownership of an 8192x8192 tiled TV map checked end to end on the GPU (target < 2 s on an H100).

End to end = allocate the owner/count maps, run the generated ownership kernel (one 64x64 tile of the tiled
m16n8k16 C partition per CTA), build the oracle's owner and count maps on the GPU from ``Layout`` offsets, and
compare every element on the GPU. The first compile is excluded (one warm-up run). Reports seconds and GB/s
(bytes: the kernel's owner store + count atomic read/write, 12 B per element; and the whole check's traffic
estimate, 40 B per element).

Usage: ``python benchmarks/gpu.py [N] [--repeats R]``; prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="?", type=int, default=8192)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    import cupy

    from layoutcheck.codegen.cases import big_ownership_case
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
    rec = {"n": args.n, "elements": checked, "mismatches": bad, "note": note, "end_to_end_s": round(wall, 4),
           "kernel_s": round(kern, 5), "kernel_GBps": round(12 * checked / kern / 1e9, 1),
           "end_to_end_GBps": round(40 * checked / wall / 1e9, 1), "generate_s": round(gen_s, 3),
           "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(), "pass": bad == 0 and wall < 2.0}
    print(json.dumps(rec))
    return 0 if rec["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
