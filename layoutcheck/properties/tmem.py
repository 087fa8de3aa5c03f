"""Blackwell claims: TMEM epilogues, warp sub-partitions, allocations, packed cells, scale ownership (the descriptor
claims ``umma_describes`` and ``descriptor_fields`` live in ``layoutcheck.properties.descriptors``).

Definitions (each decided exhaustively with NumPy over its finite domain; a witness is re-checked before it is shown)::

    tmem_exact_cover(acc, loads)     every accumulator cell acc(m, n) is moved by exactly one (load, thread, element),
                                     and no load moves a cell outside the accumulator
    tmem_subpartition(loads)         warp w touches only lanes 32*(w % 4) .. 32*(w % 4) + 31 (PTX ISA 9.7.16.2.2)
    tmem_allocation(columns)         each allocation a power of 2 in [32, 512], all of them within 512 columns
    tmem_packed_injective(atom, e)   (thread, e-bit element) -> (lane, column, half) of the atom is injective
    scale_ownership(sf, vec)         sf(mn, k) is constant on each K vector of vec elements and injective on
                                     (mn, k // vec): every element gets its own row's scale for its vector

Worked example (tvm#20068): an M=128 accumulator (data path D) read with ``.16x256b`` loads issued only at row 0 of
each warp's sub-partition reads lanes 0-15 twice and never lanes 16-31: REFUTED, ``(m=16, n=0)`` is never loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.inttuple import idx2crd
from layoutcheck.algebra.layout import Layout, format_inttuple, size
from layoutcheck.errors import LayoutError
from layoutcheck.hw.copy import copy_atom
from layoutcheck.hw.tcgen05 import TMEM
from layoutcheck.models.tmem import TmemLoad, allocation_ok, lane_column, load_cells, loads_cells
from layoutcheck.properties.base import Decision, Property, smallest_collision
from layoutcheck.witness_maps import Collision
from layoutcheck.witness_tmem import (
    AllocationSize,
    AllocationTotal,
    ScaleShared,
    ScaleVector,
    TmemLane,
    TmemMissed,
    TmemOutside,
    TmemTwice,
)


def _crd(layout: Layout, i: int) -> str:
    c = format_inttuple(idx2crd(i, layout.shape))
    return c if c.startswith("(") else f"({c})"


def _bits(atom: str) -> int:
    """Bits of one moved element: 16 for a ``.pack::16b`` / ``.unpack::16b`` atom (CUTLASS ``_16b``: each register
    holds the low halves of two adjacent columns), else 32 (one register, one column)."""
    return 16 if atom.endswith("_16b") else 32


def _reads(loads: tuple[TmemLoad, ...]) -> dict[str, np.ndarray]:
    """The cells every (load, thread, element) moves, concatenated over ``loads``: a 32-bit register of a packed
    atom reads two columns, each counted (its element index counts 16-bit halves)."""
    return loads_cells(loads, _bits(loads[0].atom))


def _cell_index(lane: np.ndarray, column: np.ndarray, half: np.ndarray, element_bits: int) -> np.ndarray:
    """A cell's index in an array over TMEM: ``lane + 128 * column`` (x2 + half for 16-bit elements)."""
    v = lane + TMEM.lanes * column
    return v * 2 + half if element_bits == 16 else v


# -- an epilogue's loads cover the accumulator exactly once -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TmemExactCover(Property):
    """Every cell of ``accumulator`` (``(m, n) -> lane + 128 * column``) is moved by exactly one (load, thread,
    element) of ``loads``, and nothing outside it is moved."""

    accumulator: Layout
    loads: tuple[TmemLoad, ...]
    name: ClassVar[str] = "tmem_exact_cover"

    def __post_init__(self) -> None:
        if not self.loads:
            raise LayoutError("tmem_exact_cover: an epilogue needs at least one load")

    def subjects(self) -> tuple[Layout, ...]:
        return (self.accumulator,)

    def subject(self) -> str:
        return f"{self.accumulator} <- {len(self.loads)} loads of {self.loads[0].atom}"

    def domain_size(self) -> int:
        return size(self.accumulator) + 32 * len(self.loads) * 256

    def _counts(self) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], np.ndarray]:
        acc = self.accumulator.offsets()
        lane, col = lane_column(acc)
        cells = _cell_index(lane, col, np.zeros_like(acc), 32)
        r = _reads(self.loads)
        read = _cell_index(r["lane"], r["column"], r["half"], 32)
        n = int(max(cells.max(), read.max())) + 1
        owner = np.full(n, -1)
        owner[cells] = np.arange(cells.size)
        return cells, np.bincount(read, minlength=n), r, owner[read]

    def exhaustive(self) -> Decision:
        cells, counts, r, who = self._counts()
        outside = np.flatnonzero(who < 0)
        if outside.size:
            j = int(outside[0])
            return Decision(False, TmemOutside(int(r["load"][j]), int(r["thread"][j]), int(r["element"][j])),
                            {"outside": int(outside.size)})
        c = counts[cells]
        bad = np.flatnonzero(c != 1)
        if bad.size:
            i = int(bad[0])
            return Decision(False, (TmemMissed if c[i] == 0 else TmemTwice)(i, int(c[i])),
                            {"bad_cells": int(bad.size)})
        return Decision(True, None, {"cells": int(cells.size), "loads": len(self.loads)})

    def recheck(self, w: dict[str, Any]) -> bool:
        cells, counts, r, who = self._counts()
        if w["kind"] == "outside":
            sel = (r["load"] == w["load"]) & (r["thread"] == w["thread"]) & (r["element"] == w["element"])
            return bool(sel.any()) and bool((who[sel] < 0).all())
        return 0 <= w["i"] < cells.size and int(counts[cells[w["i"]]]) == w["count"] != 1

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "outside":
            ld = self.loads[w["load"]]
            c = load_cells(ld, _bits(ld.atom))
            sel = (c["thread"] == w["thread"]) & (c["element"] == w["element"])
            lane, col = int(c["lane"][sel][0]), int(c["column"][sel][0])
            return (f"{ld}: thread {w['thread']} element {w['element']} moves TMEM (lane {lane}, column {col}), "
                    "which is not part of the accumulator")
        i = w["i"]
        lane, col = lane_column(int(self.accumulator(i)))
        what = "is never loaded" if w["kind"] == "missed" else f"is loaded {w['count']} times"
        return f"accumulator {_crd(self.accumulator, i)} at TMEM (lane {lane}, column {col}) {what}"


