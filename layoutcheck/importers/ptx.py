"""A PTX kernel -> the shared-memory accesses its threads make, by running its integer arithmetic.

What a compiler finally asks of shared memory is in the PTX it emits: the vector width of every ``ld.shared`` /
``st.shared``, where it chose ``ldmatrix`` / ``stmatrix``, the swizzle it XORs into the addresses. ``parse_ptx`` reads
one ``.entry`` (instructions, labels, guards, ``.loc`` source lines, scoped ``.reg`` declarations of inline asm);
``shared_accesses`` runs it for every thread of every CTA of a grid at once (NumPy vectors over the threads) and
returns each shared-memory access a warp executes, with the byte address of every active lane.

The interpreter tracks *integer* values only, each with a ``known`` mask (PTX ISA, chapter 9: ``mov``, ``add``,
``sub``, ``mul``, ``mad``, ``div``, ``rem``, ``min``, ``max``, ``abs``, ``neg``, ``and``, ``or``, ``xor``, ``not``,
``cnot``, ``lop3``, ``shl``, ``shr``, ``bfe``, ``bfi``, ``prmt``, ``popc``, ``clz``, ``brev``, ``selp``, ``setp``,
``cvt``, ``cvta``, predicate logic). A value it does not follow is unknown: data loaded from global or shared memory,
floating-point results, shuffles, kernel parameters the caller did not give. An unknown value that reaches a shared
address, a guard of a shared access or a branch makes the run stop with ``Run.stopped`` saying where and why:
accesses are never guessed. ``mbarrier.try_wait`` / ``test_wait`` are taken as satisfied (a wait loop exits when the
phase completes; what follows is the same stream). A branch that splits a warp is not modelled (``stopped``); one that
sends whole warps different ways runs each side separately (a warp's address stream does not depend on another
warp's registers, only on data, which is unknown anyway). Barriers are no-ops.

The shared window starts at 0: ``global_smem`` (Triton's dynamic shared buffer) and every ``.shared`` symbol of the
module are given addresses from 0 in declaration order, aligned as declared (the bank of an address depends on it
modulo 128 only, and a buffer aligned to 128 bytes or more keeps it). Global pointers are given disjoint bases.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from layoutcheck.errors import ParseError
from layoutcheck.importers.ptx_cfg import Cfg
from layoutcheck.importers.ptx_tensormap import TensorMaps, TmaLoad, uniform


@dataclass(frozen=True, slots=True)
class Instr:
    """One PTX instruction: ``opcode`` with its dot modifiers split off (``ld``, ``("shared", "v4", "b32")``),
    operands as written, the guard (``"%p1"`` / ``"!%p1"`` or ``""``), the PTX line and the source ``.loc``."""

    opcode: str
    mods: tuple[str, ...]
    operands: tuple[str, ...]
    guard: str
    line: int
    loc: tuple[tuple[int, int], ...]  # the (.file index, line) frames of its ``.loc``, innermost first

    @property
    def text(self) -> str:
        return ".".join((self.opcode, *self.mods))


@dataclass(frozen=True)
class Kernel:
    """An ``.entry``: its name, parameter names in order, instructions, label -> instruction index, ``.reqntid``
    (``None`` when not declared), the shared symbols' byte addresses, and ``.file`` index -> path."""

    name: str
    params: tuple[str, ...]
    instrs: tuple[Instr, ...]
    labels: Mapping[str, int]
    reqntid: tuple[int, ...] | None
    shared: Mapping[str, int]
    files: Mapping[int, str] = field(default_factory=dict)

    def source(self, ins: Instr) -> tuple[str, int] | None:
        """The (file, line) a row about ``ins`` names: the innermost frame of its ``.loc`` in the file of its
        outermost frame (the kernel's own file): a library function inlined into the kernel -- Triton's ``tl.sum``,
        a CuTe ``copy`` -- points at the kernel's line that called it, a helper in the kernel's file at its own."""
        frames = [(self.files[f], line) for f, line in ins.loc if f in self.files and line]
        if not frames:
            return None
        home = frames[-1][0]
        return next(fr for fr in frames if fr[0] == home)


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)  # a block comment keeps its newlines (see ``_blank``)
_ENTRY = re.compile(r"\.entry\s+([\w$]+)\s*\((.*?)\)", re.S)
_SHARED_DECL = re.compile(r"\.shared\s+(?:\.align\s+(\d+)\s+)?\.\w+\s+([\w$]+)\s*(?:\[(\d*)\])?")
_FILE = re.compile(r"^\s*\.file\s+(\d+)\s+\"([^\"]+)\"", re.M)
_REG_DECL = re.compile(r"^\.reg\s+(?:\.v\d\s+)?\.\w+\s+(.*)$")


def _split_operands(s: str) -> tuple[str, ...]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return tuple(out)


def _declared(names: str) -> list[str]:
    out = []
    for part in names.split(","):
        part = part.strip()
        m = re.fullmatch(r"(%[\w$]+)<(\d+)>", part)
        out.extend([f"{m.group(1)}{i}" for i in range(int(m.group(2)))] if m else [part] if part else [])
    return out


