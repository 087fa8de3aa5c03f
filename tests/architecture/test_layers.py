"""The package's shape: imports flow one way down the layer list, no module imports upwards, no import cycle.

A newcomer finds each concept in the module named after it; this test keeps that true as the package grows. Every
import counts, top level or inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "layoutcheck"

# top to bottom: a module may import its own layer and the layers above it, never one below
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "display", "witness_record", "witness_maps", "witness_banks", "witness_descriptors", "witness_tmem",
     "witness_paths", "witness", "result", "version", "memo"),
    ("algebra",),
    ("hw",),
    ("expr",),
    ("models",),
    ("importers",),
    ("properties",),
    ("engines",),
    ("spec",),
    ("check_row", "check_plan", "check_roads", "check"),
    ("report",),
    ("codegen",),
    ("gpu",),
    ("cli_args", "cli_prove", "cli_kernels", "cli", "testing", "pytest_plugin", "notebook", "__main__", "__init__"),
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
"""Jupyter asks a value for its picture through these methods; they look the picture up in ``layoutcheck.display``
(filled from the top by ``layoutcheck.notebook``), so no hook imports upwards."""


def _imports(name: str, path: Path) -> set[str]:
    """Every ``layoutcheck`` module ``name`` imports, at top level or inside a function (a lazy import is an import
    all the same); ``from package import module`` names the module."""
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            raise AssertionError(f"{name}: relative import (use absolute layoutcheck.* imports)")
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("layoutcheck"):
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in MODULES}
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
    for dep in _imports(name, MODULES[name]):
        assert RANK[_layer(dep)] <= me, f"{name} imports {dep}, a layer below it"


def test_notebook_hooks_import_nothing() -> None:
    """The values' ``_repr_svg_`` / ``_repr_html_`` import nothing: their pictures come from ``layoutcheck.display``."""
    hooks = [f"{name}.{fn.name}" for name, path in MODULES.items() for fn in ast.walk(ast.parse(path.read_text()))
             if isinstance(fn, ast.FunctionDef) and fn.name in NOTEBOOK_HOOKS
             and any(isinstance(n, ast.Import | ast.ImportFrom) for n in ast.walk(fn))]
    assert not hooks, f"notebook hooks that import: {hooks}"


def test_no_import_cycle() -> None:
    """No cycle through any import, in-function ones included (a lazy import hides a cycle, it does not break it)."""
    graph = {n: {d for d in _imports(n, p) if d in MODULES and d != n} for n, p in MODULES.items()}
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


def test_an_import_inside_a_function_is_seen(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("def f():\n    from layoutcheck.hw.mma import mma_atom\n    from layoutcheck.gpu import tools\n"
                   "    import layoutcheck.algebra.layout\n")
    assert _imports("m", src) == {"layoutcheck.hw.mma", "layoutcheck.gpu", "layoutcheck.gpu.tools",
                                  "layoutcheck.algebra.layout"}


def _defined(path: Path) -> set[str]:
    """The names a module defines at top level (functions, classes, assignments, also under ``if``/``try``)."""
    out: set[str] = set()
    stack = list(ast.parse(path.read_text()).body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            out |= {x.id for t in targets for x in ast.walk(t) if isinstance(x, ast.Name)}
        elif isinstance(n, (ast.If, ast.Try)):
            stack += [*n.body, *n.orelse, *getattr(n, "finalbody", []),
                      *(s for h in getattr(n, "handlers", []) for s in h.body)]
    return out


def test_every_import_names_the_module_that_defines_the_name() -> None:
    """No re-export for compatibility: inside the package, ``from layoutcheck.M import name`` only where ``M``
    defines ``name`` (or ``name`` is a submodule of the package ``M``)."""
    defined = {n: _defined(p) for n, p in MODULES.items()}
    bad = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module in MODULES and node.module != "layoutcheck":
                bad += [f"{name}: {node.module}.{a.name}" for a in node.names
                        if a.name not in defined[node.module] and f"{node.module}.{a.name}" not in MODULES]
    assert not bad, "imported from a module that does not define it: " + ", ".join(bad)
