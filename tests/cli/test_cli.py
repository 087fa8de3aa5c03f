"""The ``layoutcheck`` command line, run in-process through ``main(argv)``: outputs, exit codes, one-line errors."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from layoutcheck.cli import main

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- calc --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("expr", "expected"), [
    ("logical_divide((128,128):(128,1), ((16,4):(4,1),(16,4):(4,1)))",
     "(((16,4),2),((16,4),2)):(((512,128),8192),((4,1),64))"),
    ("right_inverse(((4,8),(2,2)):((32,1),(16,8)))", "(8,2,2,4):(4,64,32,1)"),
    ("composition((4,2):(2,1), 8:1)", "(4,2):(2,1)"),
    ("size(((4,8),(2,2)):((32,1),(16,8)))", "128"),
    ("make_layout_tv((4,8):(8,1), (2,4):(4,1))", "((8,32),((8,4),(4,2)):((32,2),(8,1)))"),
    ("Sw<3,3,3> o (8,64):(64,1)", "Sw<3,3,3> o 0 o (8,64):(64,1)"),
    ("get(((4,8),(2,2)):((32,1),(16,8)), 1)", "(2,2):(16,8)"),
])
def test_calc_prints_cute_notation(capsys, expr, expected):
    code, out, err = run(capsys, "calc", expr)
    assert (code, out.strip(), err) == (0, expected, "")


def test_calc_right_inverse_is_the_seed_inverse_tv(capsys):
    # seed 003: inverse TV of m16n8k8 A is ((8,2),(2,4)):((4,64),(32,1)); flattened, the same function
    from layoutcheck import Layout, parse_layout

    _, out, _ = run(capsys, "calc", "right_inverse(((4,8),(2,2)):((32,1),(16,8)))")
    got = parse_layout(out.strip())
    want = Layout(((8, 2), (2, 4)), ((4, 64), (32, 1)))
    assert got.offsets().tolist() == want.offsets().tolist()


@pytest.mark.parametrize(("expr", "fragment"), [
    ("(4,2):(1", "expected ')'"),
    ("foo((4,2))", "unknown function 'foo'"),
    ("composition((5,3):(7,1), 7:1)", "composition"),
    ("logical_divide((4,6):(1,5), 3:1)", "logical_divide"),  # C++ answers it, unsoundly (CUTLASS #3177-style)
    ("composition(1, 2, 3, 4)", "bad arguments to composition"),
    ("(4,2):(1,2,3)", "shape"),
])
def test_calc_bad_input_is_one_line_exit_2(capsys, expr, fragment):
    code, out, err = run(capsys, "calc", expr)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("layoutcheck: error:") and fragment in err
    assert "Traceback" not in err


def test_usage_errors_are_one_line(capsys):
    for argv in ([], ["bogus"], ["calc"], ["check", "--timeout", "-1"], ["prove", "(4,2):(1,4)", "--property", "x"]):
        code, _, err = run(capsys, *argv)
        assert code == 2 and err.count("\n") == 1, (argv, err)


def test_help_exits_0(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "check" in out


# -- prove -------------------------------------------------------------------------------------------------------
def test_prove_bijective_and_refuted(capsys):
    code, out, _ = run(capsys, "prove", "(8,64):(64,1)", "--property", "bijective")
    assert code == 0 and out.startswith("PROVEN")
    code, out, _ = run(capsys, "prove", "(4,2):(2,2)", "--property", "injective")
    assert code == 1 and "counterexample" in out


def test_prove_conflict_free_swizzle(capsys):
    code, out, _ = run(capsys, "prove", "Sw<3,3,3> o (8,64):(64,1)", "--property", "conflict_free",
                       "--access", "ldsm_x4", "--dtype", "f16")
    assert code == 0 and out.startswith("PROVEN")
    code, out, _ = run(capsys, "prove", "(8,64):(64,1)", "--property", "conflict_free", "--access", "ldsm_x4",
                       "--dtype", "f16")
    assert code == 1 and "bank 0" in out


def test_prove_exact_cover_needs_tile(capsys):
    code, _, err = run(capsys, "prove", "((4,8),(2,2)):((32,1),(16,8))", "--property", "exact_cover")
    assert code == 2 and "--tile" in err
    code, _, _ = run(capsys, "prove", "((4,8),(2,2)):((32,1),(16,8))", "--property", "exact_cover",
                     "--tile", "16", "8")
    assert code == 0


def test_prove_unknown_access_is_bad_input(capsys):
    code, _, err = run(capsys, "prove", "(8,64):(64,1)", "--property", "conflict_free", "--access", "ldsm_x5",
                       "--dtype", "f16")
    assert code == 2 and "ldsm_x5" in err


# -- check -------------------------------------------------------------------------------------------------------
def test_check_bundled_specs_all_proven(capsys, tmp_path):
    junit, js = tmp_path / "r.xml", tmp_path / "r.json"
    code, out, _ = run(capsys, "check", "-q", str(SPECS), "--junit", str(junit), "--json", str(js))
    assert code == 0, out
    data = json.loads(js.read_text())
    assert data["schema_version"] == 2 and data["exit_code"] == 0
    assert data["summary"]["REFUTED"] == 0 and data["summary"]["PROVEN"] == len(data["results"]) > 100
    assert not any("broken" in r["file"] for r in data["results"])
    root = ET.parse(junit).getroot()
    assert int(root.get("tests")) == len(data["results"]) and root.get("failures") == "0"


@pytest.mark.parametrize("name", sorted(p.name for p in (SPECS / "broken").glob("*.toml")))
def test_each_broken_spec_fails_with_a_counterexample(capsys, tmp_path, name):
    js = tmp_path / "r.json"
    code, out, _ = run(capsys, "check", "-q", str(SPECS / "broken" / name), "--json", str(js))
    assert code == 1
    results = json.loads(js.read_text())["results"]
    refuted = [r for r in results if r["status"] == "REFUTED"]
    assert refuted and all(r["counterexample"]["text"] for r in refuted)
    assert "counterexample:" in out


def test_check_junit_failure_carries_counterexample(capsys, tmp_path):
    junit = tmp_path / "r.xml"
    code, _, _ = run(capsys, "check", "-q", str(SPECS / "broken" / "missed_element.toml"), "--junit", str(junit))
    assert code == 1
    case = ET.parse(junit).getroot().find(".//testcase")
    assert case is not None and case.get("name") == "exact_cover"
    failure = case.find("failure")
    assert failure is not None and "owned 0 times" in failure.get("message")


def test_check_defaults_to_specs_dir(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    code, out, _ = run(capsys, "check", "-q")
    assert code == 0 and "proven" in out


def test_check_parallel_matches_serial(capsys, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    run(capsys, "check", "-q", str(SPECS / "seed003_gmma_swizzle.toml"), "--json", str(a))
    run(capsys, "check", "-q", "-j", "2", str(SPECS / "seed003_gmma_swizzle.toml"), "--json", str(b))
    strip = lambda p: [(r["config"], r["property"], r["status"]) for r in json.loads(p.read_text())["results"]]  # noqa: E731
    assert strip(a) == strip(b)


def test_check_no_progress_lines_when_not_a_tty(capsys):
    # a CI log gets the table and one summary line, never one [i/n] line per check
    code, out, err = run(capsys, "check", str(SPECS / "seed001_mma_c_fragment.toml"))
    assert code == 0 and "[1/" not in err and "\r" not in err and err == ""
    assert out.rstrip().splitlines()[-1].startswith("7 checks: 7 proven")


def test_check_progress_forces_the_bar_and_names_each_file_before_reading_it(capsys):
    """``--progress``: the bar on stderr even when it is no terminal (a CI log), drawn before the first file is read
    (a 70k-config spec takes seconds to load; issue #29), then one ``loading`` label per file, then the checks."""
    code, out, err = run(capsys, "check", "--progress", str(SPECS / "seed001_mma_c_fragment.toml"))
    assert code == 0 and out.rstrip().splitlines()[-1].startswith("7 checks: 7 proven")
    draws = err.split("\r")
    assert "loading 1 input files" in draws[1] and "loading 1: seed001_mma_c_fragment.toml" in draws[2]
    assert "7/7" in err and err.endswith("\r")


def test_check_progress_bar_on_a_tty():
    import io

    from layoutcheck.check_row import Row
    from layoutcheck.report.verdicts import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    s = Tty()
    p = Progress(2, s)
    p.start("loading")  # shown before the first proof ends
    assert "0/2" in s.getvalue()
    p.update(Row("f", "c", "p", "PROVEN"))
    p.update(Row("f", "c", "q", "PROVEN"))
    assert "2/2" in s.getvalue() and s.getvalue().endswith("\r")


def test_check_missing_module_is_unknown_exit_3(capsys, tmp_path, monkeypatch):
    import layoutcheck.spec.bind as bind
    from layoutcheck.errors import ModuleMissing

    def missing(*a, **k):
        raise ModuleMissing("property injective needs module layoutcheck.not_there, not available")

    monkeypatch.setitem(bind.PROPERTIES, "injective", missing)
    p = tmp_path / "s.toml"
    p.write_text('format = 1\n[[config]]\nname = "a"\nkind = "layout"\nlayout = "4:1"\nproperties = ["injective"]\n')
    code, out, _ = run(capsys, "check", "-q", str(p))
    assert code == 3 and "needs module layoutcheck.not_there, not available" in out


def test_check_bad_config_is_an_error_row_and_reports_are_written(capsys, tmp_path):
    p = tmp_path / "s.toml"
    p.write_text('format = 1\n[[config]]\nname = "a"\nkind = "layout"\nlayuot = "4:1"\nproperties = ["injective"]\n'
                 '[[config]]\nname = "b"\nkind = "layout"\nlayout = "4:1"\nproperties = ["injective"]\n')
    junit, js = tmp_path / "r.xml", tmp_path / "r.json"
    code, out, err = run(capsys, "check", str(p), "--junit", str(junit), "--json", str(js))
    assert code == 2 and err == "" and "did you mean 'layout'" in out and f"{p}:5" in out
    data = json.loads(js.read_text())
    assert [r["status"] for r in data["results"]] == ["ERROR", "PROVEN"] and data["exit_code"] == 2
    err_row = data["results"][0]
    assert err_row["error"]["key"] == "layuot" and err_row["line"] == 5 and err_row["error"]["internal"] is False
    case = ET.parse(junit).getroot().find(".//testcase")
    assert case is not None and case.find("error").get("type") == "ERROR"


def test_check_missing_path_is_an_error_row(capsys, tmp_path):
    js = tmp_path / "r.json"
    code, out, _ = run(capsys, "check", str(tmp_path / "nope"), str(SPECS / "seed000_permutation.toml"), "--json",
                       str(js))
    assert code == 2 and "no such spec" in out
    statuses = [r["status"] for r in json.loads(js.read_text())["results"]]
    assert statuses[0] == "ERROR" and set(statuses[1:]) == {"PROVEN"}


# -- vectors / show / gpu ----------------------------------------------------------------------------------------
def test_vectors_npz_roundtrip(capsys, tmp_path):
    import numpy as np

    out = tmp_path / "v.npz"
    code, _, _ = run(capsys, "vectors", str(SPECS / "seed001_mma_c_fragment.toml"), "--config", "m16n8k16_C",
                     "--format", "npz", "-o", str(out))
    assert code == 0
    z = np.load(out)
    assert z["row"].shape == (32, 4) and z["row"][0].tolist() == [0, 0, 8, 8] and z["col"][0].tolist() == [0, 1, 0, 1]


def test_vectors_needs_tv_config(capsys, tmp_path):
    code, _, err = run(capsys, "vectors", str(SPECS / "seed004_simt_gemm.toml"), "--format", "json", "-o",
                       str(tmp_path / "v.json"))
    assert code == 2 and "--config" in err


def test_show_grid(capsys):
    code, out, _ = run(capsys, "show", "(2,2):(1,2)")
    assert code == 0 and "| 0 | 2 |" in out and "| 1 | 3 |" in out


def test_gpu_delegates_or_explains(capsys):
    code, out, err = run(capsys, "gpu", "--help")
    assert (code == 0 and "layoutcheck gpu" in out) or (code == 2 and "not available" in err)


def test_hard_deadline_nests():
    import time

    from layoutcheck.check import hard_deadline
    from layoutcheck.errors import HardTimeout

    with pytest.raises(HardTimeout), hard_deadline(0.3):
        with hard_deadline(5):
            pass
        time.sleep(2)  # the outer deadline still fires after the inner one ended


def test_module_entry_point():
    import subprocess
    import sys

    exe = shutil.which("layoutcheck")
    cmd = [exe] if exe else [sys.executable, "-m", "layoutcheck"]
    p = subprocess.run([*cmd, "calc", "coalesce((2,(1,6)):(1,(6,2)))"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == "12:1"


# -- layoutcheck.testing and the pytest plugin -------------------------------------------------------------------
def test_assert_proven_carries_the_counterexample():
    from layoutcheck import Layout, bijective, injective
    from layoutcheck.errors import ProofFailed
    from layoutcheck.testing import assert_proven, assert_refuted

    assert assert_proven(bijective(Layout((4, 2), (2, 1)))).proven
    with pytest.raises(ProofFailed) as e:
        assert_proven(injective(Layout((4, 2), (2, 2))))
    assert isinstance(e.value, AssertionError) and e.value.counterexample is not None
    assert "collide" in str(e.value) and e.value.result.status.value == "REFUTED"
    assert assert_refuted(injective(Layout((4, 2), (2, 2)))).status.value == "REFUTED"


def test_spec_cases_and_check_case():
    from layoutcheck.errors import ProofFailed
    from layoutcheck.testing import check_case, spec_cases

    cases = spec_cases([str(SPECS / "seed001_mma_c_fragment.toml")])
    assert [str(c) for c in cases][:2] == ["m16n8k16_C::exact_cover", "m16n8k16_C::bijective"]
    assert check_case(cases[0]).status == "PROVEN"
    (bad,) = spec_cases([str(SPECS / "broken" / "missed_element.toml")])
    with pytest.raises(ProofFailed, match="owned 0 times"):
        check_case(bad)


def test_pytest_plugin_gates_specs(tmp_path):
    import subprocess
    import sys

    (tmp_path / "test_x.py").write_text(
        "from layoutcheck import Layout, injective\n"
        "def test_fixture(layoutcheck_prove):\n    layoutcheck_prove(injective(Layout((4, 2), (1, 4))))\n")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "layoutcheck.pytest_plugin",
           "--rootdir", str(tmp_path), str(tmp_path / "test_x.py"),
           "--layoutcheck-specs", str(SPECS / "seed001_mma_c_fragment.toml"),
           "--layoutcheck-specs", str(SPECS / "broken" / "missed_element.toml")]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert "1 failed, 8 passed" in p.stdout, p.stdout[-2000:]
    assert "owned 0 times (expected 1): nobody" in p.stdout