def _shared_symbols(text: str) -> dict[str, int]:
    out, at = {}, 0
    for m in _SHARED_DECL.finditer(text):
        align = int(m.group(1) or 1)
        at = -(-at // align) * align
        out[m.group(2)] = at
        at += int(m.group(3) or 0)
    return out


def _body_of(text: str) -> str:
    """``text`` from its first ``{`` to the matching ``}``."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "{") - (ch == "}")
        if depth == 0 and i > 0:
            return text[: i + 1]
    return text


def _blank(m: re.Match[str]) -> str:
    return "\n" * m.group(0).count("\n")


def entries(text: str) -> list[str]:
    """The names of the ``.entry`` functions of a PTX module, in order."""
    return [m.group(1) for m in _ENTRY.finditer(_COMMENT.sub(_blank, text))]


def parse_ptx(text: str, entry: str | None = None) -> Kernel:
    """The ``.entry`` named ``entry`` (the first one when ``None``) of a PTX module. Its shared symbols are the
    module's (declared before the first entry) and its own (declared in its body), from address 0."""
    files = {int(i): p for i, p in _FILE.findall(text)}
    body_text = _COMMENT.sub(_blank, text)
    entries = list(_ENTRY.finditer(body_text))
    m = next((e for e in entries if entry is None or e.group(1) == entry), None)
    if m is None:
        raise ParseError(f"ptx: no .entry {entry!r} (entries: {', '.join(e.group(1) for e in entries) or 'none'})")
    params = tuple(p.split()[-1] for p in m.group(2).split(",") if p.strip())
    rest = body_text[m.end():]
    req = re.match(r"[^{]*?\.reqntid\s+([\d,\s]+)", rest)
    reqntid = tuple(int(x) for x in req.group(1).replace(" ", "").split(",") if x) if req else None
    start = rest.index("{")
    first_line = body_text[: m.end() + start].count("\n")  # PTX line numbers of the module as given
    module_level = body_text[: entries[0].start()] if entries else ""
    shared = _shared_symbols(module_level + "\n" + _body_of(rest[start:]))
    return _parse_body(m.group(1), params, rest[start:], reqntid, shared, files, first_line)


def _statements(body: str) -> Iterator[tuple[str, int]]:
    """``(statement, line)`` pairs and the scope marks ``("{", line)`` / ``("}", line)``: a brace opens or closes a
    scope only where a statement could start (``{ %r1, %r2 }`` inside an instruction is a vector operand)."""
    cur, line, depth_in_stmt = "", 1, 0
    for ch in body:
        if ch == "\n":
            line += 1
        if not cur.strip() and ch in "{}":
            yield ch, line
            cur = ""
            continue
        if ch == "{":
            depth_in_stmt += 1
        elif ch == "}":
            depth_in_stmt -= 1
        if ch == ";" and depth_in_stmt == 0:
            yield cur.strip(), line
            cur = ""
            continue
        cur += ch
        directive_end = ch == "\n" and cur.strip().startswith(".loc")  # a directive ends at its line
        if directive_end or (ch == ":" and re.fullmatch(r"\s*[\w$]+:", cur)):  # or a label
            yield cur.strip(), line
            cur = ""


def _parse_body(name: str, params: tuple[str, ...], body: str, reqntid: tuple[int, ...] | None,
                shared: Mapping[str, int], files: Mapping[int, str], first_line: int = 0) -> Kernel:
    instrs: list[Instr] = []
    labels: dict[str, int] = {}
    scopes: list[dict[str, str]] = []
    loc: tuple[tuple[int, int], ...] = ()
    outer: dict[tuple[int, int, int], tuple[tuple[int, int], ...]] = {}
    scope_ids = 0
    opened = 0
    path: list[int] = []  # the ids of the open scopes, outermost first
    paths: list[tuple[int, ...]] = []  # per instruction
    defs: dict[str, list[tuple[tuple[int, ...], int]]] = {}  # label -> (scope path, instruction index)
    for stmt, line_no in _statements(body):
        if stmt == "{":
            scopes.append({})
            opened += 1
            path.append(opened)
            continue
        if stmt == "}":
            if scopes:
                scopes.pop()
                path.pop()
            if not scopes:
                break
            continue
        if not stmt:
            continue
        if stmt.endswith(":") and re.fullmatch(r"[\w$]+:", stmt):
            labels[stmt[:-1]] = len(instrs)
            defs.setdefault(stmt[:-1], []).append((tuple(path), len(instrs)))
            continue
        if stmt.startswith(".loc"):
            loc = _frames(stmt, outer)
            continue
        if stmt.startswith(".reg"):
            dm = _REG_DECL.match(" ".join(stmt.split()))
            if dm and len(scopes) > 1:
                scope_ids += 1
                for n in _declared(dm.group(1)):
                    scopes[-1][n] = f"{n}@{scope_ids}"
            continue
        if stmt.startswith("."):
            continue
        guard = ""
        gm = re.match(r"^@(!?%?[\w$@]+)\s+", stmt)  # a scoped register may have no ``%`` (``@!complete``)
        if gm:
            guard, stmt = gm.group(1), stmt[gm.end():]
        op, _, ops = stmt.partition(" ") if " " in stmt else stmt.partition("\t")
        op = op.strip()
        parts = op.split(".")
        operands = tuple(_rename(" ".join(o.split()), scopes) for o in _split_operands(ops.strip()))
        guard = _rename(guard, scopes)
        instrs.append(Instr(parts[0], tuple(parts[1:]), operands, guard, first_line + line_no, loc))
        paths.append(tuple(path))
    _scope_labels(instrs, paths, defs, labels)
    return Kernel(name, params, tuple(instrs), labels, reqntid, shared, files)


def _scope_labels(instrs: list[Instr], paths: list[tuple[int, ...]],
                  defs: Mapping[str, list[tuple[tuple[int, ...], int]]], labels: dict[str, int]) -> None:
    """A label defined more than once (each inline-asm block of a kernel may declare its own ``waitLoop:``) is
    local to its scope: a branch goes to the definition in the innermost scope that encloses it."""
    for i, ins in enumerate(instrs):
        if ins.opcode != "bra" or not ins.operands or len(defs.get(ins.operands[-1], ())) < 2:
            continue
        name = ins.operands[-1]
        here = paths[i]
        mine = [(p, at) for p, at in defs[name] if here[: len(p)] == p]
        if not mine:
            continue
        _, at = max(mine, key=lambda d: len(d[0]))
        local = f"{name}@{at}"
        labels[local] = at
        instrs[i] = Instr(ins.opcode, ins.mods, (*ins.operands[:-1], local), ins.guard, ins.line, ins.loc)


_LOC = re.compile(r"\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:.*?inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")


def _frames(stmt: str, outer: dict[tuple[int, int, int], tuple[tuple[int, int], ...]]) -> tuple[tuple[int, int], ...]:
    """The (file, line) frames of a ``.loc``, innermost first: its own, then those of its ``inlined_at`` site as
    resolved from the ``.loc``s seen before."""
    m = _LOC.match(stmt)
    if not m:
        return ()
    here = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if m.group(4) is None:
        return outer.setdefault(here, (here[:2],))
    site = (int(m.group(4)), int(m.group(5)), int(m.group(6)))
    chain = (here[:2], *outer.get(site, (site[:2],)))
    outer[here] = chain
    return chain


def _rename(s: str, scopes: list[dict[str, str]]) -> str:
    if not s or not scopes:
        return s

    def sub(m: re.Match[str]) -> str:
        n = m.group(0)
        for sc in reversed(scopes):
            if n in sc:
                return sc[n]
        return n

    return re.sub(r"%?[A-Za-z_$][\w$]*", sub, s)


# -- running ---------------------------------------------------------------------------------------------------------
_BITS = {"b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "b32": 32, "u32": 32, "s32": 32, "b64": 64,
         "u64": 64, "s64": 64, "pred": 1, "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "f16x2": 32, "bf16x2": 32,
         "tf32": 32, "e4m3x2": 16, "e5m2x2": 16}
_FLOAT = {"f16", "bf16", "f32", "f64", "f16x2", "bf16x2", "tf32", "e4m3x2", "e5m2x2"}
_NO_EFFECT = {"bar", "barrier", "fence", "membar", "prefetch", "prefetchu", "griddepcontrol", "nanosleep", "trap",
              "pmevent", "setmaxnreg", "discard", "applypriority", "createpolicy"}
# shared-memory operations that are not ld/st bank traffic of the LSU pipe: recorded, not counted
_SHARED_OTHER = {"mbarrier", "wgmma", "tcgen05", "cp", "atom", "red", "ldmatrix", "stmatrix", "st", "ld"}


SHARED_WINDOW = 1 << 48
"""Where the interpreter puts the shared window in the generic address space (``cvta.shared`` adds it,
``cvta.to.shared`` removes it); kernel parameters' global buffers lie below it (``(i + 1) << 40``)."""


def u64_(x: int) -> np.uint64:
    return np.uint64(x)


@dataclass(frozen=True, slots=True)
class Access:
    """One shared-memory instruction executed by one warp: the instruction's index in ``Kernel.instrs``, the warp
    (CTA-linear: ``cta * warps_per_cta + warp``), and the byte address of each of its 32 lanes (``-1``: inactive)."""

    pc: int
    warp: int
    addrs: np.ndarray


@dataclass(frozen=True)
class Run:
    """What running a kernel gave: every shared access by warp, in program order per warp; the instructions that
    touch shared memory but are not ld/st/ldmatrix/stmatrix (``other``: pc -> executions); ``stopped`` the reason
    the run could not finish (``""``: it ran to the end of every thread)."""

    accesses: tuple[Access, ...]
    other: Mapping[int, int]
    stopped: str = ""
    steps: int = 0
    unplaced: frozenset[int] = frozenset()
    """pcs of generic ld/st whose address the run could not place (in ``other`` too)."""
    copies: tuple[Access, ...] = ()
    """Every ``cp.async`` (non-bulk: LDGSTS) a warp executes, with the shared byte address each active lane writes
    (its ``[dst]``); in ``other`` too. Those whose destination or lanes the run does not know: ``copy_unknown``."""
    copy_unknown: frozenset[int] = frozenset()


class _Stop(Exception):
    pc: int | None = None  # the instruction it stopped at (set by the innermost ``_run``)


@dataclass
class _State:
    pc: int
    threads: np.ndarray  # global thread ids of this group
    regs: dict[str, tuple[np.ndarray, np.ndarray]]
    ambiguous: np.ndarray | None = None  # lanes that run a branch's both sides (their side is not known)
    elected: set[str] = field(default_factory=set)
    """Predicates written by an ``elect.sync`` that every lane of each warp of the group executed with a full
    membermask: true for exactly one lane of each warp (PTX ISA, elect.sync), which lane not known."""


def _mask(bits: int) -> np.uint64:
    return np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(0xFFFF_FFFF_FFFF_FFFF)


def _type_of(ins: Instr) -> str:
    for m in reversed(ins.mods):
        if m in _BITS:
            return m
    return "b32"


def _signed(v: np.ndarray, bits: int) -> np.ndarray:
    v = v & _mask(bits)
    if bits >= 64:
        return v.view(np.int64)
    sign = np.uint64(1 << (bits - 1))
    return ((v ^ sign).astype(np.int64) - np.int64(1 << (bits - 1)))


class _Machine:
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
        self.elected_guard = False  # the current instruction's guard is an elect.sync predicate (``_State.elected``)
        self.ummas: list[UmmaExec] | None = None  # recorded only by ``umma_executions``
        self.tmaps: TensorMaps | None = None  # followed only by ``tma_loads``

    # -- operand values ------------------------------------------------------------------------------------------
    def value(self, st: _State, op: str, bits: int) -> tuple[np.ndarray, np.ndarray]:
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
        lit = _literal(op)
        if lit is not None:
            return np.full(n, lit & ((1 << 64) - 1), dtype=np.uint64), np.ones(n, dtype=bool)
        if op.startswith("%"):  # read before written (or a special register not modelled): unknown
            return np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=bool)
        raise _Stop(f"operand {op!r} not modelled")

    def address(self, st: _State, op: str) -> tuple[np.ndarray, np.ndarray]:
        inner = op.strip()[1:-1].strip()
        base, off = inner, 0
        m = re.match(r"^(.*?)\s*\+\s*(-?\w+)$", inner)
        if m:
            base, off = m.group(1), int(m.group(2), 0)
        if base in self.k.params:
            return np.full(st.threads.size, 0, dtype=np.uint64), np.ones(st.threads.size, dtype=bool)
        v, kn = self.value(st, base, 64)
        return (v + np.uint64(off & ((1 << 64) - 1))), kn

    def write(self, st: _State, dst: str, v: np.ndarray, kn: np.ndarray, bits: int, where: np.ndarray) -> None:
        v = v.astype(np.uint64) & _mask(bits)
        if dst.startswith("{"):
            raise _Stop("vector destination")
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


