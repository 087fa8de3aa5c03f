"""TV-map properties: claims about a (thread, value) map -- ``exact_cover`` of a tile and ``vectorizable`` access.

A TV map is a rank-2 subject: mode 0 the threads ``t``, mode 1 each thread's values ``v``; ``tv(t, v)`` is a colex
index of the tile (``exact_cover``) or an element offset in memory (``vectorizable``, a TV map composed with a memory
layout). Definitions (as in the table of ``layoutcheck.properties.layout``)::

    exact_cover(tv, tile, k) every tile index y in [0, size(tile)) is tv(t, v) for exactly k pairs (t, v), of k
                            distinct threads t (k = 1: a partition of the tile; k > 1: MMA A/B replication)
    vectorizable(L, w, e)   for every thread t and every group g of W = w/e consecutive values (elements of e bytes),
                            L(t, g*W + j) == L(t, g*W) + j and L(t, g*W) % W == 0

Worked example: ``(4,2):(2,1)`` on the tile ``(2,4)`` gives thread ``t`` the tile indices ``2t`` and ``2t+1``: an
exact cover, and 2-element vectors (``vectorizable(L, 2 * e, e)``) for any element size ``e``::

    >>> tv = Layout((4, 2), (2, 1))
    >>> [[tv(t, v) for v in range(2)] for t in range(4)]
    [[0, 1], [2, 3], [4, 5], [6, 7]]
    >>> exact_cover(tv, (2, 4)).exhaustive().holds, vectorizable(tv, 8, 4).exhaustive().holds
    (True, True)

Both validate their inputs when built (rank 2, ``size(tv) == k * size(tile)``, ``W`` dividing the values per thread)
and raise ``LayoutError`` otherwise. The protocol they follow is ``layoutcheck.properties.base``; they are re-exported
by ``layoutcheck.properties.layout`` with the other layout properties.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.inttuple import flatten, idx2crd, is_int, is_tuple, product
from layoutcheck.algebra.layout import Layout, format_inttuple, size
from layoutcheck.algebra.notation import as_subject
from layoutcheck.algebra.swizzle import Subject, inner
from layoutcheck.errors import LayoutError
from layoutcheck.properties.base import (
    Decision,
    Property,
    first_out_of_range,
    recheck_out,
    smallest_collision,
    subject_size,
)
from layoutcheck.properties.scan import chunks, counts, indices_of, marks

# -- exact cover of a tile by a TV map ------------------------------------------------------------------------
Tile = int | tuple | Layout


def _tile_shape(tile: Any) -> Any:
    if isinstance(tile, Layout):
        return tile.shape
    if is_int(tile) or is_tuple(tile):
        if any(not is_int(s) or s <= 0 for s in flatten(tile)):
            raise LayoutError(f"exact_cover: tile shape must hold positive ints, found {tile!r}")
        return tile
    raise LayoutError(f"exact_cover: tile must be an int, a shape tuple or a Layout, found {tile!r}")


def _tv_of(tv_map: Any, operand: str) -> tuple[Subject, Any, int | None]:
    """``(tv, tile, replication)`` of a TV map, or of a tiled MMA's operand (anything with ``tv_layout_C``)."""
    attr = f"tv_layout_{operand}"
    if hasattr(tv_map, attr):
        m, n, k = tv_map.tile_size_mnk
        tile = {"A": (m, k), "B": (n, k), "C": (m, n)}[operand]
        return as_subject(getattr(tv_map, attr), f"exact_cover: {attr}"), tile, None if operand != "C" else 1
    return as_subject(tv_map, "exact_cover: tv_map"), None, 1


