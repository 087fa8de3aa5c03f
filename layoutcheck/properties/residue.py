"""Claims about ragged problems, for every problem size in a range: residue tiles and tile schedulers.

``ResidueCover(tiling, sizes)``: for every problem size in the box ``sizes`` (inclusive ranges per mode), every
in-bounds element is owned exactly once among the performed (predicated-true) accesses, and no performed access is
out of bounds. An access of tile ``t`` at tile index ``i`` (the ``tv`` map's value) sits at ``t * tile + idx2crd(i)``
(CuTe's colex coordinate, the last mode unbounded: an index past the tile reaches into the next tile's rows) and is
performed iff its coordinate is inside the problem (``coord_lt_shape``, ``tma``) or always (``none``). The
counterexample is the smallest problem size (lexicographically) and, at that size, the lexicographically smallest
broken coordinate; it is re-checked point-wise (the accesses that land on that one coordinate), so a size near 10^9
re-checks in the time of one tile.

``TilePartition(tiling)``: the precondition the per-mode decision of ``ResidueCover`` rests on, as a claim of its own:
the ``tv`` map partitions the tile (every tile element owned by exactly one (thread, value), none past the tile).
Where it fails, ``ResidueCover`` is still decided by enumeration (the exhaustive engine, every size of the box), and
the Z3 engine answers UNKNOWN naming the broken precondition: a ``tv`` map that owns an element twice or reaches past
the tile may still cover every problem of a box (the extra access predicated off), so its failure is no witness.

``ScheduleBijection(scheduler, grids)``: for every tile grid ``GM x GN`` in the box ``grids``, the scheduler's map
from unmasked launch indices to tiles is a bijection onto the grid. Counterexample: the smallest grid and the tile
computed twice, never, or outside.

The exhaustive decision enumerates every size (the reference, for small ranges); the Z3 engine decides the whole
range symbolically over the sizes (``engines/sizes_z3.py``). Both read the index math of ``models.residue`` and
``models.schedulers``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.layout import size
from layoutcheck.errors import LayoutError
from layoutcheck.expr.ir import ceil_div, var
from layoutcheck.expr.numpy import evaluate
from layoutcheck.models.residue import ResidueTiling
from layoutcheck.models.schedulers import ProblemListScheduler, TileScheduler
from layoutcheck.properties.base import Decision, Property, Undecided
from layoutcheck.witness import ResidueOob, ResidueOwners, TileDuplicate, TileMissing, TileOutside, from_json

Ranges = tuple[tuple[int, int], ...]


def _check_ranges(ranges: Ranges, n: int, what: str) -> None:
    if len(ranges) != n or any(not (isinstance(lo, int) and isinstance(hi, int) and 1 <= lo <= hi)
                               for lo, hi in ranges):
        raise LayoutError(f"{what}: expected {n} inclusive ranges (lo, hi) with 1 <= lo <= hi, found {ranges}")


def _count(ranges: Ranges) -> int:
    n = 1
    for lo, hi in ranges:
        n *= hi - lo + 1
    return n


_BATCH_POINTS = 1 << 16
"""Launch indices screened per NumPy batch by ``ScheduleBijection.exhaustive`` (bounds a batch's memory)."""


def _fmt(ranges: Ranges, names: tuple[str, ...]) -> str:
    return ", ".join(f"{k} in [{lo},{hi}]" for k, (lo, hi) in zip(names, ranges, strict=True))


@dataclass(frozen=True, slots=True)
class ResidueCover(Property):
    """Every in-bounds element owned exactly once by a performed access, none out of bounds, for all sizes."""

    tiling: ResidueTiling
    sizes: Ranges
    name: ClassVar[str] = "residue_cover"

    def __post_init__(self) -> None:
        _check_ranges(self.sizes, len(self.tiling.dims), self.name)

    def subjects(self) -> tuple:
        return () if self.tiling.tv is None else (self.tiling.tv,)

    def subject(self) -> str:
        t = self.tiling
        tv = "" if t.tv is None else f", tv {t.tv}"
        return (f"tile {'x'.join(map(str, t.tile))} ({t.count}, predicate {t.predicate}{tv}) over "
                f"{_fmt(self.sizes, t.dims)}")

    def domain_size(self) -> int:
        """Accesses enumerated over all sizes (each size's grid of whole tiles; the product of per-mode sums)."""
        n = 1
        for (lo, hi), b in zip(self.sizes, self.tiling.tile, strict=True):
            if hi - lo > 1 << 16:
                n *= (hi - lo + 1) * (-(-hi // b) * b)  # an upper bound: far beyond any enumeration anyway
            else:
                n *= sum(-(-s // b) * b for s in range(lo, hi + 1))
        return n

    bytes_per_point: ClassVar[int] = 8
    """One size at a time is held (48 bytes per access of the largest size); the total bounds the time."""

    def exhaustive(self) -> Decision | Undecided:
        """Where ``tv`` partitions the tile (``tiling.partition() is None``) every size of the box is screened per
        mode (``first_failing``, exact; a NumPy pass over each mode's range) and only the first failing size is
        enumerated alone (``tiling.violation``); otherwise every size is enumerated in ``itertools.product`` order.
        Either way the witness is the one the size-by-size loop finds."""
        why = self.tiling.unmodelled()
        if why is not None:
            return Undecided(f"not modelled: {why}")
        if self.tiling.partition() is not None:
            for sizes in itertools.product(*[range(lo, hi + 1) for lo, hi in self.sizes]):
                w = self.tiling.violation(sizes)
                if w is not None:
                    return Decision(False, w)
            return Decision(True, None, {"sizes": _count(self.sizes)})
        first = self.first_failing()
        if first is None:
            return Decision(True, None, {"sizes": _count(self.sizes)})
        w = self.tiling.violation(first)
        if w is None:  # the screen and the enumeration disagree: decide by the enumeration alone (never PROVEN)
            raise AssertionError(f"residue_cover: the per-mode screen flags sizes {first}, the enumeration does not")
        return Decision(False, w)

    def first_failing(self) -> tuple[int, ...] | None:
        """The first size of the box in ``itertools.product`` order whose accesses break the claim, or ``None``.

        Pre: ``tv`` is a bijection onto the tile (``tiling.partition() is None``). Then the accesses of one size are the
        product over modes of ``t * b + x`` (``t`` below the mode's tile count ``g``, ``x`` below its extent ``b``):
        each mode's coordinates are ``0 .. g*b - 1``, each once. Under ``coord < shape`` (and TMA's clipping) the
        performed accesses are the product of ``0 .. min(g*b, s) - 1`` -- never out of bounds, and every element
        owned once iff ``g*b >= s`` in every mode. With no predicate every access is performed: owned once and in
        bounds iff ``g*b == s`` in every mode (a mode with no tile leaves every element unowned). So a size fails iff
        one of its modes fails on its own, and the first failing size is the smallest of, per mode, the box's first
        size with that mode at its first failing extent. ``tiling.mode_fails`` states the per-mode test (the same
        tree the Z3 engine proves over the whole range), evaluated here on each mode's range at once.
        """
        t = self.tiling
        firsts: list[tuple[int, ...]] = []
        for d, (lo, hi) in enumerate(self.sizes):
            s = np.arange(lo, hi + 1, dtype=np.int64)
            bad = np.flatnonzero(np.broadcast_to(evaluate(t.mode_fails(var("s", hi + 1), d), {"s": s}), s.shape))
            if bad.size:
                firsts.append(tuple(int(s[bad[0]]) if k == d else r[0] for k, r in enumerate(self.sizes)))
        return min(firsts) if firsts else None

    def smallest_break(self, sizes: tuple[int, ...]) -> dict[str, Any]:
        """The lexicographically smallest coordinate that breaks the claim at ``sizes``: an element owned by no
        performed access (``owners``) or a performed access out of bounds (``oob``), whichever is smaller.

        Pre: ``tv`` is a bijection onto the tile and some mode of ``sizes`` fails (``tiling.mode_fails``).
        Post: the smallest ``(kind, coord)`` over every such element and access of this size. With ``c_d = g*b``
        the reach of mode ``d`` (``first_failing``), the unowned elements are those in bounds with some
        ``e_d >= c_d`` (so ``c_d < s_d``); without a predicate, and only if every mode has a tile, the accesses out
        of bounds are those with some ``x_d >= s_d`` (so ``c_d > s_d``). The smallest of those of mode ``d`` is zero
        but ``c_d`` (resp. ``s_d``) in mode ``d``, and every member of the set is at least one of these candidates,
        so the answer is the smallest candidate.

        >>> ResidueCover(ResidueTiling(("M", "N"), (4, 4), predicate="none"),
        ...              ((1, 9), (1, 9))).smallest_break((1, 1)).to_json()
        {'kind': 'oob', 'sizes': [1, 1], 'coord': [0, 1]}
        >>> ResidueCover(ResidueTiling(("M", "N"), (4, 4), count="div"),
        ...              ((1, 9), (1, 9))).smallest_break((5, 9)).to_json()
        {'kind': 'owners', 'sizes': [5, 9], 'coord': [0, 8], 'count': 0}
        """
        reach = [int(g) * b for g, b in zip(self.tiling.grid(sizes), self.tiling.tile, strict=True)]
        every = self.tiling.predicate == "none" and min(reach) > 0
        found: list[tuple[list[int], str]] = []
        for d, (c, s) in enumerate(zip(reach, sizes, strict=True)):
            if c < s:
                found.append(([c if k == d else 0 for k in range(len(sizes))], "owners"))
            elif c > s and every:
                found.append(([s if k == d else 0 for k in range(len(sizes))], "oob"))
        coord, kind = min(found)
        return ResidueOwners(list(sizes), coord, 0) if kind == "owners" else ResidueOob(list(sizes), coord)

    def slot_decision(self) -> Decision:
        """The claim for every size of the box, any ``tv`` map (no partition needed), under ``ceil_div`` and a
        predicate (``coord_lt_shape`` or ``tma``), in one pass over the tile: the smallest failing size and its
        smallest broken coordinate, or PROVEN.

        Pre: ``tiling.count == "ceil_div"``, ``tiling.predicate != "none"``, ``tiling.unmodelled() is None``.
        Proof: write an access's tile-local coordinate ``x`` (``idx2crd``: every mode below its extent but the last)
        as its *slot* ``x mod b`` and its overflow ``q = x_last // b_last``. An in-bounds element ``c`` has
        ``c_d < s_d <= g_d * b_d`` (``g = ceil_div(s, b)``), so its tile ``c // b`` is launched, and the accesses on
        it are those of slot ``c mod b`` with ``0 <= c_last // b_last - q < g_last``, i.e. (``c_last // b_last <
        g_last``) those with ``q <= tau = c_last // b_last``. Every access performed is in bounds (the predicate),
        so ``s`` breaks the claim iff some in-bounds ``c`` sees ``#{q <= tau} != 1``. For a slot ``sigma`` with
        overflows ``q1 <= q2 <= ...``: elements of the slot exist iff ``sigma < s`` (every mode), with
        ``tau = 0 .. T-1``, ``T = ceil_div(s_last - sigma_last, b_last)``; all see one owner iff ``q1 == 0 < q2`` and
        ``q2 >= T``, i.e. ``s_last <= sigma_last + q2 * b_last``. So the failing sizes of a slot are the orthant
        ``s >= theta(sigma)``, ``theta_d = sigma_d + 1`` but ``theta_last = sigma_last + 1 + q2 * b_last`` when the
        slot has exactly one ``q == 0`` (none when it has no ``q2`` either); the smallest failing size of the box is
        the smallest ``max(theta, lo)`` inside it, and at that size the smallest broken coordinate of a failing slot
        is ``sigma`` with ``tau`` = 0 (no single ``q == 0``) or ``q2`` (two owners) in the last mode.

        >>> from layoutcheck import Layout
        >>> ResidueCover(ResidueTiling(("M",), (4,), tv=Layout(4, 2)), ((1, 9),)).slot_decision().witness.to_json()
        {'kind': 'owners', 'sizes': [2], 'coord': [1], 'count': 0}
        """
        t = self.tiling
        b = np.array(t.tile, dtype=np.int64)
        loc = t.local_coords()
        slot, q = loc % b[None, :], loc[:, -1] // b[-1]
        mul = np.cumprod(np.concatenate([[1], b[:-1]]))
        key = slot @ mul
        order = np.lexsort((q, key))
        key, q = key[order], q[order]
        n = t.tile_size
        first = np.searchsorted(key, np.arange(n), side="left")
        count = np.searchsorted(key, np.arange(n), side="right") - first
        zeros = np.bincount(key[q == 0], minlength=n)
        q2 = np.where(count >= 2, q[np.minimum(first + 1, len(q) - 1)], -1)  # -1: no second owner
        sig = np.stack([(np.arange(n) // int(mul[d])) % int(b[d]) for d in range(len(b))], axis=1)
        single = zeros == 1
        never = single & (q2 < 0)
        theta = sig + 1
        theta[:, -1] += np.where(single, np.maximum(q2, 0) * b[-1], 0)
        lo = np.array([r[0] for r in self.sizes], dtype=np.int64)
        hi = np.array([r[1] for r in self.sizes], dtype=np.int64)
        cand = np.maximum(theta, lo[None, :])
        ok = ~never & np.all(cand <= hi[None, :], axis=1)
        if not ok.any():
            return Decision(True, None, {"slots": n})
        c = cand[ok]
        sizes = c[np.lexsort(c.T[::-1])[0]]
        fails = ~never & np.all(theta <= sizes[None, :], axis=1)
        tau = np.where(single, q2, 0)[fails]
        crd = sig[fails].copy()
        crd[:, -1] += tau * b[-1]
        k = int(np.lexsort(crd.T[::-1])[0])
        owners = int(np.sum(q[key == np.flatnonzero(fails)[k]] <= tau[k]))
        return Decision(False, ResidueOwners([int(x) for x in sizes], [int(x) for x in crd[k]], owners), {"slots": n})

    def recheck(self, w: dict[str, Any]) -> bool:
        """Point-wise, against the definition: at the witness's size (inside the box) the accesses that land on its
        coordinate (``tiling.owners_at``) break the claim there -- ``owners``: in bounds and owned ``count != 1``
        times by performed accesses; ``oob``: out of bounds and hit by a performed access."""
        sizes, c = tuple(w["sizes"]), tuple(w["coord"])
        if len(sizes) != len(self.sizes) or len(c) != len(sizes) or not all(
                lo <= s <= hi for s, (lo, hi) in zip(sizes, self.sizes, strict=True)):
            return False
        if self.tiling.unmodelled() is not None:
            return False
        hits, performed = self.tiling.owners_at(sizes, c)
        inside = all(0 <= x < s for x, s in zip(c, sizes, strict=True))
        if w["kind"] == "oob":
            return not inside and performed and hits > 0
        return w["kind"] == "owners" and inside and performed and hits != 1 and hits == w.get("count", hits)

    def explain(self, w: dict[str, Any]) -> str:
        dims = self.tiling.dims
        at = " x ".join(f"{k}={s}" for k, s in zip(dims, w["sizes"], strict=True))
        crd = "(" + ",".join(map(str, w["coord"])) + ")"
        if self.tiling.threads:
            return self._explain_copy(w, at, crd)
        if w["kind"] == "oob":
            return f"problem {at}: the access at {crd} is performed but out of bounds"
        tile, local = self.tiling.owner(tuple(w["coord"]))
        n = w.get("count", 0)
        how = "no performed access" if n == 0 else f"{n} performed accesses"
        return (f"problem {at}: element {crd} (tile {tile}, local {local}) has {how}; grid "
                f"{self.tiling.grid(tuple(w['sizes']))} ({self.tiling.count})")


    def _explain_copy(self, w: dict[str, Any], at: str, crd: str) -> str:
        """A tiled copy's witness in its own terms: the copied tile's extents, the element in tile coordinates, and
        the (thread, value) of the copy tile (``zipped_divide``'s rest coordinate) that reads or misses it."""
        t = self.tiling
        tiler = "x".join(map(str, t.tile))
        grid = "x".join(str(int(g)) for g in t.grid(tuple(w["sizes"])))
        if w["kind"] == "oob":
            tile, k = t.access_of(tuple(w["coord"]))
            who = f"thread {k % t.threads}, value {k // t.threads} of copy tile (" + ",".join(map(str, tile)) + ")"
            return (f"tile {at}: {who} copies element {crd}, outside the tile (copy tiler {tiler}, {grid} copy tiles, "
                    f"predicate {t.predicate})")
        n = w.get("count", 0)
        how = "no thread copies" if n == 0 else f"{n} (thread, value) pairs copy"
        return (f"tile {at}: {how} element {crd} (copy tiler {tiler}, {grid} copy tiles by {t.count}, "
                f"predicate {t.predicate})")


@dataclass(frozen=True, slots=True)
class TilePartition(Property):
    """``tv`` partitions the tile: every tile element owned by exactly one (thread, value), no index past the tile
    (the precondition of ``ResidueCover``'s per-mode decision, module docstring)."""

    tiling: ResidueTiling
    name: ClassVar[str] = "tile_partition"
    bytes_per_point: ClassVar[int] = 16

    def subjects(self) -> tuple:
        return () if self.tiling.tv is None else (self.tiling.tv,)

    def subject(self) -> str:
        tv = "the identity" if self.tiling.tv is None else str(self.tiling.tv)
        return f"tv {tv} over the tile {'x'.join(map(str, self.tiling.tile))}"

    def domain_size(self) -> int:
        return self.tiling.tile_size

    def exhaustive(self) -> Decision | Undecided:
        why = self.tiling.unmodelled()
        if why is not None:
            return Undecided(f"not modelled: {why}")
        w = self.tiling.partition()
        return Decision(w is None, w)

    def recheck(self, w: dict[str, Any]) -> bool:
        """Against the definition, by counting the ``tv`` map's indices: the element is owned ``count != 1`` times,
        or some (thread, value) reaches the index past the tile."""
        offs = [int(x) for x in self.tiling.local_offsets()]
        n, e = self.tiling.tile_size, int(w["local"])
        if "count" in w:
            return 0 <= e < n and offs.count(e) == w["count"] != 1
        t_n = size(self.tiling.tv[0]) if self.tiling.tv is not None and len(self.tiling.tv) == 2 else 1
        k = w["thread"] + t_n * w["value"]
        return e >= n and 0 <= k < len(offs) and offs[k] == e

    def explain(self, w: dict[str, Any]) -> str:
        tv = self.tiling.tv
        if "count" in w:
            crd = "(" + ",".join(map(str, w["coord"])) + ")"
            return f"the tv layout {tv} owns tile element {w['local']} {crd} {w['count']} times, not once"
        return (f"the tv layout {tv} maps thread {w['thread']}, value {w['value']} to tile index {w['local']}, past "
                f"the {self.tiling.tile_size}-element tile")


@dataclass(frozen=True, slots=True)
class ScheduleBijection(Property):
    """The scheduler maps its unmasked launch indices one-to-one onto every ``GM x GN`` grid in ``grids``."""

    scheduler: TileScheduler
    grids: Ranges
    name: ClassVar[str] = "schedule_bijection"
    bytes_per_point: ClassVar[int] = 64

    def __post_init__(self) -> None:
        _check_ranges(self.grids, 2, self.name)

    def subjects(self) -> tuple:
        return ()

    def subject(self) -> str:
        return f"{self.scheduler.describe()} over {_fmt(self.grids, ('GM', 'GN'))}"

    def domain_size(self) -> int:
        (a, b), (c, d) = self.grids
        if self.scheduler.kind == "persistent":  # the grid rounded up to swizzle * cluster (at most 8 * cluster)
            sw = max(self.scheduler.swizzle_size, 8 if self.scheduler.max_swizzle >= 8 else self.scheduler.max_swizzle)
            b, d = b + sw * self.scheduler.cluster[0], d + sw * self.scheduler.cluster[1]
        if self.scheduler.kind == "clc":  # the grid rounded up to the cluster
            b, d = b + self.scheduler.cluster[0], d + self.scheduler.cluster[1]
        return (b * (b + 1) // 2 - (a - 1) * a // 2) * (d * (d + 1) // 2 - (c - 1) * c // 2) * 2

    def exhaustive(self) -> Decision:
        """Every grid of the box, in ``itertools.product`` order (``GM`` slowest): the first failing grid's
        ``violation`` is the witness. The grids are screened in batches (``failing_grids``: one NumPy evaluation of
        the scheduler's tree over the launch indices of many grids at once); only a grid the screen flags is
        enumerated alone, so the witness is the one the grid-by-grid loop finds."""
        grids = list(itertools.product(range(self.grids[0][0], self.grids[0][1] + 1),
                                       range(self.grids[1][0], self.grids[1][1] + 1)))
        ends = np.cumsum(np.prod(self.screen_bounds(grids), axis=1))  # launch indices up to each grid
        start, done = 0, 0
        while start < len(grids):  # a batch: grids up to the first whose points reach _BATCH_POINTS, or the rest
            stop = min(int(np.searchsorted(ends, done + _BATCH_POINTS, side="left")) + 1, len(grids))
            batch = grids[start:stop]
            for bad in self.failing_grids(batch) if len(batch) > 1 else batch:
                w = self.violation(*bad)
                if w is not None:
                    return Decision(False, w)
            start, done = stop, int(ends[stop - 1])
        return Decision(True, None, {"grids": _count(self.grids)})

    def screen_bounds(self, grids: list[tuple[int, int]]) -> np.ndarray:
        """Per grid (one row each), the exclusive bounds of the indices ``failing_grids`` enumerates: the scheduler's
        linear launch index where it has one (``linear_bounds``, the launch box's image under the one-to-one
        ``linearize``: the same number of points), else its launch indices; the scheduler's own expressions,
        evaluated for every grid at once."""
        s = self.scheduler
        gms, gns = (np.array(g, dtype=np.int64) for g in zip(*grids, strict=True))
        GM, GN = var("GM", int(gms.max()) + 1), var("GN", int(gns.max()) + 1)
        box = s.linear_bounds(GM, GN)
        box = box if box is not None else s.launch_bounds(GM, GN)
        env = {"GM": gms, "GN": gns}
        return np.stack([np.broadcast_to(evaluate(b, env), gms.shape) for b in box], axis=1).astype(np.int64)

    def failing_grids(self, grids: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The grids of ``grids`` (in their order) where some unmasked launch index lands outside the grid or some
        tile is not hit exactly once: ``violation(gm, gn) is not None`` for exactly these.

        Pre: ``grids`` non-empty. Post: the same decision as ``violation`` grid by grid: the scheduler's one tree
        ``tile(idx, GM, GN)`` is evaluated with ``GM``, ``GN`` and the launch indices as variables (arrays holding
        every grid's points side by side), where ``violation`` evaluates it with ``GM``, ``GN`` as ints -- the IR's
        constructors are exact for every value below a variable's bound, so the values are the same. Where the
        scheduler has a linear launch index, its ``linear_tile`` is evaluated over the linear box instead
        (``screen_bounds``): ``tile`` is ``linear_tile`` after the one-to-one ``linearize``, so every grid sees the
        same multiset of tiles.

        >>> ScheduleBijection(TileScheduler("grouped", group=8, ctas=4, drop_partial_group=True), ((1, 9), (1, 2))
        ...                   ).failing_grids([(8, 1), (9, 1), (9, 2)])
        [(9, 1), (9, 2)]
        """
        s = self.scheduler
        bounds = self.screen_bounds(grids)  # (grids, dims)
        points = np.prod(bounds, axis=1)
        gid = np.repeat(np.arange(len(grids)), points)
        local = np.arange(gid.size, dtype=np.int64) - np.repeat(np.cumsum(points) - points, points)
        env: dict[str, np.ndarray] = {}
        for k in reversed(range(bounds.shape[1])):  # row-major decode of each grid's local point (order is free)
            b = bounds[gid, k]
            env[f"i{k}"], local = local % np.maximum(b, 1), local // np.maximum(b, 1)
        gms, gns = (np.array(g, dtype=np.int64) for g in zip(*grids, strict=True))
        env["GM"], env["GN"] = gms[gid], gns[gid]
        names = tuple(var(f"i{k}", max(1, int(bounds[:, k].max()))) for k in range(bounds.shape[1]))
        GM, GN = var("GM", int(gms.max()) + 1), var("GN", int(gns.max()) + 1)
        linear = s.linear_bounds(GM, GN) is not None  # then the points are linear indices: one tree fewer to walk
        tree = s.linear_tile(names, GM, GN) if linear else s.tile(names, GM, GN)
        m, n, valid = (np.broadcast_to(evaluate(x, env), gid.shape) for x in tree)
        gm, gn = env["GM"], env["GN"]
        outside = valid & ((m < 0) | (m >= gm) | (n < 0) | (n >= gn))
        inside = valid & ~outside
        first = np.cumsum(gms * gns) - gms * gns  # each grid's first tile in one array of every grid's tiles
        counts = np.bincount((first[gid] + m + gm * n)[inside], minlength=int((gms * gns).sum()))
        bad = np.zeros(len(grids), dtype=bool)
        bad[gid[outside]] = True
        bad[np.searchsorted(first, np.flatnonzero(counts != 1), side="right") - 1] = True
        return [grids[int(k)] for k in np.flatnonzero(bad)]

    def violation(self, gm: int, gn: int) -> dict[str, Any] | None:
        """The first fault of one grid (NumPy over every launch index): a tile outside the grid computed (the first
        such launch index, ``index``), else the lexicographically smallest tile ``(m, n)`` computed twice (its first
        two launch indices, ``index`` and ``other``) or never."""
        s = self.scheduler
        bounds = s.launch_bounds(gm, gn)
        grid = np.meshgrid(*[np.arange(b, dtype=np.int64) for b in bounds], indexing="ij")
        env = {f"i{k}": a.reshape(-1) for k, a in enumerate(grid)}
        names = tuple(var(k, max(1, b)) for k, b in zip(env, bounds, strict=True))
        idx = np.stack(list(env.values()), axis=1) if env else np.zeros((0, 0), dtype=np.int64)
        m, n, valid = (np.broadcast_to(evaluate(x, env), idx[:, 0].shape) for x in s.tile(names, gm, gn))
        idx, m, n = idx[valid], m[valid], n[valid]
        out = np.flatnonzero((m < 0) | (m >= gm) | (n < 0) | (n >= gn))
        if out.size:
            k = int(out[0])
            return TileOutside([gm, gn], [int(m[k]), int(n[k])], index=[int(x) for x in idx[k]])
        counts = np.bincount(n + gn * m, minlength=gm * gn)  # row-major: the smallest (m, n) first
        bad = np.flatnonzero(counts != 1)
        if not bad.size:
            return None
        t = int(bad[0])
        tile = [t // gn, t % gn]
        if counts[t] == 0:
            return TileMissing([gm, gn], tile, 0)
        two = np.flatnonzero((m == tile[0]) & (n == tile[1]))[:2]
        return TileDuplicate([gm, gn], tile, int(counts[t]), [int(x) for x in idx[two[0]]],
                             [int(x) for x in idx[two[1]]])

    def computes(self, idx: tuple[int, ...], gm: int, gn: int) -> tuple[int, int] | None:
        """The tile launch index ``idx`` computes (``None``: outside the launch bounds, or masked): one point."""
        s = self.scheduler
        bounds = [int(b) for b in s.launch_bounds(gm, gn)]
        if len(idx) != len(bounds) or not all(0 <= i < b for i, b in zip(idx, bounds, strict=True)):
            return None
        m, n, ok = s.tile(tuple(int(i) for i in idx), gm, gn)
        return (int(m), int(n)) if bool(ok) else None

    def recheck(self, w: dict[str, Any]) -> bool:
        """Point-wise, against the definition (no grid is enumerated): ``outside``: launch index ``index`` is
        unmasked and computes the tile, outside the grid; ``duplicate``: ``index`` and ``other`` are distinct,
        unmasked and compute the same tile; ``missing``: the tile is in the grid and its only possible preimage
        (``TileScheduler.index``, one-to-one) does not compute it."""
        gm, gn = w["grid"]
        if not (self.grids[0][0] <= gm <= self.grids[0][1] and self.grids[1][0] <= gn <= self.grids[1][1]):
            return False
        tile = tuple(w["tile"])
        inside = 0 <= tile[0] < gm and 0 <= tile[1] < gn
        if w["kind"] == "outside":
            return not inside and self.computes(tuple(w["index"]), gm, gn) == tile
        if w["kind"] == "duplicate":
            return (w["index"] != w["other"] and self.computes(tuple(w["index"]), gm, gn) == tile
                    == self.computes(tuple(w["other"]), gm, gn))
        if w["kind"] != "missing" or not inside:
            return False
        if self.scheduler.kind in ("persistent", "expr", "clc"):  # no inverse, or one only the tests vouch for
            return self._missing_in(gm, gn, tile)
        idx = tuple(int(i) for i in self.scheduler.index(tile[0], tile[1], gm, gn))
        return self.computes(idx, gm, gn) != tile

    def _missing_in(self, gm: int, gn: int, tile: tuple[int, ...]) -> bool:
        """No unmasked launch index of grid ``gm x gn`` computes ``tile`` (every launch index, NumPy)."""
        s = self.scheduler
        bounds = [int(b) for b in s.launch_bounds(gm, gn)]
        grid = np.meshgrid(*[np.arange(b, dtype=np.int64) for b in bounds], indexing="ij")
        env = {f"i{k}": a.reshape(-1) for k, a in enumerate(grid)}
        names = tuple(var(k, max(1, b)) for k, b in zip(env, bounds, strict=True))
        shape = env["i0"].shape
        m, n, valid = (np.broadcast_to(evaluate(x, env), shape) for x in s.tile(names, gm, gn))
        return not bool(np.any(valid & (m == tile[0]) & (n == tile[1])))

    def explain(self, w: dict[str, Any]) -> str:
        gm, gn = w["grid"]
        tile = "(" + ",".join(map(str, w["tile"])) + ")"
        what = {"missing": "is computed by no CTA", "duplicate": f"is computed {w.get('count', 2)} times",
                "outside": "is outside the grid but computed"}[w["kind"]]
        by = [self._launch_words(w[k]) for k in ("index", "other") if k in w]
        by_text = f" (by {' and '.join(by)})" if by else ""
        return f"grid {gm}x{gn} tiles ({self.scheduler.describe()}): tile {tile} {what}{by_text}"

    def _launch_words(self, idx: list[int]) -> str:
        """A launch index in the scheduler's own terms: ``CTA c, iteration i`` for a persistent loop."""
        if self.scheduler.kind in ("grouped", "persistent", "expr"):
            return f"CTA {idx[0]} at iteration {idx[1]}"
        if self.scheduler.kind == "clc":
            return f"CLC CTA id ({idx[0]},{idx[1]})"
        if self.scheduler.kind == "split_k":
            return f"split {idx[0]}, k-tile {idx[1]} of its slice, column {idx[2]}"
        return "CTA (" + ",".join(map(str, idx)) + ")"


@dataclass(frozen=True, slots=True)
class ProblemListBijection(Property):
    """A grouped GEMM's work tiles: for every problem list of ``P`` problems (``P`` in ``problems``, each problem's
    ``(M, N)`` in ``sizes``), the host's launched work indices that the device maps into a problem compute every
    tile of every problem exactly once and nothing outside a problem's tile grid."""

    scheduler: ProblemListScheduler
    problems: tuple[int, int]
    sizes: Ranges
    name: ClassVar[str] = "schedule_bijection"
    bytes_per_point: ClassVar[int] = 64

    def __post_init__(self) -> None:
        _check_ranges(self.sizes, 2, self.name)
        _check_ranges((self.problems,), 1, self.name)

    def subjects(self) -> tuple:
        return ()

    def subject(self) -> str:
        lo, hi = self.problems
        return f"{self.scheduler.describe()} over {lo}..{hi} problems, {_fmt(self.sizes, ('M', 'N'))}"

    def lists(self) -> Iterator[tuple[tuple[int, int], ...]]:
        """Every problem list of the box: shorter lists first, then ``itertools.product`` order."""
        one = list(itertools.product(range(self.sizes[0][0], self.sizes[0][1] + 1),
                                     range(self.sizes[1][0], self.sizes[1][1] + 1)))
        for p in range(self.problems[0], self.problems[1] + 1):
            yield from itertools.product(one, repeat=p)

    def domain_size(self) -> int:
        one = _count(self.sizes)
        (_, b), (_, d) = self.sizes
        tiles = ceil_div(b, self.scheduler.block[0]) * ceil_div(d, self.scheduler.block[1]) + 1
        return sum(one ** p * p * tiles for p in range(self.problems[0], self.problems[1] + 1)) * 2

    def exhaustive(self) -> Decision:
        for sizes in self.lists():
            w = self.violation(sizes)
            if w is not None:
                return Decision(False, w)
        return Decision(True, None, {"lists": sum(1 for _ in self.lists())})

    def violation(self, sizes: tuple[tuple[int, int], ...]) -> dict[str, Any] | None:
        """The first fault of one problem list: a work index whose tile is outside its problem's grid, else the
        first tile (problem, then ``(m, n)`` row-major) computed twice or never."""
        s = self.scheduler
        host = int(s.host_total(sizes))
        walked = sum(int(s.walked(z)) for z in sizes)
        hits: dict[tuple[int, int, int], list[int]] = {}
        for t in range(max(host, walked)):
            p, m, n, ok = s.tile(t, sizes)
            if not ok:
                continue
            gm, gn = s.grid(sizes[p])
            if not (0 <= m < gm and 0 <= n < gn):
                return self._witness("outside", sizes, p, m, n, t, host)
            hits.setdefault((p, m, n), []).append(t)
        for p, z in enumerate(sizes):
            gm, gn = s.grid(z)
            for m, n in itertools.product(range(gm), range(gn)):
                ts = hits.get((p, m, n), [])
                if len(ts) != 1:
                    return self._witness("missing" if not ts else "duplicate", sizes, p, m, n,
                                         ts[0] if ts else None, host, ts[1] if len(ts) > 1 else None)
        return None

    def _witness(self, kind: str, sizes: tuple[tuple[int, int], ...], p: int, m: int, n: int, t: int | None,
                 host: int, other: int | None = None) -> dict[str, Any]:
        s = self.scheduler
        w: dict[str, Any] = {"kind": kind, "problems": [list(z) for z in sizes], "problem": p, "tile": [m, n],
                             "host_count": host, "device_tiles": sum(int(s.walked(z)) for z in sizes)}
        for key, x in (("index", t), ("other", other)):
            if x is not None:
                w[key] = [x % s.ctas, x // s.ctas]
        return from_json(w)

    def recheck(self, w: dict[str, Any]) -> bool:
        """Point-wise against the definition: the work indices named compute the tile (outside its problem's grid,
        or twice); a missing tile's only possible index (``index``) is not launched or does not compute it."""
        sizes = tuple(tuple(z) for z in w["problems"])
        if not (self.problems[0] <= len(sizes) <= self.problems[1]) or not all(
                lo <= v <= hi for z in sizes for v, (lo, hi) in zip(z, self.sizes, strict=True)):
            return False
        s, p, (m, n) = self.scheduler, w["problem"], w["tile"]
        gm, gn = s.grid(sizes[p])
        inside = 0 <= m < gm and 0 <= n < gn

        def computes(idx: list[int]) -> bool:
            t = idx[0] + s.ctas * idx[1]
            q, a, b, ok = s.tile(t, sizes)
            return 0 <= idx[0] < s.ctas and bool(ok) and (q, a, b) == (p, m, n)

        if w["kind"] == "outside":
            return not inside and computes(w["index"])
        if w["kind"] == "duplicate":
            return inside and w["index"] != w["other"] and computes(w["index"]) and computes(w["other"])
        t = int(s.index(p, m, n, sizes))
        return w["kind"] == "missing" and inside and not computes([t % s.ctas, t // s.ctas])

    def explain(self, w: dict[str, Any]) -> str:
        lst = "[" + ", ".join(f"({a},{b})" for a, b in w["problems"]) + "]"
        tile = "(" + ",".join(map(str, w["tile"])) + ")"
        what = {"missing": "is computed by no CTA", "duplicate": "is computed twice",
                "outside": "is outside its tile grid but computed"}[w["kind"]]
        by = [f"CTA {w[k][0]} at iteration {w[k][1]}" for k in ("index", "other") if k in w]
        by_text = f" (by {' and '.join(by)})" if by else ""
        return (f"problems (M,N) {lst} ({self.scheduler.describe()}): problem {w['problem']}'s tile {tile} {what}"
                f"{by_text}; the host launches {w['host_count']} work tiles, the device walks {w['device_tiles']}")


def residue_cover(tiling: ResidueTiling, sizes: Ranges) -> ResidueCover:
    """``ResidueCover`` for every problem size in ``sizes`` (one inclusive range per mode of the tiling)."""
    return ResidueCover(tiling, tuple(tuple(r) for r in sizes))


def tile_partition(tiling: ResidueTiling, sizes: Ranges | None = None) -> TilePartition:
    """``TilePartition``: the tiling's ``tv`` map partitions its tile (``sizes`` is accepted and unused, so a spec's
    ``residue`` config binds it like ``residue_cover``)."""
    return TilePartition(tiling)


def schedule_bijection(scheduler: Any, grids: Ranges, problems: tuple[int, int] | None = None) -> Property:
    """``ScheduleBijection`` for every ``GM x GN`` tile grid in ``grids``; for a ``StreamKScheduler``,
    ``properties.stream_k.StreamKCover`` for every ``(tiles, k_tiles)`` in ``grids``; for a ``ProblemListScheduler``,
    ``ProblemListBijection`` for every list of ``problems`` (a range of lengths) problems whose ``(M, N)`` lie in
    ``grids``."""
    from layoutcheck.models.stream_k import StreamKScheduler
    from layoutcheck.properties.stream_k import stream_k_cover

    if isinstance(scheduler, StreamKScheduler):
        return stream_k_cover(scheduler, grids)
    if isinstance(scheduler, ProblemListScheduler):
        return ProblemListBijection(scheduler, tuple(problems or (1, 1)), tuple(tuple(r) for r in grids))
    return ScheduleBijection(scheduler, tuple(tuple(r) for r in grids))