def _literal(op: str) -> int | None:
    s = op
    try:
        if re.fullmatch(r"-?0[xX][0-9a-fA-F]+U?|-?\d+U?", s):
            return int(s.rstrip("U"), 0)
    except ValueError:
        return None
    if re.fullmatch(r"0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}", s):
        return int(s[2:], 16)
    return None


def shared_accesses(k: Kernel, grid: tuple[int, ...] = (1,), block: tuple[int, ...] | None = None,
                    scalars: Mapping[str, int] | None = None, ctas: list[int] | None = None,
                    max_steps: int = 200_000) -> Run:
    """Run ``k`` for the CTAs ``ctas`` (linear ids; default all of ``grid``) of ``block`` threads (default
    ``.reqntid``) with scalar parameters ``scalars`` (by PTX parameter name ``K_param_3`` or index ``"3"``) and
    return every shared-memory access each warp makes. ``max_steps`` bounds the instructions run per group."""
    block3 = (*(block or k.reqntid or ()), 1, 1, 1)
    if not (block or k.reqntid):
        raise ParseError(f"ptx: {k.name} declares no .reqntid: give the block size")
    grid3 = (*grid, 1, 1, 1)
    named = {}
    for key, val in (scalars or {}).items():
        named[k.params[int(key)] if str(key).isdigit() else key] = int(val)
    ncta = grid3[0] * grid3[1] * grid3[2]
    m = _Machine(k, block3[:3], grid3[:3], list(range(ncta)) if ctas is None else ctas, named, max_steps)
    stopped = _execute(m)
    return Run(tuple(m.accesses), dict(m.other), stopped, m.steps, frozenset(m.unplaced), tuple(m.copies),
               frozenset(m.copy_unknown))


def _execute(m: _Machine) -> str:
    """Run every thread of ``m`` to the end; the reason it stopped (``""``: it ran to the end)."""
    k = m.k
    work = [_State(0, np.arange(m.n), {})]
    stopped = ""
    while work:
        st = work.pop()
        try:
            work.extend(_run(m, st))
        except _Stop as e:
            pc = st.pc if e.pc is None else e.pc
            ins = k.instrs[min(pc, len(k.instrs) - 1)] if k.instrs else None
            where = f" (PTX line {ins.line}: {ins.text} {', '.join(ins.operands)})" if ins else ""
            stopped = f"{e}{where}"
            break
    return stopped


def _run(m: _Machine, st: _State, stop: int | None = None, depth: int = 0) -> list[_State]:
    """Run one group until it ends, splits (returns the groups to continue) or reaches instruction ``stop`` (returns
    ``[st]`` there)."""
    box = [st]
    try:
        return _run_group(m, box, stop, depth)
    except _Stop as e:
        if e.pc is None:
            e.pc = box[0].pc
        raise


