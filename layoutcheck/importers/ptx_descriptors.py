"""The operands of the asynchronous instructions a PTX run records: the descriptors of each ``wgmma.mma_async`` and
``tcgen05.mma``, and the tensor maps ``tensormap.replace`` builds and TMA loads name (``importers.ptx_tensormap``).

A descriptor is recorded only when every thread that supplies it holds the same known value; otherwise the record
says why it could not be evaluated (``unknown``), never a guess.
"""

from __future__ import annotations

import re

import numpy as np

from layoutcheck.importers.ptx import Instr
from layoutcheck.importers.ptx_machine import Machine, State, literal, uniform_value
from layoutcheck.importers.ptx_tensormap import TmaLoad, uniform
from layoutcheck.importers.ptx_values import UmmaExec, WgmmaExec


def record_wgmma(m: Machine, st: State, ins: Instr, where: np.ndarray) -> None:
    groups = m.warp_of[st.threads] // 4
    ops = ins.operands
    for g in np.unique(groups[where]):
        sel = (groups == g) & where
        if ins.mods[0] == "commit_group":
            m.wgmmas.append(WgmmaExec(st.pc, int(g)))  # type: ignore[union-attr]
            continue
        shape = next((x for x in ins.mods if re.fullmatch(r"m\d+n\d+k\d+", x)), "")
        atype, btype = ins.mods[-2], ins.mods[-1]
        a_regs = ops[1].strip().startswith("{")
        why = "" if m.warps_per_cta % 4 == 0 else "the CTA's warps are not whole warpgroups"
        if "sp" in ins.mods:  # sparse wgmma: metadata operands shift the others; not read here
            m.wgmmas.append(WgmmaExec(st.pc, int(g), shape, atype, btype, unknown="a sparse wgmma (.sp)"))  # type: ignore
            continue
        a, wa = (None, "") if a_regs else uniform_value(m, st, ops[1], sel)
        b, wb = uniform_value(m, st, ops[2], sel)
        trans = [0, 0]
        if atype in ("f16", "bf16"):
            imms = ops[6:] if not a_regs else ("0", *ops[6:])
            for i, t in enumerate(imms[:2]):
                lit = literal(t.strip())
                if lit is None:
                    why = why or f"imm-trans operand {t!r} is not an integer"
                else:
                    trans[i] = lit
        m.wgmmas.append(WgmmaExec(st.pc, int(g), shape, atype, btype, a, b, trans[0], trans[1],  # type: ignore
                                  why or wa or wb))


def record_umma(m: Machine, st: State, ins: Instr, where: np.ndarray) -> None:
    """One execution per issuing thread; under an ``elect.sync`` guard, one per warp with operands that every lane
    of the warp holds alike (so the leader's are known whichever it is)."""
    assert m.ummas is not None
    warps = m.warp_of[st.threads]
    commit = ins.mods[0] == "commit"
    kind = next((x.split("::")[1] for x in ins.mods if x.startswith("kind::")), "")
    odd = next((x for x in ins.mods if x in ("sp", "ws") or x.startswith("block_scale")), "")
    for w in np.unique(warps[where]):
        sel = (warps == w) & where
        if m.guessed is not None and m.guessed[sel].any():
            if not m.elected_guard:
                m.ummas.append(UmmaExec(st.pc, int(w), kind or "?", unknown="its guard is not known"))
                continue
            issuers = [sel]  # exactly one lane of ``sel`` (the leader) issues it
        else:
            issuers = [np.flatnonzero(sel)[i:i + 1] for i in range(int(sel.sum()))]
        for lanes in issuers:
            if commit:
                m.ummas.append(UmmaExec(st.pc, int(w)))
                continue
            if odd:
                m.ummas.append(UmmaExec(st.pc, int(w), kind, unknown=f"a tcgen05.mma .{odd} is not modelled"))
                continue
            ops = ins.operands
            a = None if ops[1].strip().startswith("[") else uniform_value(m, st, ops[1], lanes)
            b, i = uniform_value(m, st, ops[2], lanes), uniform_value(m, st, ops[3], lanes)
            why = next((x[1] for x in (a, b, i) if x is not None and x[1]), "")
            m.ummas.append(UmmaExec(st.pc, int(w), kind, a[0] if a else None, b[0], i[0], why.replace("warpgroup",
                                                                                                      "warp")))


def record_tensormap(m: Machine, st: State, ins: Instr, where: np.ndarray) -> None:
    assert m.tmaps is not None
    lanes = where | (m.guessed if m.guessed is not None else False)
    if not lanes.any():
        return
    ops = ins.operands

    def one(op: str, bits: int = 64) -> int | None:
        v, kn = m.value(st, op, bits)
        return uniform(v[lanes], kn[lanes])

    def addr(op: str) -> int | None:
        v, kn = m.address(st, op)
        return uniform(v[lanes], kn[lanes])

    if ins.opcode == "tensormap" and ins.mods[:2] == ("replace", "tile"):
        name = ins.mods[2]
        ordinal = literal(ops[1].strip()) if len(ops) > 2 else 0
        m.tmaps.replace(name, ordinal if ordinal is not None else -1, addr(ops[0]), one(ops[-1]))
    elif ins.opcode == "tensormap" and ins.mods[:1] == ("cp_fenceproxy",):
        m.tmaps.publish(addr(ops[0]), addr(ops[1]))
    elif ins.opcode == "cp" and "tensor" in ins.mods and "global" in ins.mods and ins.mods.index("global") > \
            next((i for i, x in enumerate(ins.mods) if x.startswith("shared")), 99):
        dst = addr(ops[0])
        inner = ops[1].strip()[1:-1]
        slot = one(inner.split(",")[0].strip())
        fields = m.tmaps.slots.get(slot) if slot is not None else None
        why = ("" if dst is not None else "its destination is not known") or \
              ("" if fields is not None else "its tensor map is not one the run built (a host-side descriptor, or "
                                               "a field the run does not know)")
        for w in np.unique(m.warp_of[st.threads[lanes]]):
            m.tmaps.loads.append(TmaLoad(st.pc, int(w), dst, fields, why))
