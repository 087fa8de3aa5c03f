"""Index formulas: a layout written as an integer expression over named coordinates, as kernels write their swizzles,
paddings and scale-tensor offsets (``i*64 + ((j/8 + i) % 8)*8 + j%8``).

Definition. An *index formula* ``F`` is an expression ``e`` of the IR (``layoutcheck.expr.ir``, parsed by
``layoutcheck.expr.parse`` from C or Python text: ``/`` and ``//`` floor, ``%`` floor, ``^ & | << >>``) over named
coordinates ``c_0, c_1, ..., c_{r-1}`` with extents ``n_0, ..., n_{r-1}``. Its domain is read as CuTe reads a
layout's: **colexicographically, the first coordinate fastest**, so the flat index of a point is
``i = c_0 + n_0*c_1 + n_0*n_1*c_2 + ...`` and ``F(i) = e(c_0, c_1, ...)``. A formula over ``{ j = 64, i = 8 }`` is
the layout of shape ``(64, 8)``: ``j`` is mode 0 (the column inside a row), ``i`` mode 1 (the row).

Worked example: the rotation swizzle ``i*64 + ((j/8 + i) % 8)*8 + j%8`` over ``{ j = 64, i = 8 }`` stores row ``i``'s
8-element chunk ``q = j/8`` at chunk ``(q + i) % 8`` of the row; it is a bijection onto ``[0, 512)``, but not
XOR-linear (it adds), so no ``Sw<B,M,S>`` and no Triton linear layout has this map:

    ======  =====  =======================  =====
    (j, i)  i      chunk ``(j/8 + i) % 8``   F
    ======  =====  =======================  =====
    (0, 0)  0      0                        0
    (8, 0)  8      1                        8
    (0, 1)  64     1                        72
    (56, 1) 120    0                        64
    ======  =====  =======================  =====

Edge cases: a formula may take negative values or leave ``[0, size)`` (``in_bounds`` / ``bijective`` refute it); a
division or modulus by zero at some point is the formula's fault and surfaces when it is evaluated there; a name
that is not a coordinate is an error naming the known ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np

from layoutcheck.errors import LayoutError
from layoutcheck.expr.ir import Expr
from layoutcheck.expr.numpy import evaluate
from layoutcheck.expr.parse import as_number, parse

MAX_FORMULA_POINTS = 1 << 40
"""The largest domain a formula may declare (decided exhaustively up to the memory budget, by Z3 beyond)."""


@dataclass(frozen=True, slots=True)
class IndexFormula:
    """``text`` over ``coords`` (``(name, extent)`` pairs, first fastest) -> the integer ``expr`` (its IR tree).

    >>> f = parse_formula("i*64 + ((j/8 + i) % 8)*8 + j%8", {"j": 64, "i": 8})
    >>> f.size, f(8), f(64 + 56)
    (512, 8, 64)
    """

    text: str
    coords: tuple[tuple[str, int], ...]
    expr: Expr

    @property
    def size(self) -> int:
        return prod(n for _, n in self.coords)

    @property
    def domain(self) -> tuple[tuple[str, int], ...]:
        """``(name, extent)`` pairs, first fastest (as a TileLang map's ``domain``)."""
        return self.coords

    @property
    def shape(self) -> tuple[int, ...]:
        """The extents, first fastest: the CuTe shape of the formula's domain."""
        return tuple(n for _, n in self.coords)

    def point(self, i: int) -> dict[str, int]:
        """Flat index ``i`` as ``{name: coordinate}`` (colexicographic)."""
        out = {}
        for name, n in self.coords:
            out[name] = i % n
            i //= n
        return out

    def at(self, idx: np.ndarray) -> np.ndarray:
        """``F`` at the flat indices ``idx`` (int64)."""
        env: dict[str, Any] = {}
        rest = np.asarray(idx, dtype=np.int64)
        for name, n in self.coords:
            env[name], rest = rest % n, rest // n
        try:
            out = np.asarray(evaluate(self.expr, env), dtype=np.int64)
        except ZeroDivisionError:
            raise LayoutError(f"{self} divides by zero at {self._first_zero_division(np.asarray(idx))}") from None
        return np.broadcast_to(out, np.shape(idx)).copy()

    def _first_zero_division(self, idx: np.ndarray) -> str:
        for i in idx.reshape(-1).tolist():
            try:
                evaluate(self.expr, self.point(int(i)))
            except ZeroDivisionError:
                return self.show(int(i))
        return "some point"  # pragma: no cover -- the vectorised evaluation raised at one of them

    def __call__(self, i: int) -> int:
        if not 0 <= i < self.size:
            raise LayoutError(f"index {i} outside the formula's domain [0, {self.size})")
        try:
            return int(evaluate(self.expr, self.point(i)))
        except ZeroDivisionError:
            raise LayoutError(f"{self} divides by zero at {self.show(i)}") from None

    def offsets(self, dtype: Any = None) -> np.ndarray:
        """``F(i)`` for every ``i`` in ``[0, size)``."""
        out = self.at(np.arange(self.size, dtype=np.int64))
        return out if dtype is None else out.astype(dtype)

    def show(self, i: int) -> str:
        """Flat index ``i`` in the formula's coordinates: ``(j=8, i=1)``."""
        return "(" + ", ".join(f"{k}={v}" for k, v in self.point(i).items()) + ")"

    def __str__(self) -> str:
        return f"formula {self.text!r} over ({', '.join(f'{k}={n}' for k, n in self.coords)})"


def parse_formula(text: str, coords: Mapping[str, int] | Sequence[tuple[str, int]]) -> IndexFormula:
    """An index formula from its text and its coordinates' extents (first fastest).

    Pre: ``coords`` non-empty, names identifiers, extents positive ints; ``text`` uses only those names.
    Post: ``parse_formula(t, c)(i) == eval(t)`` at the colexicographic point ``i`` (``/`` floor).

    >>> parse_formula("r * 9 + c", {"c": 8, "r": 4})(9)
    10
    """
    pairs = tuple(coords.items()) if isinstance(coords, Mapping) else tuple(coords)
    if not pairs:
        raise LayoutError("an index formula needs its coordinates and extents, e.g. coords = { j = 64, i = 8 }")
    names = [k for k, _ in pairs]
    if len(set(names)) != len(names):
        raise LayoutError(f"repeated coordinate in {names}")
    for name, n in pairs:
        if not isinstance(name, str) or not name.isidentifier():
            raise LayoutError(f"bad coordinate name {name!r}")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise LayoutError(f"coordinate {name!r}: extent must be a positive int, found {n!r}")
    if prod(n for _, n in pairs) > MAX_FORMULA_POINTS:
        raise LayoutError(f"the formula's domain has more than 2**40 points ({' x '.join(str(n) for _, n in pairs)})")
    expr = as_number(parse(text, dict(pairs)))
    return IndexFormula(" ".join(text.split()), pairs, expr)


__all__ = ["MAX_FORMULA_POINTS", "IndexFormula", "parse_formula"]
