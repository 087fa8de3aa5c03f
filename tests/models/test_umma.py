"""UMMA descriptors against CUTLASS's own host-side construction (``tests/data/umma_descriptors.json``: 525 smem
descriptors from make_umma_desc, 487 instruction descriptors from make_instr_desc, 120 block-scaled ones), plus the
descriptor laws: decode is the inverse of encode at every coordinate, K advances move only the start address, field
ranges and alignment are enforced."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.notation import parse_layout
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.errors import DescriptorError
from layoutcheck.hw.tcgen05 import DTYPE_BITS, umma_swizzle
from layoutcheck.models.umma import (
    decode_descriptor_word,
    decode_instr_descriptor,
    decode_umma_descriptor,
    element_swizzle,
    runtime_instr_descriptor,
    umma_descriptor,
    umma_instr_descriptor,
    umma_reads,
)

DATA = json.loads((Path(__file__).parents[1] / "data" / "umma_descriptors.json").read_text())
SHIFT = {0: 0, 1: 8, 2: 16, 3: 32}


def _operand(r: dict) -> ComposedLayout:
    """The row's operand tile as layoutcheck takes it: CuTe's printed slice layout, the element swizzle of the atom,
    the slice's element offset from the tile origin."""
    bits = DTYPE_BITS[r["dtype"]]
    return ComposedLayout(element_swizzle(umma_swizzle(r["atom"]), bits), r["slice_offset_bytes"] * 8 // bits,
                          parse_layout(r["slice_layout"].replace("_", "")))


def _rid(r: dict) -> str:
    return f"{r['dtype']}-{r['major']}-{r['atom']}-{r['mn']}-k{r['k_block']}-@{r['base_address']:#x}"


@pytest.mark.parametrize("r", DATA["umma_smem"], ids=_rid)
def test_smem_descriptor_matches_cutlass_bit_for_bit(r: dict) -> None:
    d = umma_descriptor(_operand(r), r["dtype"], r["major"], r["base_address"])
    assert d.value == int(r["value"], 16)
    assert decode_descriptor_word(d.value) == d


@pytest.mark.parametrize("r", DATA["umma_smem"][::7], ids=_rid)
def test_decode_is_the_inverse_at_every_coordinate(r: dict) -> None:
    op = _operand(r)
    d = umma_descriptor(op, r["dtype"], r["major"], r["base_address"])
    back = decode_umma_descriptor(d, r["dtype"], r["major"], (r["mn"], r["k_mma"]))
    base = r["base_address"] * 8 // DTYPE_BITS[r["dtype"]]
    assert back.swizzle == op.swizzle
    assert np.array_equal(back.layout.offsets() + back.offset, op.layout.offsets() + op.offset + base)


def test_every_k_advance_moves_only_the_start_address() -> None:
    groups: dict[tuple, list[dict]] = {}
    for r in DATA["umma_smem"]:
        groups.setdefault((r["dtype"], r["major"], r["atom"], r["mn"], r["base_address"]), []).append(r)
    n = 0
    for rows in groups.values():
        first = next((r for r in rows if r["k_block"] == 0), None)
        if first is None:
            continue
        d0 = umma_descriptor(_operand(first), first["dtype"], first["major"], first["base_address"])
        for r in rows:
            assert d0.advance(r["slice_offset_bytes"]).value == int(r["value"], 16)
            n += 1
    assert n > 400


def _instr_id(r: dict) -> str:
    return f"{r['a']}x{r['b']}-{r['c']}-{r['m']}x{r['n']}-{r['a_major']}{r['b_major']}-{r['value']}"


@pytest.mark.parametrize("r", DATA["umma_instr"], ids=_instr_id)
def test_instr_descriptor_matches_cutlass(r: dict) -> None:
    kw = dict(a_negate=bool(r["a_negate"]), b_negate=bool(r["b_negate"]), saturate=bool(r["saturate"]),
              sparse=bool(r["sparse"]), max_shift=SHIFT[r["max_shift"]], cta_group=1 if r["m"] < 256 else 2)
    args = (r["a"], r["b"], r["c"], r["m"], r["n"], r["a_major"], r["b_major"])
    if "MN" in (r["a_major"], r["b_major"]) and r["a"] in ("e2m3",):
        # make_instr_desc packs it, but MN-major is valid only for e4m3/e5m2/i8/f16/bf16/tf32 (its field comment)
        with pytest.raises(DescriptorError, match="cannot be MN-major"):
            umma_instr_descriptor(*args, **kw)
        return
    d = umma_instr_descriptor(*args, **kw)
    assert d.value == int(r["value"], 16)
    assert (d.m, d.n) == (r["m"], r["n"])
    assert decode_instr_descriptor(d.value, d.kind) == d


