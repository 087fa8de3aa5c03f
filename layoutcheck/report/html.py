"""The HTML report of ``layoutcheck check --html FILE``: one self-contained page (inline CSS and SVG, no script, no
network) with the verdict table and, for every REFUTED row, a picture of its counterexample.

Pictures reuse ``layoutcheck.report.show`` (one drawing code for ``show`` and reports):

    ==================  =============================================================================================
    counterexample      picture
    ==================  =============================================================================================
    exact_cover         the tile, each cell naming its owners ``T<t>V<v>``; missed and doubly owned cells outlined
    conflict_free       lanes x banks of the conflicting instruction: the word each lane touches in each bank; the
                        lanes of the conflicting bank in the witness's phase outlined (the legend names the phase)
    tma_compatible      the shared-memory tile: the misplaced element (tagged ``src``) and the element the layout
                        keeps at the byte TMA writes it to (tagged ``dst``) outlined
    other layout claims the layout's grid with the witness indices outlined (a collision, an offset out of range)
    ==================  =============================================================================================

A row is plain data, so the picture is rebuilt from its spec (file, config, property) and the witness in
``counterexample_data``; a picture that cannot be drawn (too large, a spec changed since) is replaced by one line
saying why (in words: no exception class names). The header names the spec paths, the layoutcheck version, the date
(UTC) and the exit code. Each REFUTED row has an anchor ``#row-N`` and a ``data-status`` attribute, for tests and
links.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from layoutcheck.check_row import Row, exit_code
from layoutcheck.report.show import (
    MAX_CELLS,
    NOTEBOOK_CELLS,
    Grid,
    _bank_colour,
    grid_shape,
    plain_grid,
    render_svg,
    tv_grid,
)
from layoutcheck.report.verdicts import atomic_open, summary
from layoutcheck.spec.schema import PROPERTY_SPECS

MAX_PICTURE_CELLS = 4096
"""Pictures larger than this many cells are described, not drawn (a report stays a few MB at most)."""

_CSS = """body{font-family:system-ui,sans-serif;margin:1.5em;color:#111}
table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:2px 8px;text-align:left;font-size:13px}
.PROVEN{background:#d8f5d8}.REFUTED{background:#ffd6d6}.UNKNOWN{background:#fff2c4}.ERROR{background:#f0d8ff}
.detail{font-family:monospace;font-size:12px;white-space:pre-wrap}section{margin:1.2em 0}
h2{font-size:16px;margin:0.3em 0}.why{color:#555;font-style:italic}#run{color:#333;font-size:13px}"""


class NoPicture(Exception):
    """A counterexample whose picture is not drawn, and why, in words (too many cells, the spec changed)."""


def to_html(rows: Sequence[Row], when: datetime | None = None, gpu: Any = None) -> str:
    """The whole page for ``rows`` (``when``: the date in the header, default now; ``gpu``: a
    ``report.gpu_results.GpuResults`` whose confirmed REFUTED rows say "confirmed on <device>")."""
    return "\n".join(_page(rows, when, gpu)) + "\n"


def _page(rows: Sequence[Row], when: datetime | None = None, gpu: Any = None) -> Iterator[str]:
    """The lines of ``to_html``, one at a time (``rows`` read three times: files, table, pictures)."""
    from layoutcheck.version import __version__

    e = html.escape
    s = summary(rows)
    head = ", ".join(f"{n} {k.lower()}" for k, n in s.items())
    files = list(dict.fromkeys(r.file for r in rows))
    stamp = (when or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    yield from ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
                "<title>layoutcheck report</title>", f"<style>{_CSS}</style></head><body>",
                f"<h1>layoutcheck: {len(rows)} checks, exit {exit_code(rows)}</h1>", f'<p id="summary">{e(head)}</p>',
                f'<p id="run">layoutcheck {e(__version__)} &middot; {e(stamp)} &middot; exit code '
                f'<span id="exit">{exit_code(rows)}</span> &middot; specs: '
                + ", ".join(f"<code>{e(f)}</code>" for f in files) + "</p>",
                '<table id="verdicts"><thead><tr><th>file:line</th><th>config</th><th>property</th><th>verdict</th>'
                "<th>engine</th><th>detail</th></tr></thead><tbody>"]
    for n, r in enumerate(rows):
        detail = r.counterexample if r.status == "REFUTED" else (r.reason or "")
        link = f'<a href="#row-{n}">{e(r.status)}</a>' if r.status == "REFUTED" else e(r.status)
        note = gpu.note(r) if gpu is not None else ""
        link += f' <span class="gpu" data-gpu="confirmed">{e(note)}</span>' if note else ""
        yield (f'<tr class="{r.status}" data-status="{r.status}"><td>{e(r.file)}:{r.line}</td>'
               f"<td>{e(r.config)}</td><td>{e(r.property)}</td><td>{link}</td><td>{e(r.engine)}</td>"
               f'<td class="detail">{e(detail or "")}</td></tr>')
    yield "</tbody></table>"
    for n, r in enumerate(rows):
        if r.status != "REFUTED":
            continue
        yield (f'<section id="row-{n}" class="counterexample" data-status="REFUTED">'
               f"<h2>{e(r.config)} / {e(r.property)} ({e(r.file)}:{r.line})</h2>"
               f'<p class="detail">{e(r.counterexample or "")}</p>')
        try:
            grid = picture(r)
        except NoPicture as exc:
            grid, why = None, f"no picture: {exc}"
        except Exception as exc:  # a picture is a courtesy: the verdict stands without it
            grid, why = None, f"no picture: it could not be drawn ({' '.join(str(exc).split())[:200]})"
        else:
            why = "no picture for this kind of counterexample" if grid is None else ""
        yield render_svg(grid) if grid is not None else f'<p class="why">{e(why)}</p>'
        yield "</section>"
    yield "</body></html>"


def write_html(rows: Sequence[Row], path: str, gpu: Any = None) -> None:
    with atomic_open(path) as f:
        for line in _page(rows, gpu=gpu):  # a line at a time: the page of a large run is never one string
            f.write(line + "\n")


# -- pictures ---------------------------------------------------------------------------------------------------------
def picture(row: Row) -> Grid | None:
    """The picture of a REFUTED row's counterexample, or ``None`` when its kind has none."""
    from layoutcheck.check import row_property  # the property the row decided, by the check's own road

    try:
        prop = row_property(row)
    except LookupError as e:  # the file changed since the run
        raise NoPicture(str(e)) from None
    return witness_picture(prop, row.counterexample_data, row.counterexample or "")


def witness_picture(prop: Any, w: dict[str, Any], text: str = "") -> Grid | None:
    """The picture of a claim's counterexample ``w`` (its ``data``; ``text`` its words), or ``None`` when its kind
    has none (the table in the module docstring); ``NoPicture`` when it is too large. Which picture a claim gets is
    the registry's ``PropertySpec.picture`` (``PICTURES``); a picture that does not fit the witness falls back to
    the generic ones (a misaligned lane's coordinate, the witness indices)."""
    if w.get("kind") == "misaligned" and "coord" in w:  # a bank claim's lane (witness.Misaligned)
        return _outlined(prop.subjects()[0], [], f"misaligned: {text}", coords=[tuple(w["coord"])])
    spec = PROPERTY_SPECS.get(getattr(prop, "name", ""))
    draw = PICTURES.get(spec.picture) if spec is not None else None
    got = draw(prop, w) if draw is not None else None
    if got is not None:
        return got
    idx = [int(w[k]) for k in ("i", "j") if isinstance(w.get(k), int)]
    if idx:
        return _outlined(prop.subjects()[0], idx, "outlined: the counterexample's indices")
    return None


def _cover_picture(prop: Any, w: dict[str, Any]) -> Grid:
    """The tile, each cell naming its owners."""
    shape = prop.tile if isinstance(prop.tile, tuple) else (prop.tile,)
    rows, cols = (shape[0], shape[1]) if len(shape) == 2 else (shape[0], 1)
    _small(rows * cols)
    return tv_grid(prop.tv, rows, cols)


def _banks_picture(prop: Any, w: dict[str, Any]) -> Grid | None:
    """Lanes x banks of the conflicting instruction (a CuTe shared-memory tile: a Triton linear layout's conflict has
    no tile to draw)."""
    if w.get("kind") != "conflict" or not hasattr(prop, "smem"):
        return None
    return lanes_banks_grid(prop, int(w["instruction"]), int(w["bank"]), list(w["lanes"]), w.get("phase"))


def _tma_picture(prop: Any, w: dict[str, Any]) -> Grid | None:
    """The misplaced element (``place``) or the last box running past the tile (``divide``)."""
    if w.get("kind") == "place":
        return tma_place_grid(prop, int(w["i"]))
    if w.get("kind") != "divide":
        return None
    rows, cols = grid_shape(prop.subjects()[0])
    last, mode = int(w["extent"]) // int(w["n"]) * int(w["n"]), int(w["mode"])
    cells = [(r, c) for r in range(rows) for c in range(cols) if (r, c)[min(mode, 1)] >= last]
    return _outlined(prop.subjects()[0], [], "outlined: the elements of the last box, which runs past the tile",
                     coords=cells)


def _datapath_picture(prop: Any, w: dict[str, Any]) -> Grid:
    """The path's smem tile, the first element in the wrong place outlined."""
    lay, elem = prop.witness_element(w)
    return _outlined(lay, [elem], f"outlined: the element path {w['path']} stage {int(w['stage']) + 1} misplaces")


PICTURES: dict[str, Callable[[Any, dict[str, Any]], Grid | None]] = {
    "tv_cover": _cover_picture, "banks": _banks_picture, "tma": _tma_picture, "path": _datapath_picture}
"""``PropertySpec.picture`` -> the function drawing that claim's counterexample (``None``: the witness is not one it
draws; the generic pictures follow)."""


def _small(cells: int) -> None:
    if cells > MAX_PICTURE_CELLS:
        raise NoPicture(f"the picture would have {cells} cells, over the {MAX_PICTURE_CELLS} a report draws")


def _outlined(x: Any, indices: list[int], legend: str, coords: list[tuple[int, ...]] | None = None,
              tags: dict[int, str] | None = None) -> Grid:
    rows, cols = grid_shape(x)
    _small(rows * cols)
    g = plain_grid(x)
    cells = {(i % rows, i // rows) for i in indices} | {(c[0], c[1] if len(c) > 1 else 0) for c in coords or []}
    text = [list(r) for r in g.text]
    for i, tag in (tags or {}).items():
        text[i % rows][i // rows] += f" {tag}"
    return Grid(g.title, text, g.fill, frozenset(cells), legend)


def tma_place_grid(prop: Any, i: int) -> Grid:
    """The smem tile of a ``tma_compatible`` place witness: element ``i`` (tagged ``src``) and the element the layout
    keeps at the byte where TMA writes ``i`` (tagged ``dst``), both outlined (``models.tma.tile_image`` is the TMA
    side, the layout's own offsets the other)."""
    from layoutcheck.models.tma import tile_image

    lay = prop.subjects()[0]
    rows, cols = grid_shape(lay)
    _small(rows * cols)
    actual, _ = tile_image(prop.box, prop.layout, prop.modes, prop.base_address)
    expected = prop.box.esize * lay.offsets()
    where = [int(j) for j in (expected == actual[i]).nonzero()[0]]
    at = f"({i % rows},{i // rows})"
    if not where:
        return _outlined(lay, [i], f"outlined (src): tile element {at}, which TMA writes to smem byte "
                                   f"{int(actual[i])}, a byte the layout keeps no element at", tags={i: "src"})
    j = where[0]
    return _outlined(lay, [i, j], f"outlined: tile element {at} (src) lands at smem byte {int(actual[i])}, where "
                                  f"the layout keeps element ({j % rows},{j // rows}) (dst)",
                     tags={i: "src", j: "dst"})


def lanes_banks_grid(prop: Any, instruction: int, bank: int, lanes: list[int], phase: int | None = None) -> Grid:
    """Lanes x banks of one instruction: cell (lane, b) shows the 32-bit word(s) lane touches in bank b, coloured by
    bank; the cells of ``lanes`` in ``bank`` (the conflict) are outlined."""
    from layoutcheck.hw.banks import BANKS, bank_of_word, word
    from layoutcheck.models.banks.access import byte_addresses

    addrs = byte_addresses(prop.smem, prop.access)[instruction]
    k = prop.access.kind
    text = [[""] * BANKS for _ in range(32)]
    fill = [["#ffffff"] * BANKS for _ in range(32)]
    for lane in range(k.address_lanes):
        if addrs[lane] < 0:
            continue
        for j in range(k.words):
            w = word(int(addrs[lane])) + j
            b = bank_of_word(w)
            text[lane][b] = (text[lane][b] + " " if text[lane][b] else "") + f"w{w}"
            fill[lane][b] = _bank_colour(b)
    assert 32 * BANKS <= MAX_CELLS
    return Grid(f"instruction {instruction} of {prop.access}: lanes (rows) x banks (columns)", text, fill,
                frozenset((ln, bank) for ln in lanes),
                f"outlined: lanes {lanes}{'' if phase is None else f' (phase {phase})'} hit bank {bank} with distinct "
                f"words")


# -- notebooks (``Result._repr_html_``) ------------------------------------------------------------------------------
def result_html(result: Any) -> str:
    """HTML for a ``layoutcheck.result.Result``: its verdict line, the counterexample or reason, and for a REFUTED
    claim the picture of its counterexample (``witness_picture``, as in the HTML report)."""
    colour = {"PROVEN": "#d8f5d8", "REFUTED": "#ffd6d6", "UNKNOWN": "#fff2c4"}.get(str(result.status), "#f0d8ff")
    head = (f'<div><span style="background:{colour};padding:1px 6px"><b>{html.escape(str(result.status))}</b></span>'
            f" {html.escape(str(result.property))} [{html.escape(result.engine)}, {result.time_s * 1e3:.1f} ms]")
    ce = result.counterexample
    if ce is None:
        return head + (f"<br>reason: {html.escape(result.reason)}" if result.reason else "") + "</div>"
    out = [head, f"<br>counterexample: {html.escape(str(ce))}"]
    try:
        g = witness_picture(result.property, dict(ce.data), str(ce))
    except Exception:  # a picture is a courtesy (NoPicture: too large); the verdict stands without it
        g = None
    if g is not None and g.rows * g.cols <= NOTEBOOK_CELLS:
        out.append(render_svg(g))
    return "\n".join(out) + "</div>"
