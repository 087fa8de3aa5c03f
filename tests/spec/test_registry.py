"""One registry (issue #26): each spec kind and each property is declared once in ``spec/schema.py`` (``KINDS``,
``PROPERTY_PARAMS``), and the typed registry of ``spec/bind.py`` (``BINDERS``, ``PROPERTIES``) covers exactly those
names; the user documentation names every one."""

from __future__ import annotations

import ast
from pathlib import Path

from layoutcheck.spec.bind import BINDERS, PROPERTIES
from layoutcheck.spec.schema import ALL_PROPERTIES, KINDS, PROPERTY_PARAMS

ROOT = Path(__file__).resolve().parents[2]


def _writes(path: Path, name: str) -> list[str]:
    """How module ``path`` writes ``name``: ``=`` per assignment, ``|=`` / ``[...] =`` per patch."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out += ["=" for t in targets if isinstance(t, ast.Name) and t.id == name]
            out += ["[...] =" for t in targets if isinstance(t, ast.Subscript) and getattr(t.value, "id", "") == name]
        elif isinstance(node, ast.AugAssign) and getattr(node.target, "id", "") == name:
            out.append("|=")
    return out


def test_each_kind_and_property_table_is_written_once() -> None:
    schema = ROOT / "layoutcheck" / "spec" / "schema.py"
    for name in ("KINDS", "PROPERTY_PARAMS", "ALL_PROPERTIES"):
        assert _writes(schema, name) == ["="], f"{name} is patched after its declaration: {_writes(schema, name)}"


def test_the_binders_cover_exactly_the_declared_kinds_and_properties() -> None:
    assert set(BINDERS) == set(KINDS)
    assert set(PROPERTIES) == set(PROPERTY_PARAMS) and sorted(PROPERTY_PARAMS) == ALL_PROPERTIES
    supported = set().union(*(k["properties"] for k in KINDS.values()))
    assert supported == set(PROPERTY_PARAMS), "a property no kind supports, or a kind supporting an unknown one"
    for kind, k in KINDS.items():
        assert set(k) == {"keys", "required", "properties"} and k["required"] <= k["keys"], kind


def test_the_user_documentation_names_every_kind_and_property() -> None:
    text = (ROOT / "specs" / "README.md").read_text()
    missing = [n for n in (*KINDS, *PROPERTY_PARAMS) if f"`{n}`" not in text and f'"{n}"' not in text]
    assert not missing, f"specs/README.md does not name {missing}"
