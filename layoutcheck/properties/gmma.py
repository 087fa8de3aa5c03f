"""Claims about wgmma shared-memory descriptors (``layoutcheck.models.gmma``) and the TMA -> smem -> wgmma path.

- ``gmma_addresses(stage, dtype, major)``: for every block a mainloop feeds one wgmma (MN-block x 32-byte K-block of
  the stage tile), the block-0 descriptor advanced by the block's offset (CuTe's ``DescriptorIterator``) reads every
  element exactly where ``stage`` put it. Counterexample: block, element, the two byte addresses.
  A ``block_mn`` that divides the MN extent but starts blocks inside a swizzle atom (NVIDIA/Fuser#4771: 96-wide
  blocks on 64-wide SW128 atoms) is a wrong stage, not an input error: each block is read through the whole-MN
  descriptor advanced to its first element, as a kernel forms it, and the first misread element is reported.
- ``gmma_fields(stage, dtype, major)``: the descriptors are encodable and right: MN-major only for 16-bit types
  (the instruction transposes nothing else), the layout is canonical, every
  field (start address of every block included) fits its 14/3 bits, is 16-byte aligned, ``base_offset`` matches a
  pattern start not aligned to the swizzle period, and ``layout_type`` is the layout's swizzle atom.
- ``tma_wgmma(box, stage, modes, dtype, major)``: the bytes the TMA boxes write (``models.tma``) are the bytes the
  wgmma descriptors read, element by element; a mismatch is the first misplaced element in tile coordinates.

A hand-written descriptor (``desc``, the word for block 0) or a layout the descriptor is built from that differs
from the one the data is in (``wgmma_layout``) is checked instead of the derived one: that is how broken kernels go
wrong (triton#6220 ignored the leading offset, MatmulTutorial#14 changed the TMA swizzle but not the descriptor).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.inttuple import idx2crd
from layoutcheck.algebra.layout import format_inttuple, size
from layoutcheck.algebra.notation import as_subject
from layoutcheck.algebra.swizzle import Subject, inner
from layoutcheck.errors import LayoutError
from layoutcheck.hw.bitfields import DescriptorFormat
from layoutcheck.hw.wgmma import GMMA_DESCRIPTOR
from layoutcheck.models.gmma import (
    WRITERS,
    DescriptorReads,
    GmmaBlocks,
    GmmaDescriptor,
    block_crd,
    canonical_gmma,
    check_writer,
    descriptor_reads,
    element_bytes,
    gmma_blocks,
    stage_blocks,
    unchecked_descriptor,
)
from layoutcheck.models.tma import TmaBox
from layoutcheck.properties.base import Decision, Property, Undecided
from layoutcheck.properties.tma import TmaCompatible
from layoutcheck.witness_descriptors import (
    Align,
    BaseOffset,
    Canonical,
    Descriptor,
    FieldOverflow,
    LayoutType,
    Major,
    Place,
    Range,
    Word,
)
from layoutcheck.witness_record import with_fields


def word_decision(fmt: DescriptorFormat, word: int | None) -> Decision | Undecided | None:
    """Every bit of a hand-written descriptor ``word`` against its declaration (``hw.bitfields``): a fixed constant
    or an undefined code refutes it (``{"kind": "word", "field": name}``), a reserved or undeclared bit set makes
    the claim UNKNOWN; ``None`` when every bit is as declared (or no word was written by hand)."""
    if word is None:
        return None
    issues = fmt.issues(word)
    for i in issues:
        if i.refutes:
            return Decision(False, Word(field=i.field))
    if issues:
        return Undecided("; ".join(i.message for i in issues))
    return None


def word_issue(fmt: DescriptorFormat, word: int | None, name: str) -> str | None:
    """The message of the refuting issue of ``word`` in field ``name`` (``None``: no such issue: not a witness)."""
    if word is None:
        return None
    return next((i.message for i in fmt.issues(word) if i.refutes and i.field == name), None)


def for_writers(decide: Callable[[str], Decision], written_by: str | None,
                explain: Callable[[dict[str, Any]], str]) -> Decision | Undecided:
    """The claim for a stage written by ``written_by``, or, when nobody said (``None``), for both ``WRITERS``:
    PROVEN if it holds for both, REFUTED if it fails for both (the ``threads`` witness), else UNKNOWN naming the
    missing key ``written_by`` (``models.gmma.WRITERS``: the two anchor the swizzle pattern differently)."""
    if written_by is not None:
        d = decide(written_by)
        return d if d.holds else Decision(False, with_fields(d.witness, writer=written_by), d.stats)
    ds = {w: decide(w) for w in WRITERS}
    ok = [w for w in WRITERS if ds[w].holds]
    if len(ok) == len(WRITERS):
        return Decision(True, None, ds[WRITERS[0]].stats)
    if not ok:
        return Decision(False, with_fields(ds["threads"].witness, writer="threads"), ds["threads"].stats)
    bad = next(w for w in WRITERS if w not in ok)
    return Undecided(f"holds if the stage is written by {ok[0]} (swizzle {_ANCHOR[ok[0]]}) but not by {bad} "
                     f"({_ANCHOR[bad]}): {explain({'writer': bad, **(ds[bad].witness or {})})}; say who writes it: "
                     f"written_by = \"{ok[0]}\" or \"{bad}\"")


_ANCHOR = {"tma": "on absolute address bits", "threads": "anchored at base_address"}


def recheck_writers(recheck_one: Callable[[dict[str, Any]], bool], decide: Callable[[str], Decision],
                    written_by: str | None, w: dict[str, Any]) -> bool:
    """A ``for_writers`` witness re-checked: it fails for its writer, and (no ``written_by``) for the other too."""
    if w.get("writer") not in WRITERS or not recheck_one(w):
        return False
    return written_by is not None or all(not decide(x).holds for x in WRITERS if x != w["writer"])


def _desc(x: GmmaDescriptor | int | None) -> GmmaDescriptor | None:
    if x is None or isinstance(x, GmmaDescriptor):
        return x
    return GmmaDescriptor.from_value(int(x))


@dataclass(frozen=True, slots=True)
class _WgmmaOperand(Property):
    """What every wgmma claim reads: the ``stage`` tile of ``dtype`` elements, its ``major``, the MN extent of one
    wgmma block, and optionally a hand-written block-0 descriptor or the layout the descriptors are built from."""

    stage: Subject
    dtype: str
    major: str
    block_mn: int | None = field(default=None, kw_only=True)
    desc: GmmaDescriptor | None = field(default=None, kw_only=True)
    wgmma_layout: Subject | None = field(default=None, kw_only=True)
    written_by: str | None = field(default=None, kw_only=True)
    desc_word: int | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "stage", as_subject(self.stage, "GMMA stage layout"))
        if self.written_by is not None:
            check_writer(self.written_by)
        if self.desc is not None and not isinstance(self.desc, GmmaDescriptor) and self.desc_word is None:
            object.__setattr__(self, "desc_word", int(self.desc))  # every bit of it is checked
        if self.wgmma_layout is not None:
            object.__setattr__(self, "wgmma_layout", as_subject(self.wgmma_layout, "wgmma layout"))
        object.__setattr__(self, "desc", _desc(self.desc))
        element_bytes(self.dtype)
        stage_blocks(self.stage, self.dtype, self.block_mn)  # shape errors are input errors, raised here

    def subjects(self) -> tuple[Subject, ...]:
        return (self.stage,)

    def domain_size(self) -> int:
        return size(inner(self.stage))

    def _overrides(self) -> str:
        extra = f", desc={self.desc}" if self.desc is not None else ""
        extra += f", written_by={self.written_by}" if self.written_by is not None else ""
        return extra + (f", wgmma_layout={self.wgmma_layout}" if self.wgmma_layout is not None else "")

    @property
    def anchor_by(self) -> str:
        """The writer the derived descriptor assumes: ``written_by``, else ``threads`` (the pattern anchored at
        ``base_address``, layoutcheck's convention before ``written_by``); one descriptor for every writer."""
        return self.written_by or "threads"

    def _reads_at(self, base: int, writer: str = "threads") -> DescriptorReads:
        """What each block's descriptor reads and where the stage puts it; ``LayoutError``: no canonical form."""
        return descriptor_reads(self.stage, self.dtype, self.major, self.block_mn, base, self.wgmma_layout, self.desc,
                                writer, self.anchor_by)

    def _word(self) -> Decision | Undecided | None:
        """The hand-written descriptor's every bit (``word_decision``); base offset with no swizzle: UNKNOWN."""
        d = word_decision(GMMA_DESCRIPTOR, self.desc_word)
        if d is not None or self.desc is None or not self.desc.base_offset:
            return d
        if self.desc.layout_type == "INTER":
            return Undecided(f"base_offset {self.desc.base_offset} with no swizzle: the PTX ISA defines the matrix "
                             "base offset for the swizzling modes only; its effect here is not modelled")
        if self.desc.start_address < (128 * self.desc.base_offset) % self.desc.pattern_bytes:
            return Undecided(f"{self.desc}: the swizzle pattern base offset {self.desc.base_offset} names would start "
                             "before shared-memory address 0; what the hardware reads then is not modelled")
        return None

    def _explain_word(self, w: dict[str, Any]) -> str:
        return f"descriptor 0x{self.desc_word:016x}: {word_issue(GMMA_DESCRIPTOR, self.desc_word, w['field'])}"


@dataclass(frozen=True, slots=True)
class _StageClaim(_WgmmaOperand):
    """A wgmma claim about a stage buffer at byte ``base_address`` (the swizzle pattern's start)."""

    base_address: int = 0

    def subject(self) -> str:
        return f"{self.stage}, {self.dtype}, {self.major}-major, base={self.base_address}{self._overrides()}"

    def reads(self, writer: str = "threads") -> DescriptorReads:
        """What each block's descriptor reads and where ``writer`` put each element; ``LayoutError``: no canonical
        form."""
        return self._reads_at(self.base_address, writer)

    def _decide(self, writer: str) -> Decision:
        raise NotImplementedError

    def _recheck_one(self, w: dict[str, Any]) -> bool:
        raise NotImplementedError

    def exhaustive(self) -> Decision | Undecided:  # type: ignore[override]
        return self._word() or for_writers(self._decide, self.written_by, self.explain)

    def recheck(self, w: dict[str, Any]) -> bool:
        if w.get("kind") == "word":
            return word_issue(GMMA_DESCRIPTOR, self.desc_word, w["field"]) is not None
        return recheck_writers(self._recheck_one, self._decide, self.written_by, w)


@dataclass(frozen=True, slots=True)
class GmmaAddresses(_StageClaim):
    """Every block's descriptor reads exactly the stage layout's bytes (module docstring)."""

    name: ClassVar[str] = "gmma_addresses"
    bytes_per_point: ClassVar[int] = 64

    def _decide(self, writer: str) -> Decision:
        try:
            rd = self.reads(writer)
        except LayoutError:
            return Decision(False, Canonical())
        stats = {"blocks": len(rd.read)}
        for r, got in enumerate(rd.read):
            if got is None:
                return Decision(False, FieldOverflow(block=r), stats)
            bad = np.flatnonzero(got != rd.expected[r])
            if bad.size:
                return Decision(False, Place(block=r, i=int(bad[0])),
                                {**stats, "misplaced_in_block": int(bad.size)})
        return Decision(True, None, stats)

    def _recheck_one(self, w: dict[str, Any]) -> bool:
        try:
            rd = self.reads(w["writer"])
        except LayoutError:
            return w["kind"] == "canonical"
        if w["kind"] == "field":
            return rd.read[w["block"]] is None
        got = rd.read[w["block"]]
        return w["kind"] == "place" and got is not None and int(got[w["i"]]) != int(rd.expected[w["block"]][w["i"]])

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "word":
            return self._explain_word(w)
        if w["kind"] == "canonical":
            return _why_not_canonical(self)
        rd = self.reads(w["writer"])
        if w["kind"] == "field":
            return f"block {w['block']}: the descriptor cannot be formed (a field out of range or misaligned)"
        r, i = w["block"], w["i"]
        mn, k = block_crd(size(inner(self.stage)[0]), rd.block, r, i)
        where = "" if stage_blocks(self.stage, self.dtype, self.block_mn) is not None else \
            f" (a {rd.block[0]}-wide block starting inside a swizzle atom)"
        who = stored_by(w["writer"], self.written_by, self.base_address)
        return (f"element (mn={mn}, k={k}) of block {r}{where} ({rd.descs[r]}): the layout puts it{who} at byte "
                f"{int(rd.expected[r][i])}, the wgmma reads byte {int(rd.read[r][i])}")  # type: ignore[index]


def stored_by(writer: str, written_by: str | None, base_address: int) -> str:
    """`` (stored by ...)`` for a witness, or nothing when the writers agree (unset and a 1024-aligned buffer)."""
    if written_by is None and base_address % 1024 == 0:
        return ""
    if writer == "tma":
        return " (stored by TMA, swizzled on absolute address bits)"
    return f" (stored by threads, pattern anchored at byte {base_address})"


def _why_not_blocks(src: Subject, p: Any) -> str:
    try:
        gmma_blocks(src, p.dtype, p.block_mn)
    except LayoutError as e:
        return str(e)
    return ""  # pragma: no cover - only called when the blocks are inadmissible


def _why_not_canonical(p: Any) -> str:
    src = p.stage if p.wgmma_layout is None else p.wgmma_layout
    if stage_blocks(src, p.dtype, p.block_mn) is None:
        return (f"no descriptor describes a {p.block_mn}-wide block: the blocks are not unions of the stage's "
                f"swizzle atoms (one starts inside an atom); {_why_not_blocks(src, p)}")
    try:
        canonical_gmma(gmma_blocks(src, p.dtype, p.block_mn).block_layout(), p.dtype, p.major)
    except LayoutError as e:
        return f"no descriptor describes it: {e}"
    return "the layout is canonical"  # pragma: no cover - only reached if the witness was wrong


def _moved(d0: GmmaDescriptor, step: int) -> GmmaDescriptor:
    """``d0`` with its start address ``step`` bytes on, every field unclipped (``advance`` wraps the word)."""
    return GmmaDescriptor(d0.start_address + step, d0.leading_byte_offset, d0.stride_byte_offset, d0.base_offset,
                          d0.layout_type)


@dataclass(frozen=True, slots=True)
class GmmaFields(_StageClaim):
    """The descriptors are encodable and their base offset and layout type are right (module docstring)."""

    name: ClassVar[str] = "gmma_fields"
    bytes_per_point: ClassVar[int] = 8

    def _descriptors(self, writer: str) -> tuple[GmmaBlocks, GmmaDescriptor, GmmaDescriptor]:
        """The blocks, block 0's derived descriptor (for a stage ``writer`` wrote) and the one checked (``desc`` when
        given); ``LayoutError`` when the layout is not canonical."""
        blocks = gmma_blocks(self.stage, self.dtype, self.block_mn)
        want = unchecked_descriptor(blocks.block_layout(), self.dtype, self.major, self.base_address, writer)
        if self.desc is not None:
            return blocks, want, self.desc
        return blocks, want, unchecked_descriptor(blocks.block_layout(), self.dtype, self.major, self.base_address,
                                                  self.anchor_by)

    def _first_violation(self, writer: str) -> dict[str, Any] | None:
        if self.major == "MN" and element_bytes(self.dtype) != 2:
            return Major()
        try:
            blocks, want, d0 = self._descriptors(writer)
        except LayoutError:
            return Canonical()
        e = element_bytes(self.dtype)
        for r in range(blocks.count):
            step = e * blocks.block_offset(r)
            if step % 16:
                return Align(block=r)
            d = _moved(d0, step)
            if d.violations():
                return {"align": Align, "range": Range}[d.violations()[0][0]](block=r)
        if d0.layout_type != want.layout_type:
            return LayoutType()
        if d0.base_offset != want.base_offset:
            return BaseOffset()
        return None

    def _decide(self, writer: str) -> Decision:
        w = self._first_violation(writer)
        return Decision(True) if w is None else Decision(False, w)

    def _recheck_one(self, w: dict[str, Any]) -> bool:
        return {"writer": w["writer"], **(self._first_violation(w["writer"]) or {})} == w

    def explain(self, w: dict[str, Any]) -> str:
        kind = w["kind"]
        if kind == "word":
            return self._explain_word(w)
        if kind == "canonical":
            return _why_not_canonical(self)
        if kind == "major":
            return (f"wgmma reads MN-major (transposed) shared-memory operands only for 16-bit types, not "
                    f"{self.dtype} (PTX ISA wgmma.mma_async: imm-trans-a/b are for .f16/.bf16 only)")
        blocks, want, d0 = self._descriptors(w["writer"])
        if kind == "layout_type":
            return f"layout_type {d0.layout_type} but the layout's swizzle atom is {want.layout_type}"
        if kind == "base_offset":
            where = f"starts at byte {self.base_address}" if w["writer"] == "threads" else \
                "is on absolute address bits (written by TMA)"
            return f"base_offset {d0.base_offset} but the swizzle pattern {where} (needs {want.base_offset})"
        step = element_bytes(self.dtype) * blocks.block_offset(w["block"])
        if kind == "align" and step % 16:
            return f"block {w['block']} starts {step} bytes after block 0: not a multiple of 16"
        return f"block {w['block']}: " + "; ".join(m for law, m in _moved(d0, step).violations() if law == kind)


@dataclass(frozen=True, slots=True)
class TmaWgmma(_WgmmaOperand):
    """TMA box, shared-memory layout and wgmma descriptors agree on every element's byte (module docstring)."""

    box: TmaBox = field(kw_only=True)
    modes: tuple[int, ...] = field(kw_only=True)
    name: ClassVar[str] = "tma_wgmma"
    bytes_per_point: ClassVar[int] = 160

    def __post_init__(self) -> None:
        _WgmmaOperand.__post_init__(self)
        object.__setattr__(self, "modes", tuple(self.modes))
        TmaCompatible(self.box, self.stage, self.modes)  # validates box vs layout shapes

    def subject(self) -> str:
        return f"{self.box}, {self.stage}, {self.dtype} {self.major}-major{self._overrides()}"

    def _sides(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(tma_bytes, wgmma_bytes)`` per tile element (flat colex over (MN, K)); ``None``: no descriptor."""
        tma = TmaCompatible(self.box, self.stage, self.modes)._sides()[0]  # the one TMA image model
        if stage_blocks(self.stage, self.dtype, self.block_mn) is None:
            return None  # a block starting inside a swizzle atom: no descriptor describes it
        try:
            rd = self._reads_at(0)
        except LayoutError:
            return None
        got = rd.addresses()
        if got is None:
            return None
        mnk = size(inner(self.stage)[0])
        read = np.empty_like(tma)
        r, i = np.divmod(np.arange(got.size), got.shape[1])
        mn, k = block_crd(mnk, rd.block, r, i)
        read[mn + mnk * k] = got.ravel()
        return tma, read

    def _tma(self) -> TmaCompatible:
        return TmaCompatible(self.box, self.stage, self.modes)

    def exhaustive(self) -> Decision | Undecided:  # type: ignore[override]
        bad = self.box.violations()
        if bad:
            return Decision(False, Descriptor(), {"violations": len(bad)})
        # a box that does not tile the stage writes its whole extent past it (the image below sees only the tile's
        # own elements), and a box's destination must be aligned: tma_compatible's rules, witnesses and wording
        early = self._tma().exhaustive()
        if not early.holds and early.witness is not None and early.witness.kind in ("divide", "dst"):
            return early
        word = self._word()
        if word is not None:
            return word
        sides = self._sides()
        if sides is None:
            return Decision(False, Canonical())
        tma, read = sides
        wrong = np.flatnonzero(tma != read)
        stats = {"elements": int(tma.size)}
        if wrong.size:
            return Decision(False, Place(i=int(wrong[0])), {**stats, "misplaced": int(wrong.size)})
        return Decision(True, None, stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        if w["kind"] == "descriptor":
            return bool(self.box.violations())
        if w["kind"] in ("divide", "dst"):
            return self._tma().recheck(w)
        if w["kind"] == "word":
            return word_issue(GMMA_DESCRIPTOR, self.desc_word, w["field"]) is not None
        sides = self._sides()
        if w["kind"] == "canonical":
            return sides is None
        return sides is not None and int(sides[0][w["i"]]) != int(sides[1][w["i"]])

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "descriptor":
            return "illegal TMA descriptor: " + "; ".join(self.box.violations())
        if w["kind"] in ("divide", "dst"):
            return self._tma().explain(w)
        if w["kind"] == "word":
            return self._explain_word(w)
        if w["kind"] == "canonical":
            return _why_not_canonical(self) if self.desc is None else "the descriptor cannot be advanced"
        tma, read = self._sides()  # type: ignore[misc]
        crd = format_inttuple(idx2crd(w["i"], inner(self.stage).shape))
        mn, k = w["i"] % size(inner(self.stage)[0]), w["i"] // size(inner(self.stage)[0])
        return (f"element (mn={mn}, k={k}) {crd}: the TMA writes it to byte {int(tma[w['i']])}, the wgmma reads "
                f"byte {int(read[w['i']])}")


# -- public constructors -----------------------------------------------------------------------------------------
def gmma_addresses(stage: Any, dtype: str, major: str, base_address: int = 0, block_mn: int | None = None,
                   desc: Any = None, wgmma_layout: Any = None, written_by: str | None = None) -> GmmaAddresses:
    """Claim: every wgmma block's descriptor (block 0's, advanced) reads each element where ``stage`` puts it.

    >>> from layoutcheck.models.tma import mma_smem_layout
    >>> gmma_addresses(mma_smem_layout("K", "128B", "float16", (64, 64)), "f16", "K").exhaustive().holds
    True
    """
    return GmmaAddresses(stage, dtype, major.upper(), base_address, block_mn=block_mn, desc=desc,
                         wgmma_layout=wgmma_layout, written_by=written_by)


def gmma_fields(stage: Any, dtype: str, major: str, base_address: int = 0, block_mn: int | None = None,
                desc: Any = None, wgmma_layout: Any = None, written_by: str | None = None) -> GmmaFields:
    """Claim: the descriptors are canonical, in range, aligned, with the right base offset and layout type.

    >>> from layoutcheck.models.tma import mma_smem_layout
    >>> st = mma_smem_layout("K", "64B", "float16", (64, 32))
    >>> gmma_fields(st, "f16", "K", 256, desc=0x8000002000010010, written_by="threads").exhaustive().witness.to_json()
    {'writer': 'threads', 'kind': 'base_offset'}
    """
    return GmmaFields(stage, dtype, major.upper(), base_address, block_mn=block_mn, desc=desc,
                      wgmma_layout=wgmma_layout, written_by=written_by)


def tma_wgmma(box: TmaBox, stage: Any, modes: Any, dtype: str, major: str, block_mn: int | None = None,
              desc: Any = None, wgmma_layout: Any = None) -> TmaWgmma:
    """Claim: the TMA boxes write every element to the byte its wgmma descriptor reads it from."""
    return TmaWgmma(stage, dtype, major.upper(), block_mn=block_mn, desc=desc, wgmma_layout=wgmma_layout, box=box,
                    modes=tuple(modes))
