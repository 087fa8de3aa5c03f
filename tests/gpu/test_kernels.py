"""Every generated kernel, run on the GPU and compared element by element with its oracle (skips without a GPU)."""

from __future__ import annotations

import pytest

from layoutcheck.codegen.bundle import bundled_cases

CASES = bundled_cases()


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_kernel_matches_oracle(case) -> None:
    from layoutcheck.gpu.runner import run_case

    row = run_case(case, repeats=0)
    assert row.error == ""
    assert row.elements > 0
    assert row.mismatches == 0, row.note


@pytest.mark.gpu
def test_big_ownership_map() -> None:
    from layoutcheck.codegen.cases import big_ownership_case
    from layoutcheck.gpu.runner import run_case

    row = run_case(big_ownership_case(2048), repeats=0)
    assert (row.error, row.mismatches, row.elements) == ("", 0, 2048 * 2048)
