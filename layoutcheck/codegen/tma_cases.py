"""A TMA-loaded swizzled tile consumed by ``mma.sync``: the proof of ``tma_compatible`` checked end to end on silicon.

``tma_mma_gemm_case(mode)`` generates ``kernels/tma_mma_gemm.cu`` for one K-major GMMA swizzle mode (INTER / SW32 /
SW64 / SW128): a 64x64x64 f16 -> f32 GEMM tile, ``m16n8k16`` tiled (2,2,1) over 4 warps (as ``mma_gemm``), whose
operands reach shared memory only through ``cp.async.bulk.tensor.2d`` boxes. One layout value per operand drives all
of it::

    smem = mma_smem_layout("K", swizzle, "float16", (64, 64))    # gmma_smem_atom("K", mode, 16) by tile_to_shape
    plan = plan_boxes("K", swizzle, "float16", (64, 64))          # the box, PROVEN tma_compatible with smem
    load q:   box origin  = grid(q) * box counts                  # grid = the boxes in colex order over the tile
              coordinates = origin, innermost (K) first           # -> cp.async.bulk.tensor.2d [tmap, {c0, c1}]
              destination = 2 * smem.layout(origin)               # unswizzled byte offset, as tma_compatible assumes
    ldmatrix: 2 * smem(tv_layout_A(row provider of lane) + k)     # swizzle included (the part shared with mma_gemm:
                                                                  # kernels.mma_tile_exprs, kernels/mma_sync_tile.cuh)

The host encodes each tensor map with ``cuTensorMapEncodeTiled`` (``tma_probe.encode``, ctypes on libcuda) from the
plan's ``TmaBox`` and the operand's device address. If TMA placed any element other than where the proof says, or
the proof were wrong about the hardware, ``ldmatrix`` would read a wrong element and C would differ from NumPy (the
inputs are small integers, so every product is exact).

Worked numbers (fp16, 64x64 tile, ``order="col"``): INTER 8 boxes of 64 rows x 16 B, SW32 4 of 64x32 B, SW64 2 of
64x64 B, SW128 1 of 64x128 B; load q of SW64 starts at K = 32q, smem byte 4096q.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.codegen.cases import (
    MMA_F16,
    KernelCase,
    MmaTileExprs,
    _to_np,
    gemm_check,
    mma_tile_exprs,
    small_int_operands,
)
from layoutcheck.codegen.render import render_template
from layoutcheck.expr.c import c_expr
from layoutcheck.expr.ir import Expr, add, const, mul, var
from layoutcheck.expr.lower import index_ast
from layoutcheck.hw.smem import normalize_mode
from layoutcheck.hw.swizzle_modes import MODES as SWIZZLE_MODES
from layoutcheck.hw.swizzle_modes import swizzle_mode
from layoutcheck.properties.tma import BoxPlan, plan_boxes

MODES: tuple[str, ...] = tuple(m.gmma for m in SWIZZLE_MODES)
"""The GMMA smem atom modes; the ``CUtensorMapSwizzle`` that writes each is ``swizzle_mode(m).name`` (PTX ISA 5.5.7;
docs/tma.md)."""


@dataclass(frozen=True, slots=True)
class BoxLoads:
    """The loads of one operand: load ``q`` (``0 <= q < count``) puts box ``plan.box`` with its origin at global
    coordinates ``(c0(q), c1(q))`` (innermost first) at smem byte ``dst(q)`` from the tile's (1024-B aligned) base."""

    plan: BoxPlan
    count: int
    c0: Expr
    c1: Expr
    dst: Expr