@pytest.mark.parametrize("r", DATA["umma_instr_block_scaled"], ids=_instr_id)
def test_block_scaled_instr_descriptor_matches_cutlass(r: dict) -> None:
    d = umma_instr_descriptor(r["a"], r["b"], r["c"], r["m"], r["n"], r["a_major"], r["b_major"],
                              scale_dtype=r["sf"], cta_group=1 if r["m"] < 256 else 2)
    assert d.value == int(r["value"], 16)
    assert runtime_instr_descriptor(d, r["tmem_sfa"], r["tmem_sfb"]) == int(r["runtime_value"], 16)


@pytest.mark.parametrize(("args", "kw", "rule"), [
    (("f16", "f16", "f32", 256, 128), {}, "M must be one of"),
    (("f16", "f16", "f32", 128, 136), {"cta_group": 2}, "multiple of 16"),
    (("s8", "s8", "s32", 128, 24), {}, "multiple of 16"),
    (("bf16", "bf16", "f16", 128, 64), {}, "accumulates in f32"),
    (("f16", "bf16", "f32", 128, 64), {}, "one type"),
    (("s8", "s8", "f32", 128, 64), {}, "accumulates in s32"),
    (("f16", "f16", "f32", 128, 64), {"saturate": True}, "saturate"),
    (("s8", "s8", "s32", 128, 64), {"a_negate": True}, "cannot negate"),
    (("e2m1", "e2m1", "f32", 128, 64, "MN"), {"scale_dtype": "ue8m0"}, "cannot be MN-major"),
    (("f16", "e4m3", "f32", 128, 64), {}, "no tcgen05.mma kind"),
    (("e4m3", "e4m3", "f32", 128, 64), {"scale_dtype": "ue8m0", "cta_group": 2}, "M must be one of"),
])
def test_instr_descriptor_rejections_name_the_rule(args, kw, rule) -> None:
    with pytest.raises(DescriptorError, match=rule):
        umma_instr_descriptor(*args, **kw)


def test_m64_does_not_touch_the_scale_factor_bits() -> None:
    """TensorRT-LLM#19183's collision cannot happen here: M >> 4 lands in bits 24..28 only."""
    d = umma_instr_descriptor("f16", "f16", "f32", 64, 128)
    assert d.value >> 24 & 0x1F == 4 and d.value & (1 << 23 | 3 << 29) == 0


@pytest.mark.parametrize(("lay", "dtype", "major", "rule"), [
    (Layout((128, 16), (16, 1)), "f16", "K", "rows of a core matrix are 32 bytes apart.*stride failure"),
    (ComposedLayout(element_swizzle(umma_swizzle("SW128"), 16), 0, Layout((128, 16), (1, 128))), "f16", "MN",
     "K rows"),
    (Layout((128, 16, 2), (16, 1, 2048)), "f16", "K", "rank-2"),
    (ComposedLayout(element_swizzle(umma_swizzle("SW128_32B"), 32), 0, Layout((8, 8), (8, 1))), "tf32", "K",
     "invalid for a K-major"),
    (Layout((64, 8), (1, 64)), "f16", "MN", "K rows are 128 bytes apart"),
])
def test_non_canonical_layouts_are_rejected(lay, dtype, major, rule) -> None:
    with pytest.raises(DescriptorError, match=rule):
        umma_descriptor(lay, dtype, major)


