"""``check -j auto`` (the default): workers only for a run large enough to gain from them, never more than the usable
cores or ``AUTO_MAX_JOBS``; the rows are the same whatever the worker count."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from layoutcheck.check_plan import AUTO_MAX_JOBS, AUTO_MIN_WEIGHT, Plan, Unit, auto_jobs
from layoutcheck.cli import main

SPECS = Path(__file__).resolve().parents[2] / "specs"


def _plan(weights: list[int]) -> Plan:
    return Plan([Unit("f.toml", i, 1, w) for i, w in enumerate(weights)], [], ["f.toml"])


def test_small_runs_stay_serial() -> None:
    assert auto_jobs(_plan([])) == 1
    assert auto_jobs(_plan([AUTO_MIN_WEIGHT * 5])) == 1  # one unit: nothing to spread
    assert auto_jobs(_plan([1] * (AUTO_MIN_WEIGHT - 1))) == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked only on Linux")
def test_large_runs_use_the_usable_cores(monkeypatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)))
    assert auto_jobs(_plan([1] * 500)) == AUTO_MAX_JOBS
    assert auto_jobs(_plan([100, 100, 100])) == 3  # never more workers than units
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert auto_jobs(_plan([1] * 500)) == 1


def test_default_and_serial_give_the_same_rows(tmp_path, capsys) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    ragged = str(SPECS / "ragged.toml")  # seven size-range claims: heavy enough for workers under auto
    assert main(["check", "-q", ragged, "--json", str(a)]) == 0
    assert main(["check", "-q", "-j", "1", ragged, "--json", str(b)]) == 0
    capsys.readouterr()
    key = [(r["config"], r["property"], r["status"], r["engine"]) for r in json.loads(a.read_text())["results"]]
    assert key == [(r["config"], r["property"], r["status"], r["engine"]) for r in json.loads(b.read_text())["results"]]


def test_jobs_flag_takes_auto_or_a_positive_count(capsys) -> None:
    assert main(["check", "-q", "-j", "auto", str(SPECS / "sm80_gemm.toml")]) == 0
    assert main(["check", "-q", "-j", "0", str(SPECS / "sm80_gemm.toml")]) == 2
    assert "positive integer" in capsys.readouterr().err
