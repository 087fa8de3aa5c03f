"""Verdict reports: the terminal table, JUnit XML and JSON, all written atomically.

A report is a list of ``Row`` values, one per (config, property). Rows are plain data (no layout objects, no solver
objects) so that worker processes can send them back and reports never import z3.

Exit codes of ``layoutcheck check`` come from the rows (``exit_code``)::

    0  every row PROVEN            1  some row REFUTED
    3  none REFUTED, some UNKNOWN  2  bad input (decided before any row exists)

JSON schema (``schema_version`` 1), documented in ``docs/user-guide.md``::

    {"schema_version": 1, "tool": "layoutcheck", "version": "...", "summary": {"PROVEN": n, ...},
     "exit_code": 0, "results": [{"file", "line", "config", "property", "status", "engine", "time_s",
     "counterexample": {"text", "data"} | null, "reason": str | null}, ...]}

Writes go to a temporary file in the target's directory, then ``os.replace``: a reader never sees a partial file,
and an interrupted run leaves the previous report (or none) behind.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import IO, Any

SCHEMA_VERSION = 1
STATUSES = ("PROVEN", "REFUTED", "UNKNOWN")


@dataclass(frozen=True, slots=True)
class Row:
    """One (config, property) verdict as plain data. ``status`` is one of PROVEN, REFUTED, UNKNOWN."""

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

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise AssertionError(f"unknown status {self.status!r}")


def row_from_result(result: Any, file: str, config: str, prop: str, line: int = 0) -> Row:
    """A ``Row`` from a ``layoutcheck.result.Result`` (duck-typed: status, engine, time_s, counterexample, reason)."""
    ce = result.counterexample
    data = dict(ce.data) if ce is not None and getattr(ce, "data", None) else {}
    return Row(file=file, config=config, property=prop, status=str(result.status), engine=str(result.engine),
               time_s=float(result.time_s), counterexample=None if ce is None else str(ce),
               counterexample_data=_jsonable(data), reason=result.reason, line=line)


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


def summary(rows: Iterable[Row]) -> dict[str, int]:
    counts = Counter(r.status for r in rows)
    return {s: counts.get(s, 0) for s in STATUSES}


def exit_code(rows: Iterable[Row]) -> int:
    """0 all PROVEN, 1 any REFUTED, 3 no REFUTED but some UNKNOWN.

    >>> exit_code([Row("f", "c", "p", "PROVEN"), Row("f", "c", "q", "UNKNOWN", reason="t")])
    3
    """
    s = summary(rows)
    if s["REFUTED"]:
        return 1
    return 3 if s["UNKNOWN"] else 0


# -- atomic writes ------------------------------------------------------------------------------------------------
@contextmanager
def atomic_open(path: str, mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary sibling of ``path``; on success rename it over ``path``, on any error delete it.

    Post: ``path`` holds either its old content or the complete new content, never a prefix.
    """
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".layoutcheck-", suffix=".tmp", dir=directory)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
            yield f
        os.replace(tmp, path)
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
                        "reason": r.reason})
    return {"schema_version": SCHEMA_VERSION, "tool": "layoutcheck", "version": __version__,
            "summary": summary(rows), "exit_code": exit_code(rows), "results": results}


def write_json(rows: list[Row], path: str) -> None:
    with atomic_open(path) as f:
        json.dump(to_json(rows), f, indent=2)
        f.write("\n")


