"""The agreement of a Triton ``#ttg.nvmma_shared`` operand with the tcgen05.mma descriptors that read it (sm_100).

Triton lowers ``ttng.tc_gen5_mma`` to ``tcgen05.mma.cta_group::1.kind::K [d], a-desc, b-desc, idesc, ...``
instructions, one per K step of 256 bits, issued by an elected thread and closed by a ``tcgen05.commit``. The same
definition as for wgmma (``properties.nvmma``) decides each one, with the tcgen05 formats:

- the shared-memory descriptors (PTX ISA 9.7.16.4.1) decode through ``models.umma.decode_umma_descriptor`` to the
  canonical layout whose bytes the instruction reads for tile element ``(mn, k)``;
- the instruction descriptor (PTX ISA 9.7.16.4.2, ``models.umma.decode_instr_descriptor``) gives M and N, and the
  majors of A and B (bit 15 / 16: 0 K-major, 1 MN-major); its A / B formats must be the operands' element type and
  its M / N the dot's tile (else the row says which field disagrees: UNKNOWN, never PROVEN);
- K per instruction is 256 bits of the element type (``hw.tcgen05.K_BITS_PER_MMA``).

The operand values come from ``importers.ptx_run.umma_executions``: under an ``elect.sync`` guard one execution per
warp, with descriptors every lane holds alike (so the leader's whichever it is). PROVEN, REFUTED (the element, the
byte the layout stores it at, the byte the descriptor reads) or UNKNOWN as for wgmma.
"""

from __future__ import annotations

import re
from typing import Any

from layoutcheck.errors import LayoutcheckError
from layoutcheck.hw.tcgen05 import DTYPE_BITS, K_BITS_PER_MMA, MMA_KINDS
from layoutcheck.importers.ptx import Kernel, parse_ptx
from layoutcheck.importers.ptx_run import umma_executions
from layoutcheck.importers.ptx_values import UmmaExec
from layoutcheck.importers.triton import parse_ttgir
from layoutcheck.models.umma import decode_descriptor_word, decode_instr_descriptor
from layoutcheck.properties.base import Property
from layoutcheck.properties.nvmma import (
    _DEF,
    DotOperands,
    NvmmaDescriptorReads,
    Read,
    _period,
    _types,
    operand_source,
    parse_ttgir_kind,
    stored_operand,
)
from layoutcheck.properties.ttgir import Claim, NotModelled

NAME = "nvmma_descriptor"
_MMA = re.compile(r"^\s*ttng\.tc_gen5_mma\s+(?P<a>%[\w.$-]+),\s*(?P<b>%[\w.$-]+),.*?:\s*(?P<types>!ttg\.memdesc<.*)$",
                  re.M)


def mma_operands(text: str, offsets: tuple[int | None, ...] = ()) -> list[DotOperands]:
    """Every ``ttng.tc_gen5_mma`` with the allocation behind A and B (through ``memdesc_index``)."""
    defs = {m.group("res"): m for m in _DEF.finditer(text)}
    order = {x.group("res"): i for i, x in enumerate(m for m in _DEF.finditer(text)
                                                     if m.group("op") == "ttg.local_alloc")}
    out = []
    for m in _MMA.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        ts = _types(m.group("types"))
        allocs: list[Any] = []
        why: list[str] = []
        trans: list[bool] = []
        for name, t in zip((m.group("a"), m.group("b")), ts[:2], strict=False):
            found = operand_source(defs, name)
            trans.append(bool(found and found[1]))
            if t is None or t.kind != "memdesc" or found is None:
                allocs.append(None)
                why.append(f"operand {name} is not reached from a ttg.local_alloc through ttg.memdesc_index / "
                           "memdesc_trans")
                continue
            d = found[0]
            at = _types(d.group("rest").split("->")[-1])
            off = re.search(r"allocation\.offset\s*=\s*(\d+)", d.group("rest"))
            i = order[d.group("res")]
            allocs.append((at[-1], int(off.group(1)) if off else (offsets[i] if i < len(offsets) else None)))
            why.append("")
        n = ts[2].shape[-1] if len(ts) > 2 and ts[2] is not None else 0
        out.append(DotOperands(line, f"tc_gen5_mma {m.group('a')} x {m.group('b')}", tuple(allocs), tuple(why), n,
                               tuple(trans)))
    return out


def _groups(k: Kernel) -> list[list[int]]:
    """The static tcgen05.mma groups: the ``mma`` pcs before each ``tcgen05.commit``, in program order."""
    out: list[list[int]] = [[]]
    for pc, ins in enumerate(k.instrs):
        if ins.opcode == "tcgen05" and ins.mods[:1] == ("mma",):
            out[-1].append(pc)
        elif ins.opcode == "tcgen05" and ins.mods[:1] == ("commit",) and out[-1]:
            out.append([])
    return [g for g in out if g]


def _executions(execs: tuple[UmmaExec, ...], group_of: dict[int, int]) -> dict[int, list[list[UmmaExec]]]:
    """Per static group, each execution of it (the mmas one warp issues up to its commit)."""
    open_: dict[int, list[UmmaExec]] = {}
    out: dict[int, list[list[UmmaExec]]] = {}
    for e in execs:
        if not e.kind:
            es = open_.pop(e.warp, [])
            if es:
                out.setdefault(group_of[es[0].pc], []).append(es)
            continue
        open_.setdefault(e.warp, []).append(e)
    for es in open_.values():
        out.setdefault(group_of[es[0].pc], []).append(es)
    return out


