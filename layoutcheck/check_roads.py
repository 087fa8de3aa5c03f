"""How ``layoutcheck check`` reads its inputs: which road reads a file (``road_of``), each file read and parsed once
per content (``_load``: TOML specs and CuTe printouts; ``_claims``: the claims a ``.ttgir``, TileLang or PTX file
implies), and ``plan``, which reads every input under the paths once into a ``check_plan.Plan`` (a file or a config
that does not load is an ERROR row naming it; everything else is planned).

The caches are keyed by (name, ``content_digest`` of the text): a worker forked after ``plan`` finds what it read,
and a file rewritten in place is read again.
"""

from __future__ import annotations

import os
import re
from array import array
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from layoutcheck.check_plan import (
    _RANGE_WEIGHT,
    Gap,
    Plan,
    Planned,
    PlannedFile,
    PlannedUnits,
    Unit,
    _Spool,
    _weight,
    content_digest,
)
from layoutcheck.check_row import FILE_LEVEL, Row, _one_line, _strip_location, error_row, internal_message
from layoutcheck.errors import LayoutcheckError, SpecError

ROADS = ("spec", "ttgir", "tilelang", "cute", "ptx")
"""How an input file is read: a TOML spec; a Triton ``.ttgir`` / ``.mlir`` module; TileLang printouts (a log) or
lowered TIR (``.tir``); a CuTe printout (a layout, ``print_layout`` or ``print(tiled_mma)``), taken as the spec
``layoutcheck import`` writes for it."""

_WHAT = {"spec": "spec", "ttgir": "TTGIR module", "tilelang": "TileLang file", "cute": "CuTe printout",
         "ptx": "PTX module"}
IMPORTED_ROADS = ("ttgir", "tilelang", "ptx")
"""The roads whose file implies its own claims (no configs): one unit per file."""

_SPECS: dict[tuple[str, bytes], Any] = {}
"""Specs loaded by this process, by (name, ``content_digest`` of the text): a worker forked after ``plan`` finds them
here, so each file is parsed once; a file rewritten in place is read again (a cache keyed by the name alone gave the
old file's verdict). A digest of the content is a content key: two texts share an entry only if their 128-bit
BLAKE2b digests collide; keying by the digest keeps no text alive (issue #29)."""
_CLAIMS: dict[tuple[str, bytes, str, bool, bytes | None], list[Any]] = {}
"""The claims of the ``.ttgir`` and TileLang files of this process, by (name, text, road, banks): read once, before
a fork; by content digest, like ``_SPECS``."""
_CACHE_BOUND = 1024
"""Entries either cache keeps before it starts afresh (a long-lived process checking many rewritten files)."""
_CONFIGS_BOUND = 40_000
"""The most configs ``_SPECS`` holds (about 1.3 KB each, so ~50 MB; a larger spec is held alone): past it a run's
later files are parsed twice (by ``plan``, then from the plan's spool when they run), so its memory does not grow
with its number of configs (issue #29)."""
_held_configs = 0


def read_input(file: str) -> str:
    """The text of an input file; ``SpecError`` naming the file and the reason when it cannot be read."""
    from layoutcheck.spec.load import read_text

    return read_text(file)


def road_of(path: str) -> str:
    """Which of ``ROADS`` reads the file ``path``: by its suffix (``.toml``, ``.ttgir`` / ``.mlir``, ``.tir``), else
    by its text (``#ttg.`` encodings, TileLang printouts, a TOML document, else a CuTe printout). A directory, a
    missing or an unreadable file is a spec (loading it names what is wrong)."""
    if path.endswith((".ttgir", ".mlir")):
        return "ttgir"
    if path.endswith(".tir"):
        return "tilelang"
    if path.endswith(".ptx"):
        return "ptx"
    if path.endswith(".toml") or not os.path.isfile(path):
        return "spec"
    try:
        text = read_input(path)
    except SpecError:
        return "spec"
    from layoutcheck.importers.tilelang_tir import is_tilelang_text  # only for a file that may be a log

    if "#ttg." in text:
        return "ttgir"
    if ".entry" in text and re.search(r"^\s*\.target\s+sm_", text, re.M):
        return "ptx"
    if is_tilelang_text(text):
        return "tilelang"
    return "spec" if _is_toml(text) else "cute"


