"""The mutation tool's rule for a test that runs past its timeout under a mutant (``tests/mutation/mutate.py``,
``run_mutant``): a kill only when that test passes unmutated in under half the per-test timeout; a test that is slow
anyway leaves the mutant undecided. Runs the tool on a two-file scratch tree (a few seconds)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("pytest_timeout")

_spec = importlib.util.spec_from_file_location("mutate", Path(__file__).with_name("mutate.py"))
mutate = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("mutate", mutate)
_spec.loader.exec_module(mutate)

MODULE = "def f():\n    return 1\n"
TESTS = '''import time
from m import f


def test_quick():
    while f() != 1:  # the mutant f() == 2 never ends
        pass


def test_slow():
    time.sleep(SLOW)
    while f() != 1:
        pass
'''


def _scratch(tmp_path: Path, slow: float) -> Path:
    (tmp_path / "m.py").write_text(MODULE)
    (tmp_path / "test_m.py").write_text(TESTS.replace("SLOW", repr(slow)))
    return tmp_path


def _run(scratch: Path, test: str) -> str:
    m = next(m for m, _ in mutate.mutants(scratch / "m.py", "m.py") if m.after == "(2)")
    src = dict((mm.after, s) for mm, s in mutate.mutants(scratch / "m.py", "m.py"))["(2)"]
    return mutate.run_mutant(scratch, m, src, MODULE, {test}, timeout=60, test_timeout=4).status


def test_a_hang_in_a_test_that_is_quick_unmutated_is_a_kill(tmp_path: Path) -> None:
    scratch = _scratch(tmp_path, 0.0)
    assert _run(scratch, "test_m.py::test_quick") == "killed (test timeout)"
    assert (scratch / "m.py").read_text() == MODULE  # the module is restored


def test_a_hang_in_a_test_that_is_slow_unmutated_is_undecided(tmp_path: Path) -> None:
    scratch = _scratch(tmp_path, 2.5)  # past half the 4 s per-test timeout even unmutated
    assert _run(scratch, "test_m.py::test_slow") == "undecided (test timeout)"
    assert "undecided (test timeout)" in mutate.UNDECIDED and "killed (test timeout)" in mutate.KILLED
