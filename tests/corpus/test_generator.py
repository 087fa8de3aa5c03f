"""The generator-derived corpus (``corpus/cutlass_generator.py``): every GEMM kernel cutlass_library's own generator
emits is either mapped to checks or counted as not modelled with its reason; the mapping restates CUTLASS's builders
(pinned here to what those builders printed when compiled on the host, ``corpus/validate_builders.py``); a sample of
the derived checks is PROVEN. The full run is ``python3 corpus/generate.py --from-generator`` (a script, not a test).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from layoutcheck.check import check_property
from layoutcheck.spec.load import parse_spec

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"


def _load(name: str, file: str):
    spec = importlib.util.spec_from_file_location(name, CORPUS / file)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


gen = sys.modules.get("corpus_generate") or _load("corpus_generate", "generate.py")
cg = gen.generator_module()
vb = _load("corpus_validate_builders", "validate_builders.py")


def kernel(**kw) -> object:
    base = dict(name="k", arch="SM90", gemm_kind="Universal3x", opcode_class="TensorOp", math_operation="multiply_add",
                a="f16", b="f16", c="f16", d="f16", acc="f32", layouts=("row", "col", "row", "row"),
                alignments=(8, 8, 8, 8), tile=(128, 128, 64), cluster=(1, 1, 1), stages=0, warps=(4, 1, 1),
                instruction=(0, 0, 0), kernel_schedule="ScheduleAuto", epilogue_schedule="ScheduleAuto",
                tile_scheduler="Default", mixed_input=False)
    base.update(kw)
    return cg.Kernel(**base)


# -- SM90: facts CUTLASS's CollectiveBuilder printed for the same kernels (g++ on the wheel's headers) --------------
@pytest.mark.parametrize(("kw", "stages", "schedule", "epilogue"), [
    # cutlass3x_sm90_tensorop_gemm_tf32_tf32_f32_f32_f32_256x256x32_1x2x1_0_tnn_align4_warpspecialized_pingpong_
    # epi_nosmem
    (dict(a="tf32", b="tf32", c="f32", d="f32", tile=(256, 256, 32), cluster=(1, 2, 1), alignments=(4, 4, 4, 4),
          kernel_schedule="TmaWarpSpecializedPingpong", epilogue_schedule="NoSmemWarpSpecialized"),
     3, "pingpong", "nosmem"),
    # KernelScheduleAuto with a 128-row tile: Cooperative (CUDA >= 12.1); EpilogueScheduleAuto: no smem; 128x128x64 f16
    (dict(), 7, "cooperative", "nosmem"),
])
def test_sm90_mapping_matches_the_builder(kw, stages, schedule, epilogue) -> None:
    m = cg.map_sm90(kernel(**kw))
    assert not m.not_modelled
    assert (int(m.facts["stages"]), m.facts["schedule"], m.facts["epilogue"].split()[0]) == (stages, schedule, epilogue)


def test_sm90_tma_epilogue_storage_is_carved_out() -> None:
    """A TMA epilogue's C/D staging buffers leave fewer mainloop stages than the no-smem epilogue."""
    nosmem = cg.map_sm90(kernel())
    tma = cg.map_sm90(kernel(kernel_schedule="TmaWarpSpecializedCooperative",
                             epilogue_schedule="TmaWarpSpecializedCooperative"))
    assert tma.facts["epilogue"] == "tma 128x32"
    assert int(tma.facts["stages"]) < int(nosmem.facts["stages"])
    assert any(c.name.startswith("sm90_Drow_f16_128x32") for c in tma.checks)
    assert any(c.name.startswith("sm90_Crow_f16_128x32") for c in tma.checks)


def test_sm90_cp_async_and_mixed_width_are_counted_not_modelled() -> None:
    cp = cg.map_sm90(kernel(alignments=(2, 2, 8, 8)))  # 4-byte aligned: KernelScheduleAuto picks cp.async
    assert not cp.checks and "cp.async" in cp.not_modelled[0]
    mixed = cg.map_sm90(kernel(a="s8", b="f16"))
    assert not mixed.checks and "mixed-width" in mixed.not_modelled[0]
    fp8 = cg.map_sm90(kernel(a="e4m3", b="e5m2", layouts=("col", "row", "row", "row"), alignments=(16, 16, 8, 8)))
    assert fp8.checks and fp8.facts["majors"] == "K,K"  # gmma_ss_tag_to_major: 8-bit operands are K-major


# -- SM80: the library instantiates 2.x kernels transposed ------------------------------------------------------------
def test_sm80_operands_follow_the_transposed_instantiation() -> None:
    """``_tt`` (A row-major = K-major, B row-major = N-major): DefaultGemmUniversal<B, B^T layout, A, A^T layout>, so
    the kernel operand with the tile's M extent is the library's B (M/N-major) and the N-extent one is A (K-major)."""
    m = cg.map_sm80(kernel(arch="SM80", gemm_kind="Universal", layouts=("row", "row", "row", "row"),
                           tile=(256, 128, 32), warps=(4, 2, 1), stages=3, instruction=(16, 8, 16)))
    assert m.facts["majors (kernel A,B)"] == "MN,K"
    names = [c.name for c in m.checks]
    assert "sm80x_16b_MN_256x32x3_smem" in names and "sm80x_16b_K_128x32x3_smem" in names


