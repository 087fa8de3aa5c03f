"""One vocabulary (issue #26): a spec kind or property name is written in one module, the registry
(``layoutcheck/spec/schema.py``); every other module reads it from there (``KINDS``, ``PROPERTY_SPECS``, the claims'
constructors and ``name`` fields) or is listed below with the reason it cannot.

What counts as writing a name: a string constant (not a docstring) equal to a property name, anywhere; a string
constant equal to a kind name where it is compared with a ``kind`` (``cfg.kind == "smem"``, ``cfg.kind in
("tv", ...)``) or passed as ``kind=``. A claim's own ``name`` and an ``__all__`` are not a second spelling; a
kind name that is also a key (``cfg.get("layout")``) or a word of another vocabulary (the ``smem`` stage of a data
path) is not the kind.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from layoutcheck.spec.schema import KINDS, PROPERTY_SPECS

PKG = Path(__file__).resolve().parents[2] / "layoutcheck"
REGISTRY = "spec/schema.py"

ALLOWED: dict[str, str] = {
    "__init__.py": "the PEP 562 map of public Python names (the claims' constructors bear the property names) to "
                   "their modules; reading the registry there would load it on `import layoutcheck`",
    "spec/bind.py": "the binders: a kind's binder picks each of its properties' arguments from the config (the "
                    "registry's binder column; which arguments a claim takes is written only there)",
    "spec/bind_tcgen05.py": "the binders of the Blackwell kinds (as spec/bind.py)",
    "spec/bind_block_scale.py": "the binder of scale_factors (as spec/bind.py)",
    "spec/imported.py": "`got.kind` is the kind of a CuTe printout (importers.cute), another vocabulary",
    "importers/cute_dsl_findings.py": "writes the spec text of what a CuTe DSL kernel builds (kinds and properties "
                                      "are the words of that text, as a user's spec spells them)",
}
"""Module -> why it still spells a kind or property name (each entry a reason; ``test_the_allowlist_is_needed``
keeps it short)."""


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
        if isinstance(node, ast.Module | ast.ClassDef):  # attribute docstrings: a string after an assignment
            for a, b in zip(node.body, node.body[1:], strict=False):
                if isinstance(a, ast.Assign | ast.AnnAssign) and isinstance(b, ast.Expr) \
                        and isinstance(b.value, ast.Constant):
                    out.add(id(b.value))
    return out


def _is_kind(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "kind"


def _own_names(tree: ast.AST) -> set[int]:
    """ids of the constants a module writes as Python names or as a claim's own name: ``__all__``, and a class's
    ``name`` (the claim column of the registry: ``tests/spec/test_registry.py`` checks that each built claim's name
    is its registry name)."""
    out = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
            else []
        if any(getattr(t, "id", "") == "__all__" for t in targets) and node.value is not None:
            out |= {id(c) for c in ast.walk(node.value) if isinstance(c, ast.Constant)}
        if isinstance(node, ast.ClassDef):
            for st in node.body:
                names = st.targets if isinstance(st, ast.Assign) else [st.target] if isinstance(st, ast.AnnAssign) \
                    else []
                if any(getattr(t, "id", "") == "name" for t in names) and isinstance(st.value, ast.Constant):
                    out.add(id(st.value))
    return out


def _kind_constants(tree: ast.AST) -> set[int]:
    """ids of the string constants compared with a ``kind`` or passed as ``kind=``."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(_is_kind(x) for x in (node.left, *node.comparators)):
            out |= {id(c) for x in (node.left, *node.comparators) for c in ast.walk(x) if isinstance(c, ast.Constant)}
        elif isinstance(node, ast.keyword) and node.arg == "kind":
            out |= {id(c) for c in ast.walk(node.value) if isinstance(c, ast.Constant)}
    return out


def spelt_names(path: Path) -> Counter[str]:
    """The kind and property names module ``path`` writes (see the module docstring), with their counts."""
    tree = ast.parse(path.read_text())
    docs, kind_uses = _docstrings(tree) | _own_names(tree), _kind_constants(tree)
    out: Counter[str] = Counter()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in docs:
            continue
        if node.value in PROPERTY_SPECS or (node.value in KINDS and id(node) in kind_uses):
            out[node.value] += 1
    return out


def _modules() -> dict[str, Counter[str]]:
    found = {str(f.relative_to(PKG)): spelt_names(f) for f in sorted(PKG.rglob("*.py"))}
    return {m: c for m, c in found.items() if c and m != REGISTRY}


def test_no_module_but_the_registry_spells_a_kind_or_property_name() -> None:
    stray = {m: dict(c) for m, c in _modules().items() if m not in ALLOWED}
    assert not stray, f"kind / property names outside {REGISTRY} (read them from the registry): {stray}"


def test_the_allowlist_is_needed() -> None:
    assert set(ALLOWED) <= set(_modules()), f"allowed but clean: {sorted(set(ALLOWED) - set(_modules()))}"
    assert all(ALLOWED.values())
    assert not [m for m, why in ALLOWED.items() if "to move" in why], "an entry still waiting to move"
