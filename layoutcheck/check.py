"""(file, config, property) -> row: the one core behind ``layoutcheck check``, ``prove``, ``testing`` and ``gpu``.

A *row* is one verdict as plain data (no layout or solver objects, so worker processes can send it back and reports
never import z3). Its ``status`` is one of::

    PROVEN    an engine decided the property over its whole domain
    REFUTED   the property is false; ``counterexample`` is a re-checked witness in CuTe coordinates (the layout's
              fault: an image outside its codomain, a misaligned vector, a permutation that is not one, ...)
    UNKNOWN   not decided: ``reason`` says why (timeout, too large, solver unknown, a missing optional module)
    ERROR     the config could not be read: ``reason`` names the key and ``line`` holds it; the run goes on.
              ``internal`` marks a bug in layoutcheck (exit code 4), never the user's input

This module is the one road from any input to a row: a TOML spec (``check_property``), the claims a ``.ttgir``
module, a TileLang log or lowered TIR, or a CuTe printout implies (``check_claim``, ``road_of``), ``prove``'s flags
(a config built from them), ``gpu`` (its exact-cover gate) and the HTML report's pictures (``row_property``).
``check_paths`` reads every input file once (a file that cannot be read is one ERROR row naming it, a bad config is
an ERROR row, everything else still runs), builds each property once and proves it, optionally over a process pool
(``jobs``): consecutive configs batched per task (``_batches``), the heaviest first. The plan streams (issue #29):
it keeps per file its counts, its content digest and its text (in a spool: memory, then a temporary file), never an
object per config; units are made file by file as they run (``PlannedUnits``) and a pool is fed ``POOL_WINDOW``
units at a time, so a run's memory is flat in its number of configs. The exit code of a run is the
worst of its rows (``exit_code``, severity in ``layoutcheck.errors``).
"""

from __future__ import annotations

import gc
import os
import re
import signal
import sys
import threading
import time
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from layoutcheck.errors import (
    EXIT_ERROR,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_REFUTED,
    EXIT_UNKNOWN,
    HardTimeout,
    LayoutcheckError,
    ModuleMissing,
    SpecError,
    worst_exit,
)
from layoutcheck.result import DEFAULT_TIMEOUT

try:  # hashlib's own BLAKE2b, without the OpenSSL library ``import hashlib`` maps (~3 MB of a run's peak RSS)
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover (a Python built without it)
    from hashlib import blake2b as _blake2b

STATUSES = ("PROVEN", "REFUTED", "UNKNOWN", "ERROR")
_EXIT = {"PROVEN": EXIT_OK, "REFUTED": EXIT_REFUTED, "UNKNOWN": EXIT_UNKNOWN, "ERROR": EXIT_ERROR}
FILE_LEVEL = "-"
"""The ``config`` and ``property`` of a row about a whole spec file (it did not load at all)."""


@dataclass(frozen=True, slots=True)
class Row:
    """One (config, property) verdict as plain data; ``status`` is one of ``STATUSES``."""

    file: str
    config: str
    property: str
    status: str
    engine: str = ""
    time_s: float = 0.0
    counterexample: str | None = None
    counterexample_data: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None
    line: int = 0
    key: str | None = None
    internal: bool = False
    claim: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise AssertionError(f"unknown status {self.status!r}")

    @property
    def exit_code(self) -> int:
        """This row's exit code: 0 PROVEN, 1 REFUTED, 2 ERROR, 3 UNKNOWN, 4 an internal error."""
        return EXIT_INTERNAL if self.internal else _EXIT[self.status]

    def fields(self) -> tuple[Any, ...]:
        """The row as a tuple of its fields in declaration order (``row_of`` is the inverse): what workers send
        back and the report spool keeps (a tuple pickles in a tenth of the time of the dataclass)."""
        return (self.file, self.config, self.property, self.status, self.engine, self.time_s, self.counterexample,
                self.counterexample_data, self.reason, self.line, self.key, self.internal, self.claim)

    def __reduce__(self) -> tuple[Any, ...]:
        return row_of, (self.fields(),)


