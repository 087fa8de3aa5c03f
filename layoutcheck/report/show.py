"""Pictures of layouts: CuTe's ``print_layout`` grid in the terminal, and coloured SVG / HTML grids.

Three pictures, one grid each (rows = mode 0, columns = mode 1 of a rank-2 layout; a rank-1 layout is one column)::

    plain  cell (m, n) shows L(m, n)                                   (CuTe print_layout)
    tv     cell (m, n) of an M x N tile shows its owners "T5V2"        (CuTe print_latex / print_svg of a TV layout)
           tile index m + M*n; coloured by thread
    banks  cell (m, n) shows the offset and bank of L(m, n)            bank = (offset * bytes / 4) % 32
           coloured by bank; with an access kind, the first conflict (the lanes of one phase that hit one bank in
           different words) is outlined in red, each element tagged with its lane ``L<lane>``, and the elements of
           every other conflicting lane tagged ``*`` (needs ``layoutcheck.models.banks``)

Pictures are capped at ``MAX_CELLS`` cells. Notebooks: the values' ``_repr_svg_`` / ``_repr_html_`` (``Layout``,
``ComposedLayout``, ``MmaAtom``, ``TiledMMA``, ``Result``) call ``notebook_svg`` and ``tv_layouts_html`` here
(``Result``: ``report.html.result_html``, which draws the HTML report's counterexample picture), so Jupyter shows the
pictures ``show`` draws (up to ``NOTEBOOK_CELLS`` cells, else the text);
``picture(tv, tile)`` is a TV layout over its tile.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutcheck.algebra.inttuple import is_tuple
from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.errors import LayoutError
from layoutcheck.hw.banks import BANKS, bank
from layoutcheck.witness_record import owner_of

MAX_CELLS = 1 << 16

# 8 thread colours in the spirit of CuTe's print_latex (light, distinct); banks cycle through 32 hues
_THREAD_COLOURS = ("#afafff", "#afffaf", "#ffffaf", "#ffafaf", "#d2d2ff", "#d2ffd2", "#ffffd2", "#ffd2d2")


@dataclass(frozen=True, slots=True)
class Grid:
    """A rows x cols picture: ``text[m][n]`` in each cell, ``fill[m][n]`` its colour, ``alert`` cells outlined."""

    title: str
    text: list[list[str]]
    fill: list[list[str]]
    alert: frozenset[tuple[int, int]] = frozenset()
    legend: str = ""

    @property
    def rows(self) -> int:
        return len(self.text)

    @property
    def cols(self) -> int:
        return len(self.text[0]) if self.text else 0

    def _repr_svg_(self) -> str:
        """Jupyter shows a picture as its SVG."""
        return render_svg(self)


def _inner(x: Layout | ComposedLayout) -> Layout:
    return x.layout if isinstance(x, ComposedLayout) else x


def grid_shape(x: Layout | ComposedLayout) -> tuple[int, int]:
    """(rows, cols) of the picture of ``x``: its two modes' sizes (rank 1: one column)."""
    lay = _inner(x)
    if not is_tuple(lay.shape) or len(lay) == 1:
        return size(lay), 1
    if len(lay) != 2:
        raise LayoutError(f"show draws rank-1 or rank-2 layouts, found rank {len(lay)}: {x}")
    return size(lay[0]), size(lay[1])


def _check_cells(rows: int, cols: int) -> None:
    if rows * cols > MAX_CELLS:
        raise LayoutError(f"a {rows}x{cols} picture has {rows * cols} cells, over the limit of {MAX_CELLS}")


def offsets_grid(x: Layout | ComposedLayout) -> np.ndarray:
    """``L(m, n)`` as a rows x cols array."""
    rows, cols = grid_shape(x)
    _check_cells(rows, cols)
    return x.offsets().reshape(cols, rows).T


def plain_grid(x: Layout | ComposedLayout) -> Grid:
    """CuTe's print_layout: each cell holds ``L(m, n)``.

    >>> plain_grid(Layout((2, 2), (1, 2))).text
    [['0', '2'], ['1', '3']]
    """
    offs = offsets_grid(x)
    text = [[str(int(v)) for v in row] for row in offs]
    fill = [["#ffffff"] * len(row) for row in offs]
    return Grid(str(x), text, fill)


