"""The agreement of a Triton ``#ttg.nvmma_shared`` operand with the wgmma descriptors that read it, element-exact.

Triton stores an MMA operand tile into shared memory through its ``nvmma_shared`` layout (a linear layout
``offset -> (dim0, dim1)``, ``importers.triton``) and lowers ``ttng.warp_group_dot`` to ``wgmma.mma_async``
instructions whose A / B operands are 64-bit matrix descriptors (PTX ISA 9.7.15.5.1). The hardware reads element
``(mn, k)`` of one instruction's ``MN x K`` tile at the byte ``decode_gmma_descriptor`` gives (``models.gmma``, the
canonical layouts of "Shared Memory Matrix Layout" with the swizzle as an XOR of address bits).

Definition. For every ``wgmma.mma_async`` every warpgroup executes (``importers.ptx_run.wgmma_executions``, the
PTX's own integer arithmetic evaluated for every thread) and each operand read from shared memory through a descriptor:

- the byte the descriptor reads for tile element ``(0, 0)`` holds operand element ``(s, mn0, k0)`` (stage ``s`` of a
  multi-buffered allocation) with ``mn0`` a multiple of the instruction's MN and ``k0`` of its K;
- every tile element ``(i, j)`` is read at the byte where the layout stores operand element ``(s, mn0 + i, k0 + j)``;
- A and B of one instruction start at the same ``k0`` (where A is read from shared memory);
- every ``MN x K`` block of the operand is read by some instruction of each execution of the dot (all warpgroups).

PROVEN when all hold; REFUTED with the element, the byte the layout stores it at and the byte the descriptor
reads; UNKNOWN (``NotModelled``) when the run stopped, a descriptor is not known, the operand is not an
``nvmma_shared`` allocation reached through ``local_alloc`` / ``memdesc_index``, or the dots and the PTX's wgmma
groups cannot be paired. The allocation's byte offset is the ``allocation.offset`` attribute where the TTGIR has
one; Triton's ``ttgir`` stage precedes its allocation pass, so otherwise the buffer is taken to start at the
lowest start address the dot's descriptors read, rounded down to the swizzle period (8 x swizzle width; Triton
aligns swizzled buffers to it): a descriptor off by a whole period in every instruction is then not seen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.swizzle import shared_offsets
from layoutcheck.errors import LayoutcheckError
from layoutcheck.hw.bitfields import DescriptorFormat
from layoutcheck.hw.dtypes import mlir_dtype
from layoutcheck.hw.tcgen05 import UMMA_SMEM_DESCRIPTOR
from layoutcheck.hw.wgmma import GMMA_DESCRIPTOR
from layoutcheck.importers.ptx import Kernel, parse_ptx
from layoutcheck.importers.ptx_run import wgmma_executions
from layoutcheck.importers.ptx_values import WgmmaExec
from layoutcheck.importers.triton import balanced_end, from_triton, parse_ttgir, type_use
from layoutcheck.models.gmma import GmmaDescriptor, decode_gmma_descriptor
from layoutcheck.models.umma import decode_umma_descriptor
from layoutcheck.properties.base import Decision, Property, Undecided
from layoutcheck.properties.ttgir import Claim, NotModelled
from layoutcheck.witness_descriptors import (
    DescriptorCover,
    DescriptorDecode,
    DescriptorElement,
    DescriptorOrigin,
    DescriptorPair,
    Word,
)
from layoutcheck.witness_record import Witness


# -- the operand as Triton stores it -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StoredOperand:
    """An operand allocation: offset ``o`` (elements) holds operand element ``(stage[o], mn[o], k[o])``; byte
    ``base + o * element_bytes``. ``name`` is ``A`` or ``B``."""

    name: str
    dtype: str
    element_bytes: int
    base: int
    stage: tuple[int, ...]
    mn: tuple[int, ...]
    k: tuple[int, ...]
    mn_extent: int
    k_extent: int
    placed: str = "allocation.offset"  # or "inferred" (module docstring)

    def element_at(self, byte: int) -> tuple[int, int, int] | None:
        """The ``(stage, mn, k)`` whose first byte is ``byte``, or ``None``."""
        o, r = divmod(byte - self.base, self.element_bytes)
        if r or not 0 <= o < len(self.mn):
            return None
        return self.stage[o], self.mn[o], self.k[o]

    def byte_of(self, s: int, mn: int, k: int) -> int | None:
        hit = np.flatnonzero((np.asarray(self.stage) == s) & (np.asarray(self.mn) == mn) & (np.asarray(self.k) == k))
        return None if hit.size == 0 else self.base + int(hit[0]) * self.element_bytes


@dataclass(frozen=True, slots=True)
class Read:
    """One operand read of one executed wgmma: dot execution ``execution``, instruction ``instr`` (pairs A with B),
    the descriptor, K-major or MN-major, the instruction's MN and K (elements), the PTX line."""

    operand: int  # index into ``operands``
    execution: int
    instr: int
    warpgroup: int
    ptx_line: int
    desc: int
    major: str
    mn: int
    k: int
    isa: str = "wgmma"  # or "tcgen05": which descriptor format ``desc`` is