# -- JUnit --------------------------------------------------------------------------------------------------------
def to_junit(rows: list[Row]) -> ET.ElementTree:
    """One testsuite per spec file, one testcase per (config, property): REFUTED is a ``failure`` carrying the
    counterexample, UNKNOWN an ``error`` carrying the reason."""
    root = ET.Element("testsuites", name="layoutcheck")
    by_file: dict[str, list[Row]] = {}
    for r in rows:
        by_file.setdefault(r.file, []).append(r)
    for file, frows in by_file.items():
        s = summary(frows)
        suite = ET.SubElement(root, "testsuite", name=file, tests=str(len(frows)), failures=str(s["REFUTED"]),
                              errors=str(s["UNKNOWN"]), time=f"{sum(r.time_s for r in frows):.6f}")
        for r in frows:
            case = ET.SubElement(suite, "testcase", classname=f"{file}::{r.config}", name=r.property,
                                 time=f"{r.time_s:.6f}", file=file, line=str(r.line))
            if r.status == "REFUTED":
                el = ET.SubElement(case, "failure", message=f"REFUTED: {r.counterexample}", type="REFUTED")
                el.text = _detail(r)
            elif r.status == "UNKNOWN":
                el = ET.SubElement(case, "error", message=f"UNKNOWN: {r.reason}", type="UNKNOWN")
                el.text = _detail(r)
    s = summary(rows)
    root.set("tests", str(len(rows)))
    root.set("failures", str(s["REFUTED"]))
    root.set("errors", str(s["UNKNOWN"]))
    return ET.ElementTree(root)


def _detail(r: Row) -> str:
    lines = [f"{r.config} / {r.property}: {r.status} [{r.engine}]"]
    if r.counterexample:
        lines.append(f"counterexample: {r.counterexample}")
        if r.counterexample_data:
            lines.append(f"data: {json.dumps(r.counterexample_data, sort_keys=True)}")
    if r.reason:
        lines.append(f"reason: {r.reason}")
    return "\n".join(lines)


def write_junit(rows: list[Row], path: str) -> None:
    tree = to_junit(rows)
    ET.indent(tree)
    with atomic_open(path, "wb") as f:
        tree.write(f, encoding="utf-8", xml_declaration=True)


# -- terminal -----------------------------------------------------------------------------------------------------
_COLOURS = {"PROVEN": "32", "REFUTED": "31", "UNKNOWN": "33"}


def use_colour(stream: IO[str]) -> bool:
    """Colour only on a terminal and only when ``NO_COLOR`` is unset (https://no-color.org)."""
    return bool(getattr(stream, "isatty", lambda: False)()) and "NO_COLOR" not in os.environ


def paint(text: str, status: str, colour: bool) -> str:
    return f"\033[{_COLOURS[status]}m{text}\033[0m" if colour and status in _COLOURS else text


def format_table(rows: list[Row], colour: bool = False) -> str:
    """The verdict table: one line per row, the counterexample or reason indented under it, then a summary line."""
    if not rows:
        return "no properties to check"
    wc = max(len("config"), *(len(r.config) for r in rows))
    wp = max(len("property"), *(len(r.property) for r in rows))
    out = [f"{'config':<{wc}}  {'property':<{wp}}  {'verdict':<8}  {'engine':<12}  time"]
    for r in rows:
        verdict = paint(f"{r.status:<8}", r.status, colour)
        out.append(f"{r.config:<{wc}}  {r.property:<{wp}}  {verdict}  {r.engine:<12}  {_ms(r.time_s)}")
        if r.status == "REFUTED":
            out.append(f"    counterexample: {r.counterexample}  ({r.file}:{r.line})")
        elif r.status == "UNKNOWN":
            out.append(f"    reason: {r.reason}  ({r.file}:{r.line})")
    s = summary(rows)
    out.append(f"{len(rows)} checks: {s['PROVEN']} proven, {s['REFUTED']} refuted, {s['UNKNOWN']} unknown")
    return "\n".join(out)


def _ms(t: float) -> str:
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


class Progress:
    """A one-line progress bar on a terminal; plain ``[i/n] config property VERDICT`` lines otherwise."""

    def __init__(self, total: int, stream: IO[str] | None = None, enabled: bool = True) -> None:
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.colour = use_colour(self.stream)

    def update(self, row: Row) -> None:
        self.done += 1
        if not self.enabled:
            return
        if self.tty:
            width = 30
            fill = width * self.done // max(self.total, 1)
            label = f"{row.config} {row.property}"[:40]
            self.stream.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} {label:<40}")
            if self.done == self.total:
                self.stream.write("\r" + " " * (width + 60) + "\r")
        else:
            self.stream.write(f"[{self.done}/{self.total}] {row.config} {row.property} {row.status}\n")
        self.stream.flush()
