"""``layoutcheck cute-dsl``: CuTe DSL kernels compiled on the CPU (``tests/data/cute_dsl/``), their layouts checked
through ``check``'s road. Each kernel is compiled once per module; skipped without ``nvidia-cutlass-dsl``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from layoutcheck.cli import main
from layoutcheck.errors import UsageError
from layoutcheck.importers.cute_dsl_findings import by_global_mode, kernel_findings
from layoutcheck.importers.cute_dsl_ir import split_top
from layoutcheck.importers.cute_dsl_kernel import KernelSpec, TensorArg, compile_kernel, parse_arg

DATA = Path(__file__).resolve().parents[1] / "data" / "cute_dsl"
GEMM_ARGS = {"ampere": ("sm_80", ["f16[256,128]", "f16[256,128]", "f32[256,256]"]),
             "hopper": ("sm_90a", ["f16[512,256]", "f16[512,256]", "f32[512,512]"]),
             "blackwell": ("sm_100a", ["f16[512,256]", "f16[512,256]", "f32[512,512]"])}
CASES = {  # (kernel, host) -> {(what, property): verdict} of the rows that are not PROVEN; every other row PROVEN
    ("ampere", "gemm"): {},
    ("ampere", "gemm_overlapping_stages"): {("smem", "injective"): "REFUTED"},
    ("ampere", "gemm_doubled_rows"): {("tiled_mma", "exact_cover(replication=1)"): "REFUTED"},
    ("ampere", "gemm_copy_skips_rows"): {("tiled_copy", "exact_cover(replication=1)"): "REFUTED"},
    ("hopper", "gemm"): {},
    ("hopper", "gemm_overlapping_stages"): {("smem", "injective"): "REFUTED"},
    ("hopper", "gemm_one_stage_buffers"): {("smem", "in_bounds(bound=8192)"): "REFUTED"},
    ("blackwell", "gemm"): {},
    ("blackwell", "gemm_overlapping_stages"): {("smem", "injective"): "REFUTED"},
}


def _run(kernel: str, host: str, tmp: Path) -> tuple[int, list[dict], str]:
    arch, args = GEMM_ARGS[kernel]
    out, spec = tmp / f"{kernel}_{host}.json", tmp / f"{kernel}_{host}.toml"
    code = main(["cute-dsl", f"{DATA / (kernel + '_gemm.py')}::{host}", "--arch", arch, "--args", *args,
                 "--json", str(out), "--spec", str(spec)])
    return code, json.loads(out.read_text())["results"], spec.read_text()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], tuple[int, list[dict], str]]:
    pytest.importorskip("cutlass.cute")
    tmp = tmp_path_factory.mktemp("cute_dsl")
    return {case: _run(*case, tmp) for case in CASES}


@pytest.mark.parametrize("case", list(CASES), ids=lambda c: f"{c[0]}::{c[1]}")
def test_verdicts(runs: dict, case: tuple[str, str]) -> None:
    code, rows, _ = runs[case]
    bad = {(r["config"].split()[1], r["property"]): r["status"] for r in rows if r["status"] != "PROVEN"}
    assert bad == CASES[case], rows
    assert code == (1 if CASES[case] else 0)
    whats = {r["config"].split()[1] for r in rows}
    assert {"smem", "tiled_mma"} <= whats
    assert ("tma" in whats) == (case[0] != "ampere") and ("tiled_copy" in whats) == (case[0] == "ampere")
    for r in rows:  # every row at the kernel's own source line
        assert r["file"].endswith(f"{case[0]}_gemm.py") and r["line"] > 0, r
        if r["status"] == "REFUTED":
            assert r["counterexample"]


def test_refuted_rows_name_the_law(runs: dict) -> None:
    _, rows, _ = runs[("ampere", "gemm_copy_skips_rows")]
    rows = [r for r in rows if r["status"] == "REFUTED"]  # layout_copy_tv, src and dst: at the make_tiled_copy line
    sides = sorted(r["config"].split(" b> ")[1].split(" (")[0] for r in rows)
    assert sides == ["((4,32),8):((512,1),64) on [64:1;32:1]", "dst", "src"]
    assert {r["line"] for r in rows} == {_line("ampere_gemm.py", "return cute.make_tiled_copy(atom, tv, (64, BK))")}
    assert all("owned 0 times" in r["counterexample"]["text"] for r in rows)
    _, rows, _ = runs[("hopper", "gemm_overlapping_stages")]
    (row,) = [r for r in rows if r["status"] == "REFUTED"]
    assert "collide" in row["counterexample"]["text"] and "(128,64,4):(64,1,4096)" in row["config"]


def _line(file: str, text: str) -> int:
    lines = (DATA / file).read_text().splitlines()
    (n,) = [i for i, line in enumerate(lines, 1) if line.strip() == text]
    return n


def test_buffer_too_small_is_out_of_bounds(runs: dict) -> None:
    """A struct field sized for one stage (smem.struct_fields) holds a 4-stage layout: in_bounds of the field."""
    _, rows, _ = runs[("hopper", "gemm_one_stage_buffers")]
    bad = [r for r in rows if r["status"] == "REFUTED"]
    assert len(bad) == 2 and all("field s" in r["config"] and "outside [0,8192)" in r["counterexample"]["text"]
                                 for r in bad)


def test_tma_configs_are_the_gmma_atoms(runs: dict) -> None:
    """The Hopper TMA box is 64 x 128 (K, M), 128B swizzle, over S<3,3,3> on f16 elements (the DSL's S<3,4,3> acts
    on bytes); Blackwell's MMA-partitioned tile map regroups ((128,16),1,4) into (M, (16,4) along K)."""
    text = runs[("hopper", "gemm")][2]
    assert 'swizzle = "128B"' in text and "box = [64, 128]" in text and "modes = [1, 0]" in text
    assert 'smem_layout = "Sw<3,3,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))"' in text
    assert "global_shape = [256, 512]" in text and "global_strides = [512]" in text
    text = runs[("blackwell", "gemm")][2]
    assert 'smem_layout = "Sw<3,3,3> o 0 o (128,(16,4)):(64,(1,16))"' in text


