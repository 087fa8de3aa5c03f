"""Blackwell (sm_100) tcgen05 facts as data: UMMA descriptors, tensor memory, tcgen05.ld/st shapes, data paths.

No sm_100 GPU is needed to read these: every record carries the ``source=`` it was taken from (the PTX ISA tcgen05
sections, CUTLASS ``cute/arch/mma_sm100_desc.hpp``, ``cute/arch/mma_sm100_umma.hpp``, ``cute/atom/copy_traits_sm100
.hpp``, ``cute/atom/mma_traits_sm100_frag.hpp``, ``cute/arch/tmem_allocator_sm100.hpp``), and the models
(``layoutcheck.models.umma``, ``layoutcheck.models.tmem``) compute from them. The test data
``tests/data/umma_descriptors.json`` / ``tmem_atoms.json`` hold what CUTLASS's own host code prints for the same inputs.

Descriptors are bit-field tables. The shared-memory (matrix) descriptor, 64 bits::

    bits  0..13  start address >> 4        bits 16..29  leading-dimension byte offset (LBO) >> 4
    bits 32..45  stride-dimension byte offset (SBO) >> 4
    bits 46..48  fixed 0b001 (CUTLASS: ``version_ = 1`` in bits 46..47)
    bits 49..51  matrix base offset         bit  52      LBO mode (0: relative offset, 1: absolute address)
    bits 53..60  fixed 0                    bits 14..15, 30..31  not defined (CUTLASS: unused)
    bits 61..63  swizzle / layout type: 0 none, 1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B (3, 5, 7 undefined)

The instruction descriptor, 32 bits (dense ``kind::f16 / tf32 / f8f6f4 / i8``)::

    0..1 sparsity selector  2 sparse  3 saturate  4..5 D format  7..9 A format  10..12 B format
    13 negate A  14 negate B  15 A major (0 K, 1 MN)  16 B major  17..22 N >> 3  24..28 M >> 4  30..31 max shift
    (6, 23, 29 reserved)

and for block-scaled MMA (``kind::mxf8f6f4 / mxf4 / mxf4nvf4``) bits 4..5 carry the B scale-factor id, bit 23 the
scale format, bits 29..30 the A scale-factor id and bit 31 the K size; bits 3 and 6 are reserved. Every bit of each
word is declared (``layoutcheck.hw.bitfields``: value, fixed constant, defined codes or reserved).

PTX section numbers are those of PTX ISA 8.7/8.8 (tcgen05 is 9.7.16 there; later versions renumber), with the
HTML anchor where the section has one (``#tcgen05-shared-memory-descriptor``...).

Tensor memory: 128 lanes x 512 columns of 32-bit cells per CTA; an address is ``lane << 16 | column``; warp ``w`` of
a warpgroup may only touch lanes ``32*(w % 4) .. 32*(w % 4) + 31`` (its sub-partition).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from layoutcheck.algebra.layout import Layout
from layoutcheck.errors import LayoutError
from layoutcheck.hw.bitfields import BitField, DescriptorFormat
from layoutcheck.hw.dtypes import bits_of
from layoutcheck.hw.swizzle_modes import swizzle_mode

_PTX_SDESC = "PTX ISA 9.7.16.4.1 'Shared Memory Descriptor' (tcgen05-shared-memory-descriptor)"
_PTX_IDESC = "PTX ISA 9.7.16.4.2 'Instruction descriptor' (tcgen05-instruction-descriptor)"
_CUTLASS_DESC = "CUTLASS include/cute/arch/mma_sm100_desc.hpp"
_CUTLASS_UMMA = "CUTLASS include/cute/arch/mma_sm100_umma.hpp (static_asserts of the SM100_MMA_* atoms)"
_PTX_TMEM = "PTX ISA 9.7.16.2 'Tensor Memory' (tcgen05-tensor-memory), 9.7.16.2.1 'Tensor Memory Addressing'"
_CUTLASS_TMEM = "CUTLASS include/cute/arch/tmem_allocator_sm100.hpp"
_PTX_LDST = "PTX ISA 9.7.16.8.3 'tcgen05.ld', 9.7.16.8.4 'tcgen05.st', 9.7.16.2.3 'Matrix fragments for tcgen05.ld/st'"
_CUTLASS_COPY = "CUTLASS include/cute/atom/copy_traits_sm100.hpp Copy_Traits<SM100_TMEM_LOAD_*/STORE_*>"
_PTX_DP = "PTX ISA 9.7.16.10.5 'Data path layout organization' (layouts A..G)"
_CUTLASS_FRG = "CUTLASS include/cute/atom/mma_traits_sm100_frag.hpp UMMA::tmem_frg<..., N_SM, TmemAllocMode>::make"


# -- descriptor words (every bit declared: layoutcheck.hw.bitfields) -----------------------------------------------
def _f(name: str, lo: int, width: int, source: str, **kw: Any) -> BitField:
    return BitField(name, lo, width, source, **kw)


_UNUSED = f"{_PTX_SDESC} (bits not in the table); {_CUTLASS_DESC} SmemDescriptor ': 2' (unused)"
UMMA_SMEM_DESCRIPTOR = DescriptorFormat(
    "tcgen05 shared memory descriptor", 64,
    (_f("start_address", 0, 14, _PTX_SDESC, unit=16), _f("reserved_14", 14, 2, _UNUSED, reserved=True),
     _f("leading_byte_offset", 16, 14, _PTX_SDESC, unit=16), _f("reserved_30", 30, 2, _UNUSED, reserved=True),
     _f("stride_byte_offset", 32, 14, _PTX_SDESC, unit=16),
     _f("version", 46, 3, f"{_PTX_SDESC}: bits 46-48 'fixed constant value of 0b001'; {_CUTLASS_DESC} "
                          "SmemDescriptor::version_ = 1 (bits 46-47) and the unused bit 48", fixed=1),
     _f("base_offset", 49, 3, f"{_PTX_SDESC}: matrix base offset"),
     _f("lbo_mode", 52, 1, f"{_PTX_SDESC}: leading dimension stride mode (0 relative, 1 absolute)"),
     _f("fixed_53", 53, 8, f"{_PTX_SDESC}: bits 53-60 'fixed constant value of 0'", fixed=0),
     _f("layout_type", 61, 3, f"{_PTX_SDESC}: swizzling mode 0, 1, 2, 4, 6; {_CUTLASS_DESC} UMMA::LayoutType "
                              "(3, 5, 7: N/A)", codes=(0, 1, 2, 4, 6))),
    f"{_PTX_SDESC}; {_CUTLASS_DESC} union SmemDescriptor")
"""(64-bit word) -> start address, LBO, SBO (all >> 4), version 0b001, base offset, LBO mode, 0, layout type."""

_IDESC = f"{_PTX_IDESC}; {_CUTLASS_DESC} union InstrDescriptor"
_DIM_UNITS = {"n_dim": 8, "m_dim": 16}
"""The instruction descriptors store N >> 3 and M >> 4 (PTX ISA instruction-descriptor table; CUTLASS
``make_instr_desc``: ``n_dim_ = N >> 3``, ``m_dim_ = M >> 4``)."""
_IDESC_BS = f"{_PTX_IDESC}; {_CUTLASS_DESC} union InstrDescriptorBlockScaled"
UMMA_INSTR_DESCRIPTOR = DescriptorFormat(
    "tcgen05 instruction descriptor (kind::f16/tf32/f8f6f4/i8)", 32,
    tuple(_f(n, lo, w, _IDESC, reserved=n.startswith("reserved"), unit=_DIM_UNITS.get(n, 1)) for n, lo, w in (
        ("sparse_id2", 0, 2), ("sparse_flag", 2, 1), ("saturate", 3, 1), ("c_format", 4, 2), ("reserved_6", 6, 1),
        ("a_format", 7, 3), ("b_format", 10, 3), ("a_negate", 13, 1), ("b_negate", 14, 1), ("a_major", 15, 1),
        ("b_major", 16, 1), ("n_dim", 17, 6), ("reserved_23", 23, 1), ("m_dim", 24, 5), ("reserved_29", 29, 1),
        ("max_shift", 30, 2))),
    _IDESC)
"""(32-bit word) -> the dense MMA's formats, majors, negations, N >> 3, M >> 4, .ws max shift (6, 23, 29 reserved)."""

UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED = DescriptorFormat(
    "tcgen05 instruction descriptor (kind::mxf8f6f4/mxf4/mxf4nvf4)", 32,
    tuple(_f(n, lo, w, _IDESC_BS, reserved=n.startswith("reserved"), unit=_DIM_UNITS.get(n, 1)) for n, lo, w in (
        ("sparse_id2", 0, 2), ("sparse_flag", 2, 1), ("reserved_3", 3, 1), ("b_sf_id", 4, 2), ("reserved_6", 6, 1),
        ("a_format", 7, 3), ("b_format", 10, 3), ("a_negate", 13, 1), ("b_negate", 14, 1), ("a_major", 15, 1),
        ("b_major", 16, 1), ("n_dim", 17, 6), ("scale_format", 23, 1), ("m_dim", 24, 5), ("a_sf_id", 29, 2),
        ("k_size", 31, 1))),
    _IDESC_BS)
"""(32-bit word) -> block-scaled MMA fields: scale-factor ids (byte of the TMEM scale column), scale format."""


# -- swizzle / layout types of the shared-memory descriptor ----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class UmmaSwizzle:
    """One layout type: its 3-bit code, the byte-address swizzle ``Swizzle<B,M,S>`` and the atom geometry."""

    name: str
    code: int
    bits: int  # B
    base: int  # M (log2 of the atomicity in bytes)
    shift: int  # S
    row_bytes: int  # width of one swizzle-atom row (the swizzle span)
    atomicity_bytes: int  # 16, or 32 for SWIZZLE_128B_BASE32B
    source: str

    @property
    def mn_units(self) -> int:
        """16-byte units along the contiguous dimension of one atom row (CUTLASS ``SwizzleAtomMNSize``)."""
        return self.row_bytes // 16

    @property
    def repeat_bytes(self) -> int:
        """The swizzle pattern repeats every ``2**(B+M+S)`` bytes (1024 for 128B, 256 for 32B, 16 for none)."""
        return 1 << (self.bits + self.base + self.shift) if self.bits else 16