def _is_toml(text: str) -> bool:
    import tomllib

    try:
        tomllib.loads(text)
    except ValueError:
        return False
    return True


def _load(file: str, planned: Planned | None = None, evict: bool = True, text: str | None = None) -> Any:
    """The spec of ``file`` (a TOML spec, or the spec of a CuTe printout) with the content ``planned`` (default: read
    now; ``text``: that content, when the caller holds it), parsed once per distinct (name, content digest) while
    ``_SPECS`` has room. ``evict``: make room by dropping the oldest specs; else (``plan``, which reads the files in
    the order they run) keep it only if it fits, so the first files to run stay and the others are read again (from
    the plan's spool) when their turn comes."""
    from layoutcheck.spec.load import parse_text, read_spec

    global _held_configs
    if planned is None:
        text = read_spec(file)
        key = (file, content_digest(text))
    else:
        key = (file, planned.digest)
    spec = _SPECS.get(key)
    if spec is None:
        text = planned.text() if text is None and planned is not None else text
        spec = _load_cute(file, text) if road_of(file) == "cute" else parse_text(text, file, strict=False)
        full = lambda: len(_SPECS) >= _CACHE_BOUND or _held_configs + len(spec.configs) > _CONFIGS_BOUND  # noqa: E731
        while evict and _SPECS and full():
            _held_configs -= len(_SPECS.pop(next(iter(_SPECS))).configs)  # the oldest first
        if not full() or not _SPECS:
            _SPECS[key] = spec
            _held_configs += len(spec.configs)
    return spec


def _load_cute(file: str, text: str) -> Any:
    """The spec ``layoutcheck import`` writes for a CuTe printout; a text that is none of the inputs is a
    ``SpecError`` naming every format tried (the spec reading's message, and why it is no CuTe printout either)."""
    from layoutcheck.spec.imported import spec_from_cute
    from layoutcheck.spec.load import parse_spec, parse_text

    try:
        spec_text = spec_from_cute(text, os.path.basename(file))
    except SpecError:
        raise
    except LayoutcheckError as cute:
        try:
            parse_text(text, file, strict=False)
        except SpecError as e:
            raise SpecError(f"{_one_line(e)} (CuTe: {_one_line(cute)})", key=e.key) from None
        raise
    return parse_spec(spec_text, file, strict=False)


def _claims(file: str, road: str, banks: bool = False, planned: Planned | None = None, text: str | None = None
            ) -> list[Any]:
    """The claims a ``.ttgir`` module (its bank-conflict claims only with ``banks``), a TileLang or PTX file with the
    content ``planned`` (default: read now; ``text``: that content, when the caller holds it) implies, once per
    distinct (name, content digest, road, banks, sibling cubin)."""
    if planned is None and text is None:
        text = read_input(file)
    digest = planned.digest if planned is not None else content_digest(text or "")
    cubin = _sibling_cubin(file) if road == "ptx" else None
    key = (file, digest, road, banks, cubin)
    if key not in _CLAIMS:
        if text is None and planned is not None:
            text = planned.text()
        assert text is not None
        if len(_CLAIMS) >= _CACHE_BOUND:
            _CLAIMS.clear()
        if road == "ptx":
            from layoutcheck.properties.ptx_smem import ptx_claims

            _CLAIMS[key] = list(ptx_claims(text, cubin))
        elif road == "ttgir":
            from layoutcheck.properties.ttgir import ttgir_claims

            got = ttgir_claims(text)
            gaps = [Gap(line, subject, f"not modelled: {why}") for line, subject, why in got.skipped]
            if not got.layouts:  # nothing to prove is no proof: a truncated module must not pass
                gaps.append(Gap(0, FILE_LEVEL, "nothing checked: the module holds no tensor with a layout encoding"))
            claims = [c for c in got.claims if c.required or banks]
            _CLAIMS[key] = sorted([*claims, *gaps], key=lambda c: c.line)
        else:
            from layoutcheck.properties.tilelang import tilelang_claims

            _CLAIMS[key] = list(tilelang_claims(text))
    return _CLAIMS[key]


def _sibling_cubin(file: str) -> bytes | None:
    """The bytes of ``STEM.cubin`` beside a ``STEM.ptx`` (the SASS its counts are checked against), if any."""
    stem, _ = os.path.splitext(file)
    try:
        with open(stem + ".cubin", "rb") as f:
            return f.read()
    except OSError:
        return None


