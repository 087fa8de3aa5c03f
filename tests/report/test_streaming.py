"""Streamed reports (issue #29): rows go to a ``RowSpool`` on disk as they are decided, and every report written from
it is the report the whole list of rows gave, byte for byte; ``check_rows`` yields the rows in the order
``check_paths`` sorted them, holding one file's rows at a time."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from layoutcheck.check import check_paths, check_rows
from layoutcheck.check_roads import plan
from layoutcheck.check_row import Row
from layoutcheck.report import stream
from layoutcheck.report.markdown import to_markdown
from layoutcheck.report.stream import RowSpool
from layoutcheck.report.verdicts import format_table, summary, to_json, to_junit, write_json, write_junit
from layoutcheck.spec.load import declares_refuted

ROOT = Path(__file__).resolve().parents[2]


def _rows() -> list[Row]:
    """Rows of every status over three files: non-ASCII names, newlines and quotes in texts, witness data."""
    out = []
    for i in range(1500):
        f = ("specs/a.toml", "specs/b é.toml", "x<&>\".toml")[i // 600]
        status = ("PROVEN", "REFUTED", "UNKNOWN", "ERROR", "PROVEN")[i % 5]
        out.append(Row(file=f, config=f"cfg_{i}" if i % 7 else f"行列_{i}", property="bijective" if i % 2 else
                       "conflict_free(width=4)", status=status, engine="structural" if status != "ERROR" else "",
                       time_s=i * 1.234567e-4, counterexample="i=3 -> 7\n<x>" if status == "REFUTED" else None,
                       counterexample_data={"i": [3, 4], "s": "q\"t"} if status == "REFUTED" else {},
                       reason="timeout & 'more'" if status in ("UNKNOWN", "ERROR") else None, line=i % 50,
                       key="layout" if status == "ERROR" else None, internal=i % 15 == 3, claim="c"))
    return out


def _spool(rows: list[Row]) -> RowSpool:
    s = RowSpool()
    for r in rows:
        s.add(r)
    return s


@pytest.mark.parametrize("n", [0, 1, 7, 1500])
def test_a_spool_reads_back_every_row_in_order_and_keeps_the_counts(n):
    rows = _rows()[:n]
    s = _spool(rows)
    assert list(s) == rows and list(s) == rows and len(s) == n  # re-iterable
    assert s.summary() == summary(list(rows))
    a, b = iter(s), iter(s)  # two readers interleave: each keeps its own place
    assert [(x, y) for x, y in zip(a, b, strict=True)] == [(r, r) for r in rows]


@pytest.mark.parametrize("n", [0, 1, 1500])
def test_the_json_and_junit_written_a_row_at_a_time_are_the_whole_reports_byte_for_byte(tmp_path, n):
    rows = _rows()[:n]
    write_json(_spool(rows), str(tmp_path / "r.json"))
    assert (tmp_path / "r.json").read_text(encoding="utf-8") == json.dumps(to_json(rows), indent=2) + "\n"
    write_junit(_spool(rows), str(tmp_path / "r.xml"))
    tree = to_junit(rows)
    ET.indent(tree)
    want = io.BytesIO()
    tree.write(want, encoding="utf-8", xml_declaration=True)
    assert (tmp_path / "r.xml").read_bytes() == want.getvalue()


@pytest.mark.parametrize("n", [0, 3, 250, 1500])
def test_the_table_and_markdown_of_a_spool_are_those_of_the_list(n, monkeypatch):
    rows = _rows()[:n]
    assert format_table(_spool(rows), code=2) == format_table(rows, code=2)
    monkeypatch.setattr(stream, "BATCH", 3)  # many batches
    got = to_markdown(_spool(rows))
    assert got == to_markdown(rows) and got.count("\n| **") == min(100, n - sum(r.status == "PROVEN" for r in rows)) \
        + min(100, sum(r.status == "PROVEN" for r in rows))


def test_check_rows_streams_the_order_check_paths_gave(tmp_path):
    """A file's ERROR rows interleave with its proofs by line, files in path order, a file named twice."""
    broken = [str(p) for p in sorted((ROOT / "specs" / "broken").glob("*.toml"))[:6]]
    bad = tmp_path / "bad.toml"
    bad.write_text('format = 1\n[[config]]\nname = "a"\nkind = "layout"\nlayout = "4:1"\nproperties = ["bijective"]\n'
                   '[[config]]\nname = "b"\nkind = "nope"\nproperties = ["bijective"]\n[[config]]\nname = "c"\n'
                   'kind = "layout"\nlayout = "(2,2):(1,2)"\nproperties = ["injective", "bijective"]\n')
    paths = [str(bad), *broken, str(tmp_path / "missing.toml"), broken[0]]
    p = plan(paths, include_broken=True)
    seen = []
    got = list(check_rows(p, on_row=seen.append))
    order = {f: i for i, f in enumerate(p.files)}
    assert got == sorted(seen, key=lambda r: (order.get(r.file, 0), r.line))
    assert [r.status for r in got[:4]] == ["PROVEN", "ERROR", "PROVEN", "PROVEN"]
    assert [(r.config, r.property, r.status) for r in got] == \
        [(r.config, r.property, r.status) for r in check_paths(paths, include_broken=True)]


