"""Regenerate the SVG figures of docs/blackwell.md from layoutcheck's own models (run from the repository root:
``PYTHONPATH=$PWD python3 docs/img/blackwell/make_figures.py``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from layoutcheck.hw.bitfields import DescriptorFormat
from layoutcheck.hw.copy import copy_atom
from layoutcheck.hw.tcgen05 import UMMA_INSTR_DESCRIPTOR, UMMA_SMEM_DESCRIPTOR
from layoutcheck.models.tmem import TmemLoad, accumulator_layout, atom_columns, epilogue_loads, lane_column, load_cells
from layoutcheck.report.show import Grid, render_svg

OUT = Path(__file__).parent
COLOURS = ("#afafff", "#afffaf", "#ffffaf", "#ffafaf", "#d2d2ff", "#d2ffd2", "#ffffd2", "#ffd2d2", "#c8f0f0",
           "#f0c8f0", "#e6e6b4", "#b4e6e6", "#e0e0e0", "#f5deb3")


def descriptor_grid(fmt: DescriptorFormat, title: str, per_row: int = 16) -> Grid:
    """Bits of ``fmt``, most significant first, ``per_row`` to a row; each cell names its field."""
    owner = {}
    for i, f in enumerate(fmt.fields):
        for b in range(f.lo, f.hi):
            owner[b] = (f.name, i)
    text, fill = [], []
    for r in range(fmt.bits // per_row):
        hi = fmt.bits - 1 - r * per_row
        bits = range(hi, hi - per_row, -1)
        text.append([f"{b}:{owner[b][0][:9]}" if b in owner else f"{b}:-" for b in bits])
        fill.append([COLOURS[owner[b][1] % len(COLOURS)] if b in owner else "#ffffff" for b in bits])
    legend = "; ".join(f"{f.name}[{f.lo},{f.hi})" for f in fmt.fields)
    return Grid(title, text, fill, frozenset(), legend)


def datapath_grid(mma_m: int, cta_group: int, n: int, lanes: range) -> Grid:
    """TMEM lanes x columns; each cell the accumulator (m, n) stored there, coloured by the warp that may read it."""
    acc = accumulator_layout(mma_m, cta_group, n)
    cols = int(acc.offsets().max()) // 128 + 1
    text = [["" for _ in range(cols)] for _ in lanes]
    fill = [["#ffffff" for _ in range(cols)] for _ in lanes]
    mm, nn = acc.shape[0], acc.shape[1]
    msz = int(np.prod(mm)) if isinstance(mm, tuple) else mm
    nsz = int(np.prod(nn)) if isinstance(nn, tuple) else nn
    for i in range(msz * nsz):
        m, c = i % msz, i // msz
        lane, col = lane_column(int(acc(i)))
        if lane in lanes:
            text[lane - lanes.start][col] = f"{m},{c}"
            fill[lane - lanes.start][col] = COLOURS[lane // 32]
    return Grid(f"M={mma_m} cta_group::{cta_group}, N={n}: TMEM lanes {lanes.start}-{lanes.stop - 1} (rows) x "
                f"columns; cell = accumulator (m,n); colour = warp sub-partition", text, fill)


def atom_grid(name: str) -> Grid:
    """The cells one warp's issue of ``name`` reads: lanes x 32-bit columns, each cell 'T<thread>R<register>'."""
    c = load_cells(TmemLoad(name, 0, 0, 0))
    lanes, cols = int(c["lane"].max()) + 1, atom_columns(name)
    text = [["" for _ in range(cols)] for _ in range(lanes)]
    fill = [["#ffffff" for _ in range(cols)] for _ in range(lanes)]
    for t, e, lane, col in zip(c["thread"], c["element"], c["lane"], c["column"], strict=True):
        text[lane][col] = f"T{t}R{e}"
        fill[lane][col] = COLOURS[int(t) % 8]
    return Grid(f"{name} ({copy_atom(name).ptx}): lane x column -> thread, register", text, fill)


def bug_grid() -> Grid:
    """apache/tvm#20068: read counts of an M=128 accumulator when both .16x256b passes start at row 0."""
    acc = accumulator_layout(128, 1, 16)
    loads = epilogue_loads("SM100_TMEM_LOAD_16dp256b1x", (0,), (0, 0), (0, 8))
    count = np.zeros((32, 16), int)
    for ld in loads:
        c = load_cells(ld)
        np.add.at(count, (c["lane"], c["column"]), 1)
    text = [[f"{m},{n} x{count[m, n]}" for n in range(16)] for m in range(32)]
    fill = [["#afffaf" if count[m, n] == 1 else "#ffafaf" if count[m, n] == 0 else "#ffd27f" for n in range(16)]
            for m in range(32)]
    alert = frozenset((m, n) for m in range(32) for n in range(16) if count[m, n] != 1)
    del acc
    return Grid("apache/tvm#20068: warp 0, M=128 read as two .16x256b halves, both at row 0 (x = times read)", text,
                fill, alert, "rows 0-15 read twice, rows 16-31 never: tmem_exact_cover REFUTED at (0,0)")


def main() -> None:
    figs = {
        "smem_descriptor.svg": descriptor_grid(UMMA_SMEM_DESCRIPTOR, "tcgen05 shared-memory descriptor (64 bits)"),
        "instr_descriptor.svg": descriptor_grid(UMMA_INSTR_DESCRIPTOR, "tcgen05 instruction descriptor (32 bits)"),
        "datapath_D.svg": datapath_grid(128, 1, 4, range(0, 40)),
        "datapath_F.svg": datapath_grid(64, 1, 4, range(0, 40)),
        "datapath_B.svg": datapath_grid(128, 2, 8, range(56, 72)),
        "atom_32dp32b2x.svg": atom_grid("SM100_TMEM_LOAD_32dp32b2x"),
        "atom_16dp256b1x.svg": atom_grid("SM100_TMEM_LOAD_16dp256b1x"),
        "atom_16dp64b1x.svg": atom_grid("SM100_TMEM_LOAD_16dp64b1x"),
        "tvm20068.svg": bug_grid(),
    }
    for name, g in figs.items():
        (OUT / name).write_text(render_svg(g))


if __name__ == "__main__":
    main()
