"""TMA-loaded swizzled operands consumed by mma.sync, on the GPU: C equals NumPy exactly for every swizzle mode
(needs CuPy, libcuda and an sm_90 GPU)."""

from __future__ import annotations

import pytest

from layoutcheck.codegen.tma_cases import MODES, tma_mma_gemm_case

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("mode", MODES)
def test_tma_mma_gemm_matches_numpy(mode: str) -> None:
    from layoutcheck.gpu.runner import run_case

    row = run_case(tma_mma_gemm_case(mode), repeats=0)
    assert row.error == ""
    assert (row.elements, row.mismatches) == (64 * 64, 0), row.note
