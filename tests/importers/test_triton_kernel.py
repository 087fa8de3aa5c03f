"""``layoutcheck triton FILE.py::KERNEL``: kernels of our own that follow Triton's tutorials and Gluon's, compiled on
the CPU by the installed Triton (skipped without it), checked through the TTGIR road with rows at the Python line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("triton")

from layoutcheck.cli import main
from layoutcheck.importers.triton_kernel import KernelSpec, compile_kernel, parse_assignments, source_lines
from layoutcheck.properties.ttgir import convert_claims
from layoutcheck.properties.ttgir_smem import smem_traffic

DATA = Path(__file__).parents[1] / "data" / "triton_kernels"
TUT = str(DATA / "tutorials.py")
GLUON = str(DATA / "gluon_kernels.py")
MM = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}


def _line(file: str, text: str) -> int:
    """The line of ``file`` that contains ``text`` (the kernels' source lines, found rather than hard-coded)."""
    return next(i for i, ln in enumerate(Path(file).read_text().splitlines(), 1) if text in ln)


def _ttgir(where: str, sig: dict[str, str], consts: dict[str, object], **kw: object) -> str:
    return compile_kernel(KernelSpec(where, sig, consts, **kw))  # type: ignore[arg-type]


def test_vector_add_has_no_shared_memory_traffic() -> None:
    t = _ttgir(f"{TUT}::add_kernel", {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
               {"BLOCK": 1024})
    assert smem_traffic(t) == []


@pytest.mark.parametrize("target", ["cuda:80", "cuda:90"])
def test_transpose_convert_layout_goes_through_shared_at_the_store_line(target: str) -> None:
    t = _ttgir(f"{TUT}::transpose_kernel", {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32", "N": "i32"},
               {"BM": 64, "BN": 64}, target=target)
    claims = convert_claims(t)
    assert len(claims) == 1 and "data crosses warps" in claims[0].prop.what  # type: ignore[attr-defined]
    assert source_lines(t)[claims[0].line] == (TUT, _line(TUT, "tl.trans(x)"))


@pytest.mark.parametrize(("warps", "bk"), [(4, 32), (8, 64)])
def test_matmul_copies_are_counted_per_warp_and_located(warps: int, bk: int) -> None:
    t = _ttgir(f"{TUT}::matmul_kernel", MM, {"BM": 128, "BN": 128, "BK": bk}, num_warps=warps, target="cuda:80")
    traffic = smem_traffic(t)
    stores = [x for x in traffic if x.subject.startswith("local_alloc") and x.wavefronts is not None]
    assert len(stores) == 2
    for s in stores:  # an unvectorised 16-bit store of a (128 x bk) or (bk x 128) tile: one element per lane
        assert s.instruction == "sts16" and s.instructions == 128 * bk // 32 and s.wavefronts == s.ideal
    assert any("ldmatrix" in x.reason for x in traffic)  # dot operands: not modelled, said so
    src = source_lines(t)
    assert {src[s.line][1] for s in stores} == {_line(TUT, "a = tl.load(a_ptr"), _line(TUT, "b = tl.load(b_ptr + (k")}


def test_wrong_gluon_transpose_is_refuted_at_its_load_line(capsys: pytest.CaptureFixture[str], tmp_path: Path
                                                           ) -> None:
    out = tmp_path / "rows.json"
    args = ["--signature", "x_ptr=*fp16,y_ptr=*fp16", "--constexpr", "M=64,N=64", "--json", str(out)]
    assert main(["triton", f"{GLUON}::transpose_conflicts_kernel", *args]) == 1
    text = capsys.readouterr().out
    assert "32 wavefronts, ideal 1" in text and "4096 / 128  (3968 from bank conflicts)" in text
    rows = json.loads(out.read_text())
    rows = rows["results"]
    bad = [r for r in rows if r["status"] == "REFUTED"]
    # one row from the TTGIR road, one from the PTX road (Triton's own lowering), both at the load's line
    assert len(bad) == 2 and sum("(PTX)" in r["config"] for r in bad) == 1
    assert all(r["line"] == _line(GLUON, "y = smem.load(cols)") and r["file"] == GLUON for r in bad)
    assert main(["triton", f"{GLUON}::transpose_kernel", *args]) == 0
    assert "128 x lds16, 128 / 128" in capsys.readouterr().out


@pytest.mark.parametrize("kernel, sig, consts", [
    ("softmax_kernel", "x_ptr=*fp32,y_ptr=*fp32,n_cols=i32", "BLOCK=1024"),
    ("layer_norm_kernel", "x_ptr=*fp16,y_ptr=*fp16,w_ptr=*fp32,b_ptr=*fp32,n_cols=i32,eps=fp32", "BLOCK=2048"),
    ("reduce_cols_kernel", "x_ptr=*fp32,y_ptr=*fp32,N=i32", "BM=64,BN=64"),
    ("attention_fwd_kernel", "q_ptr=*fp16,k_ptr=*fp16,v_ptr=*fp16,o_ptr=*fp16,L=i32", "BM=128,BN=64,D=64"),
])
def test_tutorial_kernels_check_with_every_row_at_a_python_line(kernel: str, sig: str, consts: str,
                                                                 capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path) -> None:
    out = tmp_path / "rows.json"
    code = main(["triton", f"{TUT}::{kernel}", "--signature", sig, "--constexpr", consts, "--json", str(out)])
    assert code in (0, 3)  # PROVEN, or UNKNOWN where a conversion's scratch swizzle is not modelled
    rows = json.loads(out.read_text())
    rows = rows["results"]
    assert rows and all(r["status"] in ("PROVEN", "UNKNOWN") for r in rows)
    assert all(r["file"] == TUT for r in rows if "convert_layout" in r["config"] or "local_" in r["config"])


def test_bad_inputs_are_errors_naming_what_is_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["triton", f"{TUT}"]) == 2
    assert "FILE.py::KERNEL" in capsys.readouterr().err
    assert main(["triton", f"{TUT}::nope"]) == 2
    assert "no @triton.jit" in capsys.readouterr().err
    assert main(["triton", f"{TUT}::add_kernel", "--constexpr", "BLOCK=1024"]) == 2
    assert "--signature x_ptr=TYPE" in capsys.readouterr().err
    assert main(["triton", f"{TUT}::add_kernel", "--target", "cuda:70"]) == 2
    assert "cuda:80" in capsys.readouterr().err
    sig = "x_ptr=*fp32,y_ptr=*fp32,out_ptr=*fp32,n=i32"
    assert main(["triton", f"{TUT}::add_kernel", "--signature", sig, "--constexpr", "BLOCK=1000"]) == 2
    err = capsys.readouterr().err
    assert "cannot compile" in err and "power of 2" in err  # Triton's own message, one line


def test_parse_assignments() -> None:
    assert parse_assignments(["a=*fp16, n=i32", "b=*fp32"], "--signature", False) == {
        "a": "*fp16", "n": "i32", "b": "*fp32"}
    assert parse_assignments(["B=64,X=1.5,F=true"], "--constexpr", True) == {"B": 64, "X": 1.5, "F": True}


def test_a_reduction_across_warps_is_named_at_its_line_and_triton_allocates_scratch_for_it() -> None:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from layoutcheck.importers.triton_kernel import load_kernel

    spec = KernelSpec(f"{TUT}::reduce_cols_kernel", {"x_ptr": "*fp32", "y_ptr": "*fp32", "N": "i32"},
                      {"BM": 64, "BN": 64})
    t = compile_kernel(spec)
    (row,) = [x for x in smem_traffic(t) if x.subject.startswith("reduce")]
    assert row.wavefronts is None and "spans several warps" in row.reason
    assert source_lines(t)[row.line] == (TUT, _line(TUT, "tl.store(y_ptr + rn, tl.sum"))
    fn = load_kernel(spec)
    sig = {a: spec.signature.get(a, "constexpr") for a in fn.arg_names}
    k = triton.compile(ASTSource(fn, sig, dict(spec.constexprs)), target=GPUTarget("cuda", 90, 32),
                       options={"num_warps": 4})
    assert k.metadata.shared > 0  # Triton's allocator gives the reduction its scratch buffer


def test_from_pytest() -> None:
    from layoutcheck.errors import ProofFailed
    from layoutcheck.testing import assert_triton_conflict_free

    sig = {"x_ptr": "*fp16", "y_ptr": "*fp16"}
    got = assert_triton_conflict_free(f"{GLUON}::transpose_kernel", sig, {"M": 64, "N": 64})
    assert [w for w, _ in got] == [f"gluon_kernels.py:{_line(GLUON, 'smem.store(x)')}",
                                   f"gluon_kernels.py:{_line(GLUON, 'y = smem.load(cols)')}"]
    with pytest.raises(ProofFailed, match=r"gluon_kernels.py:\d+: local_load .*: 4096 wavefronts, ideal 128"):
        assert_triton_conflict_free(f"{GLUON}::transpose_conflicts_kernel", sig, {"M": 64, "N": 64})
    with pytest.raises(ProofFailed, match="data crosses warps"):
        assert_triton_conflict_free(f"{TUT}::transpose_kernel", {**sig, "M": "i32", "N": "i32"},
                                    {"BM": 64, "BN": 64}, allow_unmodelled=False)


def test_the_ncu_section_predicts_exactly_only_where_everything_is_modelled() -> None:
    from layoutcheck.gpu.triton_ncu import CASES, _compile, predict

    got = {}
    for case in CASES:
        k, _ = _compile(case, "cuda:90")
        got[case.label] = predict(k.asm["ttgir"], 1)
    assert got["transpose_conflicts_kernel_fp16_64x64"] == {"ld": 4096, "st": 128, "ld_modelled": 4096,
                                                            "st_modelled": 128, "not_modelled": []}
    assert got["transpose_kernel_fp16_64x64"]["ld"] == 128
    for label in ("tutorial_transpose_fp16_64x64", "tutorial_reduce_axis0_fp32_64x64"):
        assert got[label]["ld"] is None and got[label]["not_modelled"]