@pytest.mark.parametrize(("text", "refuted"), [
    ('format = 1\nexpect = "refuted"\n[[config]]\nname = "a"\n', True),
    ('format = 1\n[[config]]\nname = "a"\nexpect = "refuted"\n', False),  # a config's key, not the file's
    ('format = 1\ndescription = """\n[[config]]\n"""\nexpect = "refuted"\n[[config]]\nname = "a"\n', True),
    ('format = 1\nxs = [\n  [1],\n]\nexpect = "refuted"\n', True),  # a line starting with [ inside an array
    ('format = 1\nexpect = "refuted"\n[[config]]\nname = \n', False),  # broken further down: checked, not skipped
    ('expect = "proven"\n[[config]]\n', False),
    ('  expect = "refuted"\n  [x]\n  y = 1\n', True),
])
def test_declares_refuted_reads_the_top_level_keys_as_the_whole_file_does(tmp_path, text, refuted):
    f = tmp_path / "s.toml"
    f.write_text(text, encoding="utf-8")
    assert declares_refuted(str(f)) is refuted


def test_the_html_page_of_a_spool_is_that_of_the_list(tmp_path):
    from datetime import UTC, datetime

    from layoutcheck.report.html import to_html, write_html

    rows, when = _rows()[:40], datetime(2026, 1, 2, tzinfo=UTC)
    assert to_html(_spool(rows), when=when) == to_html(rows, when=when)
    write_html(_spool(rows), str(tmp_path / "r.html"))
    assert (tmp_path / "r.html").read_text(encoding="utf-8").count("<tr class=") == 40


def test_a_row_and_its_fields_round_trip_through_pickle():
    import pickle

    from layoutcheck.check_row import row_of

    for r in _rows()[:20]:
        assert row_of(r.fields()) == r and pickle.loads(pickle.dumps(r)) == r


def test_two_workers_give_the_rows_of_one():
    paths = [str(ROOT / "specs"), str(ROOT / "specs" / "broken")]
    p = plan(paths, include_broken=True)
    strip = [(r.file, r.config, r.property, r.status, r.counterexample, r.line) for r in check_rows(p, jobs=1)]
    assert [(r.file, r.config, r.property, r.status, r.counterexample, r.line) for r in check_rows(p, jobs=2)] == strip


def test_an_ascii_text_takes_one_column_a_character():
    from layoutcheck.report.width import _char_width, display_width

    assert all(_char_width(chr(c)) == 1 for c in range(128)) and display_width("".join(map(chr, range(128)))) == 128
