"""``pytest_plugin``: a kernel library's own pytest run gates its specs (PROVEN passes, REFUTED fails with the
counterexample), run as a user runs it: a fresh pytest with the plugin named in a ``conftest.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = '''format = 1
[[config]]
name = "{name}"
kind = "layout"
layout = "{layout}"
properties = ["bijective"]
'''


def _pytest(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp / "conftest.py").write_text('pytest_plugins = ["layoutcheck.pytest_plugin"]\n')
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *args],
                          cwd=tmp, env=env, capture_output=True, text=True, timeout=300)


def test_a_proven_spec_passes_and_a_refuted_one_fails_with_its_counterexample(tmp_path: Path) -> None:
    (tmp_path / "good.toml").write_text(SPEC.format(name="transpose", layout="(4,8):(8,1)"))
    (tmp_path / "bad.toml").write_text(SPEC.format(name="overlap", layout="(4,8):(1,2)"))
    ok = _pytest(tmp_path, "--layoutcheck-specs", "good.toml")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "1 passed" in ok.stdout
    bad = _pytest(tmp_path, "--layoutcheck-specs", "bad.toml")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "overlap" in bad.stdout and "REFUTED" in bad.stdout
