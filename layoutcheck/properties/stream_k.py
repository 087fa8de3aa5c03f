"""``schedule_bijection`` of a stream-K scheduler: every (output tile, k-iteration) computed exactly once.

``StreamKCover(scheduler, grids)``: for every problem of ``T`` output tiles and ``K`` k-tiles per tile in the box
``grids`` (``{ tiles = [..], k_tiles = [..] }``), the pieces the CTAs walk (``models.stream_k``: each CTA's units,
each unit's pieces backwards, a CTA stopping at an empty unit) compute every ``(tile, k)`` with ``tile < T``,
``k < K`` exactly once and nothing outside. Then every partially computed tile has exactly one piece that does the
final reduction and the epilogue (``is_final_split``: the piece holding ``k = K - 1``, since every walked piece is
non-empty) and exactly one that stores the first partial (the one holding ``k = 0``): both follow from the exact
cover, and are checked again as invariants.

The counterexample is the first problem in ``itertools.product`` order (``T`` slowest) and there the smallest
``(tile, k)`` computed never (``missing``), twice (``duplicate``, naming both units as ``[cta, iteration]``), or a
piece outside the problem (``outside``); each re-checked against the pieces of that one problem.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.errors import LayoutError
from layoutcheck.models.stream_k import Piece, StreamKScheduler
from layoutcheck.properties.base import Decision, Property
from layoutcheck.witness import StreamKFixup, TileDuplicate, TileMissing, TileOutside

Ranges = tuple[tuple[int, int], ...]
_BATCH = 4096
"""Problems screened at once (``exact_all``): at most ``ctas`` units each, so the arrays stay a few MB."""


def _firsts(problem: np.ndarray) -> np.ndarray:
    """Per unit, the index of its problem's first unit (``problem`` sorted, as ``ranges_of`` gives it)."""
    starts = np.flatnonzero(np.r_[True, problem[1:] != problem[:-1]])
    return np.repeat(starts, np.diff(np.r_[starts, len(problem)]))


