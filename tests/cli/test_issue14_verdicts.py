"""Issue 14: a wrong layout is REFUTED with a counterexample, unreadable input is an ERROR row, a run never aborts.

Each test is one reproducer of the issue, run through the command line in-process (``main(argv)``).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from layoutcheck.cli import main

SPECS = Path(__file__).resolve().parents[2] / "specs"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def spec(tmp_path: Path, body: str, name: str = "s.toml") -> Path:
    p = tmp_path / name
    p.write_text("format = 1\n" + body)
    return p


SWAPPED = '''[[config]]
name = "swapped"
kind = "tv"
tv = "((4,8),(2,2)):((1,32),(16,8))"
tile = [16, 8]
properties = ["exact_cover", "bijective", "in_bounds"]
'''


def test_seed001_swapped_thread_strides_are_refuted_and_reports_written(capsys, tmp_path):
    p = spec(tmp_path, SWAPPED)
    junit, js = tmp_path / "r.xml", tmp_path / "r.json"
    code, _out, err = run(capsys, "check", str(p), "--junit", str(junit), "--json", str(js))
    assert code == 1 and err == ""
    rows = json.loads(js.read_text())["results"]
    assert [r["status"] for r in rows] == ["REFUTED"] * 3
    assert "thread 16, value 0 -> 128, outside the tile" in rows[0]["counterexample"]["text"]
    assert "-> 128 is outside [0,128)" in rows[1]["counterexample"]["text"]
    assert len(ET.parse(junit).getroot().findall(".//failure")) == 3


def test_prove_bijective_image_beyond_codomain_is_refuted(capsys):
    code, out, _ = run(capsys, "prove", "(8,64):(1,16)", "--property", "bijective")
    assert code == 1 and out.startswith("REFUTED") and "-> 512 is outside [0,512)" in out


@pytest.mark.parametrize("engine", ["auto", "linear", "exhaustive", "structural"])
def test_misaligned_sts64_is_refuted_by_every_engine(capsys, engine):
    code, out, err = run(capsys, "prove", "(16,8):(9,1)", "--property", "conflict_free", "--access", "sts64",
                         "--dtype", "f32", "--engine", engine)
    if engine == "structural":  # no bank handler: declines honestly
        assert code == 3 and "UNKNOWN" in out
        return
    assert code == 1, (out, err)
    assert "lane 4: element (1,0) at byte address 36 is not 8-byte aligned" in out


def test_tiled_mma_permutation_that_is_not_one_is_refuted(capsys, tmp_path):
    p = spec(tmp_path, '''[[config]]
name = "perm"
kind = "tiled_mma"
atom = "SM80_16x8x16_F32F16F16F32_TN"
permutation = ["(16,1):(2,1)", "_", "_"]
tile = [16, 8]
properties = ["exact_cover"]
''')
    js = tmp_path / "r.json"
    code, _out, _ = run(capsys, "check", str(p), "--json", str(js))
    row = json.loads(js.read_text())["results"][0]
    # a permutation is CuTe's tiler (issue #25): on a 16-row tile, rows 0,2,..,30 run past it
    assert code == 1 and row["status"] == "REFUTED"
    assert "tile coordinate (16,0), outside the 16x8 tile (row 16 >= 16)" in row["counterexample"]["text"]


@pytest.mark.slow
def test_conflict_free_on_2_pow_40_elements_is_unknown_with_why(capsys):
    code, out, err = run(capsys, "prove", "(1048576,1048576):(1,1048576)", "--property", "conflict_free",
                         "--access", "sts32", "--dtype", "f32")
    assert code == 3 and out.startswith("UNKNOWN") and "too large" in out and err == ""


def test_exact_cover_of_the_wrong_size_and_equivalent_of_different_sizes_are_refuted(capsys):
    code, out, _ = run(capsys, "prove", "(4,8):(1,4)", "--property", "exact_cover", "--tile", "8", "8")
    assert code == 1 and "tile element (0,4) is owned 0 times" in out
    code, out, _ = run(capsys, "prove", "(4,8):(1,4)", "--property", "equivalent", "--other", "16:1")
    assert code == 1 and "sizes differ" in out


# -- CLI parity ------------------------------------------------------------------------------------------------------
def test_vectorizable_receives_dtype_and_access_needs_dtype(capsys):
    code, out, _ = run(capsys, "prove", "(8,4):(4,1)", "--property", "vectorizable", "--width", "8", "--dtype", "f16",
                       "--tile", "4", "8")
    assert code in (0, 1) and ("PROVEN" in out or "REFUTED" in out)
    code, _, err = run(capsys, "prove", "(8,64):(64,1)", "--property", "conflict_free", "--access", "ldsm_x4")
    assert code == 2 and "needs --dtype" in err and "never assumed" in err


def test_wavefront_count_has_flags_and_says_total(capsys):
    code, out, _ = run(capsys, "prove", "Sw<3,3,3> o (8,64):(64,1)", "--property", "wavefront_count", "--access",
                       "ldsm_x4", "--dtype", "f16", "--wavefronts", "4")
    assert code == 1 and "in total over its 2 instructions, not exactly 4" in out
    code, out, _ = run(capsys, "prove", "Sw<3,3,3> o (8,64):(64,1)", "--property", "wavefront_count", "--access",
                       "ldsm_x4", "--dtype", "f16", "--max-wavefronts", "8")
    assert code == 0 and out.startswith("PROVEN")


def test_errors_name_flags_not_the_internal_spec_and_no_doubled_prefix(capsys):
    code, _, err = run(capsys, "prove", "(8,64):(64,1)", "--property", "conflict_free", "--access", "ldsm_x5",
                       "--dtype", "f16")
    assert code == 2 and "--access" in err and "<command line>" not in err and "config 'prove'" not in err
    code, _, err = run(capsys, "prove", "(8,64):(64,1)", "--property", "bijective", "--width", "4")
    assert code == 2 and err.startswith("layoutcheck: error: prove:") and err.count("layoutcheck") == 1
    code, _, err = run(capsys, "prove", "(8,64):(64,1)")
    assert code == 2 and err.count("layoutcheck") == 1


def test_engine_help_lists_every_engine(capsys):
    from layoutcheck.cli import build_parser

    text = build_parser()._subparsers._group_actions[0].choices["prove"].format_help()
    for name in ("auto", "structural", "linear", "exhaustive", "z3", "sympy"):
        assert name in text


# -- error locations; no internal error for bad input -----------------------------------------------------------------
def test_bad_values_are_blamed_on_their_own_key_and_line(capsys, tmp_path):
    p = spec(tmp_path, '''[[config]]
name = "t"
kind = "tma"
dtype = "f16"
major = "K"
swizzle = "123B"
tile = [64, 64]
box = [64, 64]
properties = ["tma_compatible"]

[[config]]
name = "s"
kind = "smem"
dtype = "f16"
atom = { major = "K", mode = "128B" }
tile = [1, 64]
access = "ldsm_x4"
properties = ["conflict_free"]
''')
    js = tmp_path / "r.json"
    code, _, _ = run(capsys, "check", str(p), "--json", str(js))
    rows = json.loads(js.read_text())["results"]
    assert code == 2
    assert (rows[0]["error"]["key"], rows[0]["line"]) == ("swizzle", 7)
    assert (rows[1]["error"]["key"], rows[1]["line"]) == ("tile", 17)


def test_no_internal_error_for_bad_input(capsys, tmp_path):
    p = spec(tmp_path, '[[config]]\nname = "k"\nkind = [1]\nlayout = "4:1"\nproperties = ["injective"]\n', "k.toml")
    q = spec(tmp_path, '[[config]]\nname = "b"\nkind = "layout"\nlayout = "4:1"\ncodomain = ' + "9" * 5000
             + '\nproperties = ["injective"]\n', "b.toml")
    code, out, err = run(capsys, "check", str(p), str(q))
    assert code == 2 and "internal error" not in out + err and "k.toml:4" in out and "b.toml:6" in out
    code, _, err = run(capsys, "prove", "(1" + "0" * 5000 + "):(1)", "--property", "injective")
    assert code == 2 and "too large" in err and "internal" not in err


def test_a_bug_in_layoutcheck_exits_4_and_asks_to_be_reported(capsys, tmp_path, monkeypatch):
    import layoutcheck.spec.bind as bind

    def boom(*a, **k):
        raise KeyError("oops")

    monkeypatch.setitem(bind.PROPERTIES, "injective", boom)
    p = spec(tmp_path, '[[config]]\nname = "a"\nkind = "layout"\nlayout = "4:1"\nproperties = ["injective"]\n')
    js = tmp_path / "r.json"
    code, out, _ = run(capsys, "check", str(p), "--json", str(js))
    row = json.loads(js.read_text())["results"][0]
    assert code == 4 and row["status"] == "ERROR" and row["error"]["internal"] and "please report" in out


# -- report paths -----------------------------------------------------------------------------------------------------
def test_report_paths_are_checked_before_anything_runs(capsys, tmp_path):
    p = spec(tmp_path, SWAPPED)
    code, _, err = run(capsys, "check", str(p), "--json", str(tmp_path))
    assert code == 2 and f"--json {tmp_path}: is a directory" in err and ".layoutcheck-" not in err
    code, _, err = run(capsys, "check", str(p), "--json", str(p))
    assert code == 2 and "is an input spec file" in err and p.read_text().startswith("format = 1")
    same = tmp_path / "r"
    code, _, err = run(capsys, "check", str(p), "--json", str(same), "--junit", str(same))
    assert code == 2 and "the same file as" in err and not same.exists()
    code, _, err = run(capsys, "vectors", str(SPECS / "seed001_mma_c_fragment.toml"), "--config", "m16n8k16_C",
                       "--format", "npz", "-o", "/no/such/dir/a.npz")
    assert code == 2 and "/no/such/dir/a.npz" in err and ".layoutcheck-" not in err


# -- vectors, banks, gpu, spec_cases ---------------------------------------------------------------------------------
def test_vectors_refuses_a_partial_map_unless_asked(capsys, tmp_path):
    p = spec(tmp_path, '[[config]]\nname = "half"\nkind = "tv"\ntv = "(32,4):(1,32)"\ntile = [16, 8]\n'
             'properties = ["injective"]\n[[config]]\nname = "dup"\nkind = "tv"\ntv = "((4,8),(2,2)):((32,1),(0,8))"\n'
             'tile = [16, 8]\nproperties = ["injective"]\n')
    out = tmp_path / "v.json"
    code, _, err = run(capsys, "vectors", str(p), "--config", "dup", "--format", "json", "-o", str(out))
    assert code == 1 and "64 elements unowned, 64 owned more than 1" in err and "--partial" in err
    assert not out.exists()
    code, _, _ = run(capsys, "vectors", str(p), "--config", "dup", "--format", "json", "-o", str(out), "--partial")
    assert code == 0 and out.exists()


def test_wavefronts_of_ldsm_x1_take_its_8_row_addresses():
    from layoutcheck.models.banks.model import wavefronts

    rows = [128 * r for r in range(8)]  # 8 rows 128 B apart: all in bank 0
    assert wavefronts("ldsm_x1", rows) == 8
    assert wavefronts("ldsm_x1", [16 * r for r in range(8)]) == 1


def test_gpu_runner_exit_codes_are_honest():
    from layoutcheck.codegen.spec_cases import Skipped
    from layoutcheck.gpu.runner import Row, exit_status, format_table

    assert exit_status([], []) == 3 and "no kernel ran" in format_table([])
    ok = Row("k", "c", 10, 0, 0.1)
    assert exit_status([ok], []) == 0
    assert exit_status([ok], [Skipped("f:7 c", "bad", "ERROR")]) == 2
    assert exit_status([ok], [Skipped("f:7 c", "no kernel")]) == 0


def test_gpu_skips_cite_the_bad_keys_line(tmp_path):
    from layoutcheck.codegen.spec_cases import spec_cases

    p = spec(tmp_path, '[[config]]\nname = "m"\nkind = "tiled_mma"\natom = "SM80_16x8x16_F32F16F16F32_TN"\n'
             'tile = [15]\nproperties = ["exact_cover"]\n')
    _, skipped = spec_cases([str(p)])
    assert [s.verdict for s in skipped] == ["ERROR"] and skipped[0].config.startswith(f"{p}:6 ")


def test_spec_cases_ids_are_unique_across_files(tmp_path):
    from layoutcheck.testing import spec_cases

    for name in ("a.toml", "b.toml"):
        spec(tmp_path, '[[config]]\nname = "c"\nkind = "layout"\nlayout = "4:1"\nproperties = ["injective", '
             '"injective"]\n', name)
    ids = [str(c) for c in spec_cases([str(tmp_path)])]
    assert len(ids) == len(set(ids)) == 4


def test_jobs_give_the_same_rows_in_the_same_order(capsys, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run(capsys, "check", "-q", str(SPECS / "sm80_gemm.toml"), str(SPECS / "seed001_mma_c_fragment.toml"),
               "--json", str(a))[0] == 0
    assert run(capsys, "check", "-q", "-j", "2", str(SPECS / "sm80_gemm.toml"),
               str(SPECS / "seed001_mma_c_fragment.toml"), "--json", str(b))[0] == 0
    key = [(r["config"], r["property"], r["status"]) for r in json.loads(a.read_text())["results"]]
    assert key == [(r["config"], r["property"], r["status"]) for r in json.loads(b.read_text())["results"]]


def test_a_worker_that_dies_costs_only_its_own_config(capsys, tmp_path, monkeypatch):
    """-j: a config whose check kills its process (a crash, the OOM killer) gets internal ERROR rows; every other
    config of the run is still checked and reported."""
    import os

    from layoutcheck import check

    real = check.check_property

    def dies_on_bad(cfg, req, *a, **k):
        if cfg.name == "bad":
            os._exit(9)
        return real(cfg, req, *a, **k)

    monkeypatch.setattr(check, "check_property", dies_on_bad)  # forked workers inherit the patch
    body = '[[config]]\nname = "{}"\nkind = "layout"\nlayout = "4:1"\nproperties = ["injective"]\n'
    for i, name in enumerate(("ok1", "bad", "ok2", "ok3")):
        spec(tmp_path, body.format(name), f"{i}.toml")
    out = tmp_path / "r.json"
    code = run(capsys, "check", "-q", "-j", "2", str(tmp_path), "--json", str(out))[0]
    rows = {r["config"]: r for r in json.loads(out.read_text())["results"]}
    assert code == 4 and rows["bad"]["status"] == "ERROR" and "died" in rows["bad"]["reason"]
    assert all(rows[n]["status"] == "PROVEN" for n in ("ok1", "ok2", "ok3"))


def test_help_does_not_import_numpy():
    import subprocess
    import sys

    code = ("import sys, io, contextlib; from layoutcheck.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()): main(['--help'])\n"
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