ROW_FIELDS = ("file", "config", "property", "status", "engine", "time_s", "counterexample", "counterexample_data",
              "reason", "line", "key", "internal", "claim")
"""``Row``'s fields in order: the positions in ``Row.fields()`` (``F_*`` name the ones the run reads)."""
F_CONFIG, F_PROPERTY, F_STATUS, F_LINE, F_INTERNAL = 1, 2, 3, 9, 11
_set = object.__setattr__


def row_of(t: tuple[Any, ...]) -> Row:
    """The ``Row`` of ``Row.fields()`` ``t`` (already validated: no ``__post_init__``)."""
    r = object.__new__(Row)
    for name, value in zip(ROW_FIELDS, t, strict=True):
        _set(r, name, value)
    return r


def fields_exit_code(t: tuple[Any, ...]) -> int:
    """``Row.exit_code`` of the row with fields ``t``."""
    return EXIT_INTERNAL if t[F_INTERNAL] else _EXIT[t[F_STATUS]]


def exit_code(rows: Sequence[Row]) -> int:
    """The worst exit code of ``rows`` (``layoutcheck.errors.EXIT_SEVERITY``: 4, 2, 1, 3, 0).

    >>> exit_code([Row("f", "c", "p", "PROVEN"), Row("f", "c", "q", "UNKNOWN", reason="t")])
    3
    """
    kept = getattr(rows, "exit_code", None)  # a ``report.stream.RowSpool`` keeps it: nothing to read back
    return kept() if callable(kept) else worst_exit([r.exit_code for r in rows])


def row_from_result(result: Any, file: str, config: str, prop: str, line: int = 0, prefix: str = "") -> Row:
    """A ``Row`` from a ``layoutcheck.result.Result``; ``prefix`` goes before the counterexample text."""
    ce = result.counterexample
    data = _jsonable(dict(ce.data)) if ce is not None and getattr(ce, "data", None) else {}
    text = None if ce is None else prefix + str(ce)
    return Row(file=file, config=config, property=prop, status=str(result.status), engine=str(result.engine),
               time_s=float(result.time_s), counterexample=text, counterexample_data=data, reason=result.reason,
               line=line, claim=str(result.property))


def error_row(file: str, config: str, prop: str, message: str, line: int = 0, key: str | None = None,
              internal: bool = False, time_s: float = 0.0) -> Row:
    """An ERROR row: the config could not be read (``internal``: layoutcheck failed on it -- a bug)."""
    return Row(file=file, config=config, property=prop, status="ERROR", time_s=time_s, reason=message, line=line,
               key=key, internal=internal)


def _jsonable(x: Any) -> Any:
    """Plain JSON values (numpy ints/arrays and tuples become ints/lists; anything else its ``str``)."""
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (bool, int, float, str)) or x is None:
        return x
    if hasattr(x, "tolist"):
        return _jsonable(x.tolist())
    return str(x)


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def internal_message(e: BaseException) -> str:
    """The one-line text of a bug in layoutcheck, asking for a report."""
    return f"internal error: {type(e).__name__}: {_one_line(e)} (a bug in layoutcheck, please report it)"


