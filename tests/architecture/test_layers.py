"""The package's shape: imports flow one way down the layer list, no module imports upwards, no import cycle.

A newcomer finds each concept in the module named after it; this test keeps that true as the package grows.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "layoutcheck"

# top to bottom: a module may import its own layer and the layers above it, never one below
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "result", "version", "memo"),
    ("algebra",),
    ("hw",),
    ("expr",),
    ("models",),
    ("importers",),
    ("properties",),
    ("engines",),
    ("spec",),
    ("check",),
    ("report",),
    ("codegen",),
    ("gpu",),
    ("cli", "testing", "pytest_plugin", "__main__", "__init__"),
)
RANK = {name: i for i, names in enumerate(LAYERS) for name in names}


def _modules() -> dict[str, Path]:
    out = {}
    for f in PKG.rglob("*.py"):
        parts = list(f.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


NOTEBOOK_HOOKS = {"_repr_svg_", "_repr_html_"}
"""The one exception to "imports flow down": Jupyter asks a value for its picture by calling these methods on it, so
a value class (``Layout``, ``MmaAtom``, ``TiledMMA``, ``Result``) imports ``layoutcheck.report.show`` inside them,
when a notebook asks; nothing else in the method's layer can reach the report layer through them."""


def _notebook_imports(tree: ast.AST) -> set[int]:
    """ids of the import nodes inside ``_repr_svg_`` / ``_repr_html_`` methods that import ``report.show``."""
    out = set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name in NOTEBOOK_HOOKS:
            out |= {id(n) for n in ast.walk(fn)
                    if isinstance(n, ast.ImportFrom) and n.module == "layoutcheck.report.show"}
    return out


def _imports(name: str, path: Path, top_level_only: bool) -> set[str]:
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    hooks = _notebook_imports(tree)
    found = set()
    for node in nodes:
        if id(node) in hooks:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("layoutcheck"):
                found.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level:
            raise AssertionError(f"{name}: relative import (use absolute layoutcheck.* imports)")
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("layoutcheck")}
    return found


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


MODULES = _modules()


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_flow_down(name: str) -> None:
    if name == "layoutcheck":
        return  # the public face: lazy names only
    me = RANK[_layer(name)]
    for dep in _imports(name, MODULES[name], top_level_only=False):
        assert RANK[_layer(dep)] <= me, f"{name} imports {dep}, a layer below it"


def test_no_import_cycle() -> None:
    graph = {n: {d for d in _imports(n, p, top_level_only=True) if d in MODULES} for n, p in MODULES.items()}
    state: dict[str, int] = {}

    def visit(n: str, stack: list[str]) -> None:
        state[n] = 1
        for d in graph[n]:
            if state.get(d) == 1:
                raise AssertionError("import cycle: " + " -> ".join([*stack[stack.index(d):], d]))
            if d not in state:
                visit(d, [*stack, d])
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n, [n])


def test_every_module_is_in_a_layer() -> None:
    assert {_layer(n) for n in MODULES if n != "layoutcheck"} <= set(RANK)


def test_every_public_lazy_name_resolves_to_its_defining_module() -> None:
    import importlib

    import layoutcheck

    for name, module in layoutcheck._LAZY.items():
        obj = getattr(importlib.import_module(module), name)
        assert getattr(obj, "__module__", module) == module, f"{name}: defined in {obj.__module__}, listed as {module}"