def tv_grid(tv: Layout | ComposedLayout, rows: int, cols: int) -> Grid:
    """Each cell of an M x N tile shows its owners ``T<t>V<v>`` (the TV layout maps to ``m + M*n``)."""
    from layoutcheck.report.vectors import from_tv

    _check_cells(rows, cols)
    own = from_tv("show", tv, (rows, cols))
    text: list[list[str]] = [[""] * cols for _ in range(rows)]
    fill: list[list[str]] = [["#ffffff"] * cols for _ in range(rows)]
    alert: set[tuple[int, int]] = set()
    nt = own.num_threads
    for m in range(rows):
        for n in range(cols):
            e = m + rows * n
            pairs = [owner_of(i, nt) for i in own.owner[own.owner_start[e]:own.owner_start[e + 1]].tolist()]
            text[m][n] = " ".join(f"T{t}V{v}" for t, v in pairs[:2]) + (" +" if len(pairs) > 2 else "")
            if pairs:
                fill[m][n] = _THREAD_COLOURS[pairs[0][0] % len(_THREAD_COLOURS)]
            if len(pairs) != 1:
                alert.add((m, n))  # missed or owned more than once
    legend = "cells outlined in red are owned by no (thread, value) or by several" if alert else ""
    return Grid(f"TV {tv} over a {rows}x{cols} tile", text, fill, frozenset(alert), legend)


def bank_of(offsets: np.ndarray, dtype_bits: int) -> np.ndarray:
    """Bank of each element offset: ``(offset * bytes // 4) % 32`` (sub-word elements share their word's bank).

    >>> bank_of(np.array([0, 1, 2, 64]), 16).tolist()
    [0, 0, 1, 0]
    """
    return bank(offsets * dtype_bits // 8)


def _bank_colour(b: int) -> str:
    import colorsys

    r, g, bl = colorsys.hls_to_rgb((b * 11 % BANKS) / BANKS, 0.82, 0.75)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(bl * 255):02x}"


def banks_grid(x: Layout | ComposedLayout, dtype_bits: int, conflicts: frozenset[tuple[int, int]] = frozenset(),
               note: str = "", tags: dict[tuple[int, int], str] | None = None) -> Grid:
    """Each cell shows ``offset`` and ``b<bank>`` (and its tag, e.g. the lane ``L3``), coloured by bank;
    ``conflicts`` cells are outlined."""
    offs = offsets_grid(x)
    banks = bank_of(offs, dtype_bits)
    tags = tags or {}
    text = [[f"{int(o)} b{int(b)}" + (f" {tags[m, n]}" if (m, n) in tags else "")
             for n, (o, b) in enumerate(zip(orow, brow, strict=True))]
            for m, (orow, brow) in enumerate(zip(offs, banks, strict=True))]
    fill = [[_bank_colour(int(b)) for b in brow] for brow in banks]
    return Grid(f"banks of {x} ({dtype_bits}-bit elements)", text, fill, conflicts, note)


# -- renderers ----------------------------------------------------------------------------------------------------
def render_text(g: Grid) -> str:
    """CuTe print_layout style: a bordered grid with row and column indices."""
    w = max([len(t) for row in g.text for t in row] + [len(str(g.cols - 1)), 1])
    rw = len(str(g.rows - 1))
    sep = " " * (rw + 1) + "+" + "+".join(["-" * (w + 2)] * g.cols) + "+"
    head = " " * (rw + 1) + " " + " ".join(f" {c:>{w}} " for c in range(g.cols))
    out = [g.title, head, sep]
    for m, row in enumerate(g.text):
        cells = "|".join(f" {t:>{w}}{'!' if (m, n) in g.alert else ' '}" for n, t in enumerate(row))
        out.append(f"{m:>{rw}} |{cells}|")
        out.append(sep)
    if g.legend:
        out.append(("'!' marks: " if g.alert else "") + g.legend)
    return "\n".join(out)


