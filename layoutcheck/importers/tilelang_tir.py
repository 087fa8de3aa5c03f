"""Lowered TileLang TIR -> TileLang printouts: the ``layout_map`` block attributes that ``LayoutInference`` attaches
(``T.sblock_attr({"layout_map": {A_s: metadata["tl.Layout"][0], ...}})``), resolved through the TVM JSON metadata that
``mod.script(show_meta=True)`` prints at the top of the module.

The JSON is a node graph (``nodes``, ``root_index``): the root maps a type key (``"tl.Layout"``, ``"tl.Fragment"``)
to the list the TIR indexes; a ``tl.Layout`` node has ``input_size`` and ``forward_index``, a ``tl.Fragment`` also
``forward_thread``, ``replicate_size`` and ``thread_range``. Expression nodes (``ir.IntImm``, ``tirx.Var``, ``Add``,
``Sub``, ``Mul``, ``FloorDiv``, ``FloorMod``, ``Div``, ``Mod``, ``Cast``, ``Call`` of an ``ir.Op``) are printed back
as TIR text and the layout as its ``repr`` form, so ``layoutcheck.importers.tilelang.parse_tilelang`` is the one
reader. The JSON holds no output shape and no thread count (TileLang computes them with its analyzer): they are
recomputed as 1 + the largest value, the thread count from ``thread_range`` when it is given.
"""

from __future__ import annotations

import json
import re

from layoutcheck.errors import LayoutError, ParseError
from layoutcheck.expr.numpy import offsets_of
from layoutcheck.expr.parse import parse
from layoutcheck.importers.tilelang import placeholder, tvm_tuple

_METADATA = re.compile(r'metadata\s*=\s*tvm\.ir\.load_json\("""(.*?)"""\)', re.S)
_LAYOUT_MAP = re.compile(r'"layout_map"\s*:\s*\{([^{}]*)\}')
_ENTRY = re.compile(r'(\w+)\s*:\s*metadata\["(tl\.Layout|tl\.Fragment)"\]\[(\d+)\]')
_BUFFER = re.compile(r'(\w+)\s*=\s*T\.(?:Buffer|sblock_alloc_buffer|alloc_buffer|decl_buffer)\(\(([\d,\s]*)\)'
                     r'(?:,\s*"(\w+)")?[^\n]*?scope="([^"]+)"')
_BINARY = {"tirx.Add": "+", "tirx.Sub": "-", "tirx.Mul": "*", "tirx.FloorDiv": "//", "tirx.FloorMod": "%"}
_CALLS = {"tirx.Div": "T.truncdiv", "tirx.Mod": "T.truncmod"}


def _tir_expr(nodes: list[dict], k: int) -> str:
    """A PrimExpr node of TVM's JSON graph as TIR text (the syntax ``parse_tilelang`` reads)."""
    node = nodes[k]
    kind, data = node["type"], node.get("data")
    if kind == "ir.IntImm":
        return str(data["value"])
    if kind == "tirx.Var":
        return nodes[data["name"]]["data"]
    if kind in _BINARY:
        return f"({_tir_expr(nodes, data['a'])} {_BINARY[kind]} {_tir_expr(nodes, data['b'])})"
    if kind in _CALLS:
        return f"{_CALLS[kind]}({_tir_expr(nodes, data['a'])}, {_tir_expr(nodes, data['b'])})"
    if kind == "tirx.Cast":
        return _tir_expr(nodes, data["value"])
    if kind == "tirx.Call" and nodes[data["op"]]["type"] == "ir.Op":
        name = nodes[data["op"]]["data"].removeprefix("tirx.").removeprefix("tir.")
        return f"T.{name}(" + ", ".join(_tir_expr(nodes, a) for a in nodes[data["args"]]["data"]) + ")"
    raise LayoutError(f"lowered TIR: metadata node {k} is a {kind}, not an index expression layoutcheck reads "
                      "(integer constants, variables, + - * // %, truncdiv/mod, casts and T.bitwise_* calls)")


