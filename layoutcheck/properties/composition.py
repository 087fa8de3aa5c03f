"""Composition's contract as a claim: ``R`` is the composition ``A o B`` when ``R(i) == A(B(i))`` for every ``i``.

CuTe's ``composition(A, B)`` promises (``layout.hpp``: ``@post For all i, 0 <= i < size(B), R(i) == A(B(i))``) a
layout ``R`` with the domain of ``B`` that computes ``A`` after ``B``. An implementation that admits a pair it
cannot compose returns a layout that breaks this; ``composes(R, A, B)`` states the promise for a given ``R`` (what a
library printed, or what ``composition`` computes here) and the exhaustive engine evaluates both sides everywhere.

``A`` is evaluated as C++ evaluates a layout past its domain (the last mode takes the remainder, ``extended``), so
``B`` may index beyond ``size(A)`` as CuTe allows. Worked example (NVIDIA/cutlass#3177): CuTe C++ composes
``A = (4,6,8):(2,3,5)`` with ``B = 6:3`` into ``R = (2,3):(6,3)``; ``B(2) = 6`` is ``A``'s coordinate ``(2,1,0)``,
``A(6) = 2*2 + 3*1 = 7``, but ``R(2) = R(0,1) = 3``:

    ===  ====  =====  ====
    i    B(i)  A(B)   R(i)
    ===  ====  =====  ====
    0    0     0      0
    1    3     6      6
    2    6     7      3     <- the first index where R is not A o B
    ===  ====  =====  ====
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.inttuple import flatten as flat_shape
from layoutcheck.algebra.layout import Layout, extended, extended_offsets, format_inttuple
from layoutcheck.algebra.notation import as_subject
from layoutcheck.algebra.swizzle import ComposedLayout, Subject
from layoutcheck.errors import LayoutError
from layoutcheck.properties.base import Decision, Property, at, offset_range, subject_size
from layoutcheck.witness_maps import CompositionSize, Coord, Differ, Rank


def _outer_at(a: Subject, j: int) -> int:
    """``A(j)`` as C++ evaluates it, ``j`` past ``size(A)`` included."""
    if isinstance(a, ComposedLayout):
        return a.swizzle(a.offset + extended(a.layout, j))
    return extended(a, j)


def _outer_offsets(a: Subject, idx: np.ndarray) -> np.ndarray:
    """``A(j)`` for every ``j`` of ``idx`` (non-negative), vectorised like ``_outer_at``."""
    lay = a.layout if isinstance(a, ComposedLayout) else a
    table = extended_offsets(lay, int(idx.max()) + 1 if idx.size else 0)
    out = table[idx]
    if isinstance(a, ComposedLayout):
        out = a.swizzle.apply_inplace(out + a.offset)
    return out


@dataclass(frozen=True, slots=True)
class Composes(Property):
    """``size(R) == size(B)`` and ``R(i) == A(B(i))`` for every ``i`` in ``[0, size(B))``: ``R`` is ``A o B``."""

    result: Subject
    a: Subject
    b: Subject
    name: ClassVar[str] = "composes"
    bytes_per_point: ClassVar[int] = 32

    def __post_init__(self) -> None:
        for key, what in (("result", "composes: R"), ("a", "composes: A"), ("b", "composes: B")):
            object.__setattr__(self, key, as_subject(getattr(self, key), what))
        if offset_range(self.b)[0] < 0:
            raise LayoutError(f"composes: B = {self.b} reaches negative offsets, where A is not defined")

    def subjects(self) -> tuple[Subject, ...]:
        return (self.result, self.b)

    def subject(self) -> str:
        return f"{self.result}, {self.a} o {self.b}"

    def size_witness(self) -> dict[str, Any] | None:
        nr, nb = subject_size(self.result), subject_size(self.b)
        return None if nr == nb else CompositionSize(nr, nb)

    def exhaustive(self) -> Decision:
        sw = self.size_witness()
        if sw is not None:
            return Decision(False, sw)
        rb = np.asarray(self.b.offsets(), dtype=np.int64)
        diff = np.flatnonzero(np.asarray(self.result.offsets(), dtype=np.int64) != _outer_offsets(self.a, rb))
        stats = {"differing": int(diff.size)}
        return Decision(True, None, stats) if diff.size == 0 else Decision(False, Differ(int(diff[0])),
                                                                            stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        if w["kind"] == "size":
            return w == self.size_witness()
        i = w["i"]
        return 0 <= i < subject_size(self.b) == subject_size(self.result) and \
            self.result(i) != _outer_at(self.a, self.b(i))

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "size":
            return f"size(R) = {w['size_r']} but size(B) = {w['size_b']}: R is not defined on the domain of B"
        i = w["i"]
        j = self.b(i)
        return f"index {i}: R{at(self.result, i)} but B{at(self.b, i)} and A({j}) = A{_outer_coord(self.a, j)}"


def _outer_coord(a: Subject, j: int) -> str:
    """``(crd) -> A(j)`` with ``j``'s coordinate in ``A`` (the last mode taking any remainder, as C++ does)."""
    lay = a.layout if isinstance(a, ComposedLayout) else a
    crd = format_inttuple(_extended_crd(j, lay))
    return f"{crd if crd.startswith('(') else f'({crd})'} -> {_outer_at(a, j)}"


