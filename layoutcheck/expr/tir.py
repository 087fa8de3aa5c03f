"""The TIR printer of the expression IR: a tree as TVM / TileLang print index expressions, read back by
``layoutcheck.expr.parse`` in its ``tir`` dialect.

One table (``TIR_ALU``) from operation to text, applied by ``layoutcheck.expr.ir.fold``; every operation is fully
parenthesised, ``//`` and ``%`` are TIR's floor operations (``FloorDiv``, ``FloorMod``), bit operations are TIR's
calls. For example ``(i // 8) ^ (j % 8)`` prints as ``T.bitwise_xor((i // 8), (j % 8))``. Used to write a TileLang
value back in its own ``repr`` form (``layoutcheck.importers.tilelang.printout``).
"""

from __future__ import annotations

from collections.abc import Callable

from layoutcheck.expr.ir import Expr, fold


def _call(name: str) -> Callable[..., str]:
    return lambda *a: f"T.{name}(" + ", ".join(map(str, a)) + ")"


def _bin(sym: str) -> Callable[[str, str | int], str]:
    return lambda a, b: f"({a} {sym} {b})"


TIR_ALU: dict[str, Callable[..., str]] = {
    "const": str, "var": lambda name, upper: name, "add": lambda *t: "(" + " + ".join(t) + ")",
    "sub": _bin("-"), "mul": _bin("*"), "div": _bin("//"), "mod": _bin("%"), "neg": lambda a: f"(0 - {a})",
    "xor": _call("bitwise_xor"), "and": _call("bitwise_and"), "or": _call("bitwise_or"), "not": _call("bitwise_not"),
    "shr": _call("shift_right"), "shl": _call("shift_left"),
}
"""Operation -> TIR text."""


def tir_expr(e: Expr) -> str:
    """TIR text of ``e``.

    Pre: none. Post: ``parse(tir_expr(e), dialect="tir")`` has ``e``'s value at every point.

    >>> from layoutcheck.expr.ir import var
    >>> tir_expr((var("_j", 64) // 8) ^ (var("_i", 64) % 8))
    'T.bitwise_xor((_j // 8), (_i % 8))'
    """
    return fold(e, TIR_ALU)


__all__ = ["TIR_ALU", "tir_expr"]