# -- a hard wall-clock limit ------------------------------------------------------------------------------------------
@contextmanager
def hard_deadline(seconds: float) -> Iterator[None]:
    """Raise ``HardTimeout`` after ``seconds`` of wall clock (SIGALRM; a no-op off the main thread)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def _fire(signum: int, frame: Any) -> None:
        raise HardTimeout(f"no verdict within the hard limit of {seconds:.0f} s")

    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)  # an enclosing deadline keeps running afterwards
    t0 = time.monotonic()
    old = signal.signal(signal.SIGALRM, _fire)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, outer_left) if outer_left > 0 else seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if outer_left > 0:
            signal.setitimer(signal.ITIMER_REAL, max(outer_left - (time.monotonic() - t0), 1e-3))


def hard_limit(timeout: float) -> float:
    """The hard wall-clock limit of a proof given ``timeout`` seconds (engines stop themselves well before it)."""
    return timeout * 2 + 5


# -- one (config, property) ------------------------------------------------------------------------------------------
def check_property(cfg: Any, req: Any, engine: str = "auto", timeout: float = DEFAULT_TIMEOUT,
                   memory: int | None = None) -> Row:
    """Build one property of one config and prove it: never raises for anything about the input.

    Pre: ``cfg`` a loaded ``spec.schema.Config``, ``req`` one of its ``PropertyRequest``s.
    Post: a ``Row``; PROVEN/REFUTED only from an engine (REFUTED with a re-checked witness); ERROR with the key and
    line of a value that does not fit; ``internal`` only for a bug in layoutcheck.
    """
    from layoutcheck.spec.bind import build_property

    return _decide(lambda: build_property(cfg, req), cfg.file, cfg.name, req.label, req.line or cfg.line, engine,
                   timeout, memory, cfg)


def check_claim(file: str, subject: str, prop: Any, line: int = 0, engine: str = "auto",
                timeout: float = DEFAULT_TIMEOUT, memory: int | None = None) -> Row:
    """Prove one claim an imported file implies (``prop`` a built property about ``subject``, at ``line``): the
    same guards as ``check_property`` (a hard deadline, UNKNOWN for a missing module, ERROR rows for a bug)."""
    return _decide(lambda: prop, file, subject, prop.name, line, engine, timeout, memory)


def _decide(build: Callable[[], Any], file: str, config: str, label: str, line: int, engine: str, timeout: float,
            memory: int | None, cfg: Any = None) -> Row:
    """``prove(build())`` as a row; every failure about the input becomes a row, never an exception."""
    from layoutcheck.engines.prove import prove
    from layoutcheck.spec.bind import Unsound

    t0 = time.perf_counter()
    where = {"file": file, "config": config, "prop": label}
    try:
        prop = build()
        with hard_deadline(hard_limit(timeout)):
            result = prove(prop, engine=engine, timeout=timeout, **_budget(memory))
        return row_from_result(result, file, config, label, line)
    except Unsound as u:
        return _unsound_row(u, cfg, label, engine, timeout)
    except SpecError as e:
        return error_row(**where, message=_strip_location(e), line=e.line or line, key=e.key,
                         time_s=time.perf_counter() - t0)
    except (ModuleMissing, HardTimeout) as e:
        return Row(**_named(where), status="UNKNOWN", engine=engine, time_s=time.perf_counter() - t0,
                   reason=_one_line(e), line=line)
    except MemoryError:
        return Row(**_named(where), status="UNKNOWN", engine=engine, time_s=time.perf_counter() - t0,
                   reason="too large: evaluating it ran out of memory (MemoryError); check a smaller tile or use "
                          "an engine that does not enumerate (--engine linear or z3)", line=line)
    except LayoutcheckError as e:
        return error_row(**where, message=_one_line(e), line=line, key="properties", time_s=time.perf_counter() - t0)
    except Exception as e:  # a bug in layoutcheck: an ERROR row that asks to be reported, the run goes on
        return error_row(**where, message=internal_message(e), line=line, internal=True,
                         time_s=time.perf_counter() - t0)


def _budget(memory: int | None) -> dict[str, int]:
    return {} if memory is None else {"memory_budget": memory}


def _named(where: dict[str, str]) -> dict[str, str]:
    return {"file": where["file"], "config": where["config"], "property": where["prop"]}


def _strip_location(e: SpecError) -> str:
    """The message of ``e`` without its ``file:line:`` prefix (rows keep file and line apart)."""
    text = _one_line(e)
    prefix = f"{e.file}:{e.line}: "
    return text[len(prefix):] if e.file is not None and text.startswith(prefix) else text


def _unsound_row(u: Any, cfg: Any, label: str, engine: str, timeout: float) -> Row:
    """REFUTED with the counterexample of the law the config breaks (proved like any property)."""
    from layoutcheck.engines.prove import prove

    with hard_deadline(hard_limit(timeout)):
        result = prove(u.claim, engine=engine, timeout=timeout)
    if str(result.status) != "REFUTED":  # the binder saw a broken law the engines cannot confirm: our bug
        return error_row(cfg.file, cfg.name, label, internal_message(AssertionError(
            f"{u.what}, but {u.claim} is {result.status}")), line=cfg.line_of(u.key), internal=True)
    return row_from_result(result, cfg.file, cfg.name, label, cfg.line_of(u.key), prefix=f"{u.what}: ")


# -- files and runs -------------------------------------------------------------------------------------------------
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


# -- a run's plan, kept off the heap ---------------------------------------------------------------------------------
def content_digest(text: str) -> bytes:
    """The caches' key for a file's content: its 128-bit BLAKE2b digest (of the UTF-8 bytes). A digest of the
    content is still a content key (a rewritten file gets a new one), and keeps no text alive (issue #29)."""
    return _blake2b(text.encode("utf-8"), digest_size=16).digest()


SPOOL_IN_MEMORY = 8 << 20
"""Bytes of planned texts a plan keeps in memory; past them it writes each file's text to a temporary file."""


class _Spool:
    """The bytes ``plan`` keeps for a run (each file's text as planned, its configs' weights): in memory up to
    ``SPOOL_IN_MEMORY`` bytes, then appended to a temporary file, removed when the last ``Blob`` of it goes."""

    def __init__(self) -> None:
        self.kept = 0
        self.path: str | None = None
        self._file: Any = None
        self._end = 0

    def put(self, data: bytes) -> Blob:
        if self.kept + len(data) <= SPOOL_IN_MEMORY:
            self.kept += len(data)
            return Blob(None, 0, len(data), data)
        if self._file is None:
            import tempfile
            import weakref

            fd, self.path = tempfile.mkstemp(prefix="layoutcheck-plan-", suffix=".spool")
            self._file = os.fdopen(fd, "wb")
            weakref.finalize(self, _remove_spool, self._file, self.path, os.getpid())
        at = self._end
        self._file.write(data)
        self._end += len(data)
        return Blob(self.path, at, len(data), None, self)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()


def _remove_spool(f: Any, path: str, pid: int) -> None:
    if os.getpid() == pid:  # a forked worker that exits never removes its parent's spool
        f.close()
        with suppress(OSError):
            os.remove(path)


@dataclass(frozen=True, slots=True)
class Blob:
    """Bytes a plan kept: ``data`` in memory, or ``length`` bytes at ``offset`` of the spool file ``path``."""

    path: str | None
    offset: int
    length: int
    data: bytes | None = None
    owner: Any = field(default=None, repr=False, compare=False)  # the spool: its file lives while a blob does

    def read(self) -> bytes:
        if self.data is not None:
            return self.data
        assert self.path is not None
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            return f.read(self.length)

    def __reduce__(self) -> tuple[Any, ...]:  # a worker reads the parent's spool; it does not own it
        return Blob, (self.path, self.offset, self.length, self.data)


@dataclass(frozen=True, slots=True)
class Planned:
    """A file's content as ``plan`` read it: its ``content_digest`` (the caches' key) and the text itself, kept by
    the plan (``Blob``), so a file rewritten during a run cannot swap the configs under their indices."""

    digest: bytes
    blob: Blob = field(repr=False)

    def text(self) -> str:
        return self.blob.read().decode("utf-8")


@dataclass(frozen=True, slots=True)
class Gap:
    """What an imported file holds but no claim models (a layout the importer skipped): an UNKNOWN row."""

    line: int
    subject: str
    reason: str


@dataclass(frozen=True, slots=True)
class Unit:
    """One task of a run: every property of config ``index`` of ``file`` (a spec or a CuTe printout), or every claim
    of an imported ``file`` (``road`` ``ttgir``, ``tilelang`` or ``ptx``; ``banks``: with the bank-conflict
    claims)."""

    file: str
    index: int
    properties: int
    weight: int = 1  # relative cost estimate: a pool starts the heaviest units first
    road: str = "spec"
    banks: bool = False
    planned: Planned | None = field(default=None, repr=False, compare=False)
    """The file's content when planned (its digest is the caches' key); ``None``: read it when run."""


_RANGE_KINDS = ("residue", "scheduler")
"""Config kinds whose claims hold for every problem size in a range: Z3 integer queries, 10-100x a layout proof."""


_RANGE_WEIGHT = 100
"""The weight of one size-range claim, in layout proofs."""


def _weight(cfg: Any) -> int:
    return len(cfg.properties) * (_RANGE_WEIGHT if cfg.kind in _RANGE_KINDS else 1)


@dataclass(frozen=True, slots=True)
class PlannedFile:
    """The units of one input file, as ``plan`` counted them: ``units`` of them with ``properties`` rows in all,
    ``weight`` in all, ``light`` of them lighter than a size-range claim; ``sizes`` holds each config's
    (properties, weight) (``array('l')`` bytes; empty for an imported file: one unit)."""

    file: str
    road: str
    banks: bool
    planned: Planned
    units: int
    properties: int
    weight: int
    light: int
    sizes: Blob | None = None


class PlannedUnits:
    """The units of a plan, made file by file as they are iterated (re-iterable, in plan order): a run holds the
    counts of each file, never one object per config (issue #29). ``len``, ``properties``, ``weight`` and ``light``
    are the totals."""

    def __init__(self, files: list[PlannedFile]) -> None:
        self.files = files
        self._len = sum(f.units for f in files)
        self.properties = sum(f.properties for f in files)
        self.weight = sum(f.weight for f in files)
        self.light = sum(f.light for f in files)

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[Unit]:
        for f in self.files:
            if f.sizes is None:
                yield Unit(f.file, 0, f.properties, f.weight, f.road, f.banks, f.planned)
                continue
            sizes = array("l")
            sizes.frombytes(f.sizes.read())
            for i in range(f.units):
                yield Unit(f.file, i, sizes[2 * i], sizes[2 * i + 1], f.road, f.banks, f.planned)

    def last_positions(self, order: dict[str, int]) -> dict[int, int]:
        """The position of each file's last unit, by the file's index in ``order``."""
        last, at = {}, 0
        for f in self.files:
            at += f.units
            if f.units:
                last[order.get(f.file, 0)] = at - 1
        return last


def _last_positions(units: Any, order: dict[str, int]) -> dict[int, int]:
    if isinstance(units, PlannedUnits):
        return units.last_positions(order)
    return {order.get(u.file, 0): n for n, u in enumerate(units)}


def _totals(units: Any) -> tuple[int, int, int]:
    """(units, weight, light units) of a plan's units (a ``PlannedUnits`` or a list of units built by hand)."""
    if isinstance(units, PlannedUnits):
        return len(units), units.weight, units.light
    return len(units), sum(u.weight for u in units), sum(u.weight < _RANGE_WEIGHT for u in units)


@dataclass(frozen=True, slots=True)
class Plan:
    """What a run will do: ``units`` to prove (a ``PlannedUnits``, made as they are iterated, or a list built by
    hand), ``errors`` (rows of what did not load), ``files`` in path order."""

    units: Sequence[Unit] | PlannedUnits
    errors: list[Row]
    files: list[str]

    @property
    def checks(self) -> int:
        n = self.units.properties if isinstance(self.units, PlannedUnits) else sum(u.properties for u in self.units)
        return n + len(self.errors)


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


def row_property(row: Row) -> Any:
    """The property ``row`` decided, rebuilt by the road that decided it (a broken law's claim for a config that
    breaks one): what the HTML report draws. ``LookupError`` when the file no longer holds it."""
    gone = LookupError(f"{row.file} no longer holds config {row.config!r} with property {row.property}")
    road = road_of(row.file)
    if road in IMPORTED_ROADS:  # with the bank claims: every claim the file implies
        found = [c.prop for c in _claims(row.file, road, True)
                 if not isinstance(c, Gap) and (c.subject, c.prop.name, c.line) == (row.config, row.property, row.line)]
        if not found:
            raise gone
        return found[0]
    from layoutcheck.spec.bind import Unsound, build_property

    cfg = next((c for c in _load(row.file).configs if c.name == row.config), None)
    req = next((q for q in cfg.properties if q.label == row.property), None) if cfg else None
    if req is None:
        raise gone
    try:
        return build_property(cfg, req)
    except Unsound as u:
        return u.claim


AUTO_MAX_JOBS = 8
"""The most worker processes ``auto_jobs`` starts (the serial start-up bounds the gain beyond)."""
AUTO_MIN_WEIGHT = 100
"""The smallest run (in ``Unit.weight``: layout proofs; one size-range claim weighs 100) that ``auto_jobs`` spreads
over workers: below it, starting them costs more than they save."""


def auto_jobs(p: Plan) -> int:
    """The workers ``check -j auto`` uses for ``p``: the usable cores (at most ``AUTO_MAX_JOBS`` and the number of
    units) when the run weighs at least ``AUTO_MIN_WEIGHT`` and workers are forked (Linux), else 1.

    Post: ``1 <= auto_jobs(p) <= max(1, len(p.units))``; the rows do not depend on it (only the wall time does).
    """
    count, weight, _ = _totals(p.units)
    if not sys.platform.startswith("linux") or count < 2 or weight < AUTO_MIN_WEIGHT:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, AUTO_MAX_JOBS, count))


