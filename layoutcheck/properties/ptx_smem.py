"""The shared-memory wavefronts of a kernel as compiled: every ``ld.shared`` / ``st.shared`` / ``ldmatrix`` /
``stmatrix`` of its PTX, over every warp of the CTAs run, through the bank model.

``ptx_traffic(ptx, grid=..., scalars=...)`` runs the kernel's integer arithmetic (``layoutcheck.importers.ptx_run``) and
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

import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.errors import LayoutError, ParseError
from layoutcheck.hw.banks import access_kind
from layoutcheck.importers.ptx import Instr, Kernel, entries, parse_ptx
from layoutcheck.importers.ptx_run import shared_accesses
from layoutcheck.importers.sass import shared_ops_by_line
from layoutcheck.models.banks.model import WavefrontExcess, breakdown, ideal_batch, wavefronts_batch
from layoutcheck.properties.base import Decision, Property
from layoutcheck.properties.ttgir import Claim, NotModelled
from layoutcheck.witness_banks import PtxConflict


@dataclass(frozen=True, slots=True)
class PtxTraffic(WavefrontExcess):
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
    hypothesis: int | None = None
    """For a ``cp.async`` (LDGSTS): the wavefronts its shared-memory write would take if the hardware phased it as
    ``st.shared`` of the same width at the same addresses (``copy_hypothesis``); not a count until silicon confirms
    it (``gpu.ptx_ncu``, section ``ldgsts_ncu``)."""
    hypothesis_ideal: int | None = None


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


COPY_METRIC = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"


def copy_kind(ins: Instr) -> str:
    """The ``st.shared`` access kind of the same width as a ``cp.async``'s ``cp-size`` operand (4, 8 or 16 bytes);
    raises ``LayoutError`` when the size is not a literal."""
    size = ins.operands[2].strip() if len(ins.operands) > 2 else ""
    try:
        n = int(size, 0)
    except ValueError:
        raise LayoutError(f"{ins.text}: cp-size {size!r} is not a literal") from None
    if n not in (4, 8, 16):
        raise LayoutError(f"{ins.text}: cp-size {n} is not 4, 8 or 16")
    return f"sts{8 * n}"


def copy_hypothesis(k: Kernel, copies: tuple[Any, ...], pcs: set[int] | None = None) -> tuple[int, int] | None:
    """(wavefronts, ideal) of the ``cp.async`` executions ``copies`` (``Run.copies``; those at ``pcs`` only) under
    the hypothesis that an LDGSTS's shared write is phased as ``st.shared`` of its width; ``None`` if none ran."""
    rows = [a for a in copies if pcs is None or a.pc in pcs]
    if not rows:
        return None
    w = i = 0
    for kind, group in _by_kind(k, rows).items():
        addrs = np.stack([a.addrs for a in group])
        w += int(wavefronts_batch(access_kind(kind), addrs).sum())
        i += int(ideal_batch(access_kind(kind), addrs).sum())
    return w, i