def _tile_bytes(op: StoredOperand, r: Read) -> np.ndarray:
    """The byte each tile element ``(i, j)`` is read from, shape ``(MN, K)`` (``LayoutError`` when it decodes to
    no canonical layout): a wgmma descriptor through ``models.gmma``, a tcgen05 one through ``models.umma``."""
    if r.isa == "tcgen05":
        lay = decode_umma_descriptor(r.desc, op.dtype, r.major, (r.mn, r.k))
        return (op.element_bytes * shared_offsets(lay, np.int64)).reshape(r.k, r.mn).T
    return decode_gmma_descriptor(r.desc, op.dtype, r.major, r.mn).addresses().reshape(r.k, r.mn).T


@dataclass(frozen=True, slots=True)
class NvmmaDescriptorReads(Property):
    """Every wgmma of a dot reads each element of its ``nvmma_shared`` operands where Triton's layout stores it
    (module docstring)."""

    dot: str
    operands: tuple[StoredOperand, ...]
    reads: tuple[Read, ...]
    name: ClassVar[str] = "nvmma_descriptor"

    def subjects(self) -> tuple[Any, ...]:
        return ()

    def subject(self) -> str:
        return self.dot

    def domain_size(self) -> int:
        return sum(r.mn * r.k for r in self.reads)

    def exhaustive(self) -> Decision | Undecided:  # type: ignore[override]
        for n, r in enumerate(self.reads):  # every bit of every word first (hw.bitfields): the decoders read fields
            issues = _format(r).issues(r.desc)
            refuting = next((i for i in issues if i.refutes), None)
            if refuting is not None:  # a fixed constant or an undefined code: no such descriptor
                return Decision(False, Word(field=refuting.field, block=n))
            if issues:  # a reserved or undeclared bit set: what the hardware reads is not modelled
                return Undecided(f"not modelled: {self._at(r)}: " + "; ".join(i.message for i in issues))
        origins: dict[int, tuple[int, int, int]] = {}
        for n, r in enumerate(self.reads):
            w = self._read_witness(n)
            if w is not None and w["kind"] == "decode":  # the model has no canonical layout for it: fail closed
                return Undecided(f"not modelled: {self.explain(w)}")
            if w is not None:
                return Decision(False, w)
            op = self.operands[r.operand]
            origins[n] = op.element_at(int(_tile_bytes(op, r)[0, 0]))  # type: ignore[assignment]
        by_instr: dict[int, dict[int, int]] = {}
        for n, r in enumerate(self.reads):
            by_instr.setdefault(r.instr, {})[r.operand] = n
        for pair in by_instr.values():
            if len(pair) == 2:
                a, b = (pair[i] for i in sorted(pair))
                if origins[a][2] != origins[b][2]:
                    return Decision(False, DescriptorPair(a, b))
        w = self._cover_witness(origins)
        return Decision(True, stats={"reads": len(self.reads)}) if w is None else Decision(False, w)

    def _read_witness(self, n: int) -> Witness | None:
        r = self.reads[n]
        op = self.operands[r.operand]
        try:
            got = _tile_bytes(op, r)
        except LayoutcheckError as e:
            return DescriptorDecode(n, str(e))
        o = op.element_at(int(got[0, 0]))
        if o is None or o[1] % r.mn or o[2] % r.k:
            return DescriptorOrigin(n)
        for i in range(r.mn):
            for j in range(r.k):
                if op.element_at(int(got[i, j])) != (o[0], o[1] + i, o[2] + j):
                    return DescriptorElement(n, i, j)
        return None

    def _cover_witness(self, origins: dict[int, tuple[int, int, int]]) -> Witness | None:
        seen: dict[tuple[int, int], set[tuple[int, int]]] = {}
        for n, r in enumerate(self.reads):
            seen.setdefault((r.operand, r.execution), set()).add(origins[n][1:])
        for (o, ex), blocks in sorted(seen.items()):
            op = self.operands[o]
            r = next(x for x in self.reads if x.operand == o and x.execution == ex)
            for mn in range(0, op.mn_extent, r.mn):
                for k in range(0, op.k_extent, r.k):
                    if (mn, k) not in blocks:
                        return DescriptorCover(o, ex, mn, k)
        return None

    def recheck(self, witness: dict[str, Any]) -> bool:
        kind = witness.get("kind")
        if kind == "word":
            r = self.reads[int(witness["block"])]
            return any(i.refutes and i.field == witness["field"] for i in _format(r).issues(r.desc))
        if kind in ("origin", "element"):
            r = self.reads[int(witness["read"])]
            op = self.operands[r.operand]
            got = _tile_bytes(op, r)
            o = op.element_at(int(got[0, 0]))
            if o is None or o[1] % r.mn or o[2] % r.k:
                return kind == "origin"
            i, j = witness["i"], witness["j"]
            return kind == "element" and op.element_at(int(got[i, j])) != (o[0], o[1] + i, o[2] + j)
        if kind == "pair":
            a, b = (self.reads[witness[x]] for x in ("a", "b"))
            oa = self.operands[a.operand].element_at(int(_tile_bytes(self.operands[a.operand], a)[0, 0]))
            ob = self.operands[b.operand].element_at(int(_tile_bytes(self.operands[b.operand], b)[0, 0]))
            return a.instr == b.instr and oa is not None and ob is not None and oa[2] != ob[2]
        if kind == "cover":
            o, ex = witness["operand"], witness["execution"]
            for r in self.reads:
                if r.operand == o and r.execution == ex:
                    op = self.operands[o]
                    got = op.element_at(int(_tile_bytes(op, r)[0, 0]))
                    if got is not None and got[1:] == (witness["mn"], witness["k"]):
                        return False
            return True
        return False

    def _at(self, r: Read) -> str:
        unit = "warpgroup" if r.isa == "wgmma" else "warp"
        return (f"the {r.isa} at PTX line {r.ptx_line} ({unit} {r.warpgroup}, {r.mn}x{r.k} {r.major}-major "
                f"{self.operands[r.operand].name} tile, descriptor {r.desc:#x})")

    def explain(self, witness: dict[str, Any]) -> str:
        kind = witness.get("kind")
        if kind == "pair":
            a, b = self.reads[witness["a"]], self.reads[witness["b"]]
            unit = "warpgroup" if a.isa == "wgmma" else "warp"
            return (f"the {a.isa} at PTX line {a.ptx_line} ({unit} {a.warpgroup}) reads A and B at different "
                    f"K-blocks: A's descriptor {a.desc:#x} and B's {b.desc:#x}")
        if kind == "cover":
            op = self.operands[witness["operand"]]
            isa = self.reads[0].isa if self.reads else "wgmma"
            return (f"operand {op.name} block (mn, k) = ({witness['mn']}, {witness['k']}) is read by no {isa} of "
                    f"execution {witness['execution']} of the dot")
        if kind == "word":
            r = self.reads[int(witness["block"])]
            why = next(i.message for i in _format(r).issues(r.desc) if i.field == witness["field"])
            return f"{self._at(r)}: {why}"
        r = self.reads[witness["read"]]
        op = self.operands[r.operand]
        at = self._at(r)
        if kind == "decode":
            return f"{at}: the descriptor decodes to no canonical layout: {witness['message']}"
        got = _tile_bytes(op, r)
        if kind == "origin":
            y = int(got[0, 0])
            e = op.element_at(y)
            held = "no element of the operand" if e is None else f"operand element (mn, k) = ({e[1]}, {e[2]})"
            return (f"{at}: tile element (0, 0) is read at byte {y}, which holds {held} (stored from byte "
                    f"{op.base}, {op.placed}): not the start of an {r.mn}x{r.k} block")
        i, j = witness["i"], witness["j"]
        o = op.element_at(int(got[0, 0]))
        assert o is not None
        want = (o[0], o[1] + i, o[2] + j)
        x, y = op.byte_of(*want), int(got[i, j])
        e = op.element_at(y)
        held = "no element" if e is None else f"element (mn, k) = ({e[1]}, {e[2]})"
        stage = f"stage {want[0]} " if len(set(op.stage)) > 1 else ""
        return (f"{at}: operand {op.name} {stage}element (mn, k) = ({want[1]}, {want[2]}) is stored at byte {x} "
                f"by the nvmma_shared layout (buffer at byte {op.base}, {op.placed}), but the descriptor reads "
                f"tile element ({i}, {j}) at byte {y} ({held})")


