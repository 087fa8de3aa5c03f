"""Spec values: one parser per spec key, from a TOML value to the canonical value a ``Config`` holds.

Each parser takes ``(value, key)`` and returns the parsed value (a ``Layout``/``ComposedLayout``, a tuple of ints,
an int, an upper- or lower-cased name, a tuple of pairs for tables) or raises ``ValueError``/``LayoutError`` with a
message that says what was expected and what was found; the loader (``layoutcheck.spec.load``) prefixes it with
``file:line: config 'c': key 'k':``. ``parse_value`` dispatches on the key:

    ============  ================================================  =======================================
    key           accepts                                           example
    ============  ================================================  =======================================
    layout, tv    CuTe notation or a ``calc`` expression            ``"Sw<3,3,3> o (8,64):(64,1)"``
    tile, box     1-3 (1-5) integers in [1, 2**40]                  ``[128, 64]``
    modes         1-5 integers in [0, 2**40]                        ``[1, 0]``
    permutation   per mode an int, a layout string or ``"_"``       ``[32, "(8,4,2):(1,16,8)", "_"]``
    dtype         a name of ``DTYPE_BITS`` (case-insensitive)       ``"bf16"``
    atom          an MMA atom name or ``{ major, mode }``           ``{ major = "K", mode = "128B" }``
    ============  ================================================  =======================================

Edge cases: a bare int where a list is expected is a one-entry list; booleans are never integers; a layout
expression that evaluates to a shape or a positive int is read as its column-major layout.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.errors import LayoutError
from layoutcheck.hw.dtypes import DTYPES, bits_of
from layoutcheck.spec.calc import calc_functions

SPEC_DTYPES = ("f64", "s64", "u64", "b64", "f32", "tf32", "s32", "u32", "i32", "b32", "f16", "bf16", "s16", "u16",
               "b16", "s8", "u8", "i8", "b8", "e4m3", "e5m2", "f8")
"""The element types a spec may name (PTX ISA type names; ``f8`` means any 8-bit float); widths and tensor-map types
come from the one table, ``layoutcheck.hw.dtypes.DTYPES``."""

DTYPE_BITS: dict[str, int] = bits_of(SPEC_DTYPES)
"""Spec dtype -> width in bits (``hw.dtypes``; ``tf32``: its 32-bit storage)."""

TMA_DTYPES: dict[str, str] = {n: DTYPES[n].tma for n in SPEC_DTYPES}
"""Spec dtype -> ``CUtensorMapDataType`` name (``hw.dtypes``: as CUTLASS picks it; 8-bit types travel as UINT8)."""

WGMMA_ATOM_ORDER = {"K": "col", "MN": "row"}
"""How a ``tma`` or ``wgmma`` config's ``major`` + ``swizzle`` + ``tile`` stage stacks its GMMA atoms: as CUTLASS's
SM90 mainloop does, MN first for K-major operands and K first for MN-major ones
(``sm90_mma_tma_gmma_ss_warpspecialized.hpp``:
``tile_to_shape(SmemLayoutAtom, ..., is_major<0> ? Step<_2,_1,_3> : Step<_1,_2,_3>)``)."""


MAX_EXTENT = 1 << 40
"""The largest extent, size or integer parameter a spec may give."""


def suggest(word: str, options: Any) -> str:
    """`` (did you mean 'x'?)`` for the nearest of ``options`` to a misspelt ``word``, or ``""``.

    >>> suggest("injectve", ["injective", "tma_compatible"])
    " (did you mean 'injective'?)"
    """
    from difflib import get_close_matches  # only a misspelt key pays for the import

    near = get_close_matches(word, sorted(options), n=2)
    return f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else ""


def one_line(e: BaseException) -> str:
    """An exception's message on one line (whitespace runs collapsed), for ``file:line:`` messages."""
    return " ".join(str(e).split())


def brief(v: Any) -> str:
    """``v`` as TOML writes it (``[true, 8]``, ``"f16"``, ``{ n = 2 }``) cut to 60 characters, for "found ..." in
    messages: the user wrote TOML, not Python.

    >>> brief([True, 8]), brief({"name": "x", "n": None})
    ('[true, 8]', '{ name = "x", n = None }')
    """
    s = _toml_text(v, 60)
    return s if len(s) <= 60 else s[:57] + "..."


