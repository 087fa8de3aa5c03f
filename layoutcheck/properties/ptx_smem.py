"""The shared-memory wavefronts of a kernel as compiled: every ``ld.shared`` / ``st.shared`` / ``ldmatrix`` /
``stmatrix`` of its PTX, over every warp of the CTAs run, through the bank model.

``ptx_traffic(ptx, grid=..., scalars=...)`` runs the kernel's integer arithmetic (``layoutcheck.importers.ptx``) and
gives, per static instruction, the warp-instructions executed, their wavefronts and the conflict-free ideal (the bank
model of ``layoutcheck.models.banks``: what Nsight Compute's ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}``
count). This reaches what the TTGIR road leaves UNKNOWN -- Triton's ``convert_layout`` through its swizzled scratch,
cross-warp reductions, ldmatrix / stmatrix copies of MMA operands -- because it reads the lowering Triton chose rather
than re-deriving it. Shared-memory operations that are not ld/st bank traffic of the LSU pipe (``cp.async``, TMA,
``wgmma`` / ``tcgen05`` operand reads, mbarriers, atomics) are listed with ``wavefronts = None`` and what they are;
a run the interpreter cannot finish (an address that depends on data, a branch splitting a warp) gives one entry with
the reason and no number: never a guess.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from layoutcheck.errors import LayoutError
from layoutcheck.hw.banks import access_kind
from layoutcheck.importers.ptx import Instr, Kernel, parse_ptx, shared_accesses
from layoutcheck.importers.sass import shared_ops
from layoutcheck.models.banks.model import ideal_batch, wavefronts_batch


@dataclass(frozen=True, slots=True)
class PtxTraffic:
    """One static PTX instruction's shared-memory traffic over the run: ``executions`` warp-instructions,
    ``wavefronts`` and ``ideal`` summed over them (``None`` with a ``reason`` when not counted)."""

    ptx_line: int
    source: tuple[str, int] | None
    instruction: str
    kind: str = ""
    op: str = ""  # "ld" or "st" (what ncu's op_ld / op_st count), "" when not counted
    executions: int = 0
    wavefronts: int | None = None
    ideal: int | None = None
    reason: str = ""

    @property
    def excess(self) -> int | None:
        return None if self.wavefronts is None or self.ideal is None else self.wavefronts - self.ideal


def access_kind_of(ins: Instr) -> str:
    """The bank model's access kind of a shared ld/st/ldmatrix/stmatrix (``lds128``, ``ldsm_x4_trans``, ...);
    raises ``LayoutError`` for a form the model does not cover."""
    if ins.opcode in ("ldmatrix", "stmatrix"):
        x = next((m for m in ins.mods if m in ("x1", "x2", "x4")), "")
        if not x or "m8n8" not in ins.mods or "b16" not in ins.mods:
            raise LayoutError(f"{ins.text}: only .m8n8 .x1/.x2/.x4 .b16 matrices are modelled")
        return f"{'ldsm' if ins.opcode == 'ldmatrix' else 'stsm'}_{x}{'_trans' if 'trans' in ins.mods else ''}"
    vec = next((int(m[1:]) for m in ins.mods if m in ("v2", "v4", "v8")), 1)
    bits = next((int(m[1:]) for m in reversed(ins.mods) if m[:1] in "bufs" and m[1:].isdigit()), 0)
    total = vec * bits
    if total not in (8, 16, 32, 64, 128):
        raise LayoutError(f"{ins.text}: a {total}-bit shared access is not modelled")
    return f"{'lds' if ins.opcode == 'ld' else 'sts'}{total}"


def _other_reason(ins: Instr) -> str:
    what = {"cp": "an asynchronous copy into shared memory (cp.async / TMA)", "wgmma": "a wgmma operand read",
            "tcgen05": "a tcgen05 operand read or copy", "mbarrier": "an mbarrier operation",
            "atom": "a shared-memory atomic", "red": "a shared-memory reduction"}.get(ins.opcode, ins.opcode)
    return f"not counted: {what} is not ld/st bank traffic of the LSU pipe"


def ptx_shared_ops(k: Kernel) -> Counter[tuple[str, bool]]:
    """The ``(access kind, predicated)`` multiset of the PTX's shared ld/st/ldmatrix/stmatrix instructions (forms
    the bank model does not cover are named by their PTX text)."""
    out: Counter[tuple[str, bool]] = Counter()
    for ins in k.instrs:
        if ins.opcode in ("ld", "st", "ldmatrix", "stmatrix") and _is_shared_access(ins):
            try:
                out[(access_kind_of(ins), bool(ins.guard))] += 1
            except LayoutError:
                out[(ins.text, bool(ins.guard))] += 1
    return out


def _is_shared_access(ins: Instr) -> bool:
    return any(m.startswith("shared") for m in ins.mods) or ins.opcode in ("ldmatrix", "stmatrix")


def sass_disagreement(k: Kernel, cubin: bytes) -> str:
    """``""`` when the cubin's SASS executes the PTX's shared accesses one for one (the same access kinds, the same
    predicated ones: ``layoutcheck.importers.sass``), else what differs; a missing ``nvdisasm`` is a disagreement
    (the count cannot be checked)."""
    sass = shared_ops(cubin)
    if sass is None:
        return "no nvdisasm to check the PTX count against the SASS"
    ptx = ptx_shared_ops(k)
    if sass == ptx:
        return ""
    show = lambda c: ", ".join(f"{n} {'predicated ' if p else ''}{kind}" for (kind, p), n in sorted(c.items()))  # noqa: E731
    return f"ptxas rewrote the shared accesses (PTX: {show(ptx)}; SASS: {show(sass)})"


def traffic_of_kernel(k: Kernel, grid: tuple[int, ...] = (1,), scalars: Mapping[str, int] | None = None,
                      block: tuple[int, ...] | None = None, ctas: list[int] | None = None,
                      cubin: bytes | None = None) -> list[PtxTraffic]:
    """Every shared-memory instruction of ``k`` with its traffic over the CTAs run (default: all of ``grid``); with
    the kernel's ``cubin``, a ``"(sass)"`` entry when its SASS does not execute the PTX's accesses one for one (then
    the PTX counts are not what runs, and ``totals`` is ``None``)."""
    run = shared_accesses(k, grid, block, scalars, ctas)
    by_pc: dict[int, list[np.ndarray]] = defaultdict(list)
    for a in run.accesses:
        by_pc[a.pc].append(a.addrs)
    out = []
    for pc, rows in sorted(by_pc.items()):
        ins = k.instrs[pc]
        base = dict(ptx_line=ins.line, source=k.source(ins), instruction=ins.text)
        try:
            kind = access_kind(access_kind_of(ins))
            addrs = np.stack(rows)
            w, i = int(wavefronts_batch(kind, addrs).sum()), int(ideal_batch(kind, addrs).sum())
        except LayoutError as e:
            out.append(PtxTraffic(**base, executions=len(rows), reason=f"not modelled: {e}"))
            continue
        out.append(PtxTraffic(**base, kind=kind.name, op=kind.op, executions=len(rows), wavefronts=w, ideal=i))
    for pc, n in sorted(run.other.items()):
        ins = k.instrs[pc]
        out.append(PtxTraffic(ins.line, k.source(ins), ins.text, executions=n, reason=_other_reason(ins)))
    if run.stopped:
        out.append(PtxTraffic(0, None, "(run)", reason=f"not modelled: the run stopped: {run.stopped}"))
    differs = sass_disagreement(k, cubin) if cubin is not None else ""
    if differs:
        out.append(PtxTraffic(0, None, "(sass)", reason=f"not exact: {differs}"))
    return sorted(out, key=lambda t: t.ptx_line)


def ptx_traffic(ptx: str, grid: tuple[int, ...] = (1,), scalars: Mapping[str, int] | None = None,
                entry: str | None = None, block: tuple[int, ...] | None = None,
                ctas: list[int] | None = None, cubin: bytes | None = None) -> list[PtxTraffic]:
    """``traffic_of_kernel`` of the ``.entry`` ``entry`` (the first) of a PTX module."""
    return traffic_of_kernel(parse_ptx(ptx, entry), grid, scalars, block, ctas, cubin)


def totals(traffic: list[PtxTraffic]) -> tuple[int | None, int | None]:
    """(ld, st) wavefronts summed over the counted instructions; ``None`` for both when the run stopped (a total
    would leave out what the interpreter could not follow) or the SASS does not run the PTX's accesses."""
    if any(t.instruction in ("(run)", "(sass)") for t in traffic):
        return None, None
    ld = sum(t.wavefronts or 0 for t in traffic if t.op == "ld")
    st = sum(t.wavefronts or 0 for t in traffic if t.op == "st")
    return ld, st


__all__ = ["PtxTraffic", "access_kind_of", "ptx_shared_ops", "ptx_traffic", "sass_disagreement", "totals",
           "traffic_of_kernel"]