def _format(r: Read) -> DescriptorFormat:
    """The descriptor word format of read ``r`` (the wgmma matrix descriptor or the tcgen05 shared memory one)."""
    return UMMA_SMEM_DESCRIPTOR if r.isa == "tcgen05" else GMMA_DESCRIPTOR


def nvmma_descriptor_claim(dtype: str, element_bytes: int, base: int, mn_of: tuple[int, ...], k_of: tuple[int, ...],
                           extent: tuple[int, int], descriptors: tuple[tuple[int, str, int, int], ...],
                           isa: str = "wgmma") -> NvmmaDescriptorReads:
    """The claim for one operand stored from byte ``base`` (offset ``o`` holds element ``(mn_of[o], k_of[o])`` of an
    ``extent = (MN, K)`` tile) and read by one execution of wgmmas (``isa="tcgen05"``: tcgen05.mma instructions),
    one ``(descriptor, major, MN, K)`` each."""
    op = StoredOperand("A", dtype, element_bytes, base, (0,) * len(mn_of), mn_of, k_of, *extent)
    reads = tuple(Read(0, 0, i, 0, 0, d, major, mn, k, isa) for i, (d, major, mn, k) in enumerate(descriptors))
    return NvmmaDescriptorReads("generated", (op,), reads)


# -- the TTGIR side: each dot's operands --------------------------------------------------------------------------
_DOT = re.compile(r"^\s*(?P<res>%[\w.$-]+)(?::\d+)?\s*=\s*ttng\.warp_group_dot\s+(?P<a>%[\w.$-]+),\s*"
                  r"(?P<b>%[\w.$-]+),.*?:\s*(?P<types>(?:!ttg\.memdesc|tensor)<.*)$", re.M)