def test_alignment_and_base_offset() -> None:
    sw = ComposedLayout(element_swizzle(umma_swizzle("SW128"), 16), 0, Layout((128, 16), (64, 1)))
    with pytest.raises(DescriptorError, match="16-byte aligned"):
        umma_descriptor(sw, "f16", "K", base_address=0x408)
    assert umma_descriptor(sw, "f16", "K", base_address=0x400).base_offset == 0
    # TMA-written data is swizzled on absolute address bits: base offset 0 (CUTLASS always writes 0)
    assert umma_descriptor(sw, "f16", "K", base_address=0x480).base_offset == 0
    # a pattern anchored at 0x480 by threads: PTX "(pattern start >> 7) & 7"
    assert umma_descriptor(sw, "f16", "K", base_address=0x480, written_by="threads").base_offset == 1


@pytest.mark.parametrize("r", [r for r in DATA["umma_smem"] if r["k_block"] == 0 and r["base_address"] == 0x2000],
                         ids=_rid)
def test_k_block_slices_of_the_tile_are_cutes(r: dict) -> None:
    """From the whole tile CuTe printed, ``k_block_slices`` (our flat_divide) finds CuTe's slices and offsets, and
    every K block's descriptor is CUTLASS's."""
    from layoutcheck.spec.bind_tcgen05 import k_block_slices

    bits = DTYPE_BITS[r["dtype"]]
    tile = ComposedLayout(element_swizzle(umma_swizzle(r["atom"]), bits), 0,
                          parse_layout(r["tile_layout"].split(" o ")[-1].replace("_", "")))
    got = k_block_slices(tile, bits)
    want = {x["k_block"]: x for x in DATA["umma_smem"] if (x["dtype"], x["major"], x["atom"], x["mn"],
            x["base_address"]) == (r["dtype"], r["major"], r["atom"], r["mn"], r["base_address"])}
    assert len(got) == len(want)
    for kb, sl in enumerate(got):
        assert str(sl.layout) == want[kb]["slice_layout"].replace("_", "")
        assert umma_descriptor(sl, r["dtype"], r["major"], r["base_address"]).value == int(want[kb]["value"], 16)


# -- Hypothesis: decode then encode is the identity on descriptors CUTLASS can produce -------------------------------
from hypothesis import given  # noqa: E402

from tests.strategies_umma import canonical_descriptors  # noqa: E402


@given(canonical_descriptors())
def test_encode_inverts_decode(case) -> None:
    value, dtype, major, shape = case
    lay = decode_umma_descriptor(value, dtype, major, shape)
    eb = DTYPE_BITS[dtype] // 8
    repeat = decode_descriptor_word(value).swizzle.repeat_bytes
    start = lay.offset * eb
    base = start - start % repeat  # the swizzle pattern's origin; the tile starts (start % repeat) bytes into it
    again = umma_descriptor(ComposedLayout(lay.swizzle, (start - base) // eb, lay.layout), dtype, major, base)
    assert again.value == value


def _tiles() -> dict[tuple, list[dict]]:
    """CUTLASS's rows grouped by operand tile: every K block of one stage tile."""
    groups: dict[tuple, list[dict]] = {}
    for r in DATA["umma_smem"]:
        groups.setdefault((r["dtype"], r["major"], r["atom"], r["tile_layout"], r["base_address"]), []).append(r)
    return groups


def test_umma_reads_forms_cutlass_descriptor_of_every_k_block() -> None:
    """The data path's mainloop reading (``umma_reads``: block 0's descriptor advanced by each K block's offset) forms,
    for every stage tile CUTLASS built, the very descriptor ``make_umma_desc`` built for each of its K blocks."""
    n = 0
    for (dtype, major, atom, tile_text, base), rows in _tiles().items():
        bits = DTYPE_BITS[dtype]
        tile = ComposedLayout(element_swizzle(umma_swizzle(atom), bits), 0,
                              parse_layout(tile_text.split(" o ")[-1].replace("_", "")))
        rd = umma_reads(tile, dtype, major, base)
        assert rd.block == (rows[0]["mn"], rows[0]["k_mma"])
        for r in rows:
            assert rd.descs[r["k_block"]].value == int(r["value"], 16), (tile_text, r["k_block"])
            n += 1
        if base % 1024 == 0:  # the descriptors read the stage exactly where it puts every element
            assert np.array_equal(rd.addresses(), rd.expected)
    assert n == len(DATA["umma_smem"])
