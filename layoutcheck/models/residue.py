"""Residue tiles: a ragged problem split by a tile that need not divide it, accessed under a predicate.

CuTe's recipe for an ``M x N (x K)`` problem and a ``BM x BN`` tile: launch ``ceil_div(M, BM) x ceil_div(N, BN)``
tiles (``local_tile`` over ``logical_divide``, whose last tile runs past the end -- ``algebra.tiling``); inside a
tile, threads own elements by a TV layout; an identity tensor gives each access its global coordinate and the
access is performed only where ``coord < shape`` (``elem_less``). The bugs live in those two lines: a ``/`` where
``ceil_div`` belongs drops the last partial tile (CUTLASS PR #2155, #2980), a missing predicate writes out of
bounds. TMA loads need no predicate: the hardware zero-fills a box's out-of-bounds elements.

Worked example, ``M = 10``, ``BM = 4``, ``ceil_div``: tiles 0, 1, 2 cover rows 0..11; rows 10 and 11 are predicated
off. With ``/``: 2 tiles, rows 8 and 9 have no owner -- the smallest failing size is ``M = 5`` (row 4).

``ResidueTiling`` states that index math once, in the size arithmetic of ``layoutcheck.expr.ir`` (``ceil_div``,
``lt``, ``all_of`` and Python's operators): given ints it computes one size's values (the exhaustive engine, the
re-checks, the GPU launch), given variables it builds the expression trees the Z3 engine proves for every size in a
range and the C interpreter prints into the ragged kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from layoutcheck.algebra.inttuple import idx2crd
from layoutcheck.algebra.layout import Layout, size
from layoutcheck.errors import LayoutError
from layoutcheck.expr.ir import Pred, Size, all_of, any_of, ceil_div, lt
from layoutcheck.witness import Partition, ResidueOob, ResidueOwners

COUNTS = ("ceil_div", "div")
"""How the number of tiles per mode is computed: CuTe's ``ceil_div`` or a (wrong) truncating ``/``."""
PREDICATES = ("coord_lt_shape", "none", "tma")
"""``coord_lt_shape``: CuTe's identity-tensor predicate; ``none``: every access performed; ``tma``: the TMA unit
clips each box element against the tensor's dimensions (out-of-bounds reads zero-filled, writes dropped)."""


