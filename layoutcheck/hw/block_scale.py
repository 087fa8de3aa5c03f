"""Scale-factor layouts of block-scaled (MX / NVFP4) operands as data: the 128 x 4 interleave and the plain ones.

A block-scaled operand (A: ``M x K``, B: ``N x K``) carries one scale factor per ``vec`` consecutive K elements of a
row (``vec`` = 32 for MXFP8/MXFP4, 16 for NVFP4: ``hw.tcgen05.SCALE_VECTOR_SIZES``). Scale ``(mn, kb)`` belongs to
elements ``(mn, kb*vec .. kb*vec + vec - 1)``. Where that scale sits in memory is a *layout* ``(mn, kb) -> byte``,
and producers (quantisers, checkpoint loaders) and consumers (cuBLAS, CUTLASS, TensorRT-LLM, Triton kernels) must
agree on it. The named layouts::

    128x4 (= sm1xx_sfa = sm1xx_sfb = 32_4_4)   scale rows in blocks of 128, scale columns in blocks of 4; one block
        is 512 contiguous bytes, row mn = m0 + 32*m1 (m0 < 32, m1 < 4) and column c < 4 at byte 16*m0 + 4*m1 + c;
        blocks K-first: block (mn // 128, kb // 4) starts at byte 512 * ((mn // 128) * ceil(KS / 4) + kb // 4),
        KS = ceil(K / vec) scale columns. Rows and columns are padded up to 128 and 4 (the tensor holds
        ceil(MN / 128) * ceil(KS / 4) whole blocks).
    linear      row-major (K-contiguous) ``mn * KS + kb`` (TransformerEngine's un-swizzled ``scale_inv``)
    linear_mn   column-major (MN-contiguous) ``kb * MN + mn``

Worked table (vec = 32, K = 256, so KS = 8: two 128x4 blocks per 128 rows)::

    (mn, kb)   (0,0)  (1,0)  (32,0)  (0,1)  (0,4)  (128,0)
    128x4        0     16      4      1     512    1024
    linear       0      8    256      1       4    1024

Sources: CUTLASS ``include/cutlass/detail/sm100_blockscaled_layout.hpp`` (``Sm1xxBlockScaledBasicChunk::
SfKMajorAtom = ((32,4),(SFVecSize,4)):((16,4),(0,1))``, ``Sm1xxBlockScaledConfig::tile_atom_to_shape_SFA/SFB`` =
``tile_to_shape(SfAtom, (MN, K, L), Step<_2,_1,_3>)``, which for dynamic extents rounds each mode up: CuTe
``tile_to_shape`` takes ``ceil_div(target, block)`` repetitions); the cuBLAS documentation, "1D Block Scaling Factors
Layout" (cuBLASLt ``CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3 / VEC32_UE8M0``: 128 x 4 tiles of 512 bytes, padded);
PyTorch ``SwizzleType.SWIZZLE_32_4_4`` (``torch.nn.functional.scaled_mm``) names the same interleave; TransformerEngine
``nvte_swizzle_scaling_factors`` ("scale_inv is stored in row-major ... padded to 128x4") converts linear to it.
The 4 scale columns of one row are one 32-bit word so that a TMEM cell holds one row's scales (CUTLASS's comment
in ``deduce_smem_layoutSFA``; PTX ISA 9.7.16.10.7 'Block Scaling', ``.scale_vec::1X/2X/4X``).
Not modelled: CUTLASS's MN-major atom (``SfMNMajorAtom``, used for SFD outputs) and batch modes (L).
"""

from __future__ import annotations

from dataclasses import dataclass

SF_BLOCK_MN = 128
"""Scale rows (A) / columns (B) per interleave block."""
SF_BLOCK_K = 4
"""Scale factors along K per interleave block (one 32-bit word per row)."""
SF_BLOCK_BYTES = SF_BLOCK_MN * SF_BLOCK_K
"""Bytes per interleave block (512)."""
SF_ATOM_SHAPE = ((32, 4), SF_BLOCK_K)
SF_ATOM_STRIDE = ((16, 4), 1)
"""The interleave atom over scale indices, ``(mn, kb) -> byte``: ``((32,4),4):((16,4),1)`` (CUTLASS's
``SfKMajorAtom`` without its stride-0 ``SFVecSize`` mode)."""

_CUTLASS = "CUTLASS include/cutlass/detail/sm100_blockscaled_layout.hpp Sm1xxBlockScaledConfig::tile_atom_to_shape_SF*"
_CUBLAS = "cuBLAS documentation, '1D Block Scaling Factors Layout' (128x4 tiles of 512 bytes)"


@dataclass(frozen=True, slots=True)
class ScaleLayoutKind:
    """A named scale-factor layout: ``interleaved`` (the 128 x 4 blocks) or ``row_major`` / ``col_major`` over
    ``(mn, kb)``."""

    name: str
    form: str
    source: str


SCALE_LAYOUTS: dict[str, ScaleLayoutKind] = {k.name: k for k in (
    ScaleLayoutKind("128x4", "interleaved", f"{_CUBLAS}; {_CUTLASS}"),
    ScaleLayoutKind("32_4_4", "interleaved", "PyTorch SwizzleType.SWIZZLE_32_4_4 (the cuBLAS 128x4 interleave)"),
    ScaleLayoutKind("sm1xx_sfa", "interleaved", f"{_CUTLASS} (SFA: (M, K))"),
    ScaleLayoutKind("sm1xx_sfb", "interleaved", f"{_CUTLASS} (SFB: (N, K))"),
    ScaleLayoutKind("linear", "row_major", "TransformerEngine scale_inv, row-major (un-swizzled)"),
    ScaleLayoutKind("linear_mn", "col_major", "an MN-contiguous scale tensor (kb * MN + mn)"),
)}
"""Scale-layout name (as a spec writes it) -> its form and source."""

SCALE_VECS = (16, 32)
"""Elements per scale factor (``hw.tcgen05.SCALE_VECTOR_SIZES`` per MMA kind)."""
