"""The rows of a run kept on disk, not in memory: ``check`` writes each row as it is decided, every report reads them
back (issue #29: a run's memory stays flat in its number of configs; about 3 KB per row were held until the end).

``RowSpool`` is a re-iterable sequence of ``layoutcheck.check.Row`` values: ``add`` appends a row (pickled as a
tuple of its fields, in batches of ``BATCH`` rows, into a temporary file that stays in memory up to ``IN_MEMORY``
bytes); iterating reads them back in the order they were added, as often as a writer needs (the table and JUnit
read them twice). Only the counts per status and the worst exit code are kept in memory, so ``summary`` and
``exit_code`` of a spool read nothing back.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator
from typing import Any

from layoutcheck.check_row import F_STATUS, STATUSES, Row, fields_exit_code, row_of
from layoutcheck.errors import worst_exit

BATCH = 512
"""Rows pickled together (one ``pickle.dump`` per batch: a dump per row cost more than the row's proof)."""
IN_MEMORY = 8 << 20
"""Bytes of pickled rows kept in memory before the spool moves to a temporary file."""


class RowSpool:
    """Rows added one by one, kept in a temporary file; read back in order by iterating (any number of times)."""

    def __init__(self) -> None:
        self._file: Any = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY)  # noqa: SIM115 (closed by close())
        self._pending: list[tuple[Any, ...]] = []
        self._end = 0  # bytes written
        self._len = 0
        self.counts = dict.fromkeys(STATUSES, 0)
        self._codes: set[int] = set()

    def add(self, row: Row) -> None:
        self.add_fields(row.fields())

    def add_fields(self, t: tuple[Any, ...]) -> None:
        """Add the row whose ``Row.fields()`` are ``t`` (``check.check_fields`` gives them)."""
        self._pending.append(t)
        self._len += 1
        self.counts[t[F_STATUS]] += 1
        self._codes.add(fields_exit_code(t))
        if len(self._pending) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._file.seek(self._end)
            pickle.dump(self._pending, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self._end = self._file.tell()
            self._pending = []

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[Row]:
        self._flush()
        at, end = 0, self._end
        while at < end:  # each reader keeps its own position: two iterations may interleave
            self._file.seek(at)
            batch = pickle.load(self._file)
            at = self._file.tell()
            for t in batch:
                yield row_of(t)

    def summary(self) -> dict[str, int]:
        """Rows per status (``report.verdicts.summary``), counted as they were added."""
        return dict(self.counts)

    def exit_code(self) -> int:
        """The worst exit code of the rows (``check.exit_code``), kept as they were added."""
        return worst_exit(list(self._codes))

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> RowSpool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
