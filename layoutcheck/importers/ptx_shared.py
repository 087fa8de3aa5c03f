"""The shared-memory accesses a PTX run records: shared and generic ``ld`` / ``st``, ``ldmatrix`` / ``stmatrix``,
``cp.async``.

Each warp-instruction becomes an ``Access`` with the byte address of each active lane. An address the interpreter does
not know, or an access by lanes whose side of a branch is not known, stops the run (accesses are never guessed); a
generic address is placed in the shared window or a parameter's global buffer, or listed as not modelled.
"""

from __future__ import annotations

import numpy as np

from layoutcheck.importers.ptx import Instr
from layoutcheck.importers.ptx_alu import unknown_dsts
from layoutcheck.importers.ptx_machine import SHARED_WINDOW, Machine, State, Stop, u64_
from layoutcheck.importers.ptx_values import Access


def is_modelled_access(ins: Instr) -> bool:
    """A shared ld/st/ldmatrix/stmatrix, or a generic ld/st (which may reach the shared window): the accesses whose
    active lanes a row counts."""
    return ins.opcode in ("ld", "st", "ldmatrix", "stmatrix") and (is_shared(ins) or is_generic(ins))


def is_shared(ins: Instr) -> bool:
    return any(x.startswith("shared") for x in ins.mods) or ins.opcode in ("ldmatrix", "stmatrix")


def record_access(m: Machine, st: State, ins: Instr, addr: np.ndarray, kn: np.ndarray, where: np.ndarray) -> None:
    if not kn[where].all():
        raise Stop("a shared address the interpreter does not know (it depends on data or an unknown parameter)")
    if st.ambiguous is not None and st.ambiguous[where].any():
        raise Stop("a shared access inside a branch by lanes whose side of it is not known (its guard depends on "
                    "data, an elected lane or a parameter not given): its active lanes are not known")
    warps = m.warp_of[st.threads]
    lanes = m.lane_of[st.threads]
    for w in np.unique(warps[where]):
        sel = (warps == w) & where
        a = np.full(32, -1, dtype=np.int64)
        a[lanes[sel]] = addr[sel].astype(np.int64)
        m.accesses.append(Access(st.pc, int(w), a))


def record_copy(m: Machine, st: State, ins: Instr, where: np.ndarray) -> None:
    """A ``cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size ...`` (PTX ISA 9.7.9.25.3.1): each active lane
    writes ``cp-size`` bytes at ``dst`` (zero-filled past ``src-size``, still written). Recorded with the lanes'
    destinations, or as unknown when a destination or which lanes run it is not known (never a stop: the LSU rows
    do not depend on it)."""
    addr, kn = m.address(st, ins.operands[0])
    guessed = m.guessed is not None and bool(m.guessed[where].any())
    ambiguous = st.ambiguous is not None and bool(st.ambiguous[where].any())
    if guessed or ambiguous or not kn[where].all():
        m.copy_unknown.add(st.pc)
        return
    warps, lanes = m.warp_of[st.threads], m.lane_of[st.threads]
    for w in np.unique(warps[where]):
        sel = (warps == w) & where
        a = np.full(32, -1, dtype=np.int64)
        a[lanes[sel]] = addr[sel].astype(np.int64)
        m.copies.append(Access(st.pc, int(w), a))


_SPACES = ("global", "shared", "local", "const", "param", "tex", "surf")


def is_generic(ins: Instr) -> bool:
    return not any(m.split("::")[0] in _SPACES for m in ins.mods)


def generic_access(m: Machine, st: State, ins: Instr, where: np.ndarray) -> None:
    """A generic ``ld`` / ``st``: lanes whose address lies in the shared window access shared memory (counted as
    a shared access at the window offset), lanes at a kernel parameter's global buffer do not; an address the run
    cannot place is listed as not modelled (it may be shared memory)."""
    ai = 1 if ins.opcode == "ld" else 0
    addr, kn = m.address(st, ins.operands[ai])
    in_window = (addr >= u64_(SHARED_WINDOW)) & (addr < u64_(SHARED_WINDOW + (1 << 32)))
    act = where & kn
    if (where & ~kn).any() or (in_window[act].any() and not in_window[act].all()):
        m.other[st.pc] = m.other.get(st.pc, 0) + 1
        m.unplaced.add(st.pc)
    elif in_window[act].any():
        record_access(m, st, ins, addr - u64_(SHARED_WINDOW), kn, where)
    if ins.opcode == "ld":
        unknown_dsts(m, st, ins.operands[0], where)
