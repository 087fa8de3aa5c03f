"""Whole-kernel data paths: where every element of a CTA tile travels, hop by hop, and where the layouts say it goes.

A data path is a sequence of *hops*; each hop moves elements from the locations of one space to those of the next::

    space    a location is
    global   the tile index ``mn + MN*k`` (colex over the CTA tile); a store outside the tile: ``size + gmem offset``
    smem     a byte address in the (1024-byte-aligned) stage buffer
    regs     ``row*V + v``: value ``v`` of thread ``threads[row]`` in the tiled MMA's fragment over the CTA tile
             (or in what the tcgen05.ld loads deliver)
    tmem     a tensor-memory cell ``lane + 128 * column`` (``layoutcheck.models.tmem``)

    operand  ``mn + MN*k``: the coordinate of the MMA's A / B operand a tcgen05.mma reads (SM100: no registers)
    peer_*   cta_group::2: ``cta * span + location`` -- the smem, tmem or regs of CTA ``cta`` of the pair
             (``peer_span``); global and operand indices are then over the pair's tile

    mainloop (A, B):  global --(cp.async | TMA box)--> smem --(ldmatrix | wgmma descriptors)--> regs
    SM100 mainloop:   global --TMA box--> smem --UMMA descriptors--> operand
    epilogue (C):     [tmem --tcgen05.ld-->] regs --(stmatrix | st.shared)--> smem --(st.global | TMA store)--> global

For every element it moves a hop gives the locations the hardware *actually* reads and writes and the ones the
kernel's declared layouts *intend* (``want_src``, ``want_dst``). The hardware's semantics come from the atoms' own
layouts, nothing is tabled here:

- a vector copy (``cp.async``, ``ld``/``st``, ``UniversalCopy<uintW>``) moves ``w`` contiguous elements from and to
  the address of the first one: value ``v0 + j`` of a vector goes from ``src(v0) + j`` to ``dst(v0) + j``;
- a matrix copy (``ldmatrix``/``stmatrix``) moves 16 contiguous bytes per matrix row, from (to) the address one lane
  supplies: the address of the element the kernel wants in the register that receives the row's first element
  (``layoutcheck.hw.copy``); register ``(t, v)`` gets byte ``j`` of its row;
- a TMA box writes (a TMA store reads) the image of ``layoutcheck.models.tma.tile_image``;
- a wgmma reads each ``(MN-block, K-block)`` through its descriptor (``layoutcheck.models.gmma.descriptor_reads``);
- a tcgen05.mma reads each K block through its UMMA descriptor (``layoutcheck.models.umma.umma_reads``: block 0's
  descriptor advanced, decoded by ``decode_umma_descriptor``) into operand coordinate ``(mn, k)``;
- a tcgen05.ld moves the cells ``layoutcheck.models.tmem.load_cells`` says; the epilogue believes each register holds
  the element its *assumed* data path puts in that cell, the MMA wrote its own (apache/tvm#20075 mixes them up).

A ``cta_group::2`` path (``pair``) is the single-CTA path of one CTA's half, lifted over the pair: peer ``p``'s
hops act on CTA ``p``'s locations; its TMA moves the global rows it loads (``pair.rows``) into CTA ``pair.cta[p]``,
where the layouts want the rows ``p * MN/2 ..`` the MMA reads from CTA ``p`` (``hw.tcgen05.PEER_SPLITS``: CUTLASS's
2x1SM ``ALayout`` / ``BLayout`` / ``CLayout``); an epilogue's TMA store writes CTA ``p``'s accumulator rows to the
global rows ``pair.rows[p] ..``.

A copy atom is applied as CuTe's ``make_tiled_copy_A/B/C`` (and ``retile``) apply it to an MMA fragment: thread
``t`` is lane ``t % 32`` of its warp, and each instruction takes the next ``Va`` values of the thread's fragment in
its value order (``Va`` = the atom's register values per thread). A thread copy (``make_tiled_copy(atom, threads,
values)``) is tiled over the CTA tile like a TiledMMA (``copy_tv``).

Address rules (``address_fault``): every hop also lists its memory instructions (``Hop.accesses``: the first element,
start byte, size of each access) and each must obey its rule -- the alignment of ``hw.copy.address_rule`` (cp.async
and ld/st by access size, ldmatrix/stmatrix 16-byte rows: PTX ISA 6.4.1, 9.7.9.25, 9.7.14.5.15/16) or a TMA box's
128-byte shared address (``hw.tma.TmaLimits.smem_dst_align``) -- and every shared access must lie in the stage
buffer (the declared smem layout's bytes, ``0 .. es * (max offset + 1)``).

Composition (``trace``): every source location holds a token (the element it holds), each hop copies tokens; a
location written twice holds ``CONFLICT``, one never written ``UNWRITTEN``. The path is right iff every expected
final location is written exactly once and holds its expected token, and nothing else is written.

Worked example (operand A of an SM80 GEMM, ``Sw<2,3,3> o (8,32):(32,1)`` tiled to 128 x 32 halves, threads
``(32,4):(4,1)`` x 8 halves of cp.async, ldmatrix.x4): thread 1's cp.async moves ``(m,k) = (0,8..15)`` to element
offsets 8..15; lane 0 of ldmatrix supplies the address of ``(0,0)`` (offset 0) and register ``(t=1, v=0)`` receives
the element at offset 2, ``(0,2)``: what mma.m16n8k16's ``a0`` of lane 1 must be. Let the cp.async write with
``Sw<3,3,3>`` instead: ``(8,0)`` lands at element 256 ^ 32 = 288 (byte 576) where the layout ldmatrix reads with puts
it at 256 (byte 512); ``first_fault`` names that hop and that element, the smallest global index misplaced.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.ops import composition
from layoutcheck.algebra.swizzle import Subject, shared_offsets
from layoutcheck.algebra.tiling import zipped_divide
from layoutcheck.algebra.tv import make_layout_tv
from layoutcheck.errors import DescriptorError, LayoutError
from layoutcheck.hw.copy import CopyAtom, address_rule, copy_atom, in_elements
from layoutcheck.hw.tcgen05 import TMEM as TMEM_GEOMETRY
from layoutcheck.hw.tma import LIMITS as TMA_LIMITS
from layoutcheck.models.gmma import block_index, descriptor_reads
from layoutcheck.models.tiled_mma import TiledMMA
from layoutcheck.models.tma import TmaBox, tile_image
from layoutcheck.models.tmem import TmemLoad, loads_cells
from layoutcheck.models.umma import umma_reads

UNWRITTEN = -1
"""Token of a location no hop wrote (or a read outside the tile)."""
CONFLICT = -2
"""Token of a location one hop wrote twice."""


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


_THRFRG = {"A": (TiledMMA.thrfrg_A, "VMK"), "B": (TiledMMA.thrfrg_B, "VNK"), "C": (TiledMMA.thrfrg_C, "VMN")}


@lru_cache(maxsize=16)
def fragment(mma: TiledMMA, operand: str, tile: tuple[int, int], distinct: bool = False) -> Fragment:
    """The MMA's ``operand`` fragment over the CTA ``tile``: ``(thread, value) -> tile index`` (CuTe's
    ``thrfrg_X`` sliced at every thread's ``(v, (m, k))`` / ``(v, (n, k))`` / ``(v, (m, n))``); ``distinct``: one
    row per distinct fragment (a wgmma's shared-memory operand: every thread of a warpgroup "holds" the whole tile).

    >>> from layoutcheck.models.tiled_mma import make_tiled_mma
    >>> f = fragment(make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (1, 1, 1)), "A", (16, 16))
    >>> f.tile.shape, [int(x) for x in f.tile[1, :4]]  # lane 1: (m,k) = (0,2), (0,3), (8,2), (8,3)
    ((32, 8), [32, 48, 40, 56])
    """
    thrfrg, modes = _THRFRG[operand]
    frg = thrfrg(mma, Layout(tuple(tile)))
    thr_off = frg[0].offsets(np.int64)
    val_off = frg[1].offsets(np.int64)
    idx = {"V": 0, "M": 1, "N": 2, "K": 3}
    shape = [mma.thr_size(idx[c]) for c in modes]
    crd = mma.thr_coords()
    c = [crd[:, idx[m]] for m in modes]
    base = thr_off[c[0] + shape[0] * (c[1] + shape[1] * c[2])]
    keep = np.arange(base.size, dtype=np.int64)
    if distinct:  # equal thread offsets <=> equal fragments
        keep = np.sort(np.unique(base, return_index=True)[1]).astype(np.int64)
    tile_idx = base[keep][:, None] + val_off[None, :]
    tile_idx.setflags(write=False)
    keep.setflags(write=False)
    return Fragment(keep, tile_idx)


def copy_tv(threads: Layout, values: Layout, tile: tuple[int, int]) -> Layout:
    """``(thread, value) -> tile index`` of ``make_tiled_copy(atom, threads, values)`` repeated over the CTA ``tile``:
    values ordered (the copy tile's values, then the copy tiles colex).

    >>> str(copy_tv(Layout((2, 2), (2, 1)), Layout((1, 2)), (2, 8)))
    '((2,2),(2,(1,2))):((4,1),(2,(0,8)))'
    """
    tiler, tv = make_layout_tv(threads, values)
    if len(tiler) != 2 or any(t % c for t, c in zip(tile, tiler, strict=True)):
        raise LayoutError(f"the copy tile {tiler} of threads {threads} x values {values} does not divide the tile "
                          f"{tuple(tile)}")
    tiled = zipped_divide(Layout(tuple(tile)), (Layout(tiler[0]), Layout(tiler[1])))  # ((TM,TN),(RM,RN))
    tv_tile = composition(tiled, (tv, None))  # ((thr,val),(RM,RN))
    return Layout((tv_tile[0][0].shape, (tv_tile[0][1].shape, tv_tile[1].shape)),
                  (tv_tile[0][0].stride, (tv_tile[0][1].stride, tv_tile[1].stride)))


def _element_offsets(layout: Subject) -> np.ndarray:
    return shared_offsets(layout, np.int64)


def _atom_sides(atom: CopyAtom, bits: int, direction: str) -> tuple[np.ndarray, int, int]:
    """The register-side ``(lane, value) -> reference element`` table of ``atom`` in ``bits``-bit elements, the
    atom's thread count and elements per row (one contiguous memory access)."""
    sides = {"read": ("src", "both"), "write": ("dst", "both"), "copy": ("dst", "both")}[direction]
    vector = atom.num_threads == 1
    if atom.smem_side not in sides or (direction == "copy" and not vector) or atom.val_id is not None:
        what = {"read": "a shared-memory load (ldmatrix, UniversalCopy)",
                "write": "a shared-memory store (stmatrix, UniversalCopy)",
                "copy": "a one-thread vector copy (cp.async, UniversalCopy)"}[direction]
        raise LayoutError(f"{atom.name} is not {what}")
    row_bits = atom.access_bits
    if bits > row_bits or row_bits % bits:
        raise LayoutError(f"{atom.name}: {bits}-bit elements do not tile its {row_bits}-bit accesses")
    e = in_elements(atom.dst_layout if direction == "read" else atom.src_layout, bits)
    ta, va = size(e[0]), size(e[1])
    table = e.offsets(np.int64).reshape(va, ta).T
    return table, ta, row_bits // bits


def row_addresses(atom: CopyAtom, bits: int, frag: np.ndarray, offsets: np.ndarray, direction: str) -> np.ndarray:
    """``[t, v]``: the element offset the hardware touches for value ``v`` of thread ``t`` when ``atom`` moves the
    fragment ``frag[t, v]`` (tile index) and the kernel computes each access's address as ``offsets[tile index]`` of
    the row's first element (module docstring). ``direction``: ``"read"`` (smem -> registers), ``"write"``, or
    ``"copy"`` (a thread copy: both sides are memory).

    Pre: the atom's threads divide the fragment's, its values per thread divide the fragment's.
    """
    return _rows(atom, bits, frag, offsets, direction)[0]


def _rows(atom: CopyAtom, bits: int, frag: np.ndarray, offsets: np.ndarray,
          direction: str) -> tuple[np.ndarray, np.ndarray]:
    """``row_addresses`` and, per ``[t, v]``, the value's step ``j`` into its row (``j == 0``: the access's first
    element, whose address the instruction is given)."""
    table, ta, r = _atom_sides(atom, bits, direction)
    va = table.shape[1]
    t_n, v_n = frag.shape
    if t_n % ta or v_n % va:
        raise LayoutError(f"{atom.name} moves {va} values on each of {ta} threads; the fragment has {v_n} values on "
                          f"{t_n} threads")
    inv = np.full(int(table.max()) + 1, -1, dtype=np.int64)
    inv[table.T.ravel()] = np.arange(table.size)  # reference element -> lane + ta * value
    # thread t = group * ta + lane, value v = chunk * va + a; the row's first element and the step j into the row
    # depend on (lane, a) only: computed once on the atom, then gathered over every (group, chunk)
    row, j = np.divmod(table, r)
    first = inv[row * r]
    groups, chunks = t_n // ta, v_n // va
    t0 = (np.arange(groups) * ta)[:, None, None, None] + (first % ta)[None, :, None, :]  # [group, lane, chunk, a]
    v0 = (np.arange(chunks) * va)[None, None, :, None] + (first // ta)[None, :, None, :]
    c0 = np.ravel(frag).take(t0 * v_n + v0)
    step = np.broadcast_to(j[None, :, None, :], c0.shape)
    out = np.where(c0 >= 0, np.take(offsets, np.maximum(c0, 0)) + step, -1)  # -1: cannot place it
    return out.reshape(t_n, v_n), step.reshape(t_n, v_n)


# -- hops of a path ------------------------------------------------------------------------------------------------
_BUFFER = "the stage buffer: the bytes of the declared smem layout's offsets 0 .. max (models.datapath)"


def _buffer_bytes(smem: Subject, es: int) -> int:
    """Bytes of the stage buffer the declared layout ``smem`` fills: its largest element offset + 1 elements."""
    return es * (int(_element_offsets(smem).max()) + 1)


def _row_accesses(space: str, raw: np.ndarray, step: np.ndarray, es: int, atom: CopyAtom,
                  limit: int | None) -> Accesses:
    """The accesses of a vector or matrix copy: one per row (``step == 0``) that has an address (``raw >= 0``,
    element units), of the atom's row bytes, aligned as its ``hw.copy.address_rule`` says."""
    raw, step = raw.ravel(), step.ravel()
    first = np.flatnonzero((step == 0) & (raw >= 0))
    rule, size = address_rule(atom), atom.bytes_per_address
    return Accesses(space, first, es * raw[first], size, rule.alignment(size), limit, rule.source)


def _element_accesses(addr: np.ndarray, es: int, limit: int) -> Accesses:
    """Every element read or written at its own byte ``addr`` (a TMA box's elements, a descriptor's reads): inside
    the stage buffer, no alignment of their own (their instruction's is checked where it has one)."""
    live = np.flatnonzero(addr >= 0)
    return Accesses("smem", live, addr[live], es, 1, limit, _BUFFER)


def _thread_copy_hop(copy: ThreadCopy, smem: Subject, bits: int, n: int, load: bool) -> Hop:
    atom = copy_atom(copy.atom)
    es = max(1, bits // 8)
    tv = copy.tv
    if size(tv) != size(tv[0]) * size(tv[1]) or len(tv) != 2:
        raise LayoutError(f"a thread copy's tv is (thread, value) -> tile index, found {tv}")
    frag = tv.offsets(np.int64).reshape(size(tv[1]), size(tv[0])).T
    if frag.min() < 0 or frag.max() >= n:
        raise LayoutError(f"the copy tv {tv} maps outside the {n}-element tile")
    g_off = _element_offsets(copy.gmem)
    if g_off.size != n or g_off.min() < 0:
        raise LayoutError(f"the global layout {copy.gmem} must map the {n}-element tile to offsets >= 0")
    g_inv = _inverse(copy.gmem)
    s_act = _element_offsets(copy.smem if copy.smem is not None else smem)
    s_want = _element_offsets(smem)
    g_raw, step = _rows(atom, bits, frag, g_off, "copy")
    s_raw, _ = _rows(atom, bits, frag, s_act, "copy")
    g_addr, s_addr = g_raw.ravel(), es * s_raw.ravel()
    accesses = (_row_accesses("smem", s_raw, step, es, atom, _buffer_bytes(smem, es)),
                _row_accesses("global", g_raw, step, es, atom, None))
    inside = (g_addr >= 0) & (g_addr < g_inv.size)
    tile_idx = np.where(inside, g_inv[np.clip(g_addr, 0, g_inv.size - 1)], -1)
    want_g, want_s = frag.ravel(), es * s_want[frag.ravel()]
    if load:
        return Hop("cp.async" if "CP_ASYNC" in atom.name else "ld.global", atom.name, ("global", "smem"),
                   tile_idx, s_addr, want_g, want_s, want_g, "global", accesses)
    outside = np.where(tile_idx >= 0, tile_idx, n + g_addr)
    return Hop("st.global", atom.name, ("smem", "global"), s_addr, outside, want_s, want_g, want_g, "global",
               accesses)


def _tma_hop(copy: TmaCopy, smem: Subject, bits: int, n: int, load: bool) -> Hop:
    es = max(1, bits // 8)
    actual, dst = tile_image(copy.box, smem, copy.modes)
    actual, dst = actual.astype(np.int64), dst.astype(np.int64)
    want = es * _element_offsets(smem)
    idx = np.arange(n, dtype=np.int64)
    name = f"TMA box {list(copy.box.box_dims)} swizzle {copy.box.swizzle}"
    first = np.unique(dst, return_index=True)[1].astype(np.int64)  # each box: its first element
    boxes = Accesses("smem", first, dst[first], es * int(np.prod(copy.box.counts)), TMA_LIMITS.smem_dst_align, None,
                     "hw.tma.TmaLimits.smem_dst_align: " + TMA_LIMITS.source)
    accesses = (boxes, _element_accesses(actual, es, _buffer_bytes(smem, es)))
    if load:
        return Hop("tma", name, ("global", "smem"), idx, actual, idx, want, idx, "global", accesses)
    return Hop("tma store", name, ("smem", "global"), actual, idx, want, idx, idx, "global", accesses)


def _matrix_hop(copy: MatrixCopy, frag: Fragment, smem: Subject, bits: int, write: bool) -> Hop:
    atom = copy_atom(copy.atom)
    es = max(1, bits // 8)
    s_act = _element_offsets(copy.smem if copy.smem is not None else smem)
    s_want = _element_offsets(smem)
    raw, step = _rows(atom, bits, frag.tile, s_act, "write" if write else "read")
    addr = es * raw.ravel()
    accesses = (_row_accesses("smem", raw, step, es, atom, _buffer_bytes(smem, es)),)
    flat = frag.tile.ravel()
    want = np.where(flat >= 0, es * s_want[np.maximum(flat, 0)], -1)
    regs = np.arange(frag.tile.size, dtype=np.int64)
    stage = atom.ptx.split(".")[0] if atom.smem_side != "both" else ("st.shared" if write else "ld.shared")
    if write:
        return Hop(stage, atom.name, ("regs", "smem"), regs, addr, regs, want, regs, "regs", accesses)
    return Hop(stage, atom.name, ("smem", "regs"), addr, regs, want, regs, regs, "regs", accesses)


def _wgmma_hop(read: WgmmaRead, path: OperandPath, frag: Fragment) -> Hop:
    atom = path.mma.atom
    tv = atom.tv_layout_A if path.operand == "A" else atom.tv_layout_B
    mb = atom.shape_mnk[0] if path.operand == "A" else atom.shape_mnk[1]
    va = size(tv[1])
    es = max(1, path.dtype_bits // 8)
    mn_ext = path.tile[0]
    try:
        reads = descriptor_reads(path.smem, path.dtype, read.major, mb, 0, read.wgmma_layout).addresses()
    except DescriptorError:
        reads = None
    regs = np.arange(frag.tile.size, dtype=np.int64)
    want = es * _element_offsets(path.smem)[frag.tile.ravel()]
    name = f"wgmma descriptors ({read.major}-major)"
    if reads is None:  # no descriptor describes the layout: nothing the wgmma reads is right
        return Hop("wgmma", name, ("smem", "regs"), np.full_like(regs, -1), regs, want, regs, regs, "regs")
    kb = va // mb
    if frag.values % va:
        raise LayoutError(f"{atom.name}: {va} operand values per wgmma do not divide the fragment's {frag.values}")
    rows, v = np.arange(frag.tile.shape[0])[:, None], np.arange(frag.values)[None, :]
    first = frag.tile[rows, (v // va) * va]  # the element each value's wgmma starts at
    mn0, k0 = first % mn_ext, first // mn_ext
    addr = reads[block_index(mn_ext, (mb, kb), mn0, k0), v % va].ravel()
    return Hop("wgmma", name, ("smem", "regs"), addr, regs, want, regs, regs, "regs",
               (_element_accesses(addr, es, _buffer_bytes(path.smem, es)),))


def _umma_hop(read: UmmaRead, path: OperandPath) -> Hop:
    """Operand coordinate ``i = mn + MN*k`` is read from the byte its K block's descriptor decodes to."""
    es = max(1, path.dtype_bits // 8)
    mn_ext, n = path.tile[0], path.tile[0] * path.tile[1]
    idx = np.arange(n, dtype=np.int64)
    want = es * _element_offsets(path.smem)
    name = f"UMMA descriptors ({read.major}-major)"
    try:
        rd = umma_reads(path.smem, path.dtype, read.major, 0, read.umma_layout)
        reads = rd.addresses()
    except DescriptorError:
        reads = None
    if reads is None:  # no descriptor describes the layout: nothing the MMA reads is right
        return Hop("umma", name, ("smem", "operand"), np.full_like(idx, -1), idx, want, idx, idx, "operand")
    mb, kb = rd.block
    mn, k = idx % mn_ext, idx // mn_ext
    addr = reads[block_index(mn_ext, rd.block, mn, k), mn % mb + mb * (k % kb)]
    return Hop("umma", name, ("smem", "operand"), addr, idx, want, idx, idx, "operand",
               (_element_accesses(addr, es, _buffer_bytes(path.smem, es)),))


def _inverse(layout: Layout) -> np.ndarray:
    """``inv[offset]`` = the index ``layout`` maps there (-1 where it maps nothing)."""
    offs = shared_offsets(layout, np.int64)
    inv = np.full(int(offs.max()) + 1, -1, dtype=np.int64)
    inv[offs] = np.arange(offs.size)
    return inv


@lru_cache(maxsize=8)
def _tmem_cells(read: TmemRead) -> tuple[np.ndarray, np.ndarray]:
    """``(threads, cells[row, v])``: the TMEM cell (``lane + 128 * column``) value ``v`` of each thread reads, the
    loads of a warp taken in order (32-bit elements)."""
    c = loads_cells(read.loads)
    thread = 32 * np.array([load.warp for load in read.loads], dtype=np.int64)[c["load"]] + c["thread"]
    order_key = c["load"] * (1 << 20) + c["element"]  # load, then element
    cell = c["lane"] + 128 * c["column"]
    threads, counts = np.unique(thread, return_counts=True)
    if np.any(counts != counts[0]):
        raise LayoutError("the tcgen05.ld loads give the threads different numbers of values")
    order = np.lexsort((order_key, thread))
    out = threads.astype(np.int64), cell[order].reshape(threads.size, -1).astype(np.int64)
    for a in out:
        a.setflags(write=False)
    return out


@lru_cache(maxsize=8)
def tmem_fragment(read: TmemRead) -> Fragment:
    """The registers the loads fill: ``tile[row, v]`` = the C element the epilogue *believes* value ``v`` holds (the
    ``assumed`` accumulator's element at the cell it reads; -1 for a cell outside it). Once per read (the hops and
    the tokens of a path all start from it): the arrays are read-only."""
    threads, cells = _tmem_cells(read)
    inv = _inverse(read.assumed if read.assumed is not None else read.accumulator)
    ok = cells < inv.size
    tile_idx = np.where(ok, inv[np.where(ok, cells, 0)], -1)
    tile_idx.setflags(write=False)
    return Fragment(threads, tile_idx)


def _tmem_hop(read: TmemRead, frag: Fragment) -> Hop:
    _, cells = _tmem_cells(read)
    acc = read.accumulator.offsets(np.int64)
    want = np.where(frag.tile >= 0, acc[np.maximum(frag.tile, 0)], -1).ravel()
    regs = np.arange(frag.tile.size, dtype=np.int64)
    return Hop("tcgen05.ld", read.loads[0].atom, ("tmem", "regs"), cells.ravel(), regs, want, regs, regs, "regs")


def path_fragment(path: Path) -> Fragment:
    """The register space at the end (A, B) or start (C) of ``path``: one row per thread, or per warpgroup for a
    wgmma reading its operand from shared memory."""
    if isinstance(path, EpiloguePath) and path.tmem is not None:
        return tmem_fragment(path.tmem)
    if isinstance(path, OperandPath) and isinstance(path.read, UmmaRead):
        return operand_fragment(path.tile)
    if path.mma is None:
        raise LayoutError(f"the {path.operand} path needs the tiled MMA (the config's 'atom')")
    distinct = isinstance(path, OperandPath) and isinstance(path.read, WgmmaRead)
    return fragment(path.mma, path.operand, path.tile, distinct)


@lru_cache(maxsize=8)
def operand_fragment(tile: tuple[int, int]) -> Fragment:
    """A tcgen05.mma's shared-memory operand as a fragment: one row, value ``i`` = operand coordinate ``i``."""
    n = tile[0] * tile[1]
    f = Fragment(np.zeros(1, dtype=np.int64), np.arange(n, dtype=np.int64).reshape(1, n))
    f.threads.setflags(write=False)
    f.tile.setflags(write=False)
    return f


def _descriptor_operand(path: OperandPath) -> bool:
    """Whether the MMA reads ``path``'s operand from shared memory itself (a wgmma ``SS`` A, every wgmma B): every
    thread of the atom "holds" the whole operand (a stride-0 thread mode)."""
    tv = path.mma.atom.tv_layout_A if path.operand == "A" else path.mma.atom.tv_layout_B
    return size(tv[0]) > 1 and not tv[0].offsets().any()


@lru_cache(maxsize=32)
def hops(path: Path) -> tuple[Hop, ...]:
    """The hops of ``path`` in data-flow order (module docstring). Computed once per path (binding, the subject's
    text, the domain size and the decision all read them): their arrays are read-only."""
    out = _hops(path)
    for hop in out:
        for a in (hop.src, hop.dst, hop.want_src, hop.want_dst, hop.element,
                  *(x for acc in hop.accesses for x in (acc.move, acc.start)),
                  *(() if hop.peer is None else (hop.peer,))):
            a.setflags(write=False)
    return out


def _hops(path: Path) -> tuple[Hop, ...]:
    if isinstance(path, OperandPath) and path.pair is not None:
        return _pair_hops(path)
    if isinstance(path, EpiloguePath) and path.pair is not None:
        return _pair_epilogue_hops(path)
    umma = isinstance(path, OperandPath) and isinstance(path.read, UmmaRead)
    if isinstance(path, OperandPath) and not umma and path.mma is None:
        raise LayoutError(f"the {path.operand} path needs the tiled MMA (the config's 'atom')")
    if isinstance(path, OperandPath) and not umma and _descriptor_operand(path) != isinstance(path.read, WgmmaRead):
        how = "through its descriptors: read = \"wgmma\"" if _descriptor_operand(path) else "from registers"
        raise LayoutError(f"{path.mma.atom.name} reads operand {path.operand} {how}")
    n = path.tile[0] * path.tile[1]
    frag = path_fragment(path)
    if isinstance(path, OperandPath):
        load = (_thread_copy_hop(path.load, path.smem, path.dtype_bits, n, True) if isinstance(path.load, ThreadCopy)
                else _tma_hop(path.load, path.smem, path.dtype_bits, n, True))
        read = (_wgmma_hop(path.read, path, frag) if isinstance(path.read, WgmmaRead)
                else _umma_hop(path.read, path) if isinstance(path.read, UmmaRead)
                else _matrix_hop(path.read, frag, path.smem, path.dtype_bits, False))
        return load, read
    write = _matrix_hop(path.write, frag, path.smem, path.dtype_bits, True)
    store = (_thread_copy_hop(path.store, path.smem, path.dtype_bits, n, False) if isinstance(path.store, ThreadCopy)
             else _tma_hop(path.store, path.smem, path.dtype_bits, n, False))
    if path.tmem is not None:
        return _tmem_hop(path.tmem, frag), write, store
    return write, store


# -- cta_group::2: the pair of peer CTAs ------------------------------------------------------------------------
def peer_span(path: Path, space: str = "peer_smem") -> int:
    """Locations between the two CTAs' copies of ``space`` (location ``cta * span + local``): ``peer_smem`` one CTA's
    stage buffer rounded up to 1024 bytes, ``peer_tmem`` TMEM's virtual addresses (``lane + 128 * column``),
    ``peer_regs`` one CTA's epilogue registers."""
    if space == "peer_tmem":
        return TMEM_GEOMETRY.lanes * TMEM_GEOMETRY.columns
    if space == "peer_regs":
        return int(path_fragment(path).tile.size)
    es = max(1, path.dtype_bits // 8)
    return -(-_buffer_bytes(path.smem, es) // 1024) * 1024


def peer_tables(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """``(own[p, l], act[p, l])``: the pair-tile index of local index ``l`` (``m' + MN/2 * k``) of peer ``p`` as the
    MMA reads it (``hw.tcgen05.PEER_SPLITS``) and as peer ``p``'s TMA loads it (rows ``pair.rows[p] ..``; -1 outside
    the tile)."""
    from layoutcheck.hw.tcgen05 import PEER_SPLITS

    mn, k = path.tile
    half, n = mn // 2, (mn // 2) * k
    own = PEER_SPLITS[path.operand].layout(mn, k).offsets(np.int64).reshape(n, 2).T
    local = np.arange(n, dtype=np.int64)
    rows = np.asarray(path.pair.rows, dtype=np.int64)[:, None] + local % half  # type: ignore[union-attr]
    act = np.where((rows >= 0) & (rows < mn), rows + mn * (local // half), -1)
    return own, act


def _lift(a: np.ndarray, table: np.ndarray | None, offset: int | np.ndarray) -> np.ndarray:
    """A local location ``a`` (-1: none) in the pair: ``table[a]`` (a tile index) or ``offset + a`` (a CTA's byte)."""
    if table is not None:
        return np.where(a >= 0, table[np.maximum(a, 0)], -1)
    return np.where(a >= 0, offset + a, -1)


def _lift_accesses(parts: list[tuple[Accesses, ...]], moves: int) -> tuple[Accesses, ...]:
    """Each peer's accesses, moves renumbered peer after peer (addresses stay each CTA's own)."""
    out = []
    for j, acc in enumerate(parts[0]):
        accs = [p[j] for p in parts]
        out.append(Accesses(acc.space, np.concatenate([a.move + q * moves for q, a in enumerate(accs)]),
                            np.concatenate([a.start for a in accs]), acc.size, acc.align, acc.limit, acc.source))
    return tuple(out)


def _pair_hops(path: OperandPath) -> tuple[Hop, ...]:
    """The two peers' hops over the pair: peer ``p``'s TMA moves global ``act[p, l]`` to CTA ``pair.cta[p]`` (the
    layouts: ``own[p, l]`` to CTA ``p``); the MMA reads operand ``own[p, l]`` from CTA ``p``'s shared memory."""
    if not isinstance(path.read, UmmaRead) or not isinstance(path.load, TmaCopy):
        raise LayoutError("a cta_group::2 operand is loaded by TMA (load = \"tma\") and read by tcgen05.mma "
                          "(read = \"umma\")")
    mn, k = path.tile
    if mn % 2:
        raise LayoutError(f"a cta_group::2 MMA splits the {mn} {path.operand} rows over two CTAs: {mn} is odd")
    local = _hops(replace(path, tile=(mn // 2, k), pair=None))
    load, read = local
    own, act = peer_tables(path)
    span, n = peer_span(path), own.shape[1]
    peers = np.repeat(np.arange(2, dtype=np.int64), n)
    cta = path.pair.cta  # type: ignore[union-attr]
    cat = np.concatenate
    tma = Hop(load.stage, load.instr, ("global", "peer_smem"),
              cat([_lift(load.src, act[p], 0) for p in (0, 1)]),
              cat([_lift(load.dst, None, cta[p] * span) for p in (0, 1)]),
              cat([_lift(load.want_src, own[p], 0) for p in (0, 1)]),
              cat([_lift(load.want_dst, None, p * span) for p in (0, 1)]),
              cat([_lift(load.element, own[p], 0) for p in (0, 1)]), "global",
              _lift_accesses([load.accesses, load.accesses], n), peers)
    umma = Hop(read.stage, read.instr, ("peer_smem", "operand"),
               cat([_lift(read.src, None, p * span) for p in (0, 1)]),
               cat([_lift(read.dst, own[p], 0) for p in (0, 1)]),
               cat([_lift(read.want_src, None, p * span) for p in (0, 1)]),
               cat([_lift(read.want_dst, own[p], 0) for p in (0, 1)]),
               cat([_lift(read.element, own[p], 0) for p in (0, 1)]), "operand",
               _lift_accesses([read.accesses, read.accesses], n), peers)
    return tma, umma


def _lift_global(a: np.ndarray, table: np.ndarray, past: int) -> np.ndarray:
    """A store's local global location in the pair: a C index through ``table``, a location past the local tile
    (``n_local + offset``) past the pair's tile and its peers' outside rows (``past + offset``)."""
    inside = (a >= 0) & (a < table.size)
    return np.where(inside, table[np.clip(a, 0, table.size - 1)], np.where(a >= 0, past + a, -1))


def _pair_epilogue_hops(path: EpiloguePath) -> tuple[Hop, ...]:
    """Each CTA's epilogue hops over the pair: TMEM, registers and shared memory are the CTA's own (``peer_*``
    spaces); the TMA store of CTA ``p`` writes local C element ``l`` to global ``act[p, l]``, where the layouts put
    ``own[p, l]`` (the accumulator rows CTA ``p`` holds)."""
    if path.tmem is None or not isinstance(path.store, TmaCopy):
        raise LayoutError("a cta_group::2 epilogue reads its accumulator from tensor memory (tmem_atom) and stores it "
                          "with TMA (store = \"tma\")")
    m, n = path.tile
    if m % 2:
        raise LayoutError(f"a cta_group::2 MMA splits the {m} C rows over two CTAs: {m} is odd")
    local = _hops(replace(path, tile=(m // 2, n), pair=None))
    own, act = peer_tables(path)
    n_pair, n_local = m * n, own.shape[1]
    outside = np.arange(n_local, dtype=np.int64)
    act = np.where(act >= 0, act, n_pair + outside[None, :] + n_local * np.arange(2)[:, None])
    cat = np.concatenate
    out = []
    for hop in local:
        sides = []
        for space, arrays in ((hop.spaces[0], (hop.src, hop.want_src)), (hop.spaces[1], (hop.dst, hop.want_dst))):
            if space == "global":  # the store's destination: local C index -> the pair's (outside: past the tile)
                sides.append(tuple(cat([_lift_global(a, t[p], n_pair + 2 * n_local) for p in (0, 1)])
                                   for a, t in zip(arrays, (act, own), strict=True)))
            else:
                span = peer_span(path, f"peer_{space}")
                sides.append(tuple(cat([_lift(a, None, p * span) for p in (0, 1)]) for a in arrays))
        moves = int(hop.src.size)
        el = (cat([_lift(hop.element, own[p], 0) for p in (0, 1)]) if hop.element_space == "global"
              else cat([_lift(hop.element, None, p * moves) for p in (0, 1)]))
        spaces = tuple(x if x == "global" else f"peer_{x}" for x in hop.spaces)
        out.append(Hop(hop.stage, hop.instr, spaces, sides[0][0], sides[1][0], sides[0][1], sides[1][1], el,  # type: ignore[arg-type]
                       hop.element_space, _lift_accesses([hop.accesses, hop.accesses], moves),
                       np.repeat(np.arange(2, dtype=np.int64), moves)))
    return tuple(out)


# -- composition -----------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class Trace:
    """Tokens after each hop (``tokens[k]`` over hop ``k``'s destination space) and each hop's write counts."""

    tokens: tuple[np.ndarray, ...]
    counts: tuple[np.ndarray, ...]
    read: tuple[np.ndarray, ...]  # per hop: the token each move carried


def _apply(tokens: np.ndarray, hop: Hop) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    src, dst = hop.src, hop.dst
    if src.size and src.min() >= 0 and src.max() < tokens.size:  # every read inside the source (the usual case)
        vals = tokens[src]
    else:
        ok = (src >= 0) & (src < tokens.size)
        vals = np.where(ok, tokens[np.clip(src, 0, max(tokens.size - 1, 0))], UNWRITTEN)
    moved = vals
    if dst.size and dst.min() < 0:  # a move to location -1 (an element the kernel cannot place) writes nothing
        live = dst >= 0
        dst, moved = dst[live], vals[live]
    extent = int(dst.max()) + 1 if dst.size else 0
    counts = np.bincount(dst, minlength=extent)
    out = np.full(extent, UNWRITTEN, dtype=np.int64)
    out[dst] = moved
    out[counts > 1] = CONFLICT
    return out, counts, vals


def initial_tokens(path: Path) -> np.ndarray:
    """Tokens before the first hop: each global element holds itself (A, B); each accumulator the C element it
    holds (C)."""
    if isinstance(path, OperandPath):
        return np.arange(path.tile[0] * path.tile[1], dtype=np.int64)
    if path.tmem is not None and path.pair is not None:  # CTA p's cells hold the pair's C rows p * M/2 ..
        own, _ = peer_tables(path)
        inv = _inverse(path.tmem.accumulator)
        span = peer_span(path, "peer_tmem")
        out = np.full(2 * span, UNWRITTEN, dtype=np.int64)
        for p in (0, 1):
            out[p * span:p * span + inv.size] = _lift(inv, own[p], 0)
        return out
    if path.tmem is not None:  # each TMEM cell of the accumulator holds its C element
        return _inverse(path.tmem.accumulator)
    return path_fragment(path).tile.ravel().astype(np.int64)


def expected_tokens(path: Path) -> np.ndarray:
    """Final locations and what each must hold: a register its fragment's element (A, B); a C element itself."""
    if isinstance(path, OperandPath):
        return path_fragment(path).tile.ravel().astype(np.int64)
    return np.arange(path.tile[0] * path.tile[1], dtype=np.int64)


def trace(path: Path, hs: tuple[Hop, ...] | None = None) -> Trace:
    """Run the tokens of ``path`` through its hops (module docstring)."""
    hs = hops(path) if hs is None else hs
    tokens, toks, counts, reads = initial_tokens(path), [], [], []
    for hop in hs:
        tokens, c, r = _apply(tokens, hop)
        toks.append(tokens)
        counts.append(c)
        reads.append(r)
    return Trace(tuple(toks), tuple(counts), tuple(reads))


def end_to_end_ok(path: Path, tr: Trace) -> bool:
    """Every expected final location written exactly once with its expected token, nothing else written."""
    want = expected_tokens(path)
    got, counts = tr.tokens[-1], tr.counts[-1]
    if got.size < want.size:
        return False
    return bool(np.array_equal(got[:want.size], want) and np.all(counts[:want.size] == 1)
                and not np.any(counts[want.size:]))


def address_fault(hop: Hop) -> dict[str, Any] | None:
    """The hop's first access that breaks its instruction's address rule (``misaligned``) or leaves the stage buffer
    (``outside_buffer``): of the accesses that do, the one whose first element is smallest (tile index or register),
    a misaligned one before one outside the buffer. ``i`` is its move; ``address``, ``bytes``, ``align``, ``space``
    what the instruction was given and what its rule demands."""
    best: tuple[tuple[int, int, int], Accesses] | None = None
    for acc in hop.accesses:
        bad = acc.bad()
        if not bad.size:
            continue
        late = (acc.start[bad] % acc.align == 0).astype(np.int64)  # 0: misaligned, 1: only outside the buffer
        el = hop.element[acc.move[bad]]
        j = int(np.lexsort((bad, late, el))[0])
        key = (int(el[j]), int(late[j]), int(bad[j]))
        if best is None or key < best[0]:
            best = key, acc
    if best is None:
        return None
    (_, kind, k), acc = best
    return {"kind": "misaligned" if kind == 0 else "outside_buffer", "i": int(acc.move[k]), "space": acc.space,
            "address": int(acc.start[k]), "bytes": acc.size, "align": acc.align,
            **({"limit": acc.limit} if acc.limit is not None else {})}


def _move_fault(hop: Hop, tr: Trace, k: int) -> dict[str, Any] | None:
    """Hop ``k``'s first move off the layouts (``misplaced``), onto a doubly written location (``doubled``) or
    from a location nothing wrote (``unwritten``): the smallest element of the first kind that has one."""
    bad = np.flatnonzero((hop.src != hop.want_src) | (hop.dst != hop.want_dst))
    if bad.size:
        return {"kind": "misplaced", "i": int(bad[np.argmin(hop.element[bad])])}
    dup = np.flatnonzero((hop.dst >= 0) & (tr.counts[k][np.maximum(hop.dst, 0)] > 1))
    if dup.size:
        return {"kind": "doubled", "i": int(dup[np.argmin(hop.element[dup])])}
    unread = np.flatnonzero(tr.read[k] == UNWRITTEN)
    if unread.size:
        return {"kind": "unwritten", "i": int(unread[np.argmin(hop.element[unread])])}
    return None


def first_fault(path: Path) -> dict[str, Any] | None:
    """``None`` when the path delivers every element exactly where the MMA (or C) wants it and every instruction's
    addresses obey its rules; else the first fault: ``{"stage": k, "kind", "i"}`` with ``kind`` one of
    ``misaligned`` / ``outside_buffer`` (an access of hop ``k`` breaks its instruction's alignment or leaves the
    stage buffer: ``address_fault``, checked whatever the composition), ``misplaced`` (hop ``k`` moves element
    ``i`` elsewhere than the layouts say), ``doubled`` (two elements land on one location), ``unwritten`` (it reads
    a location nothing wrote), ``missed`` / ``wrong`` / ``outside`` (final location ``i`` never written / wrong /
    outside the tile). Hops are examined in data-flow order; within a hop a move fault (when the composition fails)
    before an address fault, and of each kind the smallest element (tile index or register)."""
    hs = hops(path)
    tr = trace(path, hs)
    ok = end_to_end_ok(path, tr)
    for k, hop in enumerate(hs):
        fault = None if ok else _move_fault(hop, tr, k)
        fault = fault if fault is not None else address_fault(hop)
        if fault is not None:
            return {"stage": k, **fault}
    if ok:
        return None
    last, want = len(hs) - 1, expected_tokens(path)
    got, counts = tr.tokens[-1], tr.counts[-1]
    pad = np.zeros(max(0, want.size - counts.size), dtype=counts.dtype)
    c = np.concatenate([counts, pad])[:want.size]
    missed = np.flatnonzero(c == 0)
    if missed.size:
        return {"stage": last, "kind": "missed", "i": int(missed[0])}
    wrong = np.flatnonzero(got[:want.size] != want)
    if wrong.size:
        return {"stage": last, "kind": "wrong", "i": int(wrong[0])}
    return {"stage": last, "kind": "outside", "i": int(want.size + np.flatnonzero(counts[want.size:])[0])}


__all__ = [
    "CONFLICT",
    "UNWRITTEN",
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
    "Trace",
    "UmmaRead",
    "WgmmaRead",
    "address_fault",
    "copy_tv",
    "end_to_end_ok",
    "expected_tokens",
    "first_fault",
    "fragment",
    "hops",
    "initial_tokens",
    "operand_fragment",
    "path_fragment",
    "peer_span",
    "peer_tables",
    "row_addresses",
    "tmem_fragment",
    "trace",
]
