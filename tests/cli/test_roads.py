"""Every input reaches a verdict row through ``layoutcheck.check`` (issue #26, "several roads to a verdict"): a file
that cannot be read is one ERROR row naming it and the other files still run; report paths are checked for
writability before any check runs; one report failing never stops the others; the printed exit code is the
process's."""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from layoutcheck.check import check_paths
from layoutcheck.check_roads import road_of
from layoutcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
GATE = str(ROOT / "specs" / "sm80_gemm.toml")
TTGIR = ROOT / "tests" / "data" / "ttgir" / "matmul_fp16_16x16x16_w1_sm80.ttgir"


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["check", "-q", *argv])
    return code, out.getvalue(), err.getvalue()


def _truncated(tmp_path: Path) -> str:
    bad = tmp_path / "trunc.ttgir"
    text = TTGIR.read_text()
    bad.write_text(text[:text.index("warpsPerCTA")])  # the file ends inside the first encoding
    return str(bad)


def test_a_truncated_ttgir_is_one_error_row_and_the_gate_still_runs(tmp_path):
    bad, junit = _truncated(tmp_path), tmp_path / "r.xml"
    code, out, err = _run(bad, GATE, "--junit", str(junit))
    assert code == 2 and err == ""
    assert f"cannot read the TTGIR module {bad}" in out and "(exit 2)" in out
    xml = junit.read_text()
    assert xml.count("<testcase") == 1 + out.count("PROVEN")  # the ERROR row and every row of the gate
    assert f'name="{bad}"' in xml and f'name="{GATE}"' in xml and 'type="ERROR"' in xml


def test_an_unreadable_file_names_itself(tmp_path):
    bad = tmp_path / "latin1.ttgir"
    bad.write_bytes(b"\xff\xfe#ttg.blocked")
    code, out, _ = _run(str(bad), GATE)
    assert code == 2 and f"{bad}: not UTF-8 text" in out


def test_every_road_goes_through_check_paths(tmp_path):
    """A .ttgir module, a TileLang log and a CuTe printout, checked with a spec in one run, each named in its rows."""
    log = tmp_path / "run.log"
    log.write_text("compiling...\nLayout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8 + _j,))\n")
    cute = tmp_path / "layout.txt"
    cute.write_text("((4,8),(2,2)):((32,1),(16,8))\n")
    assert [road_of(str(p)) for p in (TTGIR, log, cute, Path(GATE))] == ["ttgir", "tilelang", "cute", "spec"]
    rows = check_paths([str(TTGIR), str(log), str(cute), GATE])
    files = list(dict.fromkeys(r.file for r in rows))
    assert files == [str(TTGIR), str(log), str(cute), GATE]  # path order
    assert all(r.status == "PROVEN" for r in rows), [r for r in rows if r.status != "PROVEN"]
    again = check_paths([str(TTGIR), str(log), str(cute), GATE], jobs=2)  # workers read the same claims
    assert [replace(r, time_s=0) for r in rows] == [replace(r, time_s=0) for r in again]


def test_a_module_with_nothing_to_check_is_unknown_and_skipped_layouts_are_rows(tmp_path, monkeypatch):
    """Fail closed: a module cut before its first encoding proves nothing (UNKNOWN, exit 3), and every layout the
    importer skips is an UNKNOWN row saying what was not modelled."""
    empty = tmp_path / "cut.ttgir"
    empty.write_text(TTGIR.read_text().split("#mma")[0].rsplit("\n", 2)[0])
    code, out, _ = _run(str(empty))
    assert code == 3 and "no tensor with a layout encoding" in out
    import layoutcheck.check_roads as check_roads
    import layoutcheck.properties.ttgir as ttgir

    real = ttgir.ttgir_claims

    def with_a_skip(text):  # the importer reports a layout it does not model
        got = real(text)
        return ttgir.TtgirClaims(got.claims, ((7, "#odd 3x5xf32", "not a power of two"),), got.layouts)

    monkeypatch.setattr(ttgir, "ttgir_claims", with_a_skip)
    check_roads._CLAIMS.clear()
    rows = check_paths([str(TTGIR)])
    check_roads._CLAIMS.clear()
    gaps = [r for r in rows if r.status == "UNKNOWN"]
    assert [(r.config, r.line, r.reason) for r in gaps] == [("#odd 3x5xf32", 7, "not modelled: not a power of two")]
    assert rows == sorted(rows, key=lambda r: r.line) and len(rows) > 1


def test_banks_adds_the_ttgir_bank_claims():
    plain, banks = check_paths([str(TTGIR)]), check_paths([str(TTGIR)], banks=True)
    assert len(banks) > len(plain) and {r.property for r in banks} > {r.property for r in plain}


