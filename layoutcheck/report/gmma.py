"""A picture of one wgmma operand stage in shared memory: where each 16-byte chunk lives, which wgmma K-block reads
it, and the descriptor fields that say so (``docs/hopper.md``).

Cell ``(mn, c)`` is the 16-byte chunk ``c`` along K of row ``mn`` (K-major stages only); its text is the byte offset
the stage layout gives it (``+o``, swizzle included), its colour the K-block (the 32 bytes one dense wgmma reads).
"""

from __future__ import annotations

from layoutcheck.algebra.layout import size
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.errors import LayoutError
from layoutcheck.hw.wgmma import GMMA_DESCRIPTOR
from layoutcheck.models.gmma import element_bytes, gmma_blocks, gmma_descriptor
from layoutcheck.report.show import Grid

_KBLOCK_COLOURS = ("#afafff", "#afffaf", "#ffffaf", "#ffafaf", "#d2d2ff", "#d2ffd2", "#ffffd2", "#ffd2d2")


def descriptor_grid(stage: ComposedLayout, dtype: str, rows: int = 16, block_mn: int | None = None) -> Grid:
    """The first ``rows`` rows of a K-major ``(MN, K)`` stage at 16-byte granularity, with block 0's descriptor.

    >>> from layoutcheck.models.tma import mma_smem_layout
    >>> g = descriptor_grid(mma_smem_layout("K", "128B", "float16", (64, 64)), "f16", 2)
    >>> g.text[1][:3]
    ['+144', '+128', '+176']
    """
    e = element_bytes(dtype)
    lay = stage.layout if isinstance(stage, ComposedLayout) else stage
    mn, k = size(lay[0]), size(lay[1])
    t = 16 // e
    if k % t or rows > mn:
        raise LayoutError(f"descriptor_grid: a K-major stage of whole 16-byte chunks and at least {rows} rows")
    blocks = gmma_blocks(stage, dtype, block_mn)
    d0 = gmma_descriptor(blocks.block_layout(), dtype, "K")
    kb = 32 // e
    text = [[f"+{e * int(stage(r + mn * c * t))}" for c in range(k // t)] for r in range(rows)]
    fill = [[_KBLOCK_COLOURS[(c * t // kb) % len(_KBLOCK_COLOURS)] for c in range(k // t)] for r in range(rows)]
    start = GMMA_DESCRIPTOR.field("start_address")
    steps = ", ".join(f"{start.stored(e * blocks.block_offset(r))}" for r in range(min(blocks.count, 4)))
    title = (f"{stage} ({dtype}, K-major): byte of each 16-B chunk (row = MN, column = K chunk); colour = wgmma "
             f"K-block")
    legend = (f"block 0: {d0} = {d0.value:#018x}; K-block j: start address += {steps}, ... (x16 bytes)")
    return Grid(title, text, fill, frozenset(), legend)
