"""TMA multicast in a thread-block cluster: which CTA's TMA writes which rows of an operand tile into which CTAs.

In a ``CM x CN`` cluster (CTA ``(x, y)``, rank ``x + y * CM`` as ``cute::block_rank_in_cluster`` numbers them) the
CTAs that compute the same M-block (``x``) need the same A tile and those of the same N-block (``y``) the same B
tile. With multicast each CTA loads a slice of its own tile (``slice_start``, ``slice_rows`` rows of the ``extent``
it needs) and its TMA writes that slice into every CTA of its ``mask`` (bit ``r``: the CTA of rank ``r``) at the
same place (PTX ISA, ``cp.async.bulk.tensor`` ``.multicast::cluster``: the data lands at the same shared offset in
each destination CTA). CUTLASS's SM90 collectives split A's box over the ``CN`` CTAs of a row and multicast along
the row (``make_tma_copy`` with ``size<1>(ClusterShape)`` multicast CTAs), B's over the ``CM`` CTAs of a column.

A CTA's tile id (``needs``, default ``x`` for A and ``y`` for B) says which data it needs; a slice written into CTA
``d`` by CTA ``c`` carries ``c``'s tile. ``writes()`` lists every (destination, row, issuer) triple.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from layoutcheck.errors import LayoutError
from layoutcheck.expr.ir import Expr
from layoutcheck.expr.numpy import evaluate
from layoutcheck.expr.parse import parse

FORMULAS = ("slice_start", "slice_rows", "mask", "needs")


def default_formula(name: str, operand: str) -> str:
    """CUTLASS's SM90 split: A over the row's ``CN`` CTAs (slice ``y``), multicast to every ``(x, j)``; B over the
    column's ``CM`` CTAs (slice ``x``), multicast to every ``(i, y)``."""
    a = operand == "A"
    return {"slice_start": "y * (MN / CN)" if a else "x * (MN / CM)",
            "slice_rows": "MN / CN" if a else "MN / CM",
            "mask": "row_mask << x" if a else "column_mask << (y * CM)",
            "needs": "x" if a else "y"}[name]


@dataclass(frozen=True)
class Multicast:
    """An operand's multicast in a ``cluster = (CM, CN)``: each CTA needs ``extent`` rows; the four formulas of
    ``x``, ``y`` (also ``CM``, ``CN``, ``MN`` = ``extent``, and ``row_mask`` / ``column_mask``: the bits of every
    CTA of row 0 / column 0)."""

    cluster: tuple[int, int]
    operand: str
    extent: int
    slice_start: str = ""
    slice_rows: str = ""
    mask: str = ""
    needs: str = ""

    def __post_init__(self) -> None:
        if len(self.cluster) != 2 or min(self.cluster) < 1 or self.cluster[0] * self.cluster[1] > 16:
            raise LayoutError(f"multicast: cluster must be [CM, CN] of at most 16 CTAs, found {list(self.cluster)}",
                              key="cluster")
        if self.operand not in ("A", "B"):
            raise LayoutError(f"multicast: operand must be A or B, found {self.operand!r}", key="operand")
        if self.extent < 1:
            raise LayoutError(f"multicast: extent must be positive, found {self.extent}", key="extent")
        for name in FORMULAS:
            if not getattr(self, name):
                object.__setattr__(self, name, default_formula(name, self.operand))
            self.formula(name)

    @property
    def ctas(self) -> int:
        return self.cluster[0] * self.cluster[1]

    def env(self) -> dict[str, np.ndarray]:
        cm, cn = self.cluster
        rank = np.arange(self.ctas, dtype=np.int64)
        row = sum(1 << (j * cm) for j in range(cn))  # CTAs (0, j): bits 0, CM, 2 CM, ...
        col = (1 << cm) - 1  # CTAs (i, 0)
        full = lambda v: np.full(self.ctas, v, dtype=np.int64)  # noqa: E731
        return {"x": rank % cm, "y": rank // cm, "CM": full(cm), "CN": full(cn), "MN": full(self.extent),
                "row_mask": full(row), "column_mask": full(col)}

    def formula(self, name: str) -> Expr:
        bounds = {"x": self.cluster[0], "y": self.cluster[1], "CM": self.cluster[0] + 1, "CN": self.cluster[1] + 1,
                  "MN": self.extent + 1, "row_mask": 1 << 16, "column_mask": 1 << 16}
        try:
            return parse(getattr(self, name), bounds)
        except LayoutError as e:
            raise LayoutError(f"multicast: {name} = {getattr(self, name)!r}: {e}", key=name) from None

    @cached_property
    def per_cta(self) -> dict[str, np.ndarray]:
        """Each CTA's (by rank) slice start and rows, mask and tile id."""
        env = self.env()
        return {n: np.broadcast_to(np.asarray(evaluate(self.formula(n), env), dtype=np.int64), (self.ctas,))
                for n in FORMULAS}

    def writes(self) -> list[tuple[int, int, int]]:
        """Every ``(destination rank, row, issuer rank)`` a TMA of the cluster performs (rows may fall outside
        ``0 .. extent-1``; destinations are the mask's bits, any bit past the cluster included)."""
        t = self.per_cta
        out = []
        for c in range(self.ctas):
            rows = range(int(t["slice_start"][c]), int(t["slice_start"][c]) + max(0, int(t["slice_rows"][c])))
            m = int(t["mask"][c])
            dests = [d for d in range(max(m.bit_length(), 0)) if m >> d & 1] if m >= 0 else [-1]
            out += [(d, r, c) for d in dests for r in rows]
        return out


__all__ = ["FORMULAS", "Multicast", "default_formula"]
