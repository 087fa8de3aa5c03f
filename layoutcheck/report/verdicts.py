"""Verdict reports: the terminal table, JUnit XML and JSON, all written atomically; report paths checked up front.

A report is a list of ``layoutcheck.check.Row`` values, one per (config, property), plus ERROR rows for what could
not be read. The exit code of ``layoutcheck check`` is the worst of the rows (``layoutcheck.check.exit_code``)::

    0  every row PROVEN     1  some row REFUTED     2  some row ERROR (unreadable input)
    3  none REFUTED or ERROR, some UNKNOWN          4  an internal error (a bug in layoutcheck; please report it)

JSON schema (``schema_version`` 2), documented in ``docs/user-guide.md``::

    {"schema_version": 2, "tool": "layoutcheck", "version": "...", "summary": {"PROVEN": n, ..., "ERROR": n},
     "exit_code": 0, "results": [{"file", "line", "config", "property", "status", "engine", "time_s",
     "counterexample": {"text", "data"} | null, "reason": str | null,
     "error": {"message", "key", "line", "internal"} | null}, ...]}

``counterexample.data`` is the witness record's ``to_json()`` (``layoutcheck.witness``: ``{"kind", <fields>}``);
an owner (thread ``t``, value ``v`` of a ``(T, V)`` TV layout) is the integer ``t + T*v`` there, as in SARIF, the
HTML report and ``layoutcheck vectors``.

Writes go to a temporary file in the target's directory, then ``os.replace``: a reader never sees a partial file,
and an interrupted run leaves the previous report (or none) behind.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import IO, TYPE_CHECKING, Any

from layoutcheck.check import STATUSES, Row, exit_code
from layoutcheck.errors import ReportError

if TYPE_CHECKING:  # the JSON and JUnit writers import their modules when a report is written
    import xml.etree.ElementTree as ET

SCHEMA_VERSION = 2


def summary(rows: Iterable[Row]) -> dict[str, int]:
    counts = Counter(r.status for r in rows)
    return {s: counts.get(s, 0) for s in STATUSES}


def check_report_paths(reports: dict[str, str | None], inputs: Sequence[str]) -> None:
    """``ReportError`` unless every report path names a writable file: not a directory, in an existing directory
    where a file can be created (tried, then removed: a read-only mount fails here, before any check runs), none of
    the ``inputs`` (spec files), and no two reports on one path. ``reports``: flag -> path (or None).
    """
    seen: dict[str, str] = {}
    ins = {os.path.realpath(p) for p in inputs if os.path.isfile(p)}
    for flag, path in reports.items():
        if not path:
            continue
        real = os.path.realpath(path)
        if os.path.isdir(path):
            raise ReportError(f"{flag} {path}: is a directory (name a file, e.g. {os.path.join(path, 'report')})")
        if not os.path.isdir(os.path.dirname(real)):
            raise ReportError(f"{flag} {path}: no such directory {os.path.dirname(path) or '.'}")
        if real in ins:
            raise ReportError(f"{flag} {path}: is an input spec file; it would be overwritten")
        if real in seen:
            raise ReportError(f"{flag} {path}: the same file as {seen[real]} (each report needs its own file)")
        _try_create(flag, path)
        seen[real] = f"{flag} {path}"


def _try_create(flag: str, path: str) -> None:
    """Create and remove a temporary file beside ``path`` (what ``atomic_open`` will do); ``ReportError`` if not."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".layoutcheck-", suffix=".tmp", dir=os.path.dirname(os.path.abspath(path)))
    except OSError as e:
        raise ReportError(f"{flag} {path}: cannot write there: {e.strerror or e}") from None
    os.close(fd)
    with suppress(OSError):
        os.unlink(tmp)


