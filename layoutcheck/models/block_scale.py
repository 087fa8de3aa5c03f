"""Block-scaled MMA: which scale factor each operand element is multiplied by.

For ``kind::mxf8f6f4 / mxf4 / mxf4nvf4`` element ``(mn, k)`` of A (or B) is scaled by scale factor ``(mn, k // vec)``
(PTX ISA 9.7.16.10.7 'Block Scaling'; ``vec`` = 16 or 32 elements along K). CUTLASS stores scale factors in
128 x 4 "basic blocks" (``cutlass/detail/sm100_blockscaled_layout.hpp``, ``Sm1xxBlockScaledBasicChunk``)::

    SfKMajorAtom = ((32,4),(vec,4)):((16,4),(0,1))      (mn, k) -> scale-factor byte in the 512-byte block

(row ``mn = m0 + 32 m1`` at byte ``16 m0 + 4 m1``, K vector ``k1`` at byte ``k1``; the ``vec`` elements of one vector
have stride 0: they share one byte), tiled K-first over the problem (``tile_to_shape(SfAtom, (MN, K), Step<2,1>)``).
A scale layout is *sound* for an operand tile when it is constant on every K vector and injective on ``(mn, k // vec)``
-- the property ``ScaleOwnership`` of ``layoutcheck.properties.tmem``.

Two CTAs (``cta_group::2``): each CTA holds its own M/2 rows of A and their scales, N/2 columns of B -- but the MMA in
each CTA multiplies by B scale factors for *all* N columns, so B's scale tile must span the instruction's full N
(facebookexperimental/triton#3653: a 64-column tile made the MMA read ``b_scale[n % 64]``).

Named scale layouts (issue #27): ``scale_layout(name, mn, k, vec)`` is the whole operand's scale tensor as a CuTe
layout ``(mn, k) -> byte`` over element coordinates (stride 0 inside a K vector), for the names of
``layoutcheck.hw.block_scale.SCALE_LAYOUTS``: the 128 x 4 interleave is CUTLASS's ``tile_atom_to_shape_SFA``
(``tile_to_shape(SfAtom, (MN, K), Step<_2,_1>)``, modes rounded up to whole atoms as CuTe does for dynamic
extents), ``linear`` / ``linear_mn`` are ``(mn,(vec,KS)):(KS,(0,1))`` / ``(mn,(vec,KS)):(1,(0,mn))``.

Scale ownership under a tile scheduler: a CTA that computes output tile ``(m, n)`` multiplies rows ``m*BM ..`` of A
and columns ``n*BN ..`` of B, so it must read the scale rows of *those* tiles. A kernel that takes the scale tile from
its raw block index (``block_index_tile``: ``(blockIdx.x, blockIdx.y)`` of a 2-D launch, the linear index of a 1-D
or persistent one rastered column-major) reads another tile's scales whenever the scheduler reorders tiles.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.ops import composition
from layoutcheck.algebra.tiling import tile_to_shape
from layoutcheck.errors import LayoutError
from layoutcheck.hw.block_scale import (
    SCALE_LAYOUTS,
    SCALE_VECS,
    SF_ATOM_SHAPE,
    SF_ATOM_STRIDE,
    SF_BLOCK_K,
    SF_BLOCK_MN,
)
from layoutcheck.models.schedulers import TileScheduler

SF_BLOCK_K_VECTORS = SF_BLOCK_K
_SOURCE = "CUTLASS include/cutlass/detail/sm100_blockscaled_layout.hpp Sm1xxBlockScaledBasicChunk::SfKMajorAtom"


def sf_atom(vec: int) -> Layout:
    """CUTLASS's K-major scale-factor atom ``(128 mn, 4*vec k) -> byte`` (module docstring).

    >>> str(sf_atom(32))
    '((32,4),(32,4)):((16,4),(0,1))'
    """
    if vec not in (16, 32):
        raise LayoutError(f"scale vector size must be 16 or 32 elements, found {vec}")
    (rows, k_vectors), (row_strides, k_stride) = SF_ATOM_SHAPE, SF_ATOM_STRIDE
    return Layout((rows, (vec, k_vectors)), (row_strides, (0, k_stride)))


def sf_layout(mn: int, k: int, vec: int) -> Layout:
    """The scale-factor layout of an ``(mn, k)`` operand tile: the atom tiled K-blocks first (``Step<_2,_1>``).

    Pre: ``mn % 128 == 0`` and ``k % (4 * vec) == 0``. Post: constant on K vectors, injective on ``(mn, k // vec)``.
    """
    if mn % SF_BLOCK_MN or k % (SF_BLOCK_K_VECTORS * vec):
        raise LayoutError(f"scale-factor tile ({mn}, {k}): MN must be a multiple of {SF_BLOCK_MN} and K of "
                          f"{SF_BLOCK_K_VECTORS * vec} ({_SOURCE})")
    return tile_to_shape(sf_atom(vec), (mn, k), (2, 1))


def mma_scale_layout(operand: str, mma_m: int, mma_n: int, k: int, vec: int, cta_group: int = 1,
                     scale_extent: int | None = None) -> Layout:
    """The scale layout one CTA's MMA reads for ``operand``: ``(mn, k) -> byte`` over the rows (A: the CTA's
    ``mma_m / cta_group`` rows; B: all ``mma_n`` columns) of one MMA.

    ``scale_extent`` is how many rows/columns the kernel's scale tile actually spans (default: what the MMA reads);
    a smaller tile is read modulo its extent -- the hardware indexes the TMEM scale columns by ``mn`` within the
    tile it was given -- which reproduces facebookexperimental/triton#3653 (``b_scale[n % 64]``).

    >>> str(mma_scale_layout("B", 128, 128, 128, 32, 2, 64))
    '(((32,2),2),(32,4)):(((16,4),0),(0,1))'
    """
    if operand not in ("A", "B"):
        raise LayoutError(f"operand must be 'A' or 'B', found {operand!r}")
    reads = mma_m // cta_group if operand == "A" else mma_n
    ext = reads if scale_extent is None else scale_extent
    if reads % ext:
        raise LayoutError(f"scale tile of {ext} does not divide the {reads} {'rows' if operand == 'A' else 'columns'}"
                          " the MMA reads")
    full = sf_layout(SF_BLOCK_MN * -(-ext // SF_BLOCK_MN), k, vec)
    rows, ks = composition(full[0], Layout(ext)), composition(full[1], Layout(k))
    if reads > ext:  # the given tile's rows, read again for every further block: mn -> mn % ext
        rows = Layout((rows.shape, reads // ext), (rows.stride, 0))
    return Layout((rows.shape, ks.shape), (rows.stride, ks.stride))


# -- named scale layouts (issue #27) -----------------------------------------------------------------------------------
def _ceil(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True, slots=True)
class ScaleLayout:
    """The scale tensor of an ``mn x k`` operand with one scale per ``vec`` K elements, as ``layout``: element
    ``(mn, k)`` -> the byte of its scale (``layout`` may be padded past ``(mn, k)``; only ``mn x k`` is read).

    >>> s = scale_layout("128x4", 200, 320, 32)
    >>> str(s.layout), s.scales, s.byte(130, 33)
    ('((32,4,2),(32,4,3)):((16,4,1536),(0,1,512))', 10, 1569)
    """

    name: str
    mn: int
    k: int
    vec: int
    layout: Layout

    def __post_init__(self) -> None:
        if self.vec < 1:  # the named (MX / NVFP4) layouts take 16 or 32; a hand-written one any (blockwise FP8: 128)
            raise LayoutError(f"scale vector size must be >= 1 elements, found {self.vec}")
        if self.mn < 1 or self.k < 1:
            raise LayoutError(f"scale tensor of an {self.mn} x {self.k} operand: both extents must be >= 1")
        lay = self.layout
        if len(lay) != 2 or size(lay[0]) < self.mn or size(lay[1]) < self.k:
            raise LayoutError(f"scale layout {lay} does not cover an (MN, K) = ({self.mn}, {self.k}) operand")

    @property
    def scales(self) -> int:
        """Scale factors per row, ``KS = ceil(k / vec)``."""
        return _ceil(self.k, self.vec)

    def byte(self, m: int, k: int) -> int:
        """The byte of element ``(m, k)``'s scale."""
        return int(self.layout(m, k))

    def grid(self, g: int | None = None) -> np.ndarray:
        """``[mn, k // g]`` bytes of elements ``(m, j*g)`` (``g`` default ``vec``: one column per scale factor); a
        layout's offset is the sum of its modes' offsets, so this is the outer sum of the two modes' offsets."""
        g = self.vec if g is None else g
        rows = self.layout[0].offsets()[: self.mn]
        cols = self.layout[1].offsets()[: _ceil(self.k, g) * g: g]
        return rows[:, None] + cols[None, :]


