"""Tile schedulers: which output tile ``(m, n)`` of a ``GM x GN`` tile grid each launched CTA (or each iteration of a
persistent CTA) computes.

A scheduler is correct for a grid when its map from launch indices to tiles, restricted to the indices it does not
mask out, is a bijection onto the grid: every tile computed once, none twice, none outside. Three families:

* ``plain``: a linear block index ``b < GM*GN``; ``m = b % GM``, ``n = b // GM`` (column-major raster).
* ``swizzle``: CUTLASS 2.x ``GemmIdentityThreadblockSwizzle<S>`` (``S = 2^log``): a 2-D launch of
  ``(GM*S) x ceil_div(GN, S)`` CTAs, ``m = bx >> log``, ``n = (by << log) + (bx & (S-1))``; CTAs whose tile falls
  outside the grid return at once (masked). S consecutive CTAs walk S columns of one row: better L2 reuse.
* ``grouped``: a persistent kernel with a fixed grid of ``ctas`` CTAs; CTA ``c`` takes linear tiles
  ``t = c, c + ctas, ...`` while ``t < T``, and ``t`` is rasterised in groups of ``group`` rows (Triton's grouped
  ordering, TileLang's ``use_swizzle``): ``g = t // (group*GN)``, rows ``[g*group, g*group + h)`` with
  ``h = min(GM - g*group, group)``, ``m = g*group + (t % (group*GN)) % h``, ``n = (t % (group*GN)) // h``.
  ``T = GM*GN``; the broken variant (tile-ai/tilelang#2433) counts ``T = (GM // group) * group * GN`` and so drops
  the last, partial group of rows whenever ``GM % group != 0``.
* ``split_k``: the K loop's ``GM`` k-tiles (``GN`` must be 1) split over ``splits`` CTAs: slice ``s`` takes k-tiles
  ``[s*per, min((s+1)*per, GM))`` with ``per = ceil_div(GM, splits)`` (CUTLASS's ``gemm_k_size``); the broken
  variant (``count = "div"``) takes ``per = GM / splits`` and loses the last ``GM % splits`` k-tiles.

* ``persistent``: CUTLASS 3.x's ``PersistentTileSchedulerSm90`` (``sm90_tile_scheduler.hpp``, its parameters
  ``PersistentTileSchedulerSm90Params`` in ``tile_scheduler_params.h``): ``ctas`` persistent CTAs walk the linear
  work index ``t = c + ctas*i`` while ``t < blocks_per_problem``. The host picks ``log_swizzle_size`` from
  ``max_swizzle`` and the smaller tile-grid side (``get_log_swizzle_size``), rounds the tile grid up to
  ``swizzle * cluster`` per mode (``PM``, ``PN``), picks the raster order (``raster``: ``m`` AlongM, ``n`` AlongN,
  ``heuristic``: AlongM iff ``PN > PM``), and hands the device the divisors ``cluster_shape_minor`` /
  ``cluster_shape_major`` / ``cluster_blk_major`` (``PN / cn`` AlongN, ``PM / cm`` AlongM). The device
  (``get_work_idx_m_and_n``) splits ``t`` into the CTA's cluster offset, cluster id, swizzle offset
  (``id & (S-1)``) and ``extra = id >> log``, ``divmod(extra, cluster_blk_major)``, and returns ``(minor, major)``
  AlongN, ``(major, minor)`` AlongM. A work tile past the ``GM x GN`` problem (the rounding's padding) writes
  nothing (TMA bounds, predicated epilogue): masked. User variants: ``round_to_cluster = false`` (the host's
  rounding omitted), ``swizzle_size = S`` (a fixed swizzle size used in CUTLASS's mask arithmetic ``id & (S-1)``,
  ``id / S``: right only for a power of two), ``device_raster`` (the device decodes in another raster order than
  the host's parameters were made for). The launch shape (``get_grid_shape``: ``cm x ctas/cm`` AlongN, ``ctas/cn
  x cn`` AlongM) puts a CTA's position in its cluster at ``t % minor`` and ``t / minor % major``; that needs
  ``ctas`` a multiple of the cluster size, as ``get_grid_shape`` makes it. SM100's CLC scheduler is
  ``clc`` below.
* ``clc``: CUTLASS's ``PersistentTileSchedulerSm100`` (``sm100_tile_scheduler.hpp``, parameters
  ``PersistentTileSchedulerSm100Params``): the whole tile grid rounded up to the cluster is launched (``GX x GY``,
  transposed for AlongN), Cluster Launch Control hands each cluster's CTA ids out once, and ``swizzle_and_rasterize``
  maps CTA id ``(x, y)`` to a tile: cluster coordinates, the swizzle ``(a*S + b, c*S + d) -> (a + (M/S)*d, b + c*S)``
  of the ``S``-divisible part of the cluster grid (``S = max_swizzle``; none at 1; the residual clusters unmoved),
  the CTA's offset in its cluster back, AlongN's transpose. Tiles past the problem (the padding) are masked. User
  variants: ``swizzle_residual`` (the residual swizzled too), ``serpentine`` (odd swizzle columns flipped, as
  ``M - m`` -- the header comment's formula -- or ``M - 1 - m``).
* ``expr``: a persistent loop the user writes as expressions (``layoutcheck.expr.parse``): CTA ``cta < ctas``
  takes ``iteration = 0, 1, ...`` while ``cta + ctas*iteration < total`` (``total`` over ``GM``, ``GN``; default
  ``GM*GN``) and computes tile ``(tile_m, tile_n)``, expressions over ``cta``, ``iteration``, ``ctas``, ``GM``,
  ``GN``. Nothing is masked but the loop bound: a tile outside the grid is computed outside it.

``grouped``, ``persistent``, ``expr`` and ``split_k`` read a launch index only through a linear one (``linearize``:
``t = c + ctas*i``, ``t = s*per + j``), one-to-one from the launch box onto ``linear_bounds`` (Euclid), so their
claims can be asked over ``t`` (``linear_tile``), and (but for ``persistent``, whose tiles past the grid are masked)
their unmasked indices counted in closed form (``visits``).

Each scheduler also gives ``index(m, n)``, the launch index that should compute tile ``(m, n)`` -- the inverse map, a
witness for surjectivity that the Z3 engine checks (a wrong inverse can only make a proof fail, never pass: a
counterexample is re-checked by enumeration). The index math is written once in the size arithmetic of
``layoutcheck.expr.ir``: on ints it computes one grid's values, on variables it builds the trees the Z3 engine
proves for every grid and the exhaustive engine evaluates with NumPy over all launch indices at once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from layoutcheck.errors import LayoutError
from layoutcheck.expr.ir import Expr, Op, Pred, Size, all_of, any_of, ceil_div, fold, ite, lnot, lt, maximum, minimum

KINDS = ("plain", "swizzle", "grouped", "split_k", "persistent", "expr", "clc")
PARAMETERS: dict[str, tuple[str, ...]] = {
    "plain": (), "swizzle": ("log",), "grouped": ("group", "ctas", "drop_partial_group"),
    "split_k": ("splits", "count"),
    "persistent": ("ctas", "cluster", "max_swizzle", "swizzle_size", "raster", "device_raster", "round_to_cluster"),
    "expr": ("ctas", "tile_m", "tile_n", "total"),
    "problems": ("ctas", "problems", "tile", "host_count", "device_tiles"),
    "clc": ("cluster", "max_swizzle", "raster", "swizzle_residual", "serpentine"),
    "stream_k": ("ctas", "max_groups", "decomposition", "splits", "alignment", "big_units", "end_adjust",
                 "reduction"),
}
RASTERS = ("m", "n", "heuristic")
SERPENTINES = ("", "header_comment", "reflect")
"""``clc``'s serpentine variants: none (CUTLASS's code), the flip ``M - m`` its comment describes, ``M - 1 - m``."""
EXPR_VARIABLES = ("cta", "iteration", "ctas", "GM", "GN")
"""The names an ``expr`` scheduler's ``tile_m`` / ``tile_n`` may read (``total``: ``ctas``, ``GM``, ``GN``)."""
"""The parameters each kind reads (module docstring; ``problems``: ``ProblemListScheduler``); a parameter of another
kind is an input error, never ignored."""


