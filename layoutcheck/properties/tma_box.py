"""The agreement of a Triton TMA load's box and swizzle with the ``nvmma_shared`` layout of the buffer it fills.

A ``ttng.async_tma_copy_global_to_local`` (``tl.make_tensor_descriptor(...).load``) lowers to
``cp.async.bulk.tensor.2d`` through a tensor map the kernel builds itself (``importers.ptx_tensormap``). The TMA
unit writes box element ``(row, col)`` (col along ``box_dim[0]``) at the shared byte ``dst + Sw(row * pitch + col *
e)`` (``models.tma.box_smem_offsets``: rows ``pitch = box_dim[0] * e`` apart, the swizzle on address bits, PTX ISA
5.5.7); the consumers read the buffer through its TTGIR ``#ttg.nvmma_shared`` layout (``properties.nvmma``'s stored
operand, Triton's linear layout). ``tma_box`` holds for one static TMA load when, for every execution of it in the
run, the box is the buffer's tile, the element size is the buffer's, and every box element ``(row, col)`` lands on
the byte where the layout stores tile element ``(row, col)`` of the stage the destination starts.

Decided per execution, from what the run evaluated: PROVEN / REFUTED (the element, the byte the TMA writes, the
element the layout keeps there); UNKNOWN when the map was built on the host (not in the PTX), a field is not known,
the rank is not 2, the box is not the whole tile (several boxes per copy), the mode is outside the model
(interleave, the 128-byte atom modes), or the load cannot be paired with one TTGIR copy by source line. Not
decided: that some lane issues each load (the executions' count), the global side (coordinates, bounds), and the
shared window's alignment beyond the run's (buffers from address 0; Triton aligns swizzled buffers to 1024 bytes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.errors import LayoutcheckError
from layoutcheck.hw.tma import TENSORMAP_ELEMTYPES, TENSORMAP_SWIZZLES
from layoutcheck.importers.ptx import Kernel, parse_ptx
from layoutcheck.importers.ptx_run import tma_loads
from layoutcheck.importers.ptx_tensormap import TmaLoad, field_of
from layoutcheck.importers.triton import parse_ttgir
from layoutcheck.importers.triton_kernel import source_lines
from layoutcheck.models.tma import TmaBox, box_smem_offsets
from layoutcheck.properties.base import Decision, Property
from layoutcheck.properties.nvmma import _DEF, StoredOperand, _types, operand_source, parse_ttgir_kind, stored_operand
from layoutcheck.properties.ttgir import Claim, NotModelled
from layoutcheck.witness_descriptors import DescriptorElement, DescriptorOrigin
from layoutcheck.witness_record import Witness

NAME = "tma_box"
_COPY = re.compile(r"^\s*ttng\.async_tma_copy_global_to_local\s+%[\w.$-]+\[[^\]]*\]\s+(?P<dst>%[\w.$-]+),", re.M)


@dataclass(frozen=True, eq=False)
class TmaBoxPlacement(Property):
    """Every execution of one static TMA load writes each box element where the buffer's layout stores it."""

    where: str
    operand: StoredOperand
    loads: tuple[tuple[int, int, np.ndarray], ...]  # (PTX line, dst, byte offsets [rows, cols] from dst)
    name: ClassVar[str] = NAME

    def subjects(self) -> tuple[Any, ...]:
        return ()

    def subject(self) -> str:
        return self.where

    def domain_size(self) -> int:
        return sum(int(off.size) for _, _, off in self.loads)

    def exhaustive(self) -> Decision:
        for n in range(len(self.loads)):
            w = self._witness(n)
            if w is not None:
                return Decision(False, w)
        return Decision(True, stats={"loads": len(self.loads)})

    def _witness(self, n: int) -> Witness | None:
        _, dst, off = self.loads[n]
        o = self.operand.element_at(dst)
        if o is None or o[1] or o[2]:
            return DescriptorOrigin(n)
        for r in range(off.shape[0]):
            for c in range(off.shape[1]):
                if self.operand.element_at(dst + int(off[r, c])) != (o[0], r, c):
                    return DescriptorElement(n, r, c)
        return None

    def recheck(self, witness: dict[str, Any]) -> bool:
        got = self._witness(int(witness["read"]))
        return got is not None and dict(got) == dict(witness)

    def explain(self, witness: dict[str, Any]) -> str:
        line, dst, off = self.loads[int(witness["read"])]
        at = f"the TMA load at PTX line {line} (destination byte {dst})"
        if witness.get("kind") == "origin":
            return f"{at}: its destination is not the start of a stage of the buffer (stored from {self.operand.base})"
        r, c = int(witness["i"]), int(witness["j"])
        y = dst + int(off[r, c])
        e = self.operand.element_at(y)
        held = "no element" if e is None else f"element ({e[1]}, {e[2]})"
        return (f"{at}: box element (row, col) = ({r}, {c}) is written at byte {y}, where the nvmma_shared layout "
                f"keeps {held} (buffer at byte {self.operand.base}, {self.operand.placed})")


