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

The parts, one module each: ``check_row`` (the ``Row``, its exit code, the ERROR rows), ``check_plan`` (the plan's
values kept off the heap, units' weights, ``auto_jobs`` and ``_batches``), ``check_roads`` (``road_of``, each file
read and parsed once per content, ``plan``); this module proves (``check_property``, ``check_claim``, under a
``hard_deadline``) and runs a plan (``check_paths`` / ``check_rows`` / ``check_fields``, serially or over a pool).
"""

from __future__ import annotations

import gc
import os
import signal
import threading
import time
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from layoutcheck.check_plan import Gap, Plan, Unit, _batch_size, _batches, _last_positions, _totals
from layoutcheck.check_roads import IMPORTED_ROADS, _claims, _load, _planned_config, plan, road_of
from layoutcheck.check_row import (
    F_LINE,
    FILE_LEVEL,
    Row,
    _one_line,
    _strip_location,
    error_row,
    internal_message,
    row_from_result,
    row_of,
)
from layoutcheck.errors import HardTimeout, LayoutcheckError, ModuleMissing, SpecError
from layoutcheck.result import DEFAULT_TIMEOUT


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


def _unsound_row(u: Any, cfg: Any, label: str, engine: str, timeout: float) -> Row:
    """REFUTED with the counterexample of the law the config breaks (proved like any property)."""
    from layoutcheck.engines.prove import prove

    with hard_deadline(hard_limit(timeout)):
        result = prove(u.claim, engine=engine, timeout=timeout)
    if str(result.status) != "REFUTED":  # the binder saw a broken law the engines cannot confirm: our bug
        return error_row(cfg.file, cfg.name, label, internal_message(AssertionError(
            f"{u.what}, but {u.claim} is {result.status}")), line=cfg.line_of(u.key), internal=True)
    return row_from_result(result, cfg.file, cfg.name, label, cfg.line_of(u.key), prefix=f"{u.what}: ")


# -- runs -------------------------------------------------------------------------------------------------------------
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
