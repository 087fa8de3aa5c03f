"""Run the ragged-problem kernel (``codegen.residue``) on the GPU and compare it element by element with the model.

``count`` holds ``M*N`` elements plus a guard as large as the rounded-up grid, filled with zeros: a correct kernel
counts every in-bounds element once and leaves the guard untouched (an unpredicated residue tile writes into it,
inside the allocation, so compute-sanitizer stays meaningful for the correct kernel:
``compute-sanitizer --tool memcheck python -m layoutcheck.gpu.residue``).
"""

from __future__ import annotations

import sys
from typing import Any

from layoutcheck.algebra.layout import Layout
from layoutcheck.codegen.residue import residue_kernel
from layoutcheck.models.residue import ResidueTiling

THREADS = 256
TV_C = Layout(((16, 16), (8, 8)), ((1, 128), (16, 2048)))  # (T256, V64) -> m + 128*n over a 128x128 tile


def run(tiling: ResidueTiling, m: int, n: int, threads: int = THREADS) -> dict[str, Any]:
    """Launch the kernel on an ``m x n`` problem; counts of in-bounds elements that are not 1, and guard writes."""
    import cupy as cp

    src = residue_kernel(tiling, threads)
    kernel = cp.RawKernel(src, "residue_count")
    grid = tiling.grid((m, n))
    gm, gn = (g * b for g, b in zip(grid, tiling.tile, strict=True))
    count = cp.zeros(m * n + gm * gn + 1, dtype=cp.uint32)
    if grid[0] and grid[1]:
        kernel((grid[0], grid[1]), (threads,), (count, cp.uint32(m), cp.uint32(n)))
    cp.cuda.runtime.deviceSynchronize()
    host = count.get()
    inside, guard = host[: m * n], host[m * n:]
    bad = (inside != 1).nonzero()[0]
    first = None if not bad.size else (int(bad[0]) % m, int(bad[0]) // m, int(inside[bad[0]]))
    return {"size": (m, n), "grid": grid, "wrong": int(bad.size), "first_wrong": first,
            "guard_writes": int(guard.sum()), "ok": not bad.size and not guard.any()}


def main(argv: list[str] | None = None) -> int:
    """The issue's case: 1000 x 1000 with 128 x 128 tiles, 256 threads x 64 values, plus other ragged sizes."""
    tiling = ResidueTiling(("M", "N"), (128, 128), tv=TV_C)
    ok = True
    for m, n in [(1000, 1000), (1, 1), (129, 255), (128, 128), (4097, 130)]:
        r = run(tiling, m, n)
        print(r)
        ok &= r["ok"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
