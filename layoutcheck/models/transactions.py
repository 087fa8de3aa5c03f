"""Global-memory transactions of a partition: 32-byte sectors and 128-byte lines per warp-wide vector instruction.

Model. Threads ``32w .. 32w+31`` form warp ``w`` (CUDA's linear ``threadIdx.x`` equals the CuTe thread index, i.e.
the value of ``thr_layout_vmnk``). Every thread owns the same value layout ``L`` (value -> offset) at its own base
offset (CuTe partitions differ only in the base). Each thread moves its values as vectors of ``w`` elements:

* ``run = size(right_inverse(filter(L)))`` -- the longest run of the thread's values at consecutive offsets starting
  at its base (max_common_vector against a register fragment ordered like ``L``);
* ``w`` = the largest power of two dividing ``run`` with ``w * element_bytes <= 16`` (the widest LDG/STG is 128 bits)
  and every thread's base a multiple of ``w`` (alignment; the tensor itself is assumed 128-byte aligned).

Instruction ``j`` of a warp is every lane's ``j``-th vector (vectors taken in value order). It touches the sectors
``floor(byte_address / 32)`` and lines ``floor(byte_address / 128)`` of its lanes' vectors (an aligned vector of at
most 16 bytes never straddles a sector). The ideal for ``32 * w * element_bytes`` bytes is that many bytes divided
by 32 (sectors) or 128 (lines), rounded up. Everything is computed from the layouts; nothing is tabled by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.ops import filter, right_inverse
from layoutcheck.errors import LayoutError
from layoutcheck.hw.gmem import LINE_BYTES, MAX_VECTOR_BYTES, SECTOR_BYTES, WARP_SIZE
from layoutcheck.models.tiled_mma import TiledMMA, ownership


@dataclass(frozen=True, slots=True, eq=False)
class TransactionReport:
    """Sectors and lines per (warp, instruction); ``str`` gives the one-line summary."""

    element_bytes: int
    vector_width: int  # elements per lane per instruction
    contiguous_run: int  # longest contiguous run of a thread's values (elements)
    sectors: np.ndarray  # (warps, instructions)
    lines: np.ndarray  # (warps, instructions)

    @property
    def vector_bytes(self) -> int:
        return self.vector_width * self.element_bytes

    @property
    def instructions_per_warp(self) -> int:
        return int(self.sectors.shape[1])

    @property
    def ideal_sectors(self) -> int:
        """Per instruction."""
        return -(-WARP_SIZE * self.vector_bytes // SECTOR_BYTES)

    @property
    def ideal_lines(self) -> int:
        return -(-WARP_SIZE * self.vector_bytes // LINE_BYTES)

    @property
    def sectors_per_instruction(self) -> float:
        return float(self.sectors.mean())

    @property
    def lines_per_instruction(self) -> float:
        return float(self.lines.mean())

    @property
    def sector_efficiency(self) -> float:
        """Ideal sectors / sectors touched, over all instructions (1.0 = perfectly coalesced)."""
        return self.ideal_sectors * self.sectors.size / float(self.sectors.sum())

    @property
    def line_efficiency(self) -> float:
        return self.ideal_lines * self.lines.size / float(self.lines.sum())

    def __str__(self) -> str:
        return (f"{self.vector_bytes * 8}-bit x {self.instructions_per_warp} instr/warp: "
                f"{self.sectors_per_instruction:g} sectors (ideal {self.ideal_sectors}), "
                f"{self.lines_per_instruction:g} lines (ideal {self.ideal_lines}) per instruction; "
                f"sector efficiency {self.sector_efficiency:.0%}")


def contiguous_run(values: Layout) -> int:
    """Longest run ``0..r-1`` of consecutive offsets in the image of a thread's value layout (from its base).

    >>> contiguous_run(Layout((1,(4,2),(4,2)),(0,(128,8192),(1,64))))
    4
    """
    return size(right_inverse(filter(values)))


def vector_width(values: Layout, bases: np.ndarray, element_bytes: int, limit_bytes: int = MAX_VECTOR_BYTES) -> int:
    """Largest power-of-two ``w`` dividing the contiguous run, ``w*element_bytes <= limit_bytes``, all bases aligned."""
    run = contiguous_run(values)
    w = 1
    while (run % (2 * w) == 0 and 2 * w * element_bytes <= limit_bytes
           and np.all(bases % (2 * w) == 0)):
        w *= 2
    return w


def warp_transactions(offsets: np.ndarray, element_bytes: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Sectors and lines per (warp, instruction) for ``offsets[thread, value]`` (elements) moved ``width`` at a time.

    Pre: thread count a multiple of 32; within each thread, every aligned group of ``width`` offsets is owned whole.
    """
    t, v = offsets.shape
    if t % WARP_SIZE:
        raise LayoutError(f"{t} threads is not a whole number of warps of {WARP_SIZE}")
    chunks = np.sort(offsets // width, axis=1)
    if v % width or not np.all(chunks.reshape(t, v // width, width) == chunks[:, ::width, None]):
        raise LayoutError(f"values are not in aligned vectors of {width} elements owned whole by one thread")
    starts_mask = offsets % width == 0
    starts = offsets[starts_mask].reshape(t, v // width)  # vector j of thread t, in value order
    by_warp = (starts * element_bytes).reshape(t // WARP_SIZE, WARP_SIZE, v // width)
    return _distinct(by_warp // SECTOR_BYTES), _distinct(by_warp // LINE_BYTES)


def _distinct(ids: np.ndarray) -> np.ndarray:
    """Number of distinct ids along axis 1 (the lanes) of a (warps, lanes, steps) array."""
    s = np.sort(ids, axis=1)
    return 1 + (np.diff(s, axis=1) != 0).sum(axis=1)


def partition_transactions(tiled: TiledMMA, operand: str, tensor: Layout, element_bytes: int,
                           width: int | None = None) -> TransactionReport:
    """Transactions of every warp loading/storing its ``partition_<operand>(tensor)`` from/to global memory.

    ``width`` forces a vector width (e.g. 1: scalar accesses in value order); default: the widest available.

    >>> from layoutcheck.models.tiled_mma import make_tiled_mma
    >>> t = make_tiled_mma("UniversalFMA", Layout((16,16),(16,1)), (Layout((16,4),(4,1)), Layout((16,4),(4,1))))
    >>> str(partition_transactions(t, "C", Layout((128,128),(128,1)), 4))
    '128-bit x 16 instr/warp: 16 sectors (ideal 16), 4 lines (ideal 4) per instruction; sector efficiency 100%'
    """
    if element_bytes <= 0:
        raise LayoutError(f"element_bytes must be positive, found {element_bytes}")
    own = ownership(tiled, operand, tensor)
    offsets = own.offset_of.astype(np.int64)
    if np.any(offsets < 0):
        raise LayoutError(f"tensor {tensor} has negative offsets; transactions need a non-negative layout")
    values = getattr(tiled.get_slice(0), f"partition_{operand}")(tensor).layout
    run = contiguous_run(values)
    bases = offsets.min(axis=1)
    if width is None:
        width = vector_width(values, bases, element_bytes)
    elif width <= 0 or run % width or np.any(bases % width):
        raise LayoutError(f"vector width {width} is not available: contiguous run {run}, bases must be aligned")
    sectors, lines = warp_transactions(offsets, element_bytes, width)
    return TransactionReport(element_bytes, width, run, sectors, lines)
