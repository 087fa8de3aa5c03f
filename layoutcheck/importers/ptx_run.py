"""Running a PTX kernel: control flow, the step of one instruction, and the entry points (``shared_accesses``,
``wgmma_executions``, ``umma_executions``, ``tma_loads``).

An unknown value that reaches a shared address, a guard of a shared access or a branch makes the run stop with
``Run.stopped`` saying where and why: accesses are never guessed. ``mbarrier.try_wait`` / ``test_wait`` are taken as
satisfied (a wait loop exits when the phase completes; what follows is the same stream). A branch that sends whole
warps different ways runs each side separately (a warp's address stream does not depend on another warp's registers,
only on data, which is unknown anyway); one that splits a warp runs each side with its lanes up to the branch's
reconvergence point (``importers.ptx_cfg``). Barriers are no-ops.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from layoutcheck.errors import ParseError
from layoutcheck.importers.ptx import Instr, Kernel
from layoutcheck.importers.ptx_alu import alu, elect, shfl_idx, unknown_dsts
from layoutcheck.importers.ptx_descriptors import record_tensormap, record_umma, record_wgmma
from layoutcheck.importers.ptx_machine import BITS, Machine, State, Stop, type_of
from layoutcheck.importers.ptx_shared import (
    generic_access,
    is_generic,
    is_modelled_access,
    is_shared,
    record_access,
    record_copy,
)
from layoutcheck.importers.ptx_tensormap import TensorMaps, TmaLoad
from layoutcheck.importers.ptx_values import Run, UmmaExec, WgmmaRun

_NO_EFFECT = {"bar", "barrier", "fence", "membar", "prefetch", "prefetchu", "griddepcontrol", "nanosleep", "trap",
              "pmevent", "setmaxnreg", "discard", "applypriority", "createpolicy"}


def machine(k: Kernel, grid: tuple[int, ...], block: tuple[int, ...] | None, scalars: Mapping[str, int] | None,
            ctas: list[int] | None, max_steps: int) -> Machine:
    """The machine every entry point runs: ``block`` threads a CTA (default ``.reqntid``; neither is a
    ``ParseError``), the CTAs ``ctas`` of ``grid`` (default all), scalar parameters by PTX name or index."""
    if not (block or k.reqntid):
        raise ParseError(f"ptx: {k.name} declares no .reqntid: give the block size")
    block3, grid3 = (*(block or k.reqntid or ()), 1, 1, 1), (*grid, 1, 1, 1)
    named = {k.params[int(key)] if str(key).isdigit() else key: int(val) for key, val in (scalars or {}).items()}
    ncta = grid3[0] * grid3[1] * grid3[2]
    return Machine(k, block3[:3], grid3[:3], list(range(ncta)) if ctas is None else ctas, named, max_steps)


def shared_accesses(k: Kernel, grid: tuple[int, ...] = (1,), block: tuple[int, ...] | None = None,
                    scalars: Mapping[str, int] | None = None, ctas: list[int] | None = None,
                    max_steps: int = 200_000) -> Run:
    """Run ``k`` for the CTAs ``ctas`` (linear ids; default all of ``grid``) of ``block`` threads (default
    ``.reqntid``) with scalar parameters ``scalars`` (by PTX parameter name ``K_param_3`` or index ``"3"``) and
    return every shared-memory access each warp makes. ``max_steps`` bounds the instructions run per group."""
    m = machine(k, grid, block, scalars, ctas, max_steps)
    stopped = _execute(m)
    return Run(tuple(m.accesses), dict(m.other), stopped, m.steps, frozenset(m.unplaced), tuple(m.copies),
               frozenset(m.copy_unknown))


def _execute(m: Machine) -> str:
    """Run every thread of ``m`` to the end; the reason it stopped (``""``: it ran to the end)."""
    k = m.k
    work = [State(0, np.arange(m.n), {})]
    stopped = ""
    while work:
        st = work.pop()
        try:
            work.extend(_run(m, st))
        except Stop as e:
            pc = st.pc if e.pc is None else e.pc
            ins = k.instrs[min(pc, len(k.instrs) - 1)] if k.instrs else None
            where = f" (PTX line {ins.line}: {ins.text} {', '.join(ins.operands)})" if ins else ""
            stopped = f"{e}{where}"
            break
    return stopped


def _run(m: Machine, st: State, stop: int | None = None, depth: int = 0) -> list[State]:
    """Run one group until it ends, splits (returns the groups to continue) or reaches instruction ``stop`` (returns
    ``[st]`` there)."""
    box = [st]
    try:
        return _run_group(m, box, stop, depth)
    except Stop as e:
        if e.pc is None:
            e.pc = box[0].pc
        raise


def _run_group(m: Machine, box: list[State], stop: int | None, depth: int) -> list[State]:
    instrs = m.k.instrs
    st = box[0]
    while st.pc < len(instrs):
        if st.pc == stop:
            return [st]
        m.steps += 1
        if m.steps > m.max_steps:
            raise Stop(f"more than {m.max_steps} instructions run")
        ins = instrs[st.pc]
        where = np.ones(st.threads.size, dtype=bool)
        gk = where
        if ins.guard:
            gv, gk = m.value(st, ins.guard, 1)
            where = (gv & np.uint64(1)).astype(bool) & gk
            if not gk.all() and (ins.opcode in ("ret", "exit", "wgmma") or is_modelled_access(ins)):
                raise Stop("a guard the interpreter does not know")
        if ins.opcode == "bra":
            target = m.k.labels.get(ins.operands[-1])
            if target is None:
                raise Stop(f"branch to an unknown label {ins.operands[-1]!r}")
            if gk.all() and where.all():
                st.pc = target
                continue
            if gk.all() and not where.any():
                st.pc += 1
                continue
            if gk.all() and not _splits_a_warp(m, st, where):
                return _split(m, st, where, target)
            st = box[0] = _diverge(m, st, where, gk, target, depth)
            continue
        if ins.opcode in ("ret", "exit"):
            if where.all():
                return []
            if where.any():
                return _split(m, st, ~where, st.pc + 1, keep_only=True)
            st.pc += 1
            continue
        if gk.all():
            _step(m, st, ins, where)
        else:  # it may or may not run where the guard is not known: what it writes is unknown there
            before = dict(st.regs)
            m.guessed, m.elected_guard = ~gk, ins.guard in st.elected
            try:
                _step(m, st, ins, where | ~gk)
            finally:
                m.guessed, m.elected_guard = None, False
            for r, (v, kn) in st.regs.items():
                if before.get(r) is not st.regs[r]:
                    st.regs[r] = (v, kn & gk)
        st.pc += 1
    return []


_MAX_NESTING = 64


def _splits_a_warp(m: Machine, st: State, taken: np.ndarray) -> bool:
    warps = m.warp_of[st.threads]
    every = np.bincount(warps, minlength=int(warps.max()) + 1)
    some = np.bincount(warps[taken], minlength=every.size)
    return bool(((some > 0) & (some < every)).any())


def _diverge(m: Machine, st: State, taken: np.ndarray, known: np.ndarray, target: int, depth: int) -> State:
    """A branch that splits a warp, or whose guard is not known for some lanes: each lane runs its own side (a lane
    whose side is not known runs both) up to the branch's reconvergence point (``importers.ptx_cfg``), where the
    sides merge into one group again. A register is known after the merge for a lane only where every side the lane
    ran agrees on it. A shared-memory access before the reconvergence point by a lane whose side is not known stops
    the run (its warp's active lanes are not known); one by lanes whose side is known is the access of those lanes."""
    join = m.cfg.reconvergence(st.pc)
    if join is None:
        raise Stop("a branch that splits a warp and does not reconverge before the kernel's end is not modelled")
    if depth >= _MAX_NESTING:
        raise Stop(f"divergent branches nested deeper than {_MAX_NESTING}")
    both = ~known
    arrived: list[State] = []
    for sel, pc in ((taken | both, target), ((~taken & known) | both, st.pc + 1)):
        if not sel.any():
            continue
        amb = both[sel] if st.ambiguous is None else (both | st.ambiguous)[sel]
        side = State(pc, st.threads[sel], {r: (v[sel], kn[sel]) for r, (v, kn) in st.regs.items()},
                      amb if amb.any() else None)
        work = [side]
        while work:
            s = work.pop()
            if s.pc == join:
                arrived.append(s)
            else:
                work.extend(_run(m, s, join, depth + 1))
    return _merge(arrived, join, st.ambiguous is not None and bool(st.ambiguous.any()), st)


def _merge(groups: list[State], pc: int, was_ambiguous: bool, before: State) -> State:
    """One group of the threads of ``groups`` (a thread may be in several: it ran every side), at ``pc``."""
    if not groups:
        return State(pc, before.threads[:0], {r: (v[:0], kn[:0]) for r, (v, kn) in before.regs.items()})
    threads = np.concatenate([g.threads for g in groups])
    order = np.argsort(threads, kind="stable")
    ts = threads[order]
    uniq, first = np.unique(ts, return_index=True)
    regs: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for r in set().union(*(g.regs for g in groups)):
        vs = np.concatenate([g.regs[r][0] if r in g.regs else np.zeros(g.threads.size, dtype=np.uint64)
                             for g in groups])[order]
        ks = np.concatenate([g.regs[r][1] if r in g.regs else np.zeros(g.threads.size, dtype=bool)
                             for g in groups])[order]
        lo, hi = np.minimum.reduceat(vs, first), np.maximum.reduceat(vs, first)
        kn = np.logical_and.reduceat(ks, first) & (lo == hi)
        regs[r] = (lo, kn)
    amb = None
    if was_ambiguous:
        pos = np.searchsorted(before.threads, uniq)
        amb = before.ambiguous[pos] if before.ambiguous is not None else None
    return State(pc, uniq, regs, amb)


def _split(m: Machine, st: State, taken: np.ndarray, target: int, keep_only: bool = False) -> list[State]:
    """Whole warps go one way or the other (a branch); with ``keep_only`` the others leave (``ret``: lanes of a warp
    may exit while the rest go on, as the hardware does)."""
    amb = (lambda sel: None if st.ambiguous is None else st.ambiguous[sel])  # noqa: E731
    a = State(target, st.threads[taken], {r: (v[taken], kn[taken]) for r, (v, kn) in st.regs.items()}, amb(taken),
               set(st.elected))  # whole warps go on together: an elected lane is still the one of its warp
    if keep_only:  # ``ret`` by the others: only the taken ones go on, at ``target`` (a warp may lose lanes)
        a.elected.clear()
        return [a]
    b = State(st.pc + 1, st.threads[~taken], {r: (v[~taken], kn[~taken]) for r, (v, kn) in st.regs.items()},
               amb(~taken), set(st.elected))
    return [b, a]



def _step(m: Machine, st: State, ins: Instr, where: np.ndarray) -> None:
    op, ops = ins.opcode, ins.operands
    n = st.threads.size
    if op in _NO_EFFECT:
        return
    if op == "elect":
        elect(m, st, ins, where)
        return
    if op == "cvta":  # an address conversion, not an access
        alu(m, st, ins, where)
        return
    if is_shared(ins) and op in ("ld", "st", "ldmatrix", "stmatrix"):
        ai = 1 if op in ("ld", "ldmatrix") else 0
        addr, kn = m.address(st, ops[ai])
        record_access(m, st, ins, addr, kn, where)
        if op == "st" and m.tmaps is not None and where.any():
            width = BITS.get(type_of(ins), 32) // 8 * next((int(x[1:]) for x in ins.mods if x in ("v2", "v4")), 1)
            val = None if ops[1].startswith("{") else m.value(st, ops[1], 64)
            m.tmaps.stored(addr[where], None if val is None else (val[0][where], val[1][where]), width)
        if op in ("ld", "ldmatrix"):
            unknown_dsts(m, st, ops[0], where)
        return
    if is_shared(ins) or op in ("mbarrier", "wgmma", "tcgen05"):
        moves_data = ((is_shared(ins) and op != "mbarrier") or (op == "wgmma" and "mma_async" in ins.mods)
                      or (op == "tcgen05" and bool(ins.mods) and ins.mods[0] in ("mma", "cp")))
        if moves_data:  # shared-memory data the LSU bank model does not count (synchronisation is not listed)
            m.other[st.pc] = m.other.get(st.pc, 0) + int(np.unique(m.warp_of[st.threads[where]]).size)
        if op == "cp" and ins.mods[:1] == ("async",) and "bulk" not in ins.mods and ops:
            record_copy(m, st, ins, where)
        if m.wgmmas is not None and op == "wgmma" and ins.mods[:1] in (("mma_async",), ("commit_group",)):
            record_wgmma(m, st, ins, where)
        if m.ummas is not None and op == "tcgen05" and ins.mods[:1] in (("mma",), ("commit",)):
            record_umma(m, st, ins, where)
        if m.tmaps is not None and op in ("tensormap", "cp"):
            record_tensormap(m, st, ins, where)
        if op == "mbarrier" and ins.mods and ins.mods[0] in ("try_wait", "test_wait") and ops:
            m.write(st, ops[0], np.ones(n, dtype=np.uint64), np.ones(n, dtype=bool), 1, where)
            return
        if ops and not ops[0].startswith("[") and op != "cp":
            unknown_dsts(m, st, ops[0], where)
        return
    if op == "cp":  # cp.async.commit_group / wait_group, bulk groups: no registers
        return
    if op == "shfl" and ins.mods[:2] == ("sync", "idx"):
        shfl_idx(m, st, ins, where)
        return
    if op in ("ld", "st") and is_generic(ins):  # a generic address may point into the shared window
        generic_access(m, st, ins, where)
        return
    if op == "ld":
        if "param" in ins.mods:
            name = ops[1].strip()[1:-1].split("+")[0].strip()
            bits = BITS.get(type_of(ins), 32)
            if name in m.params:
                m.write(st, ops[0], np.full(n, m.params[name] & ((1 << 64) - 1), dtype=np.uint64),
                        np.ones(n, dtype=bool), bits, where)
            elif bits == 64 and name in m.pointer_base:
                m.write(st, ops[0], np.full(n, m.pointer_base[name], dtype=np.uint64), np.ones(n, dtype=bool),
                        bits, where)
            else:
                unknown_dsts(m, st, ops[0], where)
            return
        unknown_dsts(m, st, ops[0], where)
        return
    if op in ("st", "red", "atom", "prefetch") or op.startswith("st"):
        if op == "atom":
            unknown_dsts(m, st, ops[0], where)
        return
    alu(m, st, ins, where)


def wgmma_executions(k: Kernel, grid: tuple[int, ...] = (1,), block: tuple[int, ...] | None = None,
                     scalars: Mapping[str, int] | None = None, ctas: list[int] | None = None,
                     max_steps: int = 200_000) -> WgmmaRun:
    """Run ``k`` as ``shared_accesses`` does and return the descriptors of every ``wgmma.mma_async`` each warpgroup
    executes (PTX ISA 9.7.15.5: ``wgmma.mma_async.sync.aligned.shape.dtype.atype.btype d, a-desc|{a}, b-desc,
    scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b``; the ``imm-trans`` operands exist for .f16 /
    .bf16 only), with the ``wgmma.commit_group`` that close each group."""
    m = machine(k, grid, block, scalars, ctas, max_steps)
    m.wgmmas = []
    stopped = _execute(m)
    return WgmmaRun(tuple(m.wgmmas), stopped)


def umma_executions(k: Kernel, grid: tuple[int, ...] = (1,), block: tuple[int, ...] | None = None,
                    scalars: Mapping[str, int] | None = None, ctas: list[int] | None = None,
                    max_steps: int = 200_000) -> tuple[tuple[UmmaExec, ...], str]:
    """Run ``k`` as ``shared_accesses`` does; every ``tcgen05.mma`` (PTX ISA 9.7.16.10.9: ``tcgen05.mma.cta_group
    .kind [d-tmem], a-desc|[a-tmem], b-desc, idesc, ...``, issued by each thread that executes it) and
    ``tcgen05.commit`` in program order, and why the run stopped (``""``)."""
    m = machine(k, grid, block, scalars, ctas, max_steps)
    m.ummas = []
    stopped = _execute(m)
    return tuple(m.ummas), stopped


def tma_loads(k: Kernel, grid: tuple[int, ...] = (1,), block: tuple[int, ...] | None = None,
              scalars: Mapping[str, int] | None = None, max_steps: int = 200_000) -> tuple[tuple[TmaLoad, ...], str]:
    """Run ``k`` and return every TMA load (``cp.async.bulk.tensor`` global -> shared) with its destination and
    the fields of the device-side tensor map it names (``importers.ptx_tensormap``), and why the run stopped."""
    m = machine(k, grid, block, scalars, None, max_steps)
    m.tmaps = TensorMaps()
    stopped = _execute(m)
    return tuple(m.tmaps.loads), stopped


__all__ = ["shared_accesses", "tma_loads", "umma_executions", "wgmma_executions"]