_SW_SRC = f"{_PTX_SDESC} (swizzling mode); {_CUTLASS_DESC} UMMA::LayoutType and layout_type(); " \
          "CUTLASS include/cute/atom/mma_traits_sm100.hpp Layout_MN_SW128_32B_Atom (Swizzle<2,5,2>)"
UMMA_SWIZZLES: dict[str, UmmaSwizzle] = {s.name: s for s in (
    UmmaSwizzle("SWIZZLE_NONE", 0, 0, 4, 3, 16, 16, _SW_SRC),
    UmmaSwizzle("SWIZZLE_128B_BASE32B", 1, 2, 5, 2, 128, 32, _SW_SRC),
    UmmaSwizzle("SWIZZLE_128B", 2, 3, 4, 3, 128, 16, _SW_SRC),
    UmmaSwizzle("SWIZZLE_64B", 4, 2, 4, 3, 64, 16, _SW_SRC),
    UmmaSwizzle("SWIZZLE_32B", 6, 1, 4, 3, 32, 16, _SW_SRC))}
"""Layout type name -> code and byte swizzle (codes 3, 5, 7 are not defined)."""

BASE32B_SPELLINGS = ("SW128_32B", "128B_BASE32B", "SWIZZLE_128B_BASE32B")
"""Names of UMMA's own mode ``SWIZZLE_128B_BASE32B`` (no GMMA or TMA counterpart); the four shared modes are read by
``hw.swizzle_modes.swizzle_mode``."""


def umma_swizzle(name: str | int) -> UmmaSwizzle:
    """The layout type called ``name`` (``SWIZZLE_128B``, ``SW128``, ``128B``...) or with 3-bit ``code``.

    >>> umma_swizzle("SW64").code, umma_swizzle(1).name
    (4, 'SWIZZLE_128B_BASE32B')
    """
    if isinstance(name, int):
        for s in UMMA_SWIZZLES.values():
            if s.code == name:
                return s
        raise LayoutError(f"UMMA layout type code {name} is not defined (defined: 0, 1, 2, 4, 6)")
    if name.upper() in BASE32B_SPELLINGS:
        return UMMA_SWIZZLES["SWIZZLE_128B_BASE32B"]
    try:
        return UMMA_SWIZZLES[swizzle_mode(name).umma]
    except LayoutError:
        raise LayoutError(f"unknown UMMA swizzle {name!r}: expected one of {', '.join(UMMA_SWIZZLES)}") from None


# -- MMA kinds, formats and shapes --------------------------------------------------------------------------------
DTYPE_BITS: dict[str, int] = bits_of(("f16", "bf16", "tf32", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "s8", "u8",
                                       "f32", "s32", "ue8m0", "ue4m3"))
"""Element bits of each operand type (sub-byte types as the MMA counts them)."""


@dataclass(frozen=True, slots=True)
class MmaKind:
    """One ``tcgen05.mma .kind``: operand format codes, accumulator types, what may be MN-major / negated."""

    name: str
    formats: tuple[tuple[str, int], ...]  # A/B dtype -> 3-bit format code
    c_types: tuple[str, ...]
    mn_major: tuple[str, ...]  # A/B types that may be MN-major (transposed) in shared memory
    negate: bool
    saturate: bool
    block_scaled: bool
    scale_types: tuple[tuple[str, int], ...] = ()  # scale dtype -> scale_format code
    source: str = f"{_PTX_IDESC}; {_CUTLASS_DESC} to_UMMAFormat / to_CFormat / to_ScaleFormat and field comments"

    def code(self, dtype: str) -> int:
        return dict(self.formats)[dtype]


C_FORMATS: dict[str, int] = {"f16": 0, "f32": 1, "s32": 2}
"""Accumulator (D) type -> 2-bit c_format (CUTLASS ``UMMA::CFormat``; PTX ISA instruction descriptor bits 4-5)."""

MAX_SHIFT: dict[int, int] = {0: 0, 8: 1, 16: 2, 32: 3}
"""``.ws`` maximum shift -> 2-bit code (CUTLASS ``UMMA::MaxShift``)."""

