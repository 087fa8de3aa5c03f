"""The hops of a single-CTA data path (``models.datapath``): the locations each copy or MMA read actually moves
every element between, the locations the declared layouts intend, and its memory instructions' accesses.

A copy atom is applied as CuTe's ``make_tiled_copy_A/B/C`` (and ``retile``) apply it to an MMA fragment: thread
``t`` is lane ``t % 32`` of its warp, and each instruction takes the next ``Va`` values of the thread's fragment in
its value order (``Va`` = the atom's register values per thread); a matrix copy moves 16 contiguous bytes per row from
the address one lane supplies (``row_addresses``). The hardware's semantics come from the atoms' own layouts
(``hw.copy``, ``models.tma.tile_image``, ``models.gmma.descriptor_reads``, ``models.umma.umma_reads``,
``models.tmem.loads_cells``); nothing is tabled here.
"""

from __future__ import annotations

import numpy as np

from layoutcheck.algebra.layout import size
from layoutcheck.algebra.swizzle import Subject, shared_offsets
from layoutcheck.errors import DescriptorError, LayoutError
from layoutcheck.hw.copy import CopyAtom, address_rule, copy_atom, in_elements
from layoutcheck.hw.tma import LIMITS as TMA_LIMITS
from layoutcheck.models.datapath_fragments import inverse_table, path_fragment, tmem_cells
from layoutcheck.models.datapath_values import (
    Accesses,
    Fragment,
    Hop,
    MatrixCopy,
    OperandPath,
    Path,
    ThreadCopy,
    TmaCopy,
    TmemRead,
    UmmaRead,
    WgmmaRead,
)
from layoutcheck.models.gmma import block_index, descriptor_reads
from layoutcheck.models.tma import tile_image
from layoutcheck.models.umma import umma_reads


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


def buffer_bytes(smem: Subject, es: int) -> int:
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
    g_inv = inverse_table(copy.gmem)
    s_act = _element_offsets(copy.smem if copy.smem is not None else smem)
    s_want = _element_offsets(smem)
    g_raw, step = _rows(atom, bits, frag, g_off, "copy")
    s_raw, _ = _rows(atom, bits, frag, s_act, "copy")
    g_addr, s_addr = g_raw.ravel(), es * s_raw.ravel()
    accesses = (_row_accesses("smem", s_raw, step, es, atom, buffer_bytes(smem, es)),
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
    # the TMA writes (a store reads) the whole box, dst .. dst + box bytes (out-of-bounds global elements are filled,
    # not skipped): a box past the stage's modes overruns the stage buffer even where the tile's own elements fit
    boxes = Accesses("smem", first, dst[first], es * int(np.prod(copy.box.counts)), TMA_LIMITS.smem_dst_align,
                     buffer_bytes(smem, es), "hw.tma.TmaLimits.smem_dst_align: " + TMA_LIMITS.source, disjoint=True)
    accesses = (boxes, _element_accesses(actual, es, buffer_bytes(smem, es)))
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
    accesses = (_row_accesses("smem", raw, step, es, atom, buffer_bytes(smem, es)),)
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
               (_element_accesses(addr, es, buffer_bytes(path.smem, es)),))


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
               (_element_accesses(addr, es, buffer_bytes(path.smem, es)),))




def _tmem_hop(read: TmemRead, frag: Fragment) -> Hop:
    _, cells = tmem_cells(read)
    acc = read.accumulator.offsets(np.int64)
    want = np.where(frag.tile >= 0, acc[np.maximum(frag.tile, 0)], -1).ravel()
    regs = np.arange(frag.tile.size, dtype=np.int64)
    return Hop("tcgen05.ld", read.loads[0].atom, ("tmem", "regs"), cells.ravel(), regs, want, regs, regs, "regs")




def _descriptor_operand(path: OperandPath) -> bool:
    """Whether the MMA reads ``path``'s operand from shared memory itself (a wgmma ``SS`` A, every wgmma B): every
    thread of the atom "holds" the whole operand (a stride-0 thread mode)."""
    tv = path.mma.atom.tv_layout_A if path.operand == "A" else path.mma.atom.tv_layout_B
    return size(tv[0]) > 1 and not tv[0].offsets().any()



def cta_hops(path: Path) -> tuple[Hop, ...]:
    """The hops of a single-CTA ``path`` (``pair`` not set) in data-flow order (``models.datapath`` docstring)."""
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


__all__ = [
    "buffer_bytes",
    "cta_hops",
    "row_addresses",
]
