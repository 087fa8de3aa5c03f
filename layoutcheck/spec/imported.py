"""Spec files from imported layouts: ``layoutcheck import FILE`` turns a ``.ttgir`` module or a CuTe printout into a
TOML spec (format 1) that a user can keep, edit and check in CI.

A ``.ttgir`` file gives one ``kind = "layout"`` config per distinct (encoding, shape), aliases inlined, with the
properties Triton relies on (``exact_cover`` for distributed and tensor-memory layouts, ``bijective`` for shared
ones; see ``layoutcheck.properties.ttgir``). A CuTe printout gives a ``layout`` config (``injective``) or, for
``print(tiled_mma)``, one ``tv`` config per operand (``exact_cover`` of the atom's tile). A file of TileLang printouts
(``Layout(...)`` / ``Fragment(...)``, e.g. a log) gives per Layout a ``layout`` config (``bijective`` when it has as
many points as its output, else ``injective``) and per Fragment a ``layout`` config (``bijective``: every thread x
register slot holds one element copy) and, where one exists, a ``tv`` config over its tile (``exact_cover``, with
``replication`` when the fragment replicates).
"""

from __future__ import annotations

import re
from pathlib import Path

from layoutcheck.errors import LayoutError
from layoutcheck.importers.cute import from_cute
from layoutcheck.importers.tilelang import (
    PRINTOUT,
    TileLangFragment,
    find_printouts,
    forward,
    parse_tilelang,
    tv_layout,
)
from layoutcheck.importers.tilelang_tir import tir_printouts
from layoutcheck.importers.triton import import_ttgir, parse_ttgir


