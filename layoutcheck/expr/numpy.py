"""The NumPy interpreter of the expression IR: values on ints or integer arrays (broadcast together).

One table from operation to NumPy function (``ALU``), applied by ``layoutcheck.expr.ir.fold``. Division and
modulus are floor operations (Python's ``//`` and ``%``), as in the IR. ``evaluate(e, env, bits=32)`` reduces
every intermediate value modulo ``2**32`` -- the semantics of C ``unsigned`` arithmetic, used to check generated
kernel expressions (``layoutcheck.expr.c.eval_c``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from functools import reduce
from typing import Any

import numpy as np

from layoutcheck.errors import LayoutError
from layoutcheck.expr.ir import Expr, fold


def _div(a: Any, b: Any) -> Any:
    if np.any(np.asarray(b) == 0):
        raise ZeroDivisionError("expression divides by zero")
    return a // b


def _mod(a: Any, b: Any) -> Any:
    if np.any(np.asarray(b) == 0):
        raise ZeroDivisionError("expression takes a modulus by zero")
    return a % b


ALU: dict[str, Callable[..., Any]] = {
    "const": lambda v: v, "add": lambda *t: reduce(operator.add, t), "sub": operator.sub, "neg": operator.neg,
    "mul": operator.mul, "div": _div, "mod": _mod, "xor": operator.xor, "and": operator.and_, "or": operator.or_,
    "not": operator.invert, "shr": operator.rshift, "shl": operator.lshift,
    "ceil_div": lambda a, b: _div(a + b - 1, b), "min": np.minimum, "max": np.maximum, "lt": operator.lt,
    "ite": np.where, "land": lambda *c: reduce(np.logical_and, c), "lor": lambda *c: reduce(np.logical_or, c),
    "lnot": np.logical_not,
}
"""Operation -> NumPy (or Python int) function; ``var`` is looked up in the environment."""


def evaluate(e: Expr | int, env: Mapping[str, Any], bits: int | None = None) -> Any:
    """Value of ``e`` with ``env`` giving each variable (ints or NumPy integer arrays, broadcast together); with
    ``bits``, every intermediate value is reduced modulo ``2**bits`` (unsigned C arithmetic, as ``uint64``). A plain
    int or bool (a formula that folded to a constant, ``layoutcheck.expr.ir.Size``) is its own value.

    >>> from layoutcheck.algebra.layout import Layout
    >>> from layoutcheck.expr.lower import index_ast
    >>> evaluate(index_ast(Layout((4, 2), (2, 1))), {"i": np.arange(8)}).tolist()
    [0, 2, 4, 6, 1, 3, 5, 7]
    """
    if not isinstance(e, Expr):
        return e

    def lookup(name: str, upper: int) -> Any:
        if name not in env:
            raise LayoutError(f"expression uses unknown variable {name!r}; known: {', '.join(env) or '(none)'}")
        return env[name]

    if bits is None:
        return fold(e, {**ALU, "var": lookup})
    m = (1 << bits) - 1

    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        def g(*a: Any) -> Any:
            with np.errstate(over="ignore"):  # wrap-around is the point
                return np.asarray(f(*a)).astype(np.uint64) & np.uint64(m)

        return g

    def shift(f: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        return lambda a, b: f(a, np.asarray(b).astype(np.uint64) & np.uint64(bits - 1))  # C: count mod width

    table = {k: wrap(f) for k, f in ALU.items()}
    table.update(shr=wrap(shift(operator.rshift)), shl=wrap(shift(operator.lshift)),
                 const=lambda v: np.uint64(v & m), var=lambda n, u: np.asarray(lookup(n, u)).astype(np.uint64) & m)
    return fold(e, table, lift=lambda k: np.uint64(k & m))


def offsets_of(e: Expr, domain: Sequence[tuple[str, int]]) -> np.ndarray:
    """``e`` at every point of ``domain`` (``(name, upper)`` pairs, the first fastest: colex), as int64.

    >>> from layoutcheck.algebra.layout import Layout
    >>> from layoutcheck.expr.lower import index_ast
    >>> offsets_of(index_ast(Layout((4, 2), (2, 1)), ("a", "b")), [("a", 4), ("b", 2)]).tolist()
    [0, 2, 4, 6, 1, 3, 5, 7]
    """
    axes = [np.arange(u, dtype=np.int64) for _, u in domain]
    grids = np.meshgrid(*axes, indexing="ij") if axes else []
    env = {n: g for (n, _), g in zip(domain, grids, strict=True)}
    shape = tuple(u for _, u in domain)
    vals = np.broadcast_to(np.asarray(evaluate(e, env), dtype=np.int64), shape)
    return vals.transpose().reshape(-1)
