"""The GitHub Action (``action.yml``): its ``run:`` steps are run here as a runner would run them -- inputs through
``env:``, ``bash --noprofile --norc -eo pipefail``, ``$GITHUB_STEP_SUMMARY`` / ``$GITHUB_OUTPUT`` files in a temporary
directory -- on a passing and a failing set of specs. The ``uses:`` steps (actions/setup-python, the code-scanning
upload) are GitHub's own; the test checks what they are given. The install step is not run (it would pip install
this repository from the network); its command is checked, and ``python3`` is this interpreter with the checkout on
``PYTHONPATH``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
SPECS = ROOT / "specs"


def _expand(value: str, inputs: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    """GitHub's ``${{ ... }}`` for the expressions the action's ``env:`` uses."""
    def one(m: re.Match[str]) -> str:
        expr = m.group(1).strip()
        if expr.startswith("inputs."):
            return inputs[expr.removeprefix("inputs.")]
        if expr == "github.action_path":
            return str(ROOT)
        step, _, name = expr.removeprefix("steps.").partition(".outputs.")
        return outputs.get(step, {}).get(name, "")

    return re.sub(r"\$\{\{(.*?)\}\}", one, str(value))


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line) if path.exists() else {}


def run_action(work: Path, **given: str) -> tuple[dict[str, dict[str, str]], list[subprocess.CompletedProcess[str]]]:
    """Run every ``run:`` step but the install in ``work``; returns (step outputs, the finished steps)."""
    inputs = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()} | given
    bindir = work / "_bin"
    bindir.mkdir()
    (bindir / "python3").symlink_to(sys.executable)
    summary = work / "_summary.md"
    outputs: dict[str, dict[str, str]] = {}
    done = []
    for step in ACTION["runs"]["steps"]:
        if "run" not in step or step.get("id") == "install":
            continue
        out_file = work / f"_output_{step.get('id', 'step')}"
        env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT),
               "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(out_file), "RUNNER_TEMP": str(work)}
        env |= {k: _expand(v, inputs, outputs) for k, v in step.get("env", {}).items()}
        assert "${{" not in step["run"], f"step {step['name']!r}: inputs go through env:, never into the script"
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=work,
                              env=env, capture_output=True, text=True, timeout=300, check=False)
        done.append(proc)
        if "id" in step:
            outputs[step["id"]] = _outputs(out_file)
        if proc.returncode:
            break
    return outputs, done


def test_the_action_is_a_composite_action_with_its_steps():
    assert ACTION["runs"]["using"] == "composite"
    steps = ACTION["runs"]["steps"]
    uses = {s["uses"].split("@")[0]: s for s in steps if "uses" in s}
    assert set(uses) == {"actions/setup-python", "github/codeql-action/upload-sarif"}
    assert uses["github/codeql-action/upload-sarif"]["with"]["sarif_file"] == "${{ inputs.sarif }}"
    assert "always()" in uses["github/codeql-action/upload-sarif"]["if"]  # uploaded when check fails too
    install = next(s for s in steps if s.get("id") == "install")
    assert "pip install" in install["run"] and "LC_ACTION_PATH" in install["run"]
    assert all(s.get("shell") == "bash" for s in steps if "run" in s)
    assert ACTION["outputs"]["exit-code"]["value"] == "${{ steps.check.outputs.exit-code }}"


def test_a_refuted_spec_fails_the_action_with_summary_and_sarif(tmp_path):
    (tmp_path / "gate").mkdir()
    shutil.copy(SPECS / "seed001_mma_c_fragment.toml", tmp_path / "gate" / "good.toml")
    shutil.copy(SPECS / "broken" / "doubly_owned.toml", tmp_path / "gate" / "wrong.toml")
    outputs, steps = run_action(tmp_path, paths="gate", args="--include-broken")
    assert outputs["check"]["exit-code"] == "1"  # the check step itself succeeds; the verdict step fails
    verdict = steps[-1]
    assert verdict.returncode == 1 and "::error title=layoutcheck::layoutcheck check exited 1" in verdict.stdout
    summary = (tmp_path / "_summary.md").read_text()
    assert summary.startswith("### layoutcheck: 3 refuted (exit 1)") and "c_fragment_overlap" in summary
    assert summary == (tmp_path / "layoutcheck-summary.md").read_text()  # the same file, appended to the summary
    sarif = json.loads((tmp_path / "layoutcheck.sarif").read_text())
    results = sarif["runs"][0]["results"]
    assert len(results) == 3 and all(r["level"] == "error" for r in results)
    loc = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "gate/wrong.toml", "uriBaseId": "%SRCROOT%"}


def test_a_proven_spec_passes_the_action(tmp_path):
    (tmp_path / "specs").mkdir()
    shutil.copy(SPECS / "seed001_mma_c_fragment.toml", tmp_path / "specs" / "good.toml")
    outputs, steps = run_action(tmp_path)
    assert outputs["check"]["exit-code"] == "0" and steps[-1].returncode == 0, steps[-1].stdout + steps[-1].stderr
    assert "### layoutcheck: all 7 proven (exit 0)" in (tmp_path / "_summary.md").read_text()
    assert json.loads((tmp_path / "layoutcheck.sarif").read_text())["runs"][0]["results"] == []