def _run_group(m: _Machine, box: list[_State], stop: int | None, depth: int) -> list[_State]:
    instrs = m.k.instrs
    st = box[0]
    while st.pc < len(instrs):
        if st.pc == stop:
            return [st]
        m.steps += 1
        if m.steps > m.max_steps:
            raise _Stop(f"more than {m.max_steps} instructions run")
        ins = instrs[st.pc]
        where = np.ones(st.threads.size, dtype=bool)
        gk = where
        if ins.guard:
            gv, gk = m.value(st, ins.guard, 1)
            where = (gv & np.uint64(1)).astype(bool) & gk
            if not gk.all() and (ins.opcode in ("ret", "exit", "wgmma") or _is_modelled_access(ins)):
                raise _Stop("a guard the interpreter does not know")
        if ins.opcode == "bra":
            target = m.k.labels.get(ins.operands[-1])
            if target is None:
                raise _Stop(f"branch to an unknown label {ins.operands[-1]!r}")
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


def _splits_a_warp(m: _Machine, st: _State, taken: np.ndarray) -> bool:
    warps = m.warp_of[st.threads]
    every = np.bincount(warps, minlength=int(warps.max()) + 1)
    some = np.bincount(warps[taken], minlength=every.size)
    return bool(((some > 0) & (some < every)).any())


def _diverge(m: _Machine, st: _State, taken: np.ndarray, known: np.ndarray, target: int, depth: int) -> _State:
    """A branch that splits a warp, or whose guard is not known for some lanes: each lane runs its own side (a lane
    whose side is not known runs both) up to the branch's reconvergence point (``importers.ptx_cfg``), where the
    sides merge into one group again. A register is known after the merge for a lane only where every side the lane
    ran agrees on it. A shared-memory access before the reconvergence point by a lane whose side is not known stops
    the run (its warp's active lanes are not known); one by lanes whose side is known is the access of those lanes."""
    join = m.cfg.reconvergence(st.pc)
    if join is None:
        raise _Stop("a branch that splits a warp and does not reconverge before the kernel's end is not modelled")
    if depth >= _MAX_NESTING:
        raise _Stop(f"divergent branches nested deeper than {_MAX_NESTING}")
    both = ~known
    arrived: list[_State] = []
    for sel, pc in ((taken | both, target), ((~taken & known) | both, st.pc + 1)):
        if not sel.any():
            continue
        amb = both[sel] if st.ambiguous is None else (both | st.ambiguous)[sel]
        side = _State(pc, st.threads[sel], {r: (v[sel], kn[sel]) for r, (v, kn) in st.regs.items()},
                      amb if amb.any() else None)
        work = [side]
        while work:
            s = work.pop()
            if s.pc == join:
                arrived.append(s)
            else:
                work.extend(_run(m, s, join, depth + 1))
    return _merge(arrived, join, st.ambiguous is not None and bool(st.ambiguous.any()), st)


def _merge(groups: list[_State], pc: int, was_ambiguous: bool, before: _State) -> _State:
    """One group of the threads of ``groups`` (a thread may be in several: it ran every side), at ``pc``."""
    if not groups:
        return _State(pc, before.threads[:0], {r: (v[:0], kn[:0]) for r, (v, kn) in before.regs.items()})
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
    return _State(pc, uniq, regs, amb)


def _split(m: _Machine, st: _State, taken: np.ndarray, target: int, keep_only: bool = False) -> list[_State]:
    """Whole warps go one way or the other (a branch); with ``keep_only`` the others leave (``ret``: lanes of a warp
    may exit while the rest go on, as the hardware does)."""
    amb = (lambda sel: None if st.ambiguous is None else st.ambiguous[sel])  # noqa: E731
    a = _State(target, st.threads[taken], {r: (v[taken], kn[taken]) for r, (v, kn) in st.regs.items()}, amb(taken),
               set(st.elected))  # whole warps go on together: an elected lane is still the one of its warp
    if keep_only:  # ``ret`` by the others: only the taken ones go on, at ``target`` (a warp may lose lanes)
        a.elected.clear()
        return [a]
    b = _State(st.pc + 1, st.threads[~taken], {r: (v[~taken], kn[~taken]) for r, (v, kn) in st.regs.items()},
               amb(~taken), set(st.elected))
    return [b, a]


def _is_modelled_access(ins: Instr) -> bool:
    """A shared ld/st/ldmatrix/stmatrix, or a generic ld/st (which may reach the shared window): the accesses whose
    active lanes a row counts."""
    return ins.opcode in ("ld", "st", "ldmatrix", "stmatrix") and (_is_shared(ins) or _generic(ins))


def _is_shared(ins: Instr) -> bool:
    return any(x.startswith("shared") for x in ins.mods) or ins.opcode in ("ldmatrix", "stmatrix")


def _record(m: _Machine, st: _State, ins: Instr, addr: np.ndarray, kn: np.ndarray, where: np.ndarray) -> None:
    if not kn[where].all():
        raise _Stop("a shared address the interpreter does not know (it depends on data or an unknown parameter)")
    if st.ambiguous is not None and st.ambiguous[where].any():
        raise _Stop("a shared access inside a branch by lanes whose side of it is not known (its guard depends on "
                    "data, an elected lane or a parameter not given): its active lanes are not known")
    warps = m.warp_of[st.threads]
    lanes = m.lane_of[st.threads]
    for w in np.unique(warps[where]):
        sel = (warps == w) & where
        a = np.full(32, -1, dtype=np.int64)
        a[lanes[sel]] = addr[sel].astype(np.int64)
        m.accesses.append(Access(st.pc, int(w), a))


def _elect(m: _Machine, st: _State, ins: Instr, where: np.ndarray) -> None:
    """``elect.sync d|p, membermask``: ``p`` true for one leader lane of ``membermask``, ``d`` its lane id; which
    lane the PTX ISA does not say, so both are unknown. With a full membermask run by every lane of each warp, ``p``
    is tagged elected (exactly one lane per warp)."""
    d, _, p = ins.operands[0].partition("|")
    n = st.threads.size
    for r in (d.strip(), p.strip()):
        if r and r != "_":
            m.write(st, r, np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=bool), 32 if r == d.strip() else 1, where)
    mask = _literal(ins.operands[1].strip()) if len(ins.operands) > 1 else None
    warps = m.warp_of[st.threads]
    full = bool(where.all()) and (np.bincount(warps)[np.unique(warps)] == 32).all() and m.guessed is None
    if p.strip() and mask is not None and mask & 0xFFFFFFFF == 0xFFFFFFFF and full and st.ambiguous is None:
        st.elected.add(p.strip())


def _record_copy(m: _Machine, st: _State, ins: Instr, where: np.ndarray) -> None:
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


