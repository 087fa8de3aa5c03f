"""The TMA -> swizzled smem -> ldmatrix -> mma.sync kernel without a GPU: the proof it relies on, its emitted index
math run through a model of the TMA engine and of ldmatrix, and its oracle."""

from __future__ import annotations

import numpy as np
import pytest

from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.algebra.tiling import tile_to_shape
from layoutcheck.codegen.bundle import bundled_cases
from layoutcheck.codegen.cases import MMA_F16, smem_layout
from layoutcheck.codegen.tma_cases import MODES, box_loads, tma_gemm_exprs, tma_mma_gemm_case
from layoutcheck.engines.prove import prove
from layoutcheck.expr.c import c_expr, eval_c
from layoutcheck.hw.smem import gmma_smem_atom
from layoutcheck.hw.swizzle_modes import swizzle_mode
from layoutcheck.models.tiled_mma import make_tiled_mma
from layoutcheck.models.tma import box_smem_offsets, simulate_load
from layoutcheck.properties.tma import plan_boxes, tma_compatible
from layoutcheck.result import Verdict

M = N = K = 64


@pytest.mark.parametrize("mode", MODES)
def test_layout_is_the_gmma_atom_stacking_and_the_box_is_proven(mode: str) -> None:
    e = tma_gemm_exprs(mode)
    atom = gmma_smem_atom("K", mode, 16)
    want = ComposedLayout(atom.element_swizzle, 0, tile_to_shape(atom.layout, (M, K)))
    for lo in (e.loads_a, e.loads_b):
        assert lo.plan.layout == want == smem_layout(mode, M, K)  # the same smem as the mma_gemm kernels
        res = prove(tma_compatible(lo.plan.box, lo.plan.layout, lo.plan.modes))
        assert res.status is Verdict.PROVEN, res
        assert lo.plan.box.swizzle == swizzle_mode(mode).name and lo.plan.box.violations() == []


def test_box_counts_per_mode() -> None:
    assert [tma_gemm_exprs(m).loads_a.count for m in MODES] == [8, 4, 2, 1]


def _env(**kw: object) -> dict:
    return {k: np.asarray(v) for k, v in kw.items()}


def _tma_image(mode: str, codes: np.ndarray, which: str = "a", layout_mode: str | None = None) -> np.ndarray:
    """The smem tile (uint16 element codes) after the kernel's loads: its emitted (c0, c1, dst) per load q, each box
    placed by the TMA model (``simulate_load``; validated against the hardware by ``tma_probe``)."""
    e = tma_gemm_exprs(mode)
    lo = e.loads_a if which == "a" else e.loads_b
    src = tma_mma_gemm_case(mode).source
    box = lo.plan.box
    gmem = np.ascontiguousarray(codes).view(np.uint8).ravel()
    smem = np.zeros(codes.size * 2, dtype=np.uint8)
    written = np.zeros(codes.size * 2, dtype=np.int64)
    for name in ("c0", "c1", "dst"):
        assert c_expr(getattr(lo, name)) in src
    for q in range(lo.count):
        c0, c1, dst = (int(eval_c(c_expr(getattr(lo, n)), _env(q=q))) for n in ("c0", "c1", "dst"))
        img = simulate_load(box, gmem, (c0, c1), dst=dst)
        idx = box_smem_offsets(box, dst).reshape(-1)[:, None] + np.arange(box.esize)
        smem[dst + idx] = img[idx]
        np.add.at(written, dst + idx, 1)
    assert (written == 1).all()  # the loads tile the buffer exactly: every byte once
    return smem.view(np.uint16)


def _codes(rows: int, cols: int) -> np.ndarray:
    """Element (r, c) of a row-major (K-major) operand holds its colex index r + rows*c."""
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return (r + rows * c).astype(np.uint16)


@pytest.mark.parametrize("mode", MODES)
def test_tma_loads_fill_the_layout(mode: str) -> None:
    lay = tma_gemm_exprs(mode).loads_a.plan.layout
    smem = _tma_image(mode, _codes(M, K))
    assert np.array_equal(smem[lay.offsets()], np.arange(M * K))


