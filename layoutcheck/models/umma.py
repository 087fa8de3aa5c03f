"""UMMA (tcgen05.mma) descriptors: a shared-memory operand tile -> its 64-bit matrix descriptor and back, and the
32-bit instruction descriptor, computed as CUTLASS's ``make_umma_desc`` / ``make_instr_desc`` compute them.

The shared-memory descriptor describes a *canonical* layout, recognised by ``models.canonical`` (the one recogniser
of GMMA and UMMA operands) over tcgen05's atoms ``ATOMS`` (``hw.tcgen05.UMMA_SWIZZLES``: the four GMMA ones and the
MN-only ``Swizzle<2,5,2>`` with 32-byte atomicity); CUTLASS ``cute/arch/mma_sm100_desc.hpp``, ``make_umma_desc``;
PTX ISA 9.7.16.4.1 and 9.7.16.4.3. Worked example: a 128 x 16 f16 K-major slice of ``Sw<3,4,3>``-swizzled smem
(``Layout_K_SW128_Atom``) is ``(128,16):(64,1)`` in elements = ``(128,2):(8,1)`` in 16-byte units ->
``((8,16),(2,1)):((8,64),(1,*))``: LBO 1 (ignored when swizzled), SBO 64 (1024 bytes between 8-row groups), layout
type 2.

Conventions (shared with the Hopper ``gmma_descriptor``): ``smem_layout`` is the operand tile in *elements*,
``(MN, K)``, optionally a ``ComposedLayout`` whose swizzle acts on element offsets (``Sw<3,3,3>`` for 16-bit) and
whose offset is the slice's distance from the swizzle-aligned tile origin at ``base_address`` (bytes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle, shared_offsets
from layoutcheck.errors import DescriptorError
from layoutcheck.hw.bitfields import DescriptorFormat
from layoutcheck.hw.tcgen05 import (
    C_FORMATS,
    DTYPE_BITS,
    K_BITS_PER_MMA,
    MAX_SHIFT,
    MMA_KINDS,
    UMMA_INSTR_DESCRIPTOR,
    UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED,
    UMMA_SMEM_DESCRIPTOR,
    UMMA_SWIZZLES,
    MmaKind,
    UmmaSwizzle,
    shape_rule,
    umma_swizzle,
)
from layoutcheck.models.canonical import CanonicalForm, SwizzleAtom, canonical_form, canonical_layout, major_of
from layoutcheck.models.gmma import DescriptorReads, GmmaBlocks, check_writer, gmma_blocks


# -- the shared-memory descriptor ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class UmmaDescriptor:
    """A tcgen05 shared-memory descriptor: ``value`` and its fields (offsets in 16-byte units, as encoded)."""

    value: int
    start_address: int
    leading_byte_offset: int
    stride_byte_offset: int
    version: int
    base_offset: int
    lbo_mode: int
    layout_type: int

    @property
    def swizzle(self) -> UmmaSwizzle:
        return umma_swizzle(self.layout_type)

    @property
    def start_address_bytes(self) -> int:
        return UMMA_SMEM_DESCRIPTOR.field("start_address").quantity(self.value)

    def advance(self, byte_offset: int) -> UmmaDescriptor:
        """The descriptor of the tile ``byte_offset`` bytes further on (CUTLASS ``DescriptorIterator``: the start
        address field moves, nothing else).

        Pre: ``byte_offset % 16 == 0``. Post: ``advance(d).start_address == start_address + d // 16``.
        """
        if byte_offset % UMMA_SMEM_DESCRIPTOR.field("start_address").unit:
            raise DescriptorError(f"a descriptor advances in 16-byte units, not by {byte_offset} bytes")
        return decode_descriptor_word(UMMA_SMEM_DESCRIPTOR.advance(self.value, "start_address", byte_offset))

    def __str__(self) -> str:
        b = UMMA_SMEM_DESCRIPTOR.decode(self.value)
        return (f"UmmaDescriptor(0x{self.value:016x}: start 0x{b['start_address']:x}, LBO "
                f"{b['leading_byte_offset']} B, SBO {b['stride_byte_offset']} B, {self.swizzle.name}, "
                f"base_offset {self.base_offset})")


def decode_descriptor_word(value: int) -> UmmaDescriptor:
    """The fields of a 64-bit shared-memory descriptor ``value``.

    >>> decode_descriptor_word(0x4000404000000200).stride_byte_offset
    64
    """
    if not 0 <= value < 1 << 64:
        raise DescriptorError(f"a shared-memory descriptor is 64 bits, found {value}")
    fields = UMMA_SMEM_DESCRIPTOR.unpack(value)
    return UmmaDescriptor(value, **{k: fields[k] for k in _FIELDS})


_FIELDS = ("start_address", "leading_byte_offset", "stride_byte_offset", "version", "base_offset", "lbo_mode",
           "layout_type")


def _dtype_bits(dtype: str) -> int:
    if dtype not in DTYPE_BITS:
        raise DescriptorError(f"unknown dtype {dtype!r}: expected one of {', '.join(DTYPE_BITS)}")
    return DTYPE_BITS[dtype]


ATOMS: dict[str, SwizzleAtom] = {
    sw.name: SwizzleAtom(sw.name, Swizzle(sw.bits, sw.base, sw.shift), sw.mn_units, 128 // sw.atomicity_bytes,
                         k_major=sw.name != "SWIZZLE_128B_BASE32B")
    for sw in UMMA_SWIZZLES.values()}
"""tcgen05's swizzle atoms as the canonical-form recogniser reads them: K rows per MN-major atom 8 (4 with 32-byte
atomicity); SWIZZLE_128B_BASE32B is MN-major only (CUTLASS ``make_umma_desc``)."""


def element_swizzle(sw: UmmaSwizzle, element_bits: int) -> Swizzle:
    """The byte swizzle of layout type ``sw`` acting on element offsets (``Sw<3,4,3>`` bytes -> ``Sw<3,3,3>`` f16)."""
    return ATOMS[sw.name].on_elements(element_bits)


def canonical_umma(smem_layout: Layout | ComposedLayout, dtype: str, major: str) -> CanonicalForm:
    """The canonical UMMA form of an ``(MN, K)`` operand layout (``models.canonical``); ``DescriptorError`` naming
    the failed condition.

    Pre: the layout is rank 2 ``(MN, K)`` of ``dtype`` (8/16/32-bit) elements. Post: as ``canonical_form``.

    >>> c = canonical_umma(Layout(((8, 8), (8, 2)), ((8, 64), (1, 512))), "f16", "K")
    >>> c.atom.name, c.lbo, c.sbo
    ('SWIZZLE_NONE', 64, 8)
    """
    bits = _dtype_bits(dtype)
    if bits not in (8, 16, 32):
        raise DescriptorError(f"{dtype} ({bits}-bit) operands are described in shared memory as 8-bit containers; "
                              "pass the container type (e.g. u8) to umma_descriptor")
    return canonical_form(smem_layout, dtype, bits, major, tuple(ATOMS.values()), "UMMA")


def umma_descriptor(smem_layout: Layout | ComposedLayout, dtype: str, major: str,
                    base_address: int = 0, written_by: str = "tma") -> UmmaDescriptor:
    """The tcgen05 shared-memory descriptor of the operand tile ``smem_layout`` (module docstring for conventions).

    Pre: ``smem_layout`` is a canonical K- or MN-major UMMA layout of ``dtype`` (8/16/32-bit) elements;
    ``base_address`` (bytes) is 16-byte aligned. ``written_by`` (``models.gmma.WRITERS``) says where the swizzle
    pattern is anchored: ``tma`` on absolute address bits (base offset 0, as CUTLASS always writes), ``threads`` at
    ``base_address`` (base offset ``(base_address mod period) >> 7``, the PTX rule Hopper follows; not measured on
    sm_100). Post (``tma``): ``decode_umma_descriptor(result, dtype, major, shape)`` equals ``smem_layout`` at every
    coordinate, shifted by ``base_address`` before the swizzle; fields are those CUTLASS's ``make_umma_desc<major>``
    sets (version 0b001, LBO mode 0).

    >>> from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
    >>> hex(umma_descriptor(ComposedLayout(Swizzle(3, 3, 3), 0, Layout((128, 16), (64, 1))), "f16", "K").value)
    '0x4000404000010000'
    """
    bits = _dtype_bits(dtype)
    c = canonical_umma(smem_layout, dtype, major)
    sw, lbo, sbo = UMMA_SWIZZLES[c.atom.name], c.lbo, c.sbo
    off = c.start
    start = base_address + off * bits // 8
    start_field = UMMA_SMEM_DESCRIPTOR.field("start_address")
    if base_address < 0 or start % start_field.unit:
        raise DescriptorError(f"start address {start} (base {base_address} + {off} elements) is not 16-byte aligned")
    for name, v in (("leading_byte_offset", lbo), ("stride_byte_offset", sbo)):  # canonical units = the fields' units
        if not UMMA_SMEM_DESCRIPTOR.field(name).fits(v):
            raise DescriptorError(f"{name} {v} x 16 B does not fit the descriptor's 14-bit field")
    if not start_field.fits(start_field.stored(start)):
        raise DescriptorError(f"start address {start} is beyond the 14-bit (256 KiB) shared-memory window")
    base_off = (base_address % sw.repeat_bytes) >> 7 if sw.bits and check_writer(written_by) == "threads" else 0
    fields = {"start_address": start_field.stored(start), "leading_byte_offset": lbo, "stride_byte_offset": sbo,
              "version": 1, "base_offset": base_off, "lbo_mode": 0, "layout_type": sw.code}
    return UmmaDescriptor(UMMA_SMEM_DESCRIPTOR.pack(fields), **fields)


def decode_umma_descriptor(desc: UmmaDescriptor | int, dtype: str, major: str,
                           shape: tuple[int, int]) -> ComposedLayout:
    """The canonical layout ``desc`` describes for an ``(MN, K)`` operand tile, in elements, from address 0.

    Pre: ``shape`` = (MN, K) with MN a multiple of the atom's MN extent and K of one 16-byte chunk (K-major) or 8
    (MN-major); base offset 0 and LBO mode 0 (anything else is not modelled: ``DescriptorError``).
    Post: ``result(c) = swizzle(start + L(c))`` with ``start`` the descriptor's start address in elements (the
    swizzle on absolute address bits).

    >>> d = umma_descriptor(Layout(((8, 8), (8, 2)), ((8, 64), (1, 512))), "f16", "K")
    >>> str(decode_umma_descriptor(d, "f16", "K", (64, 16)).layout)
    '((8,8),(8,2)):((8,64),(1,512))'
    """
    d = desc if isinstance(desc, UmmaDescriptor) else decode_descriptor_word(desc)
    if d.base_offset or d.lbo_mode:
        raise DescriptorError(f"{d}: base offset {d.base_offset} / LBO mode {d.lbo_mode} other than 0 is not modelled "
                              "for tcgen05 (not measured on sm_100)")
    bits = _dtype_bits(dtype)
    lay = canonical_layout(ATOMS[d.swizzle.name], major, bits, shape, d.leading_byte_offset, d.stride_byte_offset)
    return ComposedLayout(element_swizzle(d.swizzle, bits), d.start_address_bytes * 8 // bits, lay)


# -- a mainloop's reads of a stage ---------------------------------------------------------------------------------
def umma_blocks(stage: Layout | ComposedLayout, dtype: str) -> GmmaBlocks:
    """Cut an ``(MN, BK)`` stage layout into the ``(MN, K)`` blocks successive tcgen05.mma instructions read: the
    whole MN extent, K = ``K_BITS_PER_MMA`` (256 bits, the 32 bytes of a wgmma's K: ``models.gmma.gmma_blocks``
    makes the one cut of both).

    >>> b = umma_blocks(ComposedLayout(Swizzle(3, 3, 3), 0, Layout((128, 64), (64, 1))), "f16")
    >>> b.count, b.block, b.block_offset(1)
    (4, (128, 16), 16)
    """
    blocks = gmma_blocks(stage, dtype, None)
    if blocks.block[1] * DTYPE_BITS.get(dtype, 0) != K_BITS_PER_MMA:
        raise DescriptorError(f"{dtype}: a tcgen05.mma reads {K_BITS_PER_MMA} bits of K per row, the stage's "
                              f"blocks are {blocks.block[1]} elements")
    return blocks


def _umma_advanced(d0: UmmaDescriptor, step: int) -> UmmaDescriptor | None:
    """``d0`` advanced ``step`` bytes (CuTe's ``DescriptorIterator``); ``None`` when it cannot be formed."""
    try:
        return d0.advance(step)
    except DescriptorError:
        return None


def umma_reads(stage: Layout | ComposedLayout, dtype: str, major: str, base_address: int = 0,
               umma_layout: Layout | ComposedLayout | None = None) -> DescriptorReads:
    """What a mainloop's tcgen05.mma instructions read of each K block of ``stage`` (``umma_blocks``): block 0's
    descriptor (``umma_descriptor``, built from ``umma_layout`` when given, else from ``stage``) advanced by the
    block's unswizzled byte offset, decoded (``decode_umma_descriptor``), next to where ``stage`` puts each element.

    Pre: ``stage`` is ``(MN, BK)`` with BK a multiple of one instruction's K; the buffer starts at ``base_address``,
    aligned to the swizzle pattern. Post: ``read[r] == expected[r]`` for every ``r`` exactly when the descriptors
    read ``stage``; ``read[r][i]`` is the byte ``decode_umma_descriptor(descs[r], ...)`` gives element ``i`` (colex
    over the block). ``DescriptorError``: no descriptor describes the layout.

    >>> st = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((128, 64), (64, 1)))
    >>> r = umma_reads(st, "f16", "K")
    >>> r.addresses().shape, bool((r.addresses() == r.expected).all())
    ((4, 2048), True)
    """
    blocks = umma_blocks(stage, dtype)
    src = blocks if umma_layout is None else umma_blocks(umma_layout, dtype)
    e = DTYPE_BITS[dtype] // 8
    d0 = umma_descriptor(src.block_layout(), dtype, major, base_address)
    descs = tuple(_umma_advanced(d0, e * src.block_offset(r)) for r in range(blocks.count))
    read = tuple(None if d is None else
                 e * shared_offsets(decode_umma_descriptor(d, dtype, major, blocks.block), np.int64)
                 for d in descs)
    return DescriptorReads(blocks.block, blocks.expected(base_address, e), read, descs)  # type: ignore[arg-type]


# -- the instruction descriptor -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class UmmaInstrDescriptor:
    """A tcgen05 instruction descriptor: ``value`` (32 bits), the MMA ``kind`` and every field of its format."""

    value: int
    kind: str
    fields: tuple[tuple[str, int], ...]

    def __getattr__(self, name: str) -> Any:
        for k, v in object.__getattribute__(self, "fields"):
            if k == name:
                return v
        raise AttributeError(name)

    @property
    def m(self) -> int:
        return instr_format(self.kind).field("m_dim").quantity(self.value)

    @property
    def n(self) -> int:
        return instr_format(self.kind).field("n_dim").quantity(self.value)

    def __str__(self) -> str:
        return f"UmmaInstrDescriptor(0x{self.value:08x} kind::{self.kind}: " + \
            ", ".join(f"{k}={v}" for k, v in self.fields) + ")"


def instr_format(kind: str) -> DescriptorFormat:
    """The instruction-descriptor format of MMA ``kind`` (block-scaled kinds have their own)."""
    return UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED if MMA_KINDS[kind].block_scaled else UMMA_INSTR_DESCRIPTOR


def mma_kind(a_dtype: str, b_dtype: str, c_dtype: str, scale_dtype: str | None = None) -> MmaKind:
    """The tcgen05.mma kind that multiplies ``a_dtype`` x ``b_dtype`` into ``c_dtype`` (block-scaled with a scale type).

    >>> mma_kind("e4m3", "e5m2", "f32").name, mma_kind("e2m1", "e2m1", "f32", "ue4m3").name
    ('f8f6f4', 'mxf4nvf4')
    """
    order = ("mxf4", "mxf4nvf4", "mxf8f6f4") if scale_dtype else ("f16", "tf32", "f8f6f4", "i8")
    for name in order:
        k = MMA_KINDS[name]
        codes = dict(k.formats)
        if a_dtype in codes and b_dtype in codes and (scale_dtype is None or scale_dtype in dict(k.scale_types)):
            if name == "mxf4" and a_dtype != "e2m1":
                continue
            if c_dtype not in k.c_types:
                raise DescriptorError(f"kind::{name} ({a_dtype} x {b_dtype}) accumulates in {', '.join(k.c_types)}, "
                                      f"not {c_dtype}")
            if name == "f16" and c_dtype == "f16" and "bf16" in (a_dtype, b_dtype):
                raise DescriptorError("kind::f16 with bf16 operands accumulates in f32 only")
            if name == "f16" and a_dtype != b_dtype:
                raise DescriptorError(f"kind::f16 needs A and B of one type, found {a_dtype} x {b_dtype}")
            return k
    what = f"{a_dtype} x {b_dtype} -> {c_dtype}" + (f" scaled by {scale_dtype}" if scale_dtype else "")
    raise DescriptorError(f"no tcgen05.mma kind computes {what} (PTX ISA 9.7.16.10 'kind' table)")


def _check_shape(k: MmaKind, m: int, n: int, cta_group: int) -> None:
    r = shape_rule(k.name, cta_group)
    ok_n = (r.n_min <= n <= r.n_max and n % r.n_step == 0) or (k.name == "i8" and cta_group == 1 and n == 8)
    if m not in r.m or not ok_n:
        raise DescriptorError(f"kind::{k.name} cta_group::{cta_group}: M must be one of {r.m} and N a multiple of "
                              f"{r.n_step} in [{r.n_min}, {r.n_max}], found M={m}, N={n} ({r.source})")


def umma_instr_descriptor(a_dtype: str, b_dtype: str, c_dtype: str, m: int, n: int, a_major: str = "K",
                          b_major: str = "K", *, a_negate: bool = False, b_negate: bool = False,
                          saturate: bool = False, sparse: bool = False, max_shift: int = 0, cta_group: int = 1,
                          scale_dtype: str | None = None, a_sf_id: int = 0, b_sf_id: int = 0) -> UmmaInstrDescriptor:
    """The 32-bit instruction descriptor of one tcgen05.mma, as CUTLASS's ``make_instr_desc`` (or
    ``make_instr_desc_block_scaled`` when ``scale_dtype`` is given) packs it, after the checks the SM100 MMA atoms make.

    Pre: the types form a tcgen05.mma kind; M, N fit the kind and ``cta_group``; MN-major only for types that may be
    transposed; ``saturate`` only for i8; negation not for i8. Post: ``decode_instr_descriptor(result.value,
    result.kind)`` returns the same fields; ``result.m == m`` and ``result.n == n``.

    >>> hex(umma_instr_descriptor("f16", "f16", "f32", 128, 256).value)
    '0x8400010'
    """
    k = mma_kind(a_dtype, b_dtype, c_dtype, scale_dtype)
    a_maj, b_maj = major_of(a_major), major_of(b_major)
    _check_shape(k, m, n, cta_group)
    for op, dt, mj in (("A", a_dtype, a_maj), ("B", b_dtype, b_maj)):
        if mj == "MN" and dt not in k.mn_major:
            raise DescriptorError(f"operand {op} ({dt}) cannot be MN-major: kind::{k.name} transposes only "
                                  f"{', '.join(k.mn_major) or 'nothing'} (instruction descriptor bits 15/16)")
    if (a_negate or b_negate) and not k.negate:
        raise DescriptorError(f"kind::{k.name} cannot negate its inputs (bits 13/14 valid for f16/tf32/f8f6f4)")
    if saturate and not k.saturate:
        raise DescriptorError(f"saturate (bit 3) is valid only for kind::i8, not kind::{k.name}")
    if max_shift not in MAX_SHIFT:
        raise DescriptorError(f"max_shift must be one of {sorted(MAX_SHIFT)}, found {max_shift}")
    common = {"sparse_flag": int(sparse), "a_format": k.code(a_dtype), "b_format": k.code(b_dtype),
              "a_negate": int(a_negate), "b_negate": int(b_negate), "a_major": int(a_maj == "MN"),
              "b_major": int(b_maj == "MN"), "n_dim": n, "m_dim": m}
    fmt = instr_format(k.name)
    if k.block_scaled:
        vals = common | {"scale_format": dict(k.scale_types)[scale_dtype], "a_sf_id": a_sf_id, "b_sf_id": b_sf_id}
    else:
        vals = common | {"c_format": C_FORMATS[c_dtype], "saturate": int(saturate), "max_shift": MAX_SHIFT[max_shift]}
    value = fmt.encode(vals)
    return UmmaInstrDescriptor(value, k.name, tuple(fmt.unpack(value).items()))


def decode_instr_descriptor(value: int, kind: str) -> UmmaInstrDescriptor:
    """The fields of a 32-bit instruction descriptor of ``kind`` (block-scaled kinds use the block-scaled format).

    >>> decode_instr_descriptor(0x8400010, "f16").m
    128
    """
    if kind not in MMA_KINDS:
        raise DescriptorError(f"unknown MMA kind {kind!r}: expected one of {', '.join(MMA_KINDS)}")
    if not 0 <= value < 1 << 32:
        raise DescriptorError(f"an instruction descriptor is 32 bits, found {value}")
    return UmmaInstrDescriptor(value, kind, tuple(instr_format(kind).unpack(value).items()))


def runtime_instr_descriptor(desc: UmmaInstrDescriptor, tmem_sfa: int = 0, tmem_sfb: int = 0) -> int:
    """The 64-bit operand tcgen05.mma takes (descriptor in the upper 32 bits); block-scaled descriptors get their
    scale-factor ids from bits 30-31 of the scale TMEM addresses (CUTLASS ``make_runtime_instr_desc[_block_scaled]``).
    """
    v = desc.value
    if MMA_KINDS[desc.kind].block_scaled:
        fmt = UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED
        v &= ~(fmt.field("a_sf_id").mask | fmt.field("b_sf_id").mask)
        v |= fmt.field("a_sf_id").put((tmem_sfa >> 30) & 3) | fmt.field("b_sf_id").put((tmem_sfb >> 30) & 3)
    return v << 32
