"""ncu on shared memory beyond the bank probes: the wgmma kernels (LSU counters vs the bank model, what sees the
async-proxy operand reads) and the corpus's SM80 f64 / tf32 accesses, instruction by instruction."""

from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.gpu


def _tools() -> None:
    if not (shutil.which("ncu") and shutil.which("nvcc") and shutil.which("cuobjdump")):
        pytest.skip("needs ncu, nvcc and cuobjdump")


def test_wgmma_kernels_lsu_wavefronts_equal_the_bank_model(tmp_path) -> None:
    _tools()
    from layoutcheck.gpu.smem_ncu import section_wgmma_ncu

    res = section_wgmma_ncu(tmp_path)
    assert res["ok"], {k: v for k, v in res.items() if k != "kernels"}
    assert res["matched"] == res["of"] == 14


def test_corpus_sm80_accesses_need_the_wavefronts_the_corpus_claims(tmp_path) -> None:
    _tools()
    from layoutcheck.gpu.smem_ncu import section_corpus_ncu

    res = section_corpus_ncu(tmp_path)
    assert res["ok"], res
    assert res["claims"] == 22 and len(res["conflicted"]) == 7