def box_placement(where: str, operand: StoredOperand, dst: int, fields: dict[tuple[str, int], int]) -> TmaBoxPlacement:
    """The claim for one TMA load into ``operand``'s buffer at byte ``dst`` whose tensor map holds ``fields``
    (``(tensormap.replace field, ordinal) -> value``): the box it writes against the buffer's layout.

    Pre: the fields describe a tensor map this claim models; else ``LayoutcheckError`` says what is not modelled.
    """
    offs = _box_offsets(fields, (operand.mn_extent, operand.k_extent), operand.element_bytes)
    if isinstance(offs, str):
        raise LayoutcheckError(f"a TMA load at byte {dst}: {offs}")
    return TmaBoxPlacement(where, operand, ((0, dst, offs),))


def _box_offsets(fields: dict[tuple[str, int], int], tile: tuple[int, int], e: int) -> np.ndarray | str:
    """Byte offsets ``[rows, cols]`` from ``dst`` the TMA writes for the box, or why not modelled."""
    get = lambda name, o=0: field_of(fields, name, o)  # noqa: E731
    rank, code, mode, inter = get("rank"), get("elemtype"), get("swizzle_mode"), get("interleave_layout")
    b0, b1, s0, s1 = get("box_dim", 0), get("box_dim", 1), get("element_stride", 0), get("element_stride", 1)
    if None in (rank, code, mode, inter, b0, b1, s0, s1):
        return "a field of its tensor map is not known"
    if rank != 1:
        return f"a rank-{rank + 1} tensor map (rank 2 is modelled)"
    dtype = TENSORMAP_ELEMTYPES.get(code)
    if dtype is None or dtype.bytes != e:
        return f"its tensor map's element type {code} is not the buffer's {e}-byte element"
    if inter or mode not in TENSORMAP_SWIZZLES or (s0, s1) != (1, 1):
        return f"interleave {inter}, swizzle mode {mode}, element strides ({s0}, {s1}): outside the model"
    if (b1, b0) != tile:
        return f"its box {b1}x{b0} is not the buffer's tile {tile[0]}x{tile[1]} (several boxes per copy)"
    pitch = -(-b0 * e // 16) * 16
    box = TmaBox(dtype.name, (b0, b1), (pitch,), (b0, b1), swizzle=TENSORMAP_SWIZZLES[mode].name)
    # a device-built map is checked by no driver: a box dimension outside 1..256 or an inner extent that is not
    # whole 16-byte chunks has no defined image (one wider than the swizzle span keeps the padded-row reading: its
    # rows still land where the model puts them, and a claim there is REFUTED, never PROVEN)
    bad = [v for v in box.violations() if v.startswith("boxDim") and "swizzle span" not in v]
    if bad:
        return f"its box breaks cuTensorMapEncodeTiled's limits ({'; '.join(bad)}): what the TMA unit does is undefined"
    return box_smem_offsets(box, 0).T  # [row, col]


def tma_box_claims(ttgir: str, ptx: str, grid: tuple[int, ...] = (1,), scalars: dict[str, int] | None = None,
                   offsets: tuple[int | None, ...] = ()) -> list[Claim]:
    """One ``tma_box`` claim per static TMA load of ``ptx`` that a run reaches (module docstring)."""
    copies = list(_COPY.finditer(ttgir))
    if not copies:
        return []
    k = parse_ptx(ptx)
    loads, stopped = tma_loads(k, grid=grid, scalars=scalars)
    if stopped:
        return [Claim(0, "TMA loads", NotModelled("TMA loads", f"the PTX run stopped: {stopped}", NAME),
                      required=False)]
    aliases = parse_ttgir(ttgir).aliases
    lines = source_lines(ttgir)
    defs = {m.group("res"): m for m in _DEF.finditer(ttgir)}
    order = {m.group("res"): i for i, m in enumerate(x for x in _DEF.finditer(ttgir)
                                                     if x.group("op") == "ttg.local_alloc")}
    by_src: dict[Any, set[str | None]] = {}  # Python line -> the allocations its TMA copies fill (None: not one)
    first: dict[Any, int] = {}  # Python line -> the TTGIR line of its first TMA copy (where the row is reported)
    for m in copies:
        found = operand_source(defs, m.group("dst"))
        alloc = None if found is None or found[1] else found[0].group("res")
        line = ttgir.count("\n", 0, m.start()) + 1
        by_src.setdefault(lines.get(line), set()).add(alloc)
        first.setdefault(lines.get(line), line)
    out = []
    by_pc: dict[int, list[TmaLoad]] = {}
    for ld in loads:
        by_pc.setdefault(ld.pc, []).append(ld)
    for pc, group in sorted(by_pc.items()):
        ins = k.instrs[pc]
        src = k.source(ins)
        subject = f"TMA load {ins.text} (PTX line {ins.line})"
        prop = _claim(subject, group, k, by_src.get(src, set()), defs, order, aliases, offsets, k.shared)
        out.append(Claim(first.get(src, 0), subject, prop, required=not isinstance(prop, NotModelled)))
    return out


def _claim(subject: str, group: list[TmaLoad], k: Kernel, dsts: set[str | None], defs: Any,
           order: dict[str, int], aliases: Any, offsets: tuple[int | None, ...], shared: Any) -> Property:
    bad = next((ld.unknown for ld in group if ld.unknown), "")
    if bad:
        return NotModelled(subject, bad, NAME)
    if len(dsts) != 1 or None in dsts:
        return NotModelled(subject, "not paired with one TTGIR TMA copy into a local_alloc by its source line", NAME)
    alloc = defs[next(iter(dsts))]
    use = _types(alloc.group("rest").split("->")[-1])[-1]
    if parse_ttgir_kind(use.encoding, aliases) != "ttg.nvmma_shared":
        return NotModelled(subject, "its buffer is not #ttg.nvmma_shared", NAME)
    off = re.search(r"allocation\.offset\s*=\s*(\d+)", alloc.group("rest"))
    i = order[alloc.group("res")]
    offset = int(off.group(1)) if off else (offsets[i] if i < len(offsets) else None)
    if offset is None:
        return NotModelled(subject, "the buffer's allocation offset is not known", NAME)
    try:
        op = stored_operand("tile", use, shared.get("global_smem", 0) + offset, aliases, False)
    except LayoutcheckError as e:
        return NotModelled(subject, str(e), NAME)
    tile = (int(use.shape[-2]), int(use.shape[-1]))
    rows = []
    for ld in group:
        offs = _box_offsets(ld.fields or {}, tile, op.element_bytes)
        if isinstance(offs, str):
            return NotModelled(subject, offs, NAME)
        rows.append((k.instrs[ld.pc].line, int(ld.dst or 0), offs))
    return TmaBoxPlacement(subject, op, tuple(rows))


__all__ = ["TmaBoxPlacement", "tma_box_claims"]