def _toml_text(v: Any, budget: int, depth: int = 0) -> str:
    """TOML text of a parsed TOML value (``None`` and other Python values as ``repr``), stopping once ``budget``
    characters are written or 16 levels are nested."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        import json

        return json.dumps(v[:budget], ensure_ascii=False)
    if depth > 16:
        return "..."
    if isinstance(v, (list, tuple)):
        parts: list[str] = []
        for x in v:
            parts.append(_toml_text(x, budget, depth + 1))
            if sum(map(len, parts)) > budget:
                break
        return "[" + ", ".join(parts) + "]"
    if isinstance(v, dict):
        items: list[str] = []
        for k, x in v.items():
            items.append(f"{k} = {_toml_text(x, budget, depth + 1)}")
            if sum(map(len, items)) > budget:
                break
        return "{ " + ", ".join(items) + " }" if items else "{}"
    return repr(v)


# -- value checkers (one per key) ---------------------------------------------------------------------------------
def _layout(v: Any, key: str) -> Layout | ComposedLayout:
    """CuTe notation, or a ``layoutcheck calc`` expression that evaluates to a layout."""
    if isinstance(v, dict):
        return _imported_layout(v, key)
    if not isinstance(v, str):
        raise ValueError(f"expected a layout in CuTe notation as a string, found {brief(v)}")
    return _layout_text(v)


@lru_cache(maxsize=256)
def _layout_text(v: str) -> Layout | ComposedLayout:
    """A layout written as text, read once per distinct text (specs repeat their atoms' and tiles' layouts); an
    error is raised again on every reading."""
    from layoutcheck.algebra.notation import evaluate_expression

    try:
        value = evaluate_expression(v, calc_functions())
    except (TypeError, AttributeError, IndexError, KeyError, ZeroDivisionError, RecursionError, OverflowError) as e:
        raise LayoutError(f"cannot evaluate {v!r}: {type(e).__name__}: {e}") from None
    if isinstance(value, tuple) and _is_shape(value):
        value = Layout(value)
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        value = Layout(value)
    if not isinstance(value, (Layout, ComposedLayout)):
        raise LayoutError(f"expected a layout, {v!r} evaluates to {brief(value)}")
    return value


def _imported_layout(v: dict, key: str = "layout") -> Any:
    """``{ triton = "#ttg...", shape = [..] }`` -> a ``LinearLayout``; ``{ cute = "printout" }`` -> a CuTe layout;
    ``{ tilelang = "Layout(...)" | "Fragment(...)" }`` -> its forward map (under ``tv``: a Fragment's TV layout)."""
    if "triton" in v:
        extra = set(v) - {"triton", "shape"}
        if extra:
            raise ValueError(f"unknown key {sorted(extra)[0]!r} in a triton layout (expected 'triton', 'shape')")
        if "shape" not in v:
            raise ValueError("a triton layout needs the tensor 'shape' (e.g. shape = [128, 64])")
        from layoutcheck.importers.triton import from_triton

        return from_triton(_str(v["triton"], "triton"), _ints(v["shape"], "shape"))
    if "cute" in v:
        if set(v) != {"cute"}:
            raise ValueError(f"unknown key {sorted(set(v) - {'cute'})[0]!r} in a cute layout (expected only 'cute')")
        from layoutcheck.importers.cute import from_cute

        got = from_cute(_str(v["cute"], "cute")).layout
        if got is None:
            raise ValueError("the cute printout holds no layout")
        return got
    if "tilelang" in v:
        if set(v) != {"tilelang"}:
            raise ValueError(f"unknown key {sorted(set(v) - {'tilelang'})[0]!r} in a tilelang layout (expected only "
                             "'tilelang')")
        from layoutcheck.importers.tilelang import as_subject, from_tilelang

        return as_subject(from_tilelang(_str(v["tilelang"], "tilelang")), key)
    if "formula" in v:
        return _formula(v, key)
    raise ValueError(f"a layout table needs 'triton' (with 'shape'), 'cute', 'tilelang' or 'formula' (with 'coords'), "
                     f"found keys {sorted(v)}")


FORMULA_KEYS = ("layout", "other", "tv")
"""The keys that accept an index formula (``layout`` of kinds ``layout`` and ``smem``; ``equivalent``'s ``other``;
``tv`` of kind ``tv``: a TV map over two coordinates, thread first)."""


def _formula(v: dict, key: str) -> Any:
    """``{ formula = "i*64 + (j ^ i)", coords = { j = 64, i = 8 } }`` -> an ``IndexFormula`` (coordinates first
    fastest, as CuTe's colexicographic order: ``j`` is mode 0)."""
    extra = set(v) - {"formula", "coords"}
    if extra:
        raise ValueError(f"unknown key {sorted(extra)[0]!r} in a formula layout (expected 'formula', 'coords')")
    if key not in FORMULA_KEYS:
        raise ValueError(f"an index formula is accepted for {' and '.join(repr(k) for k in FORMULA_KEYS)}, not {key!r}")
    coords = v.get("coords")
    if not isinstance(coords, dict) or not coords:
        raise ValueError("a formula layout needs its coordinates and extents, first fastest: "
                         "coords = { j = 64, i = 8 }")
    from layoutcheck.expr.formula import parse_formula

    return parse_formula(_str(v["formula"], "formula"), [(k, _int(n, "coords")) for k, n in coords.items()])


def _is_shape(t: Any) -> bool:
    if isinstance(t, tuple):
        return len(t) > 0 and all(_is_shape(x) for x in t)
    return isinstance(t, int) and not isinstance(t, bool) and t > 0


def _ints(v: Any, key: str, lo: int = 1, n: tuple[int, int] = (1, 8)) -> tuple[int, ...]:
    if isinstance(v, int) and not isinstance(v, bool):
        v = [v]
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise ValueError(f"expected a list of integers, found {brief(v)}")
    if not n[0] <= len(v) <= n[1]:
        raise ValueError(f"expected {n[0]} to {n[1]} integers, found {len(v)}")
    for x in v:
        if not lo <= x <= MAX_EXTENT:
            raise ValueError(f"entry {x} out of range [{lo}, 2**40]")
    return tuple(v)


def _int(v: Any, key: str, lo: int = 1) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= MAX_EXTENT:
        raise ValueError(f"expected an integer in [{lo}, 2**40], found {brief(v)}")
    return v


def _str(v: Any, key: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"expected a non-empty string, found {brief(v)}")
    return v.strip()


def _dtype(v: Any, key: str) -> str:
    s = _str(v, key).lower()
    if s not in DTYPE_BITS:
        raise ValueError(f"unknown dtype {s!r}{suggest(s, DTYPE_BITS)} (known: {', '.join(DTYPE_BITS)})")
    return s


def _permutation(v: Any, key: str) -> tuple[Any, ...]:
    if not isinstance(v, list) or not 1 <= len(v) <= 3:
        raise ValueError(f"expected a list of 1-3 entries (an int size or a layout string per mode), found {brief(v)}")
    out: list[Any] = []
    for x in v:
        if isinstance(x, int) and not isinstance(x, bool):
            out.append(_int(x, key))
        elif x in ("_", "None"):
            out.append(None)
        elif isinstance(x, str):
            lay = _layout(x, key)
            if not isinstance(lay, Layout):
                raise ValueError("a permutation mode cannot be swizzled")
            out.append(lay)
        else:
            raise ValueError(f"permutation entries are ints or layout strings, found {brief(x)}")
    return tuple(out)


def _atom(v: Any, key: str) -> Any:
    if isinstance(v, str):
        return _str(v, key)
    if isinstance(v, dict):
        extra = set(v) - {"major", "mode"}
        if extra or set(v) != {"major", "mode"}:
            raise ValueError('an smem atom table is { major = "K" | "MN", mode = "none" | "32B" | "64B" | "128B" }')
        return (("major", _str(v["major"], key).upper()), ("mode", _str(v["mode"], key)))
    raise ValueError(f"expected an atom name or {{ major, mode }}, found {brief(v)}")


def _ranges(v: Any, key: str) -> tuple[tuple[str, int], ...]:
    if not isinstance(v, dict) or not v:
        raise ValueError("expected a table of loop variables and extents, e.g. { r = 4, s = 2 } (first fastest)")
    out = []
    for name, ext in v.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name == "lane":
            raise ValueError(f"bad loop variable name {name!r} ('lane' is implicit)")
        out.append((name, _int(ext, key)))
    return tuple(out)


def _size_ranges(v: Any, key: str) -> tuple[tuple[str, tuple[int, int]], ...]:
    """``{ M = [1, 1048576], N = [1, 1048576] }``: each mode's inclusive range of problem sizes, in mode order."""
    if not isinstance(v, dict) or not v:
        raise ValueError("expected a table of modes and inclusive ranges, e.g. { M = [1, 1048576], N = [1, 4096] }")
    out = []
    for name, r in v.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ValueError(f"bad mode name {name!r}")
        lo, hi = _ints(r, key, 1, (2, 2))
        if lo > hi:
            raise ValueError(f"range of {name} is empty: [{lo}, {hi}]")
        out.append((name, (lo, hi)))
    return tuple(out)


def _bool(v: Any, key: str) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"expected true or false, found {brief(v)}")
    return v


