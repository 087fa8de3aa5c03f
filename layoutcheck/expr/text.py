"""A small safe integer expression language: index expressions like ``s*128 + (r ^ ((lane >> 3) & 3)) % 4 * 32``.

Grammar: ints (decimal, ``0x``, ``0o``, ``0b``), names (variables), unary ``- ~ +``, binary ``| ^ & << >> + - * // / %``
with Python's precedence (``/`` is floor division), parentheses. ``parse_expr`` turns text into a tree of tuples
(``('int', 3)``, ``('var', 'lane')``, ``('neg', t)``, ``(op, left, right)``); nothing is ever ``eval``-ed.
``eval_expr`` evaluates a tree on ints or NumPy int arrays (element-wise). A malformed text raises ``ParseError``
with the position; an unknown variable raises ``LayoutError`` naming it and the known ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from layoutcheck.errors import LayoutError, ParseError

_BINARY: dict[str, tuple[int, Callable[[Any, Any], Any]]] = {
    "|": (1, np.bitwise_or), "^": (2, np.bitwise_xor), "&": (3, np.bitwise_and),
    "<<": (4, np.left_shift), ">>": (4, np.right_shift), "+": (5, np.add), "-": (5, np.subtract),
    "*": (6, np.multiply), "//": (6, np.floor_divide), "/": (6, np.floor_divide), "%": (6, np.mod),
}
_TOKENS = ("<<", ">>", "//", "+", "-", "*", "/", "%", "^", "&", "|", "~", "(", ")")


def _tokenize(text: str) -> list[tuple[str, int]]:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c.isdigit():
            j = i
            while j < len(text) and (text[j].isalnum()):
                j += 1
            try:
                int(text[i:j], 0)
            except ValueError:
                raise ParseError(text, i, "bad integer") from None
            out.append((text[i:j], i))
            i = j
        elif c.isalpha() or c == "_":
            j = i
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1
            out.append((text[i:j], i))
            i = j
        else:
            tok = next((t for t in _TOKENS if text.startswith(t, i)), None)
            if tok is None:
                raise ParseError(text, i, f"unexpected character {c!r}")
            out.append((tok, i))
            i += len(tok)
    return out


def parse_expr(text: str) -> Any:
    """Parse an integer expression (Python precedence) into a tree of tuples; names are variables.

    >>> parse_expr("r ^ ((lane >> 3) & 3)")
    ('^', ('var', 'r'), ('&', ('>>', ('var', 'lane'), ('int', 3)), ('int', 3)))
    """
    toks = _tokenize(text)
    pos = 0

    def peek() -> str | None:
        return toks[pos][0] if pos < len(toks) else None

    def where() -> int:
        return toks[pos][1] if pos < len(toks) else len(text)

    def unary() -> Any:
        nonlocal pos
        t = peek()
        if t is None:
            raise ParseError(text, where(), "expression ends early")
        pos += 1
        if t in ("-", "~", "+"):
            return ("neg" if t == "-" else "inv" if t == "~" else "pos", unary())
        if t == "(":
            e = binary(0)
            if peek() != ")":
                raise ParseError(text, where(), "expected ')'")
            pos += 1
            return e
        if t[0].isdigit():
            return ("int", int(t, 0))
        if t[0].isalpha() or t[0] == "_":
            return ("var", t)
        raise ParseError(text, toks[pos - 1][1], f"unexpected {t!r}")

    def binary(min_prec: int) -> Any:
        nonlocal pos
        left = unary()
        while (t := peek()) in _BINARY and _BINARY[t][0] > min_prec:
            pos += 1
            left = (t, left, binary(_BINARY[t][0]))
        return left

    tree = binary(0)
    if pos != len(toks):
        raise ParseError(text, where(), f"unexpected {peek()!r}")
    return tree


def eval_expr(tree: Any, env: Mapping[str, Any]) -> Any:
    """Evaluate a ``parse_expr`` tree on ints or NumPy int arrays.

    >>> int(eval_expr(parse_expr("(5 ^ (lane >> 3)) & 3"), {"lane": 9}))
    0
    """
    op = tree[0]
    if op == "int":
        return tree[1]
    if op == "var":
        if tree[1] not in env:
            raise LayoutError(f"expression uses unknown variable {tree[1]!r}; known: {', '.join(env)}")
        return env[tree[1]]
    if op in ("neg", "inv", "pos"):
        v = eval_expr(tree[1], env)
        return -v if op == "neg" else ~v if op == "inv" else v
    return _BINARY[op][1](eval_expr(tree[1], env), eval_expr(tree[2], env))
