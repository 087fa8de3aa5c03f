"""Every engine that decides a bank claim agrees with the exhaustive engine (hypothesis over swizzled tiles).

The GF(2) handler on the linear engine and the z3 handler for "conflict-free at every base" are checked against the
exhaustive decision on generated power-of-two tiles, swizzles, element widths and access kinds.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck import ComposedLayout, Layout, Swizzle
from layoutcheck.engines.prove import prove
from layoutcheck.properties.banks import conflict_free, conflict_free_at_every_base, wavefront_count
from layoutcheck.result import Verdict

KINDS = ["ldsm_x1", "ldsm_x4", "sts128", "sts32", "lds64", "stsm_x4"]


@st.composite
def swizzled_tiles(draw):
    """A row-major or column-major power-of-two tile in elements of 8/16/32 bits, optionally swizzled."""
    bits = draw(st.sampled_from([8, 16, 32]))
    row_bytes = draw(st.sampled_from([16, 32, 64, 128, 256]))
    cols = row_bytes * 8 // bits
    rows = draw(st.sampled_from([8, 16, 32]))
    layout = Layout((rows, cols), (cols, 1)) if draw(st.booleans()) else Layout((cols, rows), (1, cols))
    b = draw(st.integers(0, 3))
    m = draw(st.integers(0, 4))
    s = draw(st.integers(max(b, 1), 5))
    if b == 0 or draw(st.booleans()):
        return layout, bits
    return ComposedLayout(Swizzle(b, m, s), 0, layout), bits


def _decided(res) -> bool:
    return res.status is not Verdict.UNKNOWN


@given(swizzled_tiles(), st.sampled_from(KINDS))
def test_linear_bank_handler_agrees_with_exhaustive(tile, kind) -> None:
    smem, bits = tile
    try:
        prop = conflict_free(smem, kind, bits)
    except ValueError:
        return  # this access does not fit this tile (a LayoutError naming why): nothing to compare
    ref = prove(prop, engine="exhaustive")
    lin = prove(prop, engine="linear")
    if _decided(lin):
        assert lin.status is ref.status, (str(smem), kind, bits, lin, ref)
    if ref.status is Verdict.REFUTED and ref.counterexample is not None:
        assert ref.counterexample.text


@given(swizzled_tiles(), st.sampled_from(KINDS), st.integers(0, 3))
def test_wavefront_counts_agree(tile, kind, delta) -> None:
    smem, bits = tile
    try:
        probe = conflict_free(smem, kind, bits)
    except ValueError:
        return
    total = prove(probe, engine="exhaustive").stats.get("wavefronts")
    if total is None:
        return
    prop = wavefront_count(smem, kind, n=int(total) + delta, dtype_bits=bits)
    ref = prove(prop, engine="exhaustive")
    assert ref.status is (Verdict.PROVEN if delta == 0 else Verdict.REFUTED)
    for engine in ("linear", "auto"):
        res = prove(prop, engine=engine)
        if _decided(res):
            assert res.status is ref.status, (engine, str(smem), kind, res, ref)


@pytest.mark.slow
@given(swizzled_tiles(), st.sampled_from(["ldsm_x4", "sts128", "sts32"]), st.integers(1, 6))
def test_every_base_z3_agrees_with_exhaustive(tile, kind, bases) -> None:
    smem, bits = tile
    period = 1024 * 8 // bits // 2  # half a 1-KiB swizzle period, in elements: some bases may break conflict-freedom
    try:
        prop = conflict_free_at_every_base(smem, kind, period, bases, bits)
    except ValueError:
        return
    ref = prove(prop, engine="exhaustive")
    res = prove(prop, engine="z3", timeout=10)
    if _decided(res):
        assert res.status is ref.status, (str(smem), kind, bases, res, ref)