def _where(s: StreamKScheduler, p: Piece) -> list[int]:
    """``[cta, iteration]`` of the unit that walks piece ``p`` (CTA ``u % ctas`` walks unit ``u`` at ``u // ctas``)."""
    return [p.unit % s.ctas, p.unit // s.ctas]


@dataclass(frozen=True, slots=True)
class StreamKCover(Property):
    """Every ``(tile, k)`` of every problem in ``grids`` computed exactly once by the stream-K walk."""

    scheduler: StreamKScheduler
    grids: Ranges
    name: ClassVar[str] = "schedule_bijection"
    bytes_per_point: ClassVar[int] = 64

    def __post_init__(self) -> None:
        if len(self.grids) != 2 or any(not (isinstance(lo, int) and isinstance(hi, int) and 1 <= lo <= hi)
                                       for lo, hi in self.grids):
            raise LayoutError(f"{self.name}: expected 2 inclusive ranges (tiles, k_tiles), found {self.grids}")

    def subjects(self) -> tuple:
        return ()

    def subject(self) -> str:
        (a, b), (c, d) = self.grids
        return f"{self.scheduler.describe()} over tiles in [{a},{b}], k_tiles in [{c},{d}]"

    def domain_size(self) -> int:
        """Pieces walked over every problem (at most one per tile and one more per unit)."""
        (a, b), (c, d) = self.grids
        return (d - c + 1) * sum(t + 2 * self.scheduler.ctas for t in range(a, b + 1))

    def exhaustive(self) -> Decision:
        problems = list(itertools.product(*[range(lo, hi + 1) for lo, hi in self.grids]))
        for at in range(0, len(problems), _BATCH):
            batch = problems[at:at + _BATCH]
            for (tiles, k_tiles), exact in zip(batch, self.exact_all(batch), strict=True):
                if exact:  # the screen: exact only where violation finds nothing
                    continue
                w = self.violation(tiles, k_tiles)
                if w is not None:
                    return Decision(False, w)
        return Decision(True, None, {"problems": len(problems)})

    def exact(self, tiles: int, k_tiles: int) -> bool:
        """``exact_all`` of one problem."""
        return bool(self.exact_all([(tiles, k_tiles)])[0])

    def exact_all(self, problems: Sequence[tuple[int, int]]) -> np.ndarray:
        """A screen, per problem ``(tiles, k_tiles)``: ``True`` only where ``violation`` finds nothing. A stream-K
        unit walks its pieces backwards over exactly its iterations ``[start, start + count)`` of its group's space
        (``count > 0``), group ``g``'s iteration ``x`` being ``(x % K)`` of tile ``(x // K) * groups + g`` --
        one-to-one onto the stream-K tiles for ``x`` below the group's iterations. So the stream-K tiles are covered
        once iff, per group, the units' ranges (sorted) are contiguous from 0 to the group's iterations with no
        negative count; the data-parallel units compute tiles ``sk_tiles ..`` once each, and only a CTA stopped by an
        empty stream-K unit (one of its units ``c + ctas*i``, ``i >= 1``, below ``units``) loses one. Data-parallel:
        ``True``; split-K and ``final_waits_first``: ``False`` (decided piece by piece). The stream-K problems are
        screened together (``StreamKScheduler.ranges_of``: one array over all their units)."""
        s = self.scheduler
        every = [s.host(t, k) for t, k in problems]
        out = np.array([h["mode"] == "data_parallel" for h in every], dtype=bool)
        sk = [i for i, h in enumerate(every) if h["mode"] == "stream_k"] if s.reduction != "final_waits_first" else []
        if not sk:
            return out
        batch, hosts = [problems[i] for i in sk], [every[i] for i in sk]
        problem, group, start, count, in_group = s.ranges_of(batch, hosts)
        bad = count < 0
        units = np.array([h["units"] for h in hosts], dtype=np.int64)  # StreamKScheduler.units of a stream-K problem
        bad |= (count == 0) & (np.arange(len(count)) - _firsts(problem) + s.ctas < units[problem])
        order = np.lexsort((start, group, problem))
        p, g, a = problem[order], group[order], start[order]
        ends = a + count[order]
        first = np.r_[True, (p[1:] != p[:-1]) | (g[1:] != g[:-1])]
        last = np.r_[first[1:], True]
        bad[order] |= a != np.where(first, 0, np.r_[0, ends[:-1]])
        groups = np.array([h["groups"] for h in hosts], dtype=np.int64)
        bad[order[last]] |= ends[last] != in_group[order][last]  # the group's last unit ends at its iterations
        ok = np.bincount(problem[bad], minlength=len(batch)) == 0
        ok &= np.bincount(p[first], minlength=len(batch)) == groups  # every group has a unit
        out[sk] = ok
        return out

    def violation(self, tiles: int, k_tiles: int) -> dict[str, Any] | None:
        """The first fault of one problem: a piece outside it, else the smallest ``(tile, k)`` computed never or
        twice (per tile, its pieces sorted by ``k``: a gap is missing, an overlap computed twice). The data-parallel
        units are read as a range (``StreamKScheduler.walk``): a tile none of the split pieces touches is computed
        once iff its data-parallel unit is walked."""
        s = self.scheduler
        grid = [tiles, k_tiles]
        split, dp, stopped = s.walk(tiles, k_tiles)
        h = s.host(tiles, k_tiles)
        first_dp = int(h.get("sk_tiles", 0)) - dp.start
        for p in split:
            if not (0 <= p.tile < tiles and p.k >= 0 and p.k + p.count <= k_tiles):
                return TileOutside(grid, [p.tile, p.k], index=_where(s, p))
        by_tile: dict[int, list[Piece]] = {}
        for p in split:
            by_tile.setdefault(p.tile, []).append(p)
        for u in dp:  # a data-parallel tile some split piece also touches: its whole piece joins the check
            t = u + first_dp
            if t in by_tile and u % s.ctas not in stopped:
                by_tile[t].append(Piece(u, 0, t, 0, k_tiles))
        walked_dp = {u + first_dp for u in dp if u % s.ctas not in stopped}
        for t in sorted(set(range(tiles)) - (walked_dp - by_tile.keys())):  # a walked DP tile alone is whole
            w = self._tile_fault(grid, t, by_tile.get(t, []))
            if w is not None:
                return w
        if h["mode"] == "data_parallel" and len(walked_dp) != tiles:  # by construction never (one unit per tile)
            raise AssertionError(f"stream-K: data-parallel units of {tiles}x{k_tiles} do not cover every tile")
        return None

    def _tile_fault(self, grid: list[int], t: int, pieces: list[Piece]) -> dict[str, Any] | None:
        """The smallest ``k`` of tile ``t`` its ``pieces`` compute never or twice, or ``None``."""
        s, k_tiles = self.scheduler, grid[1]
        ps = sorted(pieces, key=lambda p: (p.k, p.unit))
        reach = 0  # iterations 0 .. reach-1 of tile t are computed once so far
        for i, p in enumerate(ps):
            if p.k > reach:
                return TileMissing(grid, [t, reach], 0)
            if p.k < reach:
                other = next(q for q in ps[:i] if q.k <= p.k < q.k + q.count)
                return TileDuplicate(grid, [t, p.k], 2, _where(s, other), _where(s, p))
            reach = p.k + p.count
        if reach < k_tiles:
            return TileMissing(grid, [t, reach], 0)
        finals = [p for p in ps if p.final(k_tiles)]
        firsts = [p for p in ps if p.k == 0]
        if len(finals) != 1 or len(firsts) != 1:  # implied by the exact cover (module docstring)
            raise AssertionError(f"stream-K: tile {t} of {grid} covered once, yet {len(finals)} final and "
                                 f"{len(firsts)} first pieces")
        if s.reduction == "final_waits_first" and len(ps) >= 3:  # the final proceeds at lock >= 1: the first's
            return StreamKFixup(grid, t, ps[1].k, _where(s, ps[-1]), _where(s, ps[1]))  # store, not the second's
        return None

    def _covering(self, tiles: int, k_tiles: int, tile: int, k: int) -> list[Piece]:
        return [p for p in self.scheduler.pieces(tiles, k_tiles) if p.tile == tile and p.k <= k < p.k + p.count]

    def recheck(self, w: dict[str, Any]) -> bool:
        """Against the pieces of the witness's one problem (no other problem is walked)."""
        tiles, k_tiles = w["grid"]
        (a, b), (c, d) = self.grids
        if not (a <= tiles <= b and c <= k_tiles <= d):
            return False
        if w["kind"] == "fixup":
            return self._fixup_holds(tiles, k_tiles, w)
        tile, k = w["tile"]
        s = self.scheduler
        if w["kind"] == "outside":
            return any(_where(s, p) == list(w["index"]) and (p.tile, p.k) == (tile, k)
                       for p in s.pieces(tiles, k_tiles)) and not (0 <= tile < tiles and 0 <= k < k_tiles)
        inside = 0 <= tile < tiles and 0 <= k < k_tiles
        hits = self._covering(tiles, k_tiles, tile, k)
        if w["kind"] == "missing":
            return inside and not hits
        named = [list(w["index"]), list(w["other"])]
        return inside and len(hits) >= 2 and all(any(_where(s, p) == n for p in hits) for n in named)

    def _fixup_holds(self, tiles: int, k_tiles: int, w: dict[str, Any]) -> bool:
        """The final split's wait (``lock >= 1`` under ``final_waits_first``) is met by the first peer's arrival
        alone, while peer ``other`` (from ``k``, neither first nor final) has not arrived."""
        s = self.scheduler
        ps = sorted((p for p in s.pieces(tiles, k_tiles) if p.tile == w["tile"]), key=lambda p: p.k)
        final = [p for p in ps if p.final(k_tiles) and _where(s, p) == list(w["index"])]
        peer = [p for p in ps if p.k == w["k"] and _where(s, p) == list(w["other"])]
        first = [p for p in ps if p.k == 0 and not p.final(k_tiles)]
        return (s.reduction == "final_waits_first" and bool(final and peer and first) and peer[0].k > 0
                and not peer[0].final(k_tiles) and first[0].count >= 1)

    def explain(self, w: dict[str, Any]) -> str:
        tiles, k_tiles = w["grid"]
        if w["kind"] == "fixup":
            c, i = w["index"]
            oc, oi = w["other"]
            return (f"{tiles} tiles x {k_tiles} k-tiles ({self.scheduler.describe()}): tile {w['tile']}'s final split "
                    f"(CTA {c} at iteration {i}) waits only for the first partial, so it may reduce and store the "
                    f"tile before the partial of k-iterations from {w['k']} (CTA {oc} at iteration {oi}) is added")
        tile, k = w["tile"]
        s = self.scheduler
        h = s.host(tiles, k_tiles)
        how = (f"{h['sk_tiles']} stream-K tiles over {h['sk_units']} units in {h['groups']} group(s), "
               f"{tiles - int(h['sk_tiles'])} data-parallel" if h["mode"] == "stream_k" else
               f"split-K x{h['splits']}" if h["mode"] == "split_k" else "data-parallel")
        at = f"{tiles} tiles x {k_tiles} k-tiles ({s.describe()}: {how})"
        stopped = s.stopped(tiles, k_tiles)
        cut = (f"; unit(s) {', '.join(map(str, stopped))} compute nothing, ending their CTAs' walks"
               if stopped else "")
        if w["kind"] == "missing":
            return f"{at}: k-iteration {k} of tile {tile} is computed by no CTA{cut}"
        by = " and ".join(f"CTA {x[0]} at iteration {x[1]}" for x in (w["index"], w.get("other")) if x)
        if w["kind"] == "outside":
            return f"{at}: {by} computes tile {tile} from k-iteration {k}, outside the problem{cut}"
        return f"{at}: k-iteration {k} of tile {tile} is computed twice (by {by}){cut}"


def stream_k_cover(scheduler: StreamKScheduler, grids: Ranges) -> StreamKCover:
    """``StreamKCover`` for every ``(tiles, k_tiles)`` in ``grids``."""
    return StreamKCover(scheduler, tuple(tuple(r) for r in grids))
