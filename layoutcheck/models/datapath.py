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

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from layoutcheck.models.datapath_fragments import inverse_table, path_fragment
from layoutcheck.models.datapath_hops import cta_hops
from layoutcheck.models.datapath_pair import lift, pair_epilogue_hops, pair_hops, peer_span, peer_tables
from layoutcheck.models.datapath_values import (
    Accesses,
    EpiloguePath,
    Hop,
    OperandPath,
    Path,
)

UNWRITTEN = -1
"""Token of a location no hop wrote (or a read outside the tile)."""
CONFLICT = -2
"""Token of a location one hop wrote twice."""


@lru_cache(maxsize=32)
def hops(path: Path) -> tuple[Hop, ...]:
    """The hops of ``path`` in data-flow order (module docstring). Computed once per path (binding, the subject's
    text, the domain size and the decision all read them): their arrays are read-only."""
    if isinstance(path, OperandPath) and path.pair is not None:
        out = pair_hops(path)
    elif isinstance(path, EpiloguePath) and path.pair is not None:
        out = pair_epilogue_hops(path)
    else:
        out = cta_hops(path)
    for hop in out:
        for a in (hop.src, hop.dst, hop.want_src, hop.want_dst, hop.element,
                  *(x for acc in hop.accesses for x in (acc.move, acc.start)),
                  *(() if hop.peer is None else (hop.peer,))):
            a.setflags(write=False)
    return out


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
        inv = inverse_table(path.tmem.accumulator)
        span = peer_span(path, "peer_tmem")
        out = np.full(2 * span, UNWRITTEN, dtype=np.int64)
        for p in (0, 1):
            out[p * span:p * span + inv.size] = lift(inv, own[p], 0)
        return out
    if path.tmem is not None:  # each TMEM cell of the accumulator holds its C element
        return inverse_table(path.tmem.accumulator)
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
        return _overlap_fault(hop)
    (_, kind, k), acc = best
    return {"kind": "misaligned" if kind == 0 else "outside_buffer", "i": int(acc.move[k]), "space": acc.space,
            "address": int(acc.start[k]), "bytes": acc.size, "align": acc.align,
            **({"limit": acc.limit} if acc.limit is not None else {})}


def _overlap_fault(hop: Hop) -> dict[str, Any] | None:
    """The hop's first access (smallest first element) that starts inside the bytes of another where its accesses
    must be disjoint (``Accesses.disjoint``: two TMA boxes writing the same stage bytes), or ``None``; ``other`` is
    the start of the access it overlaps."""
    best: tuple[int, dict[str, Any]] | None = None
    for acc in hop.accesses:
        pairs = acc.overlapping()
        if not pairs.size:
            continue
        el = hop.element[acc.move[pairs[:, 0]]]
        k, j = (int(x) for x in pairs[int(np.argmin(el))])
        if best is None or int(el.min()) < best[0]:
            best = int(el.min()), {"kind": "overlapping", "i": int(acc.move[k]), "space": acc.space,
                                   "address": int(acc.start[k]), "bytes": acc.size, "align": acc.align,
                                   "other": int(acc.start[j]),
                                   **({"limit": acc.limit} if acc.limit is not None else {})}
    return None if best is None else best[1]


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
    ``misaligned`` / ``outside_buffer`` / ``overlapping`` (an access of hop ``k`` breaks its instruction's
    alignment, leaves the stage buffer or overlaps another's bytes: ``address_fault``, checked whatever the
    composition), ``misplaced`` (hop ``k`` moves element
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
    "Trace",
    "address_fault",
    "end_to_end_ok",
    "expected_tokens",
    "first_fault",
    "hops",
    "initial_tokens",
    "trace",
]
