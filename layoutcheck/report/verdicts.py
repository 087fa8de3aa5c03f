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

from layoutcheck.check_row import F_CONFIG, F_PROPERTY, STATUSES, Row, exit_code
from layoutcheck.errors import ReportError

if TYPE_CHECKING:  # the JSON and JUnit writers import their modules when a report is written
    import xml.etree.ElementTree as ET

SCHEMA_VERSION = 2


def summary(rows: Iterable[Row]) -> dict[str, int]:
    kept = getattr(rows, "summary", None)  # a ``report.stream.RowSpool`` counts as rows come: nothing to read back
    if callable(kept):
        return kept()
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


def write_reports(rows: Sequence[Row], reports: Sequence[tuple[str, str, Callable[[Sequence[Row], str], None]]]
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
def to_json(rows: Sequence[Row]) -> dict[str, Any]:
    return _json_head(rows) | {"results": [_json_result(r) for r in rows]}


def _json_head(rows: Sequence[Row]) -> dict[str, Any]:
    from layoutcheck.version import __version__

    return {"schema_version": SCHEMA_VERSION, "tool": "layoutcheck", "version": __version__,
            "summary": summary(rows), "exit_code": exit_code(rows)}


def _json_result(r: Row) -> dict[str, Any]:
    ce = {"text": r.counterexample, "data": r.counterexample_data} if r.counterexample is not None else None
    return {"file": r.file, "line": r.line, "config": r.config, "property": r.property, "status": r.status,
            "engine": r.engine, "time_s": round(r.time_s, 6), "counterexample": ce, "reason": r.reason,
            "error": _error(r)}


def _error(r: Row) -> dict[str, Any] | None:
    if r.status != "ERROR":
        return None
    return {"message": r.reason, "key": r.key, "line": r.line, "internal": r.internal}


def write_json(rows: Sequence[Row], path: str) -> None:
    """``json.dump(to_json(rows), indent=2)``, byte for byte, written a row at a time (no list of every result)."""
    import json

    with atomic_open(path) as f:
        head = json.dumps(_json_head(rows) | {"results": []}, indent=2)
        f.write(head.removesuffix("[]\n}"))
        sep = "[\n"
        for r in rows:
            f.write(sep + "    " + json.dumps(_json_result(r), indent=2).replace("\n", "\n    "))
            sep = ",\n"
        f.write("[]\n}\n" if sep == "[\n" else "\n  ]\n}\n")


# -- JUnit --------------------------------------------------------------------------------------------------------
def to_junit(rows: Sequence[Row]) -> ET.ElementTree:
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
            suite.append(_testcase(r))
    s = summary(rows)
    root.set("tests", str(len(rows)))
    root.set("failures", str(s["REFUTED"]))
    root.set("errors", str(s["UNKNOWN"] + s["ERROR"]))
    return ET.ElementTree(root)


def _testcase(r: Row) -> ET.Element:
    """The ``testcase`` of one row: REFUTED a ``failure``, UNKNOWN and ERROR an ``error`` (``type`` says which)."""
    import xml.etree.ElementTree as ET

    case = ET.Element("testcase", classname=f"{r.file}::{r.config}", name=r.property, time=f"{r.time_s:.6f}",
                      file=r.file, line=str(r.line))
    if r.status == "REFUTED":
        el = ET.SubElement(case, "failure", message=f"REFUTED: {r.counterexample}", type="REFUTED")
        el.text = _detail(r)
    elif r.status in ("UNKNOWN", "ERROR"):
        el = ET.SubElement(case, "error", message=f"{r.status}: {r.reason}", type=r.status)
        el.text = _detail(r)
    return case


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


def write_junit(rows: Sequence[Row], path: str) -> None:
    """``to_junit(rows)`` indented and written as UTF-8 XML, byte for byte, a testcase at a time: a first pass counts
    each file's rows (a suite's attributes precede its cases), the second writes them."""
    import xml.etree.ElementTree as ET

    suites: dict[str, list[Any]] = {}  # file -> [tests, failures, errors, time]
    for r in rows:
        c = suites.setdefault(r.file, [0, 0, 0, 0])
        c[0] += 1
        c[1] += r.status == "REFUTED"
        c[2] += r.status in ("UNKNOWN", "ERROR")
        c[3] += r.time_s
    s = summary(rows)
    root = ET.Element("testsuites", name="layoutcheck", tests=str(len(rows)), failures=str(s["REFUTED"]),
                      errors=str(s["UNKNOWN"] + s["ERROR"]))
    with atomic_open(path, "wb") as f:
        f.write(b"<?xml version='1.0' encoding='utf-8'?>\n")
        if not suites:
            f.write(ET.tostring(root, encoding="utf-8", xml_declaration=False))
            return
        f.write(_start_tag(root))
        file = None
        for r in rows:
            if r.file != file:
                if file is not None:
                    f.write(b"\n  </testsuite>")
                file = r.file
                tests, failures, errors, time_s = suites[file]
                f.write(b"\n  " + _start_tag(ET.Element(
                    "testsuite", name=file, tests=str(tests), failures=str(failures), errors=str(errors),
                    time=f"{time_s:.6f}")))
            case = _testcase(r)
            ET.indent(case, level=2)
            f.write(b"\n    " + ET.tostring(case, encoding="utf-8", xml_declaration=False))
        f.write(b"\n  </testsuite>\n</testsuites>")


def _start_tag(el: ET.Element) -> bytes:
    """The start tag of ``el`` (written without children: ``<tag a="..." />`` -> ``<tag a="...">``)."""
    import xml.etree.ElementTree as ET

    return ET.tostring(el, encoding="utf-8", xml_declaration=False).removesuffix(b" />") + b">"


# -- terminal -----------------------------------------------------------------------------------------------------
_COLOURS = {"PROVEN": "32", "REFUTED": "31", "UNKNOWN": "33", "ERROR": "35"}


def use_colour(stream: IO[str]) -> bool:
    """Colour only on a terminal and only when ``NO_COLOR`` is unset (https://no-color.org)."""
    return bool(getattr(stream, "isatty", lambda: False)()) and "NO_COLOR" not in os.environ


def paint(text: str, status: str, colour: bool) -> str:
    return f"\033[{_COLOURS[status]}m{text}\033[0m" if colour and status in _COLOURS else text


def format_table(rows: Sequence[Row], colour: bool = False, code: int | None = None) -> str:
    """The verdict table: one line per row, the counterexample or reason indented under it, then a summary line
    (``code``: the process's exit code when more than the rows decide it, e.g. a report that could not be written)."""
    return "\n".join(table_lines(rows, colour, code))


def table_lines(rows: Sequence[Row], colour: bool = False, code: int | None = None) -> Iterator[str]:
    """The lines of ``format_table``, one at a time (two passes over ``rows``: the column widths, then the lines)."""
    if not len(rows):
        yield "no properties to check" + (f" (exit {code})" if code else "")
        return
    from layoutcheck.report.width import display_width, pad

    wc, wp = len("config"), len("property")  # columns, not characters: CJK names line up
    for r in rows:
        wc, wp = max(wc, display_width(r.config)), max(wp, display_width(r.property))
    yield f"{'config':<{wc}}  {'property':<{wp}}  {'verdict':<8}  {'engine':<12}  time"
    for r in rows:
        verdict = paint(f"{r.status:<8}", r.status, colour)
        yield f"{pad(r.config, wc)}  {pad(r.property, wp)}  {verdict}  {r.engine:<12}  {_ms(r.time_s)}"
        if r.status == "REFUTED":
            yield f"    counterexample: {r.counterexample}  ({r.file}:{r.line})"
        elif r.status == "UNKNOWN":
            yield f"    reason: {r.reason}  ({r.file}:{r.line})"
        elif r.status == "ERROR":
            yield f"    error: {r.reason}  ({r.file}:{r.line})"
    yield summary_line(rows, code)


def summary_line(rows: Sequence[Row], code: int | None = None) -> str:
    """``12 checks: 10 proven, 1 refuted, 0 unknown, 1 error (exit 2)``; ``code`` overrides the rows' exit code."""
    s = summary(rows)
    return (f"{len(rows)} checks: {s['PROVEN']} proven, {s['REFUTED']} refuted, {s['UNKNOWN']} unknown, "
            f"{s['ERROR']} error (exit {exit_code(rows) if code is None else code})")


def _ms(t: float) -> str:
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


class Progress:
    """A one-line progress bar on a terminal (``force``: on any stream, e.g. a CI log given ``--progress``; without
    it a log gets no per-check lines, only the final table).

    ``start`` shows the bar before the first file is read; ``loading`` names each input file as it is read (a spec of
    70k configs takes seconds); ``update`` advances it; the bar erases itself when done.
    """

    def __init__(self, total: int, stream: IO[str] | None = None, enabled: bool = True, force: bool = False) -> None:
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled and (force or bool(getattr(self.stream, "isatty", lambda: False)()))
        self._files = 0

    def start(self, what: str = "") -> None:
        if self.enabled:
            self._draw(what or "starting")

    def loading(self, file: str) -> None:
        self._files += 1
        if self.enabled:
            self._draw(f"loading {self._files}: {os.path.basename(file)}")

    def update(self, row: Row) -> None:
        self._advance(row.config, row.property)

    def update_fields(self, t: tuple[Any, ...]) -> None:
        """``update`` with a row's ``Row.fields()`` (``check.check_fields``)."""
        self._advance(t[F_CONFIG], t[F_PROPERTY])

    def _advance(self, config: str, prop: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        self._draw(f"{config} {prop}")
        if self.done >= self.total:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()

    def _draw(self, label: str) -> None:
        width = 30
        fill = width * self.done // max(self.total, 1)
        self.stream.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} {label[:40]:<40}")
        self.stream.flush()