_F8F6F4 = (("e4m3", 0), ("e5m2", 1), ("e2m3", 3), ("e3m2", 4), ("e2m1", 5))
MMA_KINDS: dict[str, MmaKind] = {k.name: k for k in (
    MmaKind("f16", (("f16", 0), ("bf16", 1)), ("f16", "f32"), ("f16", "bf16"), True, False, False),
    MmaKind("tf32", (("tf32", 2),), ("f32",), ("tf32",), True, False, False),
    MmaKind("f8f6f4", _F8F6F4, ("f16", "f32"), ("e4m3", "e5m2"), True, False, False),
    MmaKind("i8", (("u8", 0), ("s8", 1)), ("s32",), ("u8", "s8"), False, True, False),
    MmaKind("mxf8f6f4", _F8F6F4, ("f32",), ("e4m3", "e5m2"), True, False, True, (("ue8m0", 1),)),
    MmaKind("mxf4", (("e2m1", 1),), ("f32",), (), True, False, True, (("ue8m0", 1),)),
    MmaKind("mxf4nvf4", (("e2m1", 1),), ("f32",), (), True, False, True, (("ue8m0", 1), ("ue4m3", 0))))}
"""The tcgen05.mma kinds layoutcheck knows; ``f16`` with D = f16 needs A/B = f16 (bf16 accumulates in f32)."""

SCALE_VECTOR_SIZES: dict[str, tuple[int, ...]] = {"mxf8f6f4": (32,), "mxf4": (32,), "mxf4nvf4": (16, 32)}
"""Block-scaled kinds -> elements along K sharing one scale factor (PTX ISA 9.7.16.10.7 'Block Scaling', the
``.scale_vec::1X/2X/4X`` qualifiers: one scale per 32 elements for mxf8f6f4/mxf4, 16 or 32 for mxf4nvf4)."""

K_BITS_PER_MMA = 256
"""One dense tcgen05.mma consumes 256 bits of K per row (16 f16, 8 tf32, 32 8-bit, 64 4-bit elements); PTX ISA
9.7.16.10.1 'Matrix shape' (K = 8 for tf32, 16 for f16, 32 for f8f6f4/i8, 64 for mxf4)."""


@dataclass(frozen=True, slots=True)
class ShapeRule:
    """Valid ``(M, N)`` of the SM100 MMA atoms for some kinds and a ``cta_group``."""

    kinds: tuple[str, ...]
    cta_group: int
    m: tuple[int, ...]
    n_step: int
    n_min: int
    n_max: int
    source: str = _CUTLASS_UMMA


SHAPE_RULES: tuple[ShapeRule, ...] = (
    ShapeRule(("f16", "tf32", "f8f6f4"), 1, (64, 128), 8, 8, 256),
    ShapeRule(("i8",), 1, (64, 128), 16, 16, 256),  # plus N == 8 (SM100_MMA_S8_SS)
    ShapeRule(("f16", "tf32", "f8f6f4", "mxf4"), 2, (128, 256), 16, 16, 256),
    ShapeRule(("i8",), 2, (128, 256), 32, 32, 256),
    ShapeRule(("mxf8f6f4", "mxf4", "mxf4nvf4"), 1, (128,), 8, 8, 256),
    ShapeRule(("mxf8f6f4",), 2, (256,), 16, 16, 256),
    ShapeRule(("mxf4nvf4",), 2, (128, 256), 16, 16, 256),
)
"""``SM100_MMA_{F16BF16,TF32,F8F6F4,S8}_SS`` (1 SM) and ``_2x1SM_SS``, ``SM100_MMA_MXF8F6F4_SS`` (M = 128),
``_2x1SM_SS`` (M = 256), ``SM100_MMA_MXF4_SS`` / ``_2x1SM_SS``: the M and N each atom's ``static_assert`` accepts."""


def shape_rule(kind: str, cta_group: int) -> ShapeRule:
    for r in SHAPE_RULES:
        if kind in r.kinds and r.cta_group == cta_group:
            return r
    raise LayoutError(f"no SM100 MMA atom for kind::{kind} with cta_group::{cta_group}")


# -- tensor memory --------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TmemGeometry:
    """Tensor memory of one CTA: ``lanes`` x ``columns`` cells of ``cell_bits``; warps own 32-lane sub-partitions."""

    lanes: int
    columns: int
    cell_bits: int
    subpartition_lanes: int
    lane_shift: int  # address = lane << lane_shift | column
    alloc_min_columns: int
    alloc_max_columns: int
    source: str

    def address(self, lane: int, column: int) -> int:
        return lane << self.lane_shift | column


