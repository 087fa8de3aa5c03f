"""The C interpreter of the expression IR: printing CUDA C over ``unsigned``, and reading that C back.

``c_expr`` prints a tree as a fully parenthesised C expression over ``unsigned`` (32-bit) values through one table
(``C_ALU``), strength-reducing powers of two: ``x / 2**k -> x >> k``, ``x % 2**k -> x & (2**k-1)``. For example
``SM80_16x8_Row`` over a 16-row tile gives ``row = ((t >> 2u) + ((v >> 1u) * 8u))``.

``parse_c`` reads such text back into the IR (``layoutcheck.expr.parse`` in its ``c`` dialect: ``12u`` literals,
C's precedence, which is Python's for these operators) and ``eval_c`` evaluates it with 32-bit unsigned
wrap-around (``layoutcheck.expr.numpy.evaluate(..., bits=32)``), vectorised over NumPy arrays -- so tests check every
emitted expression against ``layout(c)`` for every ``c`` without a compiler.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from layoutcheck.errors import LayoutError
from layoutcheck.expr.ir import Expr, all_nonneg, fold
from layoutcheck.expr.numpy import evaluate
from layoutcheck.expr.parse import parse


def _pow2(k: Any) -> int | None:
    return k.bit_length() - 1 if isinstance(k, int) and k > 0 and k & (k - 1) == 0 else None


def _u(x: str | int) -> str:
    return f"{x}u" if isinstance(x, int) else x


def _div(a: str, k: str | int) -> str:
    p = _pow2(k)
    return f"({a} >> {p}u)" if p is not None else f"({a} / {_u(k)})"


def _mod(a: str, k: str | int) -> str:
    p = _pow2(k)
    return f"({a} & {k - 1}u)" if p is not None else f"({a} % {_u(k)})"  # type: ignore[operator]


def _bin(sym: str) -> Callable[[str, str | int], str]:
    return lambda a, b: f"({_u(a)} {sym} {_u(b)})"


C_ALU: dict[str, Callable[..., str]] = {
    "const": lambda v: f"{v}u", "var": lambda name, upper: name, "add": lambda *t: "(" + " + ".join(t) + ")",
    "mul": _bin("*"), "div": _div, "mod": _mod, "xor": _bin("^"), "and": _bin("&"), "or": _bin("|"),
    "shr": _bin(">>"), "shl": _bin("<<"), "ceil_div": lambda a, b: f"((({a} + {_u(b)}) - 1u) / {_u(b)})",
    "min": lambda a, b: f"(({_u(a)} < {_u(b)}) ? {_u(a)} : {_u(b)})",
    "max": lambda a, b: f"(({_u(a)} < {_u(b)}) ? {_u(b)} : {_u(a)})", "lt": _bin("<"),
    "ite": lambda c, a, b: f"({c} ? {_u(a)} : {_u(b)})", "land": lambda *c: "(" + " && ".join(c) + ")",
    "lor": lambda *c: "(" + " || ".join(c) + ")", "lnot": lambda c: f"(!{c})",
}
"""Operation -> C text (int operands stay ints so powers of two can be strength-reduced)."""


def c_expr(e: Expr | int | bool) -> str:
    """C source of ``e`` over ``unsigned`` operands; every variable must be an ``unsigned`` in scope (a plain bool,
    a predicate that folded to a constant, is ``true`` / ``false``; a plain int ``Nu``).

    Pre: ``e`` is ``nonneg`` at every node and ``e.bound <= 2**32``. Post: ``eval_c(c_expr(e), env) ==
    evaluate(e, env)`` for every in-range ``env``.

    >>> from layoutcheck.expr.lower import index_ast
    >>> from layoutcheck.algebra.layout import Layout
    >>> c_expr(index_ast(Layout((4, 2), (2, 1)), "i"))
    '(((i & 3u) * 2u) + (i >> 2u))'
    """
    if isinstance(e, bool):
        return "true" if e else "false"
    if not isinstance(e, Expr):
        return _u(e)
    if not all_nonneg(e):
        raise LayoutError(f"expression may be negative, not printable over unsigned C values: {e}")
    if e.bound > 1 << 32:
        raise LayoutError(f"expression may reach {e.bound - 1}, beyond 32-bit unsigned arithmetic")
    return fold(e, C_ALU)


def parse_c(text: str) -> Expr:
    """The IR of a C expression of the ``c_expr`` subset (variables unbounded).

    >>> parse_c("(i & 3u) * 2u").op
    'mul'
    """
    return parse(text, dialect="c")


def eval_c(text: str, env: Mapping[str, Any]) -> Any:
    """Value of a C expression of the ``c_expr`` subset, with 32-bit unsigned semantics; arrays broadcast.

    >>> int(eval_c("((i & 3u) * 2u) + (i >> 2u)", {"i": 5}))
    3
    >>> int(eval_c("1u + 2u * 3u ^ 1u", {}))
    6
    """
    return evaluate(parse_c(text), env, bits=32)
