"""Real TTGIR (tests/data/ttgir, compiled from Triton kernels on a CPU by generate.py): every encoding imports and
has the properties Triton relies on; the bank conflicts of every register <-> shared copy are decided."""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutcheck.engines.prove import prove
from layoutcheck.importers.triton import import_ttgir
from layoutcheck.properties.ttgir import ttgir_claims
from layoutcheck.result import Verdict

FILES = sorted((Path(__file__).parents[1] / "data" / "ttgir").glob("*.ttgir"))


def test_samples_cover_the_kernels():
    names = {f.name.split("_")[0] for f in FILES}
    assert {"matmul", "attention", "softmax", "transpose", "reduce"} <= names
    text = "".join(f.read_text() for f in FILES)
    for enc in ("#ttg.blocked", "#ttg.nvidia_mma<{versionMajor = 2", "#ttg.nvidia_mma<{versionMajor = 3",
                "#ttg.dot_op", "#ttg.slice", "#ttg.swizzled_shared", "#ttg.nvmma_shared", "#ttg.linear",
                "#ttng.tensor_memory_encoding"):
        assert enc in text, enc


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_layout_imports_and_holds(path):
    text = path.read_text()
    layouts = import_ttgir(text)
    assert layouts
    for imp in layouts:  # only a barrier's non-power-of-two buffer count may lack a layout
        assert imp.layout is not None or "power of two" in (imp.skipped or ""), (imp.encoding, imp.shape, imp.skipped)
    claims = ttgir_claims(text)
    for c in claims.claims:
        r = prove(c.prop)
        if c.required:
            assert r.status is Verdict.PROVEN, (c.line, c.subject, str(r))
        else:  # a copy the bank model does not cover (a cluster's split shared tile) says so
            assert r.status is not Verdict.UNKNOWN or "not modelled" in (r.reason or ""), (c.line, c.subject, str(r))


def test_a_known_conflict_is_found():
    """The fp32 (tf32) mma.sync A operand loaded with 1-element vectors from a 64x8 swizzled tile: 2-way conflict."""
    text = (FILES[0].parent / "matmul_fp32_64x64x16_w4_sm80.ttgir").read_text()
    rows = [(c, prove(c.prop)) for c in ttgir_claims(text).claims if not c.required]
    refuted = [(c, r) for c, r in rows if r.status is Verdict.REFUTED]
    assert refuted and "opIdx = 0" in refuted[0][0].subject
    assert refuted[0][1].stats["wavefronts"] == 2 * refuted[0][1].stats["ideal"]