def scale_layout(name: str, mn: int, k: int, vec: int) -> ScaleLayout:
    """The named scale layout (``hw.block_scale.SCALE_LAYOUTS``) of an ``mn x k`` operand.

    >>> str(scale_layout("linear", 4, 64, 16).layout)
    '(4,(16,4)):(4,(0,1))'
    """
    kind = SCALE_LAYOUTS.get(name)
    if kind is None:
        raise LayoutError(f"unknown scale layout {name!r}: expected one of {', '.join(SCALE_LAYOUTS)} or a CuTe "
                          "layout (mn, k) -> byte")
    if vec not in SCALE_VECS:
        raise LayoutError(f"scale vector size must be one of {SCALE_VECS} elements, found {vec}")
    if mn < 1 or k < 1:
        raise LayoutError(f"scale tensor of an {mn} x {k} operand: both extents must be >= 1")
    ks = _ceil(k, vec)
    if kind.form == "interleaved":
        padded = (SF_BLOCK_MN * _ceil(mn, SF_BLOCK_MN), SF_BLOCK_K * vec * _ceil(ks, SF_BLOCK_K))
        lay = tile_to_shape(sf_atom(vec), padded, (2, 1))
    elif kind.form == "row_major":
        lay = Layout((mn, (vec, ks)), (ks, (0, 1)))
    else:
        lay = Layout((mn, (vec, ks)), (1, (0, mn)))
    return ScaleLayout(name, mn, k, vec, lay)