def _by_kind(k: Kernel, rows: list[Any]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = defaultdict(list)
    for a in rows:
        out[copy_kind(k.instrs[a.pc])].append(a)
    return out


def _copy_note(hyp: tuple[int, int] | None, unknown: bool) -> str:
    if unknown:
        return "; the destination or the lanes of some execution are not known"
    if hyp is None:
        return ""
    return (f"; if its shared write were phased as st.shared of the same width it would take {hyp[0]} wavefronts "
            f"(ideal {hyp[1]}): a hypothesis, not confirmed on silicon")


def _other_reason(ins: Instr, unplaced: bool = False) -> str:
    if unplaced:
        return ("not counted: a generic-address access whose address the run cannot place (data-dependent or "
                "partly in the shared window): it may be shared-memory traffic")
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


def innermost(k: Kernel, ins: Instr) -> tuple[str, int] | None:
    """The innermost ``(file, line)`` of an instruction's ``.loc`` (what ``nvdisasm -g`` prints for its SASS)."""
    f, line = ins.loc[0] if ins.loc else (None, 0)
    return (k.files[f], line) if f in k.files and line else None


def ptx_shared_ops_by_line(k: Kernel) -> Counter[tuple[tuple[str, int] | None, str, bool]]:
    """``ptx_shared_ops`` keyed by the innermost source line of each instruction as well."""
    out: Counter[tuple[tuple[str, int] | None, str, bool]] = Counter()
    for ins in k.instrs:
        if ins.opcode in ("ld", "st", "ldmatrix", "stmatrix") and _is_shared_access(ins):
            try:
                kind = access_kind_of(ins)
            except LayoutError:
                kind = ins.text
            out[(innermost(k, ins), kind, bool(ins.guard))] += 1
    return out


@dataclass(frozen=True)
class SassCheck:
    """How a cubin's SASS runs the PTX's shared accesses: ``message`` ``""`` when one for one everywhere, else what
    differs; ``lines``: the source lines (innermost ``.loc``) whose accesses differ -- the accesses of every other
    line are run one for one (the same kinds, the same predicated ones, at that line). ``everywhere``: no per-line
    comparison could be made (no ``nvdisasm``, or no line information), so no line is known to agree."""

    message: str = ""
    lines: frozenset[tuple[str, int] | None] = frozenset()
    everywhere: bool = False

    def agrees_at(self, src: tuple[str, int] | None) -> bool:
        return not self.message or (not self.everywhere and src not in self.lines)


def sass_check(k: Kernel, cubin: bytes) -> SassCheck:
    """Compare the cubin's SASS shared accesses with the PTX's, per source line (``layoutcheck.importers.sass``)."""
    sass = shared_ops_by_line(cubin, function=k.name)
    if sass is None:
        return SassCheck("no nvdisasm to check the PTX count against the SASS", everywhere=True)
    ptx = ptx_shared_ops_by_line(k)
    if sass == ptx:
        return SassCheck()
    whole = lambda c: Counter({(kind, p): n for (_, kind, p), n in c.items()})  # noqa: E731
    show = lambda c: ", ".join(f"{n} {'predicated ' if p else ''}{kind}" for (kind, p), n in sorted(c.items()))  # noqa: E731
    srcs = {s for s, _, _ in (*sass, *ptx)}
    bad = frozenset(s for s in srcs if Counter({key: n for key, n in sass.items() if key[0] == s}) !=
                    Counter({key: n for key, n in ptx.items() if key[0] == s}))
    no_lines = all(s is None for s, _, _ in sass) and any(s is not None for s, _, _ in ptx)
    at = ", ".join(f"{s[0].rsplit('/', 1)[-1]}:{s[1]}" if s else "no line" for s in sorted(bad, key=str))
    return SassCheck(f"ptxas rewrote the shared accesses (PTX: {show(whole(ptx))}; SASS: {show(whole(sass))}; "
                     f"differing at {at})", bad, everywhere=no_lines)


def sass_disagreement(k: Kernel, cubin: bytes) -> str:
    """``""`` when the cubin's SASS executes the PTX's shared accesses one for one (the same access kinds, the same
    predicated ones, at the same source lines: ``layoutcheck.importers.sass``), else what differs; a missing
    ``nvdisasm`` is a disagreement (the count cannot be checked)."""
    return sass_check(k, cubin).message


def traffic_of_kernel(k: Kernel, grid: tuple[int, ...] = (1,), scalars: Mapping[str, int] | None = None,
                      block: tuple[int, ...] | None = None, ctas: list[int] | None = None,
                      cubin: bytes | None = None) -> list[PtxTraffic]:
    """Every shared-memory instruction of ``k`` with its traffic over the CTAs run (default: all of ``grid``); with
    the kernel's ``cubin``, a ``"(sass)"`` entry when its SASS does not execute the PTX's accesses one for one (then
    the PTX counts are not what runs, and ``totals`` is ``None``)."""
    run = shared_accesses(k, grid, block, scalars, ctas)
    check = sass_check(k, cubin) if cubin is not None else SassCheck()
    by_pc: dict[int, list[np.ndarray]] = defaultdict(list)
    for a in run.accesses:
        by_pc[a.pc].append(a.addrs)
    out = []
    for pc, rows in sorted(by_pc.items()):
        ins = k.instrs[pc]
        base = dict(ptx_line=ins.line, source=k.source(ins), instruction=ins.text)
        if not check.agrees_at(innermost(k, ins)):
            out.append(PtxTraffic(**base, executions=len(rows), reason="not exact: the SASS runs other accesses at "
                                                                        "this line"))
            continue
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
        hyp = None
        if ins.opcode == "cp" and "bulk" not in ins.mods and pc not in run.copy_unknown:
            try:
                hyp = copy_hypothesis(k, run.copies, {pc})
            except LayoutError:
                hyp = None
        out.append(PtxTraffic(ins.line, k.source(ins), ins.text, op="ldgsts" if hyp else "", executions=n,
                              reason=_other_reason(ins, pc in run.unplaced), hypothesis=hyp[0] if hyp else None,
                              hypothesis_ideal=hyp[1] if hyp else None))
    if run.stopped:
        out.append(PtxTraffic(0, None, "(run)", reason=f"not modelled: the run stopped: {run.stopped}"))
    if check.message:
        out.append(PtxTraffic(0, None, "(sass)", reason=f"not exact: {check.message}"))
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


# -- claims: the .ptx road of ``layoutcheck check`` --------------------------------------------------------------
_OPTIONS = re.compile(r"^\s*//\s*layoutcheck:(.*)$", re.M)


def run_options(text: str, entry: str = "") -> tuple[tuple[int, ...], dict[str, int], tuple[int, ...] | None]:
    """The grid, scalar parameters and block a PTX file asks the run of ``entry`` to use, from comment lines
    ``// layoutcheck: [entry=NAME] [grid=2,1] [block=32,8] [scalars=K=128,M=64]`` (a line without ``entry=`` is
    for every entry; scalars by PTX parameter name or index). Defaults: one CTA, no scalars (a loop bounded by a
    parameter not given stops the run: UNKNOWN), the block of ``.reqntid`` (none declared and none given: UNKNOWN;
    ``.maxntid`` is only a bound)."""
    grid: tuple[int, ...] = (1,)
    block: tuple[int, ...] | None = None
    scalars: dict[str, int] = {}
    for m in _OPTIONS.finditer(text):
        items = dict(item.partition("=")[::2] for item in m.group(1).split())
        if items.get("entry", entry) != entry:
            continue
        if "grid" in items:
            grid = tuple(int(x) for x in items["grid"].split(",") if x)
        if "block" in items:
            block = tuple(int(x) for x in items["block"].split(",") if x)
        for kv in filter(None, items.get("scalars", "").split(",")):
            n, _, v = kv.partition("=")
            scalars[n] = int(v, 0)
    return grid, scalars, block


@dataclass(frozen=True, eq=False)
class PtxConflictFree(Property):
    """Every warp-instruction of one group of a kernel's shared accesses (one source line, one access kind) needs
    exactly its ideal wavefronts. The addresses are what the kernel's PTX computes for every active lane
    (``layoutcheck.importers.ptx_run``); ``addresses`` is ``[n, 32]`` (-1: inactive lane), ``warps`` and ``ptx_lines``
    say which warp ran each row and from which PTX line."""

    where: str
    kind: str
    addresses: np.ndarray
    warps: tuple[int, ...]
    ptx_lines: tuple[int, ...]
    name: ClassVar[str] = "conflict_free"

    def subjects(self) -> tuple[Any, ...]:
        return ()

    def subject(self) -> str:
        return f"{self.where} {self.kind} x {len(self.warps)} (PTX)"

    def domain_size(self) -> int:
        return int(self.addresses.size)

    def exhaustive(self) -> Decision:
        w, i = wavefronts_batch(self.kind, self.addresses), ideal_batch(self.kind, self.addresses)
        stats = {"instructions": len(self.warps), "wavefronts": int(w.sum()), "ideal": int(i.sum())}
        bad = np.flatnonzero(w > i)
        if bad.size == 0:
            return Decision(True, None, stats)
        return Decision(False, self._report(int(bad[0])), stats)

    def _report(self, n: int) -> PtxConflict:
        a = self.addresses[n]
        rep = max(breakdown(self.kind, a), key=lambda p: p.wavefronts)
        return PtxConflict(instruction=n, warp=self.warps[n], ptx_line=self.ptx_lines[n], bank=rep.bank,
                           words=list(rep.words), lanes=list(rep.bank_lanes),
                           wavefronts=int(wavefronts_batch(self.kind, a[None])[0]),
                           ideal=int(ideal_batch(self.kind, a[None])[0]))

    def recheck(self, w: dict[str, Any]) -> bool:
        rep = self._report(int(w["instruction"]))
        return rep["wavefronts"] > rep["ideal"] and len(rep["words"]) > 1

    def explain(self, w: dict[str, Any]) -> str:
        return (f"warp {w['warp']}, PTX line {w['ptx_line']}: lanes {w['lanes']} hit bank {w['bank']} with "
                f"{len(w['words'])} distinct 32-bit words {w['words']} -> {w['wavefronts']} wavefronts (ideal "
                f"{w['ideal']}, {self.kind})")


def _where(k: Kernel, ins: Instr) -> str:
    src = k.source(ins)
    return f"{src[0].rsplit('/', 1)[-1]}:{src[1]}" if src else f"ptx:{ins.line}"


def ptx_claims(text: str, cubin: bytes | None = None) -> list[Claim]:
    """The claims of every ``.entry`` of a PTX module: ``conflict_free`` per (source line, access kind) of its
    shared ld/st/ldmatrix/stmatrix over the run ``run_options`` asks for; UNKNOWN (``NotModelled``) for what is not
    counted (cp.async, TMA, wgmma / tcgen05 operands, atomics), for a run that could not finish, and for accesses
    ptxas rewrote (with the module's ``cubin``)."""
    names = entries(text)
    if not names:
        raise ParseError("ptx: the module has no .entry")
    out = []
    for name in names:
        out += _entry_claims(text, name, cubin, len(names) > 1)
    return sorted(out, key=lambda c: c.line)


def _entry_claims(text: str, name: str, cubin: bytes | None, several: bool) -> list[Claim]:
    k = parse_ptx(text, name)
    grid, scalars, block = run_options(text, name)
    tag = f"{name} " if several else ""
    line0 = k.instrs[0].line if k.instrs else 0
    if block is None and k.reqntid is None:
        return [Claim(line0, f"{tag}(PTX run)", NotModelled(name, "no block size: the kernel declares no .reqntid; "
                                                                   "give one with // layoutcheck: block=X,Y,Z",
                                                             PtxConflictFree.name))]
    run = shared_accesses(k, grid, block, scalars)
    if run.stopped:
        return [Claim(line0, f"{tag}(PTX run)", NotModelled(name, f"the PTX run stopped: {run.stopped}",
                                                              PtxConflictFree.name))]
    if not run.accesses and not run.other:  # nothing to prove is no proof
        return [Claim(line0, f"{tag}(PTX run)", NotModelled(name, "nothing checked: no shared-memory access ran",
                                                              PtxConflictFree.name))]
    check = sass_check(k, cubin) if cubin is not None else SassCheck()
    groups: dict[tuple[str, str], list[Any]] = defaultdict(list)
    firsts: dict[tuple[str, str], int] = {}
    for a in run.accesses:
        ins = k.instrs[a.pc]
        try:
            kind = access_kind_of(ins)
        except LayoutError as e:
            kind = f"{ins.text} (not modelled: {e})"
        if not check.agrees_at(innermost(k, ins)):
            kind = f"{kind.split(' ')[0]} (not modelled: {check.message})"
        key = (_where(k, ins), kind)
        groups[key].append(a)
        firsts.setdefault(key, ins.line)
    claims = []
    for (where, kind), acc in groups.items():
        line = firsts[(where, kind)]
        if "not modelled" in kind:
            why = kind.partition(" (not modelled: ")[2].removesuffix(")") or kind
            claims.append(Claim(line, f"{tag}{where} {kind.split(' ')[0]} (PTX)", NotModelled(where, why,
                                                                                              PtxConflictFree.name)))
            continue
        claims.append(Claim(line, f"{tag}{where} {kind} (PTX)", PtxConflictFree(
            f"{tag}{where}", kind, np.stack([a.addrs for a in acc]), tuple(a.warp for a in acc),
            tuple(k.instrs[a.pc].line for a in acc))))
    seen: dict[tuple[str, str], list[int]] = {}
    for pc in sorted(run.other):
        seen.setdefault((_where(k, k.instrs[pc]), k.instrs[pc].opcode), []).append(pc)
    for (where, _), pcs in seen.items():
        ins = k.instrs[pcs[0]]
        note = ""
        if ins.opcode == "cp" and "bulk" not in ins.mods:
            try:
                note = _copy_note(copy_hypothesis(k, run.copies, set(pcs)), any(p in run.copy_unknown for p in pcs))
            except LayoutError as e:
                note = f"; {e}"
        why = _other_reason(ins, any(p in run.unplaced for p in pcs)).removeprefix("not counted: ")
        claims.append(Claim(ins.line, f"{tag}{where} {ins.text} (PTX)",
                            NotModelled(where, f"{why}; its bank traffic is not modelled{note}",
                                        PtxConflictFree.name)))
    return claims


__all__ = [
    "COPY_METRIC",
    "PtxConflictFree",
    "PtxTraffic",
    "SassCheck",
    "access_kind_of",
    "copy_hypothesis",
    "copy_kind",
    "innermost",
    "ptx_claims",
    "ptx_shared_ops",
    "ptx_shared_ops_by_line",
    "ptx_traffic",
    "run_options",
    "sass_check",
    "sass_disagreement",
    "totals",
    "traffic_of_kernel",
]
