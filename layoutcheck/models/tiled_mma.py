"""Tiled MMA: many MMA atoms tiled over threads and a (permuted) M x N x K tile -- CuTe's ``TiledMMA`` / ``ThrMMA``.

Reference: CUTLASS ``include/cute/atom/mma_atom.hpp``. A ``TiledMMA`` is an atom, an *atom layout*
``(AtomsM,AtomsN,AtomsK) -> atom index`` and a per-mode *permutation* (a tiler applied to M, N and K before the
atoms are laid down). Threads are numbered by ``thr_layout_vmnk = tiled_product(thr_id, atom_layout)``::

    (ThrV, ThrM, ThrN, ThrK) -> thread index          e.g. (32,2,2,1):(1,32,64,128) for m16n8k16 x (2,2,1)

so with CuTe's default column-major atom layout, thread ``t`` of the SIMT config ``UniversalFMA`` x ``(16,16)`` has
``(m, n) = (t % 16, t // 16)`` -- *not* the row-major ``(t // 16, t % 16)`` many hand-written kernels use; pass
``Layout((16,16),(16,1))`` for that order. Partitioning the C tile (``thrfrg_C``), step by step::

    logical_divide(C, (PermM, PermN))          # reorder M and N by the permutation tiles
    zipped_divide(., (AtomM, AtomN))           # ((AtomM,AtomN), (RestM,RestN))
    compose mode 0 with the atom's C TV layout # ((ThrV,FrgV), (RestM,RestN))
    zipped_divide(., (_, (ThrM, ThrN)))        # ((ThrV,(ThrM,ThrN)), (FrgV,(RestM,RestN)))

where ``_`` (``None``) keeps the rank-2 mode ``(ThrV,FrgV)`` as its own (tile, rest): CuTe's ``tile_unzip``, which
``zipped_divide`` follows (``layoutcheck.algebra.tiling``), so both steps are the library's ``zipped_divide``.
``partition_C`` slices mode 0 at the thread's ``(v, (m, n))``: a ``Tensor`` (offset + layout) of shape
``(FrgV, RestM, RestN)``. ``A`` and ``B`` are the same with ``(M,K)`` and ``(N,K)``; an A element is owned by every
thread that differs only in its N coordinate (replication ``ThrN``), a B element by ``ThrM`` threads.

Worked example (the SIMT step-1 kernel): ``UniversalFMA``, atom layout ``(16,16)``, permutation
``((16,4):(4,1), (16,4):(4,1))``, C row-major ``(128,128):(128,1)``: 256 threads, 64 values each; thread 0 owns
rows ``{0..3, 64..67}`` x cols ``{0..3, 64..67}``; thread 1 (m=1) owns rows ``{4..7, 68..71}`` x the same columns.

Deviation from the C++: CuTe's ``get_layoutC_TV`` indexes ``(ThrV,(ThrM,ThrN))`` with a thread index that also
ranges over ``ThrK`` (it runs off the tile for ``ThrK > 1``); here ``ThrK`` replicates C the way ``ThrN`` replicates A,
which is what each thread's ``partition_C`` holds (it slices at ``(v,(m,n))`` and ignores ``k``): ``tv_layout``.

A permutation is CuTe's *tiler*, not necessarily a bijection: ``thrfrg`` takes ``logical_divide`` by it, so
``(16,1):(2,1)`` on 128 rows takes rows ``0,2,..,30`` first and its complement ``(2,4):(1,32)`` the rest. A tile its
tilers do not divide is divided with CuTe's rounding-up complement and the partition runs past it; ``tile_frame``
indexes such a partition by tile coordinate, so the rows outside are named (the claims judge).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from layoutcheck.algebra.inttuple import flatten, is_int, is_tuple, unflatten
from layoutcheck.algebra.layout import Layout, cosize, make_layout, size
from layoutcheck.algebra.ops import complement, composition, right_inverse
from layoutcheck.algebra.tiling import logical_divide, zipped_divide
from layoutcheck.display import render
from layoutcheck.errors import LayoutError
from layoutcheck.hw.mma import mma_atom
from layoutcheck.hw.mma_atom import MmaAtom

Perm = Layout | int | None


# -- the small Tensor value ------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Tensor:
    """A tensor of offsets: ``t(i) == t.offset + t.layout(i)`` (a CuTe tensor whose engine is a counting iterator).

    >>> t = Tensor(3, Layout((2,2),(1,8)))
    >>> t(3), str(t)
    (12, '3 + (2,2):(1,8)')
    """

    offset: int
    layout: Layout

    def __call__(self, *args: Any) -> int:
        return self.offset + self.layout(*args)

    def offsets(self) -> np.ndarray:
        return self.offset + self.layout.offsets(np.int64)

    @property
    def shape(self) -> Any:
        return self.layout.shape

    def __len__(self) -> int:
        return len(self.layout)

    def __str__(self) -> str:
        return f"{self.offset} + {self.layout}"

    def __repr__(self) -> str:
        return f"Tensor(offset={self.offset}, layout={self.layout})"


def _modes(l: Layout) -> list[Layout]:
    return list(l) if is_tuple(l.shape) else [l]


# -- inputs ------------------------------------------------------------------------------------------------------------
def _atom_layout(x: Any) -> Layout:
    if isinstance(x, Layout):
        l = x
    elif is_int(x):
        l = Layout((x,))
    elif is_tuple(x) and all(is_int(v) or is_tuple(v) for v in x):
        l = Layout(tuple(x))
    else:
        raise LayoutError(f"atom_layout must be an int tuple or a Layout, found {x!r}")
    if not is_tuple(l.shape):
        l = Layout((l.shape,), (l.stride,))
    if len(l) > 3:
        raise LayoutError(f"atom_layout {l} has rank {len(l)}; expected at most 3 modes (M,N,K)")
    modes = _modes(l) + [Layout(1, 0)] * (3 - len(l))
    return make_layout(*modes)


def _permutation(p: Any) -> tuple[Perm, Perm, Perm]:
    if p is None:
        p = (None, None, None)
    if not is_tuple(p) and not isinstance(p, list):
        raise LayoutError(f"permutation must be a tuple of up to 3 entries (M,N,K), found {p!r}")
    p = tuple(p)
    if len(p) > 3:
        raise LayoutError(f"permutation has {len(p)} entries; expected at most 3 (M,N,K)")
    out: list[Perm] = []
    for name, e in zip("MNK", p, strict=False):
        if e is None or isinstance(e, Layout) or (is_int(e) and e > 0):
            out.append(e)
        else:
            raise LayoutError(f"permutation {name} must be an int, a Layout or None, found {e!r}")
    return tuple(out + [None] * (3 - len(out)))  # type: ignore[return-value]


def _flat_crd_of(layout: Layout, idx: int) -> int:
    """CuTe's ``idx2crd(idx, shape, stride)`` for one mode, returned as the colex index inside that mode."""
    crd, mult = 0, 1
    for s, d in zip(flatten(layout.shape), flatten(layout.stride), strict=True):
        c = (idx // d) % s if d else 0
        crd += c * mult
        mult *= s
    return crd


@dataclass(frozen=True, slots=True)
class TiledMMA:
    """An MMA atom tiled by ``atom_layout`` (rank 3, ``(M,N,K) -> atom``) over a tile permuted by ``permutation``."""

    atom: MmaAtom
    atom_layout: Layout
    permutation: tuple[Perm, Perm, Perm]
    thr_layout_vmnk: Layout

    # -- sizes ---------------------------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        """Number of threads."""
        return size(self.thr_layout_vmnk)

    def thr_size(self, mode: int) -> int:
        """Threads along mode ``0=V, 1=M, 2=N, 3=K``."""
        return size(self.thr_layout_vmnk[mode])

    def permutation_mnk(self, i: int) -> Layout | int:
        """CuTe's ``permutation_mnk<I>``: the tiler of mode ``i``; ``None`` means ``atom extent * threads``."""
        p = self.permutation[i]
        return self.atom.shape_mnk[i] * self.thr_size(i + 1) if p is None else p

    @property
    def tile_size_mnk(self) -> tuple[int, int, int]:
        return tuple(  # type: ignore[return-value]
            p if is_int(p) else size(p) for p in (self.permutation_mnk(i) for i in range(3)))

    # -- thrfrg ----------------------------------------------------------------------------------------------------
    @lru_cache(maxsize=64)  # noqa: B019 -- TiledMMA values are immutable; a config's claims and data path share them
    def _thrfrg(self, t: Layout, i0: int, i1: int, tv: Layout) -> Layout:
        what = "MNK"[i0] + "MNK"[i1]
        if len(t) < 2:
            raise LayoutError(f"partition of {t}: expected a rank >= 2 ({what}) layout, found rank {len(t)}")
        t_tensor = logical_divide(t, (self.permutation_mnk(i0), self.permutation_mnk(i1)))
        a_tensor = zipped_divide(t_tensor, (Layout(self.atom.shape_mnk[i0]), Layout(self.atom.shape_mnk[i1])))
        tv_tensor = composition(a_tensor, (tv, None))
        thr_tile = (None, (Layout(self.thr_size(i0 + 1)), Layout(self.thr_size(i1 + 1))))
        return zipped_divide(tv_tensor, thr_tile)

    def thrfrg_C(self, c: Layout) -> Layout:
        """``((ThrV,(ThrM,ThrN)), (FrgV,(RestM,RestN,...)))`` for an ``(M,N,...)`` layout."""
        return self._thrfrg(c, 0, 1, self.atom.tv_layout_C)

    def thrfrg_A(self, a: Layout) -> Layout:
        """``((ThrV,(ThrM,ThrK)), (FrgV,(RestM,RestK,...)))`` for an ``(M,K,...)`` layout."""
        return self._thrfrg(a, 0, 2, self.atom.tv_layout_A)

    def thrfrg_B(self, b: Layout) -> Layout:
        """``((ThrV,(ThrN,ThrK)), (FrgV,(RestN,RestK,...)))`` for an ``(N,K,...)`` layout."""
        return self._thrfrg(b, 1, 2, self.atom.tv_layout_B)

    # -- TV layouts of the whole tile -------------------------------------------------------------------------------
    def _thridx_to_vmnk(self) -> Layout:
        """thread index -> colex index of its ``(V,M,N,K)`` coordinate."""
        vmnk = self.thr_layout_vmnk
        inv = right_inverse(make_layout(vmnk, complement(vmnk)))
        return composition(Layout((size(vmnk), 1), (1, 0)), inv)

    def tv_layout(self, operand: str, tensor: Layout) -> Layout:
        """``(thread index, value) -> offset`` of ``operand``'s elements in ``tensor`` (rank 2: ``(M,N)`` for C,
        ``(M,K)`` for A, ``(N,K)`` for B), over *every* thread of the TiledMMA.

        ``thrfrg_X`` numbers the threads that partition the operand: ``(ThrV,(ThrM,ThrN))`` for C. The threads it
        leaves out -- ``ThrK`` for C, ``ThrN`` for A, ``ThrM`` for B -- take the partition of the thread they differ
        from only there (``ThrMMA::partition_X`` slices at ``(v,(m,n))`` and ignores ``k``), so their mode has
        stride 0: ``ThrK > 1`` means every C element has ``ThrK`` owners (a split-K double write), as ``ThrN``
        threads share each A element. CuTe's ``get_layoutA_TV`` builds A and B this way; its ``get_layoutC_TV``
        instead lets the thread index run off ``(ThrM,ThrN)`` for ``ThrK > 1`` (off the tile), which is not what a
        thread's ``partition_C`` holds.

        >>> t = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (1, 1, 2))
        >>> str(t.tv_layout("C", Layout((16, 8))))
        '((4,8,2),((2,2),(1,1))):((32,1,0),((16,8),(0,0)))'
        """
        tm, tn, tk = self.thr_size(1), self.thr_size(2), self.thr_size(3)
        if operand == "C":
            frg = self.thrfrg_C(tensor)
            widen = (None, (None, Layout((tn, tk), (1, 0))))  # (ThrV,(ThrM,(ThrN,ThrK)))
        elif operand == "A":
            frg = self.thrfrg_A(tensor)
            widen = (None, (Layout((tm, tn), (1, 0)), None))  # (ThrV,((ThrM,ThrN),ThrK))
        elif operand == "B":
            frg = self.thrfrg_B(tensor)
            widen = (None, (Layout((tm, tn), (0, 1)), None))  # (ThrV,((ThrM,ThrN),ThrK))
        else:
            raise LayoutError(f"operand must be 'A', 'B' or 'C', found {operand!r}")
        thr = composition(composition(frg[0], widen), self._thridx_to_vmnk())
        return make_layout(thr, frg[1])

    def replication(self, operand: str) -> int:
        """Threads that hold each element of ``operand`` by construction: ``ThrN`` for A, ``ThrM`` for B, 1 for C
        (a C element owned ``ThrK > 1`` times is a double write, not a design).

        >>> make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 4, 1)).replication("A")
        4
        """
        return {"A": self.thr_size(2), "B": self.thr_size(1), "C": 1}[operand]

    def _tv(self, operand: str) -> Layout:
        m, n, k = self.tile_size_mnk
        return self.tv_layout(operand, Layout({"C": (m, n), "A": (m, k), "B": (n, k)}[operand]))

    @property
    def tv_layout_C(self) -> Layout:
        """``(thread, value) -> m + M*n`` in the ``tile_size_mnk`` M x N tile (CuTe's ``get_layoutC_TV``)."""
        return self._tv("C")

    @property
    def tv_layout_A(self) -> Layout:
        """``(thread, value) -> m + M*k`` (CuTe's ``get_layoutA_TV``; threads differing only in N share values)."""
        return self._tv("A")

    @property
    def tv_layout_B(self) -> Layout:
        """``(thread, value) -> n + N*k`` (CuTe's ``get_layoutB_TV``)."""
        return self._tv("B")

    # -- threads -----------------------------------------------------------------------------------------------------
    def thr_coord(self, tid: int) -> tuple[int, int, int, int]:
        """``(v, m, n, k)`` of thread ``tid`` (CuTe's ``thr_layout_vmnk.get_flat_coord``)."""
        if not is_int(tid) or not 0 <= tid < self.size:
            raise LayoutError(f"thread id {tid!r} out of range [0,{self.size}) of this TiledMMA")
        vmnk = self.thr_layout_vmnk
        crd = tuple(_flat_crd_of(vmnk[i], tid) for i in range(4))
        if vmnk(crd) != tid:
            raise LayoutError(f"thread layout {vmnk} does not reach thread {tid} (atom_layout not compact)")
        return crd  # type: ignore[return-value]

    def thr_coords(self) -> np.ndarray:
        """``thr_coord`` of every thread at once: row ``tid`` is ``(v, m, n, k)`` (int64, ``size x 4``); the same
        error as ``thr_coord`` for the first thread the layout does not reach.

        >>> from layoutcheck.models.tiled_mma import make_tiled_mma
        >>> make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1)).thr_coords()[[0, 33, 127]].tolist()
        [[0, 0, 0, 0], [1, 1, 0, 0], [31, 1, 1, 0]]
        """
        vmnk = self.thr_layout_vmnk
        tid = np.arange(self.size, dtype=np.int64)
        crd = np.stack([np.broadcast_to(_flat_crd_of(vmnk[i], tid), tid.shape) for i in range(4)], axis=1)
        back = sum(vmnk[i].offsets(np.int64)[crd[:, i]] for i in range(4))
        bad = np.flatnonzero(back != tid)
        if bad.size:
            raise LayoutError(f"thread layout {vmnk} does not reach thread {int(bad[0])} (atom_layout not compact)")
        return crd

    def get_slice(self, tid: int) -> ThrMMA:
        return ThrMMA(self, tid, self.thr_coord(tid))

    def thread_ids(self, modes: str = "VMN") -> np.ndarray:
        """Thread index for every colex coordinate of the ``modes`` of ``thr_layout_vmnk`` (others at 0)."""
        idx = {"V": 0, "M": 1, "N": 2, "K": 3}
        return make_layout(*(self.thr_layout_vmnk[idx[c]] for c in modes)).offsets()

    def __str__(self) -> str:
        perm = ",".join("_" if p is None else str(p) for p in self.permutation)
        return (f"TiledMMA({self.atom.name}, atom_layout={self.atom_layout}, permutation=({perm}), "
                f"thr_layout_vmnk={self.thr_layout_vmnk}, tile_size_mnk={self.tile_size_mnk})")

    def _repr_svg_(self) -> str | None:
        """Jupyter: the C TV layout over the M x N tile (``None``, so the text, above 4096 cells)."""
        return render(self, "svg")

    def _repr_html_(self) -> str:
        """Jupyter: the TV layouts of A, B and C over the tiled MMA's tile, as CuTe's ``print_svg`` draws them."""
        return render(self, "html")


@dataclass(frozen=True, slots=True)
class ThrMMA:
    """One thread's view of a ``TiledMMA`` (CuTe's ``ThrMMA``)."""

    tiled: TiledMMA
    tid: int
    thr_vmnk: tuple[int, int, int, int]

    def _partition(self, x: Layout | Tensor, frg: Layout, crd: tuple[int, int, int]) -> Tensor:
        base = x.offset if isinstance(x, Tensor) else 0
        v, a, b = crd
        off = frg[0]((v, (a, b)))
        vals = frg[1]
        return Tensor(base + off, make_layout(vals[0], *_modes(vals[1])))

    @staticmethod
    def _layout(x: Layout | Tensor) -> Layout:
        if isinstance(x, Tensor):
            return x.layout
        if isinstance(x, Layout):
            return x
        raise LayoutError(f"partition expects a Layout or a Tensor of offsets, found {x!r}")

    def partition_C(self, c: Layout | Tensor) -> Tensor:
        """This thread's ``(FrgV, RestM, RestN)`` slice of an ``(M,N)`` tensor of offsets.

        >>> t = make_tiled_mma("UniversalFMA", (16,16), (Layout((16,4),(4,1)), Layout((16,4),(4,1))))
        >>> sorted(set(t.get_slice(0).partition_C(Layout((128,128),(128,1))).offsets().tolist()))[:5]
        [0, 1, 2, 3, 64]
        """
        v, m, n, _ = self.thr_vmnk
        return self._partition(c, self.tiled.thrfrg_C(self._layout(c)), (v, m, n))

    def partition_A(self, a: Layout | Tensor) -> Tensor:
        """This thread's ``(FrgV, RestM, RestK)`` slice of an ``(M,K)`` tensor of offsets."""
        v, m, _, k = self.thr_vmnk
        return self._partition(a, self.tiled.thrfrg_A(self._layout(a)), (v, m, k))

    def partition_B(self, b: Layout | Tensor) -> Tensor:
        """This thread's ``(FrgV, RestN, RestK)`` slice of an ``(N,K)`` tensor of offsets."""
        v, _, n, k = self.thr_vmnk
        return self._partition(b, self.tiled.thrfrg_B(self._layout(b)), (v, n, k))


def make_tiled_mma(atom: str | MmaAtom, atom_layout: Any = (1, 1, 1),
                   permutation: Any = (None, None, None)) -> TiledMMA:
    """Tile ``atom`` by ``atom_layout`` (int tuple = column-major, or a Layout) over a tile permuted by ``permutation``.

    Pre: ``atom_layout`` has at most 3 modes and is compact; each permutation entry is an int, a Layout (a tiler:
    CuTe's ``logical_divide`` needs it injective once its stride-0 modes are dropped) or None.
    Post: ``size == size(thr_id) * size(atom_layout)``; ``tile_size_mnk[i] == size(permutation_i)``.

    >>> t = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2,2,1), (32,32,16))
    >>> t.size, t.tile_size_mnk, str(t.thr_layout_vmnk)
    (128, (32, 32, 16), '(32,2,2,1):(1,32,64,128)')
    """
    if not (isinstance(atom, (str, MmaAtom)) and _plain(atom_layout) and _plain(permutation)):
        return _tiled(atom, atom_layout, permutation)  # lists, bools, floats: validated (and refused) every time
    return _cached_tiled(atom, atom_layout, permutation)


def _plain(x: Any) -> bool:
    """Python ints, ``None`` and layouts, nested in tuples: arguments equal only when they are the same values."""
    return type(x) is int or x is None or isinstance(x, Layout) or (type(x) is tuple and all(map(_plain, x)))


@lru_cache(maxsize=16)
def _cached_tiled(atom: str | MmaAtom, atom_layout: Any, permutation: Any) -> TiledMMA:
    """``make_tiled_mma`` once per arguments: a tiled-MMA config and the data paths of the same MMA share it."""
    return _tiled(atom, atom_layout, permutation)


def _tiled(atom: str | MmaAtom, atom_layout: Any, permutation: Any) -> TiledMMA:
    a = mma_atom(atom)
    al = _atom_layout(atom_layout)
    perm = _permutation(permutation)
    rest = composition(complement(a.thr_id, size(a.thr_id) * cosize(al)), al)
    vmnk = make_layout(a.thr_id, *_modes(rest))
    if sorted(vmnk.offsets().tolist()) != list(range(size(vmnk))):
        raise LayoutError(f"atom_layout {al} is not compact: threads {vmnk} do not number 0..{size(vmnk) - 1}")
    return TiledMMA(a, al, perm, vmnk)


# -- the partition of a CTA tile, in tile coordinates ---------------------------------------------------------------
_APART = 1 << 48
"""Column stride of the probe tensor ``tile_frame`` partitions: larger than any row the partition reaches, so each flat
stride of the result is a row step (``|d| < _APART / 2``) or a column step (a multiple of ``_APART``)."""


def tile_frame(tiled: TiledMMA, operand: str, tile: tuple[int, int]) -> tuple[Layout, tuple[int, int]]:
    """``(tv, frame)``: ``tv`` maps ``(thread index, value)`` (``TiledMMA.tv_layout``) to the colex index
    ``r + F0*c`` of its element's tile coordinate ``(r, c)`` in ``frame = (F0, F1)``, the smallest box holding the
    ``tile`` and every coordinate the partition reaches.

    CuTe divides a tile its tilers do not divide with a rounding-up complement (``logical_divide(24, 16)`` is
    ``(16,2):(1,16)``), so the partition runs past the tile; on a column-major tensor those rows would alias the
    next column. Partitioning the identity tensor instead (here: a probe tensor whose column stride no row reaches)
    keeps every coordinate apart, so a row past the tile is named as such. ``frame == tile`` exactly when the
    partition stays inside the tile; then ``tv`` is ``tv_layout(operand, Layout(tile))``.
    Pre: the permutation's strides are non-negative (a negative row is not modelled: ``LayoutError``).

    >>> t = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN")
    >>> tile_frame(t, "C", (24, 8))[1]
    (32, 8)
    """
    probe = tiled.tv_layout(operand, Layout(tuple(tile), (1, _APART)))
    rows, cols = [], []
    for d in flatten(probe.stride):
        (cols if d % _APART == 0 else rows).append(d)
    if any(not 0 <= d < _APART // 2 for d in rows) or any(d < 0 for d in cols):
        raise LayoutError(f"the {operand} partition of the {tile[0]}x{tile[1]} tile reaches a negative or huge "
                          f"coordinate ({probe}): not modelled")
    shape = flatten(probe.shape)
    reach_r = 1 + sum((s - 1) * d for s, d in zip(shape, flatten(probe.stride), strict=True) if d % _APART)
    reach_c = 1 + sum((s - 1) * (d // _APART) for s, d in zip(shape, flatten(probe.stride), strict=True)
                      if d % _APART == 0)
    frame = (max(tile[0], reach_r), max(tile[1], reach_c))
    strides = tuple(d if d % _APART else (d // _APART) * frame[0] for d in flatten(probe.stride))
    return Layout(probe.shape, unflatten(strides, probe.stride)), frame


# -- ownership maps ------------------------------------------------------------------------------------------------
_OPERANDS = {"C": (0, 1, 3), "A": (0, 2, 2), "B": (1, 2, 1)}  # tile modes (i0, i1) and the replicating thread mode


@dataclass(frozen=True, slots=True, eq=False)
class Ownership:
    """Who owns what in a whole ``rows x cols`` operand tensor (NumPy arrays; ``e = row + rows*col``).

    ``thread[row, col, r]`` -- the ``r``-th owner (ascending) of element ``(row, col)``; ``replication`` owners each.
    ``value[row, col]``      -- its index in each owner's ``partition_X`` tensor (the same for every replica).
    ``row_of[t, v]``, ``col_of[t, v]`` -- the inverse: thread ``t``'s value ``v``; ``offset_of[t, v]`` -- the offset
    of that element under the tensor layout (``partition_X(layout)`` of thread ``t`` at ``v``).
    """

    operand: str
    shape: tuple[int, int]
    thread: np.ndarray
    value: np.ndarray
    row_of: np.ndarray
    col_of: np.ndarray
    offset_of: np.ndarray

    @property
    def replication(self) -> int:
        return int(self.thread.shape[2])

    @property
    def num_threads(self) -> int:
        return int(self.row_of.shape[0])

    @property
    def values_per_thread(self) -> int:
        return int(self.row_of.shape[1])


def ownership(tiled: TiledMMA, operand: str = "C", layout: Layout | tuple[int, int] | None = None) -> Ownership:
    """Owner thread(s) and value index of every element of an operand tensor, and the inverse map, vectorised.

    ``layout``: the tensor (a rank-2 Layout of offsets, e.g. ``Layout((4096,4096),(4096,1))``), a shape (column-major
    offsets) or None (one ``tile_size_mnk`` tile). Cost O(elements) NumPy, no Python loop per element.

    Pre: the tensor extents are multiples of ``tile_size_mnk`` in the operand's modes.
    Post: every element has exactly ``replication`` owners (1 for C; ``ThrN`` for A, ``ThrM`` for B); for every
    thread ``t`` and value ``v``, ``partition_X(layout)`` of ``t`` at ``v`` equals ``offset_of[t, v]``.

    >>> t = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2,2,1), (32,32,16))
    >>> o = ownership(t, "A")
    >>> o.replication, o.thread[0, 0].tolist(), int(o.value[0, 0])
    (2, [0, 64], 0)
    """
    if operand not in _OPERANDS:
        raise LayoutError(f"operand must be 'A', 'B' or 'C', found {operand!r}")
    i0, i1, rep_mode = _OPERANDS[operand]
    tile = tiled.tile_size_mnk
    if layout is None:
        layout = (tile[i0], tile[i1])
    tensor = layout if isinstance(layout, Layout) else Layout(tuple(layout))
    if len(tensor) != 2:
        raise LayoutError(f"ownership: expected a rank-2 {operand} tensor layout, found {tensor} (rank {len(tensor)})")
    rows, cols = size(tensor[0]), size(tensor[1])
    frg = {"C": tiled.thrfrg_C, "A": tiled.thrfrg_A, "B": tiled.thrfrg_B}[operand](Layout((rows, cols)))
    n_crd, n_val = size(frg[0]), size(frg[1])
    offs = frg.offsets()  # [value * n_crd + thread coord] -> row + rows*col
    vmnk = "VMNK"
    rep = tiled.thr_size(rep_mode)
    tids = tiled.thread_ids("V" + vmnk[i0 + 1] + vmnk[i1 + 1] + vmnk[rep_mode]).astype(np.int32)
    tids = tids.reshape(rep, n_crd).T  # [thread coord, replica]
    past = np.flatnonzero((offs < 0) | (offs >= rows * cols))
    if past.size:
        raise LayoutError(f"ownership: the {operand} partition reaches past the {rows}x{cols} tensor (its tilers do "
                          f"not divide it): element index {int(offs[past[0]])}")
    counts = np.bincount(offs, minlength=rows * cols)
    if not np.all(counts == 1):
        bad = int(np.flatnonzero(counts != 1)[0])
        raise LayoutError(f"ownership: element {(bad % rows, bad // rows)} of the {operand} tensor is reached "
                          f"{int(counts[bad])} times by the thread coordinates (expected once)")
    idx = np.int32 if rows * cols < 2**31 else np.int64
    crd_of = np.empty(rows * cols, dtype=idx)
    val_of = np.empty(rows * cols, dtype=idx)
    crd_of[offs] = np.tile(np.arange(n_crd, dtype=idx), n_val)
    val_of[offs] = np.repeat(np.arange(n_val, dtype=idx), n_crd)
    owners = tids[crd_of]  # [e, r]
    if rep > 1:
        owners.sort(axis=1)
    thread = owners.reshape(cols, rows, rep).transpose(1, 0, 2)
    value = val_of.reshape(cols, rows).T
    per_thread = np.empty((tiled.size, n_val), dtype=idx)
    elem_t = offs.reshape(n_val, n_crd).T.astype(idx)  # [thread coord, value]
    for r in range(rep):
        per_thread[tids[:, r]] = elem_t
    row_of, col_of = np.divmod(per_thread, rows)[::-1]
    offset_of = tensor.offsets()[per_thread]
    return Ownership(operand, (rows, cols), thread, value, row_of, col_of, offset_of)
