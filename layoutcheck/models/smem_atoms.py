"""Which GMMA shared-memory atom a tile gets, and the global-memory runs behind a warp's copy into it (seed 003
section 5; findings in ``docs/banks.md``, "Seed findings").

``choose_smem_atom`` is CUTLASS's builder rule: the largest swizzle atom whose contiguous width DIVIDES the tile's
contiguous extent. ``gmem_runs`` inverts the swizzled atom to find, for each warp copy of consecutive smem bytes,
the contiguous runs of the unswizzled GMEM tile it reads, and the 32-byte sectors and 128-byte lines they touch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutcheck.algebra.layout import size
from layoutcheck.errors import LayoutError
from layoutcheck.hw.gmem import LINE_BYTES, SECTOR_BYTES  # re-exported through layoutcheck.banks
from layoutcheck.hw.smem import SWIZZLE_SPAN_BYTES, SmemAtom, gmma_smem_atom

_SELECTOR_ORDER = ("SW128", "SW64", "SW32", "INTER")
"""Largest first, as CUTLASS tries them: ``include/cutlass/gemm/collective/builders/sm90_common.inl``
(``ss_smem_selector``) and ``sm100_common.inl`` (``sm100_smem_selector``, the same rule for 8/16-bit and K-major;
its MN-major 32-bit case, ``Layout_MN_SW128_32B_Atom`` only, is an SM100 atom not modelled here)."""


def choose_smem_atom(major: str, dtype_bits: int, contiguous_extent_elems: int) -> SmemAtom:
    """The GMMA smem atom CUTLASS's builders pick: the largest one whose width DIVIDES the tile's contiguous extent.

    Pre: ``contiguous_extent_elems`` (BLK_K for K-major, BLK_MN for MN-major, in elements) is a positive multiple of
    8 (CUTLASS ``static_assert``) and of the INTER atom's width (16 bytes).
    Post: ``contiguous_extent_elems % width == 0`` for the result's contiguous width, and no larger mode divides.

    >>> choose_smem_atom("K", 16, 96).mode  # 192 bytes: 128 does not divide 192, 64 does
    'SW64'
    """
    if contiguous_extent_elems <= 0 or contiguous_extent_elems % 8:
        raise LayoutError(f"contiguous extent {contiguous_extent_elems} elements: CUTLASS's smem selector needs a "
                          "positive multiple of 8")
    for mode in _SELECTOR_ORDER:
        atom = gmma_smem_atom(major, mode, dtype_bits)
        if contiguous_extent_elems % _contiguous_width(atom) == 0:
            return atom
    raise LayoutError(f"contiguous extent {contiguous_extent_elems} {dtype_bits}-bit elements is not a multiple of "
                      f"the {SWIZZLE_SPAN_BYTES['INTER']}-byte INTER atom width ({_contiguous_width(atom)} elements)")


def _contiguous_width(atom: SmemAtom) -> int:
    """Elements of the atom along its contiguous mode (K for K-major, MN for MN-major)."""
    rows, cols = atom.layout.shape
    return cols if atom.major == "K" else rows


@dataclass(frozen=True, slots=True)
class GmemRuns:
    """What GMEM a warp reads to fill ``warp_bytes`` consecutive smem bytes of a swizzled atom (one ``st.shared``
    per lane, conflict-free), every such copy of the atom: contiguous GMEM runs (bytes), 32-byte sectors and
    128-byte lines per copy. GMEM is the same tile unswizzled (same major-ness, rows ``pitch`` bytes apart, rows and
    the tile 128-byte aligned, ``pitch`` > atom width so rows are not adjacent)."""

    atom: SmemAtom
    warp_bytes: int
    runs: tuple[int, ...]
    sectors: int
    lines: int

    @property
    def request_bytes(self) -> int:
        """The seed's "GMEM request size": the shortest contiguous GMEM run behind one warp copy."""
        return min(self.runs)

    @property
    def sector_efficiency(self) -> float:
        """Useful bytes / bytes of the 32-byte sectors the warp copy touches (1.0: no sector partly wasted)."""
        return self.warp_bytes / (self.sectors * SECTOR_BYTES)


def gmem_runs(atom: SmemAtom, warp_bytes: int = 128, pitch_bytes: int = 1 << 16) -> GmemRuns:
    """GMEM runs, sectors and lines behind each warp copy of ``warp_bytes`` consecutive bytes of ``atom``'s smem.

    Computed from the layout: smem offset -> (row, contiguous coordinate) by inverting ``atom.composed``, then GMEM
    byte ``row * pitch + coordinate * e``. Pre: ``warp_bytes`` divides the atom's bytes; ``pitch_bytes`` a multiple
    of 128 larger than the atom width.

    >>> gmem_runs(choose_smem_atom("K", 16, 32), 128).request_bytes  # K = 64 bytes of bf16: SW64, 64-byte runs
    64
    """
    e = atom.dtype_bits // 8
    n = size(atom.layout)
    if warp_bytes <= 0 or (n * e) % warp_bytes or warp_bytes % e:
        raise LayoutError(f"{atom.name}: a warp copy of {warp_bytes} bytes does not tile the {n * e}-byte atom")
    if pitch_bytes % LINE_BYTES or pitch_bytes <= atom.span_bytes:
        raise LayoutError(f"GMEM pitch {pitch_bytes} bytes: expected a multiple of {LINE_BYTES} larger than the "
                          f"{atom.span_bytes}-byte atom row")
    rows, _ = atom.layout.shape
    idx = np.argsort(atom.composed.offsets())  # smem element offset -> domain index (the atom is a bijection)
    r, c = idx % rows, idx // rows
    line, pos = (r, c) if atom.major == "K" else (c, r)
    gaddr = (line * pitch_bytes + pos * e).reshape(-1, warp_bytes // e)
    runs: list[int] = []
    sectors = lines = 0
    for g in np.sort(gaddr, axis=1):
        breaks = np.flatnonzero(np.diff(g) != e)
        runs += (np.diff(np.r_[-1, breaks, len(g) - 1]) * e).tolist()
        sectors = max(sectors, len(np.unique(g // SECTOR_BYTES)))
        lines = max(lines, len(np.unique(g // LINE_BYTES)))
    return GmemRuns(atom, warp_bytes, tuple(sorted(set(runs))), sectors, lines)