def run_unit(unit: Unit, engine: str = "auto", timeout: float = DEFAULT_TIMEOUT, memory: int | None = None
             ) -> list[Row]:
    """Every property of one config (every claim of one imported file), in order (runs in a worker process under
    ``jobs > 1``)."""
    if unit.road in IMPORTED_ROADS:
        return [_gap_row(unit.file, c) if isinstance(c, Gap) else
                check_claim(unit.file, c.subject, c.prop, c.line, engine, timeout, memory)
                for c in _claims(unit.file, unit.road, unit.banks, unit.planned)]
    cfg = _planned_config(unit)
    return [check_property(cfg, req, engine, timeout, memory) for req in cfg.properties]


def _gap_row(file: str, gap: Gap) -> Row:
    return Row(file=file, config=gap.subject, property=FILE_LEVEL, status="UNKNOWN", reason=gap.reason, line=gap.line)


def _unit_rows(unit: Unit) -> list[tuple[str, str, int]]:
    """(config, property, line) of every row ``run_unit(unit)`` gives, without proving anything."""
    if unit.road in IMPORTED_ROADS:
        return [(c.subject, FILE_LEVEL if isinstance(c, Gap) else c.prop.name, c.line)
                for c in _claims(unit.file, unit.road, unit.banks, unit.planned)]
    cfg = _planned_config(unit)
    return [(cfg.name, req.label, req.line or cfg.line) for req in cfg.properties]