def umma_claims(ttgir: str, ptx: str, grid: tuple[int, ...] = (1,), scalars: dict[str, int] | None = None,
                offsets: tuple[int | None, ...] = ()) -> list[Claim]:
    """One ``nvmma_descriptor`` claim per ``ttng.tc_gen5_mma`` of ``ttgir``, decided on the tcgen05.mma descriptors
    the PTX runs with (module docstring)."""
    mmas = mma_operands(ttgir, offsets)
    if not mmas:
        return []
    aliases = parse_ttgir(ttgir).aliases

    def unknown(what: str) -> list[Claim]:
        return [Claim(d.line, d.subject, NotModelled(d.subject, what, NAME), required=False) for d in mmas]

    k = parse_ptx(ptx)
    groups = _groups(k)
    if len(groups) != len(mmas):
        return unknown(f"the PTX has {len(groups)} tcgen05.mma groups for {len(mmas)} tc_gen5_mma: not paired")
    execs, stopped = umma_executions(k, grid=grid, scalars=scalars)
    if stopped:
        return unknown(f"the PTX run stopped before every tcgen05.mma was evaluated: {stopped}")
    group_of = {pc: g for g, pcs in enumerate(groups) for pc in pcs}
    per_group = _executions(execs, group_of)
    out = []
    for g, d in enumerate(mmas):
        try:
            prop = _claim(k, d, per_group.get(g, []), aliases, k.shared.get("global_smem", 0))
        except LayoutcheckError as e:
            prop = NotModelled(d.subject, str(e), NAME)
        out.append(Claim(d.line, d.subject, prop, required=not isinstance(prop, NotModelled)))
    return out


def _claim(k: Kernel, d: DotOperands, executions: list[list[UmmaExec]], aliases: Any, smem: int) -> Property:
    if not executions:
        return NotModelled(d.subject, "no tcgen05.mma of this tc_gen5_mma ran in the PTX run", NAME)
    if any(d.why):
        return NotModelled(d.subject, "; ".join(w for w in d.why if w), NAME)
    bad = next((e.unknown for es in executions for e in es if e.unknown), "")
    if bad:
        return NotModelled(d.subject, bad, NAME)
    for o, alloc in enumerate(d.allocs):
        if parse_ttgir_kind(alloc[0].encoding, aliases) != "ttg.nvmma_shared":
            return NotModelled(d.subject, f"operand {'AB'[o]} is not #ttg.nvmma_shared", NAME)
    operands = []
    for o, (use, offset) in enumerate(d.allocs):
        if offset is None:
            starts = [decode_descriptor_word(e.desc_a if o == 0 else e.desc_b).start_address_bytes  # type: ignore
                      for es in executions for e in es]
            p = _period(use.encoding, aliases)
            base, placed = min(starts) // p * p, "inferred"
        else:
            base, placed = smem + offset, "allocation.offset"
        operands.append(stored_operand("AB"[o], use, base, aliases, (o == 1) != d.trans[o], placed))
    reads, instr = [], 0
    for ex, es in enumerate(executions):
        for e in es:
            if e.desc_a is None:
                return NotModelled(d.subject, "operand A is read from tensor memory in the PTX", NAME)
            idesc = decode_instr_descriptor(e.idesc, e.kind)  # type: ignore[arg-type]
            why = _idesc_disagreement(idesc, e.kind, operands, d)
            if why:
                return NotModelled(d.subject, f"the instruction descriptor {e.idesc:#x} at PTX line "
                                              f"{k.instrs[e.pc].line} disagrees with the dot: {why}", NAME)
            kk = K_BITS_PER_MMA // DTYPE_BITS[operands[0].dtype]
            for o, desc, major, mn in ((0, e.desc_a, idesc.a_major, idesc.m), (1, e.desc_b, idesc.b_major, idesc.n)):
                reads.append(Read(o, ex, instr, e.warp, k.instrs[e.pc].line, desc, "MN" if major else "K", mn, kk,
                                  "tcgen05"))
            instr += 1
    return NvmmaDescriptorReads(d.subject, tuple(operands), tuple(reads))


def _idesc_disagreement(idesc: Any, kind: str, operands: list[Any], d: DotOperands) -> str:
    codes = {c: n for n, c in MMA_KINDS[kind].formats}
    for name, fmt, op in (("A", idesc.a_format, operands[0]), ("B", idesc.b_format, operands[1])):
        if codes.get(fmt) != op.dtype:
            return f"its {name} format {fmt} ({codes.get(fmt, '?')}) is not the operand's {op.dtype}"
    if idesc.m != operands[0].mn_extent:
        return f"its M {idesc.m} is not A's {operands[0].mn_extent} rows (cta_group::1)"
    if d.n and idesc.n != d.n:
        return f"its N {idesc.n} is not the accumulator's {d.n} columns"
    return ""


__all__ = ["mma_operands", "umma_claims"]