_DEF = re.compile(r"^\s*(?P<res>%[\w.$-]+)\s*=\s*(?P<op>ttg\.local_alloc|ttg\.memdesc_index|ttg\.memdesc_trans)\b"
                  r"(?P<rest>.*)$", re.M)


def operand_source(defs: dict[str, Any], name: str) -> tuple[Any, bool] | None:
    """The ``ttg.local_alloc`` behind memdesc ``name`` through ``memdesc_index`` and 2-D ``memdesc_trans``
    (``order = [1, 0]``: element ``(i, j)`` of the view is ``(j, i)`` of its source), and whether the view is
    transposed; ``None`` when another op (or a trans of another order) is in the way."""
    d, flipped = defs.get(name), False
    while d is not None and d.group("op") != "ttg.local_alloc":
        if d.group("op") == "ttg.memdesc_trans":
            if not re.search(r"order\s*=\s*array<i32:\s*1,\s*0>", d.group("rest")):
                return None
            flipped = not flipped
        src = re.match(r"\s*(%[\w.$-]+)", d.group("rest"))
        d = defs.get(src.group(1)) if src else None
    return None if d is None else (d, flipped)


@dataclass(frozen=True, slots=True)
class DotOperands:
    """One ``ttng.warp_group_dot``: its TTGIR line, text and, per operand, the allocation it reads (its type and
    ``allocation.offset``) or why it is not modelled (``""`` and ``None`` for an A in registers)."""

    line: int
    subject: str
    allocs: tuple[tuple[Any, int | None] | None, ...]
    why: tuple[str, ...]
    n: int
    trans: tuple[bool, ...] = (False, False)  # the operand is a ``memdesc_trans`` view of its allocation


