"""The Z3 interpreter of the expression IR: a tree becomes a bit-vector term through ONE table (``z3_alu``).

As in tinygrad's ``uop/validate.py``, each operation maps to a term constructor; ``to_z3`` folds the tree through
the table. Terms are ``width``-bit vectors read in two's complement; the caller picks ``width`` large enough that no
value of the tree overflows (``layoutcheck.engines.z3.width_for``), so bit-vector arithmetic is integer arithmetic.
Division and modulus are floor operations as in the IR: ``UDiv``/``URem`` when the operand is ``nonneg`` (z3 turns
them into bit extracts for powers of two), the floor forms built from ``bvsmod`` (z3's ``%``)
otherwise. ``>>`` is arithmetic (Python's ``>>`` on negative ints). Z3 is imported only when a term is built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import reduce
from typing import Any

from layoutcheck.expr.ir import Expr, fold


def z3_alu(z3: Any) -> dict[str, Callable[..., Any]]:
    """Operation -> Z3 term constructor (operands are bit-vector terms of one width)."""
    return {
        "add": lambda *t: reduce(lambda a, b: a + b, t), "sub": lambda a, b: a - b, "neg": lambda a: -a,
        "mul": lambda a, b: a * b, "div": z3.UDiv, "mod": z3.URem,
        "sdiv": lambda a, b: (a - a % b) / b,  # bvsmod: sign of b, so floor; then an exact bvsdiv
        "smod": lambda a, b: a % b, "xor": lambda a, b: a ^ b, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
        "not": lambda a: ~a, "shr": lambda a, b: a >> b, "shl": lambda a, b: a << b,
    }


def _key(x: Expr) -> str:
    """``div``/``mod`` of an operand that may be negative take the floor forms (``sdiv``/``smod``)."""
    if x.op in ("div", "mod") and not all(o.nonneg for o in x.operands if isinstance(o, Expr)):
        return "s" + x.op
    return x.op


def to_z3(e: Expr, env: Mapping[str, Any], width: int, ctx: Any = None, memo: dict[Expr, Any] | None = None) -> Any:
    """The ``width``-bit Z3 term of ``e``; ``env`` maps each variable name to a term (a bit-vector of ``width``);
    ``memo`` (shared by calls with the same ``env``, ``width`` and ``ctx``) builds common sub-trees once.

    Pre: no value of ``e`` (or of a sub-tree) needs more than ``width - 1`` bits plus sign.
    Post: for every model, the term's signed value equals ``layoutcheck.expr.numpy.evaluate(e, model)``.

    >>> import z3
    >>> from layoutcheck.expr.ir import var
    >>> i = z3.BitVec("i", 8)
    >>> z3.simplify(z3.substitute(to_z3(var("i", 16) * 3 % 5, {"i": i}, 8), (i, z3.BitVecVal(4, 8)))).as_long()
    2
    """
    import z3

    def const(v: int) -> Any:
        return z3.BitVecVal(v, width, ctx=ctx)

    def lookup(name: str, upper: int) -> Any:
        return env[name]

    return fold(e, {**z3_alu(z3), "const": const, "var": lookup}, lift=const, key=_key, memo=memo)
