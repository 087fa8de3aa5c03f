"""The PTX interpreter's state: every thread's integer registers, each value with a ``known`` mask.

A ``Machine`` holds the threads of the CTAs a run covers (NumPy vectors over the threads), their special registers
(``%tid``, ``%ctaid``, ``%laneid`` ...), the kernel parameters the caller gave and what the run records; a ``State``
is one group of threads at one instruction with its registers. ``Machine.value`` reads an operand (a register, a
special register, a shared symbol, a literal), ``Machine.address`` an address operand, ``Machine.write`` a
destination under a guard. A value the interpreter does not follow is unknown (``known`` false), never guessed; an
operand it cannot read raises ``Stop`` with the reason the run stops.

The shared window starts at 0: ``global_smem`` (Triton's dynamic shared buffer) and every ``.shared`` symbol of the
module are given addresses from 0 in declaration order, aligned as declared (the bank of an address depends on it
modulo 128 only, and a buffer aligned to 128 bytes or more keeps it). Global pointers are given disjoint bases.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from layoutcheck.importers.ptx import Instr, Kernel
from layoutcheck.importers.ptx_cfg import Cfg
from layoutcheck.importers.ptx_tensormap import TensorMaps
from layoutcheck.importers.ptx_values import Access, UmmaExec, WgmmaExec

BITS = {"b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "b32": 32, "u32": 32, "s32": 32, "b64": 64,
         "u64": 64, "s64": 64, "pred": 1, "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "f16x2": 32, "bf16x2": 32,
         "tf32": 32, "e4m3x2": 16, "e5m2x2": 16}
FLOAT = {"f16", "bf16", "f32", "f64", "f16x2", "bf16x2", "tf32", "e4m3x2", "e5m2x2"}


SHARED_WINDOW = 1 << 48
"""Where the interpreter puts the shared window in the generic address space (``cvta.shared`` adds it,
``cvta.to.shared`` removes it); kernel parameters' global buffers lie below it (``(i + 1) << 40``)."""


def u64_(x: int) -> np.uint64:
    return np.uint64(x)


class Stop(Exception):
    pc: int | None = None  # the instruction it stopped at (set by the innermost ``_run``)


@dataclass
class State:
    pc: int
    threads: np.ndarray  # global thread ids of this group
    regs: dict[str, tuple[np.ndarray, np.ndarray]]
    ambiguous: np.ndarray | None = None  # lanes that run a branch's both sides (their side is not known)
    elected: set[str] = field(default_factory=set)
    """Predicates written by an ``elect.sync`` that every lane of each warp of the group executed with a full
    membermask: true for exactly one lane of each warp (PTX ISA, elect.sync), which lane not known."""


def bit_mask(bits: int) -> np.uint64:
    return np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(0xFFFF_FFFF_FFFF_FFFF)


def type_of(ins: Instr) -> str:
    for m in reversed(ins.mods):
        if m in BITS:
            return m
    return "b32"


def as_signed(v: np.ndarray, bits: int) -> np.ndarray:
    v = v & bit_mask(bits)
    if bits >= 64:
        return v.view(np.int64)
    sign = np.uint64(1 << (bits - 1))
    return ((v ^ sign).astype(np.int64) - np.int64(1 << (bits - 1)))


