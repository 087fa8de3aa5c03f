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

``grouped`` and ``split_k`` read a launch index only through a linear one (``linearize``: ``t = c + ctas*i``,
``t = s*per + j``), one-to-one from the launch box onto ``linear_bounds`` (Euclid), so their claims can be asked over
``t`` (``linear_tile``), and their unmasked indices counted in closed form (``visits``).

Each scheduler also gives ``index(m, n)``, the launch index that should compute tile ``(m, n)`` -- the inverse map, a
witness for surjectivity that the Z3 engine checks (a wrong inverse can only make a proof fail, never pass: a
counterexample is re-checked by enumeration). The index math is written once in the size arithmetic of
``layoutcheck.expr.ir``: on ints it computes one grid's values, on variables it builds the trees the Z3 engine
proves for every grid and the exhaustive engine evaluates with NumPy over all launch indices at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutcheck.errors import LayoutError
from layoutcheck.expr.ir import Pred, Size, all_of, ceil_div, ite, lt, minimum

KINDS = ("plain", "swizzle", "grouped", "split_k")
PARAMETERS: dict[str, tuple[str, ...]] = {
    "plain": (), "swizzle": ("log",), "grouped": ("group", "ctas", "drop_partial_group"),
    "split_k": ("splits", "count"),
}
"""The parameters each kind reads (module docstring); a parameter of another kind is an input error, never ignored."""


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

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise LayoutError(f"tile scheduler: kind must be one of {', '.join(KINDS)}, found {self.kind!r}")
        if self.count not in ("ceil_div", "div"):
            raise LayoutError(f"tile scheduler: count must be ceil_div or div, found {self.count!r}")
        if self.log < 0 or self.group < 1 or self.ctas < 1 or self.splits < 1:
            raise LayoutError(f"tile scheduler: log >= 0, group >= 1 and ctas >= 1 required, found {self}")


    def total(self, gm: Size, gn: Size) -> Size:
        """Linear tiles a persistent scheduler walks (``grouped``)."""
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
        if self.kind == "grouped":
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
        return self.linear_tile(self.linearize(idx, gm, gn), gm, gn)

    def linear_bounds(self, gm: Size, gn: Size) -> tuple[Size, ...] | None:
        """Exclusive bounds of the linear launch index (``linearize``; ``None`` for ``plain`` and ``swizzle``):
        ``grouped`` ``(ctas*I,)``, ``split_k`` ``(splits*per, gn)`` with ``I``, ``per`` the launch bounds."""
        if self.kind == "grouped":
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
        width = self.group * gn
        first = t // width * self.group
        h = minimum(gm - first, self.group)
        h = ite(lt(0, h), h, 1)  # past the last group (an index that is masked out): any positive value
        r = t % width
        return first + r % h, r // h, lt(t, self.total(gm, gn))

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
        drop = ", drop_partial_group" if self.drop_partial_group else ""
        return f"grouped(group={self.group}, ctas={self.ctas}{drop})"
