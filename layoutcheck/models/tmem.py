"""Tensor memory as an address space: accumulator data paths, and which cells a warpgroup's tcgen05.ld/st touch.

TMEM is ``128 lanes x 512 columns`` of 32-bit cells (``layoutcheck.hw.tcgen05.TMEM``). A *data path* places one
CTA's ``(M_cta, N)`` accumulator (32-bit elements) in it; we use CUTLASS's virtual address ``lane + 128 * column``
(``tmem_frg``'s "DP stride 1, column stride 128"), so a data path is a CuTe layout ``(m, n) -> lane + 128 * col``::

    D (M=128, 1 CTA)      (128,N):(1,128)            row m on lane m
    F (M=64,  1 CTA)      ((16,4),N):((1,32),128)    rows 16 per sub-partition: lanes 0-15, 32-47, 64-79, 96-111
    B (M=128, 2 CTAs)     (64,(N/2,2)):(1,(128,64))  64 rows per CTA, columns N/2.. on lanes 64-127
    A (M=256, 2 CTAs)     (128,N):(1,128)            as D, in each CTA

A *load* is one tcgen05.ld (or st) issued by one warp at TMEM address ``(lane, column)``: thread ``t``'s register
bits ``v`` come from reference-tile bit ``r = reg(t, v)`` (the atom's register-side layout) at TMEM bit address
``val_id(r)`` past the issued address (CUTLASS ``ValID``). ``load_cells`` evaluates that for every 32-bit register
(two 16-bit halves for ``_16b`` atoms) and returns the cells, so that an epilogue -- a list of loads -- can be checked
against a data path: every accumulator cell read exactly once, no warp outside its 32-lane sub-partition.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from layoutcheck.algebra.inttuple import crd2flat
from layoutcheck.algebra.layout import Layout, size
from layoutcheck.errors import LayoutError
from layoutcheck.hw.copy import CopyAtom, copy_atom
from layoutcheck.hw.tcgen05 import TMEM, TMEM_DP_BITS, data_path


def accumulator_layout(mma_m: int, cta_group: int, n: int, ws: bool = False, sparse: bool = False) -> Layout:
    """One CTA's accumulator ``(M_cta, N) -> lane + 128 * column`` for an MMA with instruction ``mma_m``.

    Pre: ``(mma_m, cta_group)`` names a PTX data path; ``n`` fits it. Post: injective, lanes < 128.

    >>> str(accumulator_layout(128, 2, 256))
    '(64,(128,2)):(1,(128,64))'
    """
    return datapath_layout(data_path(mma_m, cta_group, ws, sparse).letter, n)


def datapath_layout(letter: str, n: int) -> Layout:
    """The data path ``letter`` (A..G) for ``n`` columns: ``(m, n) -> lane + 128 * column``."""
    from layoutcheck.hw.tcgen05 import DATA_PATHS

    if letter not in DATA_PATHS:
        raise LayoutError(f"unknown TMEM data path {letter!r}: expected one of {', '.join(DATA_PATHS)}")
    if n <= 0 or n > TMEM.columns * 4:
        raise LayoutError(f"data path {letter}: N = {n} columns is out of range")
    return DATA_PATHS[letter].atom(n)


def lane_column(virtual: np.ndarray | int) -> tuple[np.ndarray | int, np.ndarray | int]:
    """``(lane, column)`` of a virtual address ``lane + 128 * column``."""
    return virtual % TMEM.lanes, virtual // TMEM.lanes


@dataclass(frozen=True, slots=True)
class TmemLoad:
    """One tcgen05.ld/st of ``atom`` issued by ``warp`` at TMEM ``(lane, column)`` (the taddr's two halves)."""

    atom: str
    warp: int
    lane: int
    column: int

    def __post_init__(self) -> None:
        a = copy_atom(self.atom)
        if a.val_id is None:
            raise LayoutError(f"{self.atom} is not a tcgen05.ld/st atom (no TMEM side)")
        if not (0 <= self.lane < TMEM.lanes and 0 <= self.column < TMEM.columns and self.warp >= 0):
            raise LayoutError(f"TMEM address (lane {self.lane}, column {self.column}) of warp {self.warp} is outside "
                              f"{TMEM.lanes} lanes x {TMEM.columns} columns")

    def __str__(self) -> str:
        return f"warp {self.warp}: {self.atom} @ (lane {self.lane}, column {self.column})"


def register_side(atom: CopyAtom) -> Layout:
    """The atom's ``(thread, register bit) -> reference bit`` layout (``dst`` of a load, ``src`` of a store)."""
    return atom.dst_layout if atom.access_kinds == ("tmem_ld",) else atom.src_layout


def load_cells(load: TmemLoad, element_bits: int = 32) -> dict[str, np.ndarray]:
    """Every ``(thread, element)`` of ``load`` and the TMEM cell it moves: arrays ``thread``, ``element``, ``lane``,
    ``column`` and ``half`` (which 16-bit half of the cell; 0 for 32-bit elements).

    Pre: ``element_bits`` is 32, or 16 (each register's two halves). Post: ``lane``/``column`` are absolute.

    >>> c = load_cells(TmemLoad("SM100_TMEM_LOAD_32dp32b1x", 1, 32, 8))
    >>> int(c["lane"][5]), int(c["column"][5])
    (37, 8)
    """
    if element_bits not in (16, 32):
        raise LayoutError(f"TMEM cells hold 32-bit or 16-bit elements, not {element_bits}-bit")
    t, e, lane, column, half = _atom_cells(load.atom, element_bits)
    return {"thread": t, "element": e, "lane": load.lane + lane, "column": load.column + column, "half": half}


def loads_cells(loads: Sequence[TmemLoad], element_bits: int = 32) -> dict[str, np.ndarray]:
    """``load_cells`` of every load concatenated in order, plus ``load`` (the index into ``loads`` of each entry).

    Pre: ``loads`` not empty. Post: entry ``j * m + i`` is cell ``i`` of ``load_cells(loads[j])`` when every load
    issues one atom of ``m`` cells (that case is one broadcast, not a loop over the loads).

    >>> c = loads_cells(epilogue_loads("SM100_TMEM_LOAD_32dp32b1x", (0, 1)))
    >>> int(c["lane"][32 + 5]), int(c["load"][32 + 5])
    (37, 1)
    """
    if len({x.atom for x in loads}) != 1 or element_bits not in (16, 32):
        parts = [load_cells(x, element_bits) for x in loads]
        parts = [c | {"load": np.full(c["thread"].size, j)} for j, c in enumerate(parts)]
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    t, e, lane, column, half = _atom_cells(loads[0].atom, element_bits)
    lanes = np.array([[x.lane] for x in loads], dtype=lane.dtype)
    columns = np.array([[x.column] for x in loads], dtype=column.dtype)
    k = len(loads)
    return {"thread": np.tile(t, k), "element": np.tile(e, k), "lane": (lanes + lane).ravel(),
            "column": (columns + column).ravel(), "half": np.tile(half, k), "load": np.repeat(np.arange(k), t.size)}


@lru_cache(maxsize=256)
def _atom_cells(atom: str, element_bits: int) -> tuple[np.ndarray, ...]:
    """``load_cells`` of ``atom`` issued at lane 0, column 0 (read-only arrays: one evaluation per atom and width)."""
    a = copy_atom(atom)
    reg = register_side(a)
    nthr, nbits = size(reg[0]), size(reg[1])
    t, e = np.meshgrid(np.arange(nthr), np.arange(nbits // element_bits), indexing="ij")
    ref = reg.offsets().reshape(nbits, nthr).T  # colex: index = t + nthr * v
    bits = ref[t, e * element_bits]
    addr = a.val_id.offsets()[bits]  # type: ignore[union-attr]
    col_bits = addr % TMEM_DP_BITS
    half = ((col_bits % TMEM.cell_bits) // 16).ravel() if element_bits == 16 else np.zeros(t.size, int)
    out = (t.ravel(), e.ravel(), (addr // TMEM_DP_BITS).ravel(), (col_bits // TMEM.cell_bits).ravel(), half)
    for x in out:
        x.flags.writeable = False
    return out


def epilogue_loads(atom: str, warps: tuple[int, ...] = (0, 1, 2, 3), rows: tuple[int, ...] = (0,),
                   columns: tuple[int, ...] = (0,)) -> tuple[TmemLoad, ...]:
    """The loads of an epilogue: each warp ``w`` issues ``atom`` at lane ``32*(w % 4) + r`` for every row offset
    ``r`` (0, or 16 for the upper half-slab of a ``.16x*b`` shape) and every start ``column``.

    >>> [x.lane for x in epilogue_loads("SM100_TMEM_LOAD_16dp256b1x", (1,), (0, 16))]
    [32, 48]
    """
    return tuple(TmemLoad(atom, w, 32 * (w % 4) + r, c) for w in warps for r in rows for c in columns)


def atom_columns(atom: str, element_bits: int = 32) -> int:
    """TMEM columns one issue of ``atom`` spans (``.16x32bx2`` counts both halves)."""
    a = copy_atom(atom)
    addr = a.val_id.offsets()  # type: ignore[union-attr]
    return int((addr % TMEM_DP_BITS).max()) // TMEM.cell_bits + 1


def allocation_ok(columns: int) -> str | None:
    """``None`` if ``tcgen05.alloc`` accepts ``columns``, else the broken rule (power of 2 in [32, 512])."""
    if columns < TMEM.alloc_min_columns or columns > TMEM.alloc_max_columns or columns & (columns - 1):
        return (f"tcgen05.alloc of {columns} columns: nCols must be a power of 2 in [{TMEM.alloc_min_columns}, "
                f"{TMEM.alloc_max_columns}]")
    return None


# -- tcgen05.cp: shared memory -> tensor memory ------------------------------------------------------------------
def copy_cells(shape: str, element_bits: int = 8, column: int = 0) -> dict[str, np.ndarray]:
    """Every ``(row, element, copy)`` of one ``tcgen05.cp`` of ``shape`` issued at TMEM column ``column`` and the
    cell it writes: arrays ``row``, ``element`` (``element_bits``-bit elements of the source row), ``copy`` (which of
    the shape's multicast copies), ``lane``, ``column`` (absolute) and ``sub`` (the element's slot in its 32-bit
    cell), evaluated from CUTLASS's ``ValID`` (``hw.tcgen05.TMEM_COPY_SHAPES``).

    Pre: ``element_bits`` in (8, 16, 32). Post: ``row < shape.rows``, ``element < row_bits / element_bits``.

    >>> c = copy_cells("4x32dp128bit", 8)
    >>> [int(x) for x in c["lane"][c["row"] == 5][:4]], int(c["column"][(c["element"] == 13)][0])
    ([5, 37, 69, 101], 3)
    """
    from layoutcheck.hw.tcgen05 import tmem_copy_shape

    if element_bits not in (8, 16, 32):
        raise LayoutError(f"tcgen05.cp moves 8-, 16- or 32-bit elements here, not {element_bits}-bit")
    s = tmem_copy_shape(shape)
    elems = s.row_bits // element_bits
    r, e, j = (x.ravel() for x in np.meshgrid(np.arange(s.rows), np.arange(elems), np.arange(s.copies),
                                              indexing="ij"))
    addr = s.val_id.offsets(np.int64)[crd2flat(s.logical(r, e * element_bits, j), s.val_id.shape)]
    col_bits = addr % TMEM_DP_BITS
    return {"row": r, "element": e, "copy": j, "lane": addr // TMEM_DP_BITS,
            "column": column + col_bits // TMEM.cell_bits, "sub": (col_bits % TMEM.cell_bits) // element_bits}


def copy_address(lane: np.ndarray | int, column: np.ndarray | int, sub: np.ndarray | int,
                 element_bits: int) -> np.ndarray | int:
    """The virtual address of an ``element_bits``-bit slot of TMEM: ``lane + 128 * (column * 32/bits + sub)`` (for
    32-bit elements CUTLASS's ``lane + 128 * column``)."""
    return lane + TMEM.lanes * (column * (TMEM.cell_bits // element_bits) + sub)
