"""pytest plugin: gate layout specs and properties from a kernel library's own test suite.

Enable it in a ``conftest.py`` with ``pytest_plugins = ["layoutcheck.pytest_plugin"]``. It adds

- ``--layoutcheck-specs PATH`` (repeatable; or the ini option ``layoutcheck_specs``): every (config, property) of
  the spec files under PATH becomes a test item ``<file>::<config>::<property>`` that passes only when PROVEN;
- the fixture ``layoutcheck_prove``: ``assert_proven`` (raises with the counterexample unless PROVEN);
- ``--layoutcheck-timeout S`` and ``--layoutcheck-engine NAME`` for both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from layoutcheck.spec.load import declares_refuted
from layoutcheck.testing import ProofFailed, SpecCase, assert_proven, check_case, spec_cases


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("layoutcheck")
    group.addoption("--layoutcheck-specs", action="append", default=[], metavar="PATH",
                    help="spec files or directories whose properties must be PROVEN")
    group.addoption("--layoutcheck-timeout", type=float, default=30.0, help="seconds per proof")
    group.addoption("--layoutcheck-engine", default="auto", help="proof engine")
    parser.addini("layoutcheck_specs", "spec files or directories to gate", type="paths", default=[])


def _spec_paths(config: pytest.Config) -> list[str]:
    return [str(p) for p in config.getoption("--layoutcheck-specs")] + [str(p) for p in config.getini(
        "layoutcheck_specs")]


class SpecItem(pytest.Item):
    def __init__(self, *, case: SpecCase, **kw: Any) -> None:
        super().__init__(**kw)
        self.case = case

    def runtest(self) -> None:
        cfg = self.config
        check_case(self.case, cfg.getoption("--layoutcheck-engine"), cfg.getoption("--layoutcheck-timeout"))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ProofFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"layoutcheck: {self.case.label}"


class SpecFile(pytest.File):
    def collect(self) -> Any:
        for case in spec_cases([str(self.path)], include_broken=True):
            yield SpecItem.from_parent(self, name=case.label, case=case)


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> Any:
    if file_path.suffix != ".toml":
        return None
    for root in _spec_paths(parent.config):
        r = Path(root).resolve()
        if file_path.resolve() == r or r in file_path.resolve().parents:
            if "broken" in file_path.relative_to(r).parts if r.is_dir() else False:
                return None
            if r.is_dir() and declares_refuted(str(file_path)):  # broken on purpose (expect = "refuted")
                return None
            return SpecFile.from_parent(parent, path=file_path)
    return None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Spec paths outside the test roots are collected here, so ``--layoutcheck-specs specs/`` works anywhere."""
    seen = {str(i.path) for i in items if isinstance(i, SpecItem)}
    for root in _spec_paths(config):
        for case in spec_cases([root]):
            if str(Path(case.file).resolve()) in seen or case.file in seen:
                continue
            items.append(SpecItem.from_parent(session, name=f"{case.file}::{case.label}", case=case))


@pytest.fixture
def layoutcheck_prove(request: pytest.FixtureRequest) -> Any:
    """``assert_proven`` with the session's ``--layoutcheck-engine`` / ``--layoutcheck-timeout``."""
    engine = request.config.getoption("--layoutcheck-engine")
    timeout = request.config.getoption("--layoutcheck-timeout")

    def _prove(prop: Any, **kw: Any) -> Any:
        return assert_proven(prop, engine=kw.pop("engine", engine), timeout=kw.pop("timeout", timeout), **kw)

    return _prove
