"""Integer arithmetic over problem sizes, written once and read by two interpreters: Python ints and Z3.

Ragged-problem models (``residue``, ``schedulers``) state their index math -- tile counts, tile coordinates,
predicates -- as functions of an ``IntOps`` value. ``PY`` evaluates them on ints (the exhaustive engine, re-checks,
code generation); the Z3 engine passes its own ``IntOps`` whose operations build terms, so the formula proven for
*every* size is the very one evaluated for one size. All operands are non-negative, where floor division, C++'s
``/`` and Z3's ``div`` agree.

    >>> PY.ceil_div(1000, 128), PY.div(1000, 128), PY.min(3, 5)
    (8, 7, 3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class IntOps:
    """The operations a size formula may use; this base class is the Python-int interpreter."""

    def div(self, a: Any, b: Any) -> Any:
        return a // b

    def mod(self, a: Any, b: Any) -> Any:
        return a % b

    def ceil_div(self, a: Any, b: Any) -> Any:
        return self.div(a + b - 1, b)

    def min(self, a: Any, b: Any) -> Any:
        return self.ite(self.lt(a, b), a, b)

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        return a if c else b

    def lt(self, a: Any, b: Any) -> Any:
        return a < b

    def all(self, *cs: Any) -> Any:
        return all(cs)

    def any(self, *cs: Any) -> Any:
        return any(cs)

    def not_(self, c: Any) -> Any:
        return not c


PY = IntOps()
"""The Python-int interpreter."""


@dataclass(frozen=True, slots=True)
class NumpyOps(IntOps):
    """The same operations on NumPy arrays, elementwise (the exhaustive engine's interpreter)."""

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        import numpy as np

        return np.where(c, a, b)

    def all(self, *cs: Any) -> Any:
        import numpy as np

        return np.logical_and.reduce(cs) if cs else True

    def any(self, *cs: Any) -> Any:
        import numpy as np

        return np.logical_or.reduce(cs) if cs else False

    def not_(self, c: Any) -> Any:
        import numpy as np

        return np.logical_not(c)


NP = NumpyOps()
"""The NumPy interpreter (elementwise over arrays of sizes or indices)."""
