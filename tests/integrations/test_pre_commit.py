"""The pre-commit hook (``.pre-commit-hooks.yaml``), run by pre-commit itself: ``pre-commit try-repo`` installs this
checkout into pre-commit's own environment (as a user's ``repo:`` entry would) and runs the hook in a throw-away git
repository holding a proven spec, a refuted one, a broken-on-purpose one and a ``pyproject.toml``. Skipped cleanly
where pre-commit is not installed (``.ci/run`` installs it) or its environment cannot be built (no package index).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs"
PRE_COMMIT = shutil.which("pre-commit")
pytestmark = pytest.mark.skipif(PRE_COMMIT is None or shutil.which("git") is None,
                                reason="pre-commit (pip install pre-commit) and git are needed")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    r = tmp_path_factory.mktemp("user_repo")
    (r / "specs" / "broken").mkdir(parents=True)
    shutil.copy(SPECS / "seed001_mma_c_fragment.toml", r / "specs" / "good.toml")
    shutil.copy(SPECS / "broken" / "doubly_owned.toml", r / "specs" / "wrong.toml")
    shutil.copy(SPECS / "broken" / "doubly_owned.toml", r / "specs" / "broken" / "on_purpose.toml")
    (r / "pyproject.toml").write_text('[project]\nname = "kernels"\n')
    _git(r, "init", "-q")
    _git(r, "add", ".")
    return r


def try_repo(repo: Path, *files: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the hook runs its own installed copy
    proc = subprocess.run([PRE_COMMIT, "try-repo", str(ROOT), "layoutcheck", "--verbose",
                           *(["--files", *files] if files else ["--all-files"])],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=900, check=False)
    if "An unexpected error has occurred" in proc.stdout + proc.stderr or "CalledProcessError" in proc.stdout:
        pytest.skip(f"pre-commit could not build the hook's environment: {(proc.stdout + proc.stderr)[-400:]}")
    return proc


def test_the_hook_passes_a_proven_spec(repo):
    proc = try_repo(repo, "specs/good.toml")
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert "layoutcheck (prove changed layout specs)" in proc.stdout and "Passed" in proc.stdout
    assert "7 checks: 7 proven" in proc.stdout


def test_the_hook_fails_a_refuted_spec_and_skips_broken_and_other_toml(repo):
    proc = try_repo(repo)
    out = proc.stdout
    assert proc.returncode == 1 and "Failed" in out, out[-2000:]
    assert "counterexample: tile element (4,0) is owned 2 times" in out and "specs/wrong.toml" in out
    assert "on_purpose.toml" not in out and "pyproject" not in out  # broken/ excluded; only specs/ directories