def render_svg(g: Grid) -> str:
    """A standalone SVG: one rectangle per cell, its text centred, index labels on the top and left."""
    cw = max(28, 7 * max(len(t) for row in g.text for t in row) + 10)
    ch, left, top = 20, 34, 44
    text_w = 8 * max(len(g.title), len(g.legend)) + left
    width, height = max(left + cw * g.cols + 10, text_w), top + ch * g.rows + (30 if g.legend else 10)
    e = html.escape
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="monospace" font-size="11">',
             f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
             f'<text x="{left}" y="16" font-size="13">{e(g.title)}</text>']
    for n in range(g.cols):
        parts.append(f'<text x="{left + n * cw + cw / 2}" y="{top - 6}" text-anchor="middle">{n}</text>')
    for m in range(g.rows):
        y = top + m * ch
        parts.append(f'<text x="{left - 6}" y="{y + 14}" text-anchor="end">{m}</text>')
        for n in range(g.cols):
            x = left + n * cw
            stroke = ('stroke="#e00000" stroke-width="2.5"' if (m, n) in g.alert else 'stroke="#000000" '
                      'stroke-width="0.5"')
            parts.append(f'<rect x="{x}" y="{y}" width="{cw}" height="{ch}" fill="{g.fill[m][n]}" {stroke}/>')
            parts.append(f'<text x="{x + cw / 2}" y="{y + 14}" text-anchor="middle">{e(g.text[m][n])}</text>')
    for m, n in sorted(g.alert):  # draw outlines last so neighbours do not paint over them
        parts.append(f'<rect x="{left + n * cw}" y="{top + m * ch}" width="{cw}" height="{ch}" fill="none" '
                     f'stroke="#e00000" stroke-width="2.5"/>')
    if g.legend:
        parts.append(f'<text x="{left}" y="{height - 10}" fill="#c00000">{e(g.legend)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def render_html(g: Grid) -> str:
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(g.title)}</title></head>\n"
            f"<body>\n{render_svg(g)}</body></html>\n")


# -- the command ----------------------------------------------------------------------------------------------------
def build_grid(expr: str, tv: tuple[int, int] | None, banks: str | None, access: str | None) -> Grid:
    from layoutcheck.algebra.notation import parse_layout

    x = parse_layout(expr)
    if tv and banks:
        raise LayoutError("show: --tv and --banks draw different pictures; pick one")
    if tv:
        return tv_grid(x, tv[0], tv[1])
    if banks:
        from layoutcheck.spec.values import DTYPE_BITS

        bits = DTYPE_BITS.get(banks.lower())
        if bits is None:
            raise LayoutError(f"show --banks: unknown dtype {banks!r} (known: {', '.join(DTYPE_BITS)})")
        conflicts, note, tags = access_conflicts(x, bits, access) if access else (frozenset(), "", {})
        return banks_grid(x, bits, conflicts, note, tags)
    if access:
        raise LayoutError("show: --access goes with --banks DTYPE")
    return plain_grid(x)


