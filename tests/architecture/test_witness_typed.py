"""Every counterexample is a typed witness record (issue #26): ``check --include-broken specs/broken specs/zoo``
yields only ``layoutcheck.witness`` records, except the few kinds listed in ``UNTYPED``; and the claims, engines and
models build no dict-literal witness outside the listed sites."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import layoutcheck.check as check
from layoutcheck.witness import from_json
from layoutcheck.witness_record import Witness

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "layoutcheck"

UNTYPED: dict[tuple[str, str], str] = {}
"""(claim, kind) -> where the witness is still an untyped dict, and why it was left (none left)."""

DICT_SITES: dict[str, set[str]] = {
    "layoutcheck/properties/residue.py": {"<dynamic>"},  # ScheduleBijection._witness builds, then from_json
    "layoutcheck/engines/sizes_z3.py": {"<dynamic>"},  # _grid_witness builds, then from_json
    "layoutcheck/properties/base.py": {"<decision>"},  # the protocol's example: a plug-in claim may use a dict
    # first_fault's faults; properties.datapath makes each one a record (witness.path_fault)
    "layoutcheck/models/datapath.py": {"<dynamic>", "misplaced", "doubled", "unwritten", "missed", "wrong", "outside",
                                        "overlapping"},
}
"""Modules that still build a dict literal with a ``"kind"`` key -> the kinds (``<dynamic>``: computed)."""


@pytest.fixture(scope="module")
def refuted():
    seen = []
    orig = check.row_from_result

    def spy(result, *a, **k):
        row = orig(result, *a, **k)
        if row.status == "REFUTED":
            seen.append((row, result.counterexample.witness))
        return row

    mp = pytest.MonkeyPatch()
    mp.setattr(check, "row_from_result", spy)
    try:
        rows = check.check_paths([str(ROOT / "specs" / "broken"), str(ROOT / "specs" / "zoo")], "auto", 10.0, 1, True)
    finally:
        mp.undo()
    assert sum(r.status == "REFUTED" for r in rows) == len(seen) > 100
    return seen


def test_every_counterexample_of_broken_and_zoo_is_a_typed_record(refuted):
    untyped = set()
    for row, w in refuted:
        if w is None:
            untyped.add((row.property.split("(")[0], row.counterexample_data.get("kind", "<none>")))
            continue
        assert isinstance(w, Witness)
        assert w.to_json() == row.counterexample_data  # the JSON report is the record's own encoding
        assert from_json(row.counterexample_data).to_json() == row.counterexample_data
    assert untyped <= set(UNTYPED), f"new untyped witnesses: {sorted(untyped - set(UNTYPED))}"
    assert sum(w is not None for _, w in refuted) == len(refuted)


def _dict_kinds(path: Path) -> set[str]:
    """Kinds of the dict literals with a ``"kind"`` key, and ``<decision>`` for a dict literal handed to
    ``Decision(False, ...)`` (a kind-less witness)."""
    kinds = set()
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "kind" for k in n.keys):
            v = n.values[[getattr(k, "value", None) for k in n.keys].index("kind")]
            kinds.add(v.value if isinstance(v, ast.Constant) else "<dynamic>")
        if (isinstance(n, ast.Call) and getattr(n.func, "id", None) == "Decision" and len(n.args) > 1
                and isinstance(n.args[1], ast.Dict)):
            kinds.add("<decision>")
    return kinds


def test_no_new_dict_literal_witnesses():
    found = {}
    for sub in ("properties", "engines", "models"):
        for f in sorted((PKG / sub).rglob("*.py")):
            kinds = _dict_kinds(f)
            if kinds:
                found[str(f.relative_to(ROOT))] = kinds
    extra = {f: k - DICT_SITES.get(f, set()) for f, k in found.items() if k - DICT_SITES.get(f, set())}
    assert not extra, f"build a layoutcheck.witness record instead of a dict: {extra}"
