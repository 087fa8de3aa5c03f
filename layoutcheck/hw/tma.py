"""TMA (Tensor Memory Accelerator) descriptor limits and data types, as data.

Primary sources (checked, not copied):

* CUDA driver API, "Tensor Map Object Managment", ``cuTensorMapEncodeTiled`` (CUDA 12.8 - 13.0 text): the requirement
  list on ``tensorRank``, ``globalAddress``, ``globalDim``, ``globalStrides``, ``boxDim``, ``elementStrides``,
  ``interleave``, ``swizzle``, ``oobFill`` and the ``CUtensorMapDataType`` / ``CUtensorMapSwizzle`` enums.
* PTX ISA 8.x/9.0, section 5.5 "Tensors": 5.5.3 "Tiled Mode" (bounding box, traversal stride, out-of-boundary fill),
  5.5.6 "Interleave layout", 5.5.7 "Swizzling Modes" (16-byte chunks XOR-ed within a 32/64/128-byte span; the pattern
  repeats every 256/512/1024 bytes of *shared-memory address*, "base offset = (dstMem / 128) % 8" for 128B).
* Where the driver (580.x, CUDA 13.0, H100) was measured to differ from or go beyond the text, the entry says
  ``source="measured: ..."``; ``layoutcheck/gpu/tma_probe.py`` re-measures every entry (docs/tma.md has the numbers).

CUDA versions differ in a few places; the model follows the CUDA 13.0 driver on sm_90:

* ``CUtensorMap`` object alignment: 64 bytes in the CUDA 12.x text, 128 bytes from CUDA 13 (triton PR #9439). This is
  the alignment of the descriptor object itself, not of the tensor; ``encode_check`` does not model it.
* ``CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B`` / ``_ATOM_32B_FLIP_8B`` / ``_ATOM_64B`` (CUDA 12.8+) and the packed
  ``16U4``/``16U6`` data types exist for sm_100; they are listed in ``EXTENDED_SWIZZLES`` / not in ``DTYPES`` and are
  outside the model (``encode_check`` rejects the names with a ``LayoutError``).
"""

from __future__ import annotations

from dataclasses import dataclass

DRIVER_DOC = "CUDA driver API, cuTensorMapEncodeTiled (group__CUDA__TENSOR__MEMORY), CUDA 12.8-13.0"
PTX_SWIZZLE = "PTX ISA 5.5.7 Swizzling Modes"


@dataclass(frozen=True, slots=True)
class TmaDtype:
    """One ``CUtensorMapDataType`` value: its name here, the enum value and the element size in bytes."""

    name: str
    enum: int
    bytes: int
    is_float: bool
    source: str = DRIVER_DOC + ", CUtensorMapDataType"


# name -> record; enum values in declaration order of CUtensorMapDataType (UINT8 = 0 ...).
DTYPES: dict[str, TmaDtype] = {
    d.name: d
    for d in (
        TmaDtype("uint8", 0, 1, False),
        TmaDtype("uint16", 1, 2, False),
        TmaDtype("uint32", 2, 4, False),
        TmaDtype("int32", 3, 4, False),
        TmaDtype("uint64", 4, 8, False),
        TmaDtype("int64", 5, 8, False),
        TmaDtype("float16", 6, 2, True),
        TmaDtype("float32", 7, 4, True),
        TmaDtype("float64", 8, 8, True),
        TmaDtype("bfloat16", 9, 2, True),
        TmaDtype("float32_ftz", 10, 4, True),
        TmaDtype("tfloat32", 11, 4, True),
        TmaDtype("tfloat32_ftz", 12, 4, True),
    )
}


@dataclass(frozen=True, slots=True)
class TmaSwizzle:
    """One ``CUtensorMapSwizzle`` mode: enum value, span (bytes of one swizzled row) and ``Swizzle<B,4,3>`` bits."""

    name: str
    enum: int
    span_bytes: int  # inner box extent limit in bytes; 0 = no limit (swizzle none)
    bits: int  # B of Swizzle<B,4,3> on byte addresses
    repeat_bytes: int  # the pattern repeats every 2**(B+4+3) bytes of shared-memory address
    source: str = DRIVER_DOC + " (CUtensorMapSwizzle); " + PTX_SWIZZLE


SWIZZLES: dict[str, TmaSwizzle] = {
    s.name: s
    for s in (
        TmaSwizzle("none", 0, 0, 0, 16),
        TmaSwizzle("32B", 1, 32, 1, 256),
        TmaSwizzle("64B", 2, 64, 2, 512),
        TmaSwizzle("128B", 3, 128, 3, 1024),
    )
}

TENSORMAP_ELEMTYPES: dict[int, TmaDtype] = {d.enum: d for d in DTYPES.values() if d.enum < 8}
"""``tensormap.replace .elemtype`` code -> dtype, for the codes whose meaning the PTX ISA (9.7.9.27,
``tensormap.replace``) and ``CUtensorMapDataType`` agree on (u8, u16, u32, s32, u64, s64, f16, f32); the later
codes are numbered differently in the two tables and are not read (a tensor map with one is not modelled)."""