def _lower_choice(v: Any, key: str, options: tuple[str, ...]) -> str:
    s = _str(v, key)
    if s not in options:
        raise ValueError(f"expected one of {', '.join(options)}, found {v!r}")
    return s


def _choice(v: Any, key: str, options: tuple[str, ...]) -> str:
    s = _str(v, key).upper()
    if s not in options:
        raise ValueError(f"expected one of {', '.join(options)}, found {v!r}")
    return s


def _descriptor(v: Any, key: str) -> int:
    """A 64-bit GMMA descriptor word: an int, or a string in any base Python reads (``"0x4000004000010000"``)."""
    if isinstance(v, str):
        try:
            v = int(v.strip(), 0)
        except ValueError:
            raise ValueError(f"expected a 64-bit descriptor such as \"0x4000004000010000\", found {brief(v)}") from None
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < 1 << 64:
        raise ValueError(f"expected a 64-bit unsigned descriptor word, found {brief(v)}")
    return v


_CHECKERS: dict[str, Any] = {
    "layout": _layout, "tv": _layout, "other": _layout, "memory": _layout, "smem_layout": _layout,
    "tile": lambda v, k: _ints(v, k, 1, (1, 3)),
    "box": lambda v, k: _ints(v, k, 1, (1, 5)),
    "global_shape": lambda v, k: _ints(v, k, 1, (1, 5)),
    "global_strides": lambda v, k: _ints(v, k, 1, (1, 5)),
    "atom_layout": lambda v, k: _ints(v, k, 1, (1, 3)),
    "modes": lambda v, k: _ints(v, k, 0, (1, 5)),
    "major": lambda v, k: _choice(v, k, ("K", "MN")),
    "permutation": _permutation,
    "codomain": _int, "bound": _int, "width": _int, "max": _int, "n": _int, "replication": _int,
    "access_tv": _layout, "access_expr": _str, "access_ranges": _ranges,
    "dtype": _dtype, "access": _str, "swizzle": _str, "interleave": _str, "atom": _atom,
    "operand": lambda v, k: _choice(v, k, ("A", "B", "C")),
    "block_mn": _int, "base_address": lambda v, k: _int(v, k, 0), "descriptor": _descriptor, "wgmma_swizzle": _str,
    "sizes": _size_ranges, "grids": _size_ranges,
    "count": lambda v, k: _lower_choice(v, k, ("ceil_div", "div")),
    "predicate": lambda v, k: _lower_choice(v, k, ("coord_lt_shape", "none", "tma")),
    "scheduler": lambda v, k: _lower_choice(v, k, ("plain", "swizzle", "grouped", "split_k", "persistent", "expr",
                                                           "problems", "clc", "stream_k")),
    "log": lambda v, k: _int(v, k, 0), "group": _int, "ctas": _int, "splits": _int,
    "drop_partial_group": _bool,
    # persistent and expression tile schedulers (issue #27)
    "cluster": lambda v, k: _ints(v, k, 1, (2, 2)), "max_swizzle": _int, "swizzle_size": _int,
    "raster": lambda v, k: _lower_choice(v, k, ("m", "n", "heuristic")),
    "device_raster": lambda v, k: _lower_choice(v, k, ("m", "n", "heuristic")),
    "round_to_cluster": _bool, "tile_m": _str, "tile_n": _str, "total": _str,
    "problems": lambda v, k: _ints(v, k, 1, (2, 2)), "host_count": _str, "device_tiles": _str,
    # SM100 CLC scheduler variants (issue #27)
    "swizzle_residual": _bool,
    "serpentine": lambda v, k: _lower_choice(v, k, ("header_comment", "reflect")),
    # CUTLASS SM90 stream-K scheduler (issue #27)
    "max_groups": _int, "alignment": _int, "big_units": _bool, "end_adjust": _bool,
    "decomposition": lambda v, k: _lower_choice(v, k, ("heuristic", "stream_k", "data_parallel", "split_k")),
    "reduction": lambda v, k: _lower_choice(v, k, ("deterministic", "nondeterministic", "final_waits_first")),
    # tiled copies (make_tiled_copy's thread and value layouts), issue #27
    "threads": _layout, "values": _layout,
}