@dataclass(frozen=True, slots=True)
class TileScheduler:
    """``kind`` in ``KINDS``; ``log`` (swizzle), ``group`` and ``ctas`` (grouped); ``drop_partial_group`` is the
    tilelang#2433 bug.

    >>> s = TileScheduler("grouped", group=8, ctas=132)
    >>> s.launch_bounds(10, 3), s.tile((29, 0), 10, 3), s.index(9, 2, 10, 3)
    ((132, 1), (9, 2, True), (29, 0))
    """

    kind: str
    log: int = 0
    group: int = 8
    ctas: int = 1
    drop_partial_group: bool = False
    splits: int = 1
    count: str = "ceil_div"
    cluster: tuple[int, int] = (1, 1)
    max_swizzle: int = 1
    swizzle_size: int = 0
    raster: str = "heuristic"
    device_raster: str = ""
    round_to_cluster: bool = True
    tile_m: str = ""
    tile_n: str = ""
    total_expr: str = "GM*GN"
    swizzle_residual: bool = False
    serpentine: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise LayoutError(f"tile scheduler: kind must be one of {', '.join(KINDS)}, found {self.kind!r}")
        if self.count not in ("ceil_div", "div"):
            raise LayoutError(f"tile scheduler: count must be ceil_div or div, found {self.count!r}")
        if self.log < 0 or self.group < 1 or self.ctas < 1 or self.splits < 1:
            raise LayoutError(f"tile scheduler: log >= 0, group >= 1 and ctas >= 1 required, found {self}")
        if self.kind == "persistent":
            self._check_persistent()
        if self.kind == "clc":
            self._check_clc()
        if self.kind == "expr":
            if not self.tile_m or not self.tile_n:
                raise LayoutError("tile scheduler: an expr scheduler needs tile_m and tile_n expressions")
            _parsed(self.tile_m, self.tile_n, self.total_expr)  # parse now: a malformed text is an input error

    def _check_persistent(self) -> None:
        cm, cn = self.cluster
        if cm < 1 or cn < 1 or self.max_swizzle < 1 or self.swizzle_size < 0:
            raise LayoutError(f"tile scheduler: cluster >= 1, max_swizzle >= 1, swizzle_size >= 0 required, "
                              f"found {self}")
        for key in ("raster", "device_raster"):
            v = getattr(self, key)
            if v not in RASTERS and not (key == "device_raster" and v == ""):
                raise LayoutError(f"tile scheduler: {key} must be one of {', '.join(RASTERS)}, found {v!r}")
        if self.ctas % (cm * cn):
            raise LayoutError(f"tile scheduler: ctas = {self.ctas} is not a multiple of the cluster size {cm}x{cn} "
                              "(get_grid_shape launches whole clusters)")


    def _check_clc(self) -> None:
        cm, cn = self.cluster
        if cm < 1 or cn < 1 or self.max_swizzle < 1:
            raise LayoutError(f"tile scheduler: cluster >= 1 and max_swizzle >= 1 required, found {self}")
        if self.raster not in RASTERS:
            raise LayoutError(f"tile scheduler: raster must be one of {', '.join(RASTERS)}, found {self.raster!r}")
        if self.serpentine not in SERPENTINES:
            raise LayoutError(f"tile scheduler: serpentine must be one of header_comment, reflect, found "
                              f"{self.serpentine!r}")

    def total(self, gm: Size, gn: Size) -> Size:
        """Linear work indices a persistent scheduler walks (``grouped``, ``persistent``: ``blocks_per_problem``,
        ``expr``: its ``total``)."""
        if self.kind == "persistent":
            p = self._persistent(gm, gn)
            return p["PM"] * p["PN"]
        if self.kind == "expr":
            return _subst(_parsed(self.tile_m, self.tile_n, self.total_expr)[2],
                          {"ctas": self.ctas, "GM": gm, "GN": gn})
        if self.drop_partial_group:
            return gm // self.group * self.group * gn
        return gm * gn

    def visits(self, gm: Size, gn: Size) -> Size | None:
        """How many launch indices are unmasked, where that has a closed form (``None`` for ``swizzle``): then an
        injective map into the grid is onto iff this equals ``gm * gn`` (pigeonhole). ``grouped`` and ``split_k``
        read a launch index only through their linear index (``linearize``), one-to-one onto the box
        ``linear_bounds`` (Euclid), and mask exactly its ``t >= total`` (resp. ``t >= gm``): so ``min(total,
        ctas*I)``, resp. ``min(gm, splits*per) * gn``."""
        if self.kind == "plain":
            return gm * gn
        if self.kind in ("grouped", "expr"):
            return minimum(self.total(gm, gn), self.linear_bounds(gm, gn)[0])
        if self.kind == "split_k":
            return minimum(gm, self.linear_bounds(gm, gn)[0]) * gn
        return None

    def per_split(self, gm: Size) -> Size:
        """k-tiles per split-K slice."""
        return ceil_div(gm, self.splits) if self.count == "ceil_div" else gm // self.splits

    def launch_bounds(self, gm: Size, gn: Size) -> tuple[Size, ...]:
        """Exclusive bounds of the launch indices for a ``gm x gn`` grid."""
        if self.kind == "plain":
            return (gm * gn,)
        if self.kind == "swizzle":
            s = 1 << self.log
            return (gm * s, ceil_div(gn, s))
        if self.kind == "clc":
            p = self._clc(gm, gn)
            return p["GX"], p["GY"]
        if self.kind == "split_k":
            return (self.splits, self.per_split(gm), gn)
        return (self.ctas, ceil_div(self.total(gm, gn), self.ctas))

    def tile(self, idx: tuple[Size, ...], gm: Size, gn: Size) -> tuple[Size, Size, Pred]:
        """``(m, n, valid)``: the tile launch index ``idx`` computes, and whether it computes one at all."""
        if self.kind == "plain":
            (b,) = idx
            return b % gm, b // gm, all_of()
        if self.kind == "swizzle":
            bx, by = idx
            s = 1 << self.log
            m, n = bx // s, by * s + bx % s
            return m, n, all_of(lt(m, gm), lt(n, gn))
        if self.kind == "clc":
            return self._clc_tile(idx, gm, gn)
        return self.linear_tile(self.linearize(idx, gm, gn), gm, gn)

    def linear_bounds(self, gm: Size, gn: Size) -> tuple[Size, ...] | None:
        """Exclusive bounds of the linear launch index (``linearize``; ``None`` for ``plain`` and ``swizzle``):
        ``grouped``, ``persistent``, ``expr`` ``(ctas*I,)``, ``split_k`` ``(splits*per, gn)`` with ``I``, ``per`` the
        launch bounds."""
        if self.kind in ("grouped", "persistent", "expr"):
            return (self.ctas * self.launch_bounds(gm, gn)[1],)
        if self.kind == "split_k":
            return (self.splits * self.per_split(gm), gn)
        return None

    def linearize(self, idx: tuple[Size, ...], gm: Size, gn: Size) -> tuple[Size, ...]:
        """``grouped``: ``(c, i) -> (c + ctas*i,)``; ``split_k``: ``(s, j, n) -> (s*per + j, n)``. Both are one-to-one
        from the launch bounds onto ``linear_bounds`` (Euclid: ``c < ctas``, ``j < per``), and ``tile`` reads a launch
        index only through this, so a claim over launch indices is the same claim over linear indices.

        >>> TileScheduler("split_k", splits=4).linearize((2, 1, 0), 10, 1)
        (7, 0)
        """
        if self.kind == "split_k":
            sl, j, n = idx
            return sl * self.per_split(gm) + j, n
        c, i = idx
        return (c + self.ctas * i,)

    def delinearize(self, lin: tuple[int, ...], gm: int, gn: int) -> tuple[int, ...]:
        """The launch index whose linear index is ``lin`` (the inverse of ``linearize`` on its box; ints only).

        >>> TileScheduler("split_k", splits=4).delinearize((7, 0), 10, 1)
        (2, 1, 0)
        """
        if self.kind == "split_k":
            t, n = lin
            per = max(int(self.per_split(gm)), 1)
            return t // per, t % per, n
        (t,) = lin
        return t % self.ctas, t // self.ctas

    def linear_tile(self, lin: tuple[Size, ...], gm: Size, gn: Size) -> tuple[Size, Size, Pred]:
        """``(m, n, valid)`` of a linear launch index (``linearize``): ``split_k``'s ``(t, n)`` computes k-tile
        ``t`` unless ``t >= gm``; ``grouped``'s ``(t,)`` rasterises ``t`` in groups of ``group`` rows unless
        ``t >= total``."""
        if self.kind == "split_k":
            t, n = lin
            return t, n, lt(t, gm)
        (t,) = lin
        if self.kind == "persistent":
            return self._persistent_tile(t, gm, gn)
        if self.kind == "expr":
            return self._expr_tile(t, gm, gn)
        width = self.group * gn
        first = t // width * self.group
        h = minimum(gm - first, self.group)
        h = ite(lt(0, h), h, 1)  # past the last group (an index that is masked out): any positive value
        r = t % width
        return first + r % h, r // h, lt(t, self.total(gm, gn))

    def has_index(self) -> bool:
        """Whether ``index`` is given (every kind but ``expr``, whose inverse the user does not write)."""
        return self.kind != "expr"

    def _persistent(self, gm: Size, gn: Size) -> dict[str, Size | Pred]:
        """The host's parameters (``PersistentTileSchedulerSm90Params::initialize``) for a ``gm x gn`` tile grid:
        swizzle size ``S``, rounded grid ``PM x PN``, raster order (``along_n``: a predicate) and the divisors the
        device reads, ``minor`` / ``major`` (cluster shape) and ``blk_major``; ``dev_n``: the device's order."""
        cm, cn = self.cluster
        if self.swizzle_size:
            s: Size = self.swizzle_size
        else:  # get_log_swizzle_size: 8 / 4 / 2 / 1 by max_swizzle and min(GM, GN) >= 6 / 3 / 2
            small = minimum(gm, gn)
            s = 1
            for size, least in ((2, 2), (4, 3), (8, 6)):
                if self.max_swizzle >= size:
                    s = ite(lt(least - 1, small), size, s)
        pm = ceil_div(gm, s * cm) * (s * cm) if self.round_to_cluster else gm
        pn = ceil_div(gn, s * cn) * (s * cn) if self.round_to_cluster else gn
        along_n: Pred = {"n": True, "m": False}.get(self.raster, lnot(lt(pm, pn)))  # heuristic: AlongM iff PN > PM
        dev_n: Pred = along_n if not self.device_raster else {"n": True, "m": False}.get(
            self.device_raster, lnot(lt(pm, pn)))
        blk = ite(along_n, pn // cn, pm // cm)
        return {"S": s, "PM": pm, "PN": pn, "along_n": along_n, "dev_n": dev_n, "minor": ite(along_n, cm, cn),
                "major": ite(along_n, cn, cm), "blk_major": ite(lt(0, blk), blk, 1)}  # 0: no work index reads it

    def persistent_cases(self, gm: Size, gn: Size) -> list[tuple[TileScheduler, Pred]]:
        """The host's choices as cases: ``(scheduler, region)`` with the swizzle size and both raster orders fixed,
        and the grids where the host (and device) pick them; the regions partition every grid, and in its region a
        case computes what ``self`` does (the same formulas with the choice made)."""
        if self.swizzle_size:
            swizzles: list[tuple[int, Pred]] = [(self.swizzle_size, True)]
        else:
            small, swizzles, taken = minimum(gm, gn), [], False
            for size, least in ((8, 6), (4, 3), (2, 2)):
                if self.max_swizzle >= size:
                    here = lt(least - 1, small)
                    swizzles.append((size, all_of(here, lnot(taken) if taken is not False else True)))
                    taken = any_of(taken, here)
            swizzles.append((1, lnot(taken) if taken is not False else True))
        out = []
        for size, region in swizzles:
            fixed = replace(self, swizzle_size=size, max_swizzle=1)
            p = fixed._persistent(gm, gn)
            n_first = lnot(lt(p["PM"], p["PN"]))  # the heuristic's AlongN
            hosts = [(self.raster, True)] if self.raster != "heuristic" else [("n", n_first), ("m", lnot(n_first))]
            for host, host_region in hosts:
                dev = self.device_raster or host
                devs = [(dev, True)] if dev != "heuristic" else [("n", n_first), ("m", lnot(n_first))]
                for d, dev_region in devs:
                    out.append((replace(fixed, raster=host, device_raster=d), all_of(region, host_region, dev_region)))
        return out

    def _persistent_tile(self, t: Size, gm: Size, gn: Size) -> tuple[Size, Size, Pred]:
        """``get_current_work_for_linear_idx`` then ``get_work_idx_m_and_n`` of linear work index ``t``."""
        p = self._persistent(gm, gn)
        s, minor_c, major_c, along_n, dev_n = p["S"], p["minor"], p["major"], p["along_n"], p["dev_n"]
        first, second = t % minor_c, t // minor_c % major_c  # block_id_in_cluster along the launch grid's x, y
        blk = t // minor_c  # divmod_cluster_shape_minor.divide(t)
        cluster_id, major_off = blk // major_c, blk % major_c
        minor_off = ite(dev_n, ite(along_n, first, second), ite(along_n, second, first))  # cta_m / cta_n in cluster
        if self.swizzle_size & (self.swizzle_size - 1):  # CUTLASS's mask arithmetic with a size, not a log
            offset = _bit_and(cluster_id, self.swizzle_size - 1)
        else:
            offset = cluster_id % s
        extra = cluster_id // s
        minor = (extra // p["blk_major"] * s + offset) * minor_c + minor_off
        major = extra % p["blk_major"] * major_c + major_off
        m, n = ite(dev_n, minor, major), ite(dev_n, major, minor)
        return m, n, all_of(lt(t, p["PM"] * p["PN"]), lt(m, gm), lt(n, gn))

    def linear_index(self, m: Size, n: Size, gm: Size, gn: Size) -> Size:
        """``persistent``: the linear work index meant for tile ``(m, n)``, ``_persistent_tile``'s divmods undone in
        reverse."""
        p = self._persistent(gm, gn)
        s, minor_c, major_c = p["S"], p["minor"], p["major"]
        minor, major = ite(p["dev_n"], m, n), ite(p["dev_n"], n, m)
        cmin, cmaj = minor // minor_c, major // major_c
        cluster_id = ((cmin // s) * p["blk_major"] + cmaj) * s + cmin % s
        return (cluster_id * major_c + major % major_c) * minor_c + minor % minor_c

    # -- SM100 CLC: the launch grid's CTA ids (as clusterlaunchcontrol returns them) swizzled onto tiles ----------
    def _clc(self, gm: Size, gn: Size) -> dict[str, Size | Pred]:
        """``PersistentTileSchedulerSm100Params::initialize`` and ``get_grid_shape`` for a ``gm x gn`` tile grid: the
        grid rounded up to the cluster (``get_tiled_cta_shape_mnl``), the raster order (``get_rasterization_order``
        over the cluster counts: AlongM iff ``tiles_n > tiles_m``; the heuristic falls back to AlongM where AlongN's
        ``grid.y = tiles_m * cn`` would pass 65535), the launch grid ``GX x GY`` (``possibly_transpose_grid``: AlongN
        swaps the cluster counts) and the swizzle size ``S`` (``divmod_swizzle_size_``: ``max_swizzle``, none at 1)."""
        cm, cn = self.cluster
        pm, pn = ceil_div(gm, cm) * cm, ceil_div(gn, cn) * cn
        tiles_m, tiles_n = pm // cm, pn // cn
        if self.raster == "heuristic":
            along_n: Pred = all_of(lnot(lt(tiles_m, tiles_n)), lt(tiles_m * cn, 1 << 16))
        else:
            along_n = self.raster == "n"
        gx = ite(along_n, tiles_n * cm, pm)
        gy = ite(along_n, tiles_m * cn, pn)
        return {"PM": pm, "PN": pn, "GX": gx, "GY": gy, "along_n": along_n}

    def _clc_regions(self, p: dict[str, Size | Pred]) -> tuple[Size, Size]:
        """Clusters per swizzle column along x (``major_clusters / S``) and per swizzle row along y (the residual's
        first cluster ids are these times ``S``)."""
        cm, cn = self.cluster
        s = self.max_swizzle
        return p["GX"] // cm // s, p["GY"] // cn // s

    def _clc_tile(self, idx: tuple[Size, ...], gm: Size, gn: Size) -> tuple[Size, Size, Pred]:
        """``swizzle_and_rasterize`` of the CTA id ``(x, y)`` (``sm100_tile_scheduler.hpp``): cluster coordinates,
        the swizzle of the ``S``-divisible part of the cluster grid (``major = a*S + b``, ``minor = c*S + d`` go to
        ``(a + (M/S)*d, b + c*S)``; the residual clusters unmoved), the CTA's offset in its cluster back, and
        AlongN's transpose of the cluster coordinates (``possibly_transpose_work_tile``). A tile past the problem
        (the cluster rounding's padding) writes nothing: masked."""
        x, y = idx
        cm, cn = self.cluster
        s = self.max_swizzle
        p = self._clc(gm, gn)
        major, off_m, minor, off_n = x // cm, x % cm, y // cn, y % cn
        if s > 1:
            mcs, ncs = self._clc_regions(p)
            inside = all_of(lt(major, mcs * s), lt(minor, ncs * s)) if not self.swizzle_residual else True
            new_major = major // s + mcs * (minor % s)
            if self.serpentine:  # odd swizzle columns flipped: the header comment's M - m, or M - 1 - m
                flip = mcs * s - new_major - (1 if self.serpentine == "reflect" else 0)
                new_major = ite(lt(0, minor // s % 2), flip, new_major)
            new_minor = major % s + minor // s * s
            major, minor = ite(inside, new_major, major), ite(inside, new_minor, minor)
        cta_m, cta_n = major * cm + off_m, minor * cn + off_n
        m = ite(p["along_n"], cta_n // cn * cm + cta_m % cm, cta_m)
        n = ite(p["along_n"], cta_m // cm * cn + cta_n % cn, cta_n)
        return m, n, all_of(lnot(lt(m, 0)), lnot(lt(n, 0)), lt(m, gm), lt(n, gn))

    def _clc_index(self, m: Size, n: Size, gm: Size, gn: Size) -> tuple[Size, Size]:
        """The CTA id meant for tile ``(m, n)``: ``_clc_tile``'s transpose and swizzle undone (``(a + (M/S)*d,
        b + c*S)`` gives ``a = major' % (M/S)``, ``d = major' // (M/S)``, ``b = minor' % S``, ``c = minor' // S``;
        the swizzled part maps onto itself, so the region test reads the tile's own cluster)."""
        cm, cn = self.cluster
        s = self.max_swizzle
        p = self._clc(gm, gn)
        cta_m = ite(p["along_n"], n // cn * cm + m % cm, m)
        cta_n = ite(p["along_n"], m // cm * cn + n % cn, n)
        major, off_m, minor, off_n = cta_m // cm, cta_m % cm, cta_n // cn, cta_n % cn
        if s > 1:
            mcs, ncs = self._clc_regions(p)
            inside = all_of(lt(major, mcs * s), lt(minor, ncs * s)) if not self.swizzle_residual else True
            mcs1 = ite(lt(0, mcs), mcs, 1)  # no swizzled part (mcs == 0): nothing to undo
            nm = ite(lt(0, minor // s % 2), mcs * s - 1 - major, major) if self.serpentine == "reflect" else major
            old_major = nm % mcs1 * s + minor % s
            old_minor = minor // s * s + nm // mcs1
            major, minor = ite(inside, old_major, major), ite(inside, old_minor, minor)
        return major * cm + off_m, minor * cn + off_n

    def _expr_tile(self, t: Size, gm: Size, gn: Size) -> tuple[Size, Size, Pred]:
        """The user's ``tile_m``, ``tile_n`` at ``cta = t % ctas``, ``iteration = t // ctas``."""
        tm, tn, _ = _parsed(self.tile_m, self.tile_n, self.total_expr)
        valid = lt(t, self.total(gm, gn))
        t = ite(valid, t, 0)  # a masked index never runs: read the user's text where the loop does (no x / 0 there)
        env = {"cta": t % self.ctas, "iteration": t // self.ctas, "ctas": self.ctas, "GM": gm, "GN": gn}
        return _subst(tm, env), _subst(tn, env), valid

    def index(self, m: Size, n: Size, gm: Size, gn: Size) -> tuple[Size, ...]:
        """The launch index meant to compute tile ``(m, n)`` (the inverse of ``tile``), and the only one that can:
        every kind's ``tile`` is one-to-one on its launch indices, and this is its preimage, so a tile is computed
        iff ``index(m, n)`` is inside the launch bounds, unmasked, and computes it (the point-wise re-check of a
        missing tile). Per kind: ``plain`` ``b = m + GM*n`` (Euclid); ``swizzle`` ``m = bx >> log`` and
        ``n = (by << log) + (bx & (S-1))`` give ``bx = m*S + n % S``, ``by = n // S``; ``split_k`` ``t = s*per + j``
        with ``j < per`` gives ``s = m // per``, ``j = m % per``; ``grouped`` rows ``[g*group, g*group + h)`` with
        ``h <= group`` hold ``m`` only for ``g = m // group``, then ``r = n*h + (m - g*group) < group*GN`` and
        ``t = g*group*GN + r``, ``(c, i) = (t % ctas, t // ctas)``."""
        if self.kind == "plain":
            return (m + gm * n,)
        if self.kind == "swizzle":
            s = 1 << self.log
            return (m * s + n % s, n // s)
        if self.kind == "split_k":
            per = self.per_split(gm)
            per = ite(lt(0, per), per, 1)  # per == 0 (the broken count, gm < splits): nothing to invert
            return m // per, m % per, n
        if self.kind == "persistent":
            t = self.linear_index(m, n, gm, gn)
            return t % self.ctas, t // self.ctas
        if self.kind == "clc":
            return self._clc_index(m, n, gm, gn)
        first = m // self.group * self.group
        h = minimum(gm - first, self.group)
        t = first * gn + n * h + (m - first)
        return t % self.ctas, t // self.ctas

    def describe(self) -> str:
        if self.kind == "plain":
            return "plain"
        if self.kind == "swizzle":
            return f"swizzle(log={self.log})"
        if self.kind == "split_k":
            return f"split_k(splits={self.splits}, {self.count})"
        if self.kind == "persistent":
            cm, cn = self.cluster
            sw = f"swizzle_size={self.swizzle_size}" if self.swizzle_size else f"max_swizzle={self.max_swizzle}"
            dev = f", device_raster={self.device_raster}" if self.device_raster else ""
            rnd = "" if self.round_to_cluster else ", round_to_cluster=false"
            return f"persistent(ctas={self.ctas}, cluster={cm}x{cn}, {sw}, raster={self.raster}{dev}{rnd})"
        if self.kind == "clc":
            cm, cn = self.cluster
            extra = "".join([", swizzle_residual" if self.swizzle_residual else "",
                             f", serpentine={self.serpentine}" if self.serpentine else ""])
            return f"clc(cluster={cm}x{cn}, max_swizzle={self.max_swizzle}, raster={self.raster}{extra})"
        if self.kind == "expr":
            return (f"expr(ctas={self.ctas}, tile_m={self.tile_m!r}, tile_n={self.tile_n!r}, "
                    f"total={self.total_expr!r})")
        drop = ", drop_partial_group" if self.drop_partial_group else ""
        return f"grouped(group={self.group}, ctas={self.ctas}{drop})"


@lru_cache(maxsize=256)
def _parsed(tile_m: str, tile_n: str, total: str) -> tuple[Expr, Expr, Expr]:
    """An ``expr`` scheduler's texts parsed (``layoutcheck.expr.parse``; names outside ``EXPR_VARIABLES`` are input
    errors), over free variables that ``_subst`` replaces."""
    from layoutcheck.expr.parse import UNBOUNDED, parse

    names = {k: UNBOUNDED for k in EXPR_VARIABLES}
    return (parse(_calls(tile_m), names, "tir"), parse(_calls(tile_n), names, "tir"),
            parse(_calls(total), {k: UNBOUNDED for k in ("ctas", "GM", "GN")}, "tir"))


def _calls(text: str) -> str:
    """Python's ``min(a, b)`` / ``max(a, b)`` as the parser's ``tir`` dialect spells them (``T.min``, ``T.max``); that
    dialect also reads comparisons, ``and``/``or``/``not`` and ``T.if_then_else(c, a, b)``."""
    return re.sub(r"(?<![\w.])(min|max)\s*\(", r"T.\1(", text)


def _subst(e: Expr, env: Mapping[str, Size]) -> Size:
    """``e`` with each variable replaced by ``env``'s size: an int where every operand is one (one grid), else a
    tree (every grid), built with the IR's own size operations."""
    from layoutcheck.expr.numpy import ALU

    def op(name: str):
        def apply(*xs: Any) -> Any:
            if not any(isinstance(x, Expr) and x.op != "const" for x in xs):
                xs = tuple(x.value if isinstance(x, Expr) else x for x in xs)
                if name == "ite":
                    return xs[1] if xs[0] else xs[2]
                return {"land": lambda *c: all(c), "lor": lambda *c: any(c), "lnot": lambda c: not c}.get(
                    name, ALU[name])(*xs)
            builders = {"add": lambda *t: sum(t[1:], t[0]), "mul": lambda a, b: a * b, "div": lambda a, b: a // b,
                        "mod": lambda a, b: a % b, "land": all_of, "lor": any_of, "lnot": lnot,
                        "ceil_div": ceil_div, "min": minimum, "lt": lt}
            if name in builders:
                return builders[name](*xs)
            return Op.make(name, *xs)
        return apply

    alu = {k: op(k) for k in ALU} | {"var": lambda name, _upper: env[name], "const": lambda v: v}
    return fold(e, alu)


def _bit_and(x: Size, mask: int) -> Size:
    """``x & mask`` for ``x >= 0`` in size arithmetic (``x // 2^b % 2 * 2^b`` per set bit ``b``): no bit operations, so
    every engine of sizes (Z3's integers) reads it."""
    out: Size = 0
    for b in range(mask.bit_length()):
        if mask >> b & 1:
            out = out + x // (1 << b) % 2 * (1 << b)
    return out


def expression_error(key: str, text: str | None) -> str | None:
    """Why an ``expr`` scheduler's ``key`` (``tile_m``, ``tile_n``, ``total``) text does not parse, or ``None``."""
    from layoutcheck.expr.parse import UNBOUNDED, parse

    if text is None:
        return None
    names = EXPR_VARIABLES if key != "total" else ("ctas", "GM", "GN")
    try:
        parse(_calls(text), {k: UNBOUNDED for k in names}, "tir")
    except LayoutError as e:
        return str(e)
    return None


# -- grouped (multi-problem) GEMM: a host launch count and a device tile map ------------------------------------------
HOST_VARIABLES = ("P", "TM", "TN", "tiles", "sum_M", "max_M", "sum_N", "max_N")
"""The names a problem list's ``host_count`` may read: the list's length, the tile, the device's own tile total
(``tiles``), and the sums and maxima of the problems' sizes (what a host that never reads the per-problem sizes has)."""
DEVICE_VARIABLES = ("M", "N", "TM", "TN")
"""The names a problem list's ``device_tiles`` (one problem's tile count, as the device walks it) may read."""


@dataclass(frozen=True, slots=True)
class ProblemListScheduler:
    """A grouped GEMM over a list of ``P`` problems ``(M_p, N_p)`` with one ``TM x TN`` tile (``block``): the host
    launches ``host_count`` work tiles (``ctas`` persistent CTAs walk ``t = cta + ctas*iteration < host_count``; a
    grid of ``host_count`` CTAs is ``ctas >= host_count``) and the device maps ``t`` to a problem and a tile: it walks
    the problems in order, problem ``p`` taking ``device_tiles(M_p, N_p)`` consecutive indices, and inside it rasters
    column-major over its ``ceil_div(M_p, TM) x ceil_div(N_p, TN)`` tile grid (CUTLASS's grouped problem visitor,
    Triton's grouped GEMM tutorial); an index past the last problem does nothing.

    >>> s = ProblemListScheduler((128, 128), 4)
    >>> s.tile(2, ((129, 1), (1, 1))), s.host_total(((129, 1), (1, 1)))
    ((1, 0, 0, True), 3)
    """

    block: tuple[int, int]
    ctas: int = 1
    host_count: str = "tiles"
    device_tiles: str = "(M + TM - 1) // TM * ((N + TN - 1) // TN)"

    def __post_init__(self) -> None:
        if len(self.block) != 2 or min(self.block) < 1 or self.ctas < 1:
            raise LayoutError(f"grouped problems: a tile of two extents >= 1 and ctas >= 1 required, found {self}")
        _problem_exprs(self.host_count, self.device_tiles)

    def grid(self, size: tuple[Size, Size]) -> tuple[Size, Size]:
        """One problem's tile grid: ``ceil_div`` per mode."""
        return ceil_div(size[0], self.block[0]), ceil_div(size[1], self.block[1])

    def walked(self, size: tuple[Size, Size]) -> Size:
        """The indices the device gives problem ``size`` (``device_tiles``)."""
        return _subst(_problem_exprs(self.host_count, self.device_tiles)[1],
                      {"M": size[0], "N": size[1], "TM": self.block[0], "TN": self.block[1]})

    def host_total(self, sizes: tuple[tuple[Size, Size], ...]) -> Size:
        """The host's launch count (``host_count``) for the problem list ``sizes``."""
        ms, ns = [s[0] for s in sizes], [s[1] for s in sizes]
        tiles: Size = 0
        for s in sizes:
            tiles = tiles + self.walked(s)
        env = {"P": len(sizes), "TM": self.block[0], "TN": self.block[1], "tiles": tiles,
               "sum_M": _fold(ms, lambda a, b: a + b), "sum_N": _fold(ns, lambda a, b: a + b),
               "max_M": _fold(ms, maximum), "max_N": _fold(ns, maximum)}
        return _subst(_problem_exprs(self.host_count, self.device_tiles)[0], env)

    def tile(self, t: Size, sizes: tuple[tuple[Size, Size], ...]) -> tuple[Size, Size, Size, Pred]:
        """``(problem, m, n, valid)`` of work index ``t``: the problem whose walked indices hold ``t``, and the
        column-major tile of its local index; ``valid``: ``t`` is launched and inside some problem's walk."""
        p: Size = len(sizes)
        local: Size = 0
        gm: Size = 1
        start: Size = 0
        for k, s in enumerate(sizes):  # the first problem whose walk ends past t
            end = start + self.walked(s)
            here = all_of(lnot(lt(t, start)), lt(t, end))
            p, local, gm = ite(here, k, p), ite(here, t - start, local), ite(here, self.grid(s)[0], gm)
            start = end
        gm = ite(lt(0, gm), gm, 1)
        return p, local % gm, local // gm, all_of(lt(t, self.host_total(sizes)), lt(t, start))

    def index(self, p: int, m: Size, n: Size, sizes: tuple[tuple[Size, Size], ...]) -> Size:
        """The work index meant for problem ``p``'s tile ``(m, n)`` (the only one that can compute it)."""
        start: Size = 0
        for s in sizes[:p]:
            start = start + self.walked(s)
        return start + m + self.grid(sizes[p])[0] * n

    def describe(self) -> str:
        return (f"problems(tile={self.block[0]}x{self.block[1]}, ctas={self.ctas}, host_count={self.host_count!r}, "
                f"device_tiles={self.device_tiles!r})")


def _fold(xs: list[Size], f: Any) -> Size:
    out = xs[0]
    for x in xs[1:]:
        out = f(out, x)
    return out


@lru_cache(maxsize=256)
def _problem_exprs(host_count: str, device_tiles: str) -> tuple[Expr, Expr]:
    from layoutcheck.expr.parse import UNBOUNDED, parse

    return (parse(_calls(host_count), {k: UNBOUNDED for k in HOST_VARIABLES}, "tir"),
            parse(_calls(device_tiles), {k: UNBOUNDED for k in DEVICE_VARIABLES}, "tir"))


def problem_expression_error(text: str | None, names: tuple[str, ...]) -> str | None:
    """Why a problem list's ``host_count`` / ``device_tiles`` text over ``names`` does not parse, or ``None``."""
    from layoutcheck.expr.parse import UNBOUNDED, parse

    if text is None:
        return None
    try:
        parse(_calls(text), {k: UNBOUNDED for k in names}, "tir")
    except LayoutError as e:
        return str(e)
    return None