TMEM = TmemGeometry(128, 512, 32, 32, 16, 32, 512,
                    f"{_PTX_TMEM}; 9.7.16.7.1 'tcgen05.alloc' (nCols a power of 2, 32 <= nCols <= 512); "
                    f"{_CUTLASS_TMEM} (MAX_CAPACITY_BITS = 128*512*32, DP_b = 1 << 21, Allocator1Sm::allocate)")
"""(lane 128, column 512) -> 32-bit cell; warp w accesses lanes [32*(w%4), 32*(w%4)+32) (PTX ISA 9.7.16.2.2)."""

TMEM_DP_BITS = 1 << 21
"""Lane (data path) stride in CUTLASS's bit addressing of TMEM: 65536 columns x 32 bits (``TMEM::DP_b``)."""


# -- tcgen05.ld / tcgen05.st shapes ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TmemLdStShape:
    """One tcgen05.ld/st shape: ``lanes`` x ``row_bits`` per repetition, ``.num`` = ``x1 .. x{max_reps}``.

    ``row_bits`` counts the bits one lane row contributes per repetition (``.16x32bx2`` moves two 32-bit halves,
    the second ``imm_half_split_offset`` columns right: CUTLASS puts it right after the first, so 64 bits).
    ``register`` is CuTe's ``DstLayout`` of the load ``(thread 32, value bits) -> bit of the reference tile``
    (``lanes`` rows of ``row_bits * reps`` bits, row-major) as a function of the repetition count.
    """

    ptx: str
    cutlass: str
    lanes: int
    row_bits: int
    regs_per_rep: int
    max_reps: int
    register: Callable[[int], Layout]
    source: str = f"{_PTX_LDST}; {_CUTLASS_COPY}"


def _reg_32x32b(n: int) -> Layout:  # (T32, V32n) -> lane t, its 32n bits
    return Layout((32, 32 * n), (32 * n, 1))


def _reg_16x64b(n: int) -> Layout:  # t = t0 + 2 t1 + 4 t2: lane t2 + 8 t0, 32-bit word t1 of each 64-bit chunk
    w = 64 * n
    if n == 1:  # CUTLASS writes the x1 fragments without the unit repetition mode
        return Layout(((2, 2, 8), 32), ((8 * w, 32, w), 1))
    return Layout(((2, 2, 8), (32, n)), ((8 * w, 32, w), (1, 64)))


def _reg_16x128b(n: int) -> Layout:  # t = t0 + 4 t1: lane t1 (+8 for value 2), word t0 of each 128-bit chunk
    w = 128 * n
    if n == 1:
        return Layout(((4, 8), (32, 2)), ((32, w), (1, 8 * w)))
    return Layout(((4, 8), (32, 2, n)), ((32, w), (1, 8 * w, 128)))


def _reg_16x256b(n: int) -> Layout:  # t = t0 + 4 t1: lane t1 (+8), 64-bit piece t0 of each 256-bit chunk
    w = 256 * n
    if n == 1:
        return Layout(((4, 8), (64, 2)), ((64, w), (1, 8 * w)))
    return Layout(((4, 8), (64, 2, n)), ((64, w), (1, 8 * w, 256)))


def _reg_16x32bx2(n: int) -> Layout:  # t = t0 + 16 t1: lane t0, half t1 (second half n columns right)
    w = 64 * n
    return Layout(((16, 2), 32 * n), ((w, 32 * n), 1))


TMEM_LDST_SHAPES: dict[str, TmemLdStShape] = {s.cutlass: s for s in (
    TmemLdStShape(".32x32b", "32dp32b", 32, 32, 1, 128, _reg_32x32b),
    TmemLdStShape(".16x64b", "16dp64b", 16, 64, 1, 128, _reg_16x64b),
    TmemLdStShape(".16x128b", "16dp128b", 16, 128, 2, 64, _reg_16x128b),
    TmemLdStShape(".16x256b", "16dp256b", 16, 256, 4, 32, _reg_16x256b),
    TmemLdStShape(".16x32bx2", "16dp32b", 16, 64, 1, 128, _reg_16x32bx2))}
"""CUTLASS family name (``32dp32b`` ...) -> shape. Repetitions are powers of two up to ``max_reps`` (128 registers)."""


