"""Spec files from imported layouts: ``layoutcheck import FILE`` turns a ``.ttgir`` module or a CuTe printout into a
TOML spec (format 1) that a user can keep, edit and check in CI.

A ``.ttgir`` file gives one ``kind = "layout"`` config per distinct (encoding, shape), aliases inlined, with the
properties Triton relies on (``exact_cover`` for distributed and tensor-memory layouts, ``bijective`` per CTA for
shared ones; see ``layoutcheck.properties.ttgir``); an encoding layoutcheck does not model is kept (checking the spec
reports it), one that contradicts its module is marked by a comment (a spec has no module to check it against).

A CuTe printout gives a ``layout`` config (``injective``) or, for ``print(tiled_mma)``, a ``tiled_mma`` config
(the atom with the printed layouts, ``atom_layout`` from ``ThrLayoutVMNK``, the ``PermutationMNK``; every operand an
``exact_cover`` of the tiled MMA's tile), or where that does not fit (no known atom has those layouts, atoms not laid
out column-major) one ``tv`` config per operand of the atom, with a comment saying why. A file of TileLang printouts
(``Layout(...)`` / ``Fragment(...)``, e.g. a log; each config named after the ``# name:`` comment above it, as
``check`` names its rows, else after its line) gives per layout a ``layout`` config (``bijective`` when it has as
many points -- elements x replicas of a Fragment -- as printed output slots -- a Fragment's threads x registers --,
else ``injective``) and, per Fragment where one exists, a ``tv`` config over its tile (``exact_cover``, with
``replication`` when the fragment replicates); a layout without a CuTe or linear form (``T.if_then_else`` maps, a
coordinate past its printed extent) gets ``in_bounds`` and ``bijective`` / ``injective`` on its own expressions
(``layoutcheck.properties.tilelang``).
"""

from __future__ import annotations

import re
from pathlib import Path

from layoutcheck.errors import LayoutError, ParseError, SpecError
from layoutcheck.importers.cute import TiledMmaConfig, from_cute, tiled_mma_config
from layoutcheck.importers.tilelang import TileLangFragment, forward, parse_tilelang, tv_layout
from layoutcheck.importers.tilelang_tir import is_tilelang_text, tilelang_records
from layoutcheck.importers.triton import import_ttgir, parse_ttgir
from layoutcheck.properties.tilelang import tilelang_properties
from layoutcheck.properties.ttgir import consistency, layout_claims


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
        name = _name(imp.encoding.lstrip("#") + "_" + shape, used)
        desc = _toml(f"line {imp.line}: {imp.kind} {shape}x{imp.element}")
        if imp.layout is None:  # kept, so that checking the spec reports it (an ERROR row naming it), never drops it
            prop = layout_claims(imp)[0].prop.name  # the claim Triton relies on, as checking the .ttgir states it
            out += [f"# line {imp.line}: {imp.encoding} {shape}: not modelled ({imp.skipped})", "[[config]]",
                    f"name = {_toml(name)}", 'kind = "layout"', f"description = {desc}",
                    f"layout = {{ triton = {_toml(t.inline(imp.encoding))}, shape = {list(imp.shape)} }}",
                    f'properties = ["{prop}"]', ""]
            continue
        check = consistency(imp, t)
        if check is not None and not check.exhaustive().holds:
            out.append(f"# line {imp.line}: {imp.encoding} {shape} contradicts its module (consistent_with_module "
                       "is refuted when the .ttgir file is checked; a spec has no module)")
        prop = layout_claims(imp)[0].prop.name  # without its module: the layout's own claim
        out += ["[[config]]", f"name = {_toml(name)}", 'kind = "layout"', f"description = {desc}",
                f"layout = {{ triton = {_toml(t.inline(imp.encoding))}, shape = {list(imp.layout.out_shape)} }}",
                f'properties = ["{prop}"]', ""]
    return "\n".join(out)


def spec_from_cute(text: str, source: str = "") -> str:
    """A spec for a CuTe printout (a layout, a print_layout table, or print(tiled_mma))."""
    got = from_cute(text)
    origin = source or "a CuTe printout"
    out = ["format = 1", f"description = {_toml('layouts imported from ' + origin)}", ""]
    if got.kind == "tiled_mma":
        try:
            return "\n".join(out + _tiled_mma_config(tiled_mma_config(got)))
        except LayoutError as e:  # said, and the atom's operands checked instead
            out += [f"# not a tiled_mma config: {e}; the atom's operands are checked instead", ""]
        m, n, k = got.layouts.get("Shape_MNK", (None, None, None))
        for op, tile in (("A", (m, k)), ("B", (n, k)), ("C", (m, n))):
            lay = got.layouts.get(f"Layout{op}_TV")
            if lay is None or None in tile:  # said, not silently dropped
                missing = f"Layout{op}_TV" if lay is None else "Shape_MNK"
                out += [f"# operand {op}: not checked (the printout has no {missing} line)", ""]
                continue
            out += ["[[config]]", f'name = "atom_{op}"', 'kind = "tv"', f"tv = {_toml(str(lay))}",
                    f"tile = {list(tile)}", 'properties = ["exact_cover"]', ""]
        return "\n".join(out)
    out += ["[[config]]", 'name = "layout"', 'kind = "layout"']
    if got.note:  # how a pointer was read (a byte swizzle in element offsets), kept beside the layout
        out.append(f"description = {_toml(got.note)}")
    out += [f"layout = {_toml(str(got.layout))}", 'properties = ["injective"]', ""]
    return "\n".join(out)


