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

``parse_spec(text, file, strict=False)`` keeps going past a bad config: the configs that load are in ``configs``,
each bad one is a ``SpecError`` in ``errors`` (``layoutcheck check`` turns it into an ERROR row and checks the rest).
``layoutcheck.spec.bind`` turns one (config, property) pair into a property object.
"""

from __future__ import annotations

import gc
import os
import re
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache, lru_cache
from typing import Any

from layoutcheck.errors import LayoutError, SpecError
from layoutcheck.spec import plain_toml
from layoutcheck.spec.schema import (
    COMMON_KEYS,
    EXPECTATIONS,
    FORMAT_VERSION,
    KINDS,
    MAX_NAME,
    NAME_PUNCTUATION,
    PROPERTY_SPECS,
    TOP_LEVEL_KEYS,
    Config,
    PropertyRequest,
    Spec,
    config_name_error,
)
from layoutcheck.spec.values import brief as _brief
from layoutcheck.spec.values import one_line as _one_line
from layoutcheck.spec.values import parse_value
from layoutcheck.spec.values import suggest as _suggest

# -- line finding -------------------------------------------------------------------------------------------------
_HEADER = re.compile(r"^\s*\[\[\s*config\s*\]\]")
_TABLE = re.compile(r"^\s*\[")
_KEY = re.compile(r"""^\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*=""")


def _scan_lines(text: str) -> tuple[dict[str, int], list[tuple[int, dict[str, int]]]]:
    """Top-level key lines, and for each ``[[config]]`` its header line and key lines (1-based)."""
    if _odd_breaks(text):  # line breaks other than \n and \r\n: number lines as str.splitlines does
        return _scan_split(text)
    top: dict[str, int] = {}
    blocks: list[tuple[int, dict[str, int]]] = []
    current: dict[str, int] | None = top
    n, at = 1, 0
    for m in _LINE_START.finditer(text):  # one pass over the text (issue #29): the regex skips the other lines
        n += text.count("\n", at, m.start())
        at = m.start()
        what = m.lastgroup  # exactly one named group takes part in a match
        if what == "header":
            blocks.append((n, {}))
            current = blocks[-1][1]
        elif what == "table":
            current = None
        elif current is not None:
            current.setdefault(m[what], n)
    return top, blocks


_ODD_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]|\r(?!\n)")


def _odd_breaks(text: str) -> bool:
    """``_ODD_BREAKS.search(text)``, by substring tests first (the regex scan of each spec's text was a third of
    ``_scan_lines``, issue #29): ``str.isascii`` is O(1) and rules out the non-ASCII breaks."""
    odd = "\x0b\x0c\x1c\x1d\x1e" if text.isascii() else "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
    return any(c in text for c in odd) or ("\r" in text and _ODD_BREAKS.search(text) is not None)


_LINE_START = re.compile(r"""^[^\S\n]*(?:(?P<header>\[\[[^\S\n]*config[^\S\n]*\]\])|(?P<table>\[)|"""
                         r"""(?:"(?P<dq>[^"\n]*)"|'(?P<sq>[^'\n]*)'|(?P<bare>[A-Za-z0-9_-]+))[^\S\n]*=)""", re.M)


def _scan_split(text: str) -> tuple[dict[str, int], list[tuple[int, dict[str, int]]]]:
    """``_scan_lines`` line by line, for a text with line breaks other than ``\\n``/``\\r\\n``."""
    top: dict[str, int] = {}
    blocks: list[tuple[int, dict[str, int]]] = []
    current: dict[str, int] | None = top
    for n, line in enumerate(_lines(text), 1):
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


@lru_cache(maxsize=4)
def _lines(text: str) -> tuple[str, ...]:
    """``text.splitlines()``, once per text (every property request of a file looks up its line)."""
    return tuple(text.splitlines())


def _find_line(text: str, needle: str, start: int) -> int:
    """The first line at or after ``start`` (1-based) that contains ``needle``, else ``start``.

    Indexes the file's lines in place: slicing them from ``start`` copied the rest of the file once per property
    request (a 70k-config spec took minutes to load, issue #29)."""
    lines = _lines(text)
    for n in range(start - 1, len(lines)):
        if needle in lines[n]:
            return n + 1
    return start


_PLAIN_NAME = re.compile(f"[A-Za-z0-9{re.escape(NAME_PUNCTUATION)}]{{1,{MAX_NAME}}}")
"""A config name that ``config_name_error`` accepts without a look at Unicode categories (ASCII letters, digits,
``_.+-``): most names, checked in one match."""


# -- loading ------------------------------------------------------------------------------------------------------
def load_spec(path: str, strict: bool = True) -> Spec:
    """Read and validate one spec file.

    Pre: ``path`` names a TOML file in the format of ``specs/README.md``.
    Post: every config has a known kind, known keys of the right types, parsed layouts and supported properties;
    otherwise ``SpecError("file:line: ...")``.
    """
    return parse_text(read_spec(path), path, strict)


def parse_text(text: str, path: str, strict: bool = True) -> Spec:
    """``parse_spec`` of a file's text; a file not named ``*.toml`` that is not TOML says which formats were tried."""
    try:
        return parse_spec(text, path, strict)
    except SpecError as e:
        if path.endswith(".toml") or ": invalid TOML: " not in str(e):
            raise
        raise SpecError(_unreadable(path, e.line or 1, str(e).split(": invalid TOML: ", 1)[1])) from None


def read_spec(path: str) -> str:
    """The text of the spec file at ``path``, read now (callers that cache a spec key it by this text, never by the
    path: a file rewritten in place must give the new file's verdict). Raises ``SpecError`` if unreadable."""
    return read_text(path, "cannot read spec", lambda line, why: _unreadable(path, line, why))


def read_text(path: str, cannot: str = "cannot read",
              undecodable: Callable[[int, str], str] | None = None) -> str:
    """The UTF-8 text of the file at ``path``, read now; ``SpecError`` naming the file and the reason otherwise
    (``undecodable(line, why)`` words a file that is not UTF-8, default ``path: why``)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise SpecError(f"{path}: {cannot}: {e.strerror or e}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        why = f"not UTF-8 text (byte {e.start})"
        line = raw.count(b"\n", 0, e.start) + 1
        raise SpecError(undecodable(line, why) if undecodable else f"{path}: {why}") from None


def _unreadable(path: str, line: int, why: str) -> str:
    """A file that cannot be read as a spec: named ``*.toml`` it is a broken spec; otherwise it may be some other
    input, so say which formats were tried."""
    if path.endswith(".toml"):
        return f"{path}:{line}: spec is {why}" if why.startswith("not ") else f"{path}:{line}: invalid TOML: {why}"
    return (f"{path}:{line}: not a layoutcheck input: tried a spec (TOML: {why}); layoutcheck also reads TTGIR "
            f"modules (.ttgir, .mlir), TileLang printouts (.tir files, logs) and CuTe printouts, and this is none of "
            f"them")


def parse_spec(text: str, file: str = "<spec>", strict: bool = True) -> Spec:
    """Validate spec ``text`` (see ``load_spec``); ``file`` is used in messages.

    ``strict``: the first bad config raises its ``SpecError``; otherwise bad configs are left out of ``configs`` and
    their errors listed in ``Spec.errors`` (a file-level error -- TOML syntax, ``format`` -- always raises).
    """
    with _no_cycle_collection():
        return _parse_spec(text, file, strict)


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """The cyclic garbage collector paused (then restored as it was): reading a spec builds millions of objects
    and no cycle (the TOML tree, the configs: plain values), and each collection the allocations set off walked
    every object built so far: a third of the time of a 70k-config spec (issue #29)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _parse_spec(text: str, file: str, strict: bool) -> Spec:
    try:
        data = _toml(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        where = f"{file}:{m.group(1)}" if m else file
        raise SpecError(f"{where}: invalid TOML: {re.sub(r' ?[(]at line.*', '', msg)}") from None
    except RecursionError:  # arrays or tables nested thousands deep: tomllib recurses per level
        line = next((n for n, ln in enumerate(text.splitlines(), 1) if max(ln.count("["), ln.count("{")) > 64), 1)
        raise SpecError(f"{file}:{line}: invalid TOML: nesting deeper than the TOML reader follows", file=file,
                        line=line) from None
    except ValueError as e:  # e.g. an integer of more than 4300 digits (sys.set_int_max_str_digits)
        line = next((n for n, ln in enumerate(text.splitlines(), 1) if re.search(r"\d{4000}", ln)), 1)
        raise SpecError(f"{file}:{line}: invalid value: {_one_line(e)} (integers in a spec are at most 2**40)",
                        file=file, line=line) from None
    top, blocks = _scan_lines(text)
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            hint = _suggest(key, list(TOP_LEVEL_KEYS))
            raise SpecError(f"{file}:{top.get(key, 1)}: unknown top-level key {key!r}{hint}", key=key)
    fmt = data.get("format")
    if fmt is None:
        raise SpecError(f"{file}:1: missing key 'format' (write 'format = {FORMAT_VERSION}' at the top)",
                        key="format")
    if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt != FORMAT_VERSION:
        raise SpecError(f"{file}:{top.get('format', 1)}: key 'format': this layoutcheck reads format "
                        f"{FORMAT_VERSION}, found {fmt!r}", key="format")
    configs = data.get("config", [])
    if not isinstance(configs, list) or not all(isinstance(c, dict) for c in configs):
        raise SpecError(f"{file}:{top.get('config', 1)}: key 'config': write configs as [[config]] tables",
                        key="config")
    if not configs:
        raise SpecError(f"{file}:1: no [[config]] tables")
    out: list[Config] = []
    errors: list[SpecError] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(configs):
        line, lines = blocks[i] if i < len(blocks) else (1, {})
        try:
            cfg = _parse_config(raw, file, line, lines, text)
            if cfg.name in seen:
                raise SpecError(f"{file}:{cfg.line_of('name')}: config name {cfg.name!r} repeats the config at line "
                                f"{seen[cfg.name]}", key="name")
        except SpecError as e:
            if strict:
                raise
            e.config = raw.get("name") if isinstance(raw.get("name"), str) else f"config #{i + 1}"
            errors.append(e)
            continue
        seen[cfg.name] = cfg.line
        out.append(cfg)
    desc = data.get("description", "")
    expect = data.get("expect", "proven")
    if expect not in EXPECTATIONS:
        raise SpecError(f"{file}:{top.get('expect', 1)}: key 'expect': expected one of {', '.join(EXPECTATIONS)}, "
                        f"found {expect!r}", key="expect")
    return Spec(file=file, format=fmt, configs=tuple(out), description=desc if isinstance(desc, str) else "",
                errors=tuple(errors), expect=expect)


def _parse_config(raw: dict[str, Any], file: str, line: int, lines: dict[str, int], text: str) -> Config:
    def err(key: str, message: str) -> SpecError:
        return SpecError(f"{file}:{lines.get(key, line)}: {where}key {key!r}: {message}", key=key)

    where = ""
    name = raw.get("name")
    bad_name = None if isinstance(name, str) and _PLAIN_NAME.fullmatch(name) else config_name_error(name)
    if bad_name:
        raise err("name", bad_name)
    where = f"config {name!r}: "
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise err("kind", f"expected one of {', '.join(KINDS)}, found {kind!r}{_suggest(str(kind), KINDS)}")
    allowed, required = _kind_keys(kind)
    for key in raw:
        if key not in allowed:
            raise err(key, f"unknown key for kind {kind!r}{_suggest(key, allowed)}")
    for key in required:
        if key not in raw:
            raise SpecError(f"{file}:{line}: {where}missing key {key!r} (kind {kind!r} needs "
                            f"{', '.join(sorted(KINDS[kind].required))})", key=key)
    values: list[tuple[str, Any]] = []
    for key, value in raw.items():
        if key in COMMON_KEYS:
            continue
        try:
            values.append((key, parse_value(key, value)))
        except (LayoutError, ValueError, TypeError) as e:
            raise err(key, _one_line(e)) from None
    vals = dict(values)
    one_of = KINDS[kind].one_of
    if one_of and sum(k in vals for k in one_of) != 1:
        raise SpecError(f"{file}:{line}: {where}kind {kind!r} needs exactly one of "
                        f"{' or '.join(repr(k) for k in one_of)}")
    for key, needed, why in KINDS[kind].implies:
        if key in vals and needed not in vals:
            raise err(key, why)
    props = raw.get("properties")
    if not isinstance(props, list) or not props:
        raise err("properties", f"expected a non-empty list of property names or tables, found {_brief(props)}")
    reqs = tuple(_parse_property(p, kind, file, lines.get("properties", line), text, where) for p in props)
    desc = raw.get("description", "")
    if not isinstance(desc, str):
        raise err("description", "expected a string")
    return Config(name=name, kind=kind, file=file, line=line, values=tuple(values), properties=reqs,
                  key_lines=tuple(sorted(lines.items())), description=desc)


@cache
def _kind_keys(kind: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The keys a config of ``kind`` may have, and those it must have (sorted), once per kind."""
    return frozenset(KINDS[kind].keys | COMMON_KEYS), tuple(sorted(KINDS[kind].required))


def _parse_property(p: Any, kind: str, file: str, line: int, text: str, where: str) -> PropertyRequest:
    if isinstance(p, str):
        name, params = p, {}
    elif isinstance(p, dict):
        name = p.get("name")
        params = {k: v for k, v in p.items() if k != "name"}
    else:
        raise SpecError(f"{file}:{line}: {where}key 'properties': expected a name or {{ name = ... }}, "
                        f"found {_brief(p)}", key="properties")
    if not isinstance(name, str):
        raise SpecError(f"{file}:{line}: {where}key 'properties': a property table needs name = \"...\"",
                        key="properties")
    pline = _find_line(text, f'"{name}"', line)
    if name not in PROPERTY_SPECS:
        raise SpecError(f"{file}:{pline}: {where}unknown property {name!r}{_suggest(name, PROPERTY_SPECS)}")
    if name not in KINDS[kind].properties:
        raise SpecError(f"{file}:{pline}: {where}property {name!r} does not apply to kind {kind!r} (it supports "
                        f"{', '.join(sorted(KINDS[kind].properties))})")
    checked: list[tuple[str, Any]] = []
    accepted = PROPERTY_SPECS[name].param_names
    for key, value in params.items():
        if key not in accepted:
            takes = ", ".join(sorted(accepted)) or "none"
            hint = _suggest(key, accepted) or f" (it takes {takes})"
            raise SpecError(f"{file}:{pline}: {where}property {name!r}: unknown parameter {key!r}{hint}", key=key)
        try:
            checked.append((key, parse_value(key, value)))
        except (LayoutError, ValueError, TypeError) as e:
            raise SpecError(f"{file}:{pline}: {where}property {name!r}: parameter {key!r}: {_one_line(e)}",
                            key=key) from None
    return PropertyRequest(name=name, params=tuple(checked), line=pline)


# -- collecting spec files ----------------------------------------------------------------------------------------
def collect(paths: list[str], include_broken: bool = False) -> list[str]:
    """Spec files named by ``paths`` (files, or directories searched recursively for ``*.toml``).

    A directory named ``broken`` below a given directory, and a file that declares ``expect = "refuted"`` (broken on
    purpose, e.g. a bug-zoo reproduction), are skipped unless ``include_broken`` (or the file was named explicitly).
    """
    files: list[str] = []
    for p in paths:
        if os.path.isfile(p):
            files.append(p)
        elif os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if include_broken or d != "broken")
                found = (os.path.join(root, n) for n in sorted(names) if n.endswith(".toml"))
                files.extend(f for f in found if include_broken or not declares_refuted(f))
        else:
            raise SpecError(f"{p}: no such spec file or directory")
    return files


def declares_refuted(path: str) -> bool:
    """Whether the spec file at ``path`` declares ``expect = "refuted"`` at top level (broken on purpose).

    Post: False for a file that cannot be read or parsed (``load_spec`` reports those when the file is checked).
    """
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
        head = _top_level(text)
        if head is not None and head.get("expect") != "refuted":
            return False
        return _toml(text).get("expect") == "refuted"  # the whole file: a broken one is checked, never skipped
    except (OSError, ValueError, UnicodeDecodeError):  # TOMLDecodeError is a ValueError; so are 4300-digit ints
        return False


_FIRST_TABLE = re.compile(r"^[ \t]*\[", re.M)


def _top_level(text: str) -> dict[str, Any] | None:
    """The top-level keys of ``text`` from the part before its first table header, or ``None`` when that part is
    not TOML on its own (then read the whole file).

    Every top-level key precedes the first header. A line that starts with ``[`` but is no header lies inside a
    multi-line string or array, so the part before it ends inside that value and does not parse: a part that
    parses ends at a real header and holds exactly the file's top-level keys. Reading only it spares ``collect``
    a parse of every config (the whole file was parsed twice: once here, once to load it, or the first parse was
    kept for the second, about 1 KB per config, issue #29)."""
    m = _FIRST_TABLE.search(text)
    try:
        return tomllib.loads(text[:m.start()] if m else text)
    except ValueError:
        return None


_PARSED: dict[str, dict[str, Any]] = {}
"""TOML documents parsed by this process, by their text (callers only read them): files with the same content (a
corpus copied, a spec included twice) are parsed once. Bounded by the text they hold, ``_PARSED_BYTES`` (about
1 KB of parsed values per config of ~100 characters), so memory does not grow with a run's configs."""
_PARSED_BYTES = 1 << 20


def _toml(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``, parsed once per distinct text among those ``_PARSED`` keeps; a text in plain TOML
    (``plain_toml``: most generated specs) read by the C JSON reader, a third of ``tomllib``'s time (issue #29)."""
    got = _PARSED.get(text)
    if got is None:
        got = plain_toml.loads(text)
        if got is None:
            got = tomllib.loads(text)
        if len(text) <= _PARSED_BYTES:
            while _PARSED and _held[0] + len(text) > _PARSED_BYTES:
                _held[0] -= len(next(iter(_PARSED)))  # the oldest first
                del _PARSED[next(iter(_PARSED))]
            _PARSED[text] = got
            _held[0] += len(text)
    return got


_held = [0]  # characters of text in _PARSED