def test_by_global_mode() -> None:
    from layoutcheck.algebra.layout import Layout

    got = by_global_mode(Layout(((128, 16), 1, 4), ((64, 1), 0, 16)), "((128,16),1,4):((1@0,1@1),0,16@1)")
    assert {k: str(v) for k, v in got.items()} == {0: "128:64", 1: "(16,4):(1,16)"}
    with pytest.raises(ValueError, match="does not tile global mode 1"):
        by_global_mode(Layout(((128, 16), 1, 4), ((64, 1), 0, 16)), "((128,16),1,4):((1@0,1@1),0,32@1)")


def test_parse_arg() -> None:
    assert parse_arg("f16[256,128]") == (None, TensorArg("f16", (256, 128), (1, 0)))
    assert parse_arg("mB=bf16[8,16,2]{0,1,2}") == ("mB", TensorArg("bf16", (8, 16, 2), (0, 1, 2)))
    assert parse_arg("k=64") == ("k", 64) and parse_arg("true") == (None, True)
    for bad in ("q16[4]", "f16[4,4]{0,0}", "f16"):
        with pytest.raises(UsageError):
            parse_arg(bad)


def test_split_top() -> None:
    assert split_top('(!a<"x, y">, !b<1, (2, 3)>), !c') == ['(!a<"x, y">, !b<1, (2, 3)>)', "!c"]