def test_sm80_multiplicand_is_cutlass_2x_layout() -> None:
    """RowMajorTensorOpMultiplicandCrosswise<32, 32> of cutlass_tensorop_s1688gemm_tf32_128x128_32x3_tn_align4's
    staged A tile (128 x 32*3): the offsets of (m, 0), m = 0..15, as CUTLASS printed them (g++, host)."""
    text = cg.sm80_multiplicand(32, "K", 128, 32, 3)
    got = vb.formula_offsets(f'formula = "{text}"', 128, 32, 3)[:16].tolist()
    assert got == [0, 100, 200, 300, 400, 500, 600, 700, 768, 868, 968, 1068, 1168, 1268, 1368, 1468]


def test_sm80_unrestated_shapes_are_counted() -> None:
    m = cg.map_sm80(kernel(arch="SM80", gemm_kind="Universal", a="f64", b="f64", acc="f64",
                           tile=(128, 128, 16), warps=(2, 2, 1), stages=3))
    assert not m.checks and "f64" in m.not_modelled[0]
    assert cg.map_sm80(kernel(arch="SM80", gemm_kind="Sparse")).not_modelled
    # ColumnMajorInterleaved<32> / RowMajorInterleaved<32> int8 kernels (``_n32t32``): counted, never read as row/col
    inter = next(cg.map_kernels([kernel(arch="SM80", gemm_kind="Universal", a="s8", b="s8", acc="s32",
                                        layouts=("ColumnMajorInterleaved32", "RowMajorInterleaved32", "col", "col"),
                                        tile=(128, 128, 64), warps=(2, 2, 1), stages=3)]))
    assert not inter.checks and "interleaved" in inter.not_modelled[0]


# -- SM100 ---------------------------------------------------------------------------------------------------------
def test_sm100_two_sm_splits_the_mma_tile() -> None:
    m = cg.map_sm100(kernel(arch="SM100", tile=(256, 128, 64), instruction=(256, 128, 16),
                            kernel_schedule="TmaWarpSpecialized2SmSm100", layouts=("col", "col", "row", "row")))
    names = [c.name for c in m.checks]
    assert "sm100_f16_MN_128B_128x64_umma" in names  # A: 256/2 rows per CTA, M-major, SW128, atoms K first
    a = next(c for c in m.checks if c.name == "sm100_f16_MN_128B_128x64_umma")
    assert "(128,64), (2,1))" in dict(a.keys)["layout"]
    assert "sm100_f16_K_128B_64x64_umma" in names    # B: 128/2
    assert "sm100_idesc_f16_f16_f32_256x128_MNK_cta2" in names


# -- nothing is dropped; a sample of the checks is PROVEN --------------------------------------------------------------
def test_every_kernel_is_mapped_or_counted() -> None:
    ks = [kernel(), kernel(gemm_kind="SparseUniversal3x"), kernel(a="u4", b="f16"), kernel(tile=(64, 8, 64))]
    out = list(cg.map_kernels(ks))
    assert len(out) == len(ks)
    assert all(bool(m.checks) != bool(m.not_modelled) for m in out)


def test_committed_summary_adds_up() -> None:
    data = json.loads((CORPUS / "generator_summary.json").read_text())
    for arch, s in data["archs"].items():
        assert s["kernels"] >= s["modelled"] > 0, arch
        assert s["modelled_kernels_all_proven"] == s["modelled"], arch
        assert sum(s["gemm_kinds"].values()) == s["kernels"], arch
        assert set(s["property_rows"]) == {"PROVEN"}, arch


@pytest.mark.parametrize("kw", [
    dict(a="e4m3", b="e4m3", layouts=("row", "col", "col", "col"), alignments=(16, 16, 8, 8), tile=(128, 256, 128),
         cluster=(2, 1, 1), kernel_schedule="TmaWarpSpecializedCooperative",
         epilogue_schedule="TmaWarpSpecializedCooperative"),
    dict(a="bf16", b="bf16", layouts=("col", "row", "row", "row"), tile=(64, 128, 64),
         kernel_schedule="TmaWarpSpecializedPingpong", epilogue_schedule="TmaWarpSpecialized"),
])
def test_sample_of_derived_checks_is_proven(kw) -> None:
    m = cg.map_sm90(kernel(**kw))
    assert m.checks
    for ch in {c.name: c for c in m.checks}.values():
        cfg = parse_spec("format = 1\n" + gen.settle_banks(ch).toml(), ch.name).configs[0]
        for req in cfg.properties:
            row = check_property(cfg, req, "auto", 10.0)
            assert row.status == "PROVEN", (row.config, row.property, row.counterexample, row.reason)


# -- the host harness reads CuTe's printouts as CuTe means them --------------------------------------------------------
def test_printed_smem_swizzle_is_in_bytes() -> None:
    """CuTe prints ``Sw<3,4,3> o smem_ptr[16b](unset) o L`` for Layout_K_SW128_Atom<half_t>: on 16-bit elements
    that is ``Sw<3,3,3> o L`` (the restated form)."""
    theirs = vb.cute_layout("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)")
    mine = vb.spec_layout(gen.Check("x", "layout", (("layout", '"make_composed_layout(Sw<3,3,3>, '
                                                      'tile_to_shape((8,64):(64,1), (8,64)))"'),), "[]", ""))
    assert vb.same_function(theirs, mine) is None
    wrong = vb.cute_layout("Sw<3,4,3> o (_8,_64):(_64,_1)")
    assert vb.same_function(wrong, mine) is not None


def test_kernel_records_are_frozen() -> None:
    assert dataclasses.is_dataclass(cg.Kernel)
    with pytest.raises(dataclasses.FrozenInstanceError):
        kernel().name = "x"  # type: ignore[misc]