def check_paths(paths: Sequence[str], engine: str = "auto", timeout: float = DEFAULT_TIMEOUT, jobs: int = 1,
                include_broken: bool = False, on_row: Callable[[Row], None] | None = None,
                planned: Plan | None = None, memory: int | None = None, banks: bool = False) -> list[Row]:
    """Check every (config, property) of the input files under ``paths`` (spec files, ``.ttgir`` modules, TileLang
    and CuTe printouts: ``road_of``); rows in path order, then line order (``check_rows`` as a list).

    ``jobs > 1`` runs configs in a pool of worker processes; ``on_row`` sees each row as it is done.
    """
    p = planned if planned is not None else plan(paths, include_broken, banks)
    return list(check_rows(p, engine, timeout, jobs, on_row, memory))


def check_rows(p: Plan, engine: str = "auto", timeout: float = DEFAULT_TIMEOUT, jobs: int = 1,
               on_row: Callable[[Row], None] | None = None, memory: int | None = None) -> Iterator[Row]:
    """The rows of plan ``p`` as they are decided, in report order: path order, then line order within a file
    (``sorted`` by (file, line), stable: a file's ERROR rows before its proofs on the same line).

    Streams (issue #29): a file's rows are held only until its last unit is done, then yielded sorted, so a run
    keeps at most about one file's rows (all of them only when a file is named twice, its units apart).
    ``on_row`` sees each row as it is done (the plan's ERROR rows first).
    """
    seen = None if on_row is None else (lambda t: on_row(row_of(t)))
    for t in check_fields(p, engine, timeout, jobs, seen, memory):
        yield row_of(t)


