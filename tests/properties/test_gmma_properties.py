"""wgmma descriptor properties: proven for every canonical stage CUTLASS builds, refuted (re-checked witness) for
the broken descriptors of known bugs."""

from __future__ import annotations

import pytest

from layoutcheck.engines.prove import prove
from layoutcheck.errors import LayoutError
from layoutcheck.models.gmma import GmmaDescriptor, gmma_blocks, gmma_descriptor
from layoutcheck.models.tma import TmaBox, mma_smem_layout
from layoutcheck.properties.gmma import gmma_addresses, gmma_fields, tma_wgmma
from layoutcheck.result import Verdict

TNAME = {"f16": "float16", "bf16": "bfloat16", "tf32": "tfloat32", "e4m3": "uint8"}
SPAN = {"none": 16, "32B": 32, "64B": 64, "128B": 128}


def _case(dtype: str, major: str, swizzle: str):
    e = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1}[dtype]
    k = max(SPAN["128B"] // e, 32 // e)
    stage = mma_smem_layout(major, swizzle, TNAME[dtype], (128, k))
    width = SPAN[swizzle] // e
    if major == "K":
        box, modes = TmaBox(TNAME[dtype], (k, 128), (k * e,), (width, 128), swizzle=swizzle), (1, 0)
    else:
        box, modes = TmaBox(TNAME[dtype], (128, k), (128 * e,), (width, 8), swizzle=swizzle), (0, 1)
    return stage, box, modes


CASES = [(d, m, s) for d in ("f16", "bf16", "tf32", "e4m3") for m in ("K", "MN") for s in SPAN
         if m == "K" or d in ("f16", "bf16")]


@pytest.mark.parametrize("dtype, major, swizzle", CASES)
def test_canonical_stages_are_proven(dtype: str, major: str, swizzle: str) -> None:
    stage, box, modes = _case(dtype, major, swizzle)
    block = 64 if major == "K" or SPAN[swizzle] // {"f16": 2, "bf16": 2}.get(dtype, 1) <= 64 else 128
    for prop in (gmma_addresses(stage, dtype, major, block_mn=block), gmma_fields(stage, dtype, major, block_mn=block),
                 tma_wgmma(box, stage, modes, dtype, major, block)):
        r = prove(prop)
        assert r.status is Verdict.PROVEN, (str(prop), r.reason)


def _refuted(prop) -> str:
    r = prove(prop)
    assert r.status is Verdict.REFUTED, (str(prop), r.status)
    assert prop.recheck(r.counterexample.data)
    return r.counterexample.text


def test_swizzle_changed_in_tma_only() -> None:  # MatmulTutorial#14
    st64, box, modes = _case("f16", "K", "64B")
    st128, _, _ = _case("f16", "K", "128B")
    msg = _refuted(tma_wgmma(box, st64, modes, "f16", "K", 64, wgmma_layout=st128))
    assert "(mn=1, k=0)" in msg and "TMA writes it to byte 64" in msg


def test_leading_offset_dropped() -> None:  # triton#6220
    st = mma_smem_layout("MN", "128B", "float16", (128, 64))
    good = gmma_descriptor(gmma_blocks(st, "f16").block_layout(), "f16", "MN")
    bad = GmmaDescriptor(good.start_address, 0, good.stride_byte_offset, 0, good.layout_type)
    assert "(mn=64, k=0)" in _refuted(gmma_addresses(st, "f16", "MN", desc=bad))
    assert prove(gmma_addresses(st, "f16", "MN", desc=good)).status is Verdict.PROVEN


def test_no_swizzle_offsets_swapped() -> None:  # triton#8378
    st = mma_smem_layout("K", "none", "float16", (64, 64))
    good = gmma_descriptor(gmma_blocks(st, "f16").block_layout(), "f16", "K")
    bad = GmmaDescriptor(0, good.stride_byte_offset, good.leading_byte_offset, 0, "INTER")
    _refuted(gmma_addresses(st, "f16", "K", desc=bad.value))


@pytest.mark.parametrize("base", [128, 640, 1408])
def test_base_offset(base: int) -> None:
    st = mma_smem_layout("K", "128B", "float16", (64, 64))
    for who in ("threads", "tma"):  # each writer's derived descriptor reads its stage
        assert prove(gmma_addresses(st, "f16", "K", base, written_by=who)).status is Verdict.PROVEN
        assert prove(gmma_fields(st, "f16", "K", base, written_by=who)).status is Verdict.PROVEN
    for claim in (gmma_addresses, gmma_fields):  # nobody said who wrote it: one descriptor cannot serve both
        r = prove(claim(st, "f16", "K", base))
        assert r.status is Verdict.UNKNOWN and "written_by" in r.reason
    good = gmma_descriptor(gmma_blocks(st, "f16").block_layout(), "f16", "K", base)
    bad = GmmaDescriptor(good.start_address, 16, 1024, 0, "SW128")
    assert "base_offset 0" in _refuted(gmma_fields(st, "f16", "K", base, desc=bad, written_by="threads"))
    _refuted(gmma_addresses(st, "f16", "K", base, desc=bad, written_by="threads"))
    # the same base offset 0 is right for a stage the TMA wrote (swizzled on absolute address bits)
    assert prove(gmma_addresses(st, "f16", "K", base, desc=bad, written_by="tma")).status is Verdict.PROVEN
    assert prove(gmma_addresses(st, "f16", "K", base, desc=good, written_by="tma")).status is Verdict.REFUTED


def test_layout_type_and_range_and_major() -> None:
    st = mma_smem_layout("K", "128B", "float16", (64, 64))
    assert "layout_type SW64" in _refuted(gmma_fields(st, "f16", "K", desc=GmmaDescriptor(0, 16, 1024, 0, "SW64")))
    assert "does not fit" in _refuted(gmma_fields(st, "f16", "K", base_address=1 << 18))
    st32 = mma_smem_layout("MN", "128B", "tfloat32", (128, 32))
    assert "16-bit" in _refuted(gmma_fields(st32, "tf32", "MN"))


def test_non_canonical_stage_is_refuted_with_the_reason() -> None:
    from layoutcheck.algebra.layout import Layout
    from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle

    st = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((64, 64), (32, 1)))  # rows 64 B apart under a 128B swizzle
    assert "stride failure" in _refuted(gmma_addresses(st, "f16", "K"))


