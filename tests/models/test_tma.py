"""TMA descriptor rules, the shared-memory image of a load, compatibility with MMA layouts, and box planning."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck import Layout, LayoutError
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.engines.prove import prove
from layoutcheck.hw.tma import DTYPES, LIMITS, SWIZZLES
from layoutcheck.models.tma import (
    TmaBox,
    box_counts,
    box_smem_offsets,
    encode_check,
    mma_smem_layout,
    simulate_load,
)
from layoutcheck.properties.tma import plan_boxes, tma_compatible
from layoutcheck.result import Verdict


def ok(**kw):
    base = {"dtype": "float16", "global_dims": (256, 256), "global_strides": (512,), "box_dims": (64, 64)}
    base.update(kw)
    return encode_check(**base)


# -- encode_check: one rule at a time, both sides of each limit ------------------------------------------------
def test_legal_base():
    assert ok() == [] and ok(swizzle="128B") == []


@pytest.mark.parametrize(("kw", "param"), [
    ({"global_dims": (256,) * 6, "global_strides": (512,) * 5, "box_dims": (8,) * 6}, "tensorRank"),
    ({"global_address": 8}, "globalAddress"),
    ({"global_dims": (0, 256)}, "globalDim[0]"),
    ({"global_dims": (256, (1 << 32) + 1)}, "globalDim[1]"),
    ({"global_strides": (24,)}, "globalStrides[0]"),
    ({"global_strides": (1 << 40,)}, "globalStrides[0]"),
    ({"box_dims": (64, 257)}, "boxDim[1]"),
    ({"box_dims": (64, 0)}, "boxDim[1]"),
    ({"box_dims": (4, 8)}, "boxDim[0]"),
    ({"element_strides": (1, 9)}, "elementStrides[1]"),
    ({"element_strides": (0, 1)}, "elementStrides[0]"),
    ({"dtype": "int32", "oob_fill": "nan"}, "oobFill"),
    ({"global_dims": (256, 256, 8), "global_strides": (512, 131072), "box_dims": (64, 256, 8)}, "boxDim"),
])
def test_each_rule_names_its_parameter(kw, param):
    bad = ok(**kw)
    assert len(bad) >= 1 and all("\n" not in m for m in bad)
    assert any(m.startswith(param) for m in bad), bad


def test_box_data_limit_is_on_data_not_footprint():
    """Measured: 233472 B of data accepted, 262144 B rejected; swizzle padding of narrow rows does not count."""
    assert encode_check("uint8", (256, 256, 8), (256, 65536), (256, 228, 4)) == []
    assert encode_check("float16", (64, 256, 8), (128, 32768), (8, 256, 8), swizzle="128B") == []
    assert encode_check("float32", (256, 256), (1024,), (256, 256))[0].startswith("boxDim:")


def test_limits_are_inclusive():
    assert ok(global_dims=(256, 1 << 32)) == []
    assert ok(global_strides=((1 << 40) - 16,)) == []
    assert ok(box_dims=(64, 256)) == [] and ok(box_dims=(64, 1)) == []
    assert ok(element_strides=(1, 8)) == []
    assert encode_check("uint8", (256,), (), (16,)) == []  # rank 1


def test_interleave_rules():
    il = {"global_dims": (16, 8, 8), "global_strides": (32, 256), "box_dims": (16, 4, 4)}
    assert ok(**il, interleave="32B", swizzle="32B") == []
    assert any(m.startswith("tensorRank") for m in ok(interleave="16B"))  # rank 2
    assert any(m.startswith("globalAddress") for m in ok(**il, interleave="32B", global_address=16))
    assert any(m.startswith("globalStrides") for m in ok(**{**il, "global_strides": (48, 256)}, interleave="32B"))
    assert any(m.startswith("boxDim[0]") for m in ok(**{**il, "box_dims": (4, 4, 4)}, interleave="16B"))


# -- known user failures -----------------------------------------------------------------------------------------
def test_inner_box_wider_than_swizzle_span():
    """tilelang #2630: a 128-element fp16 box (256 B) under the 128B swizzle fails at launch."""
    bad = ok(box_dims=(128, 64), swizzle="128B")
    assert bad == ["boxDim[0]: inner box extent 256 B exceeds the 128B swizzle span (128 B)"]
    for name, sw in SWIZZLES.items():
        if sw.span_bytes:
            assert ok(box_dims=(sw.span_bytes // 2, 8), swizzle=name) == []
            assert ok(box_dims=(sw.span_bytes // 2 + 8, 8), swizzle=name) != []


def test_strides_in_elements_instead_of_bytes():
    """triton #8657: fp32 rows of 100 elements have a 400-byte pitch; 100 (elements) is not a legal byte stride."""
    assert encode_check("float32", (100, 64), (400,), (32, 8)) == []
    assert encode_check("float32", (100, 64), (100,), (32, 8)) == [
        "globalStrides[0]: 100 B is not a multiple of 16 B (strides are in bytes)"]


def test_misaligned_strides_and_address():
    """triton #10927: a pitch of 2*129 bytes is not 16-byte aligned."""
    assert encode_check("float16", (129, 64), (258,), (64, 8))[0].startswith("globalStrides[0]")
    assert encode_check("float16", (128, 64), (256,), (64, 8), global_address=0x1008)[0].startswith("globalAddress")


@pytest.mark.parametrize("kw", [
    {"dtype": "float8"}, {"swizzle": "16B"}, {"swizzle": "128B_ATOM_32B"}, {"interleave": "8B"},
    {"global_strides": ()}, {"box_dims": (64,)}, {"element_strides": (1,)}, {"box_dims": (64, -1)},
    {"box_dims": (64, 1.5)}, {"oob_fill": "inf"},
])
def test_malformed_specs_raise_layout_error(kw):
    with pytest.raises(LayoutError):
        ok(**kw)


# -- the shared-memory image -------------------------------------------------------------------------------------
def test_box_counts_with_element_strides():
    assert box_counts((64, 16, 5), (1, 2, 2)) == (64, 8, 3)
    assert box_counts((64, 16), (4, 1)) == (64, 16)  # dim 0's stride is ignored without interleave


@given(sw=st.sampled_from(list(SWIZZLES)), e=st.sampled_from([1, 2, 4, 8]), rows=st.integers(1, 40),
       inner16=st.integers(1, 8), dst_rep=st.integers(0, 3))
def test_image_is_injective_and_inside_the_footprint(sw, e, rows, inner16, dst_rep):
    dtype = next(n for n, d in DTYPES.items() if d.bytes == e)
    span = SWIZZLES[sw].span_bytes or 128
    inner = min(16 * inner16, span)
    box = TmaBox(dtype, (1024 // e, 64), (1024,), (inner // e, rows), swizzle=sw)
    dst = dst_rep * SWIZZLES[sw].repeat_bytes
    offs = box_smem_offsets(box, dst).ravel()
    assert np.unique(offs).size == offs.size
    assert offs.min() >= 0 and offs.max() + e <= box.smem_bytes and np.all(offs % e == 0)
    if inner == box.row_pitch:  # full rows: the image is dense
        assert sorted(offs.tolist()) == list(range(0, box.box_bytes, e))


def test_image_swizzles_chunks_by_the_line():
    box = TmaBox("float16", (64, 64), (128,), (64, 8), swizzle="128B")
    offs = box_smem_offsets(box)
    for r in range(8):
        for c in range(8):  # chunk c of row r lands in chunk c ^ r (PTX ISA 5.5.7 table)
            assert offs[8 * c, r] == 128 * r + 16 * (c ^ r)


def test_narrow_box_rows_are_padded_to_the_span():
    """Measured on H100: a 16-byte-wide box under the 32B swizzle lays its rows 32 bytes apart."""
    box = TmaBox("uint16", (256, 64), (512,), (8, 32), swizzle="32B")
    assert box.row_pitch == 32 and box.smem_bytes == 1024
    offs = box_smem_offsets(box)
    assert offs[0, 1] == 32 and offs[0, 4] == 128 + 16  # line 1 flips chunk 0 -> 1


def test_absolute_address_swizzle():
    """The swizzle reads address bits: a destination 128 B past the 1024-B boundary starts on line 1."""
    box = TmaBox("float16", (64, 64), (128,), (64, 8), swizzle="128B")
    assert box_smem_offsets(box, 128)[0, 0] == 16
    assert box_smem_offsets(box, 1024)[0, 0] == 0


def test_simulate_load_reads_coordinates_and_fills_oob():
    d0, d1 = 16, 6
    vals = (1 + np.arange(d0 * d1)).astype(np.uint16)
    box = TmaBox("uint16", (d0, d1), (32,), (8, 4), element_strides=(1, 2))
    img = simulate_load(box, vals.view(np.uint8), (12, 1)).view(np.uint16)
    offs = box_smem_offsets(box) // 2
    for j0 in range(8):
        for j1 in range(2):
            g0, g1 = 12 + j0, 1 + 2 * j1
            want = 1 + g0 + d0 * g1 if g0 < d0 and g1 < d1 else 0
            assert img[offs[j0, j1]] == want


# -- compatibility with MMA layouts ----------------------------------------------------------------------------
def test_compatible_single_atom_each_swizzle():
    for sw, span in (("none", 16), ("32B", 32), ("64B", 64), ("128B", 128)):
        lay = mma_smem_layout("K", sw, "float16", (8, span // 2))
        box = TmaBox("float16", (span // 2, 8), (span,), (span // 2, 8), swizzle=sw)
        assert prove(tma_compatible(box, lay, (1, 0))).status is Verdict.PROVEN


def test_mismatched_swizzle_is_refuted_with_the_element():
    lay = mma_smem_layout("K", "32B", "float16", (8, 16))
    box = TmaBox("float16", (16, 8), (32,), (16, 8), swizzle="none")  # legal, but rows 4..7 are not swizzled
    r = prove(tma_compatible(box, lay, (1, 0)))
    assert r.status is Verdict.REFUTED
    assert r.counterexample.text == ("tile element (4,0) [box at (0,0), box element (0,4)]: TMA puts it at smem byte "
                                     "128, the layout expects byte 144")


def test_illegal_descriptor_is_a_finding_not_a_crash():
    lay = mma_smem_layout("K", "32B", "float16", (8, 32))
    box = TmaBox("float16", (32, 8), (64,), (32, 8), swizzle="32B")
    r = prove(tma_compatible(box, lay, (1, 0)))
    assert r.status is Verdict.REFUTED and "exceeds the 32B swizzle span" in r.counterexample.text


def test_seed_9_1_full_width_box_with_swizzle_none_is_incompatible():
    lay = mma_smem_layout("K", "none", "float16", (8, 32))
    r = prove(tma_compatible(TmaBox("float16", (32, 8), (64,), (32, 8)), lay, (1, 0)))
    assert r.status is Verdict.REFUTED
    assert r.counterexample.text.startswith("tile element (1,0)")
    assert "TMA puts it at smem byte 64, the layout expects byte 16" in r.counterexample.text


def test_plain_layout_and_unaligned_box_origin():
    lay = Layout((8, 24), (24, 1))  # 48-byte rows: the second box starts 48 B in, not 128-B aligned
    r = prove(tma_compatible(TmaBox("float16", (24, 8), (48,), (8, 8)), lay, (1, 0)))
    assert r.status is Verdict.REFUTED and "not 128-byte aligned" in r.counterexample.text
    assert prove(tma_compatible(TmaBox("float16", (24, 8), (48,), (24, 8)), lay, (1, 0))).proven


def test_a_box_that_does_not_tile_the_layout_is_refuted():
    """A well-formed box that does not divide its layout mode is a wrong configuration: REFUTED, not an error."""
    lay = mma_smem_layout("K", "none", "float16", (8, 32))
    prop = tma_compatible(TmaBox("float16", (32, 8), (64,), (24, 8)), lay, (1, 0))  # 24 does not divide 32
    for engine in ("auto", "exhaustive"):
        r = prove(prop, engine=engine)
        assert r.status is Verdict.REFUTED, engine
        assert "covers 24..47, past the tile's last element 31" in r.counterexample.text


def test_compatibility_precondition_errors():
    lay = mma_smem_layout("K", "none", "float16", (8, 32))
    with pytest.raises(LayoutError):
        tma_compatible(TmaBox("float16", (32, 8), (64,), (8, 8)), lay, (0, 0))
    with pytest.raises(LayoutError):
        tma_compatible(TmaBox("float16", (32, 8), (64,), (8, 8), element_strides=(1, 2)), lay, (1, 0))


def test_swizzled_consumer_with_offset():
    lay = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1)))
    box = TmaBox("bfloat16", (64, 8), (128,), (64, 8), swizzle="128B")
    assert prove(tma_compatible(box, lay, (1, 0))).proven


# -- planning: the seed's section 9 -------------------------------------------------------------------------------
@pytest.mark.parametrize(("swz", "tile", "order", "count", "rows_bytes"), [
    ("none", (8, 32), "col", 4, (8, 16)),      # 8x64 B K-major, swizzle none -> four 8x16 B boxes
    ("128B", (64, 128), "col", 2, (64, 128)),  # 64x256 B, 128B swizzle -> two 64x128 B boxes
    ("32B", (64, 32), "row", 16, (8, 32)),     # 64x64 B, 32B swizzle, row-major atom stacking -> 16 boxes
    ("32B", (64, 32), "col", 2, (64, 32)),     # ... column-major stacking -> 2 boxes of 64x32 B
])
def test_seed_003_section_9(swz, tile, order, count, rows_bytes):
    p = plan_boxes("K", swz, "float16", tile, order)
    assert (p.count, p.box_bytes_shape) == (count, rows_bytes)
    assert prove(tma_compatible(p.box, p.layout, p.modes)).proven


def test_seed_box_height_is_limited_by_stacking_and_256():
    """Seed 9.2 says the box 'can be arbitrarily high': rows stop at 256 (boxDim) and at the atom order."""
    p = plan_boxes("K", "128B", "float16", (512, 64))
    assert p.box.box_dims == (64, 256) and p.count == 2
    assert plan_boxes("K", "none", "float16", (64, 32), "row").box.box_dims == (8, 8)


@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32"])
@pytest.mark.parametrize("swz", ["none", "32B", "64B", "128B"])
@pytest.mark.parametrize("major", ["K", "MN"])
def test_plans_for_every_atom_are_proven_and_one_atom_wide(dtype, swz, major):
    e = DTYPES[dtype].bytes
    w = (SWIZZLES[swz].span_bytes or 16) // e
    tile = (64, 4 * w) if major == "K" else (4 * w, 64)
    for order in ("col", "row"):
        p = plan_boxes(major, swz, dtype, tile, order)
        assert p.box.box_dims[0] * e == (SWIZZLES[swz].span_bytes or 16)  # one atom wide
        assert p.count * p.box.box_bytes == 64 * 4 * w * e
        assert not p.box.violations() and p.box.box_bytes <= LIMITS.box_bytes_max