@dataclass(frozen=True, slots=True)
class ExactCover(Property):
    """Every tile index is owned by exactly ``replication`` ``(thread, value)`` pairs, of distinct threads.

    ``tv`` is rank 2: mode 0 the threads, mode 1 each thread's values; ``tv(t, v)`` is a colex index of the tile.
    """

    tv: Subject
    tile: Tile
    replication: int = 1
    name: ClassVar[str] = "exact_cover"

    def __post_init__(self) -> None:
        tv = as_subject(self.tv, "exact_cover: tv_map")
        object.__setattr__(self, "tv", tv)
        n = product(_tile_shape(self.tile))
        if len(inner(tv)) != 2:
            raise LayoutError(f"exact_cover: the TV map must have rank 2 (thread, value), found rank {len(tv)}: {tv}")
        k = self.replication
        if not is_int(k) or k <= 0:
            raise LayoutError(f"exact_cover: replication must be a positive int, found {k!r}")
        if subject_size(tv) != k * n:
            raise LayoutError(f"exact_cover: size of the TV map {tv} is {subject_size(tv)}, but the tile "
                              f"{_show_tile(self.tile)} has {n} elements" + (f" x {k} owners" if k > 1 else ""))

    @property
    def threads(self) -> int:
        return size(inner(self.tv)[0])

    @property
    def tile_size(self) -> int:
        return product(_tile_shape(self.tile))

    def subjects(self) -> tuple[Subject, ...]:
        return (self.tv,)

    def subject(self) -> str:
        k = f", x{self.replication}" if self.replication > 1 else ""
        return f"{self.tv} on tile {_show_tile(self.tile)}{k}"

    @property
    def bytes_per_point(self) -> int:  # type: ignore[override]
        """One mark byte per tile element (then one count byte) for a partition; sorting for replication > 1."""
        return 2 if self.replication == 1 else 40

    def exhaustive(self) -> Decision:
        return self._partition() if self.replication == 1 else self._replicated()

    def _partition(self) -> Decision:
        """``replication == 1``: ``size(tv) == size(tile)``, so every element is owned once iff every one is hit."""
        x, n = self.tv, self.tile_size
        seen, i = marks(x, 0, n)
        if i is not None:
            return Decision(False, {"kind": "out", "i": i}, {})
        if int(np.count_nonzero(seen)) == n:
            return Decision(True, None, {"missing": 0, "over_owned": 0, "under_owned": 0})
        del seen
        hits = counts(x, 0, n, 2)
        stats = {"missing": int((hits == 0).sum()), "over_owned": int((hits > 1).sum()),
                 "under_owned": int((hits < 1).sum())}
        y = int(np.flatnonzero(hits != 1)[0])
        owners = indices_of(x, y, limit=64)
        count = len(owners) if hits[y] < 2 or len(owners) < 64 else len(indices_of(x, y, None))
        return Decision(False, {"kind": "owners", "y": y, "owners": owners, "count": count}, stats)

    def _replicated(self) -> Decision:
        offs, n, k, nt = self.tv.offsets(np.int64), self.tile_size, self.replication, self.threads
        i = first_out_of_range(offs, n)
        if i is not None:
            return Decision(False, {"kind": "out", "i": i}, {})
        counts = np.bincount(offs, minlength=n)
        stats = {"missing": int((counts == 0).sum()), "over_owned": int((counts > k).sum()),
                 "under_owned": int((counts < k).sum())}
        bad = np.flatnonzero(counts != k)
        if bad.size:
            y = int(bad[0])
            owners = _owners(offs, y, limit=max(64, k + 1))
            return Decision(False, {"kind": "owners", "y": y, "owners": owners, "count": int(counts[y])}, stats)
        if k > 1:  # each thread owns an element at most once: (index, thread) pairs are distinct
            pair = smallest_collision(offs * nt + np.arange(offs.size, dtype=offs.dtype) % nt)
            if pair is not None:
                return Decision(False, {"kind": "same_thread", "i": pair[0], "j": pair[1]}, stats)
        return Decision(True, None, stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        n, tv, kind = self.tile_size, self.tv, w["kind"]
        if kind == "out":
            return recheck_out(tv, w, n)
        if kind == "same_thread":
            i, j = w["i"], w["j"]
            return i != j and i % self.threads == j % self.threads and tv(i) == tv(j)
        owners = w["owners"]
        listed_ok = all(tv(o) == w["y"] for o in owners) and len(set(owners)) == len(owners)
        if len(owners) > self.replication:  # over-owned: the listed owners alone prove it
            return listed_ok
        # under-owned: the list must be complete, which only enumeration shows (the exhaustive engine's domain)
        return listed_ok and subject_size(tv) <= 1 << 26 and sorted(owners) == _owners(tv.offsets(), w["y"], None)

    def explain(self, w: dict[str, Any]) -> str:
        kind, nt = w["kind"], self.threads
        if kind == "out":
            i = w["i"]
            return f"thread {i % nt}, value {i // nt} -> {self.tv(i)}, outside the tile [0,{self.tile_size})"
        if kind == "same_thread":
            i, j = w["i"], w["j"]
            return f"thread {i % nt} owns tile element {self._crd(self.tv(i))} twice: values {i // nt} and {j // nt}"
        y, owners = w["y"], w["owners"]
        count = w.get("count", len(owners))
        who = ", ".join(f"(thread {o % nt}, value {o // nt})" for o in owners[:8]) or "nobody"
        more = f" and {count - min(8, len(owners))} more" if count > 8 else ""
        times = f"at least {count}" if w.get("at_least") else f"{count}"
        return f"tile element {self._crd(y)} is owned {times} times (expected {self.replication}): {who}{more}"

    def _crd(self, y: int) -> str:
        shape = _tile_shape(self.tile)
        crd = format_inttuple(idx2crd(y, shape))
        crd = crd if crd.startswith("(") else f"({crd})"
        return f"{crd} [offset {self.tile(y)}]" if isinstance(self.tile, Layout) else crd


def _owners(offs: np.ndarray, y: int, limit: int | None = 64) -> list[int]:
    found = np.flatnonzero(offs == y)
    return [int(o) for o in (found if limit is None else found[:limit])]


def _show_tile(tile: Tile) -> str:
    return str(tile) if isinstance(tile, Layout) else format_inttuple(tile)


# -- vectorizable ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Vectorizable(Property):
    """Each thread's values, in groups of ``W = width_bytes / dtype_bytes``, are contiguous runs aligned to ``W``.

    ``layout`` is a TV map composed with a memory layout: ``(thread, value) -> element offset``.
    """

    layout: Subject
    width_bytes: int
    dtype_bytes: int
    name: ClassVar[str] = "vectorizable"
    bytes_per_point: ClassVar[int] = 1  # chunk by chunk, whole vector rows at a time

    def __post_init__(self) -> None:
        lay = as_subject(self.layout, "vectorizable: layout")
        object.__setattr__(self, "layout", lay)
        w, e = self.width_bytes, self.dtype_bytes
        if not (is_int(w) and is_int(e) and w > 0 and e > 0 and w % e == 0):
            raise LayoutError(f"vectorizable: width {w!r} bytes must be a positive multiple of the {e!r}-byte dtype")
        if len(inner(lay)) != 2:
            raise LayoutError(f"vectorizable: expected a rank-2 (thread, value) layout, found rank {len(lay)}: {lay}")
        nv = size(inner(lay)[1])
        if nv % (w // e):
            raise LayoutError(f"vectorizable: {nv} values per thread in {lay} do not split into "
                              f"{w // e}-element ({w}-byte) vectors")

    @property
    def vector(self) -> int:
        return self.width_bytes // self.dtype_bytes

    @property
    def threads(self) -> int:
        return size(inner(self.layout)[0])

    def subject(self) -> str:
        return f"{self.layout}, {self.width_bytes} B of {self.dtype_bytes}-byte elements"

    def subjects(self) -> tuple[Subject, ...]:
        return (self.layout,)

    def exhaustive(self) -> Decision:
        nt, w = self.threads, self.vector
        step = np.arange(w).reshape(1, w, 1)
        worst, total, failing = None, 0, 0
        for start, a in chunks(self.layout, align=w * nt):
            offs = a.reshape(-1, w, nt)  # [group, j, thread]
            base = offs[:, :1, :]
            ok = ((offs - base) == step).all(axis=1) & (base[:, 0, :] % w == 0)
            bad = np.argwhere(~ok)  # rows (group, thread)
            total, failing = total + ok.size, failing + bad.shape[0]
            if bad.shape[0]:
                g, t = (int(v) for v in bad[np.lexsort((bad[:, 0], bad[:, 1]))[0]])  # smallest thread, then group
                cand = (t, g + start // (w * nt))
                worst = cand if worst is None or cand < worst else worst
        stats = {"vectors": total, "failing_vectors": failing}
        if worst is None:
            return Decision(True, None, stats)
        return Decision(False, {"kind": "vector", "t": worst[0], "g": worst[1]}, stats)

    def _run(self, w: dict[str, Any]) -> list[int]:
        t, g, nt, vw = w["t"], w["g"], self.threads, self.vector
        return [self.layout(t + nt * (g * vw + j)) for j in range(vw)]

    def recheck(self, w: dict[str, Any]) -> bool:
        if not (0 <= w["t"] < self.threads and 0 <= w["g"] * self.vector < subject_size(self.layout) // self.threads):
            return False
        run = self._run(w)
        return run != list(range(run[0], run[0] + self.vector)) or run[0] % self.vector != 0

    def explain(self, w: dict[str, Any]) -> str:
        run = self._run(w)
        why = "not contiguous" if run != list(range(run[0], run[0] + self.vector)) else \
            f"misaligned ({run[0]} % {self.vector} != 0)"
        return (f"thread {w['t']}, values {w['g'] * self.vector}..{(w['g'] + 1) * self.vector - 1} -> offsets "
                f"{run}: {why}")


# -- the public constructors (CuTe-style free functions) ------------------------------------------------------
def exact_cover(tv_map: Any, tile: Tile | None = None, replication: int | None = None,
                operand: str = "C") -> ExactCover:
    """Claim: the TV map owns every element of ``tile`` exactly ``replication`` times (default 1).

    ``tv_map`` may also be a tiled MMA (anything with ``tv_layout_A/B/C`` and ``tile_size_mnk``); ``operand`` picks
    the fragment, and for A/B the replication defaults to ``size(tv) / size(tile)`` (threads sharing an operand).
    Pre: ``size(tv_map) == replication * size(tile)``.

    >>> str(exact_cover(Layout((4, 2), (2, 1)), (2, 4)))
    'exact_cover((4,2):(2,1) on tile (2,4))'
    """
    if operand not in ("A", "B", "C"):
        raise LayoutError(f"exact_cover: operand must be 'A', 'B' or 'C', found {operand!r}")
    tv, mma_tile, k = _tv_of(tv_map, operand)
    tile = mma_tile if tile is None else tile
    if tile is None:
        raise LayoutError(f"exact_cover: no tile given for the TV map {tv}")
    if replication is None:
        n = product(_tile_shape(tile))
        replication = k if k is not None else max(1, subject_size(tv) // n)
    return ExactCover(tv, tile, replication)


def vectorizable(layout: Any, width_bytes: int, dtype_bytes: int) -> Vectorizable:
    """Claim: each thread's values form aligned contiguous ``width_bytes`` vectors of ``dtype_bytes`` elements."""
    return Vectorizable(layout, width_bytes, dtype_bytes)


__all__ = ["ExactCover", "Tile", "Vectorizable", "exact_cover", "vectorizable"]