def _tiled_mma_config(c: TiledMmaConfig) -> list[str]:
    """The ``[[config]]`` lines of a tiled MMA: every operand an exact cover of the tiled MMA's tile."""
    same = f" (CuTe prints layouts, not the atom: {', '.join(c.same_layouts)} have them)" if len(c.same_layouts) > 1 \
        else ""
    out = ["[[config]]", 'name = "tiled_mma"', 'kind = "tiled_mma"',
           f"description = {_toml('print(tiled_mma): atom ' + c.atom + same)}", f"atom = {_toml(c.atom)}",
           f"atom_layout = {list(c.atom_layout)}"]
    if any(p is not None for p in c.permutation):
        perm = ", ".join(str(p) if isinstance(p, int) else _toml("_" if p is None else str(p)) for p in c.permutation)
        out.append(f"permutation = [{perm}]")
    props = ['"exact_cover"'] + [f'{{ name = "exact_cover", operand = "{op}" }}' for op in "AB"
                                  if op not in c.smem_operands]
    notes = [f"# operand {op}: the atom reads it from shared memory (every thread's TV row is the whole tile), not a "
             "register partition: not checked" for op in c.smem_operands]
    return [*notes, *out, f"tile = {list(c.tile)}", f"properties = [{', '.join(props)}]", ""]


def _record_label(stem: str, what: str) -> str:
    """A TileLang record's own name: the ``# name:`` comment (or the comment) above a printout in a log, which
    ``check`` names its rows after too; empty where there is none (``line N``) or for a TIR buffer (its stem)."""
    return "" if what == f"line {stem.removeprefix('line')}" or what.startswith("layout_map:") else what


def spec_from_tilelang(text: str, source: str = "") -> str:
    """A spec with every TileLang layout of ``text`` (printouts, or lowered TIR's ``layout_map``) and its claims."""
    origin = source or "TileLang printouts"
    out = ["format = 1", f"description = {_toml('layouts imported from ' + origin)}", ""]
    used: set[str] = set()
    for stem, what, body in tilelang_records(text):
        value = f"{{ tilelang = {_toml(body)} }}"
        try:
            x = parse_tilelang(body)
        except (ParseError, LayoutError) as e:  # kept, so that checking the spec reports it (an ERROR row)
            out += [f"# {what}: the printout does not read ({e})", "[[config]]",
                    f"name = {_toml(_name(_record_label(stem, what) or f'printout_{stem}', used))}", 'kind = "layout"',
                    f"description = {_toml(what)}", f"layout = {value}", 'properties = ["in_bounds"]', ""]
            continue
        kind = "fragment" if isinstance(x, TileLangFragment) else "layout"
        name = _name(_record_label(stem, what) or f"{kind}_{stem}", used)
        try:
            forward(x)
        except LayoutError as e:  # no CuTe / linear form, or a coordinate past its extent: claims on its own map
            props = ", ".join(f'"{p.name}"' for p in tilelang_properties(x))
            out += [f"# {what}: no CuTe or linear form ({e})", "[[config]]", f"name = {_toml(name)}",
                    'kind = "layout"', f"description = {_toml(what)}", f"layout = {value}", f"properties = [{props}]",
                    ""]
            continue
        prop = tilelang_properties(x)[1].name  # bijective where points and printed slots are as many
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
    if is_tilelang_text(text):
        return spec_from_tilelang(text, Path(path).name)
    try:
        return spec_from_cute(text, Path(path).name)
    except ParseError as e:  # the last format tried: say which ones were, and where in the file this one failed
        at = max(text.find(e.text), 0) + e.pos  # the printout parsed may be a part of the file
        line = text.count("\n", 0, min(at, len(text))) + 1
        raise SpecError(f"{path}:{line}: not an importable file: tried a TTGIR module (.ttgir, .mlir or '#ttg.' "
                        f"encodings: none), TileLang printouts (none) and a CuTe printout ({e.what})") from None


__all__ = ["spec_from_cute", "spec_from_file", "spec_from_tilelang", "spec_from_ttgir"]
