"""Ragged-problem benchmark: the parametric proofs' times (Z3 over every size in a range) against the exhaustive
engine enumerating the same claim over a small range, as the reference ratio.

Run: ``python benchmarks/residue.py``. For each claim it prints the Z3 time for the full range (e.g. every M, N in
[1, 2^20], about 10^12 problem sizes), and for a small range both engines' times and their ratio (z3 / exhaustive;
below 1 means the symbolic proof is already cheaper than enumerating a few thousand sizes).
"""

from __future__ import annotations

import time

from layoutcheck import Layout, prove
from layoutcheck.models.residue import ResidueTiling
from layoutcheck.models.schedulers import TileScheduler
from layoutcheck.properties.residue import residue_cover, schedule_bijection

BIG = 1 << 20
TV_A = Layout(((32, 4), (8, 4)), ((1, 1024), (128, 32)))

RESIDUES = [
    ("A 128x32, cp.async tv", ResidueTiling(("M", "K"), (128, 32), tv=TV_A)),
    ("C 128x128, coord<shape", ResidueTiling(("M", "N"), (128, 128))),
    ("TMA box 64x64, zero fill", ResidueTiling(("M", "K"), (64, 64), predicate="tma")),
    ("C 128x128x32 (M,N,K)", ResidueTiling(("M", "N", "K"), (128, 128, 32))),
    ("broken: / for ceil_div", ResidueTiling(("M", "N"), (128, 128), count="div")),
]
SCHEDULERS = [
    ("plain", TileScheduler("plain")),
    ("swizzle log 3", TileScheduler("swizzle", log=3)),
    ("persistent grouped 8, 132 CTAs", TileScheduler("grouped", group=8, ctas=132)),
    ("split-K 4", TileScheduler("split_k", splits=4)),
    ("broken: dropped partial group", TileScheduler("grouped", group=8, ctas=132, drop_partial_group=True)),
]


def _run(prop, engine: str) -> tuple[str, float]:
    t = time.perf_counter()
    r = prove(prop, engine=engine, timeout=300)
    return r.status.value, time.perf_counter() - t


def main() -> None:
    print(f"{'claim':34s} {'full range':>22s} {'z3':>14s} | {'small range':>14s} {'exhaustive':>10s} {'z3':>8s} "
          f"{'ratio':>6s}")
    for label, tiling in RESIDUES:
        n = len(tiling.dims)
        small = tuple((1, 64) if n == 2 else (1, 4) for _ in range(n))
        v, tz = _run(residue_cover(tiling, tuple((1, BIG) for _ in range(n))), "z3")
        ve, te = _run(residue_cover(tiling, small), "exhaustive")
        vs, ts = _run(residue_cover(tiling, small), "z3")
        assert ve == vs, (label, ve, vs)
        print(f"{label:34s} {'sizes in [1,2^20]':>22s} {v:>8s} {tz:6.2f}s | {'[1,' + str(small[0][1]) + ']':>14s} "
              f"{te:9.2f}s {ts:7.2f}s {ts / te:6.3f}")
    for label, s in SCHEDULERS:
        grids = ((1, 65536), (1, 1)) if s.kind == "split_k" else ((1, 1024), (1, 1024))
        small = ((1, 256), (1, 1)) if s.kind == "split_k" else ((1, 24), (1, 24))
        v, tz = _run(schedule_bijection(s, grids), "z3")
        ve, te = _run(schedule_bijection(s, small), "exhaustive")
        vs, ts = _run(schedule_bijection(s, small), "z3")
        assert ve == vs, (label, ve, vs)
        full = "KT in [1,65536]" if s.kind == "split_k" else "grids in [1,1024]^2"
        print(f"{label:34s} {full:>22s} {v:>8s} {tz:6.2f}s | {str(small[0][1]) + 'x' + str(small[1][1]):>14s} "
              f"{te:9.2f}s {ts:7.2f}s {ts / te:6.3f}")


if __name__ == "__main__":
    main()
