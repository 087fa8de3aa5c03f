"""The Hopper path on an sm_90a GPU: wgmma fragment probes and TMA -> smem -> wgmma GEMM tiles, exact
(needs CuPy, libcuda and an H100)."""

from __future__ import annotations

import pytest

from layoutcheck.codegen.wgmma_cases import kfirst_cases, placed_cases, probe_cases, type_cases, wgmma_gemm_cases

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", probe_cases() + wgmma_gemm_cases() + kfirst_cases() + type_cases(),
                         ids=lambda c: c.name)
def test_wgmma_kernel_is_exact(case) -> None:
    from layoutcheck.gpu.runner import run_case

    row = run_case(case, repeats=0)
    assert row.error == ""
    assert row.elements > 0 and row.mismatches == 0, row.note


@pytest.mark.parametrize("pair", placed_cases(), ids=lambda p: p[0].name)
def test_base_offset_experiment_agrees_with_the_prediction(pair) -> None:
    from layoutcheck.gpu.runner import run_case

    case, exact = pair
    row = run_case(case, repeats=0)
    assert row.error == ""
    assert (row.mismatches == 0) == exact, (row.mismatches, row.note)
