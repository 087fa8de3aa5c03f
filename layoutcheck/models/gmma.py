"""The GMMA (wgmma) shared-memory matrix descriptor as a value: built from a layout, decoded back into one.

A wgmma reads its A/B operand tile (``MN x K``, K = 32 bytes for dense MMAs) from shared memory through a 64-bit
descriptor (fields in ``layoutcheck.hw.wgmma.GMMA_DESCRIPTOR_FIELDS``). The hardware accepts exactly the *canonical*
layouts (PTX ISA 9.7.15.5.1 "Shared Memory Matrix Layout"), recognised by ``models.canonical`` -- the one recogniser
of GMMA and UMMA operands -- over wgmma's atoms ``ATOMS`` (INTER, SW32, SW64, SW128: ``Swizzle<B,4,3>`` on bytes);
anything else is refused with a ``DescriptorError`` naming the broken condition.

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

from layoutcheck.algebra.inttuple import is_int
from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle, inner, shared_offsets
from layoutcheck.algebra.tiling import zipped_divide
from layoutcheck.errors import DescriptorError, LayoutError
from layoutcheck.hw.smem import SWIZZLE_MODES, SWIZZLE_SPAN_BYTES
from layoutcheck.hw.wgmma import (
    GMMA_BITS,
    GMMA_DESCRIPTOR,
    GMMA_DESCRIPTOR_FIELDS,
    GMMA_K_BYTES,
    GMMA_LAYOUT_TYPE,
    GMMA_PATTERN_BYTES,
)
from layoutcheck.memo import memoised
from layoutcheck.models.canonical import CanonicalForm, SwizzleAtom, canonical_form, canonical_layout, split

_MODE_OF_TYPE = {v: k for k, v in GMMA_LAYOUT_TYPE.items()}

WRITERS = ("tma", "threads")
"""Who wrote a stage, and so where its swizzle pattern is anchored: ``tma`` swizzles on *absolute* shared-memory
address bits (PTX ISA 5.5.7, measured: ``docs/tma.md``), ``threads`` store through the composed layout from the
buffer start (the pattern anchored at ``base_address``). The two agree when the buffer starts on a pattern boundary."""


def check_writer(written_by: str) -> str:
    if written_by not in WRITERS:
        raise LayoutError(f"written_by must be one of {', '.join(WRITERS)}, found {written_by!r}")
    return written_by


def placed(stage: Layout | ComposedLayout, base_address: int, e: int, written_by: str = "threads") -> np.ndarray:
    """Byte address of every element of ``stage`` (flat colex) in a buffer at ``base_address``, as ``written_by``
    stores it: ``threads``: ``base + e*Sw(o + L(c))``; ``tma``: ``e*Sw(base/e + o + L(c))`` (absolute swizzle).

    >>> st = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1)))
    >>> int(placed(st, 1408, 2, "threads")[1]), int(placed(st, 1408, 2, "tma")[1])
    (1552, 1600)
    """
    sw, off, lay = split(stage)
    offs = np.asarray(lay.offsets(), dtype=np.int64) + off
    if check_writer(written_by) == "threads":
        return base_address + e * np.asarray(sw(offs), dtype=np.int64)
    if base_address % e:
        raise LayoutError(f"a TMA-written stage at byte {base_address} is not aligned to its {e}-byte elements")
    return e * np.asarray(sw(offs + base_address // e), dtype=np.int64)


def element_bytes(dtype: str) -> int:
    """Bytes per element of a wgmma shared-memory operand type (``f16``, ``bf16``, ``tf32``, ``e4m3``, ``s8``...)."""
    if dtype not in GMMA_BITS:
        raise LayoutError(f"unknown wgmma operand dtype {dtype!r}: expected one of {', '.join(GMMA_BITS)}")
    return GMMA_BITS[dtype] // 8


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
        return [bad for f in GMMA_DESCRIPTOR_FIELDS[:4] for bad in f.quantity_issues(getattr(self, f.name))]

    @property
    def value(self) -> int:
        """The 64-bit descriptor; ``LayoutError`` when a field does not fit (``violations()``)."""
        bad = self.violations()
        if bad:
            raise LayoutError(f"GMMA descriptor cannot encode: {'; '.join(m for _, m in bad)}")
        return GMMA_DESCRIPTOR.encode({f.name: getattr(self, f.name) for f in GMMA_DESCRIPTOR_FIELDS[:4]}
                                      | {"layout_type": GMMA_LAYOUT_TYPE[self.layout_type]})

    @staticmethod
    def from_value(word: int) -> GmmaDescriptor:
        """Decode a 64-bit descriptor word into its fields (bits outside the fields are ignored)."""
        if not is_int(word) or not 0 <= word < 1 << 64:
            raise LayoutError(f"a GMMA descriptor is a 64-bit unsigned int, found {word!r}")
        vals = {f.name: f.quantity(word) for f in GMMA_DESCRIPTOR_FIELDS}
        vals["layout_type"] = _MODE_OF_TYPE[vals["layout_type"]]
        return GmmaDescriptor(**vals)

    def advance(self, nbytes: int) -> GmmaDescriptor:
        """CuTe's ``DescriptorIterator + offset``: ``nbytes / 16`` added to the low 32 bits (start address field)."""
        if nbytes % 16:
            raise LayoutError(f"a descriptor advances in 16-byte units, found {nbytes} bytes")
        return GmmaDescriptor.from_value(GMMA_DESCRIPTOR.advance(self.value, "start_address", nbytes))

    @property
    def pattern_bytes(self) -> int:
        return GMMA_PATTERN_BYTES[self.layout_type]

    def __str__(self) -> str:
        return (f"GmmaDescriptor(start={self.start_address:#x}, LBO={self.leading_byte_offset}, "
                f"SBO={self.stride_byte_offset}, base_offset={self.base_offset}, {self.layout_type})")


