"""Spec files: kernel configurations and the properties they must satisfy, in TOML (``format = 1``).

The format is documented, with every key, in ``specs/README.md``. A spec file holds one or more ``[[config]]``
tables; each has a ``name``, a ``kind`` (what the subject is) and a ``properties`` list (what must hold)::

    format = 1

    [[config]]
    name = "sm80_16x8x16_C"
    kind = "tv"                                  # (thread, value) -> tile index, column-major
    tv = "((4,8),(2,2)):((32,1),(16,8))"
    tile = [16, 8]
    properties = ["exact_cover", { name = "vectorizable", width = 2 }]

Loading validates everything that can be validated without a proof: keys (unknown keys are errors, with a
suggestion), types, CuTe notation, which properties a kind supports. Every error is a ``SpecError`` whose one-line
message names ``file:line``, the config and the key (``tomllib`` reports no key positions, so lines are found by
scanning the text).

``build_property`` turns one (config, property) pair into a property object of ``layoutcheck.properties``; it is
the only place that knows how spec keys map onto that API. A property whose module is not installed yet raises
``ModuleMissing`` (the check reports it as UNKNOWN with that reason) instead of crashing.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from difflib import get_close_matches
from importlib import import_module
from typing import Any

from .errors import LayoutcheckError, LayoutError, SpecError
from .layout import Layout, size
from .swizzle import ComposedLayout, Swizzle

FORMAT_VERSION = 1

DTYPE_BITS: dict[str, int] = {
    "f64": 64, "s64": 64, "u64": 64, "b64": 64,
    "f32": 32, "tf32": 32, "s32": 32, "u32": 32, "i32": 32, "b32": 32,
    "f16": 16, "bf16": 16, "s16": 16, "u16": 16, "b16": 16,
    "s8": 8, "u8": 8, "i8": 8, "b8": 8, "e4m3": 8, "e5m2": 8, "f8": 8,
}
"""Element types by name -> width in bits (PTX ISA type names; ``f8`` means any 8-bit float)."""

KINDS: dict[str, dict[str, Any]] = {
    # kind -> allowed keys (besides name/kind/description/properties) and the properties it supports
    "layout": {"keys": {"layout", "other", "codomain", "dtype"},
               "required": {"layout"},
               "properties": {"injective", "surjective", "bijective", "equivalent", "in_bounds", "vectorizable"}},
    "tv": {"keys": {"tv", "tile", "memory", "other", "dtype"},
           "required": {"tv", "tile"},
           "properties": {"exact_cover", "injective", "surjective", "bijective", "equivalent", "in_bounds",
                          "vectorizable"}},
    "tiled_mma": {"keys": {"atom", "atom_layout", "permutation", "tile", "operand"},
                  "required": {"atom", "tile"},
                  "properties": {"exact_cover", "injective", "in_bounds"}},
    "smem": {"keys": {"layout", "atom", "tile", "dtype", "access", "access_tv", "access_expr", "access_ranges"},
             "required": {"dtype"},
             "properties": {"conflict_free", "wavefront_count", "injective", "bijective", "in_bounds"}},
    "tma": {"keys": {"box", "dtype", "swizzle", "global_shape", "global_strides", "interleave", "smem_layout",
                     "major", "tile", "modes"},
            "required": {"box", "dtype"},
            "properties": {"tma_compatible"}},
}
COMMON_KEYS = {"name", "kind", "description", "properties"}
PROPERTY_PARAMS: dict[str, set[str]] = {
    "injective": set(), "surjective": {"codomain"}, "bijective": {"codomain"}, "equivalent": {"other"},
    "in_bounds": {"bound"}, "exact_cover": {"operand", "replication"}, "vectorizable": {"width"},
    "conflict_free": {"access"}, "wavefront_count": {"access", "n", "max"},
    "tma_compatible": set(),
}
ALL_PROPERTIES = sorted(PROPERTY_PARAMS)

# which module each property needs (for "property X needs module Y" messages)
PROPERTY_MODULE: dict[str, str] = {name: "layoutcheck.properties" for name in PROPERTY_PARAMS} | {
    "conflict_free": "layoutcheck.banks", "wavefront_count": "layoutcheck.banks", "tma_compatible": "layoutcheck.tma"}
KIND_MODULE: dict[str, tuple[str, ...]] = {
    "tiled_mma": ("layoutcheck.tiled_mma", "layoutcheck.hw.mma"),
    "smem": ("layoutcheck.banks",),
    "tma": ("layoutcheck.tma",),
}


class ModuleMissing(LayoutcheckError):
    """A property needs a layoutcheck module that is not installed in this build; the check reports UNKNOWN."""


@dataclass(frozen=True, slots=True)
class PropertyRequest:
    """One entry of a config's ``properties`` list: a property name and its parameters."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    line: int = 0

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)

    @property
    def label(self) -> str:
        """``vectorizable(width=8)``: the name with its parameters, as tables and reports print it."""
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(f'{k}={_show(v)}' for k, v in self.params)})"


