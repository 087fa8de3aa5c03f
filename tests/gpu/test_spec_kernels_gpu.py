"""Every proven TV / tiled-MMA config of the bundled specs, instantiated and checked element by element on the GPU."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu


def test_spec_ownership_kernels_match_the_oracle() -> None:
    from layoutcheck.codegen.spec_cases import spec_cases
    from layoutcheck.gpu.runner import run_case

    cases, _ = spec_cases(["specs"])
    rows = [run_case(c, repeats=0) for c in cases]
    bad = [r for r in rows if not r.ok]
    assert not bad, bad
