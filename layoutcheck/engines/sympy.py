"""The SymPy engine: closed-form index formulas (``layoutcheck.expr``) compared symbolically.

``index_ast(L, "i")`` (``layoutcheck.expr.lower``) is ``L(i)`` as a floor/mod/XOR expression over a bounded
variable, already simplified with the bounds (``(4,(2,2)):(1,(4,8))`` becomes ``i``); ``to_sympy``
(``layoutcheck.expr.sympy``) makes it a SymPy expression.

- ``equivalent(A, B)``: PROVEN when ``A(i) - B(i)`` simplifies to ``0``; otherwise REFUTED only if one of a fixed set
  of probe indices (``0..255``, powers of two and their neighbours, the last index) really differs -- a concrete,
  re-checked witness -- and UNKNOWN if none does (SymPy could not decide; probing can never prove).
- ``in_bounds(L, e)``: PROVEN when the expression's proven bound is ``<= e``; REFUTED by probing; else UNKNOWN.

Everything else is declined. SymPy cannot be interrupted, so a decision that overran the timeout is UNKNOWN.
"""

from __future__ import annotations

import time
from typing import Any

from layoutcheck.algebra.swizzle import Subject
from layoutcheck.engines.base import HandlerEngine, Limits, register_engine
from layoutcheck.errors import LayoutError
from layoutcheck.properties.base import Decision, Property, Undecided, subject_size
from layoutcheck.properties.layout import Equivalent, InBounds
from layoutcheck.witness_maps import Differ, OutOfRange

MAX_OPS = 400
"""Expressions with more operations than this are not handed to ``sympy.simplify`` (it can take minutes)."""


def probes(n: int) -> list[int]:
    """Deterministic probe indices in ``[0, n)``, increasing."""
    pts = set(range(min(n, 256)))
    b = 1
    while b < n:
        pts.update(p for p in (b - 1, b, b + 1) if p < n)
        b <<= 1
    pts.add(n - 1)
    return sorted(pts)


def _ast(x: Subject) -> Any:
    from layoutcheck.expr.lower import index_ast

    return index_ast(x, "i")


class SympyEngine(HandlerEngine):
    def precondition(self, prop: Property) -> str | None:
        try:
            import sympy  # noqa: F401

            for s in prop.subjects():
                _ast(s)
        except ImportError:
            return "unsupported: sympy or layoutcheck.expr.sympy is not available"
        except LayoutError as exc:
            return f"unsupported construct: {exc}"
        return None


SYMPY = register_engine(SympyEngine("sympy"))


def _timed(outcome: Decision | Undecided, t0: float, limits: Limits) -> Decision | Undecided:
    elapsed = time.perf_counter() - t0
    if isinstance(outcome, Decision) and outcome.holds and elapsed > limits.timeout:
        return Undecided(f"timeout: SymPy took {elapsed:.2f} s > {limits.timeout} s", outcome.stats)
    return outcome


@SYMPY.handles(Equivalent)
def _equivalent(prop: Equivalent, limits: Limits) -> Decision | Undecided:
    sw = prop.size_witness()
    if sw is not None:  # sizes alone refute it
        return Decision(False, sw)
    import sympy

    from layoutcheck.expr.sympy import to_sympy

    t0 = time.perf_counter()
    i = sympy.Symbol("i", integer=True, nonnegative=True)
    ea = to_sympy(_ast(prop.a), {"i": i})
    eb = to_sympy(_ast(prop.b), {"i": i})
    stats = {"A": str(ea), "B": str(eb)}
    diff = sympy.expand(ea - eb)
    if diff != 0 and sympy.count_ops(diff) <= MAX_OPS:
        diff = sympy.simplify(diff)
    for k in probes(subject_size(prop.a)):  # first: a simplification to 0 that a probe contradicts is SymPy's error
        if prop.a(k) != prop.b(k):
            return Decision(False, Differ(k), stats)
    if diff == 0:
        return _timed(Decision(True, None, stats), t0, limits)
    return Undecided(f"SymPy could not decide: A - B = {diff} does not simplify to 0 and no probe index differs",
                     stats)


@SYMPY.handles(InBounds)
def _in_bounds(prop: InBounds, limits: Limits) -> Decision | Undecided:
    from layoutcheck.expr.sympy import to_sympy

    t0 = time.perf_counter()
    ast = _ast(prop.layout)
    stats = {"formula": str(to_sympy(ast)), "bound": ast.bound}
    if ast.bound <= prop.extent:  # symbolic: every node's value lies in [0, bound)
        return _timed(Decision(True, None, stats), t0, limits)
    for k in probes(subject_size(prop.layout)):
        if not 0 <= prop.layout(k) < prop.extent:
            return Decision(False, OutOfRange(k), stats)
    return Undecided(f"SymPy could not decide: the formula's bound {ast.bound} exceeds {prop.extent} and no probe "
                     "index is out of bounds", stats)