def test_block_starting_inside_a_swizzle_atom_is_refuted() -> None:  # NVIDIA/Fuser#4771, tilelang#101
    st = mma_smem_layout("MN", "128B", "float16", (192, 64), "row")  # K-first atoms, as the SM90 mainloop stacks them
    msg = _refuted(gmma_addresses(st, "f16", "MN", block_mn=96))
    assert "(mn=128, k=0) of block 1 (a 96-wide block starting inside a swizzle atom)" in msg
    assert "no descriptor describes a 96-wide block" in _refuted(gmma_fields(st, "f16", "MN", block_mn=96))
    fixed = mma_smem_layout("MN", "64B", "float16", (192, 64), "row")  # 32-wide atoms: a block is 3 whole atoms
    assert prove(gmma_addresses(fixed, "f16", "MN", block_mn=96)).status is Verdict.PROVEN
    assert prove(gmma_fields(fixed, "f16", "MN", block_mn=96)).status is Verdict.PROVEN
    with pytest.raises(LayoutError, match="do not divide"):  # a block that does not divide MN is an input error
        gmma_addresses(st, "f16", "MN", block_mn=100)


def test_k_panel_step_from_the_operand_extent_is_refuted() -> None:  # tilelang#2964
    from layoutcheck.algebra.layout import Layout
    from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle

    sw = Swizzle(3, 3, 3)
    data = ComposedLayout(sw, 4096, Layout((64, (64, 2)), (64, (1, 8192))))  # rows 64..127 of a (128,128) buffer
    assumed = ComposedLayout(sw, 4096, Layout((64, (64, 2)), (64, (1, 4096))))
    msg = _refuted(gmma_addresses(data, "bf16", "K", wgmma_layout=assumed))
    assert msg.startswith("element (mn=0, k=64) of block 4") and "the wgmma reads byte 16384" in msg
    assert prove(gmma_addresses(data, "bf16", "K")).status is Verdict.PROVEN
