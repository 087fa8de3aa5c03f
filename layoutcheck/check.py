"""(file, config, property) -> row: the one core behind ``layoutcheck check``, ``prove``, ``testing`` and ``gpu``.

A *row* is one verdict as plain data (no layout or solver objects, so worker processes can send it back and reports
never import z3). Its ``status`` is one of::

    PROVEN    an engine decided the property over its whole domain
    REFUTED   the property is false; ``counterexample`` is a re-checked witness in CuTe coordinates (the layout's
              fault: an image outside its codomain, a misaligned vector, a permutation that is not one, ...)
    UNKNOWN   not decided: ``reason`` says why (timeout, too large, solver unknown, a missing optional module)
    ERROR     the config could not be read: ``reason`` names the key and ``line`` holds it; the run goes on.
              ``internal`` marks a bug in layoutcheck (exit code 4), never the user's input

``check_paths`` loads every spec file once (a bad config is an ERROR row, the other configs of the file still run),
builds each property once and proves it, optionally over a process pool (``jobs``): one task per config. The exit
code of a run is the worst of its rows (``exit_code``, severity in ``layoutcheck.errors``).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
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


def exit_code(rows: Sequence[Row]) -> int:
    """The worst exit code of ``rows`` (``layoutcheck.errors.EXIT_SEVERITY``: 4, 2, 1, 3, 0).

    >>> exit_code([Row("f", "c", "p", "PROVEN"), Row("f", "c", "q", "UNKNOWN", reason="t")])
    3
    """
    return worst_exit([r.exit_code for r in rows])


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
    from layoutcheck.engines.prove import prove
    from layoutcheck.spec.bind import Unsound, build_property

    t0 = time.perf_counter()
    where = {"file": cfg.file, "config": cfg.name, "prop": req.label}
    try:
        prop = build_property(cfg, req)
        with hard_deadline(hard_limit(timeout)):
            result = prove(prop, engine=engine, timeout=timeout, **_budget(memory))
        return row_from_result(result, cfg.file, cfg.name, req.label, req.line or cfg.line)
    except Unsound as u:
        return _unsound_row(u, cfg, req, engine, timeout)
    except SpecError as e:
        return error_row(**where, message=_strip_location(e), line=e.line or req.line or cfg.line, key=e.key,
                         time_s=time.perf_counter() - t0)
    except (ModuleMissing, HardTimeout) as e:
        return Row(**_named(where), status="UNKNOWN", engine=engine, time_s=time.perf_counter() - t0,
                   reason=_one_line(e), line=req.line or cfg.line)
    except MemoryError:
        return Row(**_named(where), status="UNKNOWN", engine=engine, time_s=time.perf_counter() - t0,
                   reason="too large: evaluating it ran out of memory (MemoryError); check a smaller tile or use "
                          "an engine that does not enumerate (--engine linear or z3)", line=req.line or cfg.line)
    except LayoutcheckError as e:
        return error_row(**where, message=_one_line(e), line=req.line or cfg.line, key="properties",
                         time_s=time.perf_counter() - t0)
    except Exception as e:  # a bug in layoutcheck: an ERROR row that asks to be reported, the run goes on
        return error_row(**where, message=internal_message(e), line=req.line or cfg.line, internal=True,
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


def _unsound_row(u: Any, cfg: Any, req: Any, engine: str, timeout: float) -> Row:
    """REFUTED with the counterexample of the law the config breaks (proved like any property)."""
    from layoutcheck.engines.prove import prove

    with hard_deadline(hard_limit(timeout)):
        result = prove(u.claim, engine=engine, timeout=timeout)
    if str(result.status) != "REFUTED":  # the binder saw a broken law the engines cannot confirm: our bug
        return error_row(cfg.file, cfg.name, req.label, internal_message(AssertionError(
            f"{u.what}, but {u.claim} is {result.status}")), line=cfg.line_of(u.key), internal=True)
    return row_from_result(result, cfg.file, cfg.name, req.label, cfg.line_of(u.key), prefix=f"{u.what}: ")


# -- files and runs -------------------------------------------------------------------------------------------------
_SPECS: dict[tuple[str, str], Any] = {}
"""Specs loaded by this process, by (name, text): a worker forked after ``plan`` finds them here, so each file is
parsed once; a file rewritten in place is read again (a cache keyed by the name alone gave the old file's verdict)."""


def _load(file: str, text: str | None = None) -> Any:
    """The spec of ``file`` with content ``text`` (default: read now), parsed once per distinct (name, text)."""
    from layoutcheck.spec.load import parse_text, read_spec

    key = (file, read_spec(file) if text is None else text)
    if key not in _SPECS:
        if len(_SPECS) >= 1024:
            _SPECS.clear()
        _SPECS[key] = parse_text(key[1], file, strict=False)
    return _SPECS[key]


def _planned_config(unit: Unit) -> Any:
    """The config ``unit`` was planned from: the file's text as ``plan`` read it, so a file rewritten during a run
    cannot swap the configs under their indices (``unit.text`` is ``None`` only for units built by hand)."""
    return _load(unit.file, unit.text).configs[unit.index]


@dataclass(frozen=True, slots=True)
class Unit:
    """One task of a run: every property of config ``index`` of ``file`` (``index`` -1: the file's ERROR rows)."""

    file: str
    index: int
    properties: int
    weight: int = 1  # relative cost estimate: a pool starts the heaviest units first
    text: str | None = field(default=None, repr=False, compare=False)
    """The file's content when planned (the spec cache's key); ``None``: read it when run."""


_RANGE_KINDS = ("residue", "scheduler")
"""Config kinds whose claims hold for every problem size in a range: Z3 integer queries, 10-100x a layout proof."""


_RANGE_WEIGHT = 100
"""The weight of one size-range claim, in layout proofs."""


def _weight(cfg: Any) -> int:
    return len(cfg.properties) * (_RANGE_WEIGHT if cfg.kind in _RANGE_KINDS else 1)


@dataclass(frozen=True, slots=True)
class Plan:
    """What a run will do: ``units`` to prove, ``errors`` (rows of what did not load), ``files`` in path order."""

    units: list[Unit]
    errors: list[Row]
    files: list[str]

    @property
    def checks(self) -> int:
        return sum(u.properties for u in self.units) + len(self.errors)


def plan(paths: Sequence[str], include_broken: bool = False) -> Plan:
    """Load every spec file under ``paths`` once; the tasks to run, and the ERROR rows of what did not load.

    A path that does not exist, a file that is not a spec (TOML syntax, ``format``) and each bad config become ERROR
    rows; the rest is planned.
    """
    from layoutcheck.spec.load import collect, read_spec

    units: list[Unit] = []
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
            try:
                text = read_spec(f)
                spec = _load(f, text)
            except SpecError as e:
                errors.append(error_row(f, FILE_LEVEL, FILE_LEVEL, _strip_location(e), line=e.line or 0, key=e.key))
                continue
            for e in spec.errors:
                errors.append(error_row(f, e.config or FILE_LEVEL, FILE_LEVEL, _strip_location(e), line=e.line or 0,
                                        key=e.key))
            units += [Unit(f, i, len(c.properties), _weight(c), text) for i, c in enumerate(spec.configs)]
    return Plan(units, errors, list(dict.fromkeys(order)))


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
    if not sys.platform.startswith("linux") or len(p.units) < 2 or sum(u.weight for u in p.units) < AUTO_MIN_WEIGHT:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, AUTO_MAX_JOBS, len(p.units)))


