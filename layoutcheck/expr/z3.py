"""The Z3 interpreter of the expression IR: a tree becomes a bit-vector term through ONE table (``z3_alu``).

As in tinygrad's ``uop/validate.py``, each operation maps to a term constructor; ``to_z3`` folds the tree through
the table. Terms are ``width``-bit vectors read in two's complement; the caller picks ``width`` large enough that no
value of the tree overflows (``layoutcheck.engines.z3.width_for``), so bit-vector arithmetic is integer arithmetic.
Division and modulus are floor operations as in the IR: ``UDiv``/``URem`` when the operand is ``nonneg`` (z3 turns
them into bit extracts for powers of two), the floor forms built from ``bvsmod`` (z3's ``%``)
otherwise. ``>>`` is arithmetic (Python's ``>>`` on negative ints). Z3 is imported only when a term is built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import reduce
from typing import Any

from layoutcheck.expr.ir import Expr, creation_order, fold


def z3_alu(z3: Any) -> dict[str, Callable[..., Any]]:
    """Operation -> Z3 term constructor (operands are bit-vector terms of one width)."""
    return {
        "add": lambda *t: reduce(lambda a, b: a + b, t), "sub": lambda a, b: a - b, "neg": lambda a: -a,
        "mul": lambda a, b: a * b, "div": z3.UDiv, "mod": z3.URem,
        "sdiv": lambda a, b: (a - a % b) / b,  # bvsmod: sign of b, so floor; then an exact bvsdiv
        "smod": lambda a, b: a % b, "xor": lambda a, b: a ^ b, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
        "not": lambda a: ~a, "shr": lambda a, b: a >> b, "shl": lambda a, b: a << b,
        "ceil_div": lambda a, b: z3.UDiv(a + b - 1, b), "sceil_div": lambda a, b: (a + b - 1 - (a + b - 1) % b) / b,
        "min": lambda a, b: z3.If(a < b, a, b), "max": lambda a, b: z3.If(a < b, b, a), "lt": lambda a, b: a < b,
        "ite": z3.If, "land": z3.And, "lor": z3.Or, "lnot": z3.Not,
    }


def z3_int_alu(z3: Any) -> dict[str, Callable[..., Any]]:
    """Operation -> Z3 *integer* term constructor (size arithmetic: unbounded ``Int`` terms, ``div``/``mod`` floor
    for the non-negative operands sizes have); int constants stay Python ints, which Z3 lifts where they meet a
    term, so ``ceil_div(M, 128)`` is the term ``(M + 128 - 1) / 128``, and operands keep the order the formula
    wrote them in (``8 * GN`` stays ``8 * GN``: Z3's search, and so its time, depends on it)."""
    return {
        "add": lambda *t: reduce(lambda a, b: a + b, t), "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
        "div": lambda a, b: a / b, "mod": lambda a, b: a % b, "ceil_div": lambda a, b: (a + b - 1) / b,
        "min": lambda a, b: z3.If(a < b, a, b), "max": lambda a, b: z3.If(a < b, b, a), "lt": lambda a, b: a < b,
        "ite": z3.If, "land": z3.And, "lor": z3.Or, "lnot": z3.Not,
    }


def _corners(f: Callable[[int, int], int], a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """The range of ``f`` over a box where ``f`` is monotone in each argument: its values at the four corners."""
    vs = [f(x, y) for x in a for y in b]
    return min(vs), max(vs)


def _floor_range(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    if b[0] <= 0 <= b[1]:
        raise ValueError("a divisor whose range holds 0")
    return _corners(lambda x, y: x // y, a, b)


def _mod_range(b: tuple[int, int]) -> tuple[int, int]:
    """Floor ``x mod y`` has the sign of ``y`` and ``|x mod y| < |y|``."""
    _floor_range((0, 0), b)
    return min(0, b[0] + 1), max(0, b[1] - 1)


def _bits_range(*rs: tuple[int, int]) -> tuple[int, int]:
    """A range of ``&``/``|``/``^`` of operands in ``rs``: ``[0, 2^b)`` when none is negative, else ``[-2^b, 2^b)``."""
    b = max(max(abs(lo), abs(hi)) for lo, hi in rs).bit_length()
    return (0 if all(lo >= 0 for lo, _ in rs) else -(1 << b)), (1 << b) - 1


_RANGE: dict[str, Callable[..., tuple[int, int]]] = {
    "const": lambda v: (v, v), "var": lambda name, upper: (0, upper - 1),
    "add": lambda *r: (sum(lo for lo, _ in r), sum(hi for _, hi in r)), "sub": lambda a, b: (a[0] - b[1], a[1] - b[0]),
    "neg": lambda a: (-a[1], -a[0]), "not": lambda a: (-a[1] - 1, -a[0] - 1),
    "mul": lambda a, b: _corners(lambda x, y: x * y, a, b), "div": _floor_range,
    "ceil_div": lambda a, b: (-_floor_range((-a[1], -a[0]), b)[1], -_floor_range((-a[1], -a[0]), b)[0]),
    "mod": lambda a, b: _mod_range(b),
    "xor": _bits_range, "or": _bits_range, "and": _bits_range,
    "shr": lambda a, b: _corners(lambda x, y: x >> y, a, (max(0, b[0]), max(0, b[1]))),
    "shl": lambda a, b: _corners(lambda x, y: x << y, a, (max(0, b[0]), max(0, b[1]))),
    "min": lambda a, b: (min(a[0], b[0]), min(a[1], b[1])), "max": lambda a, b: (max(a[0], b[0]), max(a[1], b[1])),
    "ite": lambda c, a, b: (min(a[0], b[0]), max(a[1], b[1])),
    "lt": lambda a, b: (0, 1), "land": lambda *c: (0, 1), "lor": lambda *c: (0, 1), "lnot": lambda a: (0, 1),
}
"""Operation -> the range ``[lo, hi]`` of its value from its operands' ranges (interval arithmetic, sound for every
integer value; a predicate's range is ``[0, 1]``)."""


def value_range(e: Expr, defined: bool = False) -> tuple[int, int]:
    """An interval ``[lo, hi]`` holding every value of ``e`` over its variables' ranges.

    ``defined``: only at the points where every division of ``e`` is defined -- a divisor's range loses a 0 at its
    end (``[0, n]`` is read ``[1, n]``), and a divisor whose range holds 0 inside gives the unbounded interval.
    Pre: unless ``defined``, no ``div``/``mod``/``ceil_div`` by an operand whose range holds 0 (else ``ValueError``).
    Post: ``lo <= evaluate(e, env) <= hi`` for every ``env`` with ``0 <= env[v] < upper(v)`` (where ``e`` is
    defined at ``env``).

    >>> from layoutcheck.expr.ir import var
    >>> value_range(var("i", 8) - var("j", 4) * 3)
    (-9, 7)
    """
    return fold(e, _DEFINED_RANGE if defined else _RANGE, lift=lambda k: (k, k))


def _defined(b: tuple[int, int]) -> tuple[int, int] | None:
    """A divisor's range where the division is defined: without 0 at its ends; ``None`` if 0 lies inside."""
    lo, hi = (1 if b[0] == 0 else b[0]), (-1 if b[1] == 0 else b[1])
    return None if lo <= 0 <= hi or lo > hi else (lo, hi)


_ANY = (-(1 << 64), 1 << 64)


def _defined_div(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    d = _defined(b)
    return _ANY if d is None else _floor_range(a, d)


_DEFINED_RANGE: dict[str, Callable[..., tuple[int, int]]] = {
    **_RANGE, "div": _defined_div,
    "mod": lambda a, b: _ANY if _defined(b) is None else _mod_range(_defined(b)),  # type: ignore[arg-type]
    "ceil_div": lambda a, b: (-_defined_div((-a[1], -a[0]), b)[1], -_defined_div((-a[1], -a[0]), b)[0]),
}


def width_of(*exprs: Expr, extra: int = 0) -> int:
    """Bits so that ``to_z3`` of every ``exprs`` (each sub-tree, and the ``a + b`` inside ``ceil_div``) and the
    integer ``extra`` never overflow: the widest sub-tree's magnitude, a sign bit and a margin.

    >>> from layoutcheck.expr.ir import var
    >>> width_of(var("i", 256) * 4)
    13
    """
    memo: dict[Expr, tuple[int, int]] = {}
    for e in exprs:
        fold(e, _RANGE, lift=lambda k: (k, k), memo=memo)
    return max([abs(extra).bit_length(), *(abs(v).bit_length() for r in memo.values() for v in r)]) + 3


def _key(x: Expr) -> str:
    """``div``/``mod``/``ceil_div`` of an operand that may be negative take the floor forms (``sdiv``...)."""
    if x.op in ("div", "mod", "ceil_div") and not all(o.nonneg for o in x.operands if isinstance(o, Expr)):
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


def to_z3_int(e: Expr | int | bool, env: Mapping[str, Any], ctx: Any = None,
              memo: dict[Expr, Any] | None = None) -> Any:
    """The Z3 integer (or, for a predicate, Boolean) term of ``e`` over ``env`` (variable name -> ``Int`` term);
    a plain int stays an int, a plain bool becomes ``BoolVal``; ``memo`` as in ``to_z3``.

    Pre: every ``div``/``mod`` of ``e`` has non-negative operands (where Z3's ``div`` is floor division).
    Post: for every model, the term's value equals ``layoutcheck.expr.numpy.evaluate(e, model)``.

    >>> import z3
    >>> from layoutcheck.expr.ir import ceil_div, var
    >>> m = z3.Int("M")
    >>> z3.simplify(z3.substitute(to_z3_int(ceil_div(var("M", 2048), 128), {"M": m}), (m, z3.IntVal(1000)))).as_long()
    8
    """
    return to_z3_ints((e,), env, ctx, memo)[0]


def to_z3_ints(roots: Sequence[Expr | int | bool], env: Mapping[str, Any], ctx: Any = None,
               memo: dict[Expr, Any] | None = None) -> list[Any]:
    """``to_z3_int`` of several trees at once, their terms built in the order the formulas built their nodes
    (``creation_order``): Z3's search, and so its time, depends on the order its terms were created, so a formula
    read through the IR is solved as it was when written straight over Z3 terms."""
    import z3

    def lookup(name: str, upper: int) -> Any:
        return env[name]

    table = {**z3_int_alu(z3), "const": lambda v: v, "var": lookup}
    memo = {} if memo is None else memo
    for node in creation_order(*(r for r in roots if isinstance(r, Expr))):
        fold(node, table, memo=memo)
    return [memo[r] if isinstance(r, Expr) else z3.BoolVal(r, ctx=ctx) if isinstance(r, bool) else r for r in roots]