def _types(text: str) -> list[Any]:
    out = []
    for m in re.finditer(r"(tensor|!ttg\.memdesc)<", text):
        end = balanced_end(text, m.end())
        out.append(type_use(m.group(1), text[m.end():end - 1], 0))
    return out


def dot_operands(text: str, offsets: tuple[int | None, ...] = ()) -> list[DotOperands]:
    """Every ``ttng.warp_group_dot`` with the allocation behind each memdesc operand (through ``memdesc_index``);
    ``offsets``: Triton's ``allocation.offset`` of each ``ttg.local_alloc`` in text order, where the text has none."""
    defs = {m.group("res"): m for m in _DEF.finditer(text)}
    allocs = [x.group("res") for x in _DEF.finditer(text) if x.group("op") == "ttg.local_alloc"]
    order = {name: i for i, name in enumerate(allocs)}
    out = []
    for m in _DOT.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        ts = _types(m.group("types"))
        allocs, why, trans = [], [], []
        for name, t in zip((m.group("a"), m.group("b")), ts[:2], strict=False):
            trans.append(False)
            if t is None or t.kind != "memdesc":
                allocs.append(None)
                why.append("")
                continue
            found = operand_source(defs, name)
            if found is None:
                allocs.append(None)
                why.append(f"operand {name} is not reached from a ttg.local_alloc through ttg.memdesc_index / "
                           "memdesc_trans")
                continue
            d, trans[-1] = found
            at = _types(d.group("rest").split("->")[-1])
            off = re.search(r"allocation\.offset\s*=\s*(\d+)", d.group("rest"))
            i = order[d.group("res")]
            given = offsets[i] if i < len(offsets) else None
            allocs.append((at[-1], int(off.group(1)) if off else given))
            why.append("")
        n = ts[2].shape[-1] if len(ts) > 2 and ts[2] is not None else 0
        out.append(DotOperands(line, f"warp_group_dot {m.group('res')}", tuple(allocs), tuple(why), n, tuple(trans)))
    return out