def run_unit(unit: Unit, engine: str = "auto", timeout: float = DEFAULT_TIMEOUT, memory: int | None = None
             ) -> list[Row]:
    """Every property of one config, in order (runs in a worker process under ``jobs > 1``)."""
    cfg = _planned_config(unit)
    return [check_property(cfg, req, engine, timeout, memory) for req in cfg.properties]


def check_paths(paths: Sequence[str], engine: str = "auto", timeout: float = DEFAULT_TIMEOUT, jobs: int = 1,
                include_broken: bool = False, on_row: Callable[[Row], None] | None = None,
                planned: Plan | None = None, memory: int | None = None) -> list[Row]:
    """Check every (config, property) of the spec files under ``paths``; rows in file, then line order.

    ``jobs > 1`` runs configs in a pool of worker processes; ``on_row`` sees each row as it is done.
    """
    p = planned if planned is not None else plan(paths, include_broken)
    units, errors = p.units, p.errors
    done: list[Row] = list(errors)
    for r in errors:
        if on_row:
            on_row(r)
    for rows in _run_units(units, engine, timeout, jobs, memory):
        for r in rows:
            if on_row:
                on_row(r)
        done += rows
    order = {f: i for i, f in enumerate(p.files)}
    return sorted(done, key=lambda r: (order.get(r.file, 0), r.line))


def _run_units(units: list[Unit], engine: str, timeout: float, jobs: int, memory: int | None
               ) -> Iterator[list[Row]]:
    if jobs <= 1 or len(units) <= 1:
        for u in units:
            yield run_unit(u, engine, timeout, memory)
        return
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool
    from multiprocessing import get_context

    # imported once here, before the workers fork, so they inherit the modules instead of each importing them
    from layoutcheck.engines.prove import prove  # noqa: F401
    from layoutcheck.spec.bind import build_property  # noqa: F401

    if any(u.weight >= _RANGE_WEIGHT for u in units):  # size-range claims go to Z3: import it once, here
        with suppress(ImportError):
            import z3  # noqa: F401

    ctx = get_context("fork") if hasattr(os, "fork") else get_context()
    big_first = sorted(units, key=lambda u: -u.weight)  # the heaviest units start first: better packing
    with ProcessPoolExecutor(max_workers=min(jobs, len(units)), mp_context=ctx) as pool:
        futures = {u: pool.submit(run_unit, u, engine, timeout, memory) for u in big_first}
        for u in units:  # in plan order, so progress and reports are deterministic
            try:
                yield futures[u].result()
            except BrokenProcessPool:  # a worker died (a crash, the OOM killer): the run goes on without it
                yield _isolated(u, engine, timeout, memory, ctx)


def _isolated(unit: Unit, engine: str, timeout: float, memory: int | None, ctx: Any) -> list[Row]:
    """``run_unit`` in a process of its own (after a worker died: each unit not yet done is retried alone, so only
    the one that kills its process gets ERROR rows, naming what happened)."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
            return pool.submit(run_unit, unit, engine, timeout, memory).result()
    except BrokenProcessPool as e:
        cfg = _planned_config(unit)
        why = internal_message(RuntimeError(f"the process checking this config died ({e})"))
        return [error_row(cfg.file, cfg.name, req.label, why, line=req.line or cfg.line, internal=True)
                for req in cfg.properties]