def plan(paths: Sequence[str], include_broken: bool = False, banks: bool = False,
         on_file: Callable[[str], None] | None = None) -> Plan:
    """Read every input file under ``paths`` once; the tasks to run, and the ERROR rows of what did not load
    (``on_file`` is told each file before it is read: a progress bar).

    A path that does not exist, a file that cannot be read or parsed (TOML syntax, ``format``, a truncated
    ``.ttgir``) and each bad config become ERROR rows naming the file; the rest is planned (``road_of`` says how each
    file is read; ``banks``: a ``.ttgir`` module's bank-conflict claims too). Each file's text and its configs'
    sizes are kept in the plan's spool (in memory up to ``SPOOL_IN_MEMORY`` bytes, then on disk): the plan's memory
    grows with its files and ERROR rows, not with its configs.
    """
    from layoutcheck.spec.load import collect

    spool = _Spool()
    planned: list[PlannedFile] = []
    errors: list[Row] = []
    order: list[str] = []
    for p in paths:
        try:
            files = collect([p], include_broken)
        except SpecError as e:
            errors.append(error_row(p, FILE_LEVEL, FILE_LEVEL, _strip_location(e), line=e.line or 0))
            order.append(p)
            continue
        order += files
        for f in files:
            if on_file:
                on_file(f)
            found, bad = _plan_file(f, banks, spool)
            if found is not None:
                planned.append(found)
            errors += bad
    spool.flush()
    return Plan(PlannedUnits(planned), errors, list(dict.fromkeys(order)))


def _plan_file(f: str, banks: bool, spool: _Spool) -> tuple[PlannedFile | None, list[Row]]:
    """The units of one input file, or the ERROR rows saying why it (or some of its configs) did not load."""
    from layoutcheck.spec.load import read_spec

    road = road_of(f)
    try:
        if road in IMPORTED_ROADS:
            text = read_input(f)
            planned = Planned(content_digest(text), spool.put(text.encode("utf-8")))
            n = len(_claims(f, road, banks, planned, text))
            return (PlannedFile(f, road, banks, planned, 1, n, n, int(n < _RANGE_WEIGHT)) if n else None), []
        text = read_spec(f)
        planned = Planned(content_digest(text), spool.put(text.encode("utf-8")))
        spec = _load(f, planned, evict=False, text=text)
    except SpecError as e:
        return None, [error_row(f, FILE_LEVEL, FILE_LEVEL, _strip_location(e), line=e.line or 0, key=e.key)]
    except LayoutcheckError as e:  # a .ttgir, TileLang or CuTe text that does not parse
        return None, [error_row(f, FILE_LEVEL, FILE_LEVEL, f"cannot read the {_WHAT[road]} {f}: {_one_line(e)}")]
    except Exception as e:  # a bug in an importer: this file's ERROR row asks to be reported, the run goes on
        return None, [error_row(f, FILE_LEVEL, FILE_LEVEL, f"{f}: {internal_message(e)}", internal=True)]
    errors = [error_row(f, e.config or FILE_LEVEL, FILE_LEVEL, _strip_location(e), line=e.line or 0, key=e.key)
              for e in spec.errors]
    if not spec.configs:
        return None, errors
    sizes = array("l")
    for c in spec.configs:
        sizes.append(len(c.properties))
        sizes.append(_weight(c))
    weights = sizes[1::2]
    return PlannedFile(f, road, False, planned, len(spec.configs), sum(sizes[0::2]), sum(weights),
                       sum(w < _RANGE_WEIGHT for w in weights), spool.put(sizes.tobytes())), errors


def _planned_config(unit: Unit) -> Any:
    """The config ``unit`` was planned from: the file's text as ``plan`` read it, so a file rewritten during a run
    cannot swap the configs under their indices (``unit.planned`` is ``None`` only for units built by hand)."""
    return _load(unit.file, unit.planned).configs[unit.index]


def planned_configs(p: Plan) -> Iterator[Any]:
    """The loaded configs of the spec (and CuTe printout) units of ``p``, in plan order (what ``gpu`` instantiates)."""
    for u in p.units:
        if u.road not in IMPORTED_ROADS:
            yield _planned_config(u)
