"""The ``datapath`` claim (layoutcheck.properties.datapath) and its spec kind: the bundled SM80 / SM90 kernels PROVEN,
every broken variant REFUTED naming its stage and first element, witnesses re-checked, spec errors located, and the
mainloop half agreeing with ``tma_wgmma`` (the single-hop claim it composes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutcheck.check import check_property
from layoutcheck.engines.prove import prove
from layoutcheck.errors import SpecError
from layoutcheck.models.datapath_values import OperandPath, TmaCopy, WgmmaRead
from layoutcheck.models.tiled_mma import make_tiled_mma
from layoutcheck.models.tma import TmaBox, mma_smem_layout
from layoutcheck.properties.datapath import datapath
from layoutcheck.properties.gmma import tma_wgmma
from layoutcheck.spec.bind import build_property
from layoutcheck.spec.load import load_spec, parse_spec

SPECS = Path(__file__).resolve().parents[2] / "specs"


def _rows(path: Path) -> list:
    spec = load_spec(str(path))
    return [check_property(cfg, req) for cfg in spec.configs for req in cfg.properties]


@pytest.mark.parametrize("name", ["datapath_sm80.toml", "datapath_sm90.toml", "datapath_sm100.toml"])
def test_bundled_kernels_are_proven(name):
    rows = _rows(SPECS / name)
    assert rows and all(r.status == "PROVEN" for r in rows), [(r.config, r.status, r.reason) for r in rows]


BROKEN = {  # config -> (stage text, first element text)
    "sm80_A_written_sw128_read_sw64": ("stage 1/2 cp.async", "global (m,k) = (8,0) (thread 32, value 0)"),
    "sm80_B_MN_ldmatrix_without_trans": ("stage 2/2 ldmatrix [SM75_U32x4_LDSM_N]", "thread 0, value 1"),
    "sm80_C_store_doubles_left_half": ("stage 2/2 st.global", "global (m,n) = (0,0) (thread 0, value 0)"),
    "sm90_A_tma_64B_wgmma_128B": ("stage 1/2 tma", "global (m,k) = (1,0)"),
    "sm90_B_MN_descriptors_64B": ("stage 2/2 wgmma", "thread 0, value 32"),
    "sm90_C_stmatrix_sw64_tma_store_sw128": ("stage 1/2 stmatrix", "thread 0, value 2"),
    "sm90_C_stmatrix_trans_into_N_contiguous": ("stage 1/2 stmatrix [SM90_U16x8_STSM_T]", "thread 4, value 0"),
    "sm100_layoutB_read_as_F": ("stage 1/3 tcgen05.ld", "thread 0, value 32 (accumulator (m,n) = (0,64))"),
    "sm100_A_tma_128B_umma_64B": ("stage 2/2 umma [UMMA descriptors (K-major)]",
                                  "the MMA's A operand (m,k) = (1,0) comes from smem byte 64"),
    "sm100_B_MN_descriptor_lbo_sbo_swapped": ("stage 2/2 umma [UMMA descriptors (MN-major)]",
                                              "the MMA's B operand (n,k) = (64,0) comes from smem byte 1024"),
    # issue #27: cta_group::2 -- a CTA of the pair supplies the wrong half, or writes into the wrong CTA
    "sm100_2sm_A_halves_swapped": ("stage 1/2 tma", "CTA 0's TMA loads global (m,k) = (128,0) into CTA 0 smem byte "
                                   "0, where the MMA reads global (m,k) = (0,0)"),
    "sm100_2sm_B_both_into_leader": ("stage 1/2 tma", "global (n,k) = (128,0) (CTA 1's TMA) lands at CTA 0 smem byte "
                                     "0; the layouts put it at CTA 1 smem byte 0"),
    "sm100_2sm_B_split_over_M": ("stage 1/2 tma", "CTA 1's TMA loads global (n,k) = (128,0), outside the 128-row "
                                 "tile"),
    "sm100_2sm_C_both_store_the_first_half": ("stage 3/3 tma store", "global (m,n) = (128,0) (CTA 1's TMA) lands at "
                                              "global (m,n) = (0,0); the layouts put it at global (m,n) = (128,0)"),
    # issue #31: the composition is right, the addresses are not
    "sm80_A_swizzle_moves_rows_8_bytes": ("stage 1/2 cp.async", "global (m,k) = (1,0) (thread 4, value 0) starts a "
                                          "16-byte access at smem byte 136, which is not 16-byte aligned"),
    "sm80_A_padded_rows_past_the_buffer": ("stage 1/2 cp.async", "global (m,k) = (103,0) (thread 28, value 24) "
                                           "starts a 16-byte access at smem byte 8240, which leaves the 8192-byte"),
    "sm80_A_global_leading_dimension_36": ("stage 1/2 cp.async", "global (m,k) = (1,0) (thread 4, value 0) starts a "
                                           "16-byte access at global byte 72, which is not 16-byte aligned"),
    # audit (round 8): a TMA box writes (a TMA store reads) its whole extent, not only the tile's elements
    "sm100_box_past_the_stage": ("stage 1/2 tma", "global (m,k) = (0,0) starts a 32768-byte access at smem byte 0, "
                                 "which leaves the 16384-byte stage buffer"),
    "sm100_2sm_box_over_the_pair": ("stage 1/2 tma", "global (m,k) = (0,0) (CTA 0's TMA) starts a 32768-byte access "
                                    "at smem byte 0, which leaves the 16384-byte stage buffer"),
    "sm90_store_box_past_the_stage": ("stage 2/2 tma store", "global (m,n) = (0,64) starts a 32768-byte access at "
                                      "smem byte 16384, which leaves the 32768-byte stage buffer"),
}


@pytest.mark.parametrize("path", sorted((SPECS / "broken").glob("datapath_*.toml")), ids=lambda p: p.stem)
def test_broken_variants_name_stage_and_first_element(path):
    spec = load_spec(str(path))
    assert spec.expect == "refuted"
    for row in _rows(path):
        assert row.status == "REFUTED", (row.config, row.reason)
        stage, element = BROKEN[row.config]
        assert stage in row.counterexample and element in row.counterexample, row.counterexample


def test_witness_is_rechecked_and_explained():
    spec = load_spec(str(SPECS / "broken" / "datapath_sm80_ldmatrix_no_trans.toml"))
    cfg = spec.configs[0]
    prop = build_property(cfg, cfg.properties[0])
    d = prop.exhaustive()
    assert not d.holds and d.witness == {"path": "B", "stage": 1, "kind": "misplaced", "i": 1}
    assert prop.recheck(d.witness)
    assert not prop.recheck({**d.witness, "i": 0})  # value 0 is delivered right
    assert "which holds (n,k) = (1,0)" in prop.explain(d.witness)


def test_operand_parameter_selects_one_path():
    spec = load_spec(str(SPECS / "datapath_sm90.toml"))
    cfg = spec.configs[0]
    whole = build_property(cfg, cfg.properties[0])
    assert [p.operand for p in whole.paths] == ["A", "B", "C"]
    text = SPECS.joinpath("datapath_sm90.toml").read_text().replace(
        'properties = ["datapath"]', 'properties = [{ name = "datapath", operand = "B" }]', 1)
    cfg = parse_spec(text, "x.toml").configs[0]
    assert [p.operand for p in build_property(cfg, cfg.properties[0]).paths] == ["B"]


_HEAD = """format = 1
[[config]]
name = "k"
kind = "datapath"
atom = "SM80_16x8x16_F32F16F16F32_TN"
atom_layout = [2, 2, 1]
permutation = [32, 32, 16]
tile = [128, 128, 32]
dtype = "f16"
properties = ["datapath"]
[config.A]
smem = "make_composed_layout(Sw<2,3,3>, tile_to_shape((8,32):(32,1), (128,32)))"
threads = "(32,4):(4,1)"
values = "(1,8)"
"""


@pytest.mark.parametrize("extra, match", [
    ('read = "SM90_U32x4_STSM_N"\n', "is not a shared-memory load"),
    ('', "needs 'read'"),
    ('read = "SM75_U32x4_LDSM_N"\nload = "dma"\n', "expected \"cp.async\" or \"tma\""),
    ('read = "SM75_U32x4_LDSM_N"\nload = "tma"\n', "needs 'box'"),
])
def test_spec_errors_name_config_and_path(extra, match):
    cfg = parse_spec(_HEAD + extra, "x.toml").configs[0]
    with pytest.raises(SpecError, match=match) as e:
        build_property(cfg, cfg.properties[0])
    assert "config 'k'" in str(e.value) and "key 'A'" in str(e.value)


def test_unknown_path_key_is_a_load_error():
    with pytest.raises(SpecError, match="unknown key 'sm' in the A path"):
        parse_spec(_HEAD.replace("smem =", "sm ="), "x.toml")


@pytest.mark.parametrize("tma_sw, desc_sw", [("128B", None), ("64B", None), ("128B", "64B"), ("32B", "32B")])
def test_mainloop_agrees_with_tma_wgmma(tma_sw, desc_sw):
    """The A path's verdict is ``tma_wgmma``'s on the same stage, box and descriptors (the hop it composes)."""
    mma = make_tiled_mma("SM90_64x128x16_F32F16F16_SS", (2, 1, 1))
    stage = mma_smem_layout("K", "128B", "float16", (128, 64), "col")
    w = {"128B": 64, "64B": 32, "32B": 16}[tma_sw]
    box = TmaBox("float16", (64, 128), (128,), (w, 128), swizzle=tma_sw)
    wl = None if desc_sw is None else mma_smem_layout("K", desc_sw, "float16", (128, 64), "col")
    path = OperandPath("A", mma, (128, 64), 16, "f16", stage, TmaCopy(box, (1, 0)), WgmmaRead("K", wl))
    ours = prove(datapath([path])).status
    theirs = prove(tma_wgmma(box, stage, (1, 0), "f16", "K", 64, None, wl)).status
    assert ours == theirs


def test_a_compensated_stage_is_no_counterexample():
    """cp.async and ldmatrix both use Sw<3,3,3> where the layout says Sw<2,3,3>: the cp.async stage departs from the
    layout, but the data arrives, so the claim holds and that stage's deviation re-checks as no counterexample."""
    text = _HEAD.replace('values = "(1,8)"\n', 'values = "(1,8)"\nwrite_smem = "make_composed_layout(Sw<3,3,3>, '
                         'tile_to_shape((8,32):(32,1), (128,32)))"\nread_smem = "make_composed_layout(Sw<3,3,3>, '
                         'tile_to_shape((8,32):(32,1), (128,32)))"\nread = "SM75_U32x4_LDSM_N"\n')
    cfg = parse_spec(text, "x.toml").configs[0]
    prop = build_property(cfg, cfg.properties[0])
    assert prop.exhaustive().holds
    assert not prop.recheck({"path": "A", "stage": 0, "kind": "misplaced", "i": 1024})
    assert not prop.recheck({"path": "C", "stage": 0, "kind": "misplaced", "i": 0})  # no such path