def write_reports(rows: list[Row], reports: Sequence[tuple[str, str, Callable[[list[Row], str], None]]]
                  ) -> list[str]:
    """Write every report (``(flag, path, writer)``); one that fails never stops the others.

    Post: one line per report that could not be written, naming the flag, the file and the reason (empty: all
    written).
    """
    failed = []
    for flag, path, write in reports:
        try:
            write(rows, path)
        except ReportError as e:
            failed.append(f"{flag} {path}: {_reason(e, path)}")
        except OSError as e:  # a writer that does its own I/O: the file and the reason, never a bare errno
            failed.append(f"{flag} {path}: cannot write: {e.strerror or e}")
    return failed


def _reason(e: ReportError, path: str) -> str:
    text = " ".join(str(e).split())
    return text.removeprefix(f"cannot write {path}: ").removeprefix(f"{path}: ") or type(e).__name__


# -- atomic writes ------------------------------------------------------------------------------------------------
@contextmanager
def atomic_open(path: str, mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary sibling of ``path``; on success rename it over ``path``, on any error delete it.

    Post: ``path`` holds either its old content or the complete new content, never a prefix.
    """
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ReportError(f"cannot write {path}: is a directory")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".layoutcheck-", suffix=".tmp", dir=directory)
    except OSError as e:
        raise ReportError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
            yield f
        os.replace(tmp, path)
    except OSError as e:  # a full disk, a quota, a vanished directory: the file and the reason
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise ReportError(f"cannot write {path}: {e.strerror or e}") from None
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# -- JSON ---------------------------------------------------------------------------------------------------------
def to_json(rows: list[Row]) -> dict[str, Any]:
    from layoutcheck.version import __version__

    results = []
    for r in rows:
        ce = {"text": r.counterexample, "data": r.counterexample_data} if r.counterexample is not None else None
        results.append({"file": r.file, "line": r.line, "config": r.config, "property": r.property,
                        "status": r.status, "engine": r.engine, "time_s": round(r.time_s, 6), "counterexample": ce,
                        "reason": r.reason, "error": _error(r)})
    return {"schema_version": SCHEMA_VERSION, "tool": "layoutcheck", "version": __version__,
            "summary": summary(rows), "exit_code": exit_code(rows), "results": results}


def _error(r: Row) -> dict[str, Any] | None:
    if r.status != "ERROR":
        return None
    return {"message": r.reason, "key": r.key, "line": r.line, "internal": r.internal}


def write_json(rows: list[Row], path: str) -> None:
    import json

    with atomic_open(path) as f:
        json.dump(to_json(rows), f, indent=2)
        f.write("\n")


# -- JUnit --------------------------------------------------------------------------------------------------------
def to_junit(rows: list[Row]) -> ET.ElementTree:
    """One testsuite per spec file, one testcase per (config, property): REFUTED is a ``failure`` carrying the
    counterexample; ERROR (unreadable config) and UNKNOWN are ``error``s (``type`` says which) carrying the reason."""
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites", name="layoutcheck")
    by_file: dict[str, list[Row]] = {}
    for r in rows:
        by_file.setdefault(r.file, []).append(r)
    for file, frows in by_file.items():
        s = summary(frows)
        suite = ET.SubElement(root, "testsuite", name=file, tests=str(len(frows)), failures=str(s["REFUTED"]),
                              errors=str(s["UNKNOWN"] + s["ERROR"]), time=f"{sum(r.time_s for r in frows):.6f}")
        for r in frows:
            case = ET.SubElement(suite, "testcase", classname=f"{file}::{r.config}", name=r.property,
                                 time=f"{r.time_s:.6f}", file=file, line=str(r.line))
            if r.status == "REFUTED":
                el = ET.SubElement(case, "failure", message=f"REFUTED: {r.counterexample}", type="REFUTED")
                el.text = _detail(r)
            elif r.status in ("UNKNOWN", "ERROR"):
                el = ET.SubElement(case, "error", message=f"{r.status}: {r.reason}", type=r.status)
                el.text = _detail(r)
    s = summary(rows)
    root.set("tests", str(len(rows)))
    root.set("failures", str(s["REFUTED"]))
    root.set("errors", str(s["UNKNOWN"] + s["ERROR"]))
    return ET.ElementTree(root)


def _detail(r: Row) -> str:
    import json

    lines = [f"{r.config} / {r.property}: {r.status} [{r.engine}]"]
    if r.counterexample:
        lines.append(f"counterexample: {r.counterexample}")
        if r.counterexample_data:
            lines.append(f"data: {json.dumps(r.counterexample_data, sort_keys=True)}")
    if r.reason:
        lines.append(f"reason: {r.reason}")
    return "\n".join(lines)


def write_junit(rows: list[Row], path: str) -> None:
    import xml.etree.ElementTree as ET

    tree = to_junit(rows)
    ET.indent(tree)
    with atomic_open(path, "wb") as f:
        tree.write(f, encoding="utf-8", xml_declaration=True)


# -- terminal -----------------------------------------------------------------------------------------------------
_COLOURS = {"PROVEN": "32", "REFUTED": "31", "UNKNOWN": "33", "ERROR": "35"}


def use_colour(stream: IO[str]) -> bool:
    """Colour only on a terminal and only when ``NO_COLOR`` is unset (https://no-color.org)."""
    return bool(getattr(stream, "isatty", lambda: False)()) and "NO_COLOR" not in os.environ


def paint(text: str, status: str, colour: bool) -> str:
    return f"\033[{_COLOURS[status]}m{text}\033[0m" if colour and status in _COLOURS else text


def format_table(rows: list[Row], colour: bool = False, code: int | None = None) -> str:
    """The verdict table: one line per row, the counterexample or reason indented under it, then a summary line
    (``code``: the process's exit code when more than the rows decide it, e.g. a report that could not be written)."""
    if not rows:
        return "no properties to check" + (f" (exit {code})" if code else "")
    from layoutcheck.report.width import display_width, pad

    wc = max(len("config"), *(display_width(r.config) for r in rows))  # columns, not characters: CJK names line up
    wp = max(len("property"), *(display_width(r.property) for r in rows))
    out = [f"{'config':<{wc}}  {'property':<{wp}}  {'verdict':<8}  {'engine':<12}  time"]
    for r in rows:
        verdict = paint(f"{r.status:<8}", r.status, colour)
        out.append(f"{pad(r.config, wc)}  {pad(r.property, wp)}  {verdict}  {r.engine:<12}  {_ms(r.time_s)}")
        if r.status == "REFUTED":
            out.append(f"    counterexample: {r.counterexample}  ({r.file}:{r.line})")
        elif r.status == "UNKNOWN":
            out.append(f"    reason: {r.reason}  ({r.file}:{r.line})")
        elif r.status == "ERROR":
            out.append(f"    error: {r.reason}  ({r.file}:{r.line})")
    out.append(summary_line(rows, code))
    return "\n".join(out)


def summary_line(rows: list[Row], code: int | None = None) -> str:
    """``12 checks: 10 proven, 1 refuted, 0 unknown, 1 error (exit 2)``; ``code`` overrides the rows' exit code."""
    s = summary(rows)
    return (f"{len(rows)} checks: {s['PROVEN']} proven, {s['REFUTED']} refuted, {s['UNKNOWN']} unknown, "
            f"{s['ERROR']} error (exit {exit_code(rows) if code is None else code})")


def _ms(t: float) -> str:
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


class Progress:
    """A one-line progress bar, only on a terminal (a CI log gets no per-check lines, only the final table).

    ``start`` shows the bar before the first proof ends; ``update`` advances it; the bar erases itself when done.
    """

    def __init__(self, total: int, stream: IO[str] | None = None, enabled: bool = True) -> None:
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled and bool(getattr(self.stream, "isatty", lambda: False)())

    def start(self, what: str = "") -> None:
        if self.enabled:
            self._draw(what or "starting")

    def update(self, row: Row) -> None:
        self.done += 1
        if not self.enabled:
            return
        self._draw(f"{row.config} {row.property}")
        if self.done >= self.total:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()

    def _draw(self, label: str) -> None:
        width = 30
        fill = width * self.done // max(self.total, 1)
        self.stream.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} {label[:40]:<40}")
        self.stream.flush()