def test_wrong_swizzle_is_caught() -> None:
    """Teeth: SW64 boxes read through the SW128 layout misplace elements, and the proof says so."""
    smem = _tma_image("SW64", _codes(M, K))
    sw128 = plan_boxes("K", "128B", "float16", (M, K)).layout
    assert (smem[sw128.offsets()] != np.arange(M * K)).sum() > 0
    box64 = plan_boxes("K", "64B", "float16", (M, K)).box
    assert prove(tma_compatible(box64, sw128, (1, 0))).status is Verdict.REFUTED


def _ldsm_fragments(smem: np.ndarray, expr: str, env: dict) -> np.ndarray:
    """ldmatrix.x4 (PTX ISA 9.7.14.5.15): lane 8j+r gives row r of matrix j; lane 4r+c gets its elements 2c, 2c+1 in
    register j. Returns [lane, j, h] element codes."""
    addr = eval_c(expr, {**env, "lane": np.arange(32)}).astype(np.int64)
    assert (addr % 8 == 0).all()  # 16-byte aligned rows
    rows = smem[addr[:, None] + np.arange(8)]  # [provider lane, 8 elements]
    lane = np.arange(32)
    r, c = lane // 4, lane % 4
    j, h = np.arange(4), np.arange(2)
    return rows[(8 * j[None, :, None] + r[:, None, None]), 2 * c[:, None, None] + h[None, None, :]]


