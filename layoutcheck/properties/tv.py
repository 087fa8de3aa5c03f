"""TV-map properties: claims about a (thread, value) map -- ``exact_cover`` of a tile and ``vectorizable`` access.

A TV map is a rank-2 subject: mode 0 the threads ``t``, mode 1 each thread's values ``v``; ``tv(t, v)`` is a colex
index of the tile (``exact_cover``) or an element offset in memory (``vectorizable``, a TV map composed with a memory
layout). Definitions (as in the table of ``layoutcheck.properties.layout``)::

    exact_cover(tv, tile, k) every (t, v) lands inside the tile, and every tile index y in [0, size(tile)) is
                            tv(t, v) for exactly k pairs (t, v), of k distinct threads t (k = 1: a partition of the
                            tile; k > 1: MMA A/B replication). An owner is a pair (t, v): a stride-0 thread mode
                            of size s gives every element it spans s owners; size(tv) != k * size(tile) refutes it
    vectorizable(L, w, e)   for every thread t and every group g of W = w/e consecutive values (elements of e bytes),
                            L(t, g*W + j) == L(t, g*W) + j and L(t, g*W) % W == 0

Worked example: ``(4,2):(2,1)`` on the tile ``(2,4)`` gives thread ``t`` the tile indices ``2t`` and ``2t+1``: an
exact cover, and 2-element vectors (``vectorizable(L, 2 * e, e)``) for any element size ``e``::

    >>> tv = Layout((4, 2), (2, 1))
    >>> [[tv(t, v) for v in range(2)] for t in range(4)]
    [[0, 1], [2, 3], [4, 5], [6, 7]]
    >>> exact_cover(tv, (2, 4)).exhaustive().holds, vectorizable(tv, 8, 4).exhaustive().holds
    (True, True)

Both validate their inputs when built (rank 2, a positive ``k``, ``W`` dividing the values per thread) and raise
``LayoutError`` otherwise; a TV map of the wrong size is well formed, and refuted (``((32,2),4):((1,0),32)`` on a
128-element tile: element 0 is owned by ``(thread 0, value 0)`` and ``(thread 32, value 0)``). The protocol they
follow is ``layoutcheck.properties.base``; they are re-exported
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
    smallest_collision,
    subject_size,
)
from layoutcheck.properties.scan import chunks, counts, indices_of, marks
from layoutcheck.witness_maps import OutOfRange, Owners, SameThread, TvCount, Vector

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
    """``(tv, tile, replication)`` of a TV map, or of a tiled MMA's operand (anything with ``tv_layout_C``): its
    replication by construction (``replication(operand)``: ThrN for A, ThrM for B, 1 for C)."""
    attr = f"tv_layout_{operand}"
    if hasattr(tv_map, attr):
        m, n, k = tv_map.tile_size_mnk
        tile = {"A": (m, k), "B": (n, k), "C": (m, n)}[operand]
        rep = tv_map.replication(operand) if hasattr(tv_map, "replication") else None
        return as_subject(getattr(tv_map, attr), f"exact_cover: {attr}"), tile, rep
    return as_subject(tv_map, "exact_cover: tv_map"), None, 1


@dataclass(frozen=True, slots=True)
class ExactCover(Property):
    """Every tile element is owned by exactly ``replication`` ``(thread, value)`` pairs, of distinct threads.

    ``tv`` is rank 2: mode 0 the threads, mode 1 each thread's values; ``tv(t, v)`` is a colex index of the tile, or,
    when ``frame`` (a flat shape holding the tile, mode by mode) is given, the colex index of the element's tile
    coordinate in that larger box: a coordinate past the tile's extent in any mode is *outside* (a partition that
    runs past a tile its tilers do not divide). An owner is a pair ``(t, v)``: two pairs that reach one element are
    two owners, whether they differ in ``t`` (a stride-0 thread mode: replication) or in ``v``.
    """

    tv: Subject
    tile: Tile
    replication: int = 1
    frame: tuple[int, ...] | None = None
    name: ClassVar[str] = "exact_cover"

    def __post_init__(self) -> None:
        tv = as_subject(self.tv, "exact_cover: tv_map")
        object.__setattr__(self, "tv", tv)
        shape = _tile_shape(self.tile)  # validates the tile
        if len(inner(tv)) != 2:
            raise LayoutError(f"exact_cover: the TV map must have rank 2 (thread, value), found rank {len(tv)}: {tv}")
        k = self.replication
        if not is_int(k) or k <= 0:
            raise LayoutError(f"exact_cover: replication must be a positive int, found {k!r}")
        if self.frame is not None:
            f, t = tuple(self.frame), flatten(shape)
            if isinstance(self.tile, Layout) or len(f) != len(t) or any(
                    not is_int(a) or a < b for a, b in zip(f, t, strict=True)):
                raise LayoutError(f"exact_cover: frame {self.frame!r} must be a flat shape holding the tile shape "
                                  f"{_show_tile(self.tile)} mode by mode")
            object.__setattr__(self, "frame", None if f == t else f)

    @property
    def sizes_match(self) -> bool:
        """``size(tv) == replication * size(tile)`` and ``tv`` indexes the tile itself (no ``frame``). Otherwise only
        enumeration (the exhaustive engine) names the mis-owned element; the other engines decline (the structural
        one refutes a size mismatch by counting)."""
        return self.frame is None and subject_size(self.tv) == self.replication * self.tile_size

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
        f = f" (frame {format_inttuple(self.frame)})" if self.frame is not None else ""
        return f"{self.tv} on tile {_show_tile(self.tile)}{f}{k}"

    @property
    def bytes_per_point(self) -> int:  # type: ignore[override]
        """One mark byte per tile element (then one count byte) for a partition of the right size; else the offsets
        and their tile indices (counting)."""
        return 2 if self.replication == 1 and self.sizes_match else 40

    def count_witness(self) -> dict[str, Any] | None:
        """The ``count`` witness when sizes alone refute the claim: ``size(tv) != replication * size(tile)`` with no
        ``frame`` (by pigeonhole some element is owned more, or fewer, than ``replication`` times).

        >>> exact_cover(Layout(((32, 2), 4), ((1, 0), 32)), 128).count_witness()
        TvCount(size=256, tile=128, replication=1)
        """
        m, n, k = subject_size(self.tv), self.tile_size, self.replication
        if self.frame is None and m != k * n:
            return TvCount(m, n, k)
        return None

    def tile_index(self, offs: np.ndarray) -> np.ndarray:
        """The tile index of each ``tv`` value (int64), ``-1`` where it is outside the tile."""
        offs = np.asarray(offs, dtype=np.int64)
        if self.frame is None:
            return np.where((offs >= 0) & (offs < self.tile_size), offs, -1)
        tile = flatten(_tile_shape(self.tile))
        out = np.zeros(offs.shape, dtype=np.int64)
        inside = (offs >= 0) & (offs < product(self.frame))
        rest, unit = offs.copy(), 1
        for f, t in zip(self.frame, tile, strict=True):
            c = rest % f
            rest //= f
            inside &= c < t
            out += c * unit
            unit *= t
        return np.where(inside, out, -1)

    def exhaustive(self) -> Decision:
        return self._partition() if self.replication == 1 and self.sizes_match else self._counted()

    def _partition(self) -> Decision:
        """``replication == 1`` and ``size(tv) == size(tile)``: every element is owned once iff every one is hit."""
        x, n = self.tv, self.tile_size
        seen, i = marks(x, 0, n)
        if i is not None:
            return Decision(False, OutOfRange(i), {})
        if int(np.count_nonzero(seen)) == n:
            return Decision(True, None, {"missing": 0, "over_owned": 0, "under_owned": 0})
        del seen
        hits = counts(x, 0, n, 2)
        stats = {"missing": int((hits == 0).sum()), "over_owned": int((hits > 1).sum()),
                 "under_owned": int((hits < 1).sum())}
        y = int(np.flatnonzero(hits != 1)[0])
        owners = indices_of(x, y, limit=64)
        count = len(owners) if hits[y] < 2 or len(owners) < 64 else len(indices_of(x, y, None))
        return Decision(False, Owners(y, owners, count), stats)

    def _counted(self) -> Decision:
        """Count the owners of every element: the first ``(t, v)`` outside the tile, else the smallest element not
        owned ``replication`` times, else (``replication > 1``) the smallest pair of one thread's values on one
        element."""
        idx, n, k, nt = self.tile_index(self.tv.offsets(np.int64)), self.tile_size, self.replication, self.threads
        out = np.flatnonzero(idx < 0)
        if out.size:
            return Decision(False, OutOfRange(int(out[0])), {"outside": int(out.size)})
        owned = np.bincount(idx, minlength=n)
        stats = {"missing": int((owned == 0).sum()), "over_owned": int((owned > k).sum()),
                 "under_owned": int((owned < k).sum())}
        bad = np.flatnonzero(owned != k)
        if bad.size:
            y = int(bad[0])
            owners = _owners(idx, y, limit=max(64, k + 1))
            return Decision(False, Owners(y, owners, int(owned[y])), stats)
        if k > 1:  # each thread owns an element at most once: (index, thread) pairs are distinct
            pair = smallest_collision(idx * nt + np.arange(idx.size, dtype=idx.dtype) % nt)
            if pair is not None:
                return Decision(False, SameThread(pair[0], pair[1]), stats)
        return Decision(True, None, stats)

    def _index(self, i: int) -> int:
        return int(self.tile_index(np.array([self.tv(i)]))[0])

    def recheck(self, w: dict[str, Any]) -> bool:
        tv, kind = self.tv, w["kind"]
        if kind == "count":
            return w == self.count_witness()
        if kind == "out":
            return 0 <= w["i"] < subject_size(tv) and self._index(w["i"]) < 0
        if kind == "same_thread":
            i, j = w["i"], w["j"]
            return (i != j and i % self.threads == j % self.threads and self._index(i) == self._index(j) >= 0
                    and self.replication > 1)
        owners, y = w["owners"], w["y"]
        listed_ok = (0 <= y < self.tile_size and len(set(owners)) == len(owners)
                     and all(0 <= o < subject_size(tv) and self._index(o) == y for o in owners))
        if len(owners) > self.replication:  # over-owned: the listed owners alone prove it
            return listed_ok
        # under-owned: the list must be complete, which only enumeration shows (the exhaustive engine's domain)
        return (listed_ok and subject_size(tv) <= 1 << 26
                and sorted(owners) == _owners(self.tile_index(tv.offsets(np.int64)), y, None))

    def explain(self, w: dict[str, Any]) -> str:
        kind, nt = w["kind"], self.threads
        if kind == "count":
            return (f"size(tv) = {w['size']} != {w['replication']} x {w['tile']} tile elements: some element is "
                    f"not owned exactly {w['replication']} times")
        if kind == "out":
            i = w["i"]
            return f"thread {i % nt}, value {i // nt} -> {self._outside(self.tv(i))}"
        if kind == "same_thread":
            i, j = w["i"], w["j"]
            return (f"thread {i % nt} owns tile element {self._crd(self._index(i))} twice: values {i // nt} and "
                    f"{j // nt}")
        y, owners = w["y"], w["owners"]
        count = w.get("count", len(owners))
        who = ", ".join(f"(thread {o % nt}, value {o // nt})" for o in owners[:8]) or "nobody"
        more = f" and {count - min(8, len(owners))} more" if count > 8 else ""
        times = f"at least {count}" if w.get("at_least") else f"{count}"
        return f"tile element {self._crd(y)} is owned {times} times (expected {self.replication}): {who}{more}"

    def _outside(self, off: int) -> str:
        """Where an offset outside the tile points: a tile coordinate past the extent (``frame``), or a raw index."""
        if self.frame is None or not 0 <= off < product(self.frame):
            return f"{off}, outside the tile [0,{self.tile_size})"
        tile = flatten(_tile_shape(self.tile))
        crd = flatten(idx2crd(off, self.frame))
        past = [f"{'row' if m == 0 else 'column' if m == 1 else f'mode {m}'} {c} >= {t}"
                for m, (c, t) in enumerate(zip(crd, tile, strict=True)) if c >= t]
        return (f"tile coordinate {format_inttuple(crd)}, outside the {'x'.join(map(str, tile))} tile "
                f"({', '.join(past)})")

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
        return Decision(False, Vector(worst[0], worst[1]), stats)

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
                operand: str = "C", frame: tuple[int, ...] | None = None) -> ExactCover:
    """Claim: the TV map owns every element of ``tile`` exactly ``replication`` times (default 1).

    ``tv_map`` may also be a tiled MMA (anything with ``tv_layout_A/B/C`` and ``tile_size_mnk``); ``operand`` picks
    the fragment, and the replication defaults to the MMA's own (ThrN for A, ThrM for B, 1 for C). ``frame``: the
    flat shape ``tv``'s colex indices live in, when the map may run past the tile (``models.tiled_mma.tile_frame``).

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
    return ExactCover(tv, tile, replication, frame)


def vectorizable(layout: Any, width_bytes: int, dtype_bytes: int) -> Vectorizable:
    """Claim: each thread's values form aligned contiguous ``width_bytes`` vectors of ``dtype_bytes`` elements."""
    return Vectorizable(layout, width_bytes, dtype_bytes)


__all__ = ["ExactCover", "Tile", "Vectorizable", "exact_cover", "vectorizable"]
