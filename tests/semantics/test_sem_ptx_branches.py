"""Semantics of divergent branches in the PTX road (``importers.ptx``), from the execution model of the CUDA
Programming Guide (SIMT: a warp executes one common instruction at a time; when its threads diverge on a
data-dependent branch it executes each path taken with the threads not on that path disabled, and the threads
converge again when the paths meet) and the PTX ISA (``elect.sync``: one leader lane of ``membermask``, which one is
not specified; ``bra`` with a guard).

The naive side runs every thread alone, from the program as a Python structure (not its PTX), and records each store
it executes with its position: the store's place in the program and how many times this thread has reached it. A
warp-instruction is the set of lanes of one warp at the same (place, count): that is what a warp that reconverges
where paths meet executes. The judged side is ``shared_accesses`` on the rendered PTX. Where the program has an
``elect.sync`` region, the naive side runs once with the lowest lane as leader and once with the highest: a run the
interpreter finishes must equal both (it may claim only what holds for every leader); without one, the interpreter
must finish."""

from __future__ import annotations

from collections import Counter
from itertools import count

from hypothesis import given, settings

from layoutcheck.importers.ptx import parse_ptx
from layoutcheck.importers.ptx_run import shared_accesses
from tests.strategies_sem_ptx_branches import N_REGS, program

M32 = 0xFFFFFFFF
INIT = [None, 3, 5, 7, 11]  # %r0 is %tid.x


def _alu(op: str, a: int, b: int) -> int:
    return {"add": a + b, "xor": a ^ b, "and": a & b, "shl": a << b if b < 32 else 0, "mul": a * b}[op] & M32


def _holds(cond: tuple, tid: int) -> bool:
    cmp, mask, c = cond
    x = tid & mask
    return {"lt": x < c, "ge": x >= c, "eq": x == c, "ne": x != c}[cmp]


def naive(prog: list, tid: int, leader: int) -> list[tuple[int, int, int]]:
    """The stores thread ``tid`` executes: (store's place, its count for this thread, byte address)."""
    regs = [tid, *INIT[1:]]
    seen: Counter[int] = Counter()
    out: list[tuple[int, int, int]] = []
    ids = _places(prog)

    def place(s: tuple) -> int:
        return ids[id(s)]

    def run(block: list) -> None:
        for s in block:
            if s[0] == "alu":
                _, op, d, a, b, breg = s
                regs[d] = _alu(op, regs[a], regs[b] if breg and b < N_REGS else b)
            elif s[0] == "store":
                p = place(s)
                seen[p] += 1
                out.append((p, seen[p], (regs[s[1]] & 1023) * 4))
            elif s[0] == "elect":
                if tid % 32 == leader:
                    run(s[1])
            else:
                run(s[2] if _holds(s[1], tid) else (s[3] or []))

    run(prog)
    return out


def _places(block: list, ids: dict[int, int] | None = None) -> dict[int, int]:
    """Every store statement's place: its index in program order (the same for every thread)."""
    ids = {} if ids is None else ids
    for s in block:
        if s[0] == "store":
            ids[id(s)] = len(ids)
        elif s[0] == "elect":
            _places(s[1], ids)
        elif s[0] == "if":
            _places(s[2], ids)
            _places(s[3] or [], ids)
    return ids


def naive_warp_instructions(prog: list, leader: int) -> Counter:
    groups: dict[tuple[int, int, int], dict[int, int]] = {}
    for tid in range(64):
        for p, n, addr in naive(prog, tid, leader):
            groups.setdefault((tid // 32, p, n), {})[tid % 32] = addr
    return Counter((w, tuple(lanes.get(i, -1) for i in range(32))) for (w, _, _), lanes in groups.items())


def render(prog: list) -> str:
    lines = ["mov.u32 %r0, %tid.x;", *(f"mov.u32 %r{i}, {v};" for i, v in enumerate(INIT) if v is not None),
             "mov.u32 %r90, global_smem;"]
    labels = count()

    def emit(block: list) -> None:
        for s in block:
            if s[0] == "alu":
                _, op, d, a, b, breg = s
                src = f"%r{b}" if breg and b < N_REGS else str(b)
                opc = {"add": "add.s32", "xor": "xor.b32", "and": "and.b32", "shl": "shl.b32", "mul": "mul.lo.u32"}
                lines.append(f"{opc[op]} %r{d}, %r{a}, {src};")
            elif s[0] == "store":
                lines.extend([f"and.b32 %r91, %r{s[1]}, 1023;", "shl.b32 %r91, %r91, 2;", "add.s32 %r92, %r90, %r91;",
                          "st.shared.b32 [%r92], %r0;"])
            elif s[0] == "elect":
                end = f"$E{next(labels)}"
                lines.extend(["elect.sync %r95|%p9, -1;", f"@!%p9 bra {end};"])
                emit(s[1])
                lines.append(f"{end}:")
            else:
                (cmp, mask, c), then, other = s[1], s[2], s[3]
                n = next(labels)
                setp = {"lt": "lt.u32", "ge": "ge.u32", "eq": "eq.u32", "ne": "ne.u32"}[cmp]
                lines.extend([f"and.b32 %r93, %r0, {mask};", f"setp.{setp} %p1, %r93, {c};", f"@!%p1 bra $F{n};"])
                emit(then)
                if other is not None:
                    lines.append(f"bra $J{n};")
                lines.append(f"$F{n}:")
                if other is not None:
                    emit(other)
                    lines.append(f"$J{n}:")

    emit(prog)
    lines.append("ret;")
    text = "\n    ".join(lines)
    return (".version 8.0\n.target sm_90a\n.address_size 64\n.extern .shared .align 16 .b8 global_smem[];\n"
            f".visible .entry k()\n.reqntid 64\n{{\n    {text}\n}}\n")


def _has_elect(block: list) -> bool:
    return any(s[0] == "elect" or (s[0] == "if" and (_has_elect(s[2]) or _has_elect(s[3] or []))) for s in block)


def judged(prog: list) -> tuple[str, Counter]:
    run = shared_accesses(parse_ptx(render(prog)), (1,))
    return run.stopped, Counter((a.warp, tuple(a.addrs.tolist())) for a in run.accesses)


@settings(max_examples=150)
@given(program(allow_elect=False))
def test_known_divergence_gives_the_warp_instructions_of_reconverging_warps(prog) -> None:
    stopped, got = judged(prog)
    assert not stopped, stopped
    assert got == naive_warp_instructions(prog, 0)


@settings(max_examples=150)
@given(program())
def test_with_an_elected_lane_a_finished_run_holds_for_every_leader(prog) -> None:
    stopped, got = judged(prog)
    if stopped:
        assert _has_elect(prog) and "not know" in stopped, stopped
        return
    assert got == naive_warp_instructions(prog, 0) == naive_warp_instructions(prog, 31)


def test_a_broken_merge_is_caught_a_register_one_side_wrote_kept_as_known() -> None:
    """The mutant the oracle exists for: an elected lane writes %r1, and the store after the region uses it."""
    prog = [("elect", [("alu", "add", 1, 1, 1, False)]), ("store", 1)]
    stopped, _ = judged(prog)
    assert "not know" in stopped  # the leader's %r1 differs from the others': unknown, never guessed
    assert naive_warp_instructions(prog, 0) != naive_warp_instructions(prog, 31)
