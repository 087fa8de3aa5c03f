"""CUDA C++ from closed forms: index expressions as C, kernel sources from the templates in ``kernels/``.

``c_expr`` prints a ``layoutcheck.expr.ir`` tree as a fully parenthesised C expression over ``unsigned`` (32-bit)
values, strength-reducing powers of two: ``x / 2**k -> x >> k``, ``x % 2**k -> x & (2**k-1)``. For example
``SM80_16x8_Row`` over a 16-row tile gives ``row = ((t >> 2u) + ((v >> 1u) * 8u))``.

``eval_c`` is a tiny evaluator of exactly that C subset (unsigned literals ``12u``, identifiers, parentheses,
``* / % + << >> & ^`` with C's precedence and 32-bit unsigned wrap-around), vectorised over NumPy arrays, so tests
can check every emitted expression against ``layout(c)`` for every ``c`` without a compiler.

Templates are CUDA files with ``{{NAME}}`` placeholders; ``render`` fills every one and refuses a missing or an
unused parameter, so a generated source is a pure function of (template, parameters). A line ``{{> frag}}`` of a
template is replaced by the fragment ``kernels/frag.cuh`` before rendering (its placeholders join the template's), so
kernels share code while every generated source stays one self-contained file: no ``#include`` path for NVRTC or
``nvcc`` to find.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from layoutcheck.errors import LayoutError
from layoutcheck.expr.ir import And, Const, Div, Expr, Mod, Mul, Shl, Shr, Sum, Var, Xor

KERNELS_DIR = Path(__file__).resolve().parent / "templates"  # package data
"""The kernel templates (``kernels/*.cu`` at the repository root)."""

_U32 = 0xFFFFFFFF


def _pow2(k: int) -> int | None:
    return k.bit_length() - 1 if k > 0 and k & (k - 1) == 0 else None


def c_expr(e: Expr) -> str:
    """C source of ``e`` over ``unsigned`` operands; every variable must be an ``unsigned`` in scope.

    Pre: ``e.bound <= 2**32``. Post: ``eval_c(c_expr(e), env) == evaluate(e, env)`` for every in-range ``env``.

    >>> from layoutcheck.expr.ir import index_ast
    >>> from layoutcheck import Layout
    >>> c_expr(index_ast(Layout((4, 2), (2, 1)), "i"))
    '(((i & 3u) * 2u) + (i >> 2u))'
    """
    if e.bound > 1 << 32:
        raise LayoutError(f"expression may reach {e.bound - 1}, beyond 32-bit unsigned arithmetic")
    return _c(e)


def _c(e: Expr) -> str:
    match e:
        case Const(value=v):
            return f"{v}u"
        case Var(name=n):
            return n
        case Sum(terms=ts):
            return "(" + " + ".join(_c(t) for t in ts) + ")"
        case Mul(x=x, k=k):
            return f"({_c(x)} * {k}u)"
        case Div(x=x, k=k):
            p = _pow2(k)
            return f"({_c(x)} >> {p}u)" if p is not None else f"({_c(x)} / {k}u)"
        case Mod(x=x, k=k):
            p = _pow2(k)
            return f"({_c(x)} & {k - 1}u)" if p is not None else f"({_c(x)} % {k}u)"
        case Xor(a=a, b=b):
            return f"({_c(a)} ^ {_c(b)})"
        case And(x=x, mask=m):
            return f"({_c(x)} & {m}u)"
        case Shr(x=x, k=k):
            return f"({_c(x)} >> {k}u)"
        case Shl(x=x, k=k):
            return f"({_c(x)} << {k}u)"
    raise TypeError(f"not an expression node: {e!r}")


# -- a tiny evaluator of the emitted C subset ------------------------------------------------------------------------
_TOKEN = re.compile(r"\s*(?:(\d+)u?|([A-Za-z_]\w*)|(>>|<<|[-+*/%&^()]))")
_LEVELS: list[tuple[str, ...]] = [("^",), ("&",), (">>", "<<"), ("+", "-"), ("*", "/", "%")]


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise LayoutError(f"eval_c: unexpected character {text[pos]!r} at column {pos + 1} of {text!r}")
        kind = "num" if m.group(1) else "id" if m.group(2) else "op"
        out.append((kind, m.group(1) or m.group(2) or m.group(3)))
        pos = m.end()
    return out