def check_fields(p: Plan, engine: str = "auto", timeout: float = DEFAULT_TIMEOUT, jobs: int = 1,
                 on_row: Callable[[tuple[Any, ...]], None] | None = None, memory: int | None = None
                 ) -> Iterator[tuple[Any, ...]]:
    """``check_rows`` as ``Row.fields()`` tuples (``on_row`` sees them too): what ``layoutcheck check`` spools; a
    worker's rows come back as tuples and no ``Row`` is built in the parent (issue #29). The units are made as they
    run (``PlannedUnits``): nothing here is kept per config."""
    order = {f: i for i, f in enumerate(p.files)}
    last = _last_positions(p.units, order)  # the position of each file's last unit
    held: dict[int, list[tuple[Any, ...]]] = {}
    for r in p.errors:
        t = r.fields()
        if on_row:
            on_row(t)
        held.setdefault(order.get(r.file, 0), []).append(t)
    ready = 0  # files below it are out
    for n, (u, rows) in enumerate(_run_units(p.units, engine, timeout, jobs, memory)):
        if on_row:
            for t in rows:
                on_row(t)
        held.setdefault(order.get(u.file, 0), []).extend(rows)
        while ready < len(p.files) and last.get(ready, -1) <= n:  # every unit of file `ready` is done
            yield from sorted(held.pop(ready, ()), key=_line)
            ready += 1
    for k in sorted(held):  # files with no unit (only ERROR rows) after the last unit, and any file index 0 left
        yield from sorted(held[k], key=_line)