def access_conflicts(x: Any, bits: int, access: Any) -> tuple[frozenset[tuple[int, int]], str, dict[tuple[int, int],
                                                                                              str]]:
    """Which elements pair up in a bank conflict, as the bank model counts it (``conflict_lanes``: per phase, or per
    merged group for 64/128-bit loads whose phases merge), so the picture agrees with the verdict.

    Returns (outlined cells, legend, tags): the first conflict -- the first instruction and phase (or merged group)
    with one, its worst bank (``breakdown``) -- is outlined and each of its cells tagged with its lane ``L<lane>``, so
    the lanes that pair up are named even where every phase conflicts; the elements of every other conflicting lane
    are tagged ``*``. ``access`` is a kind name (the canonical tile access, ``default_access``) or an ``Access``.
    """
    from layoutcheck.models.banks import access as bk
    from layoutcheck.models.banks.model import breakdown, conflict_lanes

    acc = access if isinstance(access, bk.Access) else bk.default_access(x, access, bits)
    addrs = bk.byte_addresses(x, acc)
    flags = conflict_lanes(acc.kind, addrs)
    rows, _ = grid_shape(x)

    def cells(i: int, lanes: Any) -> list[tuple[tuple[int, int], int]]:
        return [((int(e) % rows, int(e) // rows), int(ln)) for ln in lanes for e in acc.elems[i, ln] if e >= 0]

    if not flags.any():
        return frozenset(), f"no bank conflicts under {acc.kind}", {}
    i = int(np.argwhere(flags.any(axis=1))[0][0])
    first = next(p for p in breakdown(acc.kind, addrs[i]) if len(p.words) > 1)
    tags = {c: "*" for n in range(flags.shape[0]) for c, _ in cells(n, np.flatnonzero(flags[n]))}
    outlined = cells(i, first.bank_lanes)
    lanes_of: dict[tuple[int, int], list[int]] = {}
    for c, ln in outlined:
        lanes_of.setdefault(c, []).append(ln)
    tags |= {c: "L" + ",".join(map(str, sorted(set(lns)))) for c, lns in lanes_of.items()}
    phases = sum(len(p.words) > 1 for n in np.flatnonzero(flags.any(axis=1)) for p in breakdown(acc.kind, addrs[n]))
    legend = (f"outlined: instruction {i}, {first.label}: lanes {list(first.bank_lanes)} (tags L<lane>) hit bank "
              f"{first.bank} with {len(first.words)} distinct words -- 1 of {phases} conflicting phase(s) under "
              f"{acc.kind}; '*' marks the elements of the other conflicting lanes")
    return frozenset(c for c, _ in outlined), legend, tags


def run_show(expr: str, tv: tuple[int, int] | None = None, banks: str | None = None, access: str | None = None,
             svg: str | None = None, html: str | None = None) -> str:
    """``layoutcheck show``: the terminal grid, or write SVG (``svg``) / HTML (``html``) and say where.

    >>> print(run_show("(2,2):(1,2)"))  # doctest: +NORMALIZE_WHITESPACE
    (2,2):(1,2)
        0   1
      +---+---+
    0 | 0 | 2 |
      +---+---+
    1 | 1 | 3 |
      +---+---+
    """
    from layoutcheck.report.verdicts import atomic_open

    g = build_grid(expr, tv, banks, access)
    for path, render in ((svg, render_svg), (html, render_html)):
        if path:
            with atomic_open(path) as f:
                f.write(render(g))
            return f"wrote {g.rows}x{g.cols} picture of {g.title} -> {path}"
    return render_text(g)


# -- notebooks (Jupyter calls the values' _repr_svg_ / _repr_html_, which call these) ------------------------------
NOTEBOOK_CELLS = 4096
"""A notebook draws pictures up to this many cells; a larger value shows its text repr."""


def picture(x: Layout | ComposedLayout, tile: tuple[int, ...] | None = None) -> Grid:
    """The picture ``show`` draws: the layout's grid, or with ``tile`` ``(M, N)`` (or ``(M,)``) the TV layout ``x``
    over that tile (each cell naming its owners ``T<t>V<v>``).

    >>> picture(Layout((2, 2), (1, 2))).text, picture(Layout((2, 2), (1, 2)), (2, 2)).text[1]
    ([['0', '2'], ['1', '3']], ['T1V0', 'T1V1'])
    """
    if tile is None:
        return plain_grid(x)
    rows, cols = (tile[0], tile[1]) if len(tile) > 1 else (tile[0], 1)
    return tv_grid(x, rows, cols)


def notebook_svg(x: Layout | ComposedLayout, tile: tuple[int, ...] | None = None) -> str | None:
    """The SVG of ``picture(x, tile)``, or ``None`` (Jupyter then shows the text) when it cannot be drawn: rank
    above 2, more than ``NOTEBOOK_CELLS`` cells, a TV layout that leaves its tile."""
    try:
        rows, cols = (tile[0], tile[1] if len(tile) > 1 else 1) if tile else grid_shape(x)
        if rows * cols > NOTEBOOK_CELLS:
            return None
        return render_svg(picture(x, tile))
    except LayoutError:
        return None


def _svg_or_why(x: Any, tile: tuple[int, ...] | None) -> str:
    svg = notebook_svg(x, tile)
    return svg if svg is not None else f"<p><i>{html.escape(str(x))}: no picture (rank above 2, a TV layout that " \
                                       f"leaves its tile, or over {NOTEBOOK_CELLS} cells)</i></p>"


def tv_layouts_html(title: str, parts: list[tuple[str, Any, tuple[int, ...]]]) -> str:
    """HTML for a value made of TV layouts (an MMA atom, a tiled MMA): ``title``, then per ``(label, tv, tile)`` a
    heading and the TV picture over the tile, as CuTe's ``print_svg`` draws A, B and C."""
    out = [f"<div><b>{html.escape(title)}</b>"]
    for label, tv, tile in parts:
        out.append(f"<div><b>{html.escape(label)}</b> {html.escape(str(tv))} over "
                   f"{'x'.join(map(str, tile))}</div>{_svg_or_why(tv, tile)}")
    return "\n".join(out) + "</div>"


def mma_parts(tv_a: Any, tv_b: Any, tv_c: Any, m: int, n: int, k: int) -> list[tuple[str, Any, tuple[int, ...]]]:
    """The (label, TV layout, tile) of an MMA's operands: A over M x K, B over N x K, C over M x N."""
    return [("A", tv_a, (m, k)), ("B", tv_b, (n, k)), ("C", tv_c, (m, n))]
