"""Block-scaled operands: producer/consumer agreement on the scale layout, and scale ownership under a scheduler.

Definitions (decided exhaustively with NumPy; a witness is re-checked by evaluating the layouts at its point)::

    scale_agreement(producer, consumer)
        for every element (m, k) of the mn x k operand, the byte the consumer reads element (m, k)'s scale from is
        the byte the producer wrote it to: producer.layout(m, k) == consumer.layout(m, k). (With one vec that is
        every scale index (m, kb); with 16 vs 32 the finer vectors are compared.) REFUTED names the first (m, k),
        colexicographic (m fastest), the scale index on each side and both bytes.
    scale_follows_tile(scheduler, grids, operand, tile, layout, reads)
        (``layout`` a name of ``hw.block_scale.SCALE_LAYOUTS`` or a hand-written CuTe layout, e.g. blockwise FP8's
        one scale per 128 x 128 block) for every GM x GN grid in the range and every launch index the scheduler does
        not mask, the scale bytes the CTA reads for row r < BM (A; column r < BN for B) and scale column kb are those
        of the rows of the tile it computes: sf(read*BM + r, kb) == sf(own*BM + r, kb), where own is the scheduled
        tile's m (A) / n (B) and read the tile the kernel takes its scales from (``models.block_scale.scale_tile``);
        a read tile outside the grid is a failure too. REFUTED names the smallest grid, the launch index, both tiles
        and the first (r, kb).

Worked example: a quantiser that writes MXFP8 scales row-major (``linear``) for cuBLAS, which reads the 128 x 4
interleave: row m's first scale is written at byte m * KS (KS = K / 32) and read from byte 16 * (m % 32) + 4 * (m // 32)
(m < 128): REFUTED at (1, 0) -- unless KS = 16, where the first 32 rows happen to agree and (32, 0) is the witness
(written at 512, read from 4).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.layout import Layout
from layoutcheck.errors import LayoutError
from layoutcheck.models.block_scale import READS, ScaleLayout, launch_indices, scale_layout, scale_tile
from layoutcheck.models.schedulers import TileScheduler
from layoutcheck.properties.base import Decision, Property, Undecided
from layoutcheck.witness_tmem import ScaleMismatch, ScaleTile


@dataclass(frozen=True, slots=True)
class ScaleAgreement(Property):
    """``producer.layout(m, k) == consumer.layout(m, k)`` for every element ``(m, k)`` of the operand."""

    producer: ScaleLayout
    consumer: ScaleLayout
    name: ClassVar[str] = "scale_agreement"
    bytes_per_point: ClassVar[int] = 24

    def __post_init__(self) -> None:
        p, c = self.producer, self.consumer
        if (p.mn, p.k) != (c.mn, c.k):
            raise LayoutError(f"scale_agreement: producer ({p.mn} x {p.k}) and consumer ({c.mn} x {c.k}) describe "
                              "different operands")

    @property
    def _g(self) -> int:
        """The K step that loses nothing: ``gcd`` of the two vector sizes where both layouts are constant on its
        chunks (every named layout is: its vector mode has stride 0), else 1 (every element compared)."""
        g = gcd(self.producer.vec, self.consumer.vec)
        k = self.producer.k
        for side in (self.producer, self.consumer):
            offs = side.layout[1].offsets()[:k]
            if np.any(offs != offs[np.arange(k) // g * g]):
                return 1
        return g

    def subjects(self) -> tuple[Layout, ...]:
        return (self.producer.layout, self.consumer.layout)

    def subject(self) -> str:
        p, c = self.producer, self.consumer
        return f"{p.name} (vec {p.vec}) -> {c.name} (vec {c.vec}), {p.mn} x {p.k}"

    def domain_size(self) -> int:
        return self.producer.mn * -(-self.producer.k // self._g)

    def exhaustive(self) -> Decision:
        g = self._g
        differ = self.producer.grid(g) != self.consumer.grid(g)  # [mn, k // g]
        bad = np.flatnonzero(differ.T.ravel())  # colex: m fastest
        if bad.size:
            j, m = divmod(int(bad[0]), self.producer.mn)
            return Decision(False, ScaleMismatch(m, j * g))
        return Decision(True, None, {"scales": int(differ.size)})

    def recheck(self, w: dict[str, Any]) -> bool:
        m, k = w["m"], w["k"]
        ok = 0 <= m < self.producer.mn and 0 <= k < self.producer.k
        return ok and self.producer.byte(m, k) != self.consumer.byte(m, k)

    def explain(self, w: dict[str, Any]) -> str:
        p, c, m, k = self.producer, self.consumer, w["m"], w["k"]
        return (f"element ({m}, {k}): the producer ({p.name}) wrote its scale ({m}, {k // p.vec}) at byte "
                f"{p.byte(m, k)}, the consumer ({c.name}) reads scale ({m}, {k // c.vec}) from byte {c.byte(m, k)}")


@dataclass(frozen=True, slots=True)
class ScaleFollowsTile(Property):
    """Every scheduled CTA reads the scale rows (A) / columns (B) of the tile it computes (module docstring)."""

    scheduler: TileScheduler
    grids: tuple[tuple[int, int], tuple[int, int]]
    operand: str
    tile: tuple[int, int]
    k: int
    vec: int
    layout: str = "128x4"
    reads: str = "scheduled"
    custom: Layout | None = None  # a hand-written scale layout (mn, k) -> byte; ``layout`` is then its text
    name: ClassVar[str] = "scale_follows_tile"
    bytes_per_point: ClassVar[int] = 24

    def __post_init__(self) -> None:
        if self.operand not in ("A", "B"):
            raise LayoutError(f"scale_follows_tile: operand must be A or B, found {self.operand!r}")
        if self.reads not in READS:
            raise LayoutError(f"scale_follows_tile: reads must be one of {', '.join(READS)}, found {self.reads!r}")
        if len(self.tile) != 2 or min(self.tile) < 1:
            raise LayoutError(f"scale_follows_tile: tile is (BM, BN), found {self.tile}")
        if self.custom is None:
            scale_layout(self.layout, 1, self.k, self.vec)  # the name and vec are valid
        else:  # it must cover the largest grid's operand: every grid reads it
            (_, hm), (_, hn) = self.grids
            ScaleLayout(self.layout, (hm if self.operand == "A" else hn) * self._block, self.k, self.vec, self.custom)

    @property
    def _block(self) -> int:
        return self.tile[0] if self.operand == "A" else self.tile[1]

    def subjects(self) -> tuple[Layout, ...]:
        return (self._sf(self.grids[0][0], self.grids[1][0]).layout,)

    def subject(self) -> str:
        (lm, hm), (ln, hn) = self.grids
        return (f"{self.scheduler.describe()} over GM {lm}..{hm} x GN {ln}..{hn}, SF{self.operand} {self.layout} "
                f"(vec {self.vec}), tile {self.tile[0]}x{self.tile[1]}, scales from the {self.reads.replace('_', ' ')}")

    def domain_size(self) -> int:
        """The largest grid's scale tensor (``tiles * block * KS`` bytes): what one grid's decision holds at once;
        launch indices are walked one at a time."""
        (_, hm), (_, hn) = self.grids
        return (hm if self.operand == "A" else hn) * self._block * -(-self.k // self.vec)

    def _sf(self, gm: int, gn: int) -> ScaleLayout:
        mn = (gm if self.operand == "A" else gn) * self._block
        if self.custom is not None:
            return ScaleLayout(self.layout, mn, self.k, self.vec, self.custom)
        return scale_layout(self.layout, mn, self.k, self.vec)

    def _tiles(self, idx: tuple[int, ...], gm: int, gn: int) -> tuple[int, int, bool]:
        """``(own, read, valid)``: the operand's tile coordinate the CTA computes and the one it takes scales from."""
        m, n, valid = self.scheduler.tile(idx, gm, gn)
        if not valid:
            return 0, 0, False
        sm, sn = (m, n) if self.reads == "scheduled" else scale_tile(self.scheduler, idx, gm, gn, self.reads)
        own, read = (m, sm) if self.operand == "A" else (n, sn)
        return int(own), int(read), True

    def exhaustive(self) -> Decision | Undecided:
        if self.scheduler.kind == "split_k":
            return Undecided("not modelled: scale ownership under split-K (a CTA reads a K slice of the scales)")
        (lm, hm), (ln, hn) = self.grids
        launches = 0
        for gm in range(lm, hm + 1):
            for gn in range(ln, hn + 1):
                w, n = self._grid_failure(gm, gn)
                launches += n
                if w is not None:
                    return Decision(False, w)
        return Decision(True, None, {"grids": (hm - lm + 1) * (hn - ln + 1), "launches": launches})

    def _grid_failure(self, gm: int, gn: int) -> tuple[ScaleTile | None, int]:
        b = self._block
        tiles = gm if self.operand == "A" else gn
        sf = self._sf(gm, gn).grid()  # [tiles * b, KS]
        first: dict[bytes, int] = {}  # equal class <=> the same bytes at every (r, kb)
        cls = [first.setdefault(block.tobytes(), t) for t, block in enumerate(sf.reshape(tiles, -1))]
        n = 0
        for idx in launch_indices(self.scheduler, gm, gn):
            own, read, valid = self._tiles(idx, gm, gn)
            if not valid:
                continue
            n += 1
            if not 0 <= read < tiles:
                return ScaleTile(gm, gn, list(idx), own, read, 0, 0), n
            if cls[own] != cls[read]:
                diff = np.argwhere(sf[own * b:(own + 1) * b] != sf[read * b:(read + 1) * b])[0]
                return ScaleTile(gm, gn, list(idx), own, read, int(diff[0]), int(diff[1])), n
        return None, n

    def recheck(self, w: dict[str, Any]) -> bool:
        gm, gn, b = w["gm"], w["gn"], self._block
        (lm, hm), (ln, hn) = self.grids
        if not (lm <= gm <= hm and ln <= gn <= hn):
            return False
        own, read, valid = self._tiles(tuple(w["idx"]), gm, gn)
        if not valid or (own, read) != (w["own"], w["read"]):
            return False
        sf = self._sf(gm, gn)
        if not 0 <= read * b + w["r"] < sf.mn:
            return True
        k = w["kb"] * self.vec
        return sf.byte(own * b + w["r"], k) != sf.byte(read * b + w["r"], k)

    def explain(self, w: dict[str, Any]) -> str:
        gm, gn, b = w["gm"], w["gn"], self._block
        what, mode = ("rows", "m") if self.operand == "A" else ("columns", "n")
        head = (f"grid {gm} x {gn}: launch index {tuple(w['idx'])} computes tile {mode} = {w['own']} but reads the "
                f"SF{self.operand} {what} of tile {mode} = {w['read']}")
        sf = self._sf(gm, gn)
        own_row, read_row, k = w["own"] * b + w["r"], w["read"] * b + w["r"], w["kb"] * self.vec
        if not 0 <= read_row < sf.mn:
            return f"{head}, outside the {sf.mn} {what} of the scale tensor"
        return (f"{head}: element ({own_row}, {k}) takes the scale at byte {sf.byte(read_row, k)} (of "
                f"({read_row}, {w['kb']})), its own is at byte {sf.byte(own_row, k)}")


# -- constructors with the spec names -------------------------------------------------------------------------------
def scale_agreement(producer: ScaleLayout, consumer: ScaleLayout) -> ScaleAgreement:
    return ScaleAgreement(producer, consumer)


def scale_follows_tile(scheduler: TileScheduler, grids: tuple[tuple[int, int], tuple[int, int]], operand: str,
                       tile: tuple[int, int], k: int, vec: int, layout: str = "128x4",
                       reads: str = "scheduled", custom: Layout | None = None) -> ScaleFollowsTile:
    return ScaleFollowsTile(scheduler, grids, operand, tuple(tile), k, vec, layout, reads, custom)