def _step(m: _Machine, st: _State, ins: Instr, where: np.ndarray) -> None:
    op, ops = ins.opcode, ins.operands
    n = st.threads.size
    if op in _NO_EFFECT:
        return
    if op == "elect":
        _elect(m, st, ins, where)
        return
    if op == "cvta":  # an address conversion, not an access
        _alu(m, st, ins, where)
        return
    if _is_shared(ins) and op in ("ld", "st", "ldmatrix", "stmatrix"):
        ai = 1 if op in ("ld", "ldmatrix") else 0
        addr, kn = m.address(st, ops[ai])
        _record(m, st, ins, addr, kn, where)
        if op == "st" and m.tmaps is not None and where.any():
            width = _BITS.get(_type_of(ins), 32) // 8 * next((int(x[1:]) for x in ins.mods if x in ("v2", "v4")), 1)
            val = None if ops[1].startswith("{") else m.value(st, ops[1], 64)
            m.tmaps.stored(addr[where], None if val is None else (val[0][where], val[1][where]), width)
        if op in ("ld", "ldmatrix"):
            _unknown_dsts(m, st, ops[0], where)
        return
    if _is_shared(ins) or op in ("mbarrier", "wgmma", "tcgen05"):
        moves_data = ((_is_shared(ins) and op != "mbarrier") or (op == "wgmma" and "mma_async" in ins.mods)
                      or (op == "tcgen05" and bool(ins.mods) and ins.mods[0] in ("mma", "cp")))
        if moves_data:  # shared-memory data the LSU bank model does not count (synchronisation is not listed)
            m.other[st.pc] = m.other.get(st.pc, 0) + int(np.unique(m.warp_of[st.threads[where]]).size)
        if op == "cp" and ins.mods[:1] == ("async",) and "bulk" not in ins.mods and ops:
            _record_copy(m, st, ins, where)
        if m.wgmmas is not None and op == "wgmma" and ins.mods[:1] in (("mma_async",), ("commit_group",)):
            _record_wgmma(m, st, ins, where)
        if m.ummas is not None and op == "tcgen05" and ins.mods[:1] in (("mma",), ("commit",)):
            _record_umma(m, st, ins, where)
        if m.tmaps is not None and op in ("tensormap", "cp"):
            _tensormap(m, st, ins, where)
        if op == "mbarrier" and ins.mods and ins.mods[0] in ("try_wait", "test_wait") and ops:
            m.write(st, ops[0], np.ones(n, dtype=np.uint64), np.ones(n, dtype=bool), 1, where)
            return
        if ops and not ops[0].startswith("[") and op != "cp":
            _unknown_dsts(m, st, ops[0], where)
        return
    if op == "cp":  # cp.async.commit_group / wait_group, bulk groups: no registers
        return
    if op == "shfl" and ins.mods[:2] == ("sync", "idx"):
        _shfl_idx(m, st, ins, where)
        return
    if op in ("ld", "st") and _generic(ins):  # a generic address may point into the shared window
        _generic_access(m, st, ins, where)
        return
    if op == "ld":
        if "param" in ins.mods:
            name = ops[1].strip()[1:-1].split("+")[0].strip()
            bits = _BITS.get(_type_of(ins), 32)
            if name in m.params:
                m.write(st, ops[0], np.full(n, m.params[name] & ((1 << 64) - 1), dtype=np.uint64),
                        np.ones(n, dtype=bool), bits, where)
            elif bits == 64 and name in m.pointer_base:
                m.write(st, ops[0], np.full(n, m.pointer_base[name], dtype=np.uint64), np.ones(n, dtype=bool),
                        bits, where)
            else:
                _unknown_dsts(m, st, ops[0], where)
            return
        _unknown_dsts(m, st, ops[0], where)
        return
    if op in ("st", "red", "atom", "prefetch") or op.startswith("st"):
        if op == "atom":
            _unknown_dsts(m, st, ops[0], where)
        return
    _alu(m, st, ins, where)


_SPACES = ("global", "shared", "local", "const", "param", "tex", "surf")


def _generic(ins: Instr) -> bool:
    return not any(m.split("::")[0] in _SPACES for m in ins.mods)


def _generic_access(m: _Machine, st: _State, ins: Instr, where: np.ndarray) -> None:
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
        _record(m, st, ins, addr - u64_(SHARED_WINDOW), kn, where)
    if ins.opcode == "ld":
        _unknown_dsts(m, st, ins.operands[0], where)


def _unknown_dsts(m: _Machine, st: _State, dst: str, where: np.ndarray) -> None:
    n = st.threads.size
    names = [d.strip() for d in dst.strip("{} ").split(",")] if dst.startswith("{") else [dst]
    for d in names:
        if d.startswith("%"):
            m.write(st, d, np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=bool), 64, where)


def _alu(m: _Machine, st: _State, ins: Instr, where: np.ndarray) -> None:
    op, ops, mods = ins.opcode, ins.operands, ins.mods
    typ = _type_of(ins)
    bits = _BITS.get(typ, 32)
    n = st.threads.size
    dst = ops[0] if ops else ""
    if op == "mov" and dst.startswith("{"):  # unpack: mov.b32 {%rs1, %rs2}, %r1
        parts = [p.strip() for p in dst.strip("{}").split(",")]
        v, kn = m.value(st, ops[1], bits)
        w = bits // len(parts)
        for i, p in enumerate(parts):
            if p != "_":
                m.write(st, p, v >> np.uint64(w * i), kn, w, where)
        return
    if op == "mov" and ops[1].startswith("{"):  # pack
        parts = [p.strip() for p in ops[1].strip("{}").split(",")]
        w = bits // len(parts)
        acc, akn = np.zeros(n, dtype=np.uint64), np.ones(n, dtype=bool)
        for i, p in enumerate(parts):
            v, kn = m.value(st, p, w)
            acc |= (v & _mask(w)) << np.uint64(w * i)
            akn &= kn
        m.write(st, dst, acc, akn, bits, where)
        return
    if typ in _FLOAT and op not in ("mov", "selp", "cvt", "setp"):
        _unknown_dsts(m, st, dst, where)
        if op == "setp" and "|" in dst:
            pass
        return
    if op not in _ALU or (op == "mov" and len(ops) != 2):
        _unknown_dsts(m, st, dst, where)  # an operation the interpreter does not follow: its results are unknown
        return
    srcs = None if op in _OWN_OPERANDS else [m.value(st, o, bits) for o in ops[1:]]
    res = _eval(m, st, ins, op, ops, mods, typ, bits, srcs)
    if res is None:
        _unknown_dsts(m, st, dst, where)
        return
    for d, v, kn, b in res:
        m.write(st, d, v, kn, b, where)


_OWN_OPERANDS = {"setp", "cvt", "cvta", "bfe", "bfi", "shl", "shr", "prmt", "lop3"}
_ALU = _OWN_OPERANDS | {"mov", "selp", "add", "sub", "mul", "mad", "div", "rem", "min", "max", "abs", "neg", "and",
                        "or", "xor", "not", "cnot", "popc", "clz", "brev"}