def _extended_crd(j: int, lay: Layout) -> Any:
    """The flat coordinate of index ``j`` in ``lay``'s leaves, the last leaf unbounded."""
    from layoutcheck.algebra.inttuple import flatten

    shape = flatten(lay.shape)
    crd = []
    for s in shape[:-1]:
        crd.append(j % s)
        j //= s
    crd.append(j)
    return tuple(crd) if len(crd) > 1 else crd[0]


def _mode_coords(idx: np.ndarray, extents: tuple[int, ...]) -> np.ndarray:
    """(len(idx), len(extents)): the colexicographic coordinate of each index over ``extents`` (the last extent
    unbounded, as CuTe reads an index past the domain)."""
    out = np.empty((idx.size, len(extents)), dtype=np.int64)
    rest = idx.astype(np.int64)
    for k, n in enumerate(extents[:-1]):
        out[:, k], rest = rest % n, rest // n
    out[:, -1] = rest
    return out


@dataclass(frozen=True, slots=True)
class OnTile(Property):
    """``memory`` is a layout of ``tile``: it reads tile element ``i`` (coordinate ``c`` colexicographic over
    ``tile``) at its own coordinate ``c``, inside its domain -- what ``memory o tv`` presumes of a TV map into the
    tile. A rank-1 ``memory`` reads the flat tile index; otherwise the ranks agree and, for every ``i < size(tile)``,
    ``i``'s coordinate over the top-level mode sizes of ``memory`` is its coordinate over ``tile`` and ``i <
    size(memory)``.

    >>> on_tile(Layout((10, 8), (8, 1)), (16, 8)).exhaustive().witness.to_json()
    {'kind': 'coord', 'i': 10, 'tile': [10, 0], 'memory': [0, 1]}
    """

    memory: Subject
    tile: tuple[int, ...]
    name: ClassVar[str] = "on_tile"
    bytes_per_point: ClassVar[int] = 48

    def __post_init__(self) -> None:
        object.__setattr__(self, "memory", as_subject(self.memory, "on_tile: memory"))
        object.__setattr__(self, "tile", tuple(int(t) for t in self.tile))
        if not self.tile or min(self.tile) < 1:
            raise LayoutError(f"on_tile: a tile is a tuple of positive extents, found {self.tile}")

    def _extents(self) -> tuple[int, ...]:
        lay = self.memory.layout if isinstance(self.memory, ComposedLayout) else self.memory
        shape = lay.shape if isinstance(lay.shape, tuple) else (lay.shape,)
        return tuple(int(np.prod(flat_shape(m))) for m in shape)

    def subjects(self) -> tuple[Subject, ...]:
        return (self.memory,)

    def subject(self) -> str:
        return f"{self.memory}, tile {format_inttuple(self.tile)}"

    def domain_size(self) -> int:
        return int(np.prod(self.tile))

    def _first_bad(self) -> dict[str, Any] | None:
        ext, n = self._extents(), self.domain_size()
        if len(ext) == 1:  # a flat map of the tile index
            past = subject_size(self.memory)
            return None if past >= n else Coord(past, self._tile_coord(past), None)
        if len(ext) != len(self.tile):
            return Rank(len(ext))
        idx = np.arange(n, dtype=np.int64)
        bad = (_mode_coords(idx, self.tile) != _mode_coords(idx, ext)).any(axis=1) | (idx >= subject_size(self.memory))
        if not bad.any():
            return None
        i = int(np.flatnonzero(bad)[0])
        return Coord(i, self._tile_coord(i), self._memory_coord(i))

    def _tile_coord(self, i: int) -> list[int]:
        return [int(c) for c in _mode_coords(np.array([i]), self.tile)[0]]

    def _memory_coord(self, i: int) -> list[int] | None:
        if i >= subject_size(self.memory):
            return None
        return [int(c) for c in _mode_coords(np.array([i]), self._extents())[0]]

    def exhaustive(self) -> Decision:
        w = self._first_bad()
        return Decision(w is None, w, {"elements": self.domain_size()})

    def recheck(self, w: dict[str, Any]) -> bool:
        if w["kind"] == "rank":
            return w["rank"] == len(self._extents()) != len(self.tile) and w["rank"] > 1
        i = w["i"]
        return (0 <= i < self.domain_size() and w["tile"] == self._tile_coord(i) and w["memory"] ==
                self._memory_coord(i) and (w["memory"] is None or (len(self._extents()) > 1 and w["memory"] !=
                                                                     w["tile"])))

    def explain(self, w: dict[str, Any]) -> str:
        ext = format_inttuple(self._extents())
        if w["kind"] == "rank":
            return (f"memory layout {self.memory} has {w['rank']} modes (sizes {ext}), the tile "
                    f"{format_inttuple(self.tile)} {len(self.tile)}: it is not a layout of the tile")
        tile = format_inttuple(tuple(w["tile"]))
        if w["memory"] is None:
            return (f"tile element {tile} (index {w['i']}) is outside the domain of memory layout {self.memory} "
                    f"({subject_size(self.memory)} elements, tile {format_inttuple(self.tile)})")
        return (f"tile element {tile} (index {w['i']}) is element {format_inttuple(tuple(w['memory']))} of memory "
                f"layout {self.memory}, whose modes have sizes {ext}, not the tile's {format_inttuple(self.tile)}")


def on_tile(memory: Any, tile: Any) -> OnTile:
    """Claim: ``memory`` reads every element of ``tile`` at that element's own coordinate (``OnTile``).

    Post: PROVEN iff ``memory o tv`` means "the memory offset of the tile element ``tv`` names" for every TV map
    into ``tile``.
    """
    return OnTile(memory, tuple(tile) if isinstance(tile, (tuple, list)) else (tile,))


def composes(result: Any, a: Any, b: Any) -> Composes:
    """Claim: ``result`` is the composition ``a o b`` (``result(i) == a(b(i))`` on the domain of ``b``).

    Pre: ``b``'s offsets are non-negative. Post: PROVEN iff ``size(result) == size(b)`` and the two sides agree at
    every index.

    >>> composes(Layout((2, 3), (6, 3)), Layout((4, 6, 8), (2, 3, 5)), Layout(6, 3)).exhaustive().witness
    Differ(i=2)
    """
    return Composes(result, a, b)


__all__ = ["Composes", "OnTile", "composes", "on_tile"]