@pytest.mark.parametrize("mode", MODES)
def test_ldmatrix_fragments_are_the_tiled_mma_tv_layouts(mode: str) -> None:
    """Every register of every lane after the TMA loads and the kernel's ldmatrix holds the element that the tiled
    MMA's TV layout assigns to it: (t, v) -> tv(t, v) + 16*rows*kk (colex in the operand tile)."""
    e = tma_gemm_exprs(mode)
    tiled = make_tiled_mma(MMA_F16, (2, 2, 1), (M, N, 16))
    src = tma_mma_gemm_case(mode).source
    for which, tv, rows, rest, loop in (("a", tiled.tv_layout_A, M, e.tile.rest_m, "rm"),
                                        ("b", tiled.tv_layout_B, N, e.tile.rest_n // 2, "p")):
        expr = c_expr(e.tile.ldsm_a if which == "a" else e.tile.ldsm_b)
        assert expr in src
        smem = _tma_image(mode, _codes(rows, K), which)
        tvo = tv.offsets().reshape(-1, e.tile.threads).T  # [t, v]
        lane = np.arange(32)
        j, h = np.arange(4)[None, :, None], np.arange(2)[None, None, :]
        for w in range(e.tile.threads // 32):
            for kk in range(K // 16):
                for i in range(rest):
                    got = _ldsm_fragments(smem, expr, _env(warp=w, kk=kk, **{loop: i}))
                    want = tvo[32 * w + lane[:, None, None], 2 * j + h + 8 * i] + 16 * rows * kk
                    assert np.array_equal(got, want), (which, w, kk, i)


def test_oracle() -> None:
    case = tma_mma_gemm_case("SW128")
    args = case.inputs(np)
    A, B = args[0].astype(np.float32), args[1].astype(np.float32)
    C, status = args[4], args[5]
    assert case.compare([A @ B.T, status], np)[1] == 0
    wrong = A @ B.T
    wrong[3, 5] += 1
    assert case.compare([wrong, status], np)[1] == 1
    assert case.compare([A @ B.T, np.array([1], np.uint32)], np)[1] >= 1  # a timed-out wait never passes
    assert np.isnan(C).all() and args[2].size == 128 and args[3].size == 128


def test_registered_and_reproducible() -> None:
    names = [c.name for c in bundled_cases()]
    assert [n for n in names if n.startswith("tma_mma_gemm")] == [f"tma_mma_gemm_{m.lower()}" for m in MODES]
    assert tma_mma_gemm_case("SW32").source == tma_mma_gemm_case("SW32").source
    assert box_loads(plan_boxes("K", "32B", "float16", (M, K))).count == 4


# -- the gemm_ncu prediction (layoutcheck.gpu.validate): CPU side -------------------------------------------------
def test_gemm_wavefront_prediction() -> None:
    """Staging stores (STS.128, vector q -> (row, k-chunk) with 8 k-chunks of a row in one 8-lane phase) conflict
    8/4/2/1-way for INTER/SW32/SW64/SW128; the ldmatrix rows (8 consecutive rows of one k-chunk) never conflict."""
    from layoutcheck.gpu.validate import GEMM_MODES, gemm_prediction

    preds = [gemm_prediction(m) for m in GEMM_MODES]
    assert [p["st"] for p in preds] == [1024, 512, 256, 128]
    assert all(p["ideal_st"] == 128 and p["ld"] == p["ideal_ld"] == 256 for p in preds)
    assert all(p["sass_expected"] == {"LDSM.16.M88.4": 16, "STS.128": 8} for p in preds)
    t = gemm_prediction("SW64", tma=True)
    assert (t["ld"], t["st"], t["sass_expected"]) == (256, 0, {"LDSM.16.M88.4": 16})


def test_delayed_control_changes_only_the_timing() -> None:
    from layoutcheck.codegen.cases import mma_gemm_case
    from layoutcheck.gpu.validate import GEMM_DELAY_NS, delayed_case

    case = mma_gemm_case("SW32")
    d = delayed_case(case)
    assert d.name == "mma_gemm_sw32_delay" and f" {d.name}(" in d.source
    assert d.source.replace(f"  __nanosleep({GEMM_DELAY_NS}u);\n  __syncthreads();\n", "", 1).replace(
        d.name, case.name) == case.source


def test_parse_source_counters() -> None:
    from layoutcheck.gpu.validate import parse_source_counters

    head = '"Address","Source","Address Space","L1 Wavefronts Shared"\n'
    block = ('"Kernel Name","{k}",\n' + head + '"0x0","      LDSM.16.M88.4 R4, [R4]","Shared","16"\n'
             '"0x10","      STS.128 [R0], R20","Shared","1,024"\n"0x20","      LDG.E.128 R2, [R2]","Global","0"\n')
    text = "==PROF== junk\n" + block.format(k="mma_gemm_sw32") + block.format(k="mma_gemm_sw64")
    assert parse_source_counters(text) == {k: {"LDSM": [16], "STS": [1024]} for k in ("mma_gemm_sw32",
                                                                                        "mma_gemm_sw64")}


def test_sass_ops_counts_the_named_opcodes(tmp_path, monkeypatch) -> None:
    """``sass_ops`` (one nvcc + cuobjdump reader for validate and smem_ncu): opcodes counted with their modifiers,
    ``LDSM`` not read as ``LDS``, ``extra`` opcodes only when asked; the arch reaches nvcc."""
    import subprocess

    from layoutcheck.gpu import tools as validate

    sass = "LDSM.16.M88.4 R4, [R2] ;\nLDS.128 R8, [R3] ;\nLDS.128 R8, [R5] ;\nHGMMA.64x64x16.F32 R24, gdesc[UR4] ;\n" \
           "LDGSTS.E.BYPASS.128 [R1], desc[UR6][R2.64] ;\nSYNCS.ARRIVE.TRANS64 RZ, [UR4], RZ ;\n"
    calls = []

    def fake_run(cmd, **kw):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, sass if cmd[0] == "cuobjdump" else "", "")

    monkeypatch.setattr(validate.subprocess, "run", fake_run)
    assert validate.sass_ops("k", "// src", tmp_path) == {
        "LDGSTS.E.BYPASS.128": 1, "LDS.128": 2, "LDSM.16.M88.4": 1, "SYNCS.ARRIVE.TRANS64": 1}
    assert calls[0][1] == "-arch=sm_90"
    got = validate.sass_ops("k", "// src", tmp_path, "sm_90a", ("HGMMA", "WARPGROUP"))
    assert got == {"HGMMA.64": 1, "LDS.128": 2, "LDSM.16.M88.4": 1, "SYNCS.ARRIVE.TRANS64": 1}
    assert calls[2][1] == "-arch=sm_90a" and not list(tmp_path.iterdir())  # sources and cubins removed
