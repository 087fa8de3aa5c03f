"""Triton kernels that move tiles with TMA (``tl.make_tensor_descriptor``; tests/data/triton_kernels/tma_kernels.py,
after Triton's tutorial 09): the elected lane issues the descriptor updates, the copies and the mbarrier operations
inside warp-splitting branches, which the PTX road follows to their reconvergence point, so the kernels' ld / st /
ldmatrix / stmatrix accesses get verdicts; what the SASS runs differently at a line (the ``tensormap.replace``
updates become LDS / STS) stays UNKNOWN at that line only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("triton")

from layoutcheck.cli import main

DATA = Path(__file__).parents[1] / "data" / "triton_kernels"
TMA = str(DATA / "tma_kernels.py")
XY = ["--signature", "x_ptr=*fp16,y_ptr=*fp16,M=i32,N=i32", "--constexpr", "BM=64,BN=64", "--scalar", "M=128",
      "--scalar", "N=128"]
MM = ["--signature", "a_ptr=*fp16,b_ptr=*fp16,c_ptr=*fp16,M=i32,N=i32,K=i32", "--constexpr", "BM=128,BN=128,BK=64",
      "--scalar", "M=256", "--scalar", "N=256", "--scalar", "K=256"]


def _line(text: str, kernel: str = "") -> int:
    """The line of ``text`` in ``kernel`` (the first kernel that has it when not given)."""
    lines = Path(TMA).read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if f"def {kernel}(" in ln) if kernel else 0
    return next(i for i, ln in enumerate(lines[start:], start + 1) if text in ln)


def _rows(tmp_path: Path, kernel: str, args: list[str]) -> tuple[int, list[dict]]:
    out = tmp_path / "rows.json"
    code = main(["triton", f"{TMA}::{kernel}", *args, "--json", str(out)])
    return code, [r for r in json.loads(out.read_text())["results"] if "(PTX" in r["config"]]


def _the_run_finished(rows: list[dict]) -> bool:
    return not any("(PTX run)" in r["config"] for r in rows)


def test_a_tma_loaded_tile_read_transposed_is_refuted_at_its_line_and_read_as_stored_proven(tmp_path: Path) -> None:
    code, rows = _rows(tmp_path, "tma_transpose_kernel", XY)
    assert code == 1 and _the_run_finished(rows)
    bad = [r for r in rows if r["status"] == "REFUTED"]
    assert len(bad) == 1 and "lds16" in bad[0]["config"]
    assert bad[0]["line"] == _line("tl.store(y_ptr + rn[None, :] * M + rm[:, None], x)")
    code, rows = _rows(tmp_path, "tma_copy_kernel", XY)
    assert code == 3 and _the_run_finished(rows)  # UNKNOWN only where the SASS differs and for the TMA itself
    lds = [r for r in rows if "lds16" in r["config"]]
    assert [r["status"] for r in lds] == ["PROVEN"]
    unknown = [r for r in rows if r["status"] == "UNKNOWN"]
    assert unknown and {r["line"] for r in unknown} == {_line("tl.make_tensor_descriptor(", "tma_copy_kernel"),
                                                         _line("x_desc.load(", "tma_copy_kernel")}
    assert any("ptxas rewrote" in r.get("reason", "") for r in unknown)  # tensormap.replace -> LDS / STS


@pytest.mark.parametrize("kernel, extra", [("tma_matmul_kernel", []),
                                           ("tma_persistent_matmul_kernel", ["--constexpr", "NUM_SMS=2",
                                                                              "--grid", "2"])])
def test_tma_matmuls_reach_their_epilogue_stmatrix(tmp_path: Path, kernel: str, extra: list[str]) -> None:
    code, rows = _rows(tmp_path, kernel, MM + extra)
    assert code == 3 and _the_run_finished(rows)
    stsm = [r for r in rows if "stsm_x4" in r["config"]]
    assert [r["status"] for r in stsm] == ["PROVEN"]
    assert stsm[0]["line"] == _line("c_desc.store(", kernel)
    assert all(r["status"] != "REFUTED" for r in rows)


def test_each_tma_load_writes_its_box_where_the_nvmma_shared_layout_keeps_it_and_a_wrong_swizzle_is_refuted(
        tmp_path: Path) -> None:
    from layoutcheck.engines.prove import prove
    from layoutcheck.importers.triton_kernel import KernelSpec, allocation_offsets, compile_stages
    from layoutcheck.properties.tma_box import tma_box_claims

    assert _rows(tmp_path, "tma_matmul_kernel", MM)[0] == 3
    out = json.loads((tmp_path / "rows.json").read_text())["results"]
    box = [r for r in out if r["property"] == "tma_box"]
    assert box and all(r["status"] == "PROVEN" for r in box)
    assert {r["line"] for r in box} == {_line("a_desc.load(", "tma_matmul_kernel"), _line("b_desc.load(",
                                                                                          "tma_matmul_kernel")}
    s = compile_stages(KernelSpec(f"{TMA}::tma_transpose_kernel", {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32",
                                                                    "N": "i32"}, {"BM": 64, "BN": 64}))
    ttgir, ptx = s["ttgir"], s["ptx"]
    wrong = ptx.replace("swizzle_mode.shared::cta.b1024.b32 [ %rd3 + 0 ], 0x3;",
                        "swizzle_mode.shared::cta.b1024.b32 [ %rd3 + 0 ], 0x2;")
    assert wrong != ptx
    for text, want in ((ptx, "PROVEN"), (wrong, "REFUTED")):
        (c,) = tma_box_claims(ttgir, text, (1,), {"2": 128, "3": 128}, allocation_offsets(ttgir))
        r = prove(c.prop)
        assert r.status.name == want, r
    assert "box element (row, col) = (4, 0) is written at byte 512" in str(r.counterexample)
