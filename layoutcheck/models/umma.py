"""UMMA (tcgen05.mma) descriptors: a shared-memory operand tile -> its 64-bit matrix descriptor and back, and the
32-bit instruction descriptor, computed as CUTLASS's ``make_umma_desc`` / ``make_instr_desc`` compute them.

The shared-memory descriptor describes a *canonical* layout. In 16-byte units (``T = 128 / element_bits``
elements), with ``w`` = 16-byte units per swizzle-atom row (1, 2, 4, 8 for none / 32B / 64B / 128B) the operand tile
one MMA reads (``(MN, K)``, K = 256 bits) must be, after ``logical_divide`` by ``(8, 2)`` (K-major) or ``(w, 8)``
(MN-major; ``(8, 4)`` for 128B with 32-byte atomicity)::

    K-major,  no swizzle : ((8,m),(2,1)):((1,SBO),(LBO,*))      swizzled: ((8,m),(2,1)):((w,SBO),(1,*))
    MN-major, no swizzle : ((1,n),(8,k)):((*,SBO),(1,LBO))      swizzled: ((w,n),(8,k)):((1,LBO),(w,SBO))

(CUTLASS ``cute/arch/mma_sm100_desc.hpp``, ``make_umma_desc``; PTX ISA 9.7.16.4.1 and the canonical layouts of
9.7.16.4.3). Worked example: a 128 x 16 f16 K-major slice of ``Sw<3,4,3>``-swizzled smem (``Layout_K_SW128_Atom``)
is ``(128,16):(64,1)`` in elements = ``(128,2):(8,1)`` in 16-byte units -> ``((8,16),(2,1)):((8,64),(1,*))``: LBO 1
(ignored when swizzled), SBO 64 (1024 bytes between 8-row groups), layout type 2.

Conventions (shared with the Hopper ``gmma_descriptor``): ``smem_layout`` is the operand tile in *elements*,
``(MN, K)``, optionally a ``ComposedLayout`` whose swizzle acts on element offsets (``Sw<3,3,3>`` for 16-bit) and
whose offset is the slice's distance from the swizzle-aligned tile origin at ``base_address`` (bytes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from layoutcheck.algebra.inttuple import is_int
from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.algebra.tiling import logical_divide, upcast
from layoutcheck.errors import LayoutError
from layoutcheck.hw.tcgen05 import (
    C_FORMATS,
    DTYPE_BITS,
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


class DescriptorError(LayoutError):
    """A layout or argument cannot be encoded in a UMMA descriptor; the message names the broken rule."""


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
        return self.start_address << 4

    def advance(self, byte_offset: int) -> UmmaDescriptor:
        """The descriptor of the tile ``byte_offset`` bytes further on (CUTLASS ``DescriptorIterator``: the start
        address field moves, nothing else).

        Pre: ``byte_offset % 16 == 0``. Post: ``advance(d).start_address == start_address + d // 16``.
        """
        if byte_offset % 16:
            raise DescriptorError(f"a descriptor advances in 16-byte units, not by {byte_offset} bytes")
        return decode_descriptor_word(self.value + (byte_offset >> 4))

    def __str__(self) -> str:
        return (f"UmmaDescriptor(0x{self.value:016x}: start 0x{self.start_address_bytes:x}, LBO "
                f"{self.leading_byte_offset * 16} B, SBO {self.stride_byte_offset * 16} B, {self.swizzle.name}, "
                f"base_offset {self.base_offset})")


def decode_descriptor_word(value: int) -> UmmaDescriptor:
    """The fields of a 64-bit shared-memory descriptor ``value``.

    >>> decode_descriptor_word(0x4000404000000200).stride_byte_offset
    64
    """
    if not 0 <= value < 1 << 64:
        raise DescriptorError(f"a shared-memory descriptor is 64 bits, found {value}")
    return UmmaDescriptor(value, **UMMA_SMEM_DESCRIPTOR.unpack(value))


def _dtype_bits(dtype: str) -> int:
    if dtype not in DTYPE_BITS:
        raise DescriptorError(f"unknown dtype {dtype!r}: expected one of {', '.join(DTYPE_BITS)}")
    return DTYPE_BITS[dtype]


def _major(major: str) -> str:
    m = str(major).upper()
    if m not in ("K", "MN"):
        raise DescriptorError(f"major must be 'K' or 'MN', found {major!r}")
    return m


def element_swizzle(sw: UmmaSwizzle, element_bits: int) -> Swizzle:
    """The byte swizzle of layout type ``sw`` acting on element offsets (``Sw<3,4,3>`` bytes -> ``Sw<3,3,3>`` f16)."""
    shift = (element_bits // 8).bit_length() - 1
    return Swizzle(sw.bits, sw.base - shift, sw.shift)


def swizzle_of(smem_layout: Layout | ComposedLayout, element_bits: int) -> UmmaSwizzle:
    """The UMMA layout type of a (composed) layout: its element swizzle read in bytes, matched to the table.

    Pre: ``element_bits`` in 8, 16, 32. Post: ``element_swizzle(result, element_bits) == smem_layout.swizzle``.
    """
    if not isinstance(smem_layout, ComposedLayout) or smem_layout.swizzle.bits == 0:
        return UMMA_SWIZZLES["SWIZZLE_NONE"]
    s = smem_layout.swizzle
    shift = (element_bits // 8).bit_length() - 1
    for sw in UMMA_SWIZZLES.values():
        if sw.bits and (sw.bits, sw.base, sw.shift) == (s.bits, s.base + shift, s.shift):
            return sw
    raise DescriptorError(f"{s} on {element_bits}-bit elements is Swizzle<{s.bits},{s.base + shift},{s.shift}> on "
                          "bytes: UMMA accepts Swizzle<B,4,3> (B = 0..3) or Swizzle<2,5,2> (layout_type())")


def _split(smem_layout: Layout | ComposedLayout) -> tuple[Layout, int]:
    if isinstance(smem_layout, ComposedLayout):
        return smem_layout.layout, smem_layout.offset
    if isinstance(smem_layout, Layout):
        return smem_layout, 0
    raise DescriptorError(f"smem_layout must be a Layout or ComposedLayout, found {smem_layout!r}")


def _leaf(lay: Layout, i: int, j: int) -> tuple[int, int]:
    """``(shape, stride)`` of sub-mode ``(i, j)`` of a canonical divided layout (profile ``((1,1),(1,1))``)."""
    mode = lay[i]
    if len(mode) != 2 or not all(is_int(m.shape) for m in mode):
        raise DescriptorError(f"not a canonical UMMA layout: expected profile ((_,_),(_,_)), found {lay} "
                              "(make_umma_desc: 'Expected profile failure')")
    leaf = mode[j]
    return leaf.shape, leaf.stride


def canonical_form(smem_layout: Layout | ComposedLayout, dtype: str, major: str) -> tuple[UmmaSwizzle, Layout]:
    """The layout type and the layout in 16-byte units divided into UMMA's canonical modes (module docstring).

    Pre: the layout is rank 2 ``(MN, K)`` of ``dtype`` elements. Post: the result has profile ``((1,1),(1,1))``.
    """
    bits, maj = _dtype_bits(dtype), _major(major)
    if bits not in (8, 16, 32):
        raise DescriptorError(f"{dtype} ({bits}-bit) operands are described in shared memory as 8-bit containers; "
                              "pass the container type (e.g. u8) to umma_descriptor")
    lay, _ = _split(smem_layout)
    if len(lay) != 2:
        raise DescriptorError(f"UMMA descriptors are built on rank-2 (MN, K) tiles, found rank {len(lay)}: {lay}")
    sw = swizzle_of(smem_layout, bits)
    try:
        u = upcast(lay, 128 // bits)
    except LayoutError as e:
        raise DescriptorError(f"recast to 16-byte units: {e}") from None
    if maj == "K":
        if sw.name == "SWIZZLE_128B_BASE32B":
            raise DescriptorError("SWIZZLE_128B_BASE32B is invalid for a K-major operand (make_umma_desc)")
        if size(u[0]) % 8:
            raise DescriptorError(f"not a canonical UMMA_K layout: MN size {size(u[0])} is not a multiple of 8")
        tiler: tuple[Layout, Layout] = (Layout(8, 1), Layout(2, 1))
    else:
        tiler = (Layout(sw.mn_units), Layout(4 if sw.name == "SWIZZLE_128B_BASE32B" else 8))
    try:
        return sw, logical_divide(u, tiler)
    except LayoutError as e:
        raise DescriptorError(f"not a canonical UMMA_{maj} layout: {u} does not divide by {tiler[0]}, {tiler[1]} "
                              f"({e})") from None


def _offsets(sw: UmmaSwizzle, maj: str, c: Layout) -> tuple[int, int]:
    """``(LBO, SBO)`` in 16-byte units, after checking the canonical strides (make_umma_desc's static_asserts)."""
    none = sw.name == "SWIZZLE_NONE"
    (_, s00), (_, s01) = _leaf(c, 0, 0), _leaf(c, 0, 1)
    (_, s10), (_, s11) = _leaf(c, 1, 0), _leaf(c, 1, 1)
    if maj == "K":
        if s00 != sw.mn_units:
            raise DescriptorError(f"not a canonical UMMA_K layout {c}: stride of the 8 rows is {s00} x 16 B, "
                                  f"{sw.name} needs {sw.mn_units} ('Expected stride failure')")
        if not none and s10 != 1:
            raise DescriptorError(f"not a canonical UMMA_K layout {c}: the two K chunks are {s10} x 16 B apart, a "
                                  "swizzled K-major atom needs them adjacent ('Expected stride failure')")
        return s10, s01
    if not none and s00 != 1:
        raise DescriptorError(f"not a canonical UMMA_MN layout {c}: MN must be contiguous within the "
                              f"{sw.row_bytes}-byte row, found stride {s00} x 16 B ('Expected stride failure')")
    if s10 != sw.mn_units:
        raise DescriptorError(f"not a canonical UMMA_MN layout {c}: K rows are {s10} x 16 B apart, {sw.name} needs "
                              f"{sw.mn_units} ('Expected stride failure')")
    return (s11, s01) if none else (s01, s11)


def umma_descriptor(smem_layout: Layout | ComposedLayout, dtype: str, major: str,
                    base_address: int = 0) -> UmmaDescriptor:
    """The tcgen05 shared-memory descriptor of the operand tile ``smem_layout`` (module docstring for conventions).

    Pre: ``smem_layout`` is a canonical K- or MN-major UMMA layout of ``dtype`` (8/16/32-bit) elements;
    ``base_address`` (bytes) is 16-byte aligned and, for a swizzled layout, the origin of the swizzle pattern.
    Post: ``decode_umma_descriptor(result, dtype, major, shape)`` equals ``smem_layout`` at every coordinate, shifted
    by ``base_address``; fields are those CUTLASS's ``make_umma_desc<major>`` sets (version 1, LBO mode 0).

    >>> from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
    >>> hex(umma_descriptor(ComposedLayout(Swizzle(3, 3, 3), 0, Layout((128, 16), (64, 1))), "f16", "K").value)
    '0x4000404000010000'
    """
    maj = _major(major)
    bits = _dtype_bits(dtype)
    sw, c = canonical_form(smem_layout, dtype, maj)
    lbo, sbo = _offsets(sw, maj, c)
    _, off = _split(smem_layout)
    start = base_address + off * bits // 8
    if base_address < 0 or start % 16:
        raise DescriptorError(f"start address {start} (base {base_address} + {off} elements) is not 16-byte aligned")
    for name, v in (("leading_byte_offset", lbo), ("stride_byte_offset", sbo)):
        if not 0 <= v < 1 << 14:
            raise DescriptorError(f"{name} {v} x 16 B does not fit the descriptor's 14-bit field")
    if start >> 4 >= 1 << 14:
        raise DescriptorError(f"start address {start} is beyond the 14-bit (256 KiB) shared-memory window")
    base_off = (base_address >> 7) & 7 if sw.bits and base_address % sw.repeat_bytes else 0
    fields = {"start_address": start >> 4, "leading_byte_offset": lbo, "stride_byte_offset": sbo, "version": 1,
              "base_offset": base_off, "lbo_mode": 0, "layout_type": sw.code}
    return UmmaDescriptor(UMMA_SMEM_DESCRIPTOR.pack(fields), **fields)


def decode_umma_descriptor(desc: UmmaDescriptor | int, dtype: str, major: str,
                           shape: tuple[int, int]) -> ComposedLayout:
    """The canonical layout ``desc`` describes for an ``(MN, K)`` operand tile, in elements, from address 0.

    Pre: ``shape`` = (MN, K) with MN a multiple of the atom's MN extent and K of one 16-byte chunk (K-major) or 8
    (MN-major). Post: ``result(c) = swizzle(start + L(c))`` with ``start`` the descriptor's start address in elements.

    >>> d = umma_descriptor(Layout((64, 16), (8, 512)), "f16", "K")
    >>> str(decode_umma_descriptor(d, "f16", "K", (64, 16)).layout)
    '((8,8),(8,2)):((8,64),(1,512))'
    """
    d = desc if isinstance(desc, UmmaDescriptor) else decode_descriptor_word(desc)
    bits, maj = _dtype_bits(dtype), _major(major)
    t = 128 // bits
    sw, lbo, sbo = d.swizzle, d.leading_byte_offset * t, d.stride_byte_offset * t
    mn, k = shape
    w = sw.mn_units
    if maj == "K":
        if mn % 8 or k % t:
            raise DescriptorError(f"K-major tile {shape}: MN must be a multiple of 8, K of {t} elements")
        row = w * t
        k_mode = ((t, k // t), (1, lbo if sw.name == "SWIZZLE_NONE" else t))
        lay = Layout(((8, mn // 8), k_mode[0]), ((row, sbo), k_mode[1]))
    else:
        kr = 4 if sw.name == "SWIZZLE_128B_BASE32B" else 8
        if mn % (w * t) or k % kr:
            raise DescriptorError(f"MN-major tile {shape}: MN must be a multiple of {w * t}, K of {kr}")
        if sw.name == "SWIZZLE_NONE":
            lay = Layout(((t, mn // t), (8, k // 8)), ((1, sbo), (t, lbo)))
        else:
            lay = Layout(((w * t, mn // (w * t)), (kr, k // kr)), ((1, lbo), (w * t, sbo)))
    return ComposedLayout(element_swizzle(sw, bits), d.start_address_bytes * 8 // bits, lay)


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
        return self.m_dim << 4

    @property
    def n(self) -> int:
        return self.n_dim << 3

    def __str__(self) -> str:
        return f"UmmaInstrDescriptor(0x{self.value:08x} kind::{self.kind}: " + \
            ", ".join(f"{k}={v}" for k, v in self.fields) + ")"


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
    a_maj, b_maj = _major(a_major), _major(b_major)
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
              "b_major": int(b_maj == "MN"), "n_dim": n >> 3, "m_dim": m >> 4}
    if k.block_scaled:
        fmt = UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED
        vals = common | {"scale_format": dict(k.scale_types)[scale_dtype], "a_sf_id": a_sf_id, "b_sf_id": b_sf_id}
    else:
        fmt = UMMA_INSTR_DESCRIPTOR
        vals = common | {"c_format": C_FORMATS[c_dtype], "saturate": int(saturate), "max_shift": MAX_SHIFT[max_shift]}
    value = fmt.pack(vals)
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
    fmt = UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED if MMA_KINDS[kind].block_scaled else UMMA_INSTR_DESCRIPTOR
    return UmmaInstrDescriptor(value, kind, tuple(fmt.unpack(value).items()))


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
