"""The CuTe-dialect module a CuTe DSL kernel traces to, read as text: its type aliases and its operations.

``compile_kernel`` prints the module in MLIR's generic form, one syntax for every operation:
``%109 = "cute.make_view"(%108, %arg2) : (!cute.ptr<...>, ...) -> !memref_smem_f16 loc(#loc21)``. The pretty form
(``%view = cute.make_view(%p, %l) : !memref_smem_f16``) is read too where an operation prints its operands in
parentheses right after its name and its result type last; custom formats (``cute.append_to_rank<2> (%a, %b) : T,
U``) are not, so the generic form is the one to read. An ``Op`` keeps its result names, its operation name, its
operand names, its result type and its text, with every type alias (``!memref_smem_f16 = !cute.memref<f16, smem,
align<16>, "...">``) expanded, so a reader matches types, never alias names. ``importers.cute_dsl_findings`` reads
the layouts out of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Op:
    """One operation line of the module: its results, name, operands and result type (aliases expanded)."""

    line: int
    results: tuple[str, ...]
    name: str
    operands: tuple[str, ...]
    type: str
    text: str


_ALIAS = re.compile(r"^(?P<name>![\w.$-]+)\s*=\s*(?P<type>!.*)$", re.M)
_OP = re.compile(r"^\s*(?P<res>%[\w.$-]+(?::\d+)?(?:\s*,\s*%[\w.$-]+)*)\s*=\s*"
                 r"\"?(?P<name>[a-z_][\w.]*)\"?(?P<rest>.*)$")
_LOC_TAIL = re.compile(r"\s+loc\((?:[^()]|\([^()]*(?:\([^()]*\)[^()]*)*\))*\)\s*$")


def aliases(ir: str) -> dict[str, str]:
    """``!alias = !type`` definitions of the module (the last one wins: several modules may be concatenated)."""
    return {m.group("name"): m.group("type").strip() for m in _ALIAS.finditer(ir)}


def expand(t: str, table: dict[str, str]) -> str:
    """``t`` with every type alias replaced by its definition."""
    for _ in range(4):
        new = re.sub(r"![\w.$-]+", lambda m: table.get(m.group(0), m.group(0)), t)
        if new == t:
            break
        t = new
    return t


def operations(ir: str) -> list[Op]:
    """Every operation line that defines results (pretty or generic form)."""
    table = aliases(ir)
    out = []
    for i, line in enumerate(ir.splitlines(), 1):
        m = _OP.match(line)
        if m is None:
            continue
        results = tuple(r.strip().split(":")[0] for r in m.group("res").split(","))
        body = _LOC_TAIL.sub("", m.group("rest"))
        args = _first_group(body)
        operands = tuple(re.findall(r"%[\w.$-]+", args))
        out.append(Op(i, results, m.group("name"), operands, expand(_result_type(body), table), expand(body, table)))
    return out


def _first_group(body: str) -> str:
    """The text inside the first top-level parentheses of ``body`` (an operation's operand list)."""
    start = body.find("(")
    if start < 0 or body[:start].strip() not in ("", '"'):
        return ""
    depth = 0
    for j in range(start, len(body)):
        depth += {"(": 1, ")": -1}.get(body[j], 0)
        if depth == 0:
            return body[start + 1:j]
    return ""


def _result_type(body: str) -> str:
    """The result type of an operation line: after its last ``->`` (generic form, functional types), else after its
    last top-level `` : ``."""
    sig = body.rsplit(" : ", 1)[-1] if " : " in body else ""
    if "->" in sig:
        return sig.rsplit("->", 1)[-1].strip()
    return sig.strip()


def split_top(text: str) -> list[str]:
    """``text`` split at the commas outside ``<>``, ``()``, ``[]`` and quotes.

    >>> split_top('!a<"x, y">, !b<1, 2>')
    ['!a<"x, y">', '!b<1, 2>']
    """
    out, depth, quoted, cur = [], 0, False, []
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "<([":
            depth += 1
        elif not quoted and ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


__all__ = ["Op", "aliases", "expand", "operations", "split_top"]