def _cmp(cmp: str, a: np.ndarray, b: np.ndarray, signed: bool, bits: int) -> np.ndarray:
    if signed:
        a, b = _signed(a, bits), _signed(b, bits)
    else:
        a, b = a & _mask(bits), b & _mask(bits)
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b, "lo": a < b,
            "ls": a <= b, "hi": a > b, "hs": a >= b}[cmp]


def _eval(m: _Machine, st: _State, ins: Instr, op: str, ops: tuple[str, ...], mods: tuple[str, ...], typ: str,
          bits: int, srcs: list[tuple[np.ndarray, np.ndarray]] | None) -> list | None:
    dst = ops[0]
    signed = typ.startswith("s")
    u64 = np.uint64
    if op == "setp":
        cmp = mods[0]
        if typ in _FLOAT:
            z = np.zeros(st.threads.size, dtype=u64)
            return [(p.strip(), z, np.zeros(st.threads.size, dtype=bool), 1) for p in dst.split("|")]
        (a, ak), (b, bk) = m.value(st, ops[1], bits), m.value(st, ops[2], bits)
        r = _cmp(cmp, a, b, signed, bits)
        kn = ak & bk
        outs = [p.strip() for p in dst.split("|")]
        combine = next((x for x in mods[1:] if x in ("and", "or", "xor")), None)
        if combine and len(ops) > 3:
            c, ck = m.value(st, ops[3], 1)
            c = (c & u64(1)).astype(bool)
            f = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[combine]
            r1, r2 = f(r, c), f(~r, c)
            kn = kn & ck
        else:
            r1, r2 = r, ~r
        res = [(outs[0], r1.astype(u64), kn, 1)]
        if len(outs) > 1:
            res.append((outs[1], r2.astype(u64), kn, 1))
        return res
    if op == "cvt":
        dt = next((x for x in mods if x in _BITS), "b32")
        stype = [x for x in mods if x in _BITS][-1]
        if dt in _FLOAT or stype in _FLOAT:
            return None
        sb, db = _BITS[stype], _BITS[dt]
        v, kn = m.value(st, ops[1], sb)
        v = (_signed(v, sb).astype(np.uint64) if stype.startswith("s") else v & _mask(sb))
        return [(dst, v, kn, db)]
    if op == "cvta":  # the shared window of the generic address space starts at SHARED_WINDOW
        v, kn = m.value(st, ops[1], 64)
        if "shared" in mods:
            v = v - u64(SHARED_WINDOW) if "to" in mods else v + u64(SHARED_WINDOW)
        return [(dst, v, kn, bits)]
    if op in ("shl", "shr"):
        (a, ak), (b, bk) = m.value(st, ops[1], bits), m.value(st, ops[2], 32)
        sh = np.minimum(b & u64(0xFFFFFFFF), u64(bits))
        if op == "shl":
            r = np.where(sh >= bits, u64(0), (a << np.minimum(sh, u64(63))))
        elif signed:
            r = (_signed(a, bits) >> np.minimum(sh, u64(63)).astype(np.int64)).astype(u64)
        else:
            r = np.where(sh >= bits, u64(0), (a & _mask(bits)) >> np.minimum(sh, u64(63)))
        return [(dst, r, ak & bk, bits)]
    if op == "bfe":  # PTX ISA: d[i] = (i < len && pos + i <= msb) ? a[pos + i] : sbit (pos, len: low 8 bits)
        (a, ak), (p, pk), (ln, lk) = m.value(st, ops[1], bits), m.value(st, ops[2], 32), m.value(st, ops[3], 32)
        pos, length = p & u64(0xFF), ln & u64(0xFF)
        x = a & _mask(bits)
        valid = np.where(pos >= u64(bits), u64(0), np.minimum(length, u64(bits) - np.minimum(pos, u64(bits))))
        keep = np.where(valid >= u64(64), _mask(64), (u64(1) << np.minimum(valid, u64(63))) - u64(1))
        field_ = np.where(pos >= u64(bits), u64(0), x >> np.minimum(pos, u64(63))) & keep
        if signed:  # sbit = a[min(pos + len - 1, msb)], 0 for len 0; it fills every bit from ``valid`` up
            at = np.minimum(pos + length - np.minimum(length, u64(1)), u64(bits - 1))
            sbit = ((x >> at) & u64(1)) * (length > 0)
            field_ = np.where(sbit == 1, field_ | (_mask(bits) ^ keep), field_)
        return [(dst, field_, ak & pk & lk, bits)]
    if op == "bfi":
        (a, ak), (b, bk) = m.value(st, ops[1], bits), m.value(st, ops[2], bits)
        (p, pk), (ln, lk) = m.value(st, ops[3], 32), m.value(st, ops[4], 32)
        pos, length = np.minimum(p & u64(0xFF), u64(63)), np.minimum(ln & u64(0xFF), u64(63))
        msk = (((u64(1) << length) - u64(1)) << pos) & _mask(bits)
        out = ((b & ~msk) | ((a << pos) & msk)) & _mask(bits)
        return [(dst, out, ak & bk & pk & lk, bits)]
    if op == "lop3":
        (a, ak), (b, bk), (c, ck) = (m.value(st, o, bits) for o in ops[1:4])
        lut = _literal(ops[4])
        if lut is None:
            return None
        r = np.zeros_like(a)
        for i in range(8):
            if lut >> i & 1:
                ta = a if i & 4 else ~a
                tb = b if i & 2 else ~b
                tc = c if i & 1 else ~c
                r |= ta & tb & tc
        return [(dst, r, ak & bk & ck, bits)]
    if op == "prmt":
        (a, ak), (b, bk), (c, ck) = (m.value(st, o, 32) for o in ops[1:4])
        if any(x in mods for x in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")):
            return None
        src = (a & u64(0xFFFFFFFF)) | ((b & u64(0xFFFFFFFF)) << u64(32))
        out = np.zeros_like(a)
        for j in range(4):
            sel = (c >> u64(4 * j)) & u64(0xF)
            byte = (src >> (u64(8) * (sel & u64(7)))) & u64(0xFF)
            byte = np.where((sel & u64(8)) != 0, np.where((byte & u64(0x80)) != 0, u64(0xFF), u64(0)), byte)
            out |= byte << u64(8 * j)
        return [(dst, out, ak & bk & ck, 32)]
    assert srcs is not None
    vals = [v for v, _ in srcs]
    kn = np.ones(st.threads.size, dtype=bool)
    for _, k2 in srcs:
        kn = kn & k2
    if op == "mov":
        return [(dst, vals[0], kn, bits)]
    if op == "selp":
        c = (vals[2] & u64(1)).astype(bool)
        return [(dst, np.where(c, vals[0], vals[1]), kn, bits)]
    if op in ("add", "sub"):
        r = vals[0] + vals[1] if op == "add" else vals[0] - vals[1]
        return [(dst, r, kn, bits)]
    if op in ("mul", "mad"):
        mode = next((x for x in mods if x in ("lo", "hi", "wide")), "lo")
        if mode == "wide":
            a, b = ((_signed(vals[0], bits), _signed(vals[1], bits)) if signed else
                    (vals[0] & _mask(bits), vals[1] & _mask(bits)))
            r = (a.astype(np.int64) * b.astype(np.int64)).astype(u64) if signed else a * b
            out_bits = 2 * bits
        elif mode == "hi" and bits <= 32:
            a2, b2 = ((_signed(vals[0], bits), _signed(vals[1], bits)) if signed else
                      (vals[0] & _mask(bits), vals[1] & _mask(bits)))
            r = ((a2.astype(np.int64) * b2.astype(np.int64)) >> bits).astype(u64) if signed else (a2 * b2) >> u64(bits)
            out_bits = bits
        elif mode == "hi":
            a = [int(x) for x in (_signed(vals[0], bits) if signed else vals[0] & _mask(bits))]
            b = [int(x) for x in (_signed(vals[1], bits) if signed else vals[1] & _mask(bits))]
            r = np.array([((x * y) >> bits) & ((1 << 64) - 1) for x, y in zip(a, b, strict=True)], dtype=u64)
            out_bits = bits
        else:
            r = vals[0] * vals[1]
            out_bits = bits
        if op == "mad":
            r = r + vals[2]
        return [(dst, r, kn, out_bits)]
    if op in ("div", "rem"):
        a, b = ((_signed(vals[0], bits), _signed(vals[1], bits)) if signed else
                (vals[0] & _mask(bits), vals[1] & _mask(bits)))
        zero = b == 0
        kn = kn & ~zero
        bs = np.where(zero, 1, b)
        if signed:
            q = np.sign(a) * np.sign(bs) * (np.abs(a) // np.abs(bs))  # PTX: truncation towards zero
            r = q if op == "div" else a - q * bs
            return [(dst, r.astype(np.int64).astype(u64), kn, bits)]
        r = a // bs if op == "div" else a % bs
        return [(dst, r, kn, bits)]
    if op in ("min", "max"):
        a, b = ((_signed(vals[0], bits), _signed(vals[1], bits)) if signed else
                (vals[0] & _mask(bits), vals[1] & _mask(bits)))
        r = np.minimum(a, b) if op == "min" else np.maximum(a, b)
        return [(dst, r.astype(np.int64).astype(u64) if signed else r, kn, bits)]
    if op == "abs":
        return [(dst, np.abs(_signed(vals[0], bits)).astype(u64), kn, bits)]
    if op == "neg":
        return [(dst, (u64(0) - vals[0]), kn, bits)]
    if op in ("and", "or", "xor"):
        f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
        if op != "xor":  # a known 0 decides an and, a known all-ones an or, whatever the other operand is
            absorb = u64(0) if op == "and" else _mask(bits)
            (v0, k0), (v1, k1) = srcs[0], srcs[1]
            kn = kn | (k0 & ((v0 & _mask(bits)) == absorb)) | (k1 & ((v1 & _mask(bits)) == absorb))
            return [(dst, np.where(k0 & ((v0 & _mask(bits)) == absorb), v0,
                                   np.where(k1 & ((v1 & _mask(bits)) == absorb), v1, f(vals[0], vals[1]))), kn, bits)]
        return [(dst, f(vals[0], vals[1]), kn, bits)]
    if op == "not":
        return [(dst, ~vals[0], kn, bits)]
    if op == "cnot":
        return [(dst, ((vals[0] & _mask(bits)) == 0).astype(u64), kn, bits)]
    if op == "popc":
        return [(dst, np.bitwise_count(vals[0] & _mask(bits)).astype(u64), kn, 32)]
    if op == "clz":
        return [(dst, np.array([bits - (int(x) & ((1 << bits) - 1)).bit_length() for x in vals[0]], dtype=u64), kn,
                 32)]
    if op == "brev":
        return [(dst, np.array([int(f"{int(x) & ((1 << bits) - 1):0{bits}b}"[::-1], 2) for x in vals[0]],
                               dtype=u64), kn, bits)]
    return None


def _shfl_idx(m: _Machine, st: _State, ins: Instr, where: np.ndarray) -> None:
    """``shfl.sync.idx.b32 d[|p], a, b, c, membermask`` (PTX ISA 9.7.9.7): ``segmask = c[12:8]``, ``minLane =
    lane & segmask``, ``maxLane = minLane | (c[4:0] & ~segmask)``, ``j = minLane | (b[4:0] & ~segmask)``; ``d`` is
    lane ``j``'s ``a`` when ``j <= maxLane`` (``p`` true), else the lane's own ``a``. Triton reads the warp id this
    way (``shfl.sync.idx.b32 %r, %tid/32, 0, 31, -1``). A source lane outside the group or not executing, an
    unknown operand: unknown."""
    ops = ins.operands
    dst, _, pred = ops[0].partition("|")
    a, ak = m.value(st, ops[1], 32)
    b, bk = m.value(st, ops[2], 32)
    c, ck = m.value(st, ops[3], 32)
    lane = m.lane_of[st.threads].astype(np.uint64)
    seg = (c >> np.uint64(8)) & np.uint64(31)
    min_lane = lane & seg
    max_lane = min_lane | (c & np.uint64(31) & ~seg)
    j = min_lane | (b & np.uint64(31) & ~seg)
    pval = j <= max_lane
    j = np.where(pval, j, lane)
    warps = m.warp_of[st.threads]
    keys = warps * 32 + m.lane_of[st.threads]
    order = np.argsort(keys, kind="stable")
    want = warps * 32 + j.astype(np.int64)
    pos = np.clip(np.searchsorted(keys[order], want), 0, keys.size - 1)
    src = order[pos]
    found = (keys[src] == want) & where[src]
    m.write(st, dst.strip(), a[src], ak[src] & found & bk & ck, 32, where)
    if pred.strip():
        m.write(st, pred.strip(), pval.astype(np.uint64), bk & ck, 1, where)


# -- wgmma operands: the descriptors each warpgroup executes --------------------------------------------------------
@dataclass(frozen=True, slots=True)
class WgmmaExec:
    """One ``wgmma.mma_async`` executed by one warpgroup (``warpgroup`` = CTA-linear warp // 4), or a
    ``wgmma.commit_group`` (``shape == ""``): the 64-bit descriptors of A (``None``: A is in registers) and B as the
    threads hold them, ``shape`` (``m64n64k16``), the A / B types, ``imm-trans-a`` / ``imm-trans-b`` (0: K-major;
    1: MN-major; 0 where the type has none), and ``unknown``: why a descriptor could not be evaluated (``""``)."""

    pc: int
    warpgroup: int
    shape: str = ""
    atype: str = ""
    btype: str = ""
    desc_a: int | None = None
    desc_b: int | None = None
    trans_a: int = 0
    trans_b: int = 0
    unknown: str = ""


@dataclass(frozen=True)
class WgmmaRun:
    """Every wgmma execution (and commit) in program order per warpgroup; ``stopped`` as ``Run.stopped``."""

    execs: tuple[WgmmaExec, ...]
    stopped: str = ""


def wgmma_executions(k: Kernel, grid: tuple[int, ...] = (1,), block: tuple[int, ...] | None = None,
                     scalars: Mapping[str, int] | None = None, ctas: list[int] | None = None,
                     max_steps: int = 200_000) -> WgmmaRun:
    """Run ``k`` as ``shared_accesses`` does and return the descriptors of every ``wgmma.mma_async`` each warpgroup
    executes (PTX ISA 9.7.15.5: ``wgmma.mma_async.sync.aligned.shape.dtype.atype.btype d, a-desc|{a}, b-desc,
    scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b``; the ``imm-trans`` operands exist for .f16 /
    .bf16 only), with the ``wgmma.commit_group`` that close each group."""
    block3 = (*(block or k.reqntid or ()), 1, 1, 1)
    if not (block or k.reqntid):
        raise ParseError(f"ptx: {k.name} declares no .reqntid: give the block size")
    grid3 = (*grid, 1, 1, 1)
    named = {k.params[int(key)] if str(key).isdigit() else key: int(val) for key, val in (scalars or {}).items()}
    ncta = grid3[0] * grid3[1] * grid3[2]
    m = _Machine(k, block3[:3], grid3[:3], list(range(ncta)) if ctas is None else ctas, named, max_steps)
    m.wgmmas = []
    stopped = _execute(m)
    return WgmmaRun(tuple(m.wgmmas), stopped)


def _uniform(m: _Machine, st: _State, op: str, sel: np.ndarray) -> tuple[int | None, str]:
    v, kn = m.value(st, op, 64)
    if not kn[sel].all():
        return None, f"descriptor {op} is not known (it depends on data or an unknown parameter)"
    vals = np.unique(v[sel])
    if vals.size != 1:
        return None, f"descriptor {op} differs across the threads of a warpgroup"
    return int(vals[0]), ""


def _record_wgmma(m: _Machine, st: _State, ins: Instr, where: np.ndarray) -> None:
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
        a, wa = (None, "") if a_regs else _uniform(m, st, ops[1], sel)
        b, wb = _uniform(m, st, ops[2], sel)
        trans = [0, 0]
        if atype in ("f16", "bf16"):
            imms = ops[6:] if not a_regs else ("0", *ops[6:])
            for i, t in enumerate(imms[:2]):
                lit = _literal(t.strip())
                if lit is None:
                    why = why or f"imm-trans operand {t!r} is not an integer"
                else:
                    trans[i] = lit
        m.wgmmas.append(WgmmaExec(st.pc, int(g), shape, atype, btype, a, b, trans[0], trans[1],  # type: ignore
                                  why or wa or wb))


# -- tcgen05.mma operands: the descriptors each issuing thread executes ----------------------------------------------
@dataclass(frozen=True, slots=True)
class UmmaExec:
    """One ``tcgen05.mma`` issued by one thread of warp ``warp`` (CTA-linear), or a ``tcgen05.commit``
    (``kind == ""``): ``kind`` (``f16``, ``tf32``, ...), the 64-bit shared-memory descriptors of A (``None``: A in
    tensor memory) and B, the 32-bit instruction descriptor, and ``unknown``: why they could not be evaluated."""

    pc: int
    warp: int
    kind: str = ""
    desc_a: int | None = None
    desc_b: int | None = None
    idesc: int | None = None
    unknown: str = ""


def umma_executions(k: Kernel, grid: tuple[int, ...] = (1,), block: tuple[int, ...] | None = None,
                    scalars: Mapping[str, int] | None = None, ctas: list[int] | None = None,
                    max_steps: int = 200_000) -> tuple[tuple[UmmaExec, ...], str]:
    """Run ``k`` as ``shared_accesses`` does; every ``tcgen05.mma`` (PTX ISA 9.7.16.10.9: ``tcgen05.mma.cta_group
    .kind [d-tmem], a-desc|[a-tmem], b-desc, idesc, ...``, issued by each thread that executes it) and
    ``tcgen05.commit`` in program order, and why the run stopped (``""``)."""
    block3 = (*(block or k.reqntid or ()), 1, 1, 1)
    if not (block or k.reqntid):
        raise ParseError(f"ptx: {k.name} declares no .reqntid: give the block size")
    grid3 = (*grid, 1, 1, 1)
    named = {k.params[int(key)] if str(key).isdigit() else key: int(val) for key, val in (scalars or {}).items()}
    ncta = grid3[0] * grid3[1] * grid3[2]
    m = _Machine(k, block3[:3], grid3[:3], list(range(ncta)) if ctas is None else ctas, named, max_steps)
    m.ummas = []
    stopped = _execute(m)
    return tuple(m.ummas), stopped


def _record_umma(m: _Machine, st: _State, ins: Instr, where: np.ndarray) -> None:
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
            a = None if ops[1].strip().startswith("[") else _uniform(m, st, ops[1], lanes)
            b, i = _uniform(m, st, ops[2], lanes), _uniform(m, st, ops[3], lanes)
            why = next((x[1] for x in (a, b, i) if x is not None and x[1]), "")
            m.ummas.append(UmmaExec(st.pc, int(w), kind, a[0] if a else None, b[0], i[0], why.replace("warpgroup",
                                                                                                      "warp")))


def tma_loads(k: Kernel, grid: tuple[int, ...] = (1,), block: tuple[int, ...] | None = None,
              scalars: Mapping[str, int] | None = None, max_steps: int = 200_000) -> tuple[tuple[TmaLoad, ...], str]:
    """Run ``k`` and return every TMA load (``cp.async.bulk.tensor`` global -> shared) with its destination and
    the fields of the device-side tensor map it names (``importers.ptx_tensormap``), and why the run stopped."""
    block3 = (*(block or k.reqntid or ()), 1, 1, 1)
    if not (block or k.reqntid):
        raise ParseError(f"ptx: {k.name} declares no .reqntid: give the block size")
    grid3 = (*grid, 1, 1, 1)
    named = {k.params[int(key)] if str(key).isdigit() else key: int(val) for key, val in (scalars or {}).items()}
    m = _Machine(k, block3[:3], grid3[:3], list(range(grid3[0] * grid3[1] * grid3[2])), named, max_steps)
    m.tmaps = TensorMaps()
    stopped = _execute(m)
    return tuple(m.tmaps.loads), stopped


def _tensormap(m: _Machine, st: _State, ins: Instr, where: np.ndarray) -> None:
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
        ordinal = _literal(ops[1].strip()) if len(ops) > 2 else 0
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


__all__ = ["Access", "Instr", "Kernel", "Run", "UmmaExec", "WgmmaExec", "WgmmaRun", "entries", "parse_ptx",
           "shared_accesses", "tma_loads", "umma_executions", "wgmma_executions"]
