"""One registry (issue #26): each spec kind and each property is declared once, in ``spec/schema.py`` (``KINDS``,
``PROPERTY_SPECS``: name, parameters with types and docs, binder, claim, ``prove``'s inputs); the binders' and
claims' tables of ``spec/bind.py`` are keyed from it, and the user documentation's tables are generated from it."""

from __future__ import annotations

import ast
import contextlib
from pathlib import Path

from layoutcheck.errors import SpecError
from layoutcheck.spec.bind import BINDER_FUNCTIONS, BINDERS, PROPERTIES
from layoutcheck.spec.schema import (
    ALL_PROPERTIES,
    KINDS,
    PROPERTY_SPECS,
    PROVE_KEYS,
    kinds_of,
    markdown_table,
    prove_inputs,
    update_generated,
)

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
    for name in ("KINDS", "PROPERTY_SPECS", "ALL_PROPERTIES"):
        assert _writes(schema, name) == ["="], f"{name} is patched after its declaration: {_writes(schema, name)}"
    bind = ROOT / "layoutcheck" / "spec" / "bind.py"
    for name in ("BINDERS", "PROPERTIES", "BINDER_FUNCTIONS"):
        assert _writes(bind, name) == ["="], f"{name} is patched after its declaration: {_writes(bind, name)}"


def test_the_binders_and_claims_cover_exactly_the_declared_kinds_and_properties() -> None:
    assert set(BINDERS) == set(KINDS)
    assert set(PROPERTIES) == set(PROPERTY_SPECS) and sorted(PROPERTY_SPECS) == ALL_PROPERTIES
    assert {k.binder for k in KINDS.values()} == set(BINDER_FUNCTIONS), "a binder no kind names, or a kind's unknown"
    supported = {p for k in KINDS.values() for p in k.properties}
    assert supported == set(PROPERTY_SPECS), "a property no kind supports, or a kind supporting an unknown one"
    for name, kind in KINDS.items():
        assert kind.name == name and kind.required <= kind.keys and len(set(kind.properties)) == len(kind.properties)
        assert not kind.subject or kind.subject in kind.keys, name
    for name, spec in PROPERTY_SPECS.items():
        assert spec.name == name and PROPERTIES[name].__name__ == name, "a claim's constructor bears its name"
        assert len(spec.param_names) == len(spec.params) and spec.doc, name


def test_every_param_is_typed_and_documented_and_each_flag_is_one_input() -> None:
    by_flag: dict[str, set[str]] = {}
    for spec in PROPERTY_SPECS.values():
        for p in (*spec.params, *PROVE_KEYS):
            assert p.type in {"integer", "integers", "layout", "string"} and p.doc, (spec.name, p)
            if p.flag:
                by_flag.setdefault(p.flag, set()).add(p.name)
    assert all(len(names) == 1 for names in by_flag.values()), by_flag


def test_prove_states_every_property_it_takes_on_a_kind_that_has_its_inputs() -> None:
    for name, spec in PROPERTY_SPECS.items():
        if spec.prove is None:
            assert prove_inputs(name) == ()
            continue
        kind = KINDS[spec.prove.kind]
        assert name in kind.properties and kind.subject, name
        flagged = {i.name for i in prove_inputs(name)}
        for need in spec.prove.needs:
            assert set(need.keys) <= flagged and (not need.unless or need.unless in flagged), (name, need)


def test_a_claims_built_name_is_its_registry_name() -> None:
    """Every property of the bundled specs (broken ones and the bug zoo included) builds a claim that reports the
    name the spec wrote."""
    from layoutcheck.spec.bind import Unsound, build_property
    from layoutcheck.spec.load import load_spec

    seen = set()
    for path in sorted((ROOT / "specs").rglob("*.toml")):
        for cfg in load_spec(str(path)).configs:
            for req in cfg.properties:
                if (cfg.kind, req.name) in seen:
                    continue
                try:  # a broken spec's input error (an ERROR row) builds no claim: a later config exercises it
                    with contextlib.suppress(Unsound):
                        assert build_property(cfg, req).name == req.name, (path.name, cfg.name, req.name)
                except SpecError:
                    continue
                seen.add((cfg.kind, req.name))
    assert {p for _, p in seen} == set(PROPERTY_SPECS), "a property no bundled spec exercises"


def test_the_user_documentation_tables_are_the_generated_ones() -> None:
    """``specs/README.md``'s kinds and properties tables are ``markdown_table``'s; regenerate them with
    ``python -m layoutcheck.spec.schema --update specs/README.md``."""
    text = (ROOT / "specs" / "README.md").read_text()
    assert update_generated(text) == text, "specs/README.md's tables are stale: run the --update command above"
    for name in ALL_PROPERTIES:
        assert f"| `{name}` | {', '.join(f'`{k}`' for k in kinds_of(name))} |" in markdown_table("properties")


def test_the_user_documentation_names_every_kind_and_property() -> None:
    text = (ROOT / "specs" / "README.md").read_text()
    missing = [n for n in (*KINDS, *PROPERTY_SPECS) if f"`{n}`" not in text and f'"{n}"' not in text]
    assert not missing, f"specs/README.md does not name {missing}"


def test_the_sarif_rules_are_the_registrys() -> None:
    from layoutcheck.report.sarif import RULES, to_sarif

    assert {f"layoutcheck/{n}" for n in PROPERTY_SPECS} <= set(RULES)
    for name, spec in PROPERTY_SPECS.items():
        assert RULES[f"layoutcheck/{name}"]["shortDescription"]["text"] == spec.doc
    driver = to_sarif([])["runs"][0]["tool"]["driver"]
    assert [r["id"] for r in driver["rules"]] == sorted(RULES)