@lru_cache(maxsize=16)
def _local_crd(t: ResidueTiling) -> np.ndarray:
    """Tile-local coordinates of every access in (thread, value) order (one row each; read-only, computed once per
    tiling: the exhaustive decision asks for them once per problem size). CuTe's ``idx2crd`` of the tile index: colex
    over the tile's extents, the last mode unbounded, so an index past the tile reaches past the tile's last mode
    (into the next tile's rows) instead of wrapping around. Pre: every index is >= 0 (``ResidueTiling.unmodelled``)."""
    local = t.local_offsets().astype(np.int64)
    r = len(t.tile)
    out = np.stack([(local // int(np.prod(t.tile[:d], dtype=np.int64))) % b if d < r - 1
                    else local // int(np.prod(t.tile[:d], dtype=np.int64)) for d, b in enumerate(t.tile)], axis=1)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, slots=True)
class ResidueTiling:
    """Tiles of extents ``tile`` over a problem with modes ``dims``; ``tv`` maps (thread, value) to the tile-local
    colex index (``None``: the identity); ``count`` and ``predicate`` as in ``COUNTS`` / ``PREDICATES``.

    >>> t = ResidueTiling(("M", "N"), (128, 128))
    >>> t.grid((1000, 1000)), t.owner((999, 5))
    ((8, 8), ((7, 0), (103, 5)))
    """

    dims: tuple[str, ...]
    tile: tuple[int, ...]
    count: str = "ceil_div"
    predicate: str = "coord_lt_shape"
    tv: Layout | None = None
    threads: int = 0
    """A tiled copy's thread count (``make_tiled_copy``; ``spec`` kind ``tiled_copy``): ``tv``'s accesses are
    ``(thread, value)`` pairs, ``k = thread + threads * value``, and witnesses name them; 0: a plain residue tiling."""

    def __post_init__(self) -> None:
        if len(self.dims) != len(self.tile) or not self.dims:
            raise LayoutError(f"residue tiling: {len(self.dims)} dims {self.dims} but tile {self.tile}")
        if any(type(b) is not int or b <= 0 for b in self.tile):
            raise LayoutError(f"residue tiling: tile extents must be positive ints, found {self.tile}")
        if self.count not in COUNTS:
            raise LayoutError(f"residue tiling: count must be one of {', '.join(COUNTS)}, found {self.count!r}")
        if self.predicate not in PREDICATES:
            raise LayoutError(f"residue tiling: predicate must be one of {', '.join(PREDICATES)}, "
                              f"found {self.predicate!r}")
        if self.tv is not None and size(self.tv) != self.tile_size:
            raise LayoutError(f"residue tiling: tv layout {self.tv} has size {size(self.tv)}, the tile "
                              f"{self.tile} has {self.tile_size} elements")

    @property
    def tile_size(self) -> int:
        n = 1
        for b in self.tile:
            n *= b
        return n

    # -- the index math, once: on ints for one size, on expression trees for all of them ---------------------------
    def tiles(self, extent: Size, d: int) -> Size:
        """Number of tiles along mode ``d`` for a problem extent."""
        b = self.tile[d]
        return ceil_div(extent, b) if self.count == "ceil_div" else extent // b

    def grid(self, sizes: tuple[Size, ...]) -> tuple[Size, ...]:
        return tuple(self.tiles(s, d) for d, s in enumerate(sizes))

    def coord(self, tile_crd: tuple[Size, ...], local: tuple[Size, ...]) -> tuple[Size, ...]:
        """Global coordinate of tile-local ``local`` in tile ``tile_crd`` (the identity tensor's value)."""
        return tuple(t * b + x for t, b, x in zip(tile_crd, self.tile, local, strict=True))

    def performed(self, crd: tuple[Size, ...], sizes: tuple[Size, ...]) -> Pred:
        """Whether the access at global ``crd`` is performed (as a memory access) for this problem size."""
        if self.predicate == "none":
            return all_of()
        return all_of(*(lt(c, s) for c, s in zip(crd, sizes, strict=True)))

    def mode_fails(self, extent: Size, d: int) -> Pred:
        """Whether mode ``d`` alone breaks the cover at this extent, when ``tv`` is a bijection onto the tile: the
        mode's accesses are ``0 .. tiles*b - 1`` once each, so under a predicate (``coord < shape``, TMA's clipping)
        it fails iff they stop short of the extent, with none iff they differ from it
        (``properties.residue.ResidueCover.first_failing`` proves the reduction).

        >>> t = ResidueTiling(("M",), (4,), count="div")
        >>> t.mode_fails(8, 0), t.mode_fails(9, 0)
        (False, True)
        """
        covered = self.tiles(extent, d) * self.tile[d]
        short = lt(covered, extent)
        return short if self.predicate != "none" else any_of(short, lt(extent, covered))

    def owner(self, crd: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """``(tile coordinate, tile-local coordinate)`` of a global coordinate (tiles are disjoint boxes)."""
        return (tuple(c // b for c, b in zip(crd, self.tile, strict=True)),
                tuple(c % b for c, b in zip(crd, self.tile, strict=True)))

    # -- the tile-local part: size-independent ------------------------------------------------------------------
    def local_offsets(self) -> np.ndarray:
        """Tile-local colex index of every access in (thread, value) order."""
        return np.arange(self.tile_size) if self.tv is None else self.tv.offsets()

    def local_coords(self) -> np.ndarray:
        """``[k, d]``: the tile-local coordinate of access ``k`` (``tv`` order) in mode ``d``, as CuTe's ``idx2crd``
        gives it (colex, the last mode unbounded; read-only). Pre: ``unmodelled() is None``."""
        return _local_crd(self)

    def access_of(self, crd: tuple[int, ...]) -> tuple[tuple[int, ...], int] | None:
        """``(tile coordinate, k)``: one access (tile, ``tv`` position ``k``) landing on global ``crd``, the smallest
        tile first, or ``None`` (``local_coords`` read against the coordinate: an index past the tile counts).

        >>> ResidueTiling(("M",), (4,), tv=Layout((2, 2), (1, 2))).access_of((6,))
        ((1,), 2)
        """
        loc = _local_crd(self)
        c = np.array(crd, dtype=np.int64)[None, :]
        t, rem = np.divmod(c - loc, np.array(self.tile, dtype=np.int64)[None, :])
        ok = np.flatnonzero(np.all((rem == 0) & (t >= 0), axis=1))
        if not ok.size:
            return None
        k = int(ok[np.lexsort(t[ok].T[::-1])[0]])
        return tuple(int(x) for x in t[k]), k

    def local_coord(self, flat: int) -> tuple[int, ...]:
        """The tile coordinate of tile-local index ``flat`` (colex, ``idx2crd``). Pre: ``0 <= flat < tile_size``."""
        return tuple(idx2crd(flat, tuple(self.tile)))

    # -- one problem size, by enumeration ----------------------------------------------------------------------
    def accesses(self, sizes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Global coordinates (one row per access, all tiles) and whether each is performed, for one size."""
        grid = self.grid(sizes)
        tiles = np.indices(grid).reshape(len(grid), -1).T  # row-major: the last mode fastest
        crd = (tiles[:, None, :] * np.array(self.tile)[None, None, :] + _local_crd(self)[None, :, :]).reshape(
            -1, len(grid))
        if self.predicate == "none":
            return crd, np.ones(len(crd), dtype=bool)
        if self.predicate == "tma":  # the TMA unit clips both ends of every dimension
            return crd, np.all((crd >= 0) & (crd < np.array(sizes)[None, :]), axis=1)
        return crd, np.all(crd < np.array(sizes)[None, :], axis=1)

    def unmodelled(self) -> str | None:
        """Why the accesses cannot be placed (``None``: they can): a ``tv`` index below 0 is an access before the tile
        whose coordinate C++'s truncating ``idx2crd`` gives, which this model does not follow."""
        offs = self.local_offsets()
        if offs.size and int(offs.min()) < 0:
            k = int(np.flatnonzero(offs < 0)[0])
            return (f"tv layout {self.tv} maps (thread, value) #{k} to tile index {int(offs[k])} < 0: an access before "
                    f"the tile is not modelled")
        return None

    def partition(self) -> dict[str, Any] | None:
        """The precondition of the per-mode decision: ``tv`` partitions the tile, each tile element owned by exactly
        one (thread, value) and none past the tile. ``None`` when it does, else the first break: ``{"kind":
        "partition", "local": e, "coord": ..., "count": n}`` for a tile element owned ``n != 1`` times, or
        ``{"kind": "partition", "local": i, "thread": t, "value": v}`` for an access at tile index ``i`` past the
        tile; the smallest tile index of either, an index past the tile last.

        >>> ResidueTiling(("M",), (4,), tv=Layout((2, 2), (0, 1))).partition().to_json()
        {'kind': 'partition', 'local': 0, 'coord': [0], 'count': 2}
        """
        offs = self.local_offsets().astype(np.int64)
        n = self.tile_size
        counts = np.bincount(offs[(offs >= 0) & (offs < n)], minlength=n)
        bad = np.flatnonzero(counts != 1)
        if bad.size:
            e = int(bad[0])
            return Partition(e, coord=list(self.local_coord(e)), count=int(counts[e]))
        past = np.flatnonzero(offs >= n)
        if past.size:
            k = int(past[np.argmin(offs[past])])
            t_n = size(self.tv[0]) if self.tv is not None and len(self.tv) == 2 else 1
            return Partition(int(offs[k]), thread=k % t_n, value=k // t_n)
        return None

    def owners_at(self, sizes: tuple[int, ...], crd: tuple[int, ...]) -> tuple[int, bool]:
        """``(count, performed)`` at one global coordinate, point-wise (no enumeration of the problem): how many
        accesses of this size land on ``crd`` (``t * b + x == crd`` with ``0 <= t < grid`` per mode, ``x`` a tile-
        local coordinate of ``tv``), and whether an access there is performed (``predicate``).

        >>> ResidueTiling(("M",), (4,), count="div").owners_at((9,), (8,))
        (0, True)
        """
        loc = _local_crd(self)
        c = np.array(crd, dtype=np.int64)[None, :]
        b = np.array(self.tile, dtype=np.int64)[None, :]
        g = np.array([int(x) for x in self.grid(sizes)], dtype=np.int64)[None, :]
        t, rem = np.divmod(c - loc, b)
        hits = int(np.sum(np.all((rem == 0) & (t >= 0) & (t < g), axis=1)))
        # no access lands below 0 (t, x >= 0), so "coord < shape" and TMA's clipping agree wherever there is one
        return hits, self.predicate == "none" or all(0 <= x < s for x, s in zip(crd, sizes, strict=True))

    def violation(self, sizes: tuple[int, ...]) -> dict[str, Any] | None:
        """The lexicographically smallest coordinate that breaks the claim for one problem size, by enumeration: an
        in-bounds element owned by ``count != 1`` performed accesses (``owners``), or a performed access out of
        bounds (``oob``); ``None`` when there is none."""
        crd, done = self.accesses(sizes)
        ext = np.array(sizes)
        live = crd[done]
        found: list[tuple[list[int], str, int]] = []
        out = live[np.any((live >= ext[None, :]) | (live < 0), axis=1)]
        if len(out):
            found.append(([int(x) for x in out[np.lexsort(out.T[::-1])[0]]], "oob", 0))
        inb = live[np.all((live >= 0) & (live < ext[None, :]), axis=1)]
        flat = np.zeros(len(inb), dtype=np.int64)
        mul = 1
        for d in range(len(sizes)):
            flat += inb[:, d] * mul
            mul *= sizes[d]
        counts = np.bincount(flat, minlength=mul)
        bad = np.flatnonzero(counts != 1)
        if bad.size:
            crds = np.stack([(bad // int(np.prod(sizes[:d], dtype=np.int64))) % sizes[d] for d in range(len(sizes))],
                            axis=1)
            k = int(np.lexsort(crds.T[::-1])[0])
            found.append(([int(x) for x in crds[k]], "owners", int(counts[bad[k]])))
        if not found:
            return None
        coord, kind, n = min(found)
        return ResidueOwners(list(sizes), coord, n) if kind == "owners" else ResidueOob(list(sizes), coord)