def test_a_report_path_that_cannot_be_written_stops_the_run_before_any_check(tmp_path, monkeypatch):
    import layoutcheck.check as check
    import layoutcheck.check_roads as check_roads

    def no_check(*a, **k):
        raise AssertionError("a check ran before the report paths were validated")

    monkeypatch.setattr(check, "check_paths", no_check)
    monkeypatch.setattr(check_roads, "plan", no_check)
    code, out, err = _run(GATE, "--json", str(tmp_path / "ok.json"), "--junit", "/proc/layoutcheck-r.xml")
    assert code == 2 and out == ""
    assert "--junit /proc/layoutcheck-r.xml: cannot write there" in err
    assert not (tmp_path / "ok.json").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_a_read_only_directory_is_refused_up_front(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        code, _, err = _run(GATE, "--json", str(ro / "r.json"))
    finally:
        ro.chmod(0o755)
    assert code == 2 and "cannot write there" in err


def test_a_full_disk_names_the_file_and_the_reason_and_the_other_reports_are_written(tmp_path, monkeypatch):
    import layoutcheck.report.verdicts as verdicts

    def full(rows, path):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(verdicts, "write_junit", full)
    js, junit, sarif = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.sarif"
    code, out, err = _run(GATE, "--junit", str(junit), "--json", str(js), "--sarif", str(sarif))
    assert code == 2
    assert f"--junit {junit}: cannot write: No space left on device" in err
    assert out.rstrip().endswith("(exit 2)")  # the printed exit code is the process's
    assert json.loads(js.read_text())["summary"]["PROVEN"] > 0 and sarif.exists() and not junit.exists()


def test_a_write_that_fails_midway_leaves_no_partial_file_and_names_the_reason(tmp_path, monkeypatch):
    from layoutcheck.report import verdicts

    def result(r):  # the JSON writer has written its head when the disk fills up
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(verdicts, "_json_result", result)
    js, junit = tmp_path / "r.json", tmp_path / "r.xml"
    code, out, err = _run(GATE, "--json", str(js), "--junit", str(junit))
    assert code == 2 and f"--json {js}: No space left on device" in err
    assert not js.exists() and not list(tmp_path.glob(".layoutcheck-*")) and junit.exists()
    assert "(exit 2)" in out


def test_the_html_pictures_and_gpu_take_the_check_road(tmp_path):
    """``row_property`` rebuilds the property a row decided (what the HTML report draws); ``gpu``'s spec cases read
    files through ``check.plan``: an unreadable file is one ERROR and the other files still give kernels."""
    from layoutcheck.check import row_property
    from layoutcheck.codegen.spec_cases import spec_cases

    rows = check_paths([str(TTGIR), str(ROOT / "specs" / "broken" / "missed_element.toml")], include_broken=True)
    assert {r.file for r in rows} == {str(TTGIR), str(ROOT / "specs" / "broken" / "missed_element.toml")}
    assert all(str(row_property(r)) == r.claim for r in rows)  # the very claim each row decided
    bad = tmp_path / "bad.toml"
    bad.write_text("format = 1\n[[config\n")
    cases, skipped = spec_cases([str(bad), str(ROOT / "specs" / "seed000_permutation.toml")])
    assert cases and [s.verdict for s in skipped if str(bad) in s.config] == ["ERROR"]


def test_import_reads_a_file_as_check_does(tmp_path, capsys):
    """``import`` takes the road ``check`` takes; a file it cannot read is one line naming it, a spec is refused."""
    cute = tmp_path / "layout.txt"
    cute.write_text("((4,8),(2,2)):((32,1),(16,8))\n")
    assert main(["import", str(cute), "-o", str(tmp_path / "s.toml")]) == 0
    assert check_paths([str(tmp_path / "s.toml")])[0].status == "PROVEN"
    capsys.readouterr()
    assert main(["import", str(tmp_path / "missing.txt")]) == 2
    assert f"{tmp_path / 'missing.txt'}: cannot read: No such file or directory" in capsys.readouterr().err
    assert main(["import", GATE]) == 2 and "already a spec" in capsys.readouterr().err
    assert main(["import", str(TTGIR), "-o", str(tmp_path / "t.toml")]) == 0
    assert all(r.status == "PROVEN" for r in check_paths([str(tmp_path / "t.toml")]))


def test_an_os_error_without_a_file_name_prints_no_empty_field(monkeypatch, capsys):
    import layoutcheck.cli as cli

    def full(args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(cli, "cmd_calc", full)
    assert main(["calc", "size(4:1)"]) == 2
    assert capsys.readouterr().err == "layoutcheck: error: No space left on device\n"