# -- each warp stays in its sub-partition ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TmemSubpartition(Property):
    """Warp ``w`` of every load touches only lanes ``32*(w % 4) .. 32*(w % 4) + 31``."""

    loads: tuple[TmemLoad, ...]
    name: ClassVar[str] = "tmem_subpartition"

    def subjects(self) -> tuple[Layout, ...]:
        return (Layout(32 * len(self.loads)),)

    def subject(self) -> str:
        return f"{len(self.loads)} loads of {self.loads[0].atom}" if self.loads else "no loads"

    def domain_size(self) -> int:
        return 32 * 256 * max(1, len(self.loads))

    def exhaustive(self) -> Decision:
        for j, ld in enumerate(self.loads):
            c = load_cells(ld)
            lo = TMEM.subpartition_lanes * (ld.warp % 4)
            bad = np.flatnonzero((c["lane"] < lo) | (c["lane"] >= lo + TMEM.subpartition_lanes))
            if bad.size:
                k = int(bad[0])
                return Decision(False, TmemLane(j, int(c["thread"][k]), int(c["lane"][k])))
        return Decision(True, None, {"loads": len(self.loads)})

    def recheck(self, w: dict[str, Any]) -> bool:
        ld = self.loads[w["load"]]
        c = load_cells(ld)
        lo = TMEM.subpartition_lanes * (ld.warp % 4)
        hit = (c["thread"] == w["thread"]) & (c["lane"] == w["lane"])
        return bool(hit.any()) and not lo <= w["lane"] < lo + TMEM.subpartition_lanes

    def explain(self, w: dict[str, Any]) -> str:
        ld = self.loads[w["load"]]
        lo = TMEM.subpartition_lanes * (ld.warp % 4)
        return (f"{ld}: thread {w['thread']} touches lane {w['lane']}, outside warp {ld.warp}'s sub-partition "
                f"(lanes {lo}-{lo + 31})")


# -- allocations ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TmemAllocation(Property):
    """Each ``tcgen05.alloc`` asks for a power of 2 of columns in [32, 512], and together they fit in 512 columns."""

    columns: tuple[int, ...]
    name: ClassVar[str] = "tmem_allocation"

    def subjects(self) -> tuple[Layout, ...]:
        return (Layout(max(1, len(self.columns))),)

    def subject(self) -> str:
        return f"alloc {list(self.columns)} columns"

    def domain_size(self) -> int:
        return max(1, len(self.columns))

    def exhaustive(self) -> Decision:
        for i, c in enumerate(self.columns):
            if allocation_ok(c) is not None:
                return Decision(False, AllocationSize(i))
        if sum(self.columns) > TMEM.columns:
            return Decision(False, AllocationTotal(len(self.columns) - 1))
        return Decision(True)

    def recheck(self, w: dict[str, Any]) -> bool:
        if w["kind"] == "size":
            return allocation_ok(self.columns[w["i"]]) is not None
        return sum(self.columns) > TMEM.columns

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "size":
            return f"allocation {w['i']}: {allocation_ok(self.columns[w['i']])}"
        return f"allocations {list(self.columns)} total {sum(self.columns)} columns > {TMEM.columns}"


