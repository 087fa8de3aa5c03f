"""A run's plan, kept off the heap (issue #29): what ``layoutcheck.check`` will prove, as counts per file.

``plan`` (``check_roads``) reads every input file once and keeps, per file, its counts, its ``content_digest`` and
its text (in a ``_Spool``: memory up to ``SPOOL_IN_MEMORY`` bytes, then a temporary file), never an object per
config; ``PlannedUnits`` makes the ``Unit``s file by file as a run iterates them, so a run's memory is flat in its
number of configs. A unit's ``weight`` (size-range claims weigh ``_RANGE_WEIGHT`` layout proofs) decides how a run is
spread over workers: ``auto_jobs`` (how many) and ``_batches`` (consecutive light units per pool task, the heaviest
first).
"""

from __future__ import annotations

import os
import sys
from array import array
from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from layoutcheck.check_row import Row

try:  # hashlib's own BLAKE2b, without the OpenSSL library ``import hashlib`` maps (~3 MB of a run's peak RSS)
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover (a Python built without it)
    from hashlib import blake2b as _blake2b


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