def stored_operand(name: str, use: Any, base: int, aliases: Any, is_b: bool, placed: str = "allocation.offset"
                   ) -> StoredOperand:
    """Operand ``name`` (``is_b``: a ``[K, N]`` B, else an ``[M, K]`` A) of memdesc type ``use`` stored from byte
    ``base`` by Triton's layout of its encoding. Leading dimensions are the stages of a multi-buffered allocation:
    stage ``s`` (flat over them) holds a tile at ``s * R * C`` elements, as Triton's ``memdesc_index`` lowering
    places it (the stage count need not be a power of two)."""
    tile = list(use.shape[-2:])
    ll = from_triton(use.encoding, tile, aliases)
    bases = ll.bases
    if any(any(b) for b in bases.get("block", [])):
        raise LayoutcheckError("an nvmma_shared layout split over CTAs")
    per = 1 << len(bases["offset"])
    if per != tile[0] * tile[1]:
        raise LayoutcheckError(f"the nvmma_shared layout of {tile} has {per} offsets, not one per element")
    coords = np.zeros((per, 2), dtype=np.int64)
    for bit, b in enumerate(bases["offset"]):
        on = (np.arange(per) >> bit) & 1 == 1
        coords[on] ^= np.asarray(b, dtype=np.int64)
    stages = int(np.prod(use.shape[:-2], dtype=np.int64)) if len(use.shape) > 2 else 1
    stage = np.repeat(np.arange(stages, dtype=np.int64), per)
    coords = np.tile(coords, (stages, 1))
    rows, cols = coords[:, -2], coords[:, -1]
    mn, k = (cols, rows) if is_b else (rows, cols)
    dtype = mlir_dtype(use.element) or use.element
    dtype = "tf32" if dtype == "f32" else dtype  # a wgmma reads an f32 operand as tf32
    e = (use.elem_bits or 8) // 8
    ext = (use.shape[-1], use.shape[-2]) if is_b else (use.shape[-2], use.shape[-1])
    return StoredOperand(name, dtype, e, base, tuple(stage.tolist()), tuple(mn.tolist()), tuple(k.tolist()), *ext,
                         placed)


# -- the PTX side: wgmma groups and their executions ---------------------------------------------------------------
def _groups(k: Kernel) -> list[list[int]]:
    """The static wgmma groups: the ``mma_async`` pcs between two ``commit_group`` in program order."""
    out: list[list[int]] = [[]]
    for pc, ins in enumerate(k.instrs):
        if ins.opcode == "wgmma" and ins.mods[:1] == ("mma_async",):
            out[-1].append(pc)
        elif ins.opcode == "wgmma" and ins.mods[:1] == ("commit_group",) and out[-1]:
            out.append([])
    return [g for g in out if g]


def _executions(execs: tuple[WgmmaExec, ...], group_of: dict[int, int]
                ) -> dict[int, list[tuple[int, list[WgmmaExec]]]]:
    """Per static group: ``(execution number, executed wgmmas)`` for every warpgroup's every execution of it."""
    open_: dict[tuple[int, int], list[WgmmaExec]] = {}
    count: dict[tuple[int, int], int] = {}
    out: dict[int, list[tuple[int, list[WgmmaExec]]]] = {}

    def close(wg: int) -> None:
        for key in [x for x in open_ if x[0] == wg]:
            g = key[1]
            out.setdefault(g, []).append((count.get(key, 0), open_.pop(key)))
            count[key] = count.get(key, 0) + 1

    for e in execs:
        if not e.shape:
            close(e.warpgroup)
            continue
        g = group_of[e.pc]
        if any(x[0] == e.warpgroup and x[1] != g for x in open_):
            close(e.warpgroup)
        open_.setdefault((e.warpgroup, g), []).append(e)
    for wg in {x[0] for x in list(open_)}:
        close(wg)
    return out


def _shape(s: str) -> tuple[int, int, int]:
    m = re.fullmatch(r"m(\d+)n(\d+)k(\d+)", s)
    assert m is not None
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def _period(encoding: str, aliases: Any) -> int:
    from layoutcheck.importers.triton import parse_attr

    a = parse_attr(encoding, aliases)
    return 8 * int(a.get("swizzlingByteWidth")) if a.kind == "ttg.nvmma_shared" and a.get("swizzlingByteWidth") else 16


