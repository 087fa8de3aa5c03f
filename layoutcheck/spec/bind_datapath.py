"""Binding of the ``datapath`` spec kind (issue #20) to ``layoutcheck.properties.datapath``.

A config is one kernel: the tiled MMA (``atom``, ``atom_layout``, ``permutation``), the CTA ``tile`` = ``[M, N, K]``,
the operands' ``dtype``, and one table per path (``A``, ``B``, ``C``; those given are checked)::

    A / B  smem | swizzle (+ major)   the (MN, K) stage layout (``swizzle``: GMMA atoms of ``major`` stacked as the
                                      SM90 mainloop does, ``spec.values.WGMMA_ATOM_ORDER``)
           load = "cp.async"          threads + values (make_tiled_copy) or tv; load_atom; gmem (default: the tile,
                                      packed along ``major``); write_smem (the layout the copy writes, default smem)
           load = "tma"               box (driver order: contiguous dim first); tma_swizzle (default ``swizzle``);
                                      modes (default: K-major (1, 0), MN-major (0, 1)); global_shape
           read = <copy atom>         ldmatrix / UniversalCopy; read_smem (the layout its addresses use)
           read = "wgmma"             descriptors of the stage (``descriptor_swizzle``: built from that layout instead;
                                      ``descriptor_smem``: from that layout)
           read = "umma"              SM100: tcgen05.mma's UMMA descriptors of the stage, one per 256-bit K block
                                      (``descriptor_swizzle`` / ``descriptor_smem`` as for wgmma); no ``atom`` needed
           cta_group = 2              a 2-SM MMA (``SM100_MMA_*_2x1SM_SS``): ``tile`` is the pair's, ``smem`` / ``box``
                                      one CTA's half (MN/2, K); peer_rows (default "peer * (MN / 2)": the first MN row
                                      each peer's TMA loads) and peer_cta (default "peer": the CTA it writes into),
                                      two integers or a formula of ``peer`` and ``MN``; needs load = "tma" and
                                      read = "umma"
    C      smem | swizzle             the (M, N) epilogue layout (``swizzle``: N-contiguous GMMA atoms); dtype
           tmem_atom                  accumulators in tensor memory, read by tcgen05.ld first: data_path (the MMA's
                                      letter, default D), assumed_data_path (the epilogue's belief), warps, rows,
                                      columns (as kind ``tmem``); no ``atom`` needed
           write = <copy atom>        stmatrix / UniversalCopy (st.shared); write_smem
           store = "tma"              box, tma_swizzle, modes (default (1, 0): N is the contiguous dim)
           store = <copy atom>        threads + values or tv; gmem (default row-major (M, N)); read_smem
           cta_group = 2              with tmem_atom and store = "tma": ``tile`` is the pair's, each CTA's accumulator
                                      holds C rows p * M/2 ..; peer_rows: the global rows its TMA store writes
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutcheck.algebra.inttuple import flatten, prefix_product
from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout, inner
from layoutcheck.errors import LayoutError, SpecError
from layoutcheck.hw.swizzle_modes import MODES
from layoutcheck.models.datapath import hops
from layoutcheck.models.datapath_fragments import copy_tv
from layoutcheck.models.datapath_values import (
    EpiloguePath,
    MatrixCopy,
    OperandPath,
    Path,
    PeerCopy,
    ThreadCopy,
    TmaCopy,
    TmemRead,
    UmmaRead,
    WgmmaRead,
)
from layoutcheck.models.tiled_mma import TiledMMA
from layoutcheck.models.tma import TmaBox, mma_smem_layout, tma_dtype
from layoutcheck.spec.schema import Config, PropertyRequest
from layoutcheck.spec.values import DTYPE_BITS, TMA_DTYPES, WGMMA_ATOM_ORDER, one_line

CP_ASYNC = "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>"
"""The default global -> smem copy atom: 16-byte cp.async.cg (CUTLASS's SM80 mainloops)."""


def bind(fn: Any, cfg: Config, req: PropertyRequest, mma: TiledMMA | None) -> Any:
    """The ``datapath`` claim of the paths a config gives (``operand`` = one of them)."""
    tile = tuple(cfg.get("tile"))
    if len(tile) != 3:
        raise cfg.error("tile", f"a datapath tile is the CTA tile [M, N, K], found {list(tile)}")
    want = req.get("operand")
    names = [n for n in "ABC" if cfg.get(n) is not None and want in (None, n)]
    if not names:
        raise cfg.error("properties", f"no {want or 'A, B or C'} path table in this config")
    _one_cta_group(cfg)
    paths: list[Path] = []
    for n in names:
        table = _Table(cfg.get(n))
        try:
            path = _epilogue(mma, tile, table) if n == "C" else _operand(cfg, mma, tile, n, table)
            hops(path)  # a stage that does not fit its atom is an error on this path's table
            paths.append(path)
            table.all_read()
        except LayoutError as e:
            raise SpecError(f"{cfg.file}:{cfg.line_of(n)}: config {cfg.name!r}: key {n!r}: {one_line(e)}",
                            file=cfg.file, line=cfg.line_of(n), key=n) from None
    try:
        return fn(paths)
    except LayoutError as e:
        raise SpecError(f"{cfg.file}:{req.line or cfg.line}: config {cfg.name!r}: property {req.name!r}: "
                        f"{one_line(e)}") from None


class _Table(dict[str, Any]):
    """A path table that records the keys the binder reads (``get``, ``[]``; ``peek`` looks without reading): a key
    given but never read means nothing beside the table's other keys (a TMA ``box`` on a ``cp.async`` load, an
    operand table's ``dtype``, a descriptor swizzle read by ``ldmatrix``) and is refused, never dropped."""

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        self.read: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def peek(self, key: str) -> Any:
        return super().get(key)

    def all_read(self) -> None:
        """Raise ``LayoutError`` naming the first key given that nothing read."""
        unread = [k for k in self if k not in self.read]
        if unread:
            how = ", ".join(f"{k} = {self.peek(k)!r}" for k in ("load", "read", "write", "store") if k in self)
            raise LayoutError(f"{unread[0]!r} means nothing in this path{f' ({how})' if how else ''}: no part of "
                              f"the path it describes reads it (drop it, or give the keys it belongs with)",
                              key=unread[0])


def _one_cta_group(cfg: Config) -> None:
    """A, B and C of one config belong to one tcgen05.mma: a cta_group::2 MMA reads both operands from the pair and
    writes the accumulator into both CTAs, so the tables given must name one ``cta_group`` (default 1); the peer keys
    (``peer_rows``, ``peer_cta``) mean something only in a pair's table."""
    given = {n: dict(cfg.get(n)).get("cta_group", 1) for n in "ABC" if cfg.get(n) is not None}
    if len(set(given.values())) > 1:
        first = next(iter(given.values()))
        odd = next(n for n, g in given.items() if g != first)
        raise SpecError(f"{cfg.file}:{cfg.line_of(odd)}: config {cfg.name!r}: key {odd!r}: cta_group = {given[odd]} "
                        f"but {', '.join(f'{n}: {g}' for n, g in given.items())}: one MMA's A, B and C share its "
                        "cta_group (a cta_group::2 MMA splits both operands and the accumulator over the pair)",
                        file=cfg.file, line=cfg.line_of(odd), key=odd)
    for n, g in given.items():
        peer = [k for k in ("peer_rows", "peer_cta") if k in dict(cfg.get(n))]
        if peer and g != 2:
            raise SpecError(f"{cfg.file}:{cfg.line_of(n)}: config {cfg.name!r}: key {n!r}: {peer[0]!r} is where a "
                            "cta_group::2 pair's peer CTAs load or store; this path has cta_group = 1 (set "
                            "cta_group = 2, or drop the key)", file=cfg.file, line=cfg.line_of(n), key=n)


def _stage_layout(t: _Table, major: str, dtype: str, shape: tuple[int, int], what: str) -> Any:
    """The table's ``smem`` layout, or GMMA atoms of ``swizzle`` tiled over ``shape`` as the SM90 mainloop does."""
    if t.get("smem") is not None and t.get("swizzle") is not None:
        raise LayoutError(f"the {what} path gives both 'smem' and 'swizzle': they are one of (the stage layout, or "
                          "GMMA atoms of that swizzle)")
    if t.get("smem") is not None:
        return t["smem"]
    if t.get("swizzle") is None:
        raise LayoutError(f"the {what} path needs 'smem' (a layout) or 'swizzle' (GMMA atoms)")
    return mma_smem_layout(major, t["swizzle"], dtype, shape, WGMMA_ATOM_ORDER[major])


def _box(t: dict[str, Any], dtype: str, dims: tuple[int, int], default_swizzle: str) -> TmaBox:
    """The table's TMA box over a packed global tile of ``dims`` (driver order, contiguous dim first)."""
    if t.get("box") is None:
        raise LayoutError("a TMA stage needs 'box' (driver order: the contiguous dim first)")
    gdims = tuple(t.get("global_shape") or dims)
    es = tma_dtype(dtype).bytes
    strides = tuple(es * p for p in flatten(prefix_product(gdims))[1:])
    return TmaBox(dtype, gdims, strides, tuple(t["box"]), swizzle=t.get("tma_swizzle", default_swizzle))


def _swizzle_of(t: dict[str, Any], smem: Any) -> str:
    """The TMA swizzle a stage implies: ``swizzle``, else the swizzle of an ``smem`` written out (its bits)."""
    if t.get("swizzle") is not None:
        return t["swizzle"]
    bits = smem.swizzle.bits if isinstance(smem, ComposedLayout) else 0
    return next((m.name for m in MODES if m.bits == bits), "none")


def _thread_copy(t: dict[str, Any], atom_key: str | None, atom: str, tile: tuple[int, int], gmem: Layout,
                 smem_key: str) -> ThreadCopy:
    if t.get("tv") is not None:
        tv = t["tv"]
    elif t.get("threads") is not None and t.get("values") is not None:
        tv = copy_tv(_plain(t["threads"], "threads"), _plain(t["values"], "values"), tile)
    else:
        raise LayoutError("a thread copy needs 'threads' and 'values' (make_tiled_copy) or 'tv'")
    return ThreadCopy(atom if atom_key is None else t.get(atom_key, atom), _plain(tv, "tv"),
                      _plain(t.get("gmem", gmem), "gmem"), t.get(smem_key))


def _plain(x: Any, what: str) -> Layout:
    if not isinstance(x, Layout):
        raise LayoutError(f"{what} must be a plain layout, found {x}")
    return x


def _operand(cfg: Config, mma: TiledMMA | None, tile: tuple[int, ...], name: str, t: dict[str, Any]) -> OperandPath:
    if mma is None and t.get("read") != "umma":
        raise LayoutError(f"the {name} path needs the config's tiled MMA ('atom')")
    dtype = cfg.get("dtype")
    m, n, k = tile
    pair_shape = (m if name == "A" else n, k)
    pair = _peer_copy(t, pair_shape[0]) if t.get("cta_group", 1) == 2 else None
    if t.get("cta_group", 1) not in (1, 2):
        raise LayoutError(f"cta_group = {t.get('cta_group')!r}: a tcgen05.mma runs on cta_group 1 or 2")
    shape = (pair_shape[0] // 2, k) if pair is not None else pair_shape
    major = t.get("major", "K")
    smem = _stage_layout(t, major, TMA_DTYPES[dtype], shape, name)
    if len(inner(smem)) != 2 or size(inner(smem)[0]) != shape[0] or size(inner(smem)[1]) != shape[1]:
        raise LayoutError(f"smem layout {smem} is not an ({shape[0]}, {shape[1]}) (MN, K) tile")
    kind = t.get("load") or ("tma" if t.peek("box") is not None else "cp.async")
    if kind == "tma":
        dims = (shape[1], shape[0]) if major == "K" else shape
        modes = tuple(t.get("modes") or ((1, 0) if major == "K" else (0, 1)))
        load: ThreadCopy | TmaCopy = TmaCopy(_box(t, TMA_DTYPES[dtype], dims, _swizzle_of(t, smem)), modes)
    elif kind == "cp.async":
        gmem = Layout(shape, (shape[1], 1)) if major == "K" else Layout(shape)
        load = _thread_copy(t, "load_atom", CP_ASYNC, shape, gmem, "write_smem")
    else:
        raise LayoutError(f"load = {kind!r}: expected \"cp.async\" or \"tma\"")
    rd = t.get("read")
    if rd is None:
        raise LayoutError("the path needs 'read': a copy atom (e.g. \"SM75_U32x4_LDSM_N\"), \"wgmma\" or \"umma\"")
    if rd in ("wgmma", "umma"):
        wl = t.get("descriptor_smem")
        if t.get("descriptor_swizzle") is not None:
            wl = mma_smem_layout(major, t["descriptor_swizzle"], TMA_DTYPES[dtype], shape, WGMMA_ATOM_ORDER[major])
        read: MatrixCopy | WgmmaRead | UmmaRead = WgmmaRead(major, wl) if rd == "wgmma" else UmmaRead(major, wl)
        if rd == "umma":
            mma = None  # a tcgen05.mma reads both operands from its descriptors: the operand is its (MN, K) tile
    else:
        read = MatrixCopy(rd, t.get("read_smem"))
    if pair is not None and not isinstance(read, UmmaRead):
        raise LayoutError("cta_group = 2 is a tcgen05.mma's pair of peer CTAs: the path needs read = \"umma\"")
    return OperandPath(name, mma, pair_shape, DTYPE_BITS[dtype], dtype, smem, load, read, pair)


def _peer_values(t: dict[str, Any], key: str, default: str, mn: int) -> tuple[int, int]:
    """``key`` of a cta_group::2 table for peers 0 and 1: two integers, or one formula of ``peer`` (0, 1) and ``MN``
    (the pair's rows) as the kernel computes it (``"peer * (MN / 2)"``)."""
    from layoutcheck.expr.numpy import evaluate
    from layoutcheck.expr.parse import parse

    v = t.get(key, default)
    if isinstance(v, str):
        e = parse(v, {"peer": 2, "MN": mn + 1})
        vals = np.broadcast_to(np.asarray(evaluate(e, {"peer": np.array([0, 1]), "MN": np.array([mn, mn])})), (2,))
        got = (int(vals[0]), int(vals[1]))
    elif isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(x, int) for x in v):
        got = (int(v[0]), int(v[1]))
    else:
        raise LayoutError(f"{key} = {v!r}: expected two integers (peer 0, peer 1) or a formula of 'peer' and 'MN'")
    return got  # type: ignore[return-value]


def _peer_copy(t: dict[str, Any], mn: int) -> PeerCopy:
    """``peer_rows`` (default ``peer * (MN / 2)``): the first MN row each peer's TMA loads; ``peer_cta`` (default
    ``peer``): the CTA of the pair whose shared memory it writes."""
    rows = _peer_values(t, "peer_rows", "peer * (MN / 2)", mn)
    cta = _peer_values(t, "peer_cta", "peer", mn)
    if min(cta) < 0:
        raise LayoutError(f"peer_cta = {list(cta)}: a CTA of the cluster is numbered from 0")
    return PeerCopy(rows, cta)


def _tmem_read(t: dict[str, Any], n: int) -> TmemRead:
    """tcgen05.ld: the MMA's accumulator (``data_path`` letter, default D) and the one the epilogue assumes."""
    from layoutcheck.models.tmem import datapath_layout
    from layoutcheck.spec.bind_tcgen05 import tmem_loads

    acc = datapath_layout(t.get("data_path", "D").upper(), n)
    assumed = t.get("assumed_data_path")
    assumed_acc = None if assumed is None else datapath_layout(assumed.upper(), n)
    loads = tmem_loads(t["tmem_atom"], assumed_acc or acc, t.get("warps"), t.get("rows"), t.get("columns"))
    return TmemRead(loads, acc, assumed_acc)


def _epilogue(mma: TiledMMA | None, tile: tuple[int, ...], t: dict[str, Any]) -> EpiloguePath:
    m_pair, n, _ = tile
    if t.get("cta_group", 1) not in (1, 2):
        raise LayoutError(f"cta_group = {t.get('cta_group')!r}: a tcgen05.mma runs on cta_group 1 or 2")
    pair = _peer_copy(t, m_pair) if t.get("cta_group", 1) == 2 else None
    m = m_pair // 2 if pair is not None else m_pair
    dtype = t.get("dtype", "f16")
    smem = t["smem"] if t.get("smem") is not None else _stage_layout(t, "K", TMA_DTYPES[dtype], (m, n), "C")
    if len(inner(smem)) != 2 or size(inner(smem)[0]) != m or size(inner(smem)[1]) != n:
        raise LayoutError(f"smem layout {smem} is not the ({m}, {n}) C tile")
    if t.get("write") is None:
        raise LayoutError("the C path needs 'write': a copy atom (e.g. \"SM90_U32x4_STSM_N\", "
                          "\"UniversalCopy<uint32_t>\")")
    write = MatrixCopy(t["write"], t.get("write_smem"))
    kind = t.get("store")
    if kind is None:
        raise LayoutError("the C path needs 'store': \"tma\" or a copy atom (e.g. \"UniversalCopy<uint128_t>\")")
    if kind == "tma":
        modes = tuple(t.get("modes") or (1, 0))
        store: ThreadCopy | TmaCopy = TmaCopy(_box(t, TMA_DTYPES[dtype], (n, m), _swizzle_of(t, smem)), modes)
    else:
        store = _thread_copy(t, None, kind, (m, n), Layout((m, n), (n, 1)), "read_smem")  # type: ignore[arg-type]
    tmem = _tmem_read(t, n) if t.get("tmem_atom") is not None else None
    if tmem is None and mma is None:
        raise LayoutError("the C path needs the config's tiled MMA ('atom') or a tcgen05.ld ('tmem_atom')")
    if tmem is not None and size(tmem.accumulator[0]) != m:
        raise LayoutError(f"data path {t.get('data_path', 'D')} holds {size(tmem.accumulator[0])} rows per CTA, the "
                          f"tile has M = {m}")
    if tmem is not None and tmem.assumed is not None and size(tmem.assumed[0]) != m:
        raise LayoutError(f"assumed_data_path {t.get('assumed_data_path')} holds {size(tmem.assumed[0])} rows per CTA, "
                          f"the tile has M = {m}")
    if pair is not None and (tmem is None or not isinstance(store, TmaCopy)):
        raise LayoutError("cta_group = 2 in the C path needs the accumulator in tensor memory ('tmem_atom') and "
                          "store = \"tma\"")
    return EpiloguePath(mma, (m_pair, n), DTYPE_BITS[dtype], smem, write, store, tmem, pair)


__all__ = ["CP_ASYNC", "bind"]
