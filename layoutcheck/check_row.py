"""A row: one (config, property) verdict as plain data, the unit every road of ``layoutcheck.check`` ends in.

No layout or solver objects, so worker processes can send a row back (as ``Row.fields()``, a tuple) and reports never
import z3. ``status`` is one of ``STATUSES`` (``layoutcheck.check`` says what each means); the exit code of a run is
the worst of its rows (``exit_code``, severity in ``layoutcheck.errors``). ``row_from_result`` makes the row of an
engine's ``Result``; ``error_row`` the ERROR row of an input that could not be read (``internal``: a bug of ours).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from layoutcheck.errors import (
    EXIT_ERROR,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_REFUTED,
    EXIT_UNKNOWN,
    SpecError,
    worst_exit,
)

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


def _strip_location(e: SpecError) -> str:
    """The message of ``e`` without its ``file:line:`` prefix (rows keep file and line apart)."""
    text = _one_line(e)
    prefix = f"{e.file}:{e.line}: "
    return text[len(prefix):] if e.file is not None and text.startswith(prefix) else text