def _apply(op: str, a: Any, b: Any) -> Any:
    if op in ("/", "%") and np.any(np.asarray(b) == 0):
        raise ZeroDivisionError("eval_c: division by zero")
    r = {"^": lambda: a ^ b, "&": lambda: a & b, ">>": lambda: a >> (b & 31), "<<": lambda: a << (b & 31),
         "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a // b, "%": lambda: a % b}[op]()
    return r & _U32


def eval_c(text: str, env: Mapping[str, Any]) -> Any:
    """Value of a C expression of the ``c_expr`` subset, with 32-bit unsigned semantics; arrays broadcast.

    >>> int(eval_c("((i & 3u) * 2u) + (i >> 2u)", {"i": 5}))
    3
    >>> int(eval_c("1u + 2u * 3u ^ 1u", {}))
    6
    """
    toks = _tokens(text)
    pos = 0

    def atom() -> Any:
        nonlocal pos
        kind, val = toks[pos]
        pos += 1
        if kind == "num":
            return np.uint64(int(val) & _U32)
        if kind == "id":
            if val not in env:
                raise LayoutError(f"eval_c: unknown variable {val!r} in {text!r}")
            return np.asarray(env[val]).astype(np.uint64) & _U32
        if val == "(":
            v = level(0)
            if pos >= len(toks) or toks[pos][1] != ")":
                raise LayoutError(f"eval_c: missing ')' in {text!r}")
            pos += 1
            return v
        raise LayoutError(f"eval_c: unexpected {val!r} in {text!r}")

    def level(i: int) -> Any:
        nonlocal pos
        if i == len(_LEVELS):
            return atom()
        v = level(i + 1)
        while pos < len(toks) and toks[pos][0] == "op" and toks[pos][1] in _LEVELS[i]:
            op = toks[pos][1]
            pos += 1
            v = _apply(op, v, level(i + 1))
        return v

    result = level(0)
    if pos != len(toks):
        raise LayoutError(f"eval_c: trailing {toks[pos][1]!r} in {text!r}")
    return result


# -- templates ---------------------------------------------------------------------------------------------------------
_PLACEHOLDER = re.compile(r"\{\{([A-Z0-9_]+)\}\}")
_PARTIAL = re.compile(r"^[ \t]*\{\{>\s*([A-Za-z0-9_]+)\s*\}\}[ \t]*$\n?", re.MULTILINE)


def _kernel_file(name: str, suffix: str, what: str) -> str:
    path = KERNELS_DIR / f"{name}{suffix}"
    if not path.is_file():
        raise LayoutError(f"no kernel {what} {name!r} (looked for {path})")
    return path.read_text()


def template_text(name: str) -> str:
    """The text of ``kernels/<name>.cu`` (fragments not yet inlined)."""
    return _kernel_file(name, ".cu", "template")


def expand_fragments(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with each line ``{{> frag}}`` replaced by ``kernels/frag.cuh``, and the fragment names in order.

    Pre: fragments do not nest. Post: no ``{{>`` is left.

    >>> text, used = expand_fragments("{{> mma_sync_ops}}")
    >>> used, text.count("void ldmatrix_x4(")
    (('mma_sync_ops',), 1)
    """
    used: list[str] = []

    def inline(m: re.Match[str]) -> str:
        frag = _kernel_file(m.group(1), ".cuh", "fragment")
        if "{{>" in frag:
            raise LayoutError(f"kernel fragment {m.group(1)!r} includes another fragment; fragments do not nest")
        used.append(m.group(1))
        return frag if frag.endswith("\n") else frag + "\n"

    out = _PARTIAL.sub(inline, text)
    if "{{>" in out:
        raise LayoutError("a fragment reference '{{> name}}' must stand alone on its line")
    return out, tuple(used)


def render(template: str, params: Mapping[str, Any]) -> str:
    """Fill every ``{{NAME}}`` of ``template`` with ``str(params[NAME])``.

    Pre: the placeholders and the keys of ``params`` are the same set. Post: no ``{{`` is left.

    >>> render("x = {{A}};", {"A": "1u"})
    'x = 1u;'
    """
    wanted = set(_PLACEHOLDER.findall(template))
    missing, unused = wanted - set(params), set(params) - wanted
    if missing:
        raise LayoutError(f"template parameters missing: {', '.join(sorted(missing))}")
    if unused:
        raise LayoutError(f"template parameters not in the template: {', '.join(sorted(unused))}")
    return _PLACEHOLDER.sub(lambda m: str(params[m.group(1)]), template)


def render_template(name: str, params: Mapping[str, Any]) -> str:
    """``render`` of ``kernels/<name>.cu`` with its fragments inlined, headed by a comment naming the files."""
    text, frags = expand_fragments(template_text(name))
    used = f" (fragments {', '.join(f'{f}.cuh' for f in dict.fromkeys(frags))})" if frags else ""
    return f"// generated by layoutcheck from templates/{name}.cu{used} -- do not edit\n" + render(text, params)