# -- Blackwell (tcgen05) keys, issue #17 ---------------------------------------------------------------------------
def _word(v: Any, key: str) -> int:
    """A descriptor word: an int or a hex string ``"0x..."``."""
    if isinstance(v, str):
        try:
            v = int(v, 0)
        except ValueError:
            raise ValueError(f"expected an integer or a hex string like \"0x4000404000010000\", found {brief(v)}")\
                from None
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < 1 << 64:
        raise ValueError(f"expected a 64-bit descriptor word, found {brief(v)}")
    return v


def _fields(v: Any, key: str) -> tuple[tuple[str, int, int, tuple[int, ...]], ...]:
    """``[{ name, lo, width, values = [...] }, ...]``: descriptor fields and the values each may take."""
    if not isinstance(v, list) or not v:
        raise ValueError("expected a list of { name, lo, width, values } tables")
    out = []
    for f in v:
        if not isinstance(f, dict) or set(f) != {"name", "lo", "width", "values"}:
            raise ValueError(f"a field is {{ name = \"...\", lo = 0, width = 1, values = [0, 1] }}, found {brief(f)}")
        out.append((_str(f["name"], key), _int(f["lo"], key, 0), _int(f["width"], key),
                    _ints(f["values"], key, 0, (1, 64))))
    return tuple(out)


