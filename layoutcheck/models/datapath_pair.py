"""``cta_group::2`` data paths (``models.datapath``): the single-CTA hops of one CTA's half, lifted over the pair.

Peer ``p``'s hops act on CTA ``p``'s locations (``peer_*`` spaces: ``cta * peer_span + location``); its TMA moves the
global rows it loads (``pair.rows``) into CTA ``pair.cta[p]``, where the layouts want the rows ``p * MN/2 ..`` the MMA
reads from CTA ``p`` (``peer_tables``, from ``hw.tcgen05.PEER_SPLITS``); an epilogue's TMA store writes CTA ``p``'s
accumulator rows to the global rows ``pair.rows[p] ..``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from layoutcheck.errors import LayoutError
from layoutcheck.hw.tcgen05 import TMEM as TMEM_GEOMETRY
from layoutcheck.models.datapath_fragments import path_fragment
from layoutcheck.models.datapath_hops import buffer_bytes, cta_hops
from layoutcheck.models.datapath_values import (
    Accesses,
    EpiloguePath,
    Hop,
    OperandPath,
    Path,
    TmaCopy,
    UmmaRead,
)


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
    return -(-buffer_bytes(path.smem, es) // 1024) * 1024


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


def lift(a: np.ndarray, table: np.ndarray | None, offset: int | np.ndarray) -> np.ndarray:
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


def pair_hops(path: OperandPath) -> tuple[Hop, ...]:
    """The two peers' hops over the pair: peer ``p``'s TMA moves global ``act[p, l]`` to CTA ``pair.cta[p]`` (the
    layouts: ``own[p, l]`` to CTA ``p``); the MMA reads operand ``own[p, l]`` from CTA ``p``'s shared memory."""
    if not isinstance(path.read, UmmaRead) or not isinstance(path.load, TmaCopy):
        raise LayoutError("a cta_group::2 operand is loaded by TMA (load = \"tma\") and read by tcgen05.mma "
                          "(read = \"umma\")")
    mn, k = path.tile
    if mn % 2:
        raise LayoutError(f"a cta_group::2 MMA splits the {mn} {path.operand} rows over two CTAs: {mn} is odd")
    local = cta_hops(replace(path, tile=(mn // 2, k), pair=None))
    load, read = local
    own, act = peer_tables(path)
    span, n = peer_span(path), own.shape[1]
    peers = np.repeat(np.arange(2, dtype=np.int64), n)
    cta = path.pair.cta  # type: ignore[union-attr]
    cat = np.concatenate
    tma = Hop(load.stage, load.instr, ("global", "peer_smem"),
              cat([lift(load.src, act[p], 0) for p in (0, 1)]),
              cat([lift(load.dst, None, cta[p] * span) for p in (0, 1)]),
              cat([lift(load.want_src, own[p], 0) for p in (0, 1)]),
              cat([lift(load.want_dst, None, p * span) for p in (0, 1)]),
              cat([lift(load.element, own[p], 0) for p in (0, 1)]), "global",
              _lift_accesses([load.accesses, load.accesses], n), peers)
    umma = Hop(read.stage, read.instr, ("peer_smem", "operand"),
               cat([lift(read.src, None, p * span) for p in (0, 1)]),
               cat([lift(read.dst, own[p], 0) for p in (0, 1)]),
               cat([lift(read.want_src, None, p * span) for p in (0, 1)]),
               cat([lift(read.want_dst, own[p], 0) for p in (0, 1)]),
               cat([lift(read.element, own[p], 0) for p in (0, 1)]), "operand",
               _lift_accesses([read.accesses, read.accesses], n), peers)
    return tma, umma


def _lift_global(a: np.ndarray, table: np.ndarray, past: int) -> np.ndarray:
    """A store's local global location in the pair: a C index through ``table``, a location past the local tile
    (``n_local + offset``) past the pair's tile and its peers' outside rows (``past + offset``)."""
    inside = (a >= 0) & (a < table.size)
    return np.where(inside, table[np.clip(a, 0, table.size - 1)], np.where(a >= 0, past + a, -1))


def pair_epilogue_hops(path: EpiloguePath) -> tuple[Hop, ...]:
    """Each CTA's epilogue hops over the pair: TMEM, registers and shared memory are the CTA's own (``peer_*``
    spaces); the TMA store of CTA ``p`` writes local C element ``l`` to global ``act[p, l]``, where the layouts put
    ``own[p, l]`` (the accumulator rows CTA ``p`` holds)."""
    if path.tmem is None or not isinstance(path.store, TmaCopy):
        raise LayoutError("a cta_group::2 epilogue reads its accumulator from tensor memory (tmem_atom) and stores it "
                          "with TMA (store = \"tma\")")
    m, n = path.tile
    if m % 2:
        raise LayoutError(f"a cta_group::2 MMA splits the {m} C rows over two CTAs: {m} is odd")
    local = cta_hops(replace(path, tile=(m // 2, n), pair=None))
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
                sides.append(tuple(cat([lift(a, None, p * span) for p in (0, 1)]) for a in arrays))
        moves = int(hop.src.size)
        el = (cat([lift(hop.element, own[p], 0) for p in (0, 1)]) if hop.element_space == "global"
              else cat([lift(hop.element, None, p * moves) for p in (0, 1)]))
        spaces = tuple(x if x == "global" else f"peer_{x}" for x in hop.spaces)
        out.append(Hop(hop.stage, hop.instr, spaces, sides[0][0], sides[1][0], sides[0][1], sides[1][1], el,  # type: ignore[arg-type]
                       hop.element_space, _lift_accesses([hop.accesses, hop.accesses], moves),
                       np.repeat(np.arange(2, dtype=np.int64), moves)))
    return tuple(out)


__all__ = [
    "lift",
    "pair_epilogue_hops",
    "pair_hops",
    "peer_span",
    "peer_tables",
]