@dataclass(frozen=True, slots=True)
class Config:
    """One ``[[config]]``: its kind, validated values (layouts already parsed) and property requests."""

    name: str
    kind: str
    file: str
    line: int
    values: tuple[tuple[str, Any], ...]
    properties: tuple[PropertyRequest, ...]
    key_lines: tuple[tuple[str, int], ...] = ()
    description: str = ""

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.values).get(key, default)

    def line_of(self, key: str) -> int:
        return dict(self.key_lines).get(key, self.line)

    def error(self, key: str, message: str) -> SpecError:
        return SpecError(f"{self.file}:{self.line_of(key)}: config {self.name!r}: key {key!r}: {message}")


@dataclass(frozen=True, slots=True)
class Spec:
    file: str
    format: int
    configs: tuple[Config, ...]
    description: str = ""


def _show(v: Any) -> str:
    if isinstance(v, tuple):
        return "(" + ",".join(_show(x) for x in v) + ")"
    return str(v)


CALC_FUNCTIONS = (
    "make_layout", "size", "cosize", "rank", "depth", "coalesce", "filter", "filter_zeros", "composition",
    "complement", "right_inverse", "left_inverse", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
    "logical_product", "zipped_product", "tiled_product", "flat_product", "blocked_product", "raked_product",
    "make_layout_tv", "upcast", "downcast", "max_common_vector", "max_common_layout", "tile_to_shape",
    "make_ordered_layout", "make_composed_layout",
)


_LAYOUT_FIRST = ("coalesce", "filter", "filter_zeros", "composition", "right_inverse", "left_inverse", "logical_divide",
                 "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "zipped_product", "tiled_product",
                 "flat_product", "blocked_product", "raked_product", "upcast", "downcast", "max_common_vector",
                 "max_common_layout", "tile_to_shape", "cosize")


def _layout_first(fn: Any) -> Any:
    from .layout import as_layout

    def call(first: Any = None, *rest: Any) -> Any:
        if first is None:
            raise TypeError(f"{fn.__name__}() needs a layout as its first argument")
        if any(isinstance(a, ComposedLayout) for a in (first, *rest)):
            raise LayoutError(f"{fn.__name__} takes plain layouts, found a swizzled layout (the algebra acts on the "
                              f"layout; compose the swizzle afterwards with make_composed_layout)")
        if fn.__name__ in ("max_common_vector", "max_common_layout", "blocked_product", "raked_product"):
            rest = tuple(r if isinstance(r, Layout) else as_layout(r) for r in rest)
        return fn(first if isinstance(first, Layout) else as_layout(first), *rest)

    call.__name__ = fn.__name__
    return call


def calc_functions() -> dict[str, Any]:
    """The function table of ``layoutcheck calc``: the public algebra functions, plus ``shape``/``stride``/``get``."""
    import layoutcheck as lc

    from .layout import Layout, as_layout

    table: dict[str, Any] = {name: getattr(lc, name) for name in CALC_FUNCTIONS}
    for name in _LAYOUT_FIRST:  # CuTe reads an int n as the layout n:1 and a shape as its column-major layout
        table[name] = _layout_first(table[name])

    def get(layout: Any, *modes: int) -> Any:
        out = as_layout(layout)
        for i in modes:
            out = out[i]
        return out

    def make_composed_layout(swizzle: Any, layout: Any, offset: int = 0) -> ComposedLayout:
        if not isinstance(swizzle, Swizzle) or not isinstance(layout, Layout) or not _is_int(offset):
            raise LayoutError("make_composed_layout takes (Sw<B,M,S>, layout[, offset])")
        return ComposedLayout(swizzle, offset, layout)

    table.update(make_composed_layout=make_composed_layout, shape=lambda l: as_layout(l).shape,
                 stride=lambda l: as_layout(l).stride, get=get, layout=lambda *a: Layout(*a))
    return table