# -- packed 16-bit cells ------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TmemPackedInjective(Property):
    """``(thread, element) -> (lane, column, half)`` of a tcgen05.ld/st atom is injective for ``element_bits``."""

    atom: str
    element_bits: int = 16
    name: ClassVar[str] = "tmem_packed_injective"

    def subjects(self) -> tuple[Layout, ...]:
        return (copy_atom(self.atom).val_id,)  # type: ignore[return-value]

    def subject(self) -> str:
        return f"{self.atom} ({self.element_bits}-bit elements)"

    def domain_size(self) -> int:
        return size(copy_atom(self.atom).dst_layout)

    def _cells(self) -> tuple[dict[str, np.ndarray], np.ndarray]:
        c = load_cells(TmemLoad(self.atom, 0, 0, 0), self.element_bits)
        return c, _cell_index(c["lane"], c["column"], c["half"], 16)

    def exhaustive(self) -> Decision:
        _, idx = self._cells()
        pair = smallest_collision(idx)
        if pair is None:
            return Decision(True, None, {"elements": int(idx.size)})
        return Decision(False, Collision(pair[0], pair[1]))

    def recheck(self, w: dict[str, Any]) -> bool:
        _, idx = self._cells()
        return 0 <= w["i"] < w["j"] < idx.size and idx[w["i"]] == idx[w["j"]]

    def explain(self, w: dict[str, Any]) -> str:
        c, _ = self._cells()
        i, j = w["i"], w["j"]
        return (f"thread {c['thread'][i]} element {c['element'][i]} and thread {c['thread'][j]} element "
                f"{c['element'][j]} share TMEM (lane {c['lane'][i]}, column {c['column'][i]}, half {c['half'][i]})")


# -- block-scaled MMA: scale-factor ownership ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ScaleOwnership(Property):
    """``sf(mn, k)`` is constant on each K vector of ``vec`` elements and injective on ``(mn, k // vec)``."""

    sf: Layout
    vec: int
    name: ClassVar[str] = "scale_ownership"

    def __post_init__(self) -> None:
        if len(self.sf) != 2 or size(self.sf[1]) % self.vec:
            raise LayoutError(f"scale_ownership: expected an (MN, K) layout with K a multiple of {self.vec}, "
                              f"found {self.sf}")

    def subjects(self) -> tuple[Layout, ...]:
        return (self.sf,)

    def domain_size(self) -> int:
        return size(self.sf)

    def _grid(self) -> np.ndarray:
        mn, k = size(self.sf[0]), size(self.sf[1])
        return self.sf.offsets().reshape(k, mn).T  # [mn, k]

    def exhaustive(self) -> Decision:
        g = self._grid()
        mn = g.shape[0]
        first = g[:, :: self.vec]
        vary = np.argwhere(np.repeat(first, self.vec, axis=1) != g)
        if vary.size:
            m, kk = (int(x) for x in vary[0])
            return Decision(False, ScaleVector(m, kk))
        pair = smallest_collision(first.T.ravel())  # colex over (mn, k // vec)
        if pair is not None:
            (m0, v0), (m1, v1) = (divmod(p, mn)[::-1] for p in pair)
            return Decision(False, ScaleShared(m0, v0 * self.vec, m1, v1 * self.vec))
        return Decision(True, None, {"elements": int(g.size), "scales": int(first.size)})

    def recheck(self, w: dict[str, Any]) -> bool:
        g = self._grid()
        if w["kind"] == "vector":
            return g[w["m"], w["k"]] != g[w["m"], w["k"] - w["k"] % self.vec]
        same_scale = (w["m"], w["k"] // self.vec) == (w["m2"], w["k2"] // self.vec)
        return not same_scale and g[w["m"], w["k"]] == g[w["m2"], w["k2"]]

    def explain(self, w: dict[str, Any]) -> str:
        g = self._grid()
        if w["kind"] == "vector":
            k0 = w["k"] - w["k"] % self.vec
            return (f"elements ({w['m']}, {k0}) and ({w['m']}, {w['k']}) of one {self.vec}-element vector read "
                    f"different scale bytes {g[w['m'], k0]} and {g[w['m'], w['k']]}")
        return (f"elements ({w['m']}, {w['k']}) and ({w['m2']}, {w['k2']}) should use scales "
                f"({w['m']}, {w['k'] // self.vec}) and ({w['m2']}, {w['k2'] // self.vec}) but both read scale byte "
                f"{g[w['m'], w['k']]}")


# -- constructors with the spec names -------------------------------------------------------------------------------
def tmem_exact_cover(accumulator: Layout, loads: tuple[TmemLoad, ...]) -> TmemExactCover:
    return TmemExactCover(accumulator, tuple(loads))


def tmem_subpartition(loads: tuple[TmemLoad, ...]) -> TmemSubpartition:
    return TmemSubpartition(tuple(loads))


def tmem_allocation(columns: tuple[int, ...]) -> TmemAllocation:
    return TmemAllocation(tuple(columns))


def tmem_packed_injective(atom: str, element_bits: int = 16) -> TmemPackedInjective:
    return TmemPackedInjective(atom, element_bits)


def scale_ownership(sf: Layout, vec: int) -> ScaleOwnership:
    return ScaleOwnership(sf, vec)
