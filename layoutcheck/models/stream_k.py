"""Stream-K: CUTLASS's SM90 stream-K tile scheduler, its decomposition of the MAC loop over persistent CTAs.

A GEMM of ``T`` output tiles (the linear tile ids of the cluster- and swizzle-rounded tile grid; the persistent
scheduler's raster, ``models.schedulers``' ``persistent``, maps them one-to-one to ``(m, n)``) with ``K`` k-tiles
(MAC-loop iterations) per tile, on a persistent grid of ``ctas`` CTAs (one wave: ``sm_count`` in full clusters).
The host (``PersistentTileSchedulerSm90StreamKParams``, ``tile_scheduler_params.h``) picks a decomposition:

* **data-parallel**: no quantisation to fix (``T % ctas == 0``), ``K <= 8`` (``min_iters_per_sk_unit_``), or the
  heuristic's tail wave more than half full: one unit per tile, all ``K`` iterations;
* **stream-K**: the last one or two waves' tiles (``sk_tiles = T - dp_waves * ctas``, ``dp_waves = full_waves - 1``)
  become one pool of ``sk_tiles * K`` iterations split over ``sk_units = min(ctas, sk_tiles*K // 8)`` units, in
  ``groups`` groups (``calculate_groups``: at most ``max_groups``, dividing the units, each unit at least 8
  iterations); group ``g`` owns tiles ``i*groups + g``, its units split its iterations evenly, the first
  ``k_tiles_in_group % units_per_group`` ("big units") one more. A unit boundary within 8 iterations of a tile's
  start or end moves to that tile boundary (``min_iters_per_sk_unit_``; both neighbours apply the same rule), and
  with ``ktile_start_alignment_count == 2`` an odd boundary moves one back. The data-parallel tiles follow, one unit
  each: unit ``sk_units + j`` computes tile ``sk_tiles + j``;
* **split-K** (``splits > 1``, or the heuristic when ``sk_units`` is a multiple of ``sk_tiles``): every tile split
  ``splits`` ways (``adjust_split_count``: at most ``ctas`` and ``K``), split ``s`` taking ``K // splits``
  iterations, the first ``K % splits`` one more.

A CTA walks units ``cta, cta + ctas, ...`` below ``units = dp_units + sk_units`` (split-K: ``T * splits``); a
stream-K unit walks its iterations *backwards* one tile at a time (``update_output_tile_id_and_work_tile_k``): the
tile of its last iteration, then the one before, each a *piece* ``(tile, K_idx, k_tile_count)``. A unit whose first
piece computes nothing (its boundaries moved onto one tile boundary) is an invalid work tile: its CTA's loop ends
there, and the units after it on that CTA are never walked. A piece with fewer
than ``K`` iterations needs the fixup (``requires_fixup``); the piece with ``K_idx + k_tile_count == K`` (the final
split, ``is_final_split``) waits for its peers' partials and computes the epilogue; the one with ``K_idx == 0``
stores the first partial; the others add theirs.

Worked example (``decomposition = "stream_k"``; the heuristic keeps it data-parallel, its tail wave half full):
``T = 3`` tiles, ``K = 16``, ``ctas = 2``: one partial wave, ``sk_tiles = 3``, 48 iterations, ``sk_units = 2``, 24
each: unit 0 takes ``[0, 24)`` -- tile 0 whole and ``K_idx 0..7`` of tile 1 -- and 8 is neither within 8 of tile 1's
start (``< 8``) nor of its end (``> 16 - 8``), so it stays; unit 1 takes ``[24, 48)``: tile 1's ``8..15`` (the final
split: the epilogue) and tile 2 whole.

Not modelled: clusters other than 1x1 (the units then move in cluster-sized groups), the separate
reduction units (disabled in CUTLASS: ``should_perform_separate_reduction`` returns false), batches (L).
The fixup (``fixup_helper``): a non-final peer adds its ``k_tile_count`` to the tile's lock after storing (the
first) or adding its partial; the final split proceeds once the lock equals its ``K_idx``. The non-final peers'
counts are positive and sum to that ``K_idx`` exactly when the cover is exact, so it proceeds only after every peer.
The user variants ``reduction = "final_waits_first"`` (NVIDIA/cutlass#2027: the final split waits only for the
first peer's store), ``big_units = false`` (the remainder iterations of a group not given to big units) and
``end_adjust = false`` (a unit's start moved to the tile boundary but not its neighbour's end) change exactly the
line they name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from layoutcheck.errors import LayoutError

DECOMPOSITIONS = ("heuristic", "stream_k", "data_parallel", "split_k")
REDUCTIONS = ("deterministic", "nondeterministic", "final_waits_first")
"""``ReductionMode``: ``deterministic`` (each peer waits for the lock to reach its ``K_idx``), ``nondeterministic``
(a middle peer waits only for the first's store), both with the final split waiting for ``lock == K_idx``;
``final_waits_first``: the fixup of NVIDIA/cutlass#2027, whose final split waited only for the first peer."""
MIN_ITERS = 8
"""``PersistentTileSchedulerSm90StreamKParams::min_iters_per_sk_unit_`` (``tile_scheduler_params.h``)."""
MAX_GROUPS = 8
"""``max_sk_groups_``: the most groups of stream-K units."""


@dataclass(frozen=True, slots=True)
class Piece:
    """One work tile a unit computes: ``tile``'s iterations ``[k, k + count)``; ``unit`` walks it at ``step`` (0: the
    tile of the unit's last iteration)."""

    unit: int
    step: int
    tile: int
    k: int
    count: int

    def final(self, k_tiles: int) -> bool:
        """``is_final_split``: this piece computes the tile's epilogue."""
        return self.k + self.count == k_tiles


@dataclass(frozen=True, slots=True)
class StreamKScheduler:
    """The host's stream-K parameters and the device's walk, for ``ctas`` persistent CTAs (1x1 clusters).

    >>> s = StreamKScheduler(ctas=2, decomposition="stream_k")
    >>> s.host(3, 16)["mode"], [(p.unit, p.tile, p.k, p.count) for p in s.pieces(3, 16)]
    ('stream_k', [(0, 1, 0, 8), (0, 0, 0, 16), (1, 2, 0, 16), (1, 1, 8, 8)])
    """

    ctas: int
    max_groups: int = 1
    decomposition: str = "heuristic"
    splits: int = 1
    alignment: int = 1
    big_units: bool = True
    end_adjust: bool = True
    reduction: str = "deterministic"

    def __post_init__(self) -> None:
        if self.ctas < 1 or self.splits < 1 or not 1 <= self.max_groups <= MAX_GROUPS:
            raise LayoutError(f"stream-K scheduler: ctas >= 1, splits >= 1 and 1 <= max_groups <= {MAX_GROUPS} "
                              f"required, found {self}")
        if self.decomposition not in DECOMPOSITIONS:
            raise LayoutError(f"stream-K scheduler: decomposition must be one of {', '.join(DECOMPOSITIONS)}, found "
                              f"{self.decomposition!r}")
        if self.reduction not in REDUCTIONS:
            raise LayoutError(f"stream-K scheduler: reduction must be one of {', '.join(REDUCTIONS)}, found "
                              f"{self.reduction!r}")
        if self.alignment not in (1, 2):
            raise LayoutError(f"stream-K scheduler: alignment (ktile_start_alignment_count) must be 1 or 2, found "
                              f"{self.alignment}")
        if self.splits > 1 and self.decomposition not in ("heuristic", "split_k"):
            raise LayoutError("stream-K scheduler: splits > 1 needs decomposition heuristic or split_k "
                              "(can_implement)")

    # -- the host: PersistentTileSchedulerSm90StreamKParams ---------------------------------------------------------
    def _adjust_splits(self, k_tiles: int) -> int:
        """``adjust_split_count``."""
        s = min(self.splits, self.ctas, k_tiles)
        if self.alignment > 1 and s > 1 and k_tiles // s == 1:
            s = k_tiles // self.alignment
        return s

    def _sk_tiles(self, tiles: int, k_tiles: int) -> int:
        """``get_num_sk_tiles`` (1x1 clusters)."""
        if self.decomposition in ("data_parallel", "split_k"):
            return 0
        full, total = tiles // self.ctas, -(-tiles // self.ctas)
        sk = tiles - (full - 1 if full > 1 else 0) * self.ctas
        if full == total or k_tiles <= MIN_ITERS:
            return 0
        if self.decomposition == "heuristic" and 2 * (tiles - full * self.ctas) >= self.ctas:
            return 0
        return sk

    def _groups(self, sk_tiles: int, sk_units: int, k_tiles: int) -> int:
        """``calculate_groups`` with ``max_groups = min(max_groups_problem, max_sk_groups_)`` given (1x1 clusters)."""
        def too_small(g: int) -> bool:
            return (sk_tiles // g) * k_tiles // (sk_units // g) < MIN_ITERS

        def ideal(g: int) -> bool:
            return sk_units % g == 0 and sk_tiles % g == 0 and not too_small(g)

        groups, fallback = self.max_groups, 0
        while groups > 1 and not ideal(groups):
            if fallback == 0 and sk_units % groups == 0 and not too_small(groups):
                fallback = groups
            groups -= 1
        return fallback if groups == 1 and fallback > 0 else groups

    def host(self, tiles: int, k_tiles: int) -> dict[str, int | str]:
        """The decomposition ``select_decomposition_mode`` / ``set_params`` choose for ``tiles x k_tiles``."""
        if self.decomposition == "split_k" or (self.decomposition == "heuristic" and self.splits > 1):
            return {"mode": "split_k", "splits": self._adjust_splits(k_tiles), "units": 0}
        sk_tiles = self._sk_tiles(tiles, k_tiles)
        sk_units = min(self.ctas, sk_tiles * k_tiles // MIN_ITERS)
        if self.decomposition == "data_parallel" or (self.decomposition == "heuristic" and sk_tiles == 0) or \
                sk_units == 0:
            return {"mode": "data_parallel", "splits": 1, "units": tiles}
        if self.decomposition == "heuristic" and sk_tiles < sk_units and sk_units % sk_tiles == 0:
            return {"mode": "split_k", "splits": sk_units // sk_tiles, "units": 0}
        groups = self._groups(sk_tiles, sk_units, k_tiles)
        return {"mode": "stream_k", "sk_tiles": sk_tiles, "sk_units": sk_units, "groups": groups,
                "big_groups": sk_tiles % groups, "units": tiles - sk_tiles + sk_units}

    # -- the device: PersistentTileSchedulerSm90StreamK -------------------------------------------------------------
    def units(self, tiles: int, k_tiles: int) -> int:
        """Units the CTAs walk (``units_per_problem_ * splits``)."""
        h = _host(self, tiles, k_tiles)
        return tiles * int(h["splits"]) if h["mode"] == "split_k" else int(h["units"])

    def unit_range(self, u: int, tiles: int, k_tiles: int) -> tuple[int, int, int]:
        """``(group, start, count)``: stream-K unit ``u``'s iterations in its group's space
        (``get_current_work_iter_start_possible_update_work_tile_k_remaining``). Pre: ``u < sk_units``."""
        g, start, count = _unit_ranges(self, tiles, k_tiles)
        return int(g[u]), int(start[u]), int(count[u])

    def unit_ranges(self, tiles: int, k_tiles: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``unit_range`` of every stream-K unit at once (arrays over ``u < sk_units``; read-only)."""
        return _unit_ranges(self, tiles, k_tiles)

    def _ranges(self, tiles: int, k_tiles: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        _, group, start, count, _ = self.ranges_of([(tiles, k_tiles)], [_host(self, tiles, k_tiles)])
        for a in (group, start, count):
            a.setflags(write=False)
        return group, start, count

    def ranges_of(self, problems: Sequence[tuple[int, int]],
                  hosts: Sequence[dict[str, int | str]]) -> tuple[np.ndarray, ...]:
        """``unit_ranges`` of several problems at once, one after the other: ``(problem, group, start, count,
        in_group)`` over their stream-K units, ``problem[i]`` the index in ``problems`` of unit ``i``'s problem and
        ``in_group[i]`` the iterations of its group's tiles (``sk_tiles / groups``, one more tile for the first
        ``big_groups``, times ``K``). Pre: ``hosts[i] == host(*problems[i])``, each of mode ``stream_k``."""
        k_tiles = np.array([k for _, k in problems], dtype=np.int64)
        groups = np.array([h["groups"] for h in hosts], dtype=np.int64)
        sk_units = np.array([h["sk_units"] for h in hosts], dtype=np.int64)
        sk_tiles = np.array([h["sk_tiles"] for h in hosts], dtype=np.int64)
        big_groups = np.array([h["big_groups"] for h in hosts], dtype=np.int64)
        problem = np.repeat(np.arange(len(problems)), sk_units)
        u = np.arange(len(problem), dtype=np.int64) - np.repeat(np.cumsum(sk_units) - sk_units, sk_units)
        u_in_group, group = np.divmod(u, groups[problem])
        k = k_tiles[problem]
        k_in_group = (sk_tiles[problem] // groups[problem] + (group < big_groups[problem])) * k
        per_group = sk_units[problem] // groups[problem]
        per_unit = k_in_group // per_group
        big = k_in_group - per_unit * per_group if self.big_units else np.zeros_like(k_in_group)
        is_big = u_in_group < big
        start = per_unit * u_in_group + np.where(is_big, u_in_group, big)
        count = per_unit + is_big
        off = start % k
        down, up = off < MIN_ITERS, off > k - MIN_ITERS
        odd = ~down & ~up & (self.alignment == 2) & (off % 2 == 1)
        shift = np.where(down, -off, np.where(up, k - off, np.where(odd, -1, 0)))
        start, count = start + shift, count - shift
        end_off = (start + count) % k
        if self.end_adjust:
            down, up = end_off < MIN_ITERS, end_off > k - MIN_ITERS
            odd = ~down & ~up & (self.alignment == 2) & (end_off % 2 == 1)
            count = count + np.where(down, -end_off, np.where(up, k - end_off, np.where(odd, -1, 0)))
        return problem, group, start, count, k_in_group

    def unit_pieces(self, u: int, tiles: int, k_tiles: int) -> list[Piece]:
        """The work tiles unit ``u`` computes, in the order it walks them (``assign_work`` then
        ``continue_current_work`` while iterations remain)."""
        h = _host(self, tiles, k_tiles)
        if h["mode"] == "split_k":
            splits = int(h["splits"])
            split, tile = divmod(u, tiles)
            per, big = k_tiles // splits, k_tiles % splits
            start = per * split + (split if split < big else big)
            return [Piece(u, 0, tile, start, per + (1 if split < big else 0))]
        if h["mode"] == "data_parallel" or u >= int(h["sk_units"]):
            tile = u - int(h.get("sk_units", 0)) + int(h.get("sk_tiles", 0))
            return [Piece(u, 0, tile, 0, k_tiles)]
        group, start, remaining = self.unit_range(u, tiles, k_tiles)
        out: list[Piece] = []
        if remaining < 0:  # an unsigned count in CUTLASS: never walked as one
            return [Piece(u, 0, -1, start, remaining)]
        while True:
            end = start + remaining - 1  # the unit's last iteration not yet walked (start - 1: an empty unit)
            in_group = end // k_tiles
            first = in_group * k_tiles
            lo, hi = max(first, start), min(first + k_tiles, end + 1)
            tile = in_group * int(h["groups"]) + group if end >= 0 else -1  # uint32 wrap: no tile of the problem
            out.append(Piece(u, len(out), tile, lo - first, hi - lo))
            remaining -= hi - lo
            if remaining <= 0 or hi - lo <= 0:
                return out

    def walk(self, tiles: int, k_tiles: int) -> tuple[list[Piece], range, frozenset[int]]:
        """The walk in three parts: the pieces of the split units (stream-K's first ``sk_units``; split-K: every
        unit) that their CTAs reach, the data-parallel units (``range``; unit ``u`` computes tile ``u - sk_units +
        sk_tiles`` whole), and the CTAs that stop early. CTA ``c`` takes units ``c, c + ctas, ...`` below ``units``
        and stops at the first whose first piece computes no iteration (``WorkTileInfo::is_valid`` is
        ``k_tile_count > 0``: the kernel's ``while (work_tile_info.is_valid())`` loop ends there)."""
        h = _host(self, tiles, k_tiles)
        n = self.units(tiles, k_tiles)
        split = n if h["mode"] == "split_k" else int(h.get("sk_units", 0))
        out: list[Piece] = []
        stopped: set[int] = set()
        for u in range(split):  # in walk order per CTA: a CTA's units are increasing
            if u % self.ctas in stopped:
                continue
            ps = self.unit_pieces(u, tiles, k_tiles)
            if ps[0].count <= 0:
                stopped.add(u % self.ctas)
                continue
            out += ps
        return out, range(split, n), frozenset(stopped)

    def pieces(self, tiles: int, k_tiles: int) -> list[Piece]:
        """Every piece the CTAs compute (``walk``'s three parts put together)."""
        split, dp, stopped = self.walk(tiles, k_tiles)
        return split + [p for u in dp if u % self.ctas not in stopped for p in self.unit_pieces(u, tiles, k_tiles)]

    def stopped(self, tiles: int, k_tiles: int) -> list[int]:
        """The units whose first piece is empty: each ends its CTA's walk."""
        n = self.units(tiles, k_tiles)
        h = _host(self, tiles, k_tiles)
        first = n if h["mode"] == "split_k" else int(h.get("sk_units", 0))
        return [u for u in range(first) if self.unit_pieces(u, tiles, k_tiles)[0].count <= 0]

    def describe(self) -> str:
        extra = "".join([f", max_groups={self.max_groups}" if self.max_groups > 1 else "",
                         f", splits={self.splits}" if self.splits > 1 else "",
                         f", alignment={self.alignment}" if self.alignment > 1 else "",
                         "" if self.big_units else ", big_units=false",
                         "" if self.end_adjust else ", end_adjust=false",
                         "" if self.reduction == "deterministic" else f", reduction={self.reduction}"])
        return f"stream_k(ctas={self.ctas}, {self.decomposition}{extra})"


@lru_cache(maxsize=1024)
def _host(s: StreamKScheduler, tiles: int, k_tiles: int) -> dict[str, int | str]:
    """``s.host(tiles, k_tiles)``, computed once per problem (every unit of it reads it; read-only)."""
    return s.host(tiles, k_tiles)


@lru_cache(maxsize=64)
def _unit_ranges(s: StreamKScheduler, tiles: int, k_tiles: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return s._ranges(tiles, k_tiles)
