"""Descriptor claims: a tcgen05 shared-memory descriptor describes an operand tile, a descriptor format packs and
reads back, an instruction descriptor encodes its MMA (issues #17, #25, #30).

Definitions (each decided exhaustively over its finite domain; a witness is re-checked before it is shown)::

    umma_describes(L, desc)          the word is valid (every bit: ``hw.tcgen05.UMMA_SMEM_DESCRIPTOR``) and its
                                     canonical layout puts every element of the (MN, K) block where L does, for the
                                     writer of the stage (``written_by``; unset: both)
    descriptor_fields(fields, dom)   every field inside the word, every value fits, unpack(pack(v)) == v for every
                                     v in the product of the fields' value domains
    descriptor_fields (umma_instr)   the MMA exists, every field reads back, reserved bits 0

Worked example: ``0x4000004000010000`` (a wgmma descriptor ported to tcgen05 unchanged) on the first K block of a
K-major SW128 f16 tile is REFUTED: bits 46-48 are 0b000, the PTX ISA fixes them at 0b001.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product as iproduct
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.errors import DescriptorError, LayoutError
from layoutcheck.hw.bitfields import BitField
from layoutcheck.hw.tcgen05 import UMMA_SMEM_DESCRIPTOR
from layoutcheck.models.gmma import check_writer, placed
from layoutcheck.models.umma import decode_umma_descriptor, umma_descriptor
from layoutcheck.properties.base import Decision, Property, Undecided
from layoutcheck.properties.gmma import for_writers, recheck_writers, stored_by, word_decision, word_issue
from layoutcheck.witness_descriptors import (
    Canonical,
    FieldFit,
    FieldOutside,
    FieldOverlap,
    Major,
    Mma,
    Place,
    Shape,
    Word,
)
from layoutcheck.witness_record import with_fields


# -- UMMA descriptors --------------------------------------------------------------------------------------------
def _chunk_break(lay: Layout | ComposedLayout, e: int, major: str) -> int | None:
    """The first element (flat colex over ``(MN, K)``) that is not ``e`` bytes after its predecessor along ``major``
    inside one 16-byte chunk: every canonical ``major``-major layout keeps its 16-byte chunks contiguous along
    ``major`` (PTX ISA 9.7.16.4.3 canonical layouts; a swizzle permutes whole chunks), whatever the descriptor."""
    inner_ = lay.layout if isinstance(lay, ComposedLayout) else lay
    mn, k = size(inner_[0]), size(inner_[1])
    b = np.asarray(lay.offsets(), dtype=np.int64).reshape(k, mn).T * e  # [mn, k] bytes
    per = 16 // e
    if major == "MN":
        bad = (np.arange(mn)[1:, None] % per != 0) & (b[1:, :] != b[:-1, :] + e)
        rows, cols = np.nonzero(bad)
        hits = sorted(int(r + 1 + mn * c) for r, c in zip(rows, cols, strict=True))
    else:
        bad = (np.arange(k)[None, 1:] % per != 0) & (b[:, 1:] != b[:, :-1] + e)
        rows, cols = np.nonzero(bad)
        hits = sorted(int(r + mn * (c + 1)) for r, c in zip(rows, cols, strict=True))
    return hits[0] if hits else None


@dataclass(frozen=True, slots=True)
class UmmaDescribes(Property):
    """The canonical layout of ``descriptor`` (default: the one ``umma_descriptor`` computes for ``anchor_by``)
    equals ``layout`` at every coordinate of the ``(MN, K)`` tile, swizzle included, in a buffer at
    ``base_address`` stored by ``written_by`` (``tma``: swizzled on absolute address bits; ``threads``: the pattern
    anchored at ``base_address``; ``None``: it must hold for both). Every bit of a hand-written descriptor is checked
    (``hw.tcgen05.UMMA_SMEM_DESCRIPTOR``): a wrong fixed constant or an undefined layout type refutes it; reserved
    bits set, a base offset or LBO mode other than 0 are not modelled (UNKNOWN). ``k0``: the block's first K in the
    operand tile (coordinates are reported in the tile)."""

    layout: Layout | ComposedLayout
    dtype: str
    major: str
    base_address: int = 0
    descriptor: int | None = None
    written_by: str | None = None
    k0: int = 0
    name: ClassVar[str] = "umma_describes"

    def __post_init__(self) -> None:
        if self.written_by is not None:
            check_writer(self.written_by)

    def subjects(self) -> tuple[Layout | ComposedLayout, ...]:
        return (self.layout,)

    @property
    def anchor_by(self) -> str:
        """The writer a derived descriptor assumes: ``written_by``, else ``tma`` (base offset 0, as CUTLASS)."""
        return self.written_by or "tma"

    def _inner(self) -> Layout:
        return self.layout.layout if isinstance(self.layout, ComposedLayout) else self.layout

    def _eb(self) -> int:
        from layoutcheck.hw.tcgen05 import DTYPE_BITS

        return DTYPE_BITS[self.dtype] // 8

    def _word(self) -> int:
        """The descriptor checked; ``DescriptorError`` when none describes the layout (not canonical)."""
        if self.descriptor is not None:
            return self.descriptor
        return umma_descriptor(self.layout, self.dtype, self.major, self.base_address, self.anchor_by).value

    def _want(self, writer: str) -> np.ndarray:
        """Byte address of every element as ``writer`` stored it (``models.gmma.placed``)."""
        return placed(self.layout, self.base_address, self._eb(), writer)

    def _got(self) -> np.ndarray:
        lay = self._inner()
        back = decode_umma_descriptor(self._word(), self.dtype, self.major, (size(lay[0]), size(lay[1])))
        return np.asarray(back.swizzle(back.layout.offsets() + back.offset), dtype=np.int64) * self._eb()

    def _fields(self, word: int) -> Decision | Undecided | None:
        """Every bit of a hand-written ``word`` (``word_decision``); then, hand-written or derived, what is not
        modelled: a base offset or LBO mode other than 0."""
        d = word_decision(UMMA_SMEM_DESCRIPTOR, self.descriptor)
        if d is not None:
            return d
        f = UMMA_SMEM_DESCRIPTOR.unpack(word)
        if f["base_offset"] or f["lbo_mode"]:
            why = "" if self.descriptor is not None else \
                f" (the descriptor a stage stored by {self.anchor_by} at byte {self.base_address} needs)"
            return Undecided(f"descriptor 0x{word:016x}{why}: base offset {f['base_offset']} / LBO mode "
                             f"{f['lbo_mode']}: only 0 is modelled for tcgen05 (their effect is not measured on "
                             "sm_100)")
        return None

    def _decide(self, writer: str) -> Decision:
        want, got = self._want(writer), self._got()
        bad = np.flatnonzero(want != got)
        if bad.size:
            return Decision(False, Place(i=int(bad[0])),
                            {"descriptor": hex(self._word()), "wrong": int(bad.size)})
        return Decision(True, None, {"descriptor": hex(self._word())})

    def exhaustive(self) -> Decision | Undecided:  # type: ignore[override]
        try:
            word = self._word()
        except DescriptorError:
            i = _chunk_break(self.layout, self._eb(), self.major)
            return Decision(False, Major(i=i) if i is not None else Canonical())
        fields = self._fields(word)
        if fields is not None:
            return fields
        if word >> 61 == 1 and self.major == "K":  # SWIZZLE_128B_BASE32B is MN-major only
            return Decision(False, Canonical())
        return for_writers(self._decide, self.written_by, self.explain)

    def _recheck_one(self, w: dict[str, Any]) -> bool:
        want, got = self._want(w["writer"]), self._got()
        return 0 <= w["i"] < want.size and want[w["i"]] != got[w["i"]]

    def recheck(self, w: dict[str, Any]) -> bool:
        if w["kind"] == "word":
            return word_issue(UMMA_SMEM_DESCRIPTOR, self.descriptor, w["field"]) is not None
        if w["kind"] == "major":
            return _chunk_break(self.layout, self._eb(), self.major) == w["i"]
        if w["kind"] == "canonical":
            try:
                return self._word() >> 61 == 1 and self.major == "K"
            except DescriptorError:
                return True
        return recheck_writers(self._recheck_one, self._decide, self.written_by, w)

    def _tile_crd(self, i: int) -> str:
        mn = size(self._inner()[0])
        return f"(mn={i % mn}, k={self.k0 + i // mn})"

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "word":
            why = word_issue(UMMA_SMEM_DESCRIPTOR, self.descriptor, w["field"])
            return f"descriptor 0x{self.descriptor:016x}: {why}"
        if w["kind"] == "canonical":
            try:
                self._word()
            except DescriptorError as e:
                return f"no descriptor describes it: {e}"
            return "SWIZZLE_128B_BASE32B describes MN-major operands only (CUTLASS make_umma_desc)"
        if w["kind"] == "major":
            return self._explain_major(w["i"])
        want, got = self._want(w["writer"]), self._got()
        i = w["i"]
        who = stored_by(w["writer"], self.written_by, self.base_address)
        return (f"element {self._tile_crd(i)} is at byte {want[i]}{who} but descriptor 0x{self._word():016x} "
                f"addresses byte {got[i]}")

    def _explain_major(self, i: int) -> str:
        e, mn = self._eb(), size(self._inner()[0])
        b = np.asarray(self.layout.offsets(), dtype=np.int64) * e
        prev = i - 1 if self.major == "MN" else i - mn
        other = "K" if self.major == "MN" else "MN"
        return (f"element {self._tile_crd(i)} is at byte {b[i]}, but every {self.major}-major descriptor reads it "
                f"{e} bytes after element {self._tile_crd(prev)} (byte {b[prev] + e}): {self.major}-major operands "
                f"keep 16-byte chunks contiguous along {self.major}; the layout looks {other}-major (major = "
                f"\"{other}\"?)")


@dataclass(frozen=True, slots=True)
class UmmaDescribesAll(Property):
    """``umma_describes`` for every K block of an operand tile (each block's own descriptor): every K advance."""

    blocks: tuple[Layout | ComposedLayout, ...]
    dtype: str
    major: str
    base_address: int = 0
    written_by: str | None = None
    name: ClassVar[str] = "umma_describes"

    def _one(self, b: int) -> UmmaDescribes:
        blk = self.blocks[b]
        k = size((blk.layout if isinstance(blk, ComposedLayout) else blk)[1])
        return UmmaDescribes(blk, self.dtype, self.major, self.base_address, None, self.written_by, b * k)

    def subjects(self) -> tuple[Layout | ComposedLayout, ...]:
        return self.blocks[:1]

    def subject(self) -> str:
        return f"{self.blocks[0]} ({len(self.blocks)} K blocks, {self.dtype}, {self.major}-major)"

    def domain_size(self) -> int:
        return sum(size(b.layout if isinstance(b, ComposedLayout) else b) for b in self.blocks)

    def exhaustive(self) -> Decision | Undecided:  # type: ignore[override]
        descs = []
        for b in range(len(self.blocks)):
            d = self._one(b).exhaustive()
            if isinstance(d, Undecided):
                return Undecided(f"K block {b}: {d.reason}")
            if not d.holds:
                return Decision(False, with_fields(d.witness, block=b), d.stats)
            descs.append(d.stats["descriptor"])
        return Decision(True, None, {"descriptors": descs})

    def recheck(self, w: dict[str, Any]) -> bool:
        return self._one(w["block"]).recheck(w)

    def explain(self, w: dict[str, Any]) -> str:
        return f"K block {w['block']}: {self._one(w['block']).explain(w)}"


@dataclass(frozen=True, slots=True)
class DescriptorFields(Property):
    """Packing every field's value into one ``bits``-bit word and unpacking it again gives the values back, for every
    combination of the fields' value domains: every field lies inside the word, every value fits its field's width,
    and no two fields overlap (checked in that order; the first broken law is the counterexample)."""

    fields: tuple[BitField, ...]
    domains: tuple[tuple[int, ...], ...]
    bits: int = 64
    name: ClassVar[str] = "descriptor_fields"

    def __post_init__(self) -> None:
        if len(self.fields) != len(self.domains) or not self.fields:
            raise LayoutError("descriptor_fields: one value domain per field is needed")
        if self.bits < 1:
            raise LayoutError(f"descriptor_fields: a word has at least one bit, found {self.bits}")

    def subjects(self) -> tuple[Layout, ...]:
        return (Layout(self.domain_size()),)

    def subject(self) -> str:
        return f"{self.bits}-bit word: " + ", ".join(f"{f.name}[{f.lo},{f.hi})" for f in self.fields)

    def domain_size(self) -> int:
        return int(np.prod([len(d) for d in self.domains]))

    def _pack(self, vals: tuple[int, ...]) -> int:
        """The word a packer writing each value at its field's ``lo`` builds (no masking: overlaps show)."""
        word = 0
        for f, v in zip(self.fields, vals, strict=True):
            word |= v << f.lo
        return word

    def _bad(self, vals: tuple[int, ...]) -> str | None:
        word = self._pack(vals)
        for f, v in zip(self.fields, vals, strict=True):
            if f.get(word) != v:
                return f.name
        return None

    def _outside(self) -> dict[str, Any] | None:
        for j, f in enumerate(self.fields):
            if f.hi > self.bits:
                return FieldOutside(j)
        return None

    def _unfit(self) -> dict[str, Any] | None:
        for j, (f, dom) in enumerate(zip(self.fields, self.domains, strict=True)):
            for v in dom:
                if not f.fits(v):
                    return FieldFit(j, v)
        return None

    def exhaustive(self) -> Decision:
        w = self._outside() or self._unfit()
        if w is not None:
            return Decision(False, w)
        for vals in iproduct(*self.domains):
            name = self._bad(vals)
            if name is not None:
                return Decision(False, FieldOverlap(list(vals), name))
        return Decision(True, None, {"combinations": self.domain_size()})

    def recheck(self, w: dict[str, Any]) -> bool:
        if w["kind"] == "outside":
            return self.fields[w["f"]].hi > self.bits
        if w["kind"] == "fit":
            return w["value"] in self.domains[w["f"]] and not self.fields[w["f"]].fits(w["value"])
        return self._bad(tuple(w["values"])) == w["field"]

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "outside":
            f = self.fields[w["f"]]
            return (f"field {f.name} [{f.lo},{f.hi}) runs past bit {self.bits - 1} of the {self.bits}-bit word: bits "
                    f"{self.bits}..{f.hi - 1} do not exist")
        if w["kind"] == "fit":
            f = self.fields[w["f"]]
            return (f"value {w['value']} does not fit field {f.name} [{f.lo},{f.hi}): {f.width} bits hold 0.."
                    f"{(1 << f.width) - 1}; packed, it spills into bit {f.lo + w['value'].bit_length() - 1}")
        vals = tuple(w["values"])
        word = self._pack(vals)
        f = next(x for x in self.fields if x.name == w["field"])
        packed = ", ".join(f"{x.name}={v}" for x, v in zip(self.fields, vals, strict=True))
        return (f"packing {packed} gives 0x{word:x}, which reads back {f.name}={f.get(word)} "
                f"(bits [{f.lo},{f.hi}) overlap: " + ", ".join(
                    g.name for g in self.fields if g is not f and g.mask & f.mask) + ")")


@dataclass(frozen=True, slots=True)
class InstrDescriptorFields(Property):
    """The tcgen05 instruction descriptor of one MMA (``umma_instr``) encodes it: the MMA exists (a kind computes
    the types, CUTLASS's SM100 atoms accept ``M x N`` for ``cta_group``, MN-major only where the kind transposes),
    every field reads back its value, ``M``/``N`` read back from ``m_dim << 4`` / ``n_dim << 3``, and every other
    bit of the word is 0 (``hw.tcgen05.UMMA_INSTR_DESCRIPTOR[_BLOCK_SCALED]``)."""

    a_dtype: str
    b_dtype: str
    c_dtype: str
    m: int
    n: int
    a_major: str = "K"
    b_major: str = "K"
    cta_group: int = 1
    scale_dtype: str | None = None
    name: ClassVar[str] = "descriptor_fields"

    def subjects(self) -> tuple[Layout, ...]:
        return (Layout(1),)

    def subject(self) -> str:
        sc = f" scaled by {self.scale_dtype}" if self.scale_dtype else ""
        return (f"{self.a_dtype} x {self.b_dtype} -> {self.c_dtype}{sc}, M={self.m} N={self.n}, A {self.a_major} B "
                f"{self.b_major}, cta_group::{self.cta_group}")

    def domain_size(self) -> int:
        return 1

    def _build(self) -> Any:
        from layoutcheck.models.umma import umma_instr_descriptor

        return umma_instr_descriptor(self.a_dtype, self.b_dtype, self.c_dtype, self.m, self.n, self.a_major,
                                     self.b_major, cta_group=self.cta_group, scale_dtype=self.scale_dtype)

    def _first(self) -> dict[str, Any] | None:
        from layoutcheck.hw.tcgen05 import UMMA_INSTR_DESCRIPTOR, UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED

        try:
            d = self._build()
        except LayoutError:
            return Mma()
        fmt = UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED if self.scale_dtype else UMMA_INSTR_DESCRIPTOR
        if fmt.issues(d.value):
            return Word(field=fmt.issues(d.value)[0].field)
        if fmt.field("m_dim").quantity(d.value) != self.m or fmt.field("n_dim").quantity(d.value) != self.n:
            return Shape()
        return None

    def exhaustive(self) -> Decision:
        w = self._first()
        if w is not None:
            return Decision(False, w)
        return Decision(True, None, {"descriptor": f"0x{self._build().value:08x}"})

    def recheck(self, w: dict[str, Any]) -> bool:
        return self._first() == w

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "mma":
            try:
                self._build()
            except LayoutError as e:
                return f"no tcgen05.mma has this instruction descriptor: {e}"
        d = self._build()
        if w["kind"] == "word":
            return f"descriptor 0x{d.value:08x}: field {w['field']} is not as the format declares"
        return f"descriptor 0x{d.value:08x} reads back M={d.m}, N={d.n}, not M={self.m}, N={self.n}"


# -- constructors with the spec names -------------------------------------------------------------------------------
def umma_describes(layout: Layout | ComposedLayout, dtype: str, major: str, base_address: int = 0,
                   descriptor: int | None = None, written_by: str | None = None) -> UmmaDescribes:
    return UmmaDescribes(layout, dtype, major, base_address, descriptor, written_by)


def umma_describes_all(blocks: tuple[Layout | ComposedLayout, ...], dtype: str, major: str,
                       base_address: int = 0, written_by: str | None = None) -> UmmaDescribesAll:
    return UmmaDescribesAll(tuple(blocks), dtype, major, base_address, written_by)


def descriptor_fields(fields: tuple[BitField, ...], domains: tuple[tuple[int, ...], ...],
                      bits: int = 64) -> DescriptorFields:
    return DescriptorFields(tuple(fields), tuple(tuple(d) for d in domains), bits)


def instr_descriptor_fields(a_dtype: str, b_dtype: str, c_dtype: str, m: int, n: int, a_major: str = "K",
                            b_major: str = "K", cta_group: int = 1,
                            scale_dtype: str | None = None) -> InstrDescriptorFields:
    return InstrDescriptorFields(a_dtype, b_dtype, c_dtype, m, n, a_major, b_major, cta_group, scale_dtype)
