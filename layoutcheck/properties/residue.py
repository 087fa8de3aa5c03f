"""Claims about ragged problems, for every problem size in a range: residue tiles and tile schedulers.

``ResidueCover(tiling, sizes)``: for every problem size in the box ``sizes`` (inclusive ranges per mode), every
in-bounds element is owned exactly once among the performed (predicated-true) accesses, and no performed access is
out of bounds. The counterexample is the smallest problem size (lexicographically) and the element.

``ScheduleBijection(scheduler, grids)``: for every tile grid ``GM x GN`` in the box ``grids``, the scheduler's map
from unmasked launch indices to tiles is a bijection onto the grid. Counterexample: the smallest grid and the tile
computed twice, never, or outside.

The exhaustive decision enumerates every size (the reference, for small ranges); the Z3 engine decides the whole
range symbolically over the sizes (``engines/sizes_z3.py``). Both read the index math of ``models.residue`` and
``models.schedulers``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.errors import LayoutError
from layoutcheck.expr.ir import var
from layoutcheck.expr.numpy import evaluate
from layoutcheck.models.residue import ResidueTiling
from layoutcheck.models.schedulers import TileScheduler
from layoutcheck.properties.base import Decision, Property

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
        _check_ranges(self.sizes, len(self.tiling.dims), "residue_cover")

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

    def exhaustive(self) -> Decision:
        """Pre-checked: ``tv`` owns every tile element once (``tile_local``). Then every size of the box is
        screened per mode (``first_failing``, exact; a NumPy pass over each mode's range) and only the first failing
        size is enumerated alone (``tiling.violation``): the witness is the one the size-by-size loop finds."""
        local = self.tile_local()
        if local is not None:
            return Decision(False, local)
        first = self.first_failing()
        if first is None:
            return Decision(True, None, {"sizes": _count(self.sizes)})
        w = self.tiling.violation(first)
        if w is None:  # the screen and the enumeration disagree: decide by the enumeration alone (never PROVEN)
            raise AssertionError(f"residue_cover: the per-mode screen flags sizes {first}, the enumeration does not")
        return Decision(False, w)

    def first_failing(self) -> tuple[int, ...] | None:
        """The first size of the box in ``itertools.product`` order whose accesses break the claim, or ``None``.

        Pre: ``tv`` is a bijection onto the tile (``tile_local() is None``). Then the accesses of one size are the
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

        >>> ResidueCover(ResidueTiling(("M", "N"), (4, 4), predicate="none"), ((1, 9), (1, 9))).smallest_break((1, 1))
        {'kind': 'oob', 'sizes': [1, 1], 'coord': [0, 1]}
        >>> ResidueCover(ResidueTiling(("M", "N"), (4, 4), count="div"), ((1, 9), (1, 9))).smallest_break((5, 9))
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
        return {"kind": kind, "sizes": list(sizes), "coord": coord, **({"count": 0} if kind == "owners" else {})}

    def tile_local(self) -> dict[str, Any] | None:
        """The size-independent half: ``tv`` is a bijection onto the tile (each element one thread and value)."""
        offs = self.tiling.local_offsets()
        counts = np.bincount(offs, minlength=self.tiling.tile_size) if offs.min() >= 0 else None
        if counts is not None and offs.max() < self.tiling.tile_size and np.all(counts == 1):
            return None
        bad = int(np.flatnonzero(counts != 1)[0]) if counts is not None and len(counts) == self.tiling.tile_size \
            else int(offs[(offs < 0) | (offs >= self.tiling.tile_size)][0])
        crd = self.tiling.local_coord(bad) if 0 <= bad < self.tiling.tile_size else (bad,)
        sizes = [max(lo, min(hi, c + 1)) for (lo, hi), c in zip(self.sizes, crd, strict=False)]
        sizes += [lo for lo, _ in self.sizes[len(sizes):]]
        w = self.tiling.violation(tuple(sizes))
        return w if w is not None else {"kind": "tile", "sizes": sizes, "coord": list(crd), "local": bad}

    def recheck(self, w: dict[str, Any]) -> bool:
        sizes = tuple(w["sizes"])
        if not all(lo <= s <= hi for s, (lo, hi) in zip(sizes, self.sizes, strict=True)):
            return False
        if w["kind"] == "tile":
            return self.tile_local() is not None
        got = self.tiling.violation(sizes)
        if got is None:
            return False
        crd, done = self.tiling.accesses(sizes)
        live = crd[done]
        c = np.array(w["coord"])
        if w["kind"] == "oob":
            return bool(np.any(np.all(live == c[None, :], axis=1))) and bool(np.any(c >= np.array(sizes)))
        owners = int(np.sum(np.all(live == c[None, :], axis=1)))
        return bool(np.all(c < np.array(sizes))) and owners != 1

    def explain(self, w: dict[str, Any]) -> str:
        dims = self.tiling.dims
        at = " x ".join(f"{k}={s}" for k, s in zip(dims, w["sizes"], strict=True))
        crd = "(" + ",".join(map(str, w["coord"])) + ")"
        if w["kind"] == "oob":
            return f"problem {at}: the access at {crd} is performed but out of bounds"
        if w["kind"] == "tile":
            return f"the tv layout {self.tiling.tv} does not own tile element {w['local']} exactly once"
        tile, local = self.tiling.owner(tuple(w["coord"]))
        n = w.get("count", 0)
        how = "no performed access" if n == 0 else f"{n} performed accesses"
        return (f"problem {at}: element {crd} (tile {tile}, local {local}) has {how}; grid "
                f"{self.tiling.grid(tuple(w['sizes']))} ({self.tiling.count})")


@dataclass(frozen=True, slots=True)
class ScheduleBijection(Property):
    """The scheduler maps its unmasked launch indices one-to-one onto every ``GM x GN`` grid in ``grids``."""

    scheduler: TileScheduler
    grids: Ranges
    name: ClassVar[str] = "schedule_bijection"
    bytes_per_point: ClassVar[int] = 64

    def __post_init__(self) -> None:
        _check_ranges(self.grids, 2, "schedule_bijection")

    def subjects(self) -> tuple:
        return ()

    def subject(self) -> str:
        return f"{self.scheduler.describe()} over {_fmt(self.grids, ('GM', 'GN'))}"

    def domain_size(self) -> int:
        (a, b), (c, d) = self.grids
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
        """The first tile computed twice, never, or outside the grid, for one grid (NumPy over launch indices)."""
        s = self.scheduler
        bounds = s.launch_bounds(gm, gn)
        idx = np.meshgrid(*[np.arange(b, dtype=np.int64) for b in bounds], indexing="ij")
        env = {f"i{k}": a.reshape(-1) for k, a in enumerate(idx)}
        names = tuple(var(k, max(1, b)) for k, b in zip(env, bounds, strict=True))
        m, n, valid = (evaluate(x, env) for x in s.tile(names, gm, gn))  # one tree, every launch index at once
        idx = list(env.values())
        valid = np.broadcast_to(valid, idx[0].shape)
        m, n = np.broadcast_to(m, idx[0].shape)[valid], np.broadcast_to(n, idx[0].shape)[valid]
        out = np.flatnonzero((m < 0) | (m >= gm) | (n < 0) | (n >= gn))
        if out.size:
            k = int(out[0])
            return {"kind": "outside", "grid": [gm, gn], "tile": [int(m[k]), int(n[k])]}
        counts = np.bincount(m + gm * n, minlength=gm * gn)
        bad = np.flatnonzero(counts != 1)
        if bad.size:
            t = int(bad[0])
            return {"kind": "missing" if counts[t] == 0 else "duplicate", "grid": [gm, gn],
                    "tile": [t % gm, t // gm], "count": int(counts[t])}
        return None

    def recheck(self, w: dict[str, Any]) -> bool:
        gm, gn = w["grid"]
        if not (self.grids[0][0] <= gm <= self.grids[0][1] and self.grids[1][0] <= gn <= self.grids[1][1]):
            return False
        got = self.violation(gm, gn)
        if got is None:
            return False
        if w["kind"] == "outside":
            return True
        m, n = w["tile"]
        s = self.scheduler
        bounds = s.launch_bounds(gm, gn)
        hits = sum(1 for idx in itertools.product(*[range(b) for b in bounds])
                   if (lambda r: r[2] and (r[0], r[1]) == (m, n))(s.tile(idx, gm, gn)))
        return hits != 1 and (w["kind"] == "missing") == (hits == 0)

    def explain(self, w: dict[str, Any]) -> str:
        gm, gn = w["grid"]
        tile = "(" + ",".join(map(str, w["tile"])) + ")"
        what = {"missing": "is computed by no CTA", "duplicate": f"is computed {w.get('count', 2)} times",
                "outside": "is outside the grid but computed"}[w["kind"]]
        return f"grid {gm}x{gn} tiles ({self.scheduler.describe()}): tile {tile} {what}"


def residue_cover(tiling: ResidueTiling, sizes: Ranges) -> ResidueCover:
    """``ResidueCover`` for every problem size in ``sizes`` (one inclusive range per mode of the tiling)."""
    return ResidueCover(tiling, tuple(tuple(r) for r in sizes))


def schedule_bijection(scheduler: TileScheduler, grids: Ranges) -> ScheduleBijection:
    """``ScheduleBijection`` for every ``GM x GN`` tile grid in ``grids``."""
    return ScheduleBijection(scheduler, tuple(tuple(r) for r in grids))