class Machine:
    def __init__(self, k: Kernel, block: tuple[int, int, int], grid: tuple[int, int, int], ctas: list[int],
                 scalars: Mapping[str, int], max_steps: int):
        self.k, self.block, self.grid = k, block, grid
        self.nthreads = block[0] * block[1] * block[2]
        self.warps_per_cta = -(-self.nthreads // 32)
        self.max_steps = max_steps
        self.steps = 0
        cta = np.repeat(np.asarray(ctas, dtype=np.int64), self.nthreads)
        tid = np.tile(np.arange(self.nthreads, dtype=np.int64), len(ctas))
        self.n = cta.size
        self.special = {
            "%tid.x": tid % block[0], "%tid.y": (tid // block[0]) % block[1], "%tid.z": tid // (block[0] * block[1]),
            "%ntid.x": np.full(self.n, block[0]), "%ntid.y": np.full(self.n, block[1]),
            "%ntid.z": np.full(self.n, block[2]),
            "%ctaid.x": cta % grid[0], "%ctaid.y": (cta // grid[0]) % grid[1], "%ctaid.z": cta // (grid[0] * grid[1]),
            "%nctaid.x": np.full(self.n, grid[0]), "%nctaid.y": np.full(self.n, grid[1]),
            "%nctaid.z": np.full(self.n, grid[2]), "%laneid": tid % 32,
            "%cluster_ctarank": np.zeros(self.n), "%cluster_nctarank": np.ones(self.n),
        }
        self.warp_of = (cta * self.warps_per_cta + tid // 32)
        self.lane_of = tid % 32
        self.params = {name: int(scalars[name]) for name in k.params if name in scalars}
        self.pointer_base = {name: (i + 1) << 40 for i, name in enumerate(k.params)}
        self.scalars = scalars
        self.accesses: list[Access] = []
        self.other: dict[int, int] = {}
        self.unplaced: set[int] = set()
        self.wgmmas: list[WgmmaExec] | None = None  # recorded only by ``wgmma_executions``
        self.cfg = Cfg(k.instrs, k.labels)
        self.copies: list[Access] = []
        self.copy_unknown: set[int] = set()
        self.guessed: np.ndarray | None = None  # lanes of the current instruction whose guard is not known
        self.elected_guard = False  # the current instruction's guard is an elect.sync predicate (``State.elected``)
        self.ummas: list[UmmaExec] | None = None  # recorded only by ``umma_executions``
        self.tmaps: TensorMaps | None = None  # followed only by ``tma_loads``

    # -- operand values ------------------------------------------------------------------------------------------
    def value(self, st: State, op: str, bits: int) -> tuple[np.ndarray, np.ndarray]:
        n = st.threads.size
        op = op.strip()
        neg = False
        if op.startswith("!"):
            neg, op = True, op[1:]
        if op in st.regs:
            v, kn = st.regs[op]
            return ((v == 0).astype(np.uint64) if neg else v), kn
        if op in self.special:
            return self.special[op][st.threads].astype(np.uint64), np.ones(n, dtype=bool)
        if op in self.k.shared:
            return np.full(n, self.k.shared[op], dtype=np.uint64), np.ones(n, dtype=bool)
        lit = literal(op)
        if lit is not None:
            return np.full(n, lit & ((1 << 64) - 1), dtype=np.uint64), np.ones(n, dtype=bool)
        if op.startswith("%"):  # read before written (or a special register not modelled): unknown
            return np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=bool)
        raise Stop(f"operand {op!r} not modelled")

    def address(self, st: State, op: str) -> tuple[np.ndarray, np.ndarray]:
        inner = op.strip()[1:-1].strip()
        base, off = inner, 0
        m = re.match(r"^(.*?)\s*\+\s*(-?\w+)$", inner)
        if m:
            base, off = m.group(1), int(m.group(2), 0)
        if base in self.k.params:
            return np.full(st.threads.size, 0, dtype=np.uint64), np.ones(st.threads.size, dtype=bool)
        v, kn = self.value(st, base, 64)
        return (v + np.uint64(off & ((1 << 64) - 1))), kn

    def write(self, st: State, dst: str, v: np.ndarray, kn: np.ndarray, bits: int, where: np.ndarray) -> None:
        v = v.astype(np.uint64) & bit_mask(bits)
        if dst.startswith("{"):
            raise Stop("vector destination")
        if dst == "_":
            return
        st.elected.discard(dst)
        if where.all() or dst not in st.regs:
            if not where.all():
                kn = kn & where
            st.regs[dst] = (v, kn.copy())
            return
        ov, ok = st.regs[dst]
        st.regs[dst] = (np.where(where, v, ov), np.where(where, kn, ok))


def literal(op: str) -> int | None:
    s = op
    try:
        if re.fullmatch(r"-?0[xX][0-9a-fA-F]+U?|-?\d+U?", s):
            return int(s.rstrip("U"), 0)
    except ValueError:
        return None
    if re.fullmatch(r"0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}", s):
        return int(s[2:], 16)
    return None


def uniform_value(m: Machine, st: State, op: str, sel: np.ndarray) -> tuple[int | None, str]:
    v, kn = m.value(st, op, 64)
    if not kn[sel].all():
        return None, f"descriptor {op} is not known (it depends on data or an unknown parameter)"
    vals = np.unique(v[sel])
    if vals.size != 1:
        return None, f"descriptor {op} differs across the threads of a warpgroup"
    return int(vals[0]), ""
