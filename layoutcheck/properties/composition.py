"""Composition's contract as a claim: ``R`` is the composition ``A o B`` when ``R(i) == A(B(i))`` for every ``i``.

CuTe's ``composition(A, B)`` promises (``layout.hpp``: ``@post For all i, 0 <= i < size(B), R(i) == A(B(i))``) a
layout ``R`` with the domain of ``B`` that computes ``A`` after ``B``. An implementation that admits a pair it
cannot compose returns a layout that breaks this; ``composes(R, A, B)`` states the promise for a given ``R`` (what a
library printed, or what ``composition`` computes here) and the exhaustive engine evaluates both sides everywhere.

``A`` is evaluated as C++ evaluates a layout past its domain (the last mode takes the remainder, ``extended``), so
``B`` may index beyond ``size(A)`` as CuTe allows. Worked example (NVIDIA/cutlass#3177): CuTe C++ composes
``A = (4,6,8):(2,3,5)`` with ``B = 6:3`` into ``R = (2,3):(6,3)``; ``B(2) = 6`` is ``A``'s coordinate ``(2,1,0)``,
``A(6) = 2*2 + 3*1 = 7``, but ``R(2) = R(0,1) = 3``:

    ===  ====  =====  ====
    i    B(i)  A(B)   R(i)
    ===  ====  =====  ====
    0    0     0      0
    1    3     6      6
    2    6     7      3     <- the first index where R is not A o B
    ===  ====  =====  ====
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.layout import Layout, extended, extended_offsets, format_inttuple
from layoutcheck.algebra.notation import as_subject
from layoutcheck.algebra.swizzle import ComposedLayout, Subject
from layoutcheck.errors import LayoutError
from layoutcheck.properties.base import Decision, Property, at, offset_range, subject_size


def _outer_at(a: Subject, j: int) -> int:
    """``A(j)`` as C++ evaluates it, ``j`` past ``size(A)`` included."""
    if isinstance(a, ComposedLayout):
        return a.swizzle(a.offset + extended(a.layout, j))
    return extended(a, j)


def _outer_offsets(a: Subject, idx: np.ndarray) -> np.ndarray:
    """``A(j)`` for every ``j`` of ``idx`` (non-negative), vectorised like ``_outer_at``."""
    lay = a.layout if isinstance(a, ComposedLayout) else a
    table = extended_offsets(lay, int(idx.max()) + 1 if idx.size else 0)
    out = table[idx]
    if isinstance(a, ComposedLayout):
        out = a.swizzle.apply_inplace(out + a.offset)
    return out


@dataclass(frozen=True, slots=True)
class Composes(Property):
    """``size(R) == size(B)`` and ``R(i) == A(B(i))`` for every ``i`` in ``[0, size(B))``: ``R`` is ``A o B``."""

    result: Subject
    a: Subject
    b: Subject
    name: ClassVar[str] = "composes"
    bytes_per_point: ClassVar[int] = 32

    def __post_init__(self) -> None:
        for key, what in (("result", "composes: R"), ("a", "composes: A"), ("b", "composes: B")):
            object.__setattr__(self, key, as_subject(getattr(self, key), what))
        if offset_range(self.b)[0] < 0:
            raise LayoutError(f"composes: B = {self.b} reaches negative offsets, where A is not defined")

    def subjects(self) -> tuple[Subject, ...]:
        return (self.result, self.b)

    def subject(self) -> str:
        return f"{self.result}, {self.a} o {self.b}"

    def size_witness(self) -> dict[str, Any] | None:
        nr, nb = subject_size(self.result), subject_size(self.b)
        return None if nr == nb else {"kind": "size", "size_r": nr, "size_b": nb}

    def exhaustive(self) -> Decision:
        sw = self.size_witness()
        if sw is not None:
            return Decision(False, sw)
        rb = np.asarray(self.b.offsets(), dtype=np.int64)
        diff = np.flatnonzero(np.asarray(self.result.offsets(), dtype=np.int64) != _outer_offsets(self.a, rb))
        stats = {"differing": int(diff.size)}
        return Decision(True, None, stats) if diff.size == 0 else Decision(False, {"kind": "differ", "i": int(diff[0])},
                                                                            stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        if w["kind"] == "size":
            return w == self.size_witness()
        i = w["i"]
        return 0 <= i < subject_size(self.b) == subject_size(self.result) and \
            self.result(i) != _outer_at(self.a, self.b(i))

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "size":
            return f"size(R) = {w['size_r']} but size(B) = {w['size_b']}: R is not defined on the domain of B"
        i = w["i"]
        j = self.b(i)
        return f"index {i}: R{at(self.result, i)} but B{at(self.b, i)} and A({j}) = A{_outer_coord(self.a, j)}"


def _outer_coord(a: Subject, j: int) -> str:
    """``(crd) -> A(j)`` with ``j``'s coordinate in ``A`` (the last mode taking any remainder, as C++ does)."""
    lay = a.layout if isinstance(a, ComposedLayout) else a
    crd = format_inttuple(_extended_crd(j, lay))
    return f"{crd if crd.startswith('(') else f'({crd})'} -> {_outer_at(a, j)}"


def _extended_crd(j: int, lay: Layout) -> Any:
    """The flat coordinate of index ``j`` in ``lay``'s leaves, the last leaf unbounded."""
    from layoutcheck.algebra.inttuple import flatten

    shape = flatten(lay.shape)
    crd = []
    for s in shape[:-1]:
        crd.append(j % s)
        j //= s
    crd.append(j)
    return tuple(crd) if len(crd) > 1 else crd[0]


def composes(result: Any, a: Any, b: Any) -> Composes:
    """Claim: ``result`` is the composition ``a o b`` (``result(i) == a(b(i))`` on the domain of ``b``).

    Pre: ``b``'s offsets are non-negative. Post: PROVEN iff ``size(result) == size(b)`` and the two sides agree at
    every index.

    >>> composes(Layout((2, 3), (6, 3)), Layout((4, 6, 8), (2, 3, 5)), Layout(6, 3)).exhaustive().witness
    {'kind': 'differ', 'i': 2}
    """
    return Composes(result, a, b)


__all__ = ["Composes", "composes"]