# -- which tile's scales a scheduled CTA reads -------------------------------------------------------------------------
READS = ("scheduled", "block_index")
"""Where a kernel takes its scale tile from: the scheduler's tile, or the raw block index (``block_index_tile``)."""


def launch_indices(s: TileScheduler, gm: int, gn: int) -> list[tuple[int, ...]]:
    """Every launch index of a ``gm x gn`` grid, colexicographic (the first coordinate fastest)."""
    bounds = [int(b) for b in s.launch_bounds(gm, gn)]
    return [tuple(reversed(t)) for t in product(*(range(b) for b in reversed(bounds)))]


def block_index_tile(s: TileScheduler, idx: tuple[int, ...], gm: int, gn: int) -> tuple[int, int]:
    """The tile of launch index ``idx`` read *without* the scheduler, as a kernel that indexes by its raw block
    coordinates does: a 2-D launch (``swizzle``) takes ``(blockIdx.x, blockIdx.y)`` themselves as ``(m, n)`` (the
    bug of NVIDIA/cutlass#3394); a 1-D or persistent launch its linear index ``L`` (``b``; ``c + ctas*i``) rastered
    column-major, ``(L % gm, L // gm)``. Either may lie outside the grid.

    >>> swizzled, plain = TileScheduler("swizzle", log=1), TileScheduler("plain")
    >>> block_index_tile(swizzled, (3, 0), 2, 2), block_index_tile(plain, (3,), 2, 2)
    ((3, 0), (1, 1))
    """
    if s.kind == "swizzle":
        bx, by = idx
        return int(bx), int(by)
    lin = int(idx[0]) + (int(s.ctas) * int(idx[1]) if s.kind == "grouped" else 0)
    return lin % gm, lin // gm


def scale_tile(s: TileScheduler, idx: tuple[int, ...], gm: int, gn: int, reads: str) -> tuple[int, int]:
    """The tile whose scale rows (A) / columns (B) launch index ``idx`` reads."""
    if reads not in READS:
        raise LayoutError(f"reads must be one of {', '.join(READS)}, found {reads!r}")
    if reads == "block_index":
        return block_index_tile(s, idx, gm, gn)
    m, n, _ = s.tile(idx, gm, gn)
    return int(m), int(n)
