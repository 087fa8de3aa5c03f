"""The bank model against Nsight Compute on the GPU: 0 mismatches over the probe's pattern set."""

from __future__ import annotations

import shutil

import pytest


@pytest.mark.gpu
def test_bank_model_matches_hardware(tmp_path) -> None:
    if not (shutil.which("ncu") and shutil.which("nvcc") and shutil.which("cuobjdump")):
        pytest.skip("needs ncu, nvcc and cuobjdump")
    from layoutcheck.gpu.probes.banks import run

    res = run(tmp_path)
    bad = [r for r in res if not r["match"]]
    assert len(res) >= 300
    assert not bad, bad[:5]