def nvmma_claims(ttgir: str, ptx: str, grid: tuple[int, ...] = (1,), scalars: dict[str, int] | None = None,
                 offsets: tuple[int | None, ...] = ()) -> list[Claim]:
    """One ``nvmma_descriptor`` claim per ``ttng.warp_group_dot`` of ``ttgir`` (at its TTGIR line), decided on the
    descriptors every warpgroup executes when ``ptx`` runs on ``grid`` with ``scalars``; ``NotModelled`` rows say
    what could not be followed. ``offsets``: the ``allocation.offset`` of each ``ttg.local_alloc`` in text order
    (``importers.triton_kernel.allocation_offsets``), for a TTGIR printed before Triton's allocation pass."""
    dots = dot_operands(ttgir, offsets)
    if not dots:
        return []
    aliases = parse_ttgir(ttgir).aliases

    def unknown(what: str) -> list[Claim]:
        return [Claim(d.line, d.subject, NotModelled(d.subject, what, "nvmma_descriptor"), required=False)
                for d in dots]

    k = parse_ptx(ptx)
    groups = _groups(k)
    if len(groups) != len(dots):
        return unknown(f"the PTX has {len(groups)} wgmma groups for {len(dots)} warp_group_dot: not paired")
    run = wgmma_executions(k, grid=grid, scalars=scalars)
    if run.stopped:
        return unknown(f"the PTX run stopped before every wgmma was evaluated: {run.stopped}")
    group_of = {pc: g for g, pcs in enumerate(groups) for pc in pcs}
    per_group = _executions(run.execs, group_of)
    out = []
    for g, d in enumerate(dots):
        try:
            prop = _dot_claim(k, d, per_group.get(g, []), aliases, k.shared.get("global_smem", 0))
        except LayoutcheckError as e:
            prop = NotModelled(d.subject, str(e), "nvmma_descriptor")
        out.append(Claim(d.line, d.subject, prop, required=not isinstance(prop, NotModelled)))
    return out


def _dot_claim(k: Kernel, d: DotOperands, executions: list[tuple[int, list[WgmmaExec]]], aliases: Any,
               smem: int) -> Property:
    if not executions:
        return NotModelled(d.subject, "no wgmma of this dot ran in the PTX run", "nvmma_descriptor")
    if any(d.why):
        return NotModelled(d.subject, "; ".join(w for w in d.why if w), "nvmma_descriptor")
    bad = next((e.unknown for _, es in executions for e in es if e.unknown), "")
    if bad:
        return NotModelled(d.subject, bad, "nvmma_descriptor")
    for o, alloc in enumerate(d.allocs):
        if alloc is not None and parse_ttgir_kind(alloc[0].encoding, aliases) != "ttg.nvmma_shared":
            return NotModelled(d.subject, f"operand {'AB'[o]} is not #ttg.nvmma_shared", "nvmma_descriptor")
    operands, index = [], {}
    for o, alloc in enumerate(d.allocs):
        if alloc is None:
            continue
        use, offset = alloc
        if offset is None:
            starts = [_desc_start(e.desc_a if o == 0 else e.desc_b) for _, es in executions for e in es]
            p = _period(use.encoding, aliases)
            base, placed = min(starts) // p * p, "inferred"
        else:
            base, placed = smem + offset, "allocation.offset"
        index[o] = len(operands)
        operands.append(stored_operand("AB"[o], use, base, aliases, (o == 1) != d.trans[o], placed))
    reads, instr = [], 0
    for ex, es in executions:
        for e in es:
            m, n, kk = _shape(e.shape)
            for o in index:
                desc = e.desc_a if o == 0 else e.desc_b
                if desc is None:
                    return NotModelled(d.subject, f"operand {'AB'[o]} is read from registers in the PTX",
                                       "nvmma_descriptor")
                trans = e.trans_a if o == 0 else e.trans_b
                reads.append(Read(index[o], ex, instr, e.warpgroup, k.instrs[e.pc].line, desc,
                                  "MN" if trans else "K", m if o == 0 else n, kk))
            instr += 1
    return NvmmaDescriptorReads(d.subject, tuple(operands), tuple(reads))


def parse_ttgir_kind(encoding: str, aliases: Any) -> str:
    from layoutcheck.importers.triton import parse_attr

    return parse_attr(encoding, aliases).kind


def _desc_start(desc: int | None) -> int:
    return 0 if desc is None else GmmaDescriptor.from_value(desc).start_address


__all__ = ["DotOperands", "NvmmaDescriptorReads", "Read", "StoredOperand", "dot_operands", "nvmma_claims",
           "nvmma_descriptor_claim", "stored_operand"]
