"""The semantics oracles share no code with what they judge: no module of ``tests/semantics/`` (``test_sem_*.py``,
its helpers) or ``tests/strategies_sem_*.py`` imports ``layoutcheck.properties``, ``layoutcheck.models`` or
``layoutcheck.engines`` -- anywhere in the file, function bodies included. A claim is reached through the public
entry (``layoutcheck.prove``, ``layoutcheck.check.check_property``, the lazy ``layoutcheck.<claim>`` names); only
``from layoutcheck.engines.prove import prove`` is tolerated."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
FORBIDDEN = ("layoutcheck.properties", "layoutcheck.models", "layoutcheck.engines")
ALLOWED = {("layoutcheck.engines.prove", "prove")}


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
                if full.startswith(FORBIDDEN) and (mod, a.name) not in ALLOWED:
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
                 "from layoutcheck import properties\nfrom layoutcheck.engines.prove import prove\n")
    assert len(forbidden_imports(f)) == 3