SWIZZLES = ["none", "32B", "64B", "128B"]


@settings(max_examples=30)
@given(st.sampled_from(["K", "MN"]), st.sampled_from(SWIZZLES), st.sampled_from(SWIZZLES), st.sampled_from(SWIZZLES))
def test_generated_mainloops_agree_with_tma_wgmma(major, stage_sw, tma_sw, desc_sw):
    """Any stage swizzle, TMA box swizzle (the largest legal box for it) and descriptor swizzle, both majors: the
    composed path is right exactly when the single-hop claim ``tma_wgmma`` holds (e.g. a SW32 box and SW32
    descriptors over an INTER-declared K-major stage: both claims find the data where the descriptors read it)."""
    from layoutcheck.properties.tma import plan_boxes
    from layoutcheck.spec.values import WGMMA_ATOM_ORDER

    order = WGMMA_ATOM_ORDER[major]
    mma = make_tiled_mma("SM90_64x128x16_F32F16F16_SS", (2, 1, 1))
    stage = mma_smem_layout(major, stage_sw, "float16", (128, 64), order)
    box = plan_boxes(major, tma_sw, "float16", (128, 64), order).box
    modes = (1, 0) if major == "K" else (0, 1)
    wl = mma_smem_layout(major, desc_sw, "float16", (128, 64), order)
    path = OperandPath("A", mma, (128, 64), 16, "f16", stage, TmaCopy(box, modes), WgmmaRead(major, wl))
    ours = prove(datapath([path]))
    theirs = prove(tma_wgmma(box, stage, modes, "f16", major, 64, None, wl))
    assert ours.status == theirs.status
    if stage_sw == tma_sw == desc_sw:  # (a TMA box and descriptors that agree with each other may also be right)
        assert str(ours.status) == "PROVEN"