def _line(t: tuple[Any, ...]) -> int:
    return t[F_LINE]


POOL_WINDOW = 4096
"""Units a pool plans into tasks at a time (issue #29): two windows are in flight, so the parent holds a bounded
number of units and rows whatever the run's size; a smaller run is one window (its heaviest units first)."""


def _run_units(units: Any, engine: str, timeout: float, jobs: int, memory: int | None
               ) -> Iterator[tuple[Unit, list[tuple[Any, ...]]]]:
    """Each unit with its rows as ``Row.fields()`` tuples, in plan order (``units`` iterated once, lazily)."""
    count, _, light = _totals(units)
    if jobs <= 1 or count <= 1:
        for u in units:
            yield u, [r.fields() for r in run_unit(u, engine, timeout, memory)]
        return
    from collections import deque
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool
    from itertools import islice
    from multiprocessing import get_context

    # imported once here, before the workers fork, so they inherit the modules instead of each importing them
    from layoutcheck.engines.prove import prove  # noqa: F401
    from layoutcheck.spec.bind import build_property  # noqa: F401

    if light < count:  # size-range claims go to Z3: import it once, here
        with suppress(ImportError):
            import z3  # noqa: F401

    ctx = get_context("fork") if hasattr(os, "fork") else get_context()
    size = _batch_size(light, jobs)
    tasks = (count - light) + -(-light // size)  # heavy units alone, the light ones in runs of `size`
    window = max(POOL_WINDOW, 4 * jobs * size)
    pending = iter(units)
    flight: deque[tuple[list[Unit], list[list[int]], array[int], list[Any]]] = deque()
    gc.freeze()  # the plan's objects: never walked by a collection again, nor copied into a forked worker by one
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, tasks), mp_context=ctx) as pool:

            def submit() -> None:
                chunk = list(islice(pending, window))
                if not chunk:
                    return
                batches = _batches(chunk, jobs, size)
                where = array("l", bytes(8 * len(chunk)))  # unit -> its batch
                for k, b in enumerate(batches):
                    for n in b:
                        where[n] = k
                futures: list[Any] = []
                for b in batches:
                    try:
                        futures.append(pool.submit(run_batch, [chunk[n] for n in b], engine, timeout, memory))
                    except BrokenProcessPool:  # a worker died: what is left runs alone (below)
                        futures.append(None)
                flight.append((chunk, batches, where, futures))

            submit()
            submit()
            while flight:
                chunk, batches, where, futures = flight[0]
                taken = [0] * len(batches)  # each batch's units are in plan order: the next out is its taken[k]-th
                for n, u in enumerate(chunk):  # in plan order, so progress and reports are deterministic
                    k = where[n]
                    i, taken[k] = taken[k], taken[k] + 1
                    try:
                        if futures[k] is None:
                            raise BrokenProcessPool("the pool broke before this task was submitted")
                        rows = futures[k].result()[i]
                    except BrokenProcessPool:  # a worker died (a crash, the OOM killer): the run goes on without it
                        rows = [r.fields() for r in _isolated(u, engine, timeout, memory, ctx)]
                    yield u, rows
                    if i == len(batches[k]) - 1:
                        futures[k] = None  # its rows are out: let them go
                flight.popleft()
                submit()
    finally:
        gc.unfreeze()


