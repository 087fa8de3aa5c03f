"""``docs/design.md`` names modules and the names they define; every one of them must exist where it says (issue
#26: a card that names a function in the wrong module sends a newcomer to the wrong file)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "layoutcheck"
DESIGN = (ROOT / "docs" / "design.md").read_text()

PENDING: dict[str, str] = {}
"""References design.md still makes to the wrong module -> the module that defines the name. The integrator fixes
those lines of design.md (issue #26) and then removes the entries here (the test says which)."""

PENDING_DIRS: dict[str, str] = {}
"""Folders design.md's package table still names where they no longer are -> where they are now (same rule)."""


def _module_file(dotted: str) -> Path | None:
    base = PKG.joinpath(*dotted.split("."))
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.is_file():
            return f
    return None


def _defined(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """Top-level names of a module or class body (also under ``if``/``try``) -> their node."""
    out: dict[str, ast.AST] = {}
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[n.name] = n
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            out |= {x.id: n for t in targets for x in ast.walk(t) if isinstance(x, ast.Name)}
        elif isinstance(n, (ast.If, ast.Try)):
            stack += [*n.body, *n.orelse, *getattr(n, "finalbody", []),
                      *(s for h in getattr(n, "handlers", []) for s in h.body)]
    return out


def _problem(ref: str) -> str | None:
    """Why ``ref`` (``package.module.Name[.attr]``) is wrong, or None."""
    parts = ref.split(".")
    for i in range(len(parts), 0, -1):
        f = _module_file(".".join(parts[:i]))
        if f is not None:
            break
    else:
        return f"{ref}: no module {parts[0]}"
    names = parts[i:]
    body = ast.parse(f.read_text()).body
    for k, name in enumerate(names):
        found = _defined(body).get(name)
        if found is None:
            where = ".".join(parts[:i + k])
            return f"{ref}: {where} does not define {name}"
        body = found.body if isinstance(found, ast.ClassDef) else []
    return None


TOP = {p.stem for p in PKG.glob("*.py")} | {p.name for p in PKG.iterdir() if (p / "__init__.py").is_file()}
_REF = re.compile(r"^(?:layoutcheck\.)?([a-z_0-9]+(?:\.[A-Za-z_0-9]+)+)(?:\(.*\))?$")


def _references() -> set[str]:
    refs = set()
    for span in re.findall(r"`([^`\n]+)`", DESIGN):
        m = _REF.match(span.strip())
        if m and m.group(1).split(".")[0] in TOP and not m.group(1).endswith(".py"):
            refs.add(m.group(1))
    return refs


def _table_modules() -> list[str]:
    """Every module the package table lists, as a dotted name (``models/banks/{model,...}`` expanded)."""
    out = []
    for row in re.findall(r"^\| `(\w+)/` \| ([^|]*) \|", DESIGN, re.MULTILINE):
        package, cell = row
        for item in re.findall(r"`([^`]+)`", cell):
            m = re.fullmatch(r"(\w+)/\{([\w,]+)\}", item)
            if m:
                out += [f"{package}.{m.group(1)}.{x}" for x in m.group(2).split(",")]
            elif item.endswith("/"):
                out.append(f"{package}/{item}")
            else:
                out.append(f"{package}.{item}")
    for row in re.findall(r"^\| \((?:root|top)\) \| ([^|]*) \|", DESIGN, re.MULTILINE):
        out += [x for x in re.findall(r"`(\w+)`", row)]
    return out


def test_every_module_of_the_package_table_exists() -> None:
    modules = _table_modules()
    assert len(modules) > 80
    folders = {m for m in modules if m.endswith("/")}
    missing = [m for m in set(modules) - folders if _module_file(m) is None and m != "__init__"]
    assert not missing, f"design.md lists modules that do not exist: {missing}"
    gone = {f for f in folders if not (PKG / f).is_dir()}
    assert gone == set(PENDING_DIRS) & folders, f"design.md lists folders that do not exist: {sorted(gone)}"
    assert all((ROOT / d).is_dir() for d in PENDING_DIRS.values())
    assert not set(PENDING_DIRS) - folders, "design.md no longer lists them: remove them from PENDING_DIRS"


def test_every_file_design_md_names_exists() -> None:
    paths = set(re.findall(r"`((?:[\w]+/)+[\w*]+\.(?:py|cu|toml))`", DESIGN))
    missing = [p for p in paths if "*" not in p and not ((PKG / p).is_file() or (ROOT / p).is_file())]
    assert not missing, f"design.md names files that do not exist: {missing}"


def test_every_name_design_md_attributes_to_a_module_is_defined_there() -> None:
    refs = _references()
    assert len(refs) >= 15
    wrong = {r: _problem(r) for r in refs}
    wrong = {r: why for r, why in wrong.items() if why}
    assert set(wrong) == set(PENDING) & refs, f"design.md names names in the wrong module: {sorted(wrong.values())}"
    stale = set(PENDING) - refs
    assert not stale, f"design.md no longer says {sorted(stale)}: remove them from PENDING"
    for ref, right in PENDING.items():
        assert _problem(f"{right}.{ref.rsplit('.', 1)[1]}") is None, f"{ref} is not defined in {right} either"
