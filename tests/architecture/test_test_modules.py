"""Every module with logic has its test module (issue #26, "What to build").

A module under ``layoutcheck/`` *has logic* when it defines a function (a class with a method included). Its *test
module* is a ``tests/**/test_*.py`` that imports it (any import, in a function too: ``import layoutcheck.a.b``,
``from layoutcheck.a import b``, ``from layoutcheck.a.b import name``), or one named after it:
``tests/<pkg>/test_<module>*.py`` for ``layoutcheck/<pkg>/<module>.py`` (any ``tests/`` folder for a top-level
module). ``ALLOWED`` names the modules without one, each with its reason; an entry that is no longer needed fails
too, so the list only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "layoutcheck"
TESTS = ROOT / "tests"

NO_TEST_YET = "no test module yet"
ALLOWED: dict[str, str] = {}
"""Module (dotted, without ``layoutcheck.``) -> why it has no test module of its own."""


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def has_logic(tree: ast.Module) -> bool:
    """A function anywhere, a class's methods included (a record of fields alone is data)."""
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) for node in ast.walk(tree))


def imported_modules(tree: ast.Module, known: set[str]) -> set[str]:
    """The ``layoutcheck`` modules (of ``known``, dotted without the prefix) an AST imports, at any depth."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        for name in names:
            if name == "layoutcheck" or name.startswith("layoutcheck."):
                out |= {name[len("layoutcheck."):]} & known  # the package itself is ""
    return out


def _named_after(module: str, test: Path) -> bool:
    if not module:
        return False
    *pkg, leaf = module.split(".")
    if not test.name.startswith(f"test_{leaf}"):
        return False
    return not pkg or test.parent.name == pkg[-1]


def modules_with_logic() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if has_logic(ast.parse(path.read_text())):
            out[_module(path)] = path
    return out


def untested() -> set[str]:
    modules = modules_with_logic()
    known = set(modules)
    tests = sorted(TESTS.rglob("test_*.py"))
    covered: set[str] = set()
    for t in tests:
        covered |= imported_modules(ast.parse(t.read_text()), known)
    covered |= {m for m in known for t in tests if _named_after(m, t)}
    return known - covered


def test_every_module_with_logic_has_a_test_module() -> None:
    missing = sorted(untested() - set(ALLOWED))
    assert missing == [], f"modules with logic but no test module (write tests/<pkg>/test_<module>.py): {missing}"


def test_the_allowlist_holds_only_modules_without_a_test_module() -> None:
    stale = sorted(set(ALLOWED) - untested())
    assert stale == [], f"these modules have a test module now (or are gone): drop them from ALLOWED: {stale}"


def test_every_allowance_says_why() -> None:
    assert all(why.strip() for why in ALLOWED.values())


def test_the_rules_on_small_sources() -> None:
    assert not has_logic(ast.parse("X = 1\nclass R:\n    a: int\n"))
    assert has_logic(ast.parse("class R:\n    def f(self): pass\n"))
    tree = ast.parse("def t():\n    from layoutcheck.spec import bind\n    import layoutcheck.hw.tma\n")
    assert imported_modules(tree, {"spec.bind", "hw.tma", "hw.smem"}) == {"spec.bind", "hw.tma"}
    assert _named_after("spec.bind", Path("tests/spec/test_bind_keys.py"))
    assert not _named_after("spec.bind", Path("tests/cli/test_bind_keys.py"))
    assert _named_after("check", Path("tests/cli/test_check_rows.py"))
    assert imported_modules(ast.parse("import layoutcheck\n"), {"", "check"}) == {""}