def tmem_val_id(family: str, reps: int, packed16: bool) -> Layout:
    """CUTLASS ``ValID``: reference bit ``b + row_bits*reps*lane`` -> TMEM bit address (lane stride ``TMEM_DP_BITS``).

    With ``.pack::16b`` / ``.unpack::16b`` (``_16b`` atoms) each 32-bit column holds one 16-bit value in its low half,
    so a row's bits come 16 at a time from consecutive columns.

    >>> str(tmem_val_id("32dp32b", 1, True))
    '((16,2),32):((1,32),2097152)'
    """
    s = TMEM_LDST_SHAPES[family]
    w = s.row_bits * reps
    if packed16:
        return Layout(((16, w // 16), s.lanes), ((1, 32), TMEM_DP_BITS))
    return Layout((w, s.lanes), (1, TMEM_DP_BITS))


def tmem_atom_name(family: str, reps: int, load: bool, packed16: bool) -> str:
    return f"SM100_TMEM_{'LOAD' if load else 'STORE'}_{family}{reps}x{'_16b' if packed16 else ''}"


def tmem_atom_specs() -> list[tuple[str, str, int, bool, bool]]:
    """Every CUTLASS TMEM copy op: ``(name, family, reps, load, packed16)`` (148 ops)."""
    out = []
    for fam, s in TMEM_LDST_SHAPES.items():
        reps = 1
        while reps <= s.max_reps:
            for load in (True, False):
                for p16 in (False, True):
                    out.append((tmem_atom_name(fam, reps, load, p16), fam, reps, load, p16))
            reps *= 2
    return out


# -- accumulator data paths ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class DataPath:
    """How one CTA's ``(M_cta, N)`` tile of 32-bit cells sits in TMEM: ``atom(n)`` maps ``(m, n)`` to CUTLASS's
    virtual address ``lane + 128 * column`` (``tmem_frg``'s DP stride 1, column stride 128)."""

    letter: str
    mma_m: int  # M of the instruction
    cta_group: int
    m_cta: int  # rows this CTA owns
    ws: bool
    description: str
    atom: Callable[[int], Layout]
    source: str = f"{_PTX_DP}; {_CUTLASS_FRG}"


def _dp_full(n: int) -> Layout:  # (128, N) -> lane m, column n
    return Layout((128, n), (1, 128))


def _dp_half(n: int) -> Layout:  # (64, N): rows 16 per warp, lanes 0-15, 32-47, 64-79, 96-111
    return Layout(((16, 4), n), ((1, 32), 128))


def _dp_fold2(n: int) -> Layout:  # (64, N): columns [N/2, N) fold onto lanes 64-127
    if n % 2:
        raise LayoutError(f"data path B/E folds N in two: N = {n} must be even")
    return Layout((64, (n // 2, 2)), (1, (128, 64)))


def _dp_fold4(n: int) -> Layout:  # (32, N): column quarters on the four 32-lane sub-partitions
    if n % 4:
        raise LayoutError(f"data path G folds N in four: N = {n} must be a multiple of 4")
    return Layout((32, (n // 4, 4)), (1, (128, 32)))


DATA_PATHS: dict[str, DataPath] = {d.letter: d for d in (
    DataPath("A", 256, 2, 128, False, "M=256 cta_group::2: each CTA's 128 rows on lanes 0-127", _dp_full),
    DataPath("B", 128, 2, 64, False, "M=128 cta_group::2: 64 rows per CTA, column halves on lanes 0-63 / 64-127",
             _dp_fold2),
    DataPath("C", 128, 2, 64, False, "M=128 cta_group::2 sparse: 64 rows, 16 per sub-partition (as F)", _dp_half),
    DataPath("D", 128, 1, 128, False, "M=128 cta_group::1: row m on lane m", _dp_full),
    DataPath("E", 64, 1, 64, True, "M=64 .ws: column halves on lanes 0-63 / 64-127 (as B)", _dp_fold2),
    DataPath("F", 64, 1, 64, False, "M=64 cta_group::1: rows 16 per sub-partition, lanes 32w..32w+15", _dp_half),
    DataPath("G", 32, 1, 32, True, "M=32 .ws: column quarters on the four sub-partitions", _dp_fold4))}
"""PTX data-path layouts; CUTLASS ``tmem_frg`` builds A/D (M_MMA=128), F (1 SM, M_MMA=64), B (2 SM, M_MMA=64
Interleaved) and the 2 SM M_MMA=32 atom G from the same atoms."""


def data_path(mma_m: int, cta_group: int, ws: bool = False, sparse: bool = False) -> DataPath:
    """The data-path layout an MMA with instruction ``mma_m`` and ``cta_group`` writes.

    >>> data_path(64, 1).letter, data_path(128, 2).letter, data_path(256, 2).letter
    ('F', 'B', 'A')
    """
    for d in DATA_PATHS.values():
        if d.mma_m == mma_m and d.cta_group == cta_group and d.ws == ws and (d.letter == "C") == sparse:
            return d
    raise LayoutError(f"no TMEM data path for M={mma_m}, cta_group::{cta_group}{' .ws' if ws else ''}"
                      f"{' sparse' if sparse else ''} (PTX ISA 9.7.16.10.5 defines layouts A-G)")


# -- cta_group::2: the peer CTA pair ------------------------------------------------------------------------------
_CUTLASS_2SM = ("CUTLASS include/cute/atom/mma_traits_sm100.hpp "
                "MMA_Traits<SM100_MMA_{F16BF16,TF32,F8F6F4,S8}_2x1SM_SS>: ThrID = Layout<_2>; "
                "ALayout (2,(M/2,K)):(M/2,(1,M)), BLayout (2,(N/2,K)):(N/2,(1,N)), "
                "CLayout (2,(M/2,N)):(M/2,(1,M))")
_PTX_PAIR = ("PTX ISA 9.7.16.1 / 9.7.16.10 (tcgen05 .cta_group::2: the MMA reads A and B from the shared memory of "
             "both CTAs of the peer pair and writes each CTA's part of D to its own tensor memory; CTA 0 of the pair "
             "is the one whose %cluster_ctarank has bit 0 clear)")


@dataclass(frozen=True, slots=True)
class PeerSplit:
    """How a ``cta_group::2`` MMA splits operand ``operand`` over the two peer CTAs: peer ``p`` holds rows
    ``p * MN/2 .. (p+1) * MN/2 - 1`` of its ``(MN, other)`` tile (A: rows m of (M, K) in its shared memory; B: rows n
    of (N, K), i.e. columns of B; C: rows m of (M, N) in its tensor memory). ``layout(mn, other)`` is CuTe's
    ``(peer, (mn', other)) -> mn + MN * other`` (the traits' ``ALayout`` / ``BLayout`` / ``CLayout``)."""

    operand: str
    where: str
    source: str = f"{_CUTLASS_2SM}; {_PTX_PAIR}"

    def layout(self, mn: int, other: int) -> Layout:
        if mn % 2:
            raise LayoutError(f"a cta_group::2 MMA splits {self.operand}'s {mn} rows over two CTAs: {mn} is odd")
        half = mn // 2
        return Layout((2, (half, other)), (half, (1, mn)))


PEER_SPLITS: dict[str, PeerSplit] = {s.operand: s for s in (
    PeerSplit("A", "shared memory: rows m of the (M, K) operand"),
    PeerSplit("B", "shared memory: rows n of the (N, K) operand (the columns of B)"),
    PeerSplit("C", "tensor memory: rows m of the (M, N) accumulator (data path A for M = 256, B for M = 128)"))}
"""``(peer 2, (MN/2, other)) -> (MN, other)``: peer 0 holds the first half of every operand's MN rows, peer 1 the
second; ``(2,(M/2,K)):(M/2,(1,M))`` for A (CUTLASS ``MMA_Traits<SM100_MMA_*_2x1SM_SS>``)."""


# -- tcgen05.cp: shared memory -> tensor memory ------------------------------------------------------------------
_PTX_CP = ("PTX ISA 9.7.16.9.2 'tcgen05.cp' (.shape .128x256b, .4x256b, .128x128b, .64x128b with .warpx2::02_13 / "
           ".warpx2::01_23, .32x128b with .warpx4)")
_CUTLASS_CP = ("CUTLASS include/cute/atom/copy_traits_sm100.hpp Copy_Traits<SM100_UTCCP_*> "
               "(ValID: bit -> TMEM bit address)")


@dataclass(frozen=True, slots=True)
class TmemCopyShape:
    """One ``tcgen05.cp`` shape: it copies ``rows`` x ``row_bits`` from shared memory (one matrix descriptor) and
    writes source row ``r``, bit ``b`` to every TMEM lane ``lane(r, j)`` (``j`` < ``copies``, the multicast) at bit
    ``b`` of the columns from ``taddr``'s. ``val_id`` is CUTLASS's ``ValID`` (logical bit -> TMEM bit address, lane
    stride ``TMEM_DP_BITS``) with the logical bits numbered ``[row, bit, copy]`` (``repeat`` before ``copy`` for
    ``warpx2::01_23``: rows 32..63 are the second half of each copy)."""

    ptx: str
    cutlass: str
    rows: int
    row_bits: int
    copies: int
    val_id: Layout
    description: str
    source: str = f"{_PTX_CP}; {_CUTLASS_CP}"

    def image(self) -> list[tuple[int, int, int]]:
        """Every ``(row, bit, TMEM bit address)`` the copy writes (``copies`` addresses per source bit)."""
        out = []
        for r in range(self.rows):
            for b in range(self.row_bits):
                for j in range(self.copies):
                    out.append((r, b, self.val_id(*self.logical(r, b, j))))
        return out

    def logical(self, r: int, b: int, j: int) -> tuple[Any, ...]:
        """The logical bit coordinate of source row ``r``, bit ``b``, copy ``j`` in ``val_id``'s modes."""
        if self.cutlass == "2x64dp128bitlw0123":  # rows 32r1 + r0 -> ((r0, b, r1, copy))
            return (r % 32, b, r // 32, j)
        if self.copies == 1:
            return (r, b)
        return (r, b, j)


_DP = TMEM_DP_BITS
TMEM_COPY_SHAPES: dict[str, TmemCopyShape] = {s.cutlass: s for s in (
    TmemCopyShape(".128x256b", "128dp256bit", 128, 256, 1, Layout((128, 256), (_DP, 1)),
                  "128 rows of 256 bits to lanes 0-127, 8 columns"),
    TmemCopyShape(".128x128b", "128dp128bit", 128, 128, 1, Layout((128, 128), (_DP, 1)),
                  "128 rows of 128 bits to lanes 0-127, 4 columns"),
    TmemCopyShape(".4x256b", "4dp256bit", 4, 256, 1, Layout((4, 256), (32 * _DP, 1)),
                  "4 rows of 256 bits to lane 32w (CUTLASS: a 'refresh' of one lane per sub-partition)"),
    TmemCopyShape(".64x128b.warpx2::02_13", "2x64dp128bitlw0213", 64, 128, 2,
                  Layout((64, 128, 2), (_DP, 1, 64 * _DP)),
                  "64 rows of 128 bits to lanes 0-63 and again to lanes 64-127 (warps 0,2 and 1,3 share data)"),
    TmemCopyShape(".64x128b.warpx2::01_23", "2x64dp128bitlw0123", 64, 128, 2,
                  Layout((32, 128, 2, 2), (_DP, 1, 64 * _DP, 32 * _DP)),
                  "rows 0-31 to lanes 0-31 and 32-63, rows 32-63 to lanes 64-95 and 96-127 (warps 0,1 and 2,3)"),
    TmemCopyShape(".32x128b.warpx4", "4x32dp128bit", 32, 128, 4, Layout((32, 128, 4), (_DP, 1, 32 * _DP)),
                  "32 rows of 128 bits to every sub-partition: lanes r, 32+r, 64+r, 96+r"))}
"""CUTLASS family (``4x32dp128bit`` ...) -> shape; the ``_1cta`` and ``_2cta`` atoms share ``ValID``; a ``_2cta``
copy (``.cta_group::2``) writes the same image into both CTAs of the pair."""


def tmem_copy_shape(name: str) -> TmemCopyShape:
    """The ``tcgen05.cp`` shape called ``name``: CUTLASS's family (``4x32dp128bit``), atom (``SM100_UTCCP_4x32dp128bit
    _1cta``) or PTX spelling (``.32x128b.warpx4``, ``32x128b.warpx4``).

    >>> tmem_copy_shape("SM100_UTCCP_4x32dp128bit_1cta").ptx
    '.32x128b.warpx4'
    """
    key = name.removeprefix("SM100_UTCCP_").removesuffix("_1cta").removesuffix("_2cta")
    for s in TMEM_COPY_SHAPES.values():
        if key in (s.cutlass, s.ptx, s.ptx.lstrip(".")):
            return s
    raise LayoutError(f"unknown tcgen05.cp shape {name!r}: expected one of "
                      f"{', '.join(s.ptx for s in TMEM_COPY_SHAPES.values())} (or CUTLASS's SM100_UTCCP_* names)")


# -- TMEM_LOAD_STAT: tcgen05.ld.red (SM103) ----------------------------------------------------------------------
_CUTLASS_STAT = ("CUTLASS include/cute/arch/copy_sm100.hpp SM100::TMEM::LOAD_STAT (tcgen05.ld.red.sync.aligned"
                 ".32x32b.x{32,128}.max.f32, CUTE_ARCH_TCGEN05_TMEM_STAT_ENABLED: SM103a/f only); "
                 "include/cute/atom/copy_traits_sm100.hpp Copy_Traits<SM100_TMEM_LOAD_STAT_32dp32b{32,128}x> "
                 "(ValID, SrcLayout, DstLayout as SM100_TMEM_LOAD_32dp32b{32,128}x, plus row_max)")


@dataclass(frozen=True, slots=True)
class TmemLoadStat:
    """A ``tcgen05.ld.red`` atom: the load ``like`` (same cells, same registers) that also returns, per thread, the
    ``op`` (max) of the 32-bit float values it loaded (CUTLASS folds it into ``row_max`` with ``fmax``)."""

    name: str
    like: str
    ptx: str
    op: str
    source: str = _CUTLASS_STAT


TMEM_LOAD_STATS: dict[str, TmemLoadStat] = {s.name: s for s in (
    TmemLoadStat("SM100_TMEM_LOAD_STAT_32dp32b32x", "SM100_TMEM_LOAD_32dp32b32x",
                 "tcgen05.ld.red.sync.aligned.32x32b.x32.max.f32", "max"),
    TmemLoadStat("SM100_TMEM_LOAD_STAT_32dp32b128x", "SM100_TMEM_LOAD_32dp32b128x",
                 "tcgen05.ld.red.sync.aligned.32x32b.x128.max.f32", "max"))}
"""The two ``LOAD_STAT`` atoms CUTLASS defines (used by examples/77_blackwell_fmha for the softmax row max)."""
