"""Verdicts are cached by content, never by path (issue #25): a spec file rewritten in place, in one process, gives
the new file's verdict on every road -- ``cli.main``, ``layoutcheck.testing``, the pytest plugin -- and no cache in
the package is keyed by a file name or a modification time (an AST scan)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import layoutcheck
from layoutcheck import cli
from layoutcheck.errors import ProofFailed, SpecError
from layoutcheck.testing import check_case, spec_cases

BIJECTIVE, NOT_BIJECTIVE = "(4,8):(8,1)", "(4,8):(8,2)"


def _write(path: Path, layout: str, name: str = "a") -> None:
    path.write_text(f'format = 1\n[[config]]\nname = "{name}"\nkind = "layout"\nlayout = "{layout}"\n'
                    f'properties = ["bijective"]\n')


def test_cli_main_rechecks_a_rewritten_file(tmp_path, capsys):
    p = tmp_path / "s.toml"
    _write(p, BIJECTIVE)
    assert cli.main(["check", "-q", "-j", "1", str(p)]) == 0
    _write(p, NOT_BIJECTIVE)
    assert cli.main(["check", "-q", "-j", "1", str(p)]) == 1
    _write(p, BIJECTIVE)
    assert cli.main(["check", "-q", "-j", "1", str(p)]) == 0
    capsys.readouterr()


def test_testing_rechecks_a_rewritten_file(tmp_path):
    p = tmp_path / "s.toml"
    _write(p, BIJECTIVE)
    (case,) = spec_cases([str(p)])
    assert check_case(case).status == "PROVEN"
    _write(p, NOT_BIJECTIVE)
    with pytest.raises(ProofFailed, match="REFUTED"):
        check_case(case)
    with pytest.raises(ProofFailed, match="REFUTED"):
        check_case(spec_cases([str(p)])[0])


def test_testing_refuses_a_case_whose_file_changed_shape(tmp_path):
    p = tmp_path / "s.toml"
    _write(p, BIJECTIVE)
    (case,) = spec_cases([str(p)])
    _write(p, BIJECTIVE, name="renamed")
    with pytest.raises(SpecError, match="changed since it was collected"):
        check_case(case)


def test_pytest_plugin_rechecks_a_rewritten_file(tmp_path, capsys):
    p = tmp_path / "s.toml"
    argv = ["-q", "-p", "no:cacheprovider", "-p", "layoutcheck.pytest_plugin", "-p", "no:xdist", "-p", "no:benchmark",
            "--rootdir", str(tmp_path), "--layoutcheck-specs", str(p), str(p)]
    _write(p, BIJECTIVE)
    assert pytest.main(argv) == 0
    _write(p, NOT_BIJECTIVE)
    assert pytest.main(argv) == 1
    capsys.readouterr()


# -- no cache keyed by a path ------------------------------------------------------------------------------------
_PATHY = {"path", "paths", "file", "files", "filename", "fname", "file_path", "spec_path"}
_CACHING = {"lru_cache", "cache", "memoised", "per_config", "cached_property"}


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _decorator_name(d: ast.expr) -> str:
    d = d.func if isinstance(d, ast.Call) else d
    return d.attr if isinstance(d, ast.Attribute) else d.id if isinstance(d, ast.Name) else ""


def _file_name(arg: ast.arg, tree: ast.Module) -> bool:
    """Whether a path-named parameter holds a file name: unannotated, or ``str`` / ``os.PathLike`` / pathlib's
    ``Path`` (a module's own ``Path`` class, e.g. a data path of ``models.datapath``, is a value)."""
    if arg.annotation is None:
        return True
    text = ast.unparse(arg.annotation)
    pathlib = any(isinstance(n, ast.ImportFrom) and n.module == "pathlib" for n in ast.walk(tree))
    return "str" in text or "PathLike" in text or "pathlib" in text or ("Path" in text and pathlib)


def _path_keyed_caches(tree: ast.Module) -> list[str]:
    """Cached functions with a path-named parameter, module-level dicts subscripted by a path-named variable alone,
    and any modification time."""
    bad: list[str] = []
    dicts = {t.id for s in tree.body if isinstance(s, (ast.Assign, ast.AnnAssign))
             for t in (s.targets if isinstance(s, ast.Assign) else [s.target]) if isinstance(t, ast.Name)
             and isinstance(s.value, ast.Dict)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                _decorator_name(d) in _CACHING for d in node.decorator_list):
            params = {a.arg for a in node.args.args + node.args.kwonlyargs if a.arg in _PATHY and _file_name(a, tree)}
            if params:
                bad.append(f"line {node.lineno}: cached {node.name}({', '.join(sorted(params & _PATHY))})")
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in dicts:
            key = node.slice
            parts = key.elts if isinstance(key, ast.Tuple) else [key]
            if parts and all(isinstance(k, ast.Name) and k.id in _PATHY for k in parts):
                bad.append(f"line {node.lineno}: {node.value.id}[{ast.unparse(key)}]")
        if isinstance(node, ast.Attribute) and node.attr in ("st_mtime", "st_mtime_ns", "getmtime"):
            bad.append(f"line {node.lineno}: {node.attr}")
    return bad


def test_no_cache_in_the_package_is_keyed_by_a_path():
    root = Path(layoutcheck.__file__).parent
    found = {str(f.relative_to(root)): b for f in sorted(root.rglob("*.py"))
             if (b := _path_keyed_caches(ast.parse(f.read_text(), str(f))))}
    assert found == {}


def test_the_scan_finds_a_cache_keyed_by_a_path():
    src = ("from functools import lru_cache\n_S: dict = {}\n@lru_cache(8)\ndef load(path: str): ...\n"
           "@lru_cache(8)\ndef hops(path: DataPath): ...\n"
           "def get(file):\n    return _S[file]\nimport os\nos.path.getmtime('x')\n")
    assert len(_path_keyed_caches(ast.parse(src))) == 3


def test_a_run_checks_the_content_it_planned(tmp_path):
    """A file rewritten between ``plan`` and the run (a pool's workers run later) keeps the planned configs under
    their indices; the next run reads the new content."""
    from layoutcheck.check import check_paths
    from layoutcheck.check_roads import plan

    p = tmp_path / "s.toml"
    _write(p, BIJECTIVE)
    planned = plan([str(p)])
    p.write_text("format = 1\n")  # no configs at all any more
    assert [r.status for r in check_paths([str(p)], planned=planned)] == ["PROVEN"]
    _write(p, NOT_BIJECTIVE)
    assert [r.status for r in check_paths([str(p)])] == ["REFUTED"]