def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cute-dsl", "nowhere.py::host"]) == 2
    assert main(["cute-dsl", f"{DATA / 'ampere_gemm.py'}::gemm", "--arch", "sm_77"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_nothing_built_is_unknown(tmp_path: Path) -> None:
    """A kernel that builds no layout layoutcheck reads is one UNKNOWN row, never a pass."""
    pytest.importorskip("cutlass.cute")
    f = tmp_path / "empty.py"
    f.write_text("import cutlass.cute as cute\n\n\n@cute.jit\ndef host(a: cute.Tensor):\n    pass\n")
    found = kernel_findings(compile_kernel(KernelSpec(f"{f}::host", ("f16[8,8]",), "sm_80")))
    assert [x.gap for x in found] == ["nothing checked: the traced module builds no layout layoutcheck reads"]
    assert main(["cute-dsl", f"{f}::host", "--arch", "sm_80", "--args", "f16[8,8]"]) == 3


def test_pointer_swizzle_in_elements_is_cutlass_gmma_atom() -> None:
    """A pointer swizzle acts on byte addresses (CuTe's swizzle_ptr): S<B,4,3> on 2^k-byte elements is the element
    swizzle of CUTLASS's GMMA atoms (hw.smem, from cute/atom/mma_traits_sm90_gmma.hpp) of that swizzle mode."""
    from layoutcheck.hw.smem import gmma_smem_atom
    from layoutcheck.importers.cute_dsl_findings import element_swizzle

    for bits in (8, 16, 32):
        for b, mode in ((1, "SW32"), (2, "SW64"), (3, "SW128")):
            want = gmma_smem_atom("K", mode, bits).element_swizzle
            assert element_swizzle(f"S<{b},4,3>", bits) == f"S<{want.bits},{want.base},{want.shift}>"
    assert element_swizzle("S<3,4,3>", 4) is None and element_swizzle("S<3,4,3>", 24) is None


GENERIC = '''
!memref_smem_i8 = !cute.memref<i8, smem, align<16>, "16384:1">
!memref_smem_f16 = !cute.memref<f16, smem, align<16>, "S<3,3,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))">
  %105 = "cute.memref.alloca"() {smem.partition_id = 1 : i32} : () -> !memref_smem_i8
  %107 = "cute.get_iter"(%105) : (!memref_smem_i8) -> !cute.ptr<i8, smem, align<16>>
  %108 = "cute.recast_iter"(%107) : (!cute.ptr<i8, smem, align<16>>) -> !cute.ptr<f16, smem, align<16>>
  %109 = "cute.make_view"(%108, %arg2) : (!cute.ptr<f16, smem, align<16>>, !cute.composed_layout<"S<3,3,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))">) -> !memref_smem_f16
  %111 = "cute.get_iter"(%109) : (!memref_smem_f16) -> !cute.ptr<f16, smem, align<16>>
  %148 = "cute.get_layout"(%109) : (!memref_smem_f16) -> !cute.layout<"(8,8):(1,8)">
  %149 = "cute.make_view"(%111, %148) : (!cute.ptr<f16, smem, align<16>>, !cute.layout<"(8,8):(1,8)">) -> !memref_smem_f16
  %150 = "cute.recast_iter"(%111) : (!cute.ptr<f16, smem, align<16>>) -> !cute.ptr<f32, smem, align<16>>
  %151 = "cute.make_view"(%150, %arg3) : (!cute.ptr<f32, smem, align<16>>, !cute.layout<"(64,64):(64,1)">) -> !cute.memref<f32, smem, align<16>, "(64,64):(64,1)">
'''  # noqa: E501 (IR lines as the DSL prints them)
PRETTY = '''
!memref_smem_i8 = !cute.memref<i8, smem, align<16>, "16384:1">
!memref_smem_f16 = !cute.memref<f16, smem, align<16>, "S<3,3,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))">
      %smem = cute.memref.alloca() {smem.partition_id = 1 : i32} : !memref_smem_i8 loc(#loc21)
      %iter_10 = cute.get_iter(%smem) : !memref_smem_i8 loc(#loc21)
      %iter_11 = cute.recast_iter(%iter_10) : !cute.ptr<i8, smem, align<16>> to !cute.ptr<f16, smem, align<16>> loc(#loc21)
      %view = cute.make_view(%iter_11, %tile_to_shape) : !memref_smem_f16 loc(#loc21)
      %iter_12 = cute.get_iter(%view) : !memref_smem_f16 loc(#loc21)
      %lay_1 = cute.get_layout(%view) : !memref_smem_f16 loc(#loc22)
      %view_2 = cute.make_view(%iter_12, %lay_1) : !memref_smem_f16 loc(#loc22)
'''  # noqa: E501


@pytest.mark.parametrize("form", ["generic", "pretty"])
def test_root_views_in_either_printed_form(form: str) -> None:
    """The generic form (``"op"(...) : (...) -> T``) and the pretty one (``op(...) : T``) give the same tensor; a
    view whose layout is read off it (``cute.get_layout``) is not one; the allocation's bytes bound it. In the generic
    form, a tensor with a layout of its own over another tensor's memory (an epilogue's f32 tile over the f16 A
    tile, through ``recast_iter``) is one too, bounded by that allocation: 64 x 64 f32 = 16 KiB, 4096 elements."""
    from layoutcheck.importers.cute_dsl_kernel import Capture

    found = kernel_findings(Capture(GENERIC if form == "generic" else PRETTY, (), "k.py"))
    want = [("smem", (("layout", "Sw<3,3,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))"),),
             ("injective", {"name": "in_bounds", "bound": 8192}))]
    if form == "generic":
        want.append(("smem", (("layout", "(64,64):(64,1)"),), ("injective", {"name": "in_bounds", "bound": 4096})))
    assert [(f.what, f.keys, f.properties) for f in found] == want


def test_hooks_are_restored(runs: dict) -> None:
    import cutlass.cute as cute
    from cutlass.cute import atom

    assert cute.make_tiled_mma is atom.make_tiled_mma and cute.make_tiled_copy_tv is atom.make_tiled_copy_tv
    assert "hooked" not in cute.make_tiled_mma.__qualname__


def test_kernel_the_dsl_rejects_is_one_error(capsys: pytest.CaptureFixture[str]) -> None:
    """wgmma needs sm_90a: the DSL's own rejection is exit 2 and one line naming the kernel, never a traceback."""
    pytest.importorskip("cutlass.cute")
    _, args = GEMM_ARGS["hopper"]
    assert main(["cute-dsl", f"{DATA / 'hopper_gemm.py'}::gemm", "--arch", "sm_80", "--args", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "hopper_gemm.py::gemm for sm_80" in err and "expects arch" in err


def test_dynamic_extents() -> None:
    """``f16[?16,256]``: M a SymInt (a multiple of 16); the TMA box is still read, the global tensor is not."""
    pytest.importorskip("cutlass.cute")
    spec = KernelSpec(f"{DATA / 'hopper_gemm.py'}::gemm", ("f16[?16,256]", "f16[?16,256]", "f32[?16,?16]"), "sm_90a")
    found = kernel_findings(compile_kernel(spec))
    tma = [dict(f.keys) for f in found if f.what == "tma"]
    assert len(tma) == 2 and all(k["box"] == [64, 128] and "global_shape" not in k for k in tma)
    assert not [f for f in found if f.gap]
