"""Reports: exit codes, the verdict table, JUnit and JSON content, atomic writes."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET

import pytest

from layoutcheck.check_row import Row, exit_code, row_from_result
from layoutcheck.report.verdicts import (
    Progress,
    atomic_open,
    format_table,
    to_json,
    use_colour,
    write_json,
    write_junit,
)
from layoutcheck.result import Counterexample, Result, Verdict

ROWS = [
    Row("a.toml", "c1", "injective", "PROVEN", "linear", 0.001, line=3),
    Row("a.toml", "c1", "exact_cover", "REFUTED", "exhaustive", 0.002, "tile element (4,0) owned 0 times",
        {"y": 4, "owners": []}, line=4),
    Row("b.toml", "c2", "conflict_free", "UNKNOWN", "auto", 1.5, reason="timeout after 1 s", line=9),
]


@pytest.mark.parametrize(("statuses", "code"), [
    ([], 0), (["PROVEN"], 0), (["PROVEN", "UNKNOWN"], 3), (["UNKNOWN", "REFUTED"], 1), (["REFUTED"], 1),
])
def test_exit_code(statuses, code):
    rows = [Row("f", "c", str(i), s, reason="r" if s == "UNKNOWN" else None) for i, s in enumerate(statuses)]
    assert exit_code(rows) == code


def test_row_rejects_unknown_status():
    with pytest.raises(AssertionError):
        Row("f", "c", "p", "MAYBE")


def test_row_from_result_is_plain_data():
    import numpy as np

    r = Result("prop", Verdict.REFUTED, "exhaustive", 0.5, Counterexample("x", {"i": np.int64(3), "v": (1, 2)}))
    row = row_from_result(r, "f.toml", "c", "p", 7)
    assert row.status == "REFUTED" and row.counterexample == "x" and row.counterexample_data == {"i": 3, "v": [1, 2]}
    json.dumps(to_json([row]))


def test_table_lists_every_row_and_summary():
    text = format_table(ROWS)
    assert "counterexample: tile element (4,0) owned 0 times  (a.toml:4)" in text
    assert "reason: timeout after 1 s  (b.toml:9)" in text
    assert text.splitlines()[-1] == "3 checks: 1 proven, 1 refuted, 1 unknown, 0 error (exit 1)"
    assert "\033[" not in text and "\033[31m" in format_table(ROWS, colour=True)


def test_json_schema(tmp_path):
    p = tmp_path / "r.json"
    write_json(ROWS, str(p))
    d = json.loads(p.read_text())
    assert d["schema_version"] == 2 and d["tool"] == "layoutcheck" and d["exit_code"] == 1
    assert d["summary"] == {"PROVEN": 1, "REFUTED": 1, "UNKNOWN": 1, "ERROR": 0}
    r = d["results"][1]
    assert set(r) == {"file", "line", "config", "property", "status", "engine", "time_s", "counterexample", "reason",
                      "error"}
    assert r["counterexample"] == {"text": "tile element (4,0) owned 0 times", "data": {"y": 4, "owners": []}}
    assert d["results"][0]["counterexample"] is None


def test_junit_one_testcase_per_row(tmp_path):
    p = tmp_path / "r.xml"
    write_junit(ROWS, str(p))
    root = ET.parse(p).getroot()
    assert root.tag == "testsuites" and root.get("tests") == "3" and root.get("failures") == "1"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["a.toml", "b.toml"]
    cases = root.findall(".//testcase")
    assert [c.get("name") for c in cases] == ["injective", "exact_cover", "conflict_free"]
    assert cases[1].find("failure").get("message").startswith("REFUTED: tile element")
    assert "data: " in cases[1].find("failure").text
    assert cases[2].find("error").get("type") == "UNKNOWN"
    assert cases[0].find("failure") is None and cases[0].find("error") is None


def test_atomic_write_leaves_old_file_on_error(tmp_path):
    p = tmp_path / "r.json"
    p.write_text("old")
    with pytest.raises(RuntimeError), atomic_open(str(p)) as f:
        f.write("partial")
        raise RuntimeError("boom")
    assert p.read_text() == "old" and os.listdir(tmp_path) == ["r.json"]


def test_atomic_write_respects_umask(tmp_path):
    p = tmp_path / "r.json"
    write_json(ROWS, str(p))
    mask = os.umask(0)
    os.umask(mask)
    assert p.stat().st_mode & 0o777 == 0o666 & ~mask


def test_colour_only_on_tty(monkeypatch):
    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_colour(Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_colour(Tty())


def test_progress_is_silent_off_a_terminal(capsys):
    import sys

    prog = Progress(2, sys.stderr)
    prog.start()
    for r in ROWS[:2]:
        prog.update(r)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(("statuses", "internal", "code"), [
    (["PROVEN"], False, 0), (["PROVEN", "UNKNOWN"], False, 3), (["UNKNOWN", "REFUTED"], False, 1),
    (["REFUTED", "ERROR"], False, 2), (["ERROR", "REFUTED", "UNKNOWN"], True, 4), ([], False, 0)])
def test_exit_code_is_the_documented_worst_row(statuses, internal, code):
    rows = [Row("f", "c", str(i), s, reason="r", counterexample="w" if s == "REFUTED" else None,
                internal=internal and s == "ERROR") for i, s in enumerate(statuses)]
    assert exit_code(rows) == code


def test_progress_bar_on_a_tty():
    import io

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    prog = Progress(2, stream)
    prog.update(ROWS[0])
    assert stream.getvalue().startswith("\r[###############...............] 1/2 c1 injective")
    prog.update(ROWS[1])
    assert stream.getvalue().endswith("\r")  # the bar is erased when done