def _extent(text: str, env: dict[str, int]) -> int:
    """1 + the largest value of a TIR expression over the box ``env`` (TileLang's own bound is not in the JSON)."""
    return int(offsets_of(parse(text, env, dialect="tir"), tuple(env.items())).max()) + 1


def _metadata_printout(nodes: list[dict], k: int) -> str:
    """The ``Layout(...)`` / ``Fragment(...)`` printout of the layout object at node ``k`` (output extents, and a
    thread count without a thread range, recomputed as 1 + the largest value)."""
    node = nodes[k]
    data = node["data"]
    shape = [nodes[i]["data"]["value"] for i in nodes[data["input_size"]]["data"]]
    index = [_tir_expr(nodes, i) for i in nodes[data["forward_index"]]["data"]]
    names = [placeholder(d) for d in range(len(shape))]
    env = dict(zip(names, shape, strict=True))
    if node["type"] == "tl.Layout":
        out = [_extent(e, env) for e in index]
        return f"Layout({tvm_tuple(shape)} -> {tvm_tuple(out)}, transform: {tvm_tuple(names)} -> {tvm_tuple(index)})"
    rep = nodes[data["replicate_size"]]["data"]["value"]
    env["_rep"] = rep
    out = [_extent(e, env) for e in index]
    thread = _tir_expr(nodes, data["forward_thread"])
    rng = nodes[data["thread_range"]] if data.get("thread_range") is not None else {"type": "None"}
    if rng["type"] == "ir.Range":
        lo, ext = (nodes[rng["data"][f]]["data"]["value"] for f in ("min", "extent"))
        threads, tail = ext, f", thread_range: I.Range({lo}, {lo + ext})"
    else:
        threads, tail = _extent(thread, env), ""
    return (f"Fragment({tvm_tuple(shape)} -> {tvm_tuple(out)}, replicate: {rep}, thread: {threads}, "
            f"forward_thread: {thread}, forward_index: {tvm_tuple(index)}{tail})")


def tir_printouts(text: str) -> list[tuple[str, str]]:
    """Every buffer of the ``layout_map`` attributes of lowered TIR printed with ``show_meta=True``, as ``(buffer,
    printout)``: ``buffer`` names it with its shape, dtype and scope, ``printout`` is its layout in ``repr`` form.

    Pre: the text holds ``metadata = tvm.ir.load_json(\"\"\"...\"\"\")`` (else ``ParseError``: printed without
    ``show_meta=True``, the layouts are only references). Post: one entry per buffer, in order of first use.
    """
    m = _METADATA.search(text)
    if m is None:
        at = text.find("metadata[")
        raise ParseError(text if at < 0 else text[at:at + 60], 0, "the TIR has no metadata section: print it with "
                                                                  "mod.script(show_meta=True)")
    try:
        graph = json.loads(m.group(1).replace('\\"', '"'))
        nodes = graph["nodes"]
        root = nodes[graph["root_index"]]["data"]
        table = {nodes[root[i]]["data"]: nodes[root[i + 1]]["data"] for i in range(0, len(root), 2)}
    except (ValueError, KeyError, IndexError, TypeError) as e:
        raise ParseError(m.group(1)[:200], 0, f"malformed TVM JSON metadata ({type(e).__name__}: {e})") from None
    buffers = {b.group(1): f"{b.group(1)} ({b.group(2).strip()}) {b.group(3) or ''} {b.group(4)}".replace("  ", " ")
               for b in _BUFFER.finditer(text)}
    out: dict[str, str] = {}
    for lm in _LAYOUT_MAP.finditer(text):
        for e in _ENTRY.finditer(lm.group(1)):
            name, key, k = e.group(1), e.group(2), int(e.group(3))
            if name in out:
                continue
            if key not in table or k >= len(table[key]):
                raise ParseError(lm.group(0), e.start(2) - 1, f"metadata[{key!r}][{k}] is not in the metadata")
            out[name] = _metadata_printout(nodes, table[key][k])
    return [(buffers.get(n, n), p) for n, p in out.items()]


__all__ = ["tir_printouts"]