def test_umma_mainloop_witness_is_rechecked_and_needs_no_atom():
    """The SM100 mainloop needs no tiled MMA (a tcgen05.mma reads both operands through descriptors); its witness
    names the UMMA stage and an operand (m,k), and is re-checked; a register read without an atom is still an error."""
    spec = load_spec(str(SPECS / "broken" / "datapath_sm100_umma_swizzle.toml"))
    cfg = spec.configs[0]
    prop = build_property(cfg, cfg.properties[0])
    d = prop.exhaustive()
    assert not d.holds and d.witness == {"path": "A", "stage": 1, "kind": "misplaced", "i": 1}
    assert prop.recheck(d.witness) and not prop.recheck({**d.witness, "i": 0})
    assert prop.witness_element(d.witness)[1] == 1
    assert "umma [UMMA descriptors (K-major)]" in prop.subject()
    text = SPECS.joinpath("broken", "datapath_sm100_umma_swizzle.toml").read_text().replace(
        'read = "umma"', 'read = "wgmma"')
    bad = parse_spec(text, "x.toml").configs[0]
    with pytest.raises(SpecError, match="needs the config's tiled MMA"):
        build_property(bad, bad.properties[0])


def test_descriptor_smem_builds_the_wgmma_descriptors_too():
    """``descriptor_smem`` (the layout the descriptors are built from) is one key for wgmma and UMMA reads: the SM90
    N-major B with descriptors from MN-first atoms is misread at the same element as its SM100 twin."""
    text = SPECS.joinpath("broken", "datapath_sm90_tma_swizzle.toml").read_text().replace(
        'descriptor_swizzle = "64B"',
        'descriptor_smem = "make_composed_layout(Sw<3,3,3>, tile_to_shape((64,8):(1,64), (256,64)))"')
    cfg = parse_spec(text, "x.toml").configs[1]
    prop = build_property(cfg, cfg.properties[0])
    d = prop.exhaustive()
    assert not d.holds and prop.recheck(d.witness)
    assert "(n,k) = (64,0)) comes from smem byte 1024" in prop.explain(d.witness)


def test_address_fault_witness_is_rechecked_point_wise():
    """issue #31: a witness names one access; the re-check finds it among the hop's accesses and tests its rule, and
    a forged one (another address, another alignment, an aligned access called misaligned) is rejected."""
    spec = load_spec(str(SPECS / "broken" / "datapath_alignment.toml"))
    cfg = spec.configs[0]
    prop = build_property(cfg, cfg.properties[0])
    d = prop.exhaustive()
    assert not d.holds and d.witness["kind"] == "misaligned" and prop.recheck(d.witness)
    assert not prop.recheck({**d.witness, "address": 128})
    assert not prop.recheck({**d.witness, "align": 8})
    assert not prop.recheck({**d.witness, "i": 0, "address": 0})
    assert not prop.recheck({**d.witness, "kind": "outside_buffer"})