def box_loads(plan: BoxPlan, q: str = "q") -> BoxLoads:
    """Coordinates and destination of each load of ``plan``, as expressions of the load index ``q``.

    Pre: ``plan.layout`` is rank 2 over the tile, ``plan.modes`` maps its modes to box dims.
    Post: load ``q`` covers the box-sized block at tile coordinate ``origin(q)`` (blocks in colex order) with
    ``dst(q) = esize * (offset + layout(origin(q)))``: the convention under which ``tma_compatible`` was proven.

    >>> bl = box_loads(plan_boxes("K", "64B", "float16", (64, 64)))
    >>> bl.count, c_expr(bl.c0), c_expr(bl.dst)
    (2, '(q * 32u)', '(q * 4096u)')
    """
    lay = plan.layout
    inner = lay.layout if isinstance(lay, ComposedLayout) else lay
    offset = lay.offset if isinstance(lay, ComposedLayout) else 0
    modes = plan.modes
    tile = tuple(size(inner[i]) for i in range(len(modes)))
    block = tuple(plan.box.counts[d] for d in modes)
    grid = tuple(t // b for t, b in zip(tile, block, strict=True))
    count = int(np.prod(grid))
    qv = var(q, count)
    origin = [index_ast(Layout(grid, tuple(block[i] if j == i else 0 for j in range(len(grid)))), qv)
              for i in range(len(grid))]
    coord = [origin[modes.index(d)] for d in range(len(modes))]
    dst = mul(add(const(offset), index_ast(inner, tuple(origin))), plan.box.esize)
    return BoxLoads(plan, count, coord[0], coord[1], dst)


@dataclass(frozen=True, slots=True)
class TmaGemmExprs:
    """Every index expression of one ``tma_mma_gemm`` kernel (what ``tma_mma_gemm_case`` prints into the source): the
    box loads of A and B, and the ldmatrix / ``mma.sync`` / C-store part it shares with ``mma_gemm``."""

    mode: str
    loads_a: BoxLoads
    loads_b: BoxLoads
    tile: MmaTileExprs


def tma_gemm_exprs(mode: str, M: int = 64, N: int = 64, K: int = 64) -> TmaGemmExprs:
    """The kernel's index math from the layout objects: box plans of A and B, ldmatrix rows, accumulators, C.

    Pre: ``mode`` one of INTER/SW32/SW64/SW128 (or none/32B/64B/128B); M, N multiples of 32, K of 16 and of the atom.
    """
    m = normalize_mode(mode)
    sw = swizzle_mode(m).name
    pa, pb = plan_boxes("K", sw, "float16", (M, K)), plan_boxes("K", sw, "float16", (N, K))
    return TmaGemmExprs(m, box_loads(pa), box_loads(pb), mma_tile_exprs(pa.layout, pb.layout, M, N, K))


def _boxes_text(lo: BoxLoads) -> str:
    rows, w = lo.plan.box_bytes_shape
    return f"{lo.count} x {rows}x{w} B ({lo.plan.box.swizzle})"


def tma_mma_gemm_case(mode: str, M: int = 64, N: int = 64, K: int = 64) -> KernelCase:
    """The TMA -> swizzled smem -> ldmatrix -> ``mma.sync`` GEMM tile for one swizzle mode; C vs NumPy, exact."""
    e = tma_gemm_exprs(mode, M, N, K)
    la, lb, threads = e.loads_a, e.loads_b, e.tile.threads
    name = f"tma_mma_gemm_{e.mode.lower()}"
    tx = la.plan.box.box_bytes * la.count + lb.plan.box.box_bytes * lb.count
    src = render_template("tma_mma_gemm", {
        "KERNEL": name, "THREADS": threads, "SMEM_A_ELEMS": M * K, "SMEM_B_ELEMS": N * K,
        "SMEM_LAYOUT": f"A {la.plan.layout}, B {lb.plan.layout}",
        "BOXES": f"A {_boxes_text(la)}, B {_boxes_text(lb)}", "TX_BYTES": tx,
        "BOXES_A": la.count, "DST_A": c_expr(la.dst), "C0_A": c_expr(la.c0), "C1_A": c_expr(la.c1),
        "BOXES_B": lb.count, "DST_B": c_expr(lb.dst), "C0_B": c_expr(lb.c0), "C1_B": c_expr(lb.c1),
        **e.tile.params(), "DESCRIPTION": f"tiled MMA {MMA_F16} (2,2,1) over {M}x{N}x16"})
    gemm_inputs, gemm_compare = gemm_check(*small_int_operands(8, M, N, K, np.float16))

    def inputs(xp: Any) -> list[Any]:
        dA, dB, dC = gemm_inputs(xp)
        maps = xp.zeros(256, dtype=xp.uint8)  # two 128-B aligned CUtensorMap slots, filled by the GPU runner
        return [dA, dB, maps[0:128], maps[128:256], dC, xp.zeros(1, dtype=xp.uint32)]

    def compare(out: list[Any], xp: Any) -> tuple[int, int, str]:
        n, bad, note = gemm_compare(out[:1], xp)
        status = int(_to_np(out[1])[0])
        if status == 0:
            return n, bad, note
        return n, max(bad, 1), f"status {status} (1: mbarrier timeout, 2: misaligned)"

    config = (f"TMA ({la.count}+{lb.count} boxes, swizzle {la.plan.box.swizzle}) -> smem K-major {e.mode} "
              f"{la.plan.layout} -> ldmatrix.x4 -> m16n8k16 (2,2,1) {M}x{N}x{K}")
    return KernelCase("tma_mma_gemm", config, name, src, 1, threads, inputs, (4, 5), compare,
                      tensor_maps=((2, 0, la.plan.box), (3, 1, lb.plan.box)))


def tma_mma_gemm_cases() -> list[KernelCase]:
    """One case per K-major GMMA swizzle mode."""
    return [tma_mma_gemm_case(m) for m in MODES]