def _toml(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _name(text: str, used: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9_.+-]+", "_", text).strip("_")[:60] or "layout"
    name, k = base, 1
    while name in used:
        k += 1
        name = f"{base}_{k}"
    used.add(name)
    return name


def spec_from_ttgir(text: str, source: str = "") -> str:
    """A spec with every layout of a TTGIR module and the claims Triton relies on."""
    t = parse_ttgir(text)
    used: set[str] = set()
    origin = source or "a .ttgir module"
    out = ["format = 1", f"description = {_toml('layouts imported from ' + origin)}", ""]
    for imp in import_ttgir(text):
        shape = "x".join(map(str, imp.shape))
        if imp.layout is None:
            out += [f"# line {imp.line}: {imp.encoding} {shape}: skipped ({imp.skipped})", ""]
            continue
        prop = "bijective" if imp.shared and "row" not in imp.layout.in_dims else "exact_cover"
        name = _name(imp.encoding.lstrip("#") + "_" + shape, used)
        out += ["[[config]]", f"name = {_toml(name)}",
                'kind = "layout"', f"description = {_toml(f'line {imp.line}: {imp.kind} {shape}x{imp.element}')}",
                f"layout = {{ triton = {_toml(t.inline(imp.encoding))}, shape = {list(imp.layout.out_shape)} }}",
                f'properties = ["{prop}"]', ""]
    return "\n".join(out)


def spec_from_cute(text: str, source: str = "") -> str:
    """A spec for a CuTe printout (a layout, a print_layout table, or print(tiled_mma))."""
    got = from_cute(text)
    origin = source or "a CuTe printout"
    out = ["format = 1", f"description = {_toml('layouts imported from ' + origin)}", ""]
    if got.kind == "tiled_mma":
        m, n, k = got.layouts.get("Shape_MNK", (None, None, None))
        for op, tile in (("A", (m, k)), ("B", (n, k)), ("C", (m, n))):
            lay = got.layouts.get(f"Layout{op}_TV")
            if lay is None or None in tile:
                continue
            out += ["[[config]]", f'name = "atom_{op}"', 'kind = "tv"', f"tv = {_toml(str(lay))}",
                    f"tile = {list(tile)}", 'properties = ["exact_cover"]', ""]
        return "\n".join(out)
    out += ["[[config]]", 'name = "layout"', 'kind = "layout"', f"layout = {_toml(str(got.layout))}",
            'properties = ["injective"]', ""]
    return "\n".join(out)


def _comment(lines: list[str], line: int) -> str:
    """The comment block just above line ``line`` (1-based): its ``# name: ...`` entry, else its last line."""
    block = []
    k = line - 2
    while k >= 0 and lines[k].strip().startswith("#"):
        block.insert(0, lines[k].strip().lstrip("#").strip())
        k -= 1
    named = [c.removeprefix("name:").strip() for c in block if c.startswith("name:")]
    return named[-1] if named else (block[-1] if block else "")


def _tilelang_records(text: str) -> list[tuple[str, str, str]]:
    """``(name stem, description, printout)`` of every TileLang layout in ``text``: the ``layout_map`` buffers of
    lowered TIR printed with its metadata, else every ``Layout(...)`` / ``Fragment(...)`` printout."""
    if "load_json" in text and '"layout_map"' in text:
        return [(re.sub(r"\W", "", buf.split()[0]), f"layout_map: {buf}", body) for buf, body in tir_printouts(text)]
    found = find_printouts(text)
    if not found:
        parse_tilelang(text)  # no printout at all: the parser names what it found instead
    lines = text.splitlines()
    return [(f"line{line}", _comment(lines, line) or f"line {line}", body) for line, body in found]


def spec_from_tilelang(text: str, source: str = "") -> str:
    """A spec with every TileLang layout of ``text`` (printouts, or lowered TIR's ``layout_map``) and its claims."""
    origin = source or "TileLang printouts"
    out = ["format = 1", f"description = {_toml('layouts imported from ' + origin)}", ""]
    used: set[str] = set()
    for stem, what, body in _tilelang_records(text):
        x = parse_tilelang(body)
        kind = "fragment" if isinstance(x, TileLangFragment) else "layout"
        name = _name(f"{kind}_{stem}", used)
        try:
            forward(x)
        except LayoutError as e:
            out += [f"# {what}: skipped ({e})", ""]
            continue
        value = f"{{ tilelang = {_toml(body)} }}"
        n_in = 1
        for n in x.input_shape:
            n_in *= n
        n_out = x.registers * x.thread if isinstance(x, TileLangFragment) else 1
        if not isinstance(x, TileLangFragment):
            for n in x.output_shape:
                n_out *= n
        prop = "bijective" if isinstance(x, TileLangFragment) or n_in == n_out else "injective"
        out += ["[[config]]", f"name = {_toml(name)}", 'kind = "layout"', f"description = {_toml(what)}",
                f"layout = {value}", f'properties = ["{prop}"]', ""]
        if isinstance(x, TileLangFragment):
            try:
                tv_layout(x)
            except LayoutError as e:
                out += [f"# {what}: no TV layout ({e})", ""]
                continue
            cover = ('"exact_cover"' if x.replicate == 1 else
                     f'{{ name = "exact_cover", replication = {x.replicate} }}')
            out += ["[[config]]", f"name = {_toml(name + '_tv')}", 'kind = "tv"', f"description = {_toml(what)}",
                    f"tv = {value}", f"tile = {list(x.input_shape)}", f"properties = [{cover}]", ""]
    return "\n".join(out)


def spec_from_file(path: str) -> str:
    """``spec_from_ttgir`` for ``*.ttgir`` / ``*.mlir`` files, ``spec_from_tilelang`` for TileLang printouts,
    ``spec_from_cute`` for anything else."""
    text = Path(path).read_text()
    if path.endswith((".ttgir", ".mlir")) or "#ttg." in text:
        return spec_from_ttgir(text, Path(path).name)
    if PRINTOUT.search(text) or ("load_json" in text and '"layout_map"' in text):
        return spec_from_tilelang(text, Path(path).name)
    return spec_from_cute(text, Path(path).name)


__all__ = ["spec_from_cute", "spec_from_file", "spec_from_tilelang", "spec_from_ttgir"]
