"""The fused one-pass ownership compare on the GPU: it accepts the kernel's correct map and counts every corrupted
element (a wrong owner, a double count, a missed element), as the previous oracle-map compare does."""

from __future__ import annotations

import pytest

cupy = pytest.importorskip("cupy")


@pytest.mark.gpu
def test_fused_compare_accepts_the_map_and_counts_corruptions() -> None:
    from layoutcheck.codegen.cases import big_ownership_case
    from layoutcheck.gpu.runner import compiled

    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA device")
    except Exception:
        pytest.skip("no CUDA device")
    case = big_ownership_case(1024)
    assert case.compare_source
    out = case.inputs(cupy)
    compiled(case)((case.grid,), (case.block,), tuple(out))
    checked, bad, note = case.compare(out, cupy)
    assert (checked, bad) == (1024 * 1024, 0) and note.startswith("fused"), note
    out[0][5] += 1  # a wrong owner
    out[1][77] = 2  # a double count
    out[1][1024 * 1024 - 1] = 0  # a missed element (the scalar tail is covered by the vector loop here)
    checked, bad, note = case.compare(out, cupy)
    assert bad == 3 and not note.startswith("fused"), note