_CHECKERS |= {
    "base_address": lambda v, k: _int(v, k, 0), "descriptor": _word, "fields": _fields,
    "a_dtype": _str, "b_dtype": _str, "c_dtype": _str, "scale_dtype": _str, "data_path": _str,
    "mma_m": _int, "mma_n": _int, "k": _int, "vec": _int, "cta_group": _int, "scale_extent": _int,
    "a_major": lambda v, k: _choice(v, k, ("K", "MN")), "b_major": lambda v, k: _choice(v, k, ("K", "MN")),
    "warps": lambda v, k: _ints(v, k, 0, (1, 16)), "rows": lambda v, k: _ints(v, k, 0, (1, 8)),
    "columns": lambda v, k: _ints(v, k, 0, (1, 512)), "allocation": lambda v, k: _ints(v, k, 1, (1, 16)),
}
_CHECKERS |= {"lhs": _layout, "rhs": _layout, "wgmma_layout": _layout}  # composes: R == lhs o rhs; wgmma
_CHECKERS |= {"written_by": lambda v, k: _lower_choice(v, k, ("tma", "threads")),  # who wrote a stage (issue #25)
              "bits": lambda v, k: _int(v, k, 1)}  # a descriptor_format's word width


# -- whole-kernel data paths (kind "datapath"): one table per operand path -------------------------------------------
_PATH_KEYS: dict[str, Any] = {
    "smem": _layout, "write_smem": _layout, "read_smem": _layout, "descriptor_smem": _layout, "gmem": _layout,
    "threads": _layout,
    "values": _layout, "tv": _layout,
    "box": lambda v, k: _ints(v, k, 1, (1, 5)), "modes": lambda v, k: _ints(v, k, 0, (1, 5)),
    "global_shape": lambda v, k: _ints(v, k, 1, (1, 5)),
    "major": lambda v, k: _choice(v, k, ("K", "MN")), "dtype": _dtype,
    "load": _str, "load_atom": _str, "read": _str, "write": _str, "store": _str, "swizzle": _str,
    "tma_swizzle": _str, "descriptor_swizzle": _str,
    "tmem_atom": _str, "data_path": _str, "assumed_data_path": _str,
    "warps": lambda v, k: _ints(v, k, 0, (1, 16)), "rows": lambda v, k: _ints(v, k, 0, (1, 8)),
    "columns": lambda v, k: _ints(v, k, 0, (1, 512)),
}


