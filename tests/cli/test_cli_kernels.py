"""``layoutcheck.cli_kernels`` without a compiler: the PTX run's ``--grid`` and ``--scalar`` as ``triton`` takes them
(scalars by PTX parameter index); a bad value is one ``UsageError`` naming the flag."""

from __future__ import annotations

import argparse

import pytest

from layoutcheck.cli_kernels import _ptx_run
from layoutcheck.errors import UsageError

PARAMS = ["x_ptr", "K"]


def _run(grid: str, scalar: list[str] | None = None):
    return _ptx_run(argparse.Namespace(grid=grid, scalar=scalar), PARAMS)


def test_grid_and_scalars_by_parameter_index() -> None:
    assert _run("2,1", ["K=4096"]) == ((2, 1), {"1": 4096})
    assert _run("1") == ((1,), {})


@pytest.mark.parametrize("grid", ["0", "2,x", "", "-1"])
def test_a_grid_of_no_positive_integers_is_refused(grid: str) -> None:
    with pytest.raises(UsageError, match="--grid"):
        _run(grid)


@pytest.mark.parametrize("scalar", ["N=4", "K=true"])
def test_a_scalar_that_is_no_integer_runtime_argument_is_refused(scalar: str) -> None:
    with pytest.raises(UsageError, match=r"--scalar .*runtime arguments: x_ptr, K"):
        _run("1", [scalar])