# -- recognising the canonical form (one recogniser for GMMA and UMMA: models.canonical) -----------------------------
ATOMS: dict[str, SwizzleAtom] = {m: SwizzleAtom(m, Swizzle(b, 4, 3), SWIZZLE_SPAN_BYTES[m] // 16)
                                 for m, b in SWIZZLE_MODES.items()}
"""wgmma's swizzle atoms (``hw.smem``): ``Swizzle<B,4,3>`` on byte addresses, rows of span / 16 16-byte units."""


@memoised(32)
def canonical_gmma(smem_layout: Layout | ComposedLayout, dtype: str, major: str) -> CanonicalForm:
    """The canonical GMMA form of an ``(MN, K)`` operand layout; ``DescriptorError`` naming the failed condition.

    Pre: ``smem_layout`` rank 2 ``(MN, K)`` in elements, K = 32 bytes (one dense wgmma).
    Post: ``decode_gmma_descriptor`` of the resulting descriptor reads every element where ``smem_layout`` puts it.
    Once per block layout (``memoised``): each claim of a stage and its descriptor reads recognise it.

    >>> c = canonical_gmma(ComposedLayout(Swizzle(3,3,3), 0, Layout(((8,8),16),((64,512),1))), "f16", "K")
    >>> c.atom.name, 16 * c.lbo, 16 * c.sbo
    ('SW128', 16, 1024)
    """
    return _canonical(smem_layout, dtype, major)


def _canonical(smem_layout: Layout | ComposedLayout, dtype: str, major: str) -> CanonicalForm:
    return canonical_form(smem_layout, dtype, 8 * element_bytes(dtype), major, tuple(ATOMS.values()), "GMMA",
                          GMMA_K_BYTES)


def base_offset_for(pattern_start: int, mode: str) -> int:
    """The ``base_offset`` field for a swizzle pattern anchored at byte ``pattern_start`` (0 when aligned or INTER).

    >>> base_offset_for(1024 + 3 * 128, "SW128"), base_offset_for(512, "SW64"), base_offset_for(384, "INTER")
    (3, 0, 0)
    """
    return 0 if mode == "INTER" else (pattern_start % GMMA_PATTERN_BYTES[mode]) >> 7


def unchecked_descriptor(smem_layout: Layout | ComposedLayout, dtype: str, major: str,
                         base_address: int = 0, written_by: str = "threads") -> GmmaDescriptor:
    """The descriptor of ``smem_layout`` without the range/alignment checks (properties report those); its base
    offset anchors the pattern where ``written_by`` put it (``WRITERS``: 0 for ``tma``, absolute)."""
    if not is_int(base_address) or base_address < 0:
        raise LayoutError(f"base_address must be a non-negative byte address, found {base_address!r}")
    c = canonical_gmma(smem_layout, dtype, major)
    anchor = base_address if check_writer(written_by) == "threads" else 0
    lbo, sbo = GMMA_DESCRIPTOR_FIELDS[1:3]  # the canonical form's 16-byte units are the fields' units
    return GmmaDescriptor(base_address + element_bytes(dtype) * c.start, lbo.quantity_of(c.lbo), sbo.quantity_of(c.sbo),
                          base_offset_for(anchor, c.atom.name), c.atom.name)


def gmma_descriptor(smem_layout: Layout | ComposedLayout, dtype: str, major: str,
                    base_address: int = 0, written_by: str = "threads") -> GmmaDescriptor:
    """The wgmma descriptor that reads ``smem_layout`` (an ``(MN, K)`` operand slice) in a buffer at ``base_address``.

    Pre: ``smem_layout`` is a canonical GMMA layout (module docstring) of one dense wgmma's operand; its start and
    byte offsets are 16-byte aligned and below 256 KiB. Post: ``decode_gmma_descriptor(result, dtype, major,
    MN)`` places every element at ``base_address + e * smem_layout(mn, k)``.

    >>> hex(gmma_descriptor(ComposedLayout(Swizzle(3,3,3), 0, Layout(((8,8),16),((64,512),1))), "f16", "K").value)
    '0x4000004000010000'
    """
    d = unchecked_descriptor(smem_layout, dtype, major, base_address, written_by)
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
        return self.base_address + self.element_bytes * shared_offsets(self.layout)

    def __str__(self) -> str:
        return f"{self.base_address} + {self.element_bytes}B * ({self.layout})"


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
    e = element_bytes(dtype)
    atom = ATOMS[d.layout_type]
    units = {f.name: f.stored(getattr(d, f.name)) for f in GMMA_DESCRIPTOR_FIELDS[1:3]}  # LBO, SBO in 16 B
    lay = canonical_layout(atom, major, 8 * e, (mn, GMMA_K_BYTES // e), units["leading_byte_offset"],
                           units["stride_byte_offset"])
    period = d.pattern_bytes
    anchor = 0 if d.layout_type == "INTER" else 128 * d.base_offset
    p = d.start_address - ((d.start_address - anchor) % period)
    if p < 0:
        p = 0 if d.layout_type == "INTER" else p + period
    if p > d.start_address:
        raise LayoutError(f"{d}: start address {d.start_address} lies before its swizzle pattern start {p}")
    return SmemOperand(ComposedLayout(atom.on_elements(8 * e), (d.start_address - p) // e, lay), p, e)


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

    def expected(self, base_address: int, e: int, written_by: str = "threads") -> np.ndarray:
        """``[r, i]``: byte address the stage layout gives element ``i`` (colex in the block) of block ``r``, as
        ``written_by`` stores it (``placed``)."""
        offs = shared_offsets(self.tile).reshape(self.count, size(self.tile[0]))
        if check_writer(written_by) == "threads":
            return base_address + e * self.swizzle(offs + self.offset)
        return e * self.swizzle(offs + self.offset + base_address // e)


@memoised(32)
def gmma_blocks(stage: Layout | ComposedLayout, dtype: str, block_mn: int | None = None) -> GmmaBlocks:
    """Cut an ``(MN, BK)`` stage layout into wgmma operand blocks of ``(block_mn, K = 32 bytes)`` (once per stage: a
    config's claims, its descriptor reads and its data path all cut it).

    >>> b = gmma_blocks(ComposedLayout(Swizzle(3,3,3), 0, Layout((64,(64,2)),(64,(1,4096)))), "f16")
    >>> b.count, b.block_offset(1), b.block_offset(4)
    (8, 16, 4096)
    """
    return _blocks(stage, dtype, block_mn)


def _blocks(stage: Layout | ComposedLayout, dtype: str, block_mn: int | None) -> GmmaBlocks:
    sw, off, lay = split(stage)
    if len(lay) != 2:
        raise LayoutError(f"a GMMA stage tile is a rank-2 (MN, K) layout, found {lay}")
    mb = size(lay[0]) if block_mn is None else block_mn
    kb = GMMA_K_BYTES // element_bytes(dtype)
    if size(lay[0]) % mb or size(lay[1]) % kb:
        raise LayoutError(f"stage tile {stage}: ({mb}, {kb}) blocks do not divide its shape ({size(lay[0])}, "
                          f"{size(lay[1])})")
    return GmmaBlocks(zipped_divide(lay, (Layout(mb), Layout(kb))), sw, off, (mb, kb))


def stage_blocks(stage: Layout | ComposedLayout, dtype: str, block_mn: int | None) -> GmmaBlocks | None:
    """``gmma_blocks``, or ``None`` when ``block_mn`` divides the tile's MN extent but the blocks are no layout's
    image: a block starts inside a swizzle atom (NVIDIA/Fuser#4771: 96-wide blocks on 64-wide SW128 atoms). Such a
    stage is a wrong config, not an unreadable one: the kernel still forms a descriptor, and ``descriptor_reads``
    finds the element it misreads. Shape errors (rank, K, extents not divisible) raise ``LayoutError``.

    >>> st = ComposedLayout(Swizzle(3,3,3), 0, Layout(((64,3),64),((1,4096),64)))  # MN-major SW128, K-first atoms
    >>> stage_blocks(st, "f16", 64).count, stage_blocks(st, "f16", 96)
    (12, None)
    """
    gmma_blocks(stage, dtype, None)  # rank and K-extent errors
    if block_mn is None or size(inner(stage)[0]) % block_mn:
        return gmma_blocks(stage, dtype, block_mn)
    try:
        return gmma_blocks(stage, dtype, block_mn)
    except LayoutError:
        return None


def block_crd(mn_extent: int, block: tuple[int, int], r: int, i: int | np.ndarray) -> tuple[int | np.ndarray, ...]:
    """Tile coordinate ``(mn, k)`` of element ``i`` (colex over ``block = (mb, kb)``) of block ``r`` (colex over the
    ``(mn_extent / mb, K / kb)`` blocks): the order of ``gmma_blocks``' ``zipped_divide``.

    >>> block_crd(128, (64, 16), 3, 65)
    (65, 17)
    """
    mb, kb = block
    nm = mn_extent // mb
    return (r % nm) * mb + i % mb, (r // nm) * kb + i // mb


def block_index(mn_extent: int, block: tuple[int, int], mn: int | np.ndarray, k: int | np.ndarray) -> int | np.ndarray:
    """The block ``r`` holding tile coordinate ``(mn, k)``: the inverse of ``block_crd`` over its blocks.

    >>> block_index(128, (64, 16), 65, 17)
    3
    """
    mb, kb = block
    return mn // mb + (mn_extent // mb) * (k // kb)


@dataclass(frozen=True, slots=True)
class DescriptorReads:
    """Per block ``r`` of a stage: the bytes the stage gives its elements (``expected[r, i]``, ``i`` colex over the
    block), the bytes its descriptor reads (``None``: the advanced descriptor cannot be formed) and the descriptor."""

    block: tuple[int, int]
    expected: np.ndarray
    read: tuple[np.ndarray | None, ...]
    descs: tuple[GmmaDescriptor | None, ...]

    def addresses(self) -> np.ndarray | None:
        """``[r, i]``: what every block's descriptor reads; ``None`` when one cannot be formed."""
        if any(x is None for x in self.read):
            return None
        return np.stack(self.read).astype(np.int64, copy=False)  # type: ignore[arg-type]


def _advanced(d0: GmmaDescriptor, step: int) -> GmmaDescriptor | None:
    """``d0`` advanced ``step`` bytes (CuTe's ``DescriptorIterator``); ``None`` when it cannot be formed."""
    return d0.advance(step) if not d0.violations() and step % 16 == 0 else None


def block_descriptors(blocks: GmmaBlocks, d0: GmmaDescriptor, dtype: str) -> tuple[GmmaDescriptor | None, ...]:
    """Block ``r``'s descriptor: ``d0`` (block 0's) advanced by the block's unswizzled byte offset (CuTe's
    ``DescriptorIterator``); ``None`` where it cannot be formed (``d0`` out of range, an offset not 16-byte aligned).

    >>> b = gmma_blocks(ComposedLayout(Swizzle(3,3,3), 0, Layout((64,(64,2)),(64,(1,4096)))), "f16")
    >>> [d.start_address for d in block_descriptors(b, gmma_descriptor(b.block_layout(), "f16", "K"), "f16")][:5]
    [0, 32, 64, 96, 8192]
    """
    e = element_bytes(dtype)
    return tuple(_advanced(d0, e * blocks.block_offset(r)) for r in range(blocks.count))


def _first_descriptor(src: GmmaBlocks, dtype: str, major: str, base_address: int,
                      written_by: str = "threads") -> GmmaDescriptor:
    """Block 0's descriptor; ``DescriptorError`` when no descriptor describes it."""
    try:
        return unchecked_descriptor(src.block_layout(), dtype, major, base_address, written_by)
    except DescriptorError:
        raise
    except LayoutError as err:
        raise DescriptorError(str(err)) from None


@memoised(16)
def descriptor_reads(stage: Layout | ComposedLayout, dtype: str, major: str, block_mn: int | None = None,
                     base_address: int = 0, wgmma_layout: Layout | ComposedLayout | None = None,
                     desc: GmmaDescriptor | None = None, written_by: str = "threads",
                     anchor_by: str | None = None) -> DescriptorReads:
    """What a mainloop's wgmmas read of each block of ``stage`` (``gmma_blocks``) through block 0's descriptor
    advanced by the block's offset (CuTe's ``DescriptorIterator``), next to where ``stage`` puts each element.

    The descriptor is ``desc`` when given, else built from ``wgmma_layout`` when given (a kernel whose descriptors
    describe another layout than its data), else from ``stage``; ``written_by`` (``WRITERS``) says where the stage's
    swizzle pattern is anchored, for the expected bytes; the derived base offset assumes ``anchor_by`` (default:
    ``written_by``), so one descriptor can be checked against either writer. Blocks that start inside a swizzle atom
    (``stage_blocks`` is ``None``) are read through the whole-MN descriptor advanced to their first element.
    ``DescriptorError``: no descriptor describes the layout; ``LayoutError``: the blocks do not divide it.
    Post: ``read[r] == expected[r]`` for every ``r`` exactly when the descriptors read ``stage``.

    >>> st = ComposedLayout(Swizzle(3,3,3), 0, Layout((64,(64,2)),(64,(1,4096))))
    >>> r = descriptor_reads(st, "f16", "K")
    >>> r.addresses().shape, bool((r.addresses() == r.expected).all())
    ((8, 1024), True)
    """
    rd = _reads(stage, dtype, major, block_mn, base_address, wgmma_layout, desc, written_by, anchor_by or written_by)
    for a in (rd.expected, *rd.read):  # kept for the config's other claims and its data path: read-only
        if a is not None:
            a.setflags(write=False)
    return rd


def _reads(stage: Layout | ComposedLayout, dtype: str, major: str, block_mn: int | None, base_address: int,
           wgmma_layout: Layout | ComposedLayout | None, desc: GmmaDescriptor | None,
           written_by: str, anchor_by: str) -> DescriptorReads:
    blocks = stage_blocks(stage, dtype, block_mn)
    if blocks is None:
        return _straddled_reads(stage, dtype, major, block_mn, base_address,  # type: ignore[arg-type]
                                wgmma_layout, desc, written_by, anchor_by)
    src = blocks if wgmma_layout is None else gmma_blocks(wgmma_layout, dtype, block_mn)
    d0 = desc if desc is not None else _first_descriptor(src, dtype, major, base_address, anchor_by)
    descs = block_descriptors(src, d0, dtype)
    read = tuple(None if descs[r] is None else
                 decode_gmma_descriptor(descs[r], dtype, major, blocks.block[0]).addresses()  # type: ignore[arg-type]
                 for r in range(blocks.count))
    return DescriptorReads(blocks.block, blocks.expected(base_address, element_bytes(dtype), written_by), read, descs)


def _straddled_reads(stage: Layout | ComposedLayout, dtype: str, major: str, block_mn: int, base_address: int,
                     wgmma_layout: Layout | ComposedLayout | None, desc: GmmaDescriptor | None,
                     written_by: str, anchor_by: str) -> DescriptorReads:
    """Blocks that start inside a swizzle atom: block ``r`` at tile coordinate ``(mn0, k0)`` is read through the
    descriptor of the whole-MN block (the stage's own, or ``desc``) advanced by the unswizzled offset of
    ``(mn0, k0)``, as a kernel forms it; the hardware reads its canonical layout's first ``block_mn`` rows."""
    src = stage if wgmma_layout is None else wgmma_layout
    e, lay, src_lay = element_bytes(dtype), inner(stage), inner(src)
    whole = gmma_blocks(src, dtype, None)
    d0 = desc if desc is not None else _first_descriptor(whole, dtype, major, base_address, anchor_by)
    mnk, block = size(lay[0]), (block_mn, whole.block[1])
    count = (mnk // block_mn) * (size(lay[1]) // block[1])
    i = np.arange(block_mn * block[1])
    mn_l, k_l = block_crd(mnk, block, 0, i)
    offs = placed(stage, base_address, e, written_by)
    exp = np.empty((count, i.size), dtype=np.int64)
    reads: list[np.ndarray | None] = []
    descs: list[GmmaDescriptor | None] = []
    for r in range(count):
        mn0, k0 = block_crd(mnk, block, r, 0)
        exp[r] = offs[mn0 + mn_l + mnk * (k0 + k_l)]
        d = _advanced(d0, e * (src_lay(mn0, k0) - src_lay(0, 0)))
        descs.append(d)
        reads.append(None if d is None else
                     decode_gmma_descriptor(d, dtype, major, mnk).addresses()[mn_l + mnk * k_l])
    return DescriptorReads(block, exp, tuple(reads), tuple(descs))
