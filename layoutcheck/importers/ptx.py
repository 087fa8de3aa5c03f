"""A PTX kernel as text -> its instructions: ``parse_ptx`` reads one ``.entry``.

What a compiler finally asks of shared memory is in the PTX it emits: the vector width of every ``ld.shared`` /
``st.shared``, where it chose ``ldmatrix`` / ``stmatrix``, the swizzle it XORs into the addresses. ``parse_ptx`` reads
one ``.entry`` (instructions, labels, guards, ``.loc`` source lines, scoped ``.reg`` declarations of inline asm) into
a ``Kernel``; ``importers.ptx_run`` runs it for every thread of every CTA of a grid (``shared_accesses``: each
shared-memory access a warp executes, with the byte address of every active lane).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from layoutcheck.errors import ParseError


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


__all__ = ["Instr", "Kernel", "entries", "parse_ptx"]
