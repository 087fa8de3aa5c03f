"""The semantics oracles share no code with what they judge: no module of ``tests/semantics/`` (``test_sem_*.py``,
its helpers) or ``tests/strategies_sem_*.py`` imports ``layoutcheck.properties``, ``layoutcheck.models`` or
``layoutcheck.engines`` -- anywhere in the file, function bodies included -- except to call the claim under test
through the public entry: ``layoutcheck.prove`` / ``layoutcheck.check.check_property`` (preferred: a spec's text, or
the lazy ``layoutcheck.<claim>`` names), ``from layoutcheck.engines.prove import prove``, and a claim's public
constructor from ``layoutcheck.properties.<module>`` (a public function whose return annotation is one class name,
the claim's type: ``linear_property(...) -> Property``). Helpers of a claim (its evaluation, its witnesses), models
and engines stay out of reach."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import layoutcheck

TESTS = Path(__file__).resolve().parents[1]
FORBIDDEN = ("layoutcheck.properties", "layoutcheck.models", "layoutcheck.engines")
ALLOWED = {("layoutcheck.engines.prove", "prove")}
INPUTS = {
    # the subject a spec's keys describe, built by its constructor; the oracles read its fields, never its methods
    ("layoutcheck.models.residue", "ResidueTiling"), ("layoutcheck.models.residue", "COUNTS"),
    ("layoutcheck.models.residue", "PREDICATES"), ("layoutcheck.models.schedulers", "TileScheduler"),
    ("layoutcheck.models.schedulers", "ProblemListScheduler"), ("layoutcheck.models.stream_k", "StreamKScheduler"),
    # a Triton operand allocation (offset -> operand element), the input of the nvmma / tma_box claims
    ("layoutcheck.properties.nvmma", "StoredOperand"),
    # the claim under test, constructed directly (its shared-memory copy row) ...
    ("layoutcheck.properties.linear", "LinearConflictFree"),
    # ... and the decision under test itself, compared with the naive holder sets (never used to build the oracle)
    ("layoutcheck.properties.ttgir", "cvt_path"),
}
"""Named exceptions, each the input of a claim or the thing judged, never a helper the oracle computes with."""


@cache
def claim_constructors(module: str) -> frozenset[str]:
    """Public functions of ``layoutcheck.properties.<x>`` that return one class (a claim): ``def f(...) -> C``."""
    path = Path(layoutcheck.__file__).parent.joinpath(*module.split(".")[1:]).with_suffix(".py")
    if not path.exists():
        return frozenset()
    return frozenset(n.name for n in ast.parse(path.read_text()).body
                     if isinstance(n, ast.FunctionDef) and not n.name.startswith("_") and _claim_types(n.returns))


def _claim_types(ann: ast.expr | None) -> bool:
    """A return annotation naming claim classes only: ``C`` or ``C | D`` (one constructor of several claims)."""
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return _claim_types(ann.left) and _claim_types(ann.right)
    return isinstance(ann, ast.Name) and ann.id[:1].isupper()


def semantics_files() -> list[Path]:
    return sorted([*TESTS.glob("semantics/*.py"), *TESTS.glob("strategies_sem_*.py")])


def forbidden_imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [f"{path.name}:{node.lineno}: import {a.name}" for a in node.names if a.name.startswith(FORBIDDEN)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            mod = node.module
            for a in node.names:
                full = f"{mod}.{a.name}" if mod == "layoutcheck" else mod
                if mod.startswith("layoutcheck.properties.") and a.name in claim_constructors(mod):
                    continue
                if full.startswith(FORBIDDEN) and (mod, a.name) not in ALLOWED | INPUTS:
                    out.append(f"{path.name}:{node.lineno}: from {mod} import {a.name}")
    return out


def test_the_semantics_suite_exists() -> None:
    names = {p.name for p in semantics_files()}
    assert "test_sem_independence.py" in names and any(n.startswith("strategies_sem_") for n in names)


def test_no_semantics_module_imports_what_it_judges() -> None:
    bad = [line for p in semantics_files() for line in forbidden_imports(p)]
    assert not bad, "semantics oracles must not import the claims, models or engines they check:\n" + "\n".join(bad)


def test_the_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    f = tmp_path / "test_sem_fake.py"
    f.write_text("def f():\n    from layoutcheck.models.tma import TmaBox\nimport layoutcheck.engines.z3\n"
                 "from layoutcheck import properties\nfrom layoutcheck.engines.prove import prove\n"
                 "from layoutcheck.properties.tma import tma_compatible, TmaCompatible\n"
                 "from layoutcheck.properties.base import smallest_collision\n")
    assert len(forbidden_imports(f)) == 5  # TmaCompatible (the class, with its helpers) and a claim's helper too
