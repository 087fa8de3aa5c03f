"""The ragged-problem kernel on the GPU: 1000 x 1000 with 128 x 128 tiles (and other ragged sizes), every element
counted once, nothing written outside; the broken variants caught. Skipped without a GPU."""

from __future__ import annotations

import pytest

from layoutcheck.gpu.residue import TV_C, run
from layoutcheck.models.residue import ResidueTiling

cp = pytest.importorskip("cupy")
pytestmark = pytest.mark.gpu

try:
    HAVE_GPU = cp.cuda.runtime.getDeviceCount() > 0
except Exception:  # pragma: no cover - no driver
    HAVE_GPU = False


@pytest.mark.skipif(not HAVE_GPU, reason="no CUDA GPU")
@pytest.mark.parametrize(("m", "n"), [(1000, 1000), (1, 1), (129, 255), (128, 128), (4097, 130)])
def test_ragged_kernel_counts_every_element_once(m: int, n: int) -> None:
    r = run(ResidueTiling(("M", "N"), (128, 128), tv=TV_C), m, n)
    assert r["ok"], r


@pytest.mark.skipif(not HAVE_GPU, reason="no CUDA GPU")
def test_broken_variants_fail_on_the_gpu_as_proven() -> None:
    div = run(ResidueTiling(("M", "N"), (128, 128), count="div", tv=TV_C), 1000, 1000)
    assert div["wrong"] == 1000 * 1000 - 896 * 896 and div["first_wrong"][2] == 0  # the residue tiles never ran
    unpredicated = run(ResidueTiling(("M", "N"), (128, 128), predicate="none", tv=TV_C), 1000, 1000)
    assert not unpredicated["ok"] and unpredicated["guard_writes"] > 0  # wrote past the problem