def _peer_pair(v: Any, key: str) -> Any:
    """Two integers (peer 0, peer 1) or one formula of ``peer`` and ``MN`` (a cta_group::2 path's peer_rows/cta)."""
    return v if isinstance(v, str) else _ints(v, key, -MAX_EXTENT, (2, 2))


# tcgen05.cp (kind tmem_copy, issue #27): the shape's name and the TMEM column it is issued at
_CHECKERS |= {"shape": _str, "column": lambda v, k: _int(v, k, 0), "read_column": lambda v, k: _int(v, k, 0)}

# cta_group::2 operand paths (issue #27): models.datapath_values.PeerCopy
_PATH_KEYS |= {"cta_group": _int, "peer_rows": _peer_pair, "peer_cta": _peer_pair}


def _path_table(v: Any, key: str) -> tuple[tuple[str, Any], ...]:
    """``{ smem = "...", load = "cp.async", threads = "...", read = "SM75_U32x4_LDSM_N", ... }``: one data path's
    stages (``specs/README.md``, kind ``datapath``); each entry parsed like the config key of the same kind."""
    if not isinstance(v, dict) or not v:
        raise ValueError(f"expected a table of the {key} path's stages, e.g. {{ smem = \"...\", load = \"cp.async\", "
                         f"read = \"SM75_U32x4_LDSM_N\" }}, found {brief(v)}")
    out = []
    for name, x in v.items():
        if name not in _PATH_KEYS:
            raise ValueError(f"unknown key {name!r} in the {key} path{suggest(name, _PATH_KEYS)}")
        try:
            out.append((name, _PATH_KEYS[name](x, name)))
        except (LayoutError, ValueError) as e:
            raise ValueError(f"{name}: {one_line(e)}") from None
    return tuple(out)


_CHECKERS |= {"A": _path_table, "B": _path_table, "C": _path_table}


# -- block-scaled scale factors (kind "scale_factors", issue #27) -----------------------------------------------------
def _scale_side(v: Any, key: str) -> tuple[str, int | None]:
    """A producer's or consumer's scale layout: a name (``"128x4"``, ``"linear"``, ...) or CuTe text ``(mn, k) ->
    byte``, or ``{ layout = "...", vec = 16 }`` when that side groups K differently from the config's ``vec``."""
    if isinstance(v, str):
        return _str(v, key), None
    if isinstance(v, dict) and "layout" in v and set(v) <= {"layout", "vec"}:
        return _str(v["layout"], key), (_int(v["vec"], key) if "vec" in v else None)
    raise ValueError(f"expected a scale layout name, CuTe text, or {{ layout = \"128x4\", vec = 16 }}, "
                     f"found {brief(v)}")


# -- multi-stage pipelines (kind "pipeline", issue #27) -------------------------------------------------------------
_CHECKERS |= {"stages": _int, "k_blocks": _int, "stage_bytes": _int, "smem_bytes": _int, "align": _int,
              "stage": _str, "consumer_phase": _str, "producer_phase": _str}


def _expression(v: Any, key: str) -> str:
    """An expression: text, or an integer (a constant expression)."""
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    return _str(v, key)


# -- TMA multicast in a cluster (kind "multicast", issue #27) ----------------------------------------------------------
_CHECKERS |= {"extent": _int, "slice_start": _expression, "slice_rows": _expression, "mask": _expression,
              "needs": _expression}

_CHECKERS |= {"mn": _int, "producer": _scale_side, "consumer": _scale_side, "scale_layout": _str,
              "reads": lambda v, k: _lower_choice(v, k, ("scheduled", "block_index"))}


def parse_value(key: str, value: Any) -> Any:
    """The parsed value of spec ``key``; ``ValueError``/``LayoutError`` (a one-line reason) when it does not parse.

    Pre: ``key`` is a config key or a property parameter of the spec format.
    Post: the canonical value (see the table above).

    >>> parse_value("tile", [16, 8])
    (16, 8)
    """
    checker = _CHECKERS.get(key)
    if checker is None:
        raise ValueError(f"no checker for key {key!r}")
    return checker(value, key)