BATCH_UNITS = 64
"""The most configs one pool task checks (issue #29: one task per light config cost more in the parent -- pickling
each task and its result -- than the proofs it spread)."""


def _batch_size(light: int, jobs: int) -> int:
    """Light units per pool task: at most ``BATCH_UNITS``, small enough that every worker gets about 4 tasks."""
    return max(1, min(BATCH_UNITS, light // (4 * max(1, jobs))))


def _batches(units: list[Unit], jobs: int, size: int | None = None) -> list[list[int]]:
    """``units`` as pool tasks (lists of their positions, each in plan order), the heaviest first: each unit of
    size-range claims alone; the light ones in runs of consecutive units (the same file's caches) of at most
    ``size`` (default ``_batch_size`` of these units)."""
    heavy = sorted((n for n, u in enumerate(units) if u.weight >= _RANGE_WEIGHT), key=lambda n: -units[n].weight)
    light = [n for n, u in enumerate(units) if u.weight < _RANGE_WEIGHT]
    size = _batch_size(len(light), jobs) if size is None else size
    return [[n] for n in heavy] + [light[i:i + size] for i in range(0, len(light), size)]


def run_batch(units: list[Unit], engine: str = "auto", timeout: float = DEFAULT_TIMEOUT, memory: int | None = None
              ) -> list[list[tuple[Any, ...]]]:
    """``run_unit`` of each unit, in order (one pool task), its rows as ``Row.fields()`` tuples (the parent builds
    no ``Row``: it spools the tuples)."""
    return [[r.fields() for r in run_unit(u, engine, timeout, memory)] for u in units]


def _isolated(unit: Unit, engine: str, timeout: float, memory: int | None, ctx: Any) -> list[Row]:
    """``run_unit`` in a process of its own (after a worker died: each unit not yet done is retried alone, so only
    the one that kills its process gets ERROR rows, naming what happened)."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
            return pool.submit(run_unit, unit, engine, timeout, memory).result()
    except BrokenProcessPool as e:
        why = internal_message(RuntimeError(f"the process checking this config died ({e})"))
        return [error_row(unit.file, config, prop, why, line=line, internal=True)
                for config, prop, line in _unit_rows(unit)]
