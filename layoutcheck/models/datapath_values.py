"""The values of a whole-kernel data path (``models.datapath``): the stages a spec describes and what a hop does.

The stages: ``ThreadCopy`` (cp.async, ld/st), ``TmaCopy`` (a TMA box), ``MatrixCopy`` (ldmatrix / stmatrix),
``WgmmaRead`` / ``UmmaRead`` (an MMA reading shared memory through descriptors), ``TmemRead`` (tcgen05.ld),
``PeerCopy`` (``cta_group::2``), assembled into an ``OperandPath`` (A, B) or an ``EpiloguePath`` (C). What a hop
does, as arrays over its moves: ``Hop`` (actual and intended locations of every element it moves) with its memory
instructions' ``Accesses``; a register space is a ``Fragment`` (threads x values -> tile index).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import Subject
from layoutcheck.models.tiled_mma import TiledMMA
from layoutcheck.models.tma import TmaBox
from layoutcheck.models.tmem import TmemLoad


# -- the stages a spec describes (values) ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ThreadCopy:
    """A vector copy between global and shared memory: ``cp.async`` (load) or ``st.global`` after ``ld.shared``
    (store). ``tv``: ``(thread, value) -> tile index`` over the CTA tile; ``gmem``: tile -> global element offset;
    ``smem``: the layout the copy addresses shared memory with (``None``: the path's)."""

    atom: str
    tv: Layout
    gmem: Layout
    smem: Subject | None = None


@dataclass(frozen=True, slots=True)
class TmaCopy:
    """A TMA box load or store; ``modes[i]`` is the box dim of the smem layout's mode ``i``."""

    box: TmaBox
    modes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatrixCopy:
    """Registers <-> shared memory through a copy atom (``ldmatrix``, ``stmatrix``, ``UniversalCopy`` = ld/st.shared)
    applied to the MMA fragment; ``smem``: the layout the kernel addresses with (``None``: the path's)."""

    atom: str
    smem: Subject | None = None


@dataclass(frozen=True, slots=True)
class WgmmaRead:
    """A wgmma reading its operand through descriptors built from ``wgmma_layout`` (``None``: the path's layout)."""

    major: str
    wgmma_layout: Subject | None = None


@dataclass(frozen=True, slots=True)
class UmmaRead:
    """A tcgen05.mma reading its operand through UMMA descriptors built from ``umma_layout`` (``None``: the path's
    layout); the operand space is the MMA's ``(MN, K)`` coordinate, one K block of 256 bits per instruction."""

    major: str
    umma_layout: Subject | None = None


@dataclass(frozen=True, slots=True)
class TmemRead:
    """tcgen05.ld of an accumulator in tensor memory: the MMA wrote ``accumulator`` (its data path, ``(M_cta, N) ->
    lane + 128 * column``), the epilogue issues ``loads`` and believes the accumulator is laid out as ``assumed``
    (``None``: as it is)."""

    loads: tuple[TmemLoad, ...]
    accumulator: Layout
    assumed: Layout | None = None


@dataclass(frozen=True, slots=True)
class PeerCopy:
    """A ``cta_group::2`` operand: peer CTA ``p``'s TMA loads the box of global MN rows ``rows[p] ..`` (its half of
    the pair's tile) and writes it into the shared memory of CTA ``cta[p]`` of the pair (``hw.tcgen05.PEER_SPLITS``:
    the MMA reads rows ``p * MN/2 ..`` from CTA ``p``)."""

    rows: tuple[int, int]
    cta: tuple[int, int]


@dataclass(frozen=True, slots=True)
class OperandPath:
    """``global -> load -> smem -> read -> the MMA's operand fragment``; ``smem`` is the ``(MN, K)`` layout declared
    for the stage buffer, ``tile`` = ``(MN, K)`` of the CTA tile; ``mma`` is ``None`` for a tcgen05.mma
    (``UmmaRead``: the operand is its ``(MN, K)`` coordinate). With ``pair`` (``cta_group::2``) ``tile`` is the pair's
    ``(MN, K)`` and ``smem``, ``load`` describe one CTA's half ``(MN/2, K)``, the same in both CTAs."""

    operand: str
    mma: TiledMMA | None
    tile: tuple[int, int]
    dtype_bits: int
    dtype: str
    smem: Subject
    load: ThreadCopy | TmaCopy
    read: MatrixCopy | WgmmaRead | UmmaRead
    pair: PeerCopy | None = None


@dataclass(frozen=True, slots=True)
class EpiloguePath:
    """``accumulators -> write -> smem -> store -> global C``; ``smem`` is the declared ``(M, N)`` epilogue layout.
    With ``tmem`` the accumulators are in tensor memory and ``tcgen05.ld`` brings them to registers first (``mma``
    unused: the registers hold what the loads deliver). With ``pair`` (``cta_group::2``) each CTA of the pair runs
    the epilogue on its own accumulator, C rows ``p * M/2 ..`` (``hw.tcgen05.PEER_SPLITS["C"]``), and its TMA store
    writes them to the global rows ``pair.rows[p] ..`` (``pair.cta`` unused)."""

    mma: TiledMMA | None
    tile: tuple[int, int]
    dtype_bits: int
    smem: Subject
    write: MatrixCopy
    store: ThreadCopy | TmaCopy
    tmem: TmemRead | None = None
    pair: PeerCopy | None = None  # cta_group::2: tile is the pair's (M, N), the rest one CTA's (M/2, N)

    @property
    def operand(self) -> str:
        return "C"


Path = OperandPath | EpiloguePath


# -- what a hop does (arrays) ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class Accesses:
    """One side of a hop as memory instructions: access ``k`` is issued for move ``move[k]`` (the move of its first
    element), starts at byte ``start[k]`` of ``space`` and spans ``size`` bytes. The rule (``source``) demands
    ``start % align == 0``; ``limit`` (bytes of the stage buffer; ``None``: global memory, unchecked) demands
    ``0 <= start`` and ``start + size <= limit``."""

    space: str
    move: np.ndarray
    start: np.ndarray
    size: int
    align: int
    limit: int | None
    source: str
    disjoint: bool = False
    """The accesses may not share a byte (each TMA box of a stage is its own region of the buffer)."""

    def overlapping(self) -> np.ndarray:
        """With ``disjoint``: ``(k, j)`` rows, access ``k`` starting inside the bytes of access ``j`` (``start[j] <=
        start[k] < start[j] + size``, ``j`` the nearest such start below ``k``'s); else no rows."""
        if not self.disjoint or self.start.size < 2:
            return np.zeros((0, 2), dtype=np.int64)
        order = np.argsort(self.start, kind="stable")
        s = self.start[order]
        hit = np.flatnonzero(s[1:] < s[:-1] + self.size) + 1
        return np.stack([order[hit], order[hit - 1]], axis=1).astype(np.int64)

    def bad(self) -> np.ndarray:
        """The accesses (indices) that break the alignment or leave the buffer."""
        out = self.start % self.align != 0
        if self.limit is not None:
            out |= (self.start < 0) | (self.start + self.size > self.limit)
        return np.flatnonzero(out)


@dataclass(frozen=True, slots=True, eq=False)
class Hop:
    """One hop's moves: element ``i`` goes from ``src[i]`` to ``dst[i]`` (actual) / ``want_src[i]`` to
    ``want_dst[i]`` (intended); ``element[i]`` names it (a tile index, or a register ``row*V + v``)."""

    stage: str  # "cp.async", "tma", "ldmatrix", "wgmma", "umma", "stmatrix", "st.shared", "st.global", "tma store"
    instr: str
    spaces: tuple[str, str]
    src: np.ndarray
    dst: np.ndarray
    want_src: np.ndarray
    want_dst: np.ndarray
    element: np.ndarray
    element_space: str  # "global", "regs" or "operand"
    accesses: tuple[Accesses, ...] = ()  # its memory instructions' addresses (``address_fault``)
    peer: np.ndarray | None = None  # cta_group::2: the CTA of the pair that issues (load) or supplies (read) move i


@dataclass(frozen=True, slots=True, eq=False)
class Fragment:
    """``tile[row, v]``: the tile index value ``v`` of thread ``threads[row]`` holds (one row per distinct thread
    fragment: threads that hold the same values, as a warpgroup does for a wgmma operand in shared memory, share
    a row)."""

    threads: np.ndarray
    tile: np.ndarray

    @property
    def values(self) -> int:
        return int(self.tile.shape[1])


__all__ = [
    "Accesses",
    "EpiloguePath",
    "Fragment",
    "Hop",
    "MatrixCopy",
    "OperandPath",
    "Path",
    "PeerCopy",
    "ThreadCopy",
    "TmaCopy",
    "TmemRead",
    "UmmaRead",
    "WgmmaRead",
]
