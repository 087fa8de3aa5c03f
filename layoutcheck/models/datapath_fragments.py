"""The register spaces of a data path (``models.datapath``): which thread holds which element of the CTA tile.

A ``Fragment`` is the tiled MMA's partition of an operand over the CTA tile (CuTe's ``thrfrg_A/B/C``), the cells a
tcgen05.ld delivers (``tmem_fragment``) or a tcgen05.mma's whole operand (``operand_fragment``). A thread copy
(``make_tiled_copy(atom, threads, values)``) is tiled over the CTA tile like a TiledMMA (``copy_tv``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.ops import composition
from layoutcheck.algebra.swizzle import shared_offsets
from layoutcheck.algebra.tiling import zipped_divide
from layoutcheck.algebra.tv import make_layout_tv
from layoutcheck.errors import LayoutError
from layoutcheck.models.datapath_values import (
    EpiloguePath,
    Fragment,
    OperandPath,
    Path,
    TmemRead,
    UmmaRead,
    WgmmaRead,
)
from layoutcheck.models.tiled_mma import TiledMMA
from layoutcheck.models.tmem import loads_cells

_THRFRG = {"A": (TiledMMA.thrfrg_A, "VMK"), "B": (TiledMMA.thrfrg_B, "VNK"), "C": (TiledMMA.thrfrg_C, "VMN")}


@lru_cache(maxsize=16)
def fragment(mma: TiledMMA, operand: str, tile: tuple[int, int], distinct: bool = False) -> Fragment:
    """The MMA's ``operand`` fragment over the CTA ``tile``: ``(thread, value) -> tile index`` (CuTe's
    ``thrfrg_X`` sliced at every thread's ``(v, (m, k))`` / ``(v, (n, k))`` / ``(v, (m, n))``); ``distinct``: one
    row per distinct fragment (a wgmma's shared-memory operand: every thread of a warpgroup "holds" the whole tile).

    >>> from layoutcheck.models.tiled_mma import make_tiled_mma
    >>> f = fragment(make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (1, 1, 1)), "A", (16, 16))
    >>> f.tile.shape, [int(x) for x in f.tile[1, :4]]  # lane 1: (m,k) = (0,2), (0,3), (8,2), (8,3)
    ((32, 8), [32, 48, 40, 56])
    """
    thrfrg, modes = _THRFRG[operand]
    frg = thrfrg(mma, Layout(tuple(tile)))
    thr_off = frg[0].offsets(np.int64)
    val_off = frg[1].offsets(np.int64)
    idx = {"V": 0, "M": 1, "N": 2, "K": 3}
    shape = [mma.thr_size(idx[c]) for c in modes]
    crd = mma.thr_coords()
    c = [crd[:, idx[m]] for m in modes]
    base = thr_off[c[0] + shape[0] * (c[1] + shape[1] * c[2])]
    keep = np.arange(base.size, dtype=np.int64)
    if distinct:  # equal thread offsets <=> equal fragments
        keep = np.sort(np.unique(base, return_index=True)[1]).astype(np.int64)
    tile_idx = base[keep][:, None] + val_off[None, :]
    tile_idx.setflags(write=False)
    keep.setflags(write=False)
    return Fragment(keep, tile_idx)


def copy_tv(threads: Layout, values: Layout, tile: tuple[int, int]) -> Layout:
    """``(thread, value) -> tile index`` of ``make_tiled_copy(atom, threads, values)`` repeated over the CTA ``tile``:
    values ordered (the copy tile's values, then the copy tiles colex).

    >>> str(copy_tv(Layout((2, 2), (2, 1)), Layout((1, 2)), (2, 8)))
    '((2,2),(2,(1,2))):((4,1),(2,(0,8)))'
    """
    tiler, tv = make_layout_tv(threads, values)
    if len(tiler) != 2 or any(t % c for t, c in zip(tile, tiler, strict=True)):
        raise LayoutError(f"the copy tile {tiler} of threads {threads} x values {values} does not divide the tile "
                          f"{tuple(tile)}")
    tiled = zipped_divide(Layout(tuple(tile)), (Layout(tiler[0]), Layout(tiler[1])))  # ((TM,TN),(RM,RN))
    tv_tile = composition(tiled, (tv, None))  # ((thr,val),(RM,RN))
    return Layout((tv_tile[0][0].shape, (tv_tile[0][1].shape, tv_tile[1].shape)),
                  (tv_tile[0][0].stride, (tv_tile[0][1].stride, tv_tile[1].stride)))



def inverse_table(layout: Layout) -> np.ndarray:
    """``inv[offset]`` = the index ``layout`` maps there (-1 where it maps nothing)."""
    offs = shared_offsets(layout, np.int64)
    inv = np.full(int(offs.max()) + 1, -1, dtype=np.int64)
    inv[offs] = np.arange(offs.size)
    return inv


@lru_cache(maxsize=8)
def tmem_cells(read: TmemRead) -> tuple[np.ndarray, np.ndarray]:
    """``(threads, cells[row, v])``: the TMEM cell (``lane + 128 * column``) value ``v`` of each thread reads, the
    loads of a warp taken in order (32-bit elements; a ``.pack::16b`` atom's register is two 16-bit values, the low
    halves of two adjacent columns, so its values are 16-bit)."""
    c = loads_cells(read.loads, 16 if read.loads[0].atom.endswith("_16b") else 32)
    thread = 32 * np.array([load.warp for load in read.loads], dtype=np.int64)[c["load"]] + c["thread"]
    order_key = c["load"] * (1 << 20) + c["element"]  # load, then element
    cell = c["lane"] + 128 * c["column"]
    threads, counts = np.unique(thread, return_counts=True)
    if np.any(counts != counts[0]):
        raise LayoutError("the tcgen05.ld loads give the threads different numbers of values")
    order = np.lexsort((order_key, thread))
    out = threads.astype(np.int64), cell[order].reshape(threads.size, -1).astype(np.int64)
    for a in out:
        a.setflags(write=False)
    return out


@lru_cache(maxsize=8)
def tmem_fragment(read: TmemRead) -> Fragment:
    """The registers the loads fill: ``tile[row, v]`` = the C element the epilogue *believes* value ``v`` holds (the
    ``assumed`` accumulator's element at the cell it reads; -1 for a cell outside it). Once per read (the hops and
    the tokens of a path all start from it): the arrays are read-only."""
    threads, cells = tmem_cells(read)
    inv = inverse_table(read.assumed if read.assumed is not None else read.accumulator)
    ok = cells < inv.size
    tile_idx = np.where(ok, inv[np.where(ok, cells, 0)], -1)
    tile_idx.setflags(write=False)
    return Fragment(threads, tile_idx)




def path_fragment(path: Path) -> Fragment:
    """The register space at the end (A, B) or start (C) of ``path``: one row per thread, or per warpgroup for a
    wgmma reading its operand from shared memory."""
    if isinstance(path, EpiloguePath) and path.tmem is not None:
        return tmem_fragment(path.tmem)
    if isinstance(path, OperandPath) and isinstance(path.read, UmmaRead):
        return operand_fragment(path.tile)
    if path.mma is None:
        raise LayoutError(f"the {path.operand} path needs the tiled MMA (the config's 'atom')")
    distinct = isinstance(path, OperandPath) and isinstance(path.read, WgmmaRead)
    return fragment(path.mma, path.operand, path.tile, distinct)


@lru_cache(maxsize=8)
def operand_fragment(tile: tuple[int, int]) -> Fragment:
    """A tcgen05.mma's shared-memory operand as a fragment: one row, value ``i`` = operand coordinate ``i``."""
    n = tile[0] * tile[1]
    f = Fragment(np.zeros(1, dtype=np.int64), np.arange(n, dtype=np.int64).reshape(1, n))
    f.threads.setflags(write=False)
    f.tile.setflags(write=False)
    return f


__all__ = [
    "copy_tv",
    "fragment",
    "inverse_table",
    "operand_fragment",
    "path_fragment",
    "tmem_cells",
    "tmem_fragment",
]