# -- line finding -------------------------------------------------------------------------------------------------
_HEADER = re.compile(r"^\s*\[\[\s*config\s*\]\]")
_TABLE = re.compile(r"^\s*\[")
_KEY = re.compile(r"""^\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*=""")


def _scan_lines(text: str) -> tuple[dict[str, int], list[tuple[int, dict[str, int]]]]:
    """Top-level key lines, and for each ``[[config]]`` its header line and key lines (1-based)."""
    top: dict[str, int] = {}
    blocks: list[tuple[int, dict[str, int]]] = []
    current: dict[str, int] | None = top
    for n, line in enumerate(text.splitlines(), 1):
        if _HEADER.match(line):
            blocks.append((n, {}))
            current = blocks[-1][1]
            continue
        if _TABLE.match(line):
            current = None
            continue
        m = _KEY.match(line)
        if m and current is not None:
            current.setdefault(next(g for g in m.groups() if g is not None), n)
    return top, blocks


def _find_line(text: str, needle: str, start: int) -> int:
    for n, line in enumerate(text.splitlines()[start - 1:], start):
        if needle in line:
            return n
    return start


# -- loading ------------------------------------------------------------------------------------------------------
def load_spec(path: str) -> Spec:
    """Read and validate one spec file.

    Pre: ``path`` names a TOML file in the format of ``specs/README.md``.
    Post: every config has a known kind, known keys of the right types, parsed layouts and supported properties;
    otherwise ``SpecError("file:line: ...")``.
    """
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise SpecError(f"{path}: cannot read spec: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SpecError(f"{path}: spec is not UTF-8 text (byte {e.start})") from None
    return parse_spec(text, path)


def parse_spec(text: str, file: str = "<spec>") -> Spec:
    """Validate spec ``text`` (see ``load_spec``); ``file`` is used in messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        where = f"{file}:{m.group(1)}" if m else file
        raise SpecError(f"{where}: invalid TOML: {re.sub(r' ?[(]at line.*', '', msg)}") from None
    top, blocks = _scan_lines(text)
    for key in data:
        if key not in ("format", "description", "config"):
            hint = _suggest(key, ["format", "description", "config"])
            raise SpecError(f"{file}:{top.get(key, 1)}: unknown top-level key {key!r}{hint}")
    fmt = data.get("format")
    if fmt is None:
        raise SpecError(f"{file}:1: missing key 'format' (write 'format = {FORMAT_VERSION}' at the top)")
    if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt != FORMAT_VERSION:
        raise SpecError(f"{file}:{top.get('format', 1)}: key 'format': this layoutcheck reads format "
                        f"{FORMAT_VERSION}, found {fmt!r}")
    configs = data.get("config", [])
    if not isinstance(configs, list) or not all(isinstance(c, dict) for c in configs):
        raise SpecError(f"{file}:{top.get('config', 1)}: key 'config': write configs as [[config]] tables")
    if not configs:
        raise SpecError(f"{file}:1: no [[config]] tables")
    out: list[Config] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(configs):
        line, lines = blocks[i] if i < len(blocks) else (1, {})
        cfg = _parse_config(raw, file, line, lines, text)
        if cfg.name in seen:
            raise SpecError(f"{file}:{cfg.line_of('name')}: config name {cfg.name!r} repeats the config at line "
                            f"{seen[cfg.name]}")
        seen[cfg.name] = cfg.line
        out.append(cfg)
    desc = data.get("description", "")
    return Spec(file=file, format=fmt, configs=tuple(out), description=desc if isinstance(desc, str) else "")


def _suggest(word: str, options: Any) -> str:
    near = get_close_matches(word, sorted(options), n=2)
    return f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else ""


def _parse_config(raw: dict[str, Any], file: str, line: int, lines: dict[str, int], text: str) -> Config:
    def err(key: str, message: str) -> SpecError:
        return SpecError(f"{file}:{lines.get(key, line)}: {where}key {key!r}: {message}")

    where = ""
    name = raw.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.+-]{1,100}", name):
        raise err("name", f"expected a config name of letters, digits, '_.+-', found {name!r}")
    where = f"config {name!r}: "
    kind = raw.get("kind")
    if kind not in KINDS:
        raise err("kind", f"expected one of {', '.join(KINDS)}, found {kind!r}{_suggest(str(kind), KINDS)}")
    allowed = KINDS[kind]["keys"] | COMMON_KEYS
    for key in raw:
        if key not in allowed:
            raise err(key, f"unknown key for kind {kind!r}{_suggest(key, allowed)}")
    for key in sorted(KINDS[kind]["required"]):
        if key not in raw:
            raise SpecError(f"{file}:{line}: {where}missing key {key!r} (kind {kind!r} needs "
                            f"{', '.join(sorted(KINDS[kind]['required']))})")
    values: list[tuple[str, Any]] = []
    for key, value in raw.items():
        if key in COMMON_KEYS:
            continue
        try:
            values.append((key, _value(key, value)))
        except (LayoutError, ValueError, TypeError) as e:
            raise err(key, _one_line(e)) from None
    vals = dict(values)
    if kind == "smem" and ("layout" in vals) == ("atom" in vals):
        raise SpecError(f"{file}:{line}: {where}kind 'smem' needs exactly one of 'layout' or 'atom'")
    if kind == "smem" and "atom" in vals and "tile" not in vals:
        raise err("atom", "an 'atom' needs a 'tile' to repeat it over")
    props = raw.get("properties")
    if not isinstance(props, list) or not props:
        raise err("properties", f"expected a non-empty list of property names or tables, found {_brief(props)}")
    reqs = tuple(_parse_property(p, kind, file, lines.get("properties", line), text, where) for p in props)
    desc = raw.get("description", "")
    if not isinstance(desc, str):
        raise err("description", "expected a string")
    return Config(name=name, kind=kind, file=file, line=line, values=tuple(values), properties=reqs,
                  key_lines=tuple(sorted(lines.items())), description=desc)


def _parse_property(p: Any, kind: str, file: str, line: int, text: str, where: str) -> PropertyRequest:
    if isinstance(p, str):
        name, params = p, {}
    elif isinstance(p, dict):
        name = p.get("name")
        params = {k: v for k, v in p.items() if k != "name"}
    else:
        raise SpecError(f"{file}:{line}: {where}key 'properties': expected a name or {{ name = ... }}, "
                        f"found {_brief(p)}")
    if not isinstance(name, str):
        raise SpecError(f"{file}:{line}: {where}key 'properties': a property table needs name = \"...\"")
    pline = _find_line(text, f'"{name}"', line)
    if name not in PROPERTY_PARAMS:
        raise SpecError(f"{file}:{pline}: {where}unknown property {name!r}{_suggest(name, PROPERTY_PARAMS)}")
    if name not in KINDS[kind]["properties"]:
        raise SpecError(f"{file}:{pline}: {where}property {name!r} does not apply to kind {kind!r} (it supports "
                        f"{', '.join(sorted(KINDS[kind]['properties']))})")
    checked: list[tuple[str, Any]] = []
    for key, value in params.items():
        if key not in PROPERTY_PARAMS[name]:
            takes = ", ".join(sorted(PROPERTY_PARAMS[name])) or "none"
            hint = _suggest(key, PROPERTY_PARAMS[name]) or f" (it takes {takes})"
            raise SpecError(f"{file}:{pline}: {where}property {name!r}: unknown parameter {key!r}{hint}")
        try:
            checked.append((key, _value(key, value)))
        except (LayoutError, ValueError, TypeError) as e:
            raise SpecError(f"{file}:{pline}: {where}property {name!r}: parameter {key!r}: {_one_line(e)}") from None
    return PropertyRequest(name=name, params=tuple(checked), line=pline)


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


def _brief(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 60 else s[:57] + "..."


# -- value checkers (one per key) ---------------------------------------------------------------------------------
MAX_EXTENT = 1 << 40


def _layout(v: Any, key: str) -> Layout | ComposedLayout:
    """CuTe notation, or a ``layoutcheck calc`` expression that evaluates to a layout."""
    from .notation import evaluate_expression

    if not isinstance(v, str):
        raise ValueError(f"expected a layout in CuTe notation as a string, found {_brief(v)}")
    try:
        value = evaluate_expression(v, calc_functions())
    except (TypeError, AttributeError, IndexError, KeyError, ZeroDivisionError, RecursionError, OverflowError) as e:
        raise LayoutError(f"cannot evaluate {v!r}: {type(e).__name__}: {e}") from None
    if isinstance(value, tuple) and _is_shape(value):
        value = Layout(value)
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        value = Layout(value)
    if not isinstance(value, (Layout, ComposedLayout)):
        raise LayoutError(f"expected a layout, {v!r} evaluates to {_brief(value)}")
    return value


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_shape(t: Any) -> bool:
    if isinstance(t, tuple):
        return len(t) > 0 and all(_is_shape(x) for x in t)
    return isinstance(t, int) and not isinstance(t, bool) and t > 0


def _ints(v: Any, key: str, lo: int = 1, n: tuple[int, int] = (1, 8)) -> tuple[int, ...]:
    if isinstance(v, int) and not isinstance(v, bool):
        v = [v]
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise ValueError(f"expected a list of integers, found {_brief(v)}")
    if not n[0] <= len(v) <= n[1]:
        raise ValueError(f"expected {n[0]} to {n[1]} integers, found {len(v)}")
    for x in v:
        if not lo <= x <= MAX_EXTENT:
            raise ValueError(f"entry {x} out of range [{lo}, 2**40]")
    return tuple(v)


def _int(v: Any, key: str, lo: int = 1) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= MAX_EXTENT:
        raise ValueError(f"expected an integer in [{lo}, 2**40], found {_brief(v)}")
    return v


def _str(v: Any, key: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"expected a non-empty string, found {_brief(v)}")
    return v.strip()


def _dtype(v: Any, key: str) -> str:
    s = _str(v, key).lower()
    if s not in DTYPE_BITS:
        raise ValueError(f"unknown dtype {s!r}{_suggest(s, DTYPE_BITS)} (known: {', '.join(DTYPE_BITS)})")
    return s


def _permutation(v: Any, key: str) -> tuple[Any, ...]:
    if not isinstance(v, list) or not 1 <= len(v) <= 3:
        raise ValueError(f"expected a list of 1-3 entries (an int size or a layout string per mode), found {_brief(v)}")
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
            raise ValueError(f"permutation entries are ints or layout strings, found {_brief(x)}")
    return tuple(out)


def _atom(v: Any, key: str) -> Any:
    if isinstance(v, str):
        return _str(v, key)
    if isinstance(v, dict):
        extra = set(v) - {"major", "mode"}
        if extra or set(v) != {"major", "mode"}:
            raise ValueError('an smem atom table is { major = "K" | "MN", mode = "none" | "32B" | "64B" | "128B" }')
        return (("major", _str(v["major"], key).upper()), ("mode", _str(v["mode"], key)))
    raise ValueError(f"expected an atom name or {{ major, mode }}, found {_brief(v)}")


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
    "access_tv": _layout, "access_expr": _str, "access_ranges": lambda v, k: _ranges(v, k),
    "dtype": _dtype, "access": _str, "swizzle": _str, "interleave": _str, "atom": _atom,
    "operand": lambda v, k: _choice(v, k, ("A", "B", "C")),
}


def _ranges(v: Any, key: str) -> tuple[tuple[str, int], ...]:
    if not isinstance(v, dict) or not v:
        raise ValueError("expected a table of loop variables and extents, e.g. { r = 4, s = 2 } (first fastest)")
    out = []
    for name, ext in v.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name == "lane":
            raise ValueError(f"bad loop variable name {name!r} ('lane' is implicit)")
        out.append((name, _int(ext, key)))
    return tuple(out)


def _choice(v: Any, key: str, options: tuple[str, ...]) -> str:
    s = _str(v, key).upper()
    if s not in options:
        raise ValueError(f"expected one of {', '.join(options)}, found {v!r}")
    return s


def _value(key: str, value: Any) -> Any:
    checker = _CHECKERS.get(key)
    if checker is None:
        raise ValueError(f"no checker for key {key!r}")
    return checker(value, key)


# -- collecting spec files ----------------------------------------------------------------------------------------
def collect(paths: list[str], include_broken: bool = False) -> list[str]:
    """Spec files named by ``paths`` (files, or directories searched recursively for ``*.toml``).

    A directory named ``broken`` below a given directory is skipped unless ``include_broken`` (or it was named
    explicitly).
    """
    files: list[str] = []
    for p in paths:
        if os.path.isfile(p):
            files.append(p)
        elif os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if include_broken or d != "broken")
                files.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(".toml"))
        else:
            raise SpecError(f"{p}: no such spec file or directory")
    return files


# -- binding to the property API ----------------------------------------------------------------------------------
def _need(module: str, prop: str) -> Any:
    try:
        return import_module(module)
    except ImportError as e:
        if e.name and not module.startswith(e.name) and not e.name.startswith("layoutcheck"):
            raise
        raise ModuleMissing(f"property {prop} needs module {module}, not available") from None


def required_modules(cfg: Config, req: PropertyRequest) -> tuple[str, ...]:
    return (PROPERTY_MODULE[req.name], *KIND_MODULE.get(cfg.kind, ()))


def subject(cfg: Config, req: PropertyRequest | None = None) -> Any:
    """The layout-like object a config describes (for ``show``/``vectors`` and for the property binding)."""
    if cfg.kind in ("layout",):
        return cfg.get("layout")
    if cfg.kind == "tv":
        return cfg.get("tv")
    if cfg.kind == "smem":
        return smem_layout(cfg)
    if cfg.kind == "tiled_mma":
        return tiled_mma(cfg, req.name if req else "tiled_mma")
    raise cfg.error("kind", f"kind {cfg.kind!r} has no layout subject")


def smem_layout(cfg: Config) -> Layout | ComposedLayout:
    """The config's shared-memory layout: ``layout`` as written, or a GMMA ``atom`` tiled to ``tile``."""
    if cfg.get("layout") is not None:
        return cfg.get("layout")
    from .hw.smem import gmma_smem_atom
    from .tiling import tile_to_shape

    atom = dict(cfg.get("atom") if not isinstance(cfg.get("atom"), str) else ())
    if not atom:
        raise cfg.error("atom", "kind 'smem' takes an atom table { major, mode }")
    try:
        a = gmma_smem_atom(atom["major"], atom["mode"], DTYPE_BITS[cfg.get("dtype")])
        tiled = tile_to_shape(a.layout, cfg.get("tile"))
    except LayoutError as e:
        raise cfg.error("atom", _one_line(e)) from None
    return ComposedLayout(a.element_swizzle, 0, tiled)


def tiled_mma(cfg: Config, prop: str) -> Any:
    """Build the config's TiledMMA with ``layoutcheck.tiled_mma`` (``ModuleMissing`` when it is not there)."""
    mma_hw = _need("layoutcheck.hw.mma", prop)
    tm = _need("layoutcheck.tiled_mma", prop)
    try:
        atom = mma_hw.mma_atom(cfg.get("atom"))
    except LayoutError as e:
        raise cfg.error("atom", _one_line(e)) from None
    except KeyError:
        raise cfg.error("atom", f"unknown MMA atom {cfg.get('atom')!r}") from None
    perm = tuple(cfg.get("permutation") or ())
    perm = perm + (None,) * (3 - len(perm))
    try:
        return tm.make_tiled_mma(atom, cfg.get("atom_layout", (1, 1, 1)), perm)
    except LayoutError as e:
        raise cfg.error("permutation" if cfg.get("permutation") else "atom_layout", _one_line(e)) from None


def tile_shape(cfg: Config) -> tuple[int, ...]:
    return tuple(cfg.get("tile"))


def build_property(cfg: Config, req: PropertyRequest) -> Any:
    """The ``layoutcheck.properties`` object for one request.

    Raises ``ModuleMissing`` when a module the property needs is absent, ``SpecError`` (file:line:key) when the
    config's values do not fit the property.
    """
    module = PROPERTY_MODULE[req.name]
    fn = getattr(_need(module, req.name), req.name, None)
    if fn is None:
        raise ModuleMissing(f"property {req.name} needs {module}.{req.name}, not available")
    try:
        return _BINDERS[cfg.kind](fn, cfg, req)
    except (ModuleMissing, SpecError):
        raise
    except LayoutError as e:
        raise SpecError(f"{cfg.file}:{req.line or cfg.line}: config {cfg.name!r}: property {req.name!r}: "
                        f"{_one_line(e)}") from None


def _tv_memory(cfg: Config, lay: Any) -> Any:
    """A TV config's map to memory offsets: ``memory o tv`` when a ``memory`` layout is given, else ``tv``."""
    mem = cfg.get("memory")
    if mem is None:
        return lay
    from .algebra import composition

    if isinstance(mem, ComposedLayout):
        return ComposedLayout(mem.swizzle, mem.offset, composition(mem.layout, lay))
    return composition(mem, lay)


def _dtype_bytes(cfg: Config, req: PropertyRequest) -> int:
    dtype = req.get("dtype", cfg.get("dtype"))
    if dtype is None:
        raise cfg.error("dtype", f"property {req.name!r} needs the config's 'dtype' (e.g. \"f16\")")
    return max(1, DTYPE_BITS[dtype] // 8)


def _bind_layout(fn: Any, cfg: Config, req: PropertyRequest) -> Any:
    lay = subject(cfg, req)
    name = req.name
    tile_n = size(Layout(tile_shape(cfg))) if cfg.kind == "tv" else None
    if name == "equivalent":
        other = req.get("other", cfg.get("other"))
        if other is None:
            raise cfg.error("other", "property 'equivalent' needs 'other' (a layout to compare with)")
        return fn(lay, other)
    if name in ("surjective", "bijective"):
        return fn(lay, req.get("codomain", cfg.get("codomain", tile_n)))
    if name == "in_bounds":
        bound = req.get("bound", cfg.get("codomain", tile_n))
        if bound is None:
            raise cfg.error("properties", "property 'in_bounds' needs a 'bound' (or the config's 'codomain')")
        return fn(lay, bound)
    if name == "vectorizable":
        width = req.get("width")
        if width is None:
            raise cfg.error("properties", "property 'vectorizable' needs a 'width' in bytes (e.g. 16)")
        return fn(_tv_memory(cfg, lay) if cfg.kind == "tv" else lay, width, _dtype_bytes(cfg, req))
    if name == "exact_cover":
        return fn(lay, tile_shape(cfg), req.get("replication"))
    return fn(lay)


def _bind_tiled_mma(fn: Any, cfg: Config, req: PropertyRequest) -> Any:
    """Properties of the whole CTA tile: the operand's ``thrfrg`` layout ``(thread, value) -> tile index``."""
    mma = tiled_mma(cfg, req.name)
    operand = req.get("operand", cfg.get("operand", "C"))
    tile = mma_cta_tile(cfg, mma, operand)
    frg = mma_thrfrg(cfg, mma, operand, tile)
    if req.name == "exact_cover":
        return fn(frg, tile, req.get("replication", 1))
    if req.name == "in_bounds":
        return fn(frg, size(Layout(tile)))
    return fn(frg)


def mma_cta_tile(cfg: Config, mma: Any, operand: str) -> tuple[int, int]:
    """The (rows, cols) of ``operand`` in the config's CTA ``tile`` = [M, N] or [M, N, K] (K defaults to the MMA's)."""
    t = tile_shape(cfg)
    if len(t) not in (2, 3):
        raise cfg.error("tile", f"a tiled_mma tile is [M, N] or [M, N, K], found {list(t)}")
    m, n = t[0], t[1]
    k = t[2] if len(t) == 3 else mma.tile_size_mnk[2]
    return {"A": (m, k), "B": (n, k), "C": (m, n)}[operand]


def mma_thrfrg(cfg: Config, mma: Any, operand: str, tile: tuple[int, int]) -> Layout:
    try:
        return getattr(mma, f"thrfrg_{operand}")(Layout(tile))
    except LayoutError as e:
        raise cfg.error("tile", _one_line(e)) from None


def smem_access(cfg: Config, req: PropertyRequest) -> Any:
    """The access of a smem config: a kind name (the canonical tile access), or an ``Access`` built from
    ``access_tv`` (``(32 lanes, V) -> element``) or ``access_expr`` over ``access_ranges``."""
    banks = _need("layoutcheck.banks", req.name)
    kind = req.get("access", cfg.get("access"))
    if kind is None:
        raise cfg.error("access", f"property {req.name!r} needs an 'access' (e.g. \"ldsm_x4\", \"sts32\")")
    bits = DTYPE_BITS[cfg.get("dtype")]
    try:
        banks.access_kind(kind)
        if cfg.get("access_tv") is not None:
            tv = cfg.get("access_tv")
            if not isinstance(tv, Layout):
                raise cfg.error("access_tv", "an access TV map cannot be swizzled")
            return banks.access_from_tv(kind, tv, bits, f"{kind} by {tv}")
        if cfg.get("access_expr") is not None:
            return banks.access_from_expr(kind, cfg.get("access_expr"), bits, dict(cfg.get("access_ranges", ())))
    except LayoutError as e:
        key = "access_tv" if cfg.get("access_tv") is not None else "access_expr"
        raise cfg.error(key if cfg.get(key) is not None else "access", _one_line(e)) from None
    return kind


def _bind_smem(fn: Any, cfg: Config, req: PropertyRequest) -> Any:
    lay = smem_layout(cfg)
    if req.name in ("conflict_free", "wavefront_count"):
        access = smem_access(cfg, req)
        bits = DTYPE_BITS[cfg.get("dtype")]
        if req.name == "conflict_free":
            return fn(lay, access, dtype_bits=bits)
        if (req.get("n") is None) == (req.get("max") is None):
            raise cfg.error("properties", "property 'wavefront_count' needs exactly one of n (exact) or max (bound)")
        return fn(lay, access, n=req.get("n"), dtype_bits=bits, max=req.get("max"))
    if req.name == "in_bounds":
        return fn(lay, req.get("bound", size(lay.layout if isinstance(lay, ComposedLayout) else lay)))
    if req.name == "bijective":
        return fn(lay, req.get("codomain"))
    return fn(lay)


TMA_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "tf32": "tfloat32", "f64": "float64",
              "u8": "uint8", "s8": "uint8", "i8": "uint8", "b8": "uint8", "e4m3": "uint8", "e5m2": "uint8",
              "f8": "uint8", "u16": "uint16", "s16": "uint16", "b16": "uint16", "u32": "uint32", "s32": "int32",
              "i32": "int32", "b32": "uint32", "u64": "uint64", "s64": "int64", "b64": "uint64"}
"""Spec dtype -> ``CUtensorMapDataType`` name (8-bit types travel as UINT8; CUDA driver API, cuTensorMapEncodeTiled)."""


def _bind_tma(fn: Any, cfg: Config, req: PropertyRequest) -> Any:
    tma = _need("layoutcheck.tma", req.name)
    dtype = TMA_DTYPES[cfg.get("dtype")]
    swizzle = cfg.get("swizzle", "none")
    box = cfg.get("box")
    if cfg.get("smem_layout") is not None:
        lay = cfg.get("smem_layout")
        modes = cfg.get("modes") or tuple(range(len(box)))
        inner_ = lay.layout if isinstance(lay, ComposedLayout) else lay
        tile = tuple(size(m) for m in inner_)
        dims = [0] * len(tile)
        for i, d in enumerate(modes):
            if d < len(dims):
                dims[d] = tile[i]
    else:
        major, tile2 = cfg.get("major"), cfg.get("tile")
        if major is None or tile2 is None or len(tile2) != 2:
            raise cfg.error("box", "kind 'tma' needs 'smem_layout', or 'major' and a 2-D 'tile' = [MN, K]")
        try:
            lay = tma.mma_smem_layout(major, swizzle, dtype, tuple(tile2))
        except LayoutError as e:
            raise cfg.error("tile", _one_line(e)) from None
        mn, k = tile2
        dims, modes = ([k, mn], (1, 0)) if major == "K" else ([mn, k], (0, 1))
        modes = cfg.get("modes") or modes
    gdims = tuple(cfg.get("global_shape") or dims)
    esize = max(1, DTYPE_BITS[cfg.get("dtype")] // 8)
    if cfg.get("global_strides") is not None:
        gstrides = tuple(cfg.get("global_strides"))
    else:
        acc, out = esize, []
        for d in gdims[:-1]:
            acc *= d
            out.append(acc)
        gstrides = tuple(out)
    try:
        tbox = tma.TmaBox(dtype, gdims, gstrides, tuple(box), interleave=cfg.get("interleave", "none"),
                          swizzle=swizzle)
    except LayoutError as e:
        raise cfg.error("box", _one_line(e)) from None
    return fn(tbox, lay, tuple(modes))


_BINDERS = {"layout": _bind_layout, "tv": _bind_layout, "tiled_mma": _bind_tiled_mma, "smem": _bind_smem,
            "tma": _bind_tma}
