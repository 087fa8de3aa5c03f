"""Every docstring example of the package runs (``Pre:``/``Post:`` contracts carry one example each; an example
that no longer holds is a wrong contract). One test per module, so a failure names it."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "layoutcheck"
MODULES = sorted(".".join(f.relative_to(PKG.parent).with_suffix("").parts).removesuffix(".__init__")
                 for f in PKG.rglob("*.py") if f.name != "__main__.py")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _tests(name: str) -> list[doctest.DocTest]:
    return [t for t in doctest.DocTestFinder().find(importlib.import_module(name)) if t.examples]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    runner, report = doctest.DocTestRunner(optionflags=FLAGS), []
    for t in _tests(name):
        runner.run(t, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_the_examples_are_collected() -> None:
    """The finder sees the package's examples (a regression here would let every test above pass vacuously)."""
    assert sum(len(t.examples) for name in MODULES for t in _tests(name)) >= 300
