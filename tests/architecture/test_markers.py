"""Every pytest marker pyproject declares is used (a declared, unused ``slow`` marks nothing and selects nothing)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_declared_marker_marks_some_test() -> None:
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    sources = "\n".join(p.read_text() for p in (ROOT / "tests").rglob("*.py"))
    for name in (m.split(":")[0] for m in markers):
        assert re.search(rf"pytest\.mark\.{name}\b", sources), f"marker {name!r} is declared and marks nothing"


def test_the_slowest_tests_are_marked_slow() -> None:
    """The tests measured slowest (``--durations=30``, 8-110 s each on a shared 2-core box) carry ``slow``, so
    ``-m 'not slow'`` gives a quick local run; CI runs them all (the suite stays within its budget)."""
    n = sum(len(re.findall(r"^@pytest\.mark\.slow$", p.read_text(), re.M)) for p in (ROOT / "tests").rglob("*.py"))
    assert n >= 15