TENSORMAP_SWIZZLES: dict[int, TmaSwizzle] = {s.enum: s for s in SWIZZLES.values()}
"""``tensormap.replace .swizzle_mode`` code -> mode (0-3, numbered as ``CUtensorMapSwizzle``); other codes (the
CUDA 12.8 atom modes) are not modelled."""

EXTENDED_SWIZZLES: dict[str, int] = {
    "128B_ATOM_32B": 4,  # CUDA 12.8+: 32-byte chunks within a 128-byte span
    "128B_ATOM_32B_FLIP_8B": 5,  # CUDA 12.8+: as above, 8-byte halves flipped every other row
    "128B_ATOM_64B": 6,  # CUDA 12.8+: 64-byte chunks within a 128-byte span
}
"""Swizzle modes outside the model (``encode_check`` refuses them by name). Source: DRIVER_DOC, CUtensorMapSwizzle."""

INTERLEAVES: dict[str, int] = {"none": 0, "16B": 1, "32B": 2}
"""``CUtensorMapInterleave``. Source: DRIVER_DOC; PTX ISA 5.5.6 Interleave layout."""

OOB_FILLS: dict[str, int] = {"none": 0, "nan": 1}
"""``CUtensorMapFloatOOBfill``: zeros, or the OOB-NaN (``NAN_REQUEST_ZERO_FMA``, floating-point types only)."""


@dataclass(frozen=True, slots=True)
class TmaLimits:
    """The numeric limits of ``cuTensorMapEncodeTiled`` (tiled mode)."""

    max_rank: int = 5  # tensorRank in 1..5
    min_rank_interleaved: int = 3  # interleave != none needs tensorRank >= 3
    global_address_align: int = 16  # bytes
    global_address_align_interleave32: int = 32
    max_global_dim: int = 1 << 32  # globalDim[i] in 1..2^32
    global_stride_multiple: int = 16  # bytes
    global_stride_multiple_interleave32: int = 32
    global_stride_bound: int = 1 << 40  # globalStrides[i] < 2^40
    max_box_dim: int = 256  # boxDim[i] in 1..256
    box_inner_bytes_multiple: int = 16  # boxDim[0] * elementSize, when interleave is none
    max_element_stride: int = 8  # elementStrides[i] in 1..8
    smem_dst_align: int = 128  # shared-memory destination of cp.async.bulk.tensor (CUDA programming guide)
    tensor_map_align_cuda12: int = 64  # CUtensorMap object alignment, CUDA 12.x text
    tensor_map_align_cuda13: int = 128  # CUtensorMap object alignment, CUDA 13 text
    swizzle_chunk_bytes: int = 16  # swizzling moves 16-byte chunks (16-byte atomicity)
    # measured (driver 580.159.04, CUDA 13.0, H100; gpu/probes/tma.py probe_box_limit, issue 14), not in the API text:
    # a full scan of every rank-3 box of 192..264 KiB for u8, f16, f32 and f64 accepts exactly the boxes of at most
    # 233472 B = 228 KiB (the H100's shared memory per SM), the same for every element size, monotone; the bytes are
    # esize * prod(floor(boxDim[i] / elementStrides[i])) over EVERY dim (dim 0 too; floor, not the ceil of the
    # elements a load delivers): f16 (64,256,15) with strides (1,1,2) is accepted (7 planes, 229376 B), (64,128,29)
    # with (1,2,1) rejected (64 rows, 237568 B). Swizzle-padded footprint does not count.
    box_bytes_max: int = 233472
    box_bytes_source: str = ("measured: cuTensorMapEncodeTiled, driver 580.159.04, H100 (sm_90), "
                             "layoutcheck.gpu.probes.tma.probe_box_limit")
    oob_nan_f32_bits: int = 0x7FF77FF7  # measured: the OOB-NaN a float32 box gets (oob_fill="nan")
    source: str = DRIVER_DOC + "; " + PTX_SWIZZLE


LIMITS = TmaLimits()

DOCUMENTED_NOT_ENFORCED: tuple[str, ...] = (
    "interleave 32B requires swizzle 32B (driver 580 encodes interleave 32B with swizzle none/64B/128B)",
)
"""Rules the driver API text states but ``cuTensorMapEncodeTiled`` (driver 580.159.04) does not check: measured,
docs/tma.md. ``encode_check`` models what the driver accepts, so these are not among its violations."""

MEASURED_BEYOND_TEXT: tuple[str, ...] = (
    "boxDim[0] * elementSize must be a multiple of 16 B with interleave 16B/32B too (8 B and 24 B rejected)",
    "a box narrower than its swizzle span occupies span-wide rows in shared memory (gaps left untouched)",
    "swizzle 128B_ATOM_32B / 128B_ATOM_32B_FLIP_8B / 128B_ATOM_64B rejected on sm_90",
    "a box's data, esize * prod(floor(boxDim[i] / elementStrides[i])), must be at most 233472 B = 228 KiB, for every "
    "element size; the swizzle-padded footprint does not count",
)
"""Driver / hardware behaviour measured on H100 (driver 580.159.04) that the API text does not state."""
