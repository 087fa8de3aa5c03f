"""The GMMA (wgmma) shared-memory matrix descriptor as a value: built from a layout, decoded back into one.

A wgmma reads its A/B operand tile (``MN x K``, K = 32 bytes for dense MMAs) from shared memory through a 64-bit
descriptor (fields in ``layoutcheck.hw.wgmma.GMMA_DESCRIPTOR_FIELDS``). Seen in 16-byte units ``u`` (``T = 16/e``
elements of ``e`` bytes), the hardware accepts exactly these *canonical* layouts (PTX ISA 9.7.15.5.1 "Shared Memory
Matrix Layout"; CUTLASS ``make_gmma_desc`` in ``cute/atom/mma_traits_sm90_gmma.hpp`` documents the same), ``W`` =
1, 2, 4, 8 for INTER, SW32, SW64, SW128::

    K-major,  INTER   : ((8,n),2):((1,SBO),LBO)          core matrix = 8 rows x 16 B, LBO steps K
    K-major,  swizzled: ((8,n),2):((W,SBO),1)            rows W*16 B apart, SBO steps 8-row groups (LBO unused)
    MN-major, INTER   : ((1,n),(8,k)):((-,SBO),(1,LBO))  8 K-rows of 16 B, SBO steps MN, LBO steps K
    MN-major, swizzled: ((W,n),(8,k)):((1,LBO),(W,SBO))  LBO steps W*16-byte MN blocks, SBO steps 8-row K groups

composed with ``Swizzle<B,4,3>`` on byte addresses (B = log2 W). ``gmma_descriptor`` recognises the form exactly as
CuTe does -- ``upcast`` to 16-byte units, ``logical_divide`` by ``(8,2)`` (K-major) or ``(W,8)`` (MN-major), then the
profile and the fixed strides -- and refuses anything else with a ``LayoutError`` naming the broken condition.

Addresses. ``smem_layout`` is ``Sw o o o L`` in elements (or a plain ``L``, INTER) over a buffer starting at byte
``base_address``: element ``c`` lives at ``base_address + e*Sw(o + L(c))``. The swizzle pattern is anchored at the
buffer start; the hardware XORs the 16-byte chunk bits 4..6 with address bits 7..9 of the *absolute* address, so a
buffer not aligned to the pattern (1024 / 512 / 256 bytes) needs ``base_offset = (pattern start mod period) >> 7``
(PTX ISA: "base offset = (pattern start addr >> 0x7) & 0x7"; CuTe always writes 0 and aligns its buffers). The start
address is ``base_address + e*(o + L(0))``; a mainloop's K-block advance adds the block's unswizzled byte offset
to the low 32 bits (CuTe's ``DescriptorIterator``).

Worked example: ``Sw<3,3,3> o 0 o ((8,8),16):((64,512),1)`` (f16, the first 16-wide K-block of a 64x64 SW128 K-major
tile) in 16-byte units is ``((8,8),2):((8,64),1)``: W = 8, SBO = 64 u = 1024 B, LBO = 1 u (unused): value
``0x4000004000010000`` at address 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutcheck.algebra.inttuple import is_int, is_tuple
from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.algebra.tiling import logical_divide, upcast, zipped_divide
from layoutcheck.errors import LayoutError, NotDivisibleError
from layoutcheck.hw.wgmma import (
    GMMA_BITS,
    GMMA_DESCRIPTOR_FIELDS,
    GMMA_K_BYTES,
    GMMA_LAYOUT_TYPE,
    GMMA_PATTERN_BYTES,
)

_MODE_OF_TYPE = {v: k for k, v in GMMA_LAYOUT_TYPE.items()}
_MODE_OF_BITS = {0: "INTER", 1: "SW32", 2: "SW64", 3: "SW128"}
_W = {"INTER": 1, "SW32": 2, "SW64": 4, "SW128": 8}


def element_bytes(dtype: str) -> int:
    """Bytes per element of a wgmma shared-memory operand type (``f16``, ``bf16``, ``tf32``, ``e4m3``, ``s8``...)."""
    if dtype not in GMMA_BITS:
        raise LayoutError(f"unknown wgmma operand dtype {dtype!r}: expected one of {', '.join(GMMA_BITS)}")
    return GMMA_BITS[dtype] // 8


def _major(major: str) -> str:
    m = str(major).upper()
    if m not in ("K", "MN"):
        raise LayoutError(f"major must be 'K' or 'MN', found {major!r}")
    return m


@dataclass(frozen=True, slots=True)
class GmmaDescriptor:
    """The five fields of a wgmma matrix descriptor, byte quantities in bytes; ``.value`` is the 64-bit word.

    >>> d = GmmaDescriptor(0, 16, 1024, 0, "SW128")
    >>> hex(d.value), GmmaDescriptor.from_value(d.value) == d
    ('0x4000004000010000', True)
    """

    start_address: int
    leading_byte_offset: int
    stride_byte_offset: int
    base_offset: int
    layout_type: str  # "INTER", "SW32", "SW64", "SW128"

    def __post_init__(self) -> None:
        for f in GMMA_DESCRIPTOR_FIELDS[:4]:
            v = getattr(self, f.name)
            if not is_int(v) or v < 0:
                raise LayoutError(f"GMMA descriptor field {f.name} must be a non-negative int, found {v!r}")
        if self.layout_type not in GMMA_LAYOUT_TYPE:
            raise LayoutError(f"GMMA layout_type {self.layout_type!r}: expected one of {', '.join(GMMA_LAYOUT_TYPE)}")

    def violations(self) -> list[tuple[str, str]]:
        """``(law, message)`` for every field that the 64-bit word cannot hold exactly: ``range`` or ``align``."""
        out = []
        for f in GMMA_DESCRIPTOR_FIELDS[:4]:
            v = getattr(self, f.name)
            if v & ((1 << f.shift) - 1):
                out.append(("align", f"{f.name} = {v} is not a multiple of {1 << f.shift} bytes"))
            if v >> f.shift >= 1 << f.width:
                out.append(("range", f"{f.name} = {v} does not fit {f.width} bits"
                                      + (f" after >> {f.shift} (max {((1 << f.width) - 1) << f.shift})" if f.shift
                                         else f" (max {(1 << f.width) - 1})")))
        return out

    @property
    def value(self) -> int:
        """The 64-bit descriptor; ``LayoutError`` when a field does not fit (``violations()``)."""
        bad = self.violations()
        if bad:
            raise LayoutError(f"GMMA descriptor cannot encode: {'; '.join(m for _, m in bad)}")
        word = 0
        for f in GMMA_DESCRIPTOR_FIELDS:
            v = GMMA_LAYOUT_TYPE[self.layout_type] if f.name == "layout_type" else getattr(self, f.name)
            word |= (v >> f.shift) << f.lo
        return word

    @staticmethod
    def from_value(word: int) -> GmmaDescriptor:
        """Decode a 64-bit descriptor word into its fields (bits outside the fields are ignored)."""
        if not is_int(word) or not 0 <= word < 1 << 64:
            raise LayoutError(f"a GMMA descriptor is a 64-bit unsigned int, found {word!r}")
        vals = {f.name: ((word >> f.lo) & ((1 << f.width) - 1)) << f.shift for f in GMMA_DESCRIPTOR_FIELDS}
        vals["layout_type"] = _MODE_OF_TYPE[vals["layout_type"]]
        return GmmaDescriptor(**vals)

    def advance(self, nbytes: int) -> GmmaDescriptor:
        """CuTe's ``DescriptorIterator + offset``: ``nbytes / 16`` added to the low 32 bits (start address field)."""
        if nbytes % 16:
            raise LayoutError(f"a descriptor advances in 16-byte units, found {nbytes} bytes")
        low = ((self.value & 0xFFFFFFFF) + nbytes // 16) & 0xFFFFFFFF
        return GmmaDescriptor.from_value((self.value & ~0xFFFFFFFF) | low)

    @property
    def pattern_bytes(self) -> int:
        return GMMA_PATTERN_BYTES[self.layout_type]

    def __str__(self) -> str:
        return (f"GmmaDescriptor(start={self.start_address:#x}, LBO={self.leading_byte_offset}, "
                f"SBO={self.stride_byte_offset}, base_offset={self.base_offset}, {self.layout_type})")


# -- recognising the canonical form ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Canonical:
    """A layout's canonical GMMA form: mode, byte offsets LBO / SBO, element offset of its start, shape (MN, K)."""

    mode: str
    leading_byte_offset: int
    stride_byte_offset: int
    start: int  # element offset o + L(0) inside the buffer
    shape: tuple[int, int]


def _split(layout: Layout | ComposedLayout) -> tuple[Swizzle, int, Layout]:
    if isinstance(layout, ComposedLayout):
        return layout.swizzle, layout.offset, layout.layout
    if isinstance(layout, Layout):
        return Swizzle(0, 0, 0), 0, layout
    raise LayoutError(f"a GMMA operand layout is a Layout or a swizzled ComposedLayout, found {layout!r}")


def _mode_of(sw: Swizzle, e: int, where: str) -> str:
    m = 4 - (e.bit_length() - 1)
    if sw.bits == 0:
        return "INTER"
    if sw.bits > 3 or sw.base != m or sw.shift != 3:
        raise LayoutError(f"{where}: swizzle {sw} is not a GMMA swizzle for {8 * e}-bit elements: expected "
                          f"Sw<B,{m},3> with B in 0..3 (Swizzle<B,4,3> on bytes)")
    return _MODE_OF_BITS[sw.bits]


def _pair(mode: Layout, what: str, where: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """``(shape, stride)`` of a divided mode that must be exactly ``(a, b):(s, t)`` (CuTe's profile check)."""
    s, d = mode.shape, mode.stride
    if not (is_tuple(s) and len(s) == 2 and all(is_int(x) for x in s)):
        raise LayoutError(f"{where}: not a canonical GMMA layout: the {what} mode divides into {mode}, expected "
                          f"a flat pair (profile failure)")
    return s, d  # type: ignore[return-value]


def canonical_gmma(smem_layout: Layout | ComposedLayout, dtype: str, major: str) -> Canonical:
    """The canonical GMMA form of an ``(MN, K)`` operand layout; ``LayoutError`` naming the failed condition.

    Pre: ``smem_layout`` rank 2 ``(MN, K)`` in elements, K = 32 bytes (one dense wgmma).
    Post: ``decode_gmma_descriptor`` of the resulting descriptor reads every element where ``smem_layout`` puts it.

    >>> c = canonical_gmma(ComposedLayout(Swizzle(3,3,3), 0, Layout(((8,8),16),((64,512),1))), "f16", "K")
    >>> c.mode, c.leading_byte_offset, c.stride_byte_offset
    ('SW128', 16, 1024)
    """
    maj, e = _major(major), element_bytes(dtype)
    where = f"{major}-major {dtype} operand {smem_layout}"
    sw, off, lay = _split(smem_layout)
    mode = _mode_of(sw, e, where)
    if len(lay) != 2:
        raise LayoutError(f"{where}: expected a rank-2 (MN, K) layout, found rank {len(lay)}")
    k_elems = GMMA_K_BYTES // e
    if size(lay[1]) != k_elems:
        raise LayoutError(f"{where}: K extent {size(lay[1])} elements, a dense wgmma reads K = {k_elems} "
                          f"({GMMA_K_BYTES} bytes)")
    t = 16 // e
    try:
        u = upcast(lay, t)
    except NotDivisibleError as err:
        raise LayoutError(f"{where}: not made of 16-byte chunks ({err})") from None
    w = _W[mode]
    packed, want = (1, GMMA_K_BYTES // 16) if maj == "K" else (0, size(lay[0]) // t)
    if size(u[packed]) != want:
        raise LayoutError(f"{where}: not a canonical GMMA {maj} layout: the 16-byte chunks do not run along "
                          f"{'K' if maj == 'K' else 'MN'} (in 16-byte units the layout is {u})")
    if maj == "K":
        if size(lay[0]) % 8:
            raise LayoutError(f"{where}: not a canonical GMMA K layout: MN extent {size(lay[0])} is not a multiple "
                              f"of 8 rows")
        div = logical_divide(u, (Layout(8), Layout(2)))
        (_, _), (s00, sbo) = _pair(div[0], "MN", where)
        (_, _), (lbo, _) = _pair(div[1], "K", where)
        if s00 != w:
            raise LayoutError(f"{where}: not a canonical GMMA K layout: rows of a core matrix are {16 * s00} bytes "
                              f"apart, {mode} needs {16 * w} (stride failure)")
        if mode != "INTER" and lbo != 1:
            raise LayoutError(f"{where}: not a canonical GMMA K layout: the two 16-byte K chunks are {16 * lbo} "
                              f"bytes apart, {mode} needs them adjacent (stride failure)")
    else:
        if size(u[0]) % w:
            raise LayoutError(f"{where}: not a canonical GMMA MN layout: MN extent {size(lay[0])} is not a multiple "
                              f"of the {16 * w}-byte swizzle width")
        div = logical_divide(u, (Layout(w), Layout(8)))
        (_, _), (s00, s01) = _pair(div[0], "MN", where)
        (_, _), (s10, s11) = _pair(div[1], "K", where)
        if mode != "INTER" and s00 != 1:
            raise LayoutError(f"{where}: not a canonical GMMA MN layout: MN is not contiguous in 16-byte units "
                              f"(stride {s00}, stride failure)")
        if s10 != w:
            raise LayoutError(f"{where}: not a canonical GMMA MN layout: K rows are {16 * s10} bytes apart, {mode} "
                              f"needs {16 * w} (stride failure)")
        sbo, lbo = (s01, s11) if mode == "INTER" else (s11, s01)
    if sbo < 0 or lbo < 0:
        raise LayoutError(f"{where}: negative core-matrix offset (LBO {16 * lbo}, SBO {16 * sbo} bytes)")
    return Canonical(mode, 16 * lbo, 16 * sbo, off + lay(0), (size(lay[0]), size(lay[1])))


def base_offset_for(pattern_start: int, mode: str) -> int:
    """The ``base_offset`` field for a swizzle pattern anchored at byte ``pattern_start`` (0 when aligned or INTER).

    >>> base_offset_for(1024 + 3 * 128, "SW128"), base_offset_for(512, "SW64"), base_offset_for(384, "INTER")
    (3, 0, 0)
    """
    return 0 if mode == "INTER" else (pattern_start % GMMA_PATTERN_BYTES[mode]) >> 7


def unchecked_descriptor(smem_layout: Layout | ComposedLayout, dtype: str, major: str,
                         base_address: int = 0) -> GmmaDescriptor:
    """The descriptor of ``smem_layout`` without the range/alignment checks (properties report those)."""
    if not is_int(base_address) or base_address < 0:
        raise LayoutError(f"base_address must be a non-negative byte address, found {base_address!r}")
    c = canonical_gmma(smem_layout, dtype, major)
    return GmmaDescriptor(base_address + element_bytes(dtype) * c.start, c.leading_byte_offset,
                          c.stride_byte_offset, base_offset_for(base_address, c.mode), c.mode)


def gmma_descriptor(smem_layout: Layout | ComposedLayout, dtype: str, major: str,
                    base_address: int = 0) -> GmmaDescriptor:
    """The wgmma descriptor that reads ``smem_layout`` (an ``(MN, K)`` operand slice) in a buffer at ``base_address``.

    Pre: ``smem_layout`` is a canonical GMMA layout (module docstring) of one dense wgmma's operand; its start and
    byte offsets are 16-byte aligned and below 256 KiB. Post: ``decode_gmma_descriptor(result, dtype, major,
    MN)`` places every element at ``base_address + e * smem_layout(mn, k)``.

    >>> hex(gmma_descriptor(ComposedLayout(Swizzle(3,3,3), 0, Layout(((8,8),16),((64,512),1))), "f16", "K").value)
    '0x4000004000010000'
    """
    d = unchecked_descriptor(smem_layout, dtype, major, base_address)
    bad = d.violations()
    if bad:
        raise LayoutError(f"{major}-major {dtype} operand {smem_layout} at {base_address}: the descriptor cannot "
                          f"encode it: {'; '.join(m for _, m in bad)}")
    return d


# -- decoding: the layout the hardware reads -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SmemOperand:
    """What a descriptor reads: element ``(mn, k)`` at byte ``base_address + e * layout(mn, k)``."""

    layout: ComposedLayout
    base_address: int
    element_bytes: int

    def addresses(self) -> np.ndarray:
        """Byte address of every element, flat colex over ``(MN, K)``."""
        return self.base_address + self.element_bytes * self.layout.offsets()

    def __str__(self) -> str:
        return f"{self.base_address} + {self.element_bytes}B * ({self.layout})"


def canonical_layout(mode: str, major: str, e: int, mn: int, lbo: int, sbo: int) -> Layout:
    """The canonical ``(MN, K)`` layout in elements for byte offsets ``lbo`` / ``sbo`` (module docstring table).

    >>> str(canonical_layout("SW128", "K", 2, 64, 16, 1024))
    '((8,8),(8,2)):((64,512),(1,8))'
    """
    t, w, k = 16 // e, _W[mode], GMMA_K_BYTES // e
    lb, sb = lbo // e, sbo // e
    if major == "K":
        if mn % 8:
            raise LayoutError(f"K-major GMMA operand: MN = {mn} is not a multiple of 8")
        row = t if mode == "INTER" else w * t
        return Layout(((8, mn // 8), (t, 2)), ((row, sb), (1, lb if mode == "INTER" else t)))
    if mn % (w * t):
        raise LayoutError(f"MN-major {mode} GMMA operand: MN = {mn} is not a multiple of {w * t} elements")
    if mode == "INTER":
        return Layout(((t, mn // t), (8, k // 8)), ((1, sb), (t, lb)))
    return Layout(((t, w, mn // (w * t)), (8, k // 8)), ((1, t, lb), (w * t, sb)))


def decode_gmma_descriptor(desc: GmmaDescriptor | int, dtype: str, major: str, mn: int) -> SmemOperand:
    """The shared-memory layout a wgmma reads through ``desc`` for an ``mn x K`` operand (K = 32 bytes).

    The swizzle pattern is anchored at the largest address ``P <= start`` with ``P = 128 * base_offset`` modulo the
    pattern period; the result is ``P + e * (Sw o (start - P)/e o canonical)``.

    >>> str(decode_gmma_descriptor(0x4000004000010000, "f16", "K", 64))
    '0 + 2B * (Sw<3,3,3> o 0 o ((8,8),(8,2)):((64,512),(1,8)))'
    """
    d = GmmaDescriptor.from_value(desc) if is_int(desc) else desc
    if not isinstance(d, GmmaDescriptor):
        raise LayoutError(f"expected a GmmaDescriptor or its 64-bit value, found {desc!r}")
    maj, e = _major(major), element_bytes(dtype)
    lay = canonical_layout(d.layout_type, maj, e, mn, d.leading_byte_offset, d.stride_byte_offset)
    period = d.pattern_bytes
    anchor = 0 if d.layout_type == "INTER" else 128 * d.base_offset
    p = d.start_address - ((d.start_address - anchor) % period)
    if p < 0:
        p = 0 if d.layout_type == "INTER" else p + period
    if p > d.start_address:
        raise LayoutError(f"{d}: start address {d.start_address} lies before its swizzle pattern start {p}")
    bits = {"INTER": 0, "SW32": 1, "SW64": 2, "SW128": 3}[d.layout_type]
    sw = Swizzle(bits, 4 - (e.bit_length() - 1), 3) if bits else Swizzle(0, 0, 0)
    return SmemOperand(ComposedLayout(sw, (d.start_address - p) // e, lay), p, e)


# -- a mainloop: one descriptor per (MN-block, K-block) of a stage tile ----------------------------------------------
@dataclass(frozen=True, slots=True)
class GmmaBlocks:
    """A stage tile cut into wgmma operand blocks: ``tile`` = ``((mb,kb),(blocks_mn, blocks_k))`` (zipped_divide)."""

    tile: Layout
    swizzle: Swizzle
    offset: int
    block: tuple[int, int]

    @property
    def count(self) -> int:
        return size(self.tile[1])

    def block_layout(self) -> ComposedLayout:
        """The first block as a composed layout (its start at ``offset``)."""
        return ComposedLayout(self.swizzle, self.offset, self.tile[0])

    def block_offset(self, r: int) -> int:
        """Element offset (unswizzled) of block ``r``'s first element relative to block 0 (colex over the rest)."""
        return self.tile[1](r)

    def expected(self, base_address: int, e: int) -> np.ndarray:
        """``[r, i]``: byte address the stage layout gives element ``i`` (colex in the block) of block ``r``."""
        offs = self.tile.offsets().reshape(self.count, size(self.tile[0]))
        return base_address + e * self.swizzle(offs + self.offset)


def gmma_blocks(stage: Layout | ComposedLayout, dtype: str, block_mn: int | None = None) -> GmmaBlocks:
    """Cut an ``(MN, BK)`` stage layout into wgmma operand blocks of ``(block_mn, K = 32 bytes)``.

    >>> b = gmma_blocks(ComposedLayout(Swizzle(3,3,3), 0, Layout((64,(64,2)),(64,(1,4096)))), "f16")
    >>> b.count, b.block_offset(1), b.block_offset(4)
    (8, 16, 4096)
    """
    sw, off, lay = _split(stage)
    if len(lay) != 2:
        raise LayoutError(f"a GMMA stage tile is a rank-2 (MN, K) layout, found {lay}")
    mb = size(lay[0]) if block_mn is None else block_mn
    kb = GMMA_K_BYTES // element_bytes(dtype)
    if size(lay[0]) % mb or size(lay[1]) % kb:
        raise LayoutError(f"stage tile {stage}: ({mb}, {kb}) blocks do not divide its shape ({size(lay[0])}, "
                          f"{size(lay[1])})")
    return GmmaBlocks(zipped_divide(lay, (Layout(mb), Layout(kb))), sw, off, (mb, kb))


def descriptor_reads(stage: Layout | ComposedLayout, dtype: str, major: str, block_mn: int | None = None,
                     base_address: int = 0, wgmma_layout: Layout | ComposedLayout | None = None) -> np.ndarray | None:
    """``[r, i]``: the byte address a mainloop's wgmma reads for element ``i`` (colex over ``(block_mn, K)``) of block
    ``r`` of ``stage`` (``gmma_blocks``), through block 0's descriptor advanced by the block's offset (CuTe's
    ``DescriptorIterator``); the descriptor is built from ``wgmma_layout`` when given (a kernel whose descriptors
    describe another layout than its data). ``None`` when no descriptor can be formed.

    Post: ``out == gmma_blocks(stage, ...).expected(base_address, e)`` exactly when the descriptors read ``stage``.

    >>> st = ComposedLayout(Swizzle(3,3,3), 0, Layout((64,(64,2)),(64,(1,4096))))
    >>> r = descriptor_reads(st, "f16", "K")
    >>> r.shape, bool((r == gmma_blocks(st, "f16").expected(0, 2)).all())
    ((8, 1024), True)
    """
    blocks = gmma_blocks(stage, dtype, block_mn)
    src = blocks if wgmma_layout is None else gmma_blocks(wgmma_layout, dtype, block_mn)
    try:
        d0 = unchecked_descriptor(src.block_layout(), dtype, major, base_address)
    except LayoutError:
        return None
    e = element_bytes(dtype)
    out = np.empty((blocks.count, size(blocks.tile[0])), dtype=np.int64)
    for r in range(blocks.count):
        step = e * src.block_offset(r)
        if d0.violations() or step % 16:
            return None
        out[r] = decode_gmma_descriptor(d0.advance(step), dtype, major, blocks.block[0]).addresses()
    return out
