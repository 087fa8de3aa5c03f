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
"""

from __future__ import annotations

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.ops import composition
from layoutcheck.algebra.tiling import tile_to_shape
from layoutcheck.errors import LayoutError

SF_BLOCK_MN = 128
SF_BLOCK_K_VECTORS = 4
_SOURCE = "CUTLASS include/cutlass/detail/sm100_blockscaled_layout.hpp Sm1xxBlockScaledBasicChunk::SfKMajorAtom"


def sf_atom(vec: int) -> Layout:
    """CUTLASS's K-major scale-factor atom ``(128 mn, 4*vec k) -> byte`` (module docstring).

    >>> str(sf_atom(32))
    '((32,4),(32,4)):((16,4),(0,1))'
    """
    if vec not in (16, 32):
        raise LayoutError(f"scale vector size must be 16 or 32 elements, found {vec}")
    return Layout(((32, 4), (vec, SF_BLOCK_K_VECTORS)), ((16, 4), (0, 1)))


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
