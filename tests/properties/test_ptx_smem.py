"""The PTX road to shared-memory wavefronts: the interpreter's integer semantics on hand-written PTX, and on kernels
Triton compiles itself, agreement with the TTGIR road (itself equal to ncu on an H100, docs/gpu-validation.md) and
with the counters recorded for the tutorial transpose."""

from __future__ import annotations

import numpy as np
import pytest

from layoutcheck.importers.ptx import parse_ptx
from layoutcheck.importers.ptx_run import shared_accesses
from layoutcheck.properties.ptx_smem import access_kind_of, ptx_traffic, totals


def _kernel(body: str, params: str = ".param .u32 k_param_0") -> str:
    return (".version 8.0\n.target sm_90a\n.address_size 64\n.extern .shared .align 16 .b8 global_smem[];\n"
            f".visible .entry k({params})\n.reqntid 64\n{{\n{body}\n}}\n")


def test_integer_semantics_of_the_address_arithmetic() -> None:
    # addr = ((tid ^ (tid >> 3)) & 7) * 4 + bfe(tid, 3, 2) * 128 + 16 * popc(tid & 3) - (tid < 8 ? 0 : 0)
    ptx = _kernel("""
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 3;
    xor.b32 %r3, %r1, %r2;
    and.b32 %r4, %r3, 7;
    shl.b32 %r5, %r4, 2;
    bfe.u32 %r6, %r1, 3, 2;
    mad.lo.s32 %r7, %r6, 128, %r5;
    and.b32 %r8, %r1, 3;
    popc.b32 %r9, %r8;
    shl.b32 %r10, %r9, 4;
    add.s32 %r11, %r7, %r10;
    mov.u32 %r12, global_smem;
    add.s32 %r13, %r12, %r11;
    st.shared.b32 [%r13+512], %r1;
    ret;""")
    run = shared_accesses(parse_ptx(ptx), (1,))
    assert not run.stopped
    tid = np.arange(64)
    want = (((tid ^ (tid >> 3)) & 7) * 4 + ((tid >> 3) & 3) * 128 + 16 * np.array([bin(t & 3).count("1") for t in tid])
            + 512)
    got = np.concatenate([a.addrs for a in sorted(run.accesses, key=lambda a: a.warp)])
    assert got.tolist() == want.tolist()


def test_signed_bfe_and_wide_multiply() -> None:
    ptx = _kernel("""
    mov.u32 %r1, %tid.x;
    bfe.s32 %r2, %r1, 0, 3;
    mul.wide.s32 %rd1, %r2, 8;
    cvt.u32.u64 %r3, %rd1;
    add.s32 %r4, %r3, 64;
    st.shared.b32 [%r4], %r1;
    ret;""")
    run = shared_accesses(parse_ptx(ptx), (1,))
    lane = np.arange(32)
    signed = np.where(lane & 4, (lane & 7) - 8, lane & 7)
    assert run.accesses[0].addrs.tolist() == (signed * 8 + 64).tolist()


def test_an_address_that_depends_on_data_stops_the_run() -> None:
    ptx = _kernel("""
    ld.param.u64 %rd1, [k_param_0];
    ld.global.u32 %r1, [%rd1];
    st.shared.b32 [%r1], %r1;
    ret;""", ".param .u64 k_param_0")
    run = shared_accesses(parse_ptx(ptx), (1,))
    assert "does not know" in run.stopped and not run.accesses


def test_a_branch_that_splits_a_warp_runs_each_side_with_its_lanes_and_whole_warps_run_both_sides() -> None:
    split = _kernel("""
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra $L1;
    st.shared.b32 [%r1], %r1;
    $L1:
    ret;""")
    run = shared_accesses(parse_ptx(split), (1,))
    assert not run.stopped and [a.warp for a in run.accesses] == [0, 1]
    w0 = run.accesses[0].addrs
    assert (w0[:16] == -1).all() and w0[16:].tolist() == list(range(16, 32))  # the lanes that took that side
    whole = split.replace("16;", "32;").replace("[%r1]", "[global_smem]")
    run = shared_accesses(parse_ptx(whole), (1,))
    assert not run.stopped and [a.warp for a in run.accesses] == [1]


_ELECTED = """
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    elect.sync %r9|%p1, -1;
    @!%p1 bra $L1;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [global_smem+512], 64;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [global_smem], [%rd1], 64, [global_smem+512];
    add.s32 %r3, %r3, 1;
    BODY
    $L1:
    st.shared.b32 [%r2], %r1;
    ret;"""


def test_an_elected_lane_branch_reconverges_before_the_next_access_which_is_the_whole_warps() -> None:
    run = shared_accesses(parse_ptx(_kernel(_ELECTED.replace("BODY", ""))), (1,))
    assert not run.stopped
    assert [a.warp for a in run.accesses] == [0, 1]  # one warp-instruction per warp, all 32 lanes: reconverged
    assert all((a.addrs >= 0).all() for a in run.accesses)
    assert list(run.other.values()) == [2]  # the bulk copy, once per warp: listed, not counted


def test_a_shared_access_by_an_elected_lane_stops_and_so_does_an_address_the_sides_disagree_on() -> None:
    inside = _kernel(_ELECTED.replace("BODY", "st.shared.b32 [global_smem], %r1;"))
    assert "side of it is not known" in shared_accesses(parse_ptx(inside), (1,)).stopped
    # the address after the join is computed from a register one side wrote and the other did not: unknown
    after = _kernel(_ELECTED.replace("BODY", "mov.u32 %r2, 0;"))
    assert "does not know" in shared_accesses(parse_ptx(after), (1,)).stopped


def test_a_branch_that_never_reconverges_stops() -> None:
    ptx = _kernel("""
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra $L1;
    st.shared.b32 [%r1], %r1;
    ret;
    $L1:
    st.shared.b32 [global_smem], %r1;
    ret;""")
    run = shared_accesses(parse_ptx(ptx), (1,))
    assert "does not reconverge" in run.stopped


def test_a_scoped_wait_loop_label_and_an_unprefixed_predicate_are_read() -> None:
    ptx = _kernel("""
    mov.u32 %r1, %tid.x;
    {
    .reg .pred complete;
    waitLoop:
    mbarrier.try_wait.parity.shared::cta.b64 complete, [global_smem], 0;
    @!complete bra.uni waitLoop;
    }
    {
    .reg .pred complete;
    waitLoop:
    mbarrier.try_wait.parity.shared::cta.b64 complete, [global_smem], 1;
    @!complete bra.uni waitLoop;
    }
    st.shared.b32 [global_smem], %r1;
    ret;""")
    k = parse_ptx(ptx)
    bras = [i for i in k.instrs if i.opcode == "bra"]
    assert [i.guard for i in bras] == ["!complete@1", "!complete@2"]
    assert [k.labels[b.operands[-1]] for b in bras] == [1, 3]  # each to the label of its own scope
    assert not shared_accesses(k, (1,)).stopped


def test_a_loop_bounded_by_a_parameter_runs_that_many_times() -> None:
    ptx = _kernel("""
    ld.param.u32 %r9, [k_param_0];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, 0;
    $L_loop:
    st.shared.b32 [%r2], %r3;
    add.s32 %r3, %r3, 1;
    setp.lt.s32 %p1, %r3, %r9;
    @%p1 bra $L_loop;
    ret;""")
    k = parse_ptx(ptx)
    assert len(shared_accesses(k, (1,), scalars={"0": 5}).accesses) == 5 * 2
    assert "not known" in shared_accesses(k, (1,)).stopped  # the bound not given: unknown, never guessed


def test_predicated_lanes_are_inactive_and_cost_nothing() -> None:
    ptx = _kernel("""
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    setp.eq.u32 %p1, %r2, 0;
    shl.b32 %r3, %r1, 7;
    @%p1 st.shared.b32 [%r3], %r1;
    ret;""")
    t = ptx_traffic(ptx)
    assert [(x.kind, x.executions, x.wavefronts, x.ideal) for x in t] == [("sts32", 2, 2, 2)]


@pytest.mark.parametrize(("text", "kind"), [
    ("ld.shared.v4.b32", "lds128"), ("st.shared.v2.b16", "sts32"), ("ld.shared.b64", "lds64"),
    ("st.shared.b8", "sts8"), ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "ldsm_x4_trans"),
    ("stmatrix.sync.aligned.m8n8.x2.shared.b16", "stsm_x2"), ("ld.shared::cta.v2.f32", "lds64")])
def test_access_kinds_follow_the_ptx_instruction(text: str, kind: str) -> None:
    from layoutcheck.importers.ptx import Instr

    op, *mods = text.split(".")
    assert access_kind_of(Instr(op, tuple(mods), (), "", 0, (0, 0))) == kind


# -- kernels Triton compiles itself ---------------------------------------------------------------------------------
triton = pytest.importorskip("triton")


def _stages(kernel: str, sig: dict[str, str], consts: dict[str, int]) -> dict[str, str]:
    from pathlib import Path

    from layoutcheck.importers.triton_kernel import KernelSpec, compile_stages

    data = Path(__file__).parents[1] / "data" / "triton_kernels"
    return compile_stages(KernelSpec(f"{data / kernel}", sig, consts, 4, 3, "cuda:90"))


@pytest.mark.parametrize(("kernel", "dtype", "m", "n"), [
    ("transpose_kernel", "*fp16", 64, 64), ("transpose_conflicts_kernel", "*fp16", 64, 64),
    ("transpose_kernel", "*fp32", 64, 64), ("transpose_conflicts_kernel", "*fp32", 64, 64)])
def test_gluon_copies_ptx_road_equals_the_ttgir_road(kernel: str, dtype: str, m: int, n: int) -> None:
    from layoutcheck.gpu.triton_ncu import predict

    st = _stages(f"gluon_kernels.py::{kernel}", {"x_ptr": dtype, "y_ptr": dtype}, {"M": m, "N": n})
    assert totals(ptx_traffic(st["ptx"])) == (predict(st["ttgir"], 1)["ld"], predict(st["ttgir"], 1)["st"])


def test_tutorial_transpose_convert_layout_equals_the_h100_counters() -> None:
    # ncu on an H100 (docs/gpu-validation.md, 2026-11-28): ld 64, st 64 wavefronts for one 64x64 fp16 CTA
    st = _stages("tutorials.py::transpose_kernel", {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32", "N": "i32"},
                 {"BM": 64, "BN": 64})
    t = ptx_traffic(st["ptx"], grid=(1, 1), scalars={"2": 64, "3": 64})
    assert totals(t) == (64, 64)
    assert {x.kind for x in t} == {"sts128", "ldsm_x4_trans"}  # Triton's own lowering: stores, then ldmatrix.trans


def test_fp8_matmul_with_a_row_major_b_is_bank_conflicted_and_fp16_is_not() -> None:
    sig = {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
    sizes = {"3": 64, "4": 64, "5": 128}
    fp8 = ptx_traffic(_stages("tutorials.py::matmul_kernel", sig, {"BM": 64, "BN": 64, "BK": 64})["ptx"],
                      grid=(1, 1), scalars=sizes)
    fp16 = ptx_traffic(_stages("tutorials.py::matmul_kernel", sig | {"a_ptr": "*fp16", "b_ptr": "*fp16"},
                               {"BM": 64, "BN": 64, "BK": 32})["ptx"], grid=(1, 1), scalars=sizes)
    assert sum(x.excess or 0 for x in fp8) > 0
    assert sum(x.excess or 0 for x in fp16) == 0
    assert any("wgmma" in x.reason for x in fp8)  # the operand reads are listed, not counted


def test_a_kernel_whose_shared_loads_ptxas_merges_has_no_exact_total() -> None:
    # the FMA matmul: ptxas merges neighbouring ld.shared into LDS.64 / LDS.128 and predicates some (H100: ncu
    # counted 1,068 load wavefronts where the PTX issues 1,824): the PTX count is not what runs, so no total
    from layoutcheck.importers.sass import nvdisasm

    if nvdisasm() is None:
        pytest.skip("no nvdisasm")
    sig = {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"}
    st = _stages("tutorials.py::matmul_fma_kernel", sig, {"BM": 32, "BN": 32, "BK": 32})
    t = ptx_traffic(st["ptx"], grid=(1, 1), scalars={"3": 32, "4": 32, "5": 64}, cubin=st["cubin"])
    assert totals(t) == (None, None)
    assert any(x.instruction == "(sass)" and "ptxas rewrote" in x.reason for x in t)
    tr = _stages("tutorials.py::transpose_kernel", {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32", "N": "i32"},
                 {"BM": 64, "BN": 64})
    assert totals(ptx_traffic(tr["ptx"], grid=(1, 1), scalars={"2": 64, "3": 64}, cubin=tr["cubin"])) == (64, 64)


def test_sass_names_map_to_the_bank_models_kinds() -> None:
    from layoutcheck.importers.sass import shared_ops_of_text

    listing = ("        /*0090*/                   LDS R5, [R2] ;\n"
               "        /*00a0*/              @!P0 STS.128 [R3+0x400], R8 ;\n"
               "        /*00b0*/                   LDSM.16.MT88.4 R12, [R4] ;\n"
               "        /*00c0*/                   STSM.16.M88.2 [R4], R6 ;\n"
               "        /*00d0*/                   LDS.U16 R1, [R0+0x2] ;\n")
    assert shared_ops_of_text(listing) == {("lds32", False): 1, ("sts128", True): 1, ("ldsm_x4_trans", False): 1,
                                          ("stsm_x2", False): 1, ("lds16", False): 1}


def test_a_generic_access_into_the_shared_window_is_a_shared_access() -> None:
    # cvta.shared gives the generic address of a shared variable; a generic st through it writes shared memory
    ptx = _kernel("""
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd1, %r1, 8;
    mov.u64 %rd2, global_smem;
    cvta.shared.u64 %rd3, %rd2;
    add.s64 %rd4, %rd3, %rd1;
    st.u32 [%rd4], %r1;
    ld.param.u64 %rd5, [k_param_0];
    cvta.to.global.u64 %rd6, %rd5;
    add.s64 %rd7, %rd6, %rd1;
    st.u32 [%rd7], %r1;
    ret;""", ".param .u64 k_param_0")
    t = ptx_traffic(ptx)
    assert [(x.kind, x.executions, x.wavefronts, x.ideal) for x in t] == [("sts32", 2, 4, 2)]  # stride 8: 2-way


def test_a_generic_access_the_run_cannot_place_is_listed_not_dropped() -> None:
    ptx = _kernel("""
    ld.param.u64 %rd1, [k_param_0];
    ld.global.u64 %rd2, [%rd1];
    st.u32 [%rd2], 1;
    ret;""", ".param .u64 k_param_0")
    t = ptx_traffic(ptx)
    assert len(t) == 1 and t[0].wavefronts is None and "may be shared-memory traffic" in t[0].reason


def test_sass_of_one_function_of_a_cubin_with_several() -> None:
    from layoutcheck.importers.sass import shared_ops_of_text

    listing = ("\t.section\t.text.k_a,\"ax\",@progbits\n        /*0010*/  LDS R1, [R2] ;\n"
               "\t.section\t.text.k_b,\"ax\",@progbits\n        /*0010*/  STS.64 [R2], R4 ;\n"
               "        /*0020*/  STS.64 [R2+0x8], R4 ;\n")
    assert shared_ops_of_text(listing, "k_a") == {("lds32", False): 1}
    assert shared_ops_of_text(listing, "k_b") == {("sts64", False): 2}
    assert sum(shared_ops_of_text(listing).values()) == 3


def test_cp_async_destinations_are_recorded_and_their_rows_carry_the_st_shared_hypothesis_not_a_count() -> None:
    ptx = _kernel("""
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 7;
    mov.u32 %r3, global_smem;
    add.s32 %r4, %r3, %r2;
    ld.param.u64 %rd1, [k_param_0];
    cp.async.cg.shared.global [%r4], [%rd1], 16;
    cp.async.commit_group;
    ret;""", ".param .u64 k_param_0")
    run = shared_accesses(parse_ptx(ptx), (1,))
    assert not run.stopped and not run.accesses and len(run.copies) == 2
    assert run.copies[0].addrs.tolist() == [128 * t for t in range(32)]
    row = next(t for t in ptx_traffic(ptx) if t.instruction.startswith("cp.async"))
    # 128-byte rows: every quarter-warp's 8 chunks in one 16-byte bank group, 8 wavefronts each, 4 quarters
    assert row.wavefronts is None and (row.hypothesis, row.hypothesis_ideal) == (2 * 32, 2 * 4)
    assert totals(ptx_traffic(ptx)) == (0, 0)  # ld / st counts do not include it


def test_the_ldgsts_experiment_predicts_what_the_st_shared_model_says(tmp_path) -> None:
    import shutil

    if not shutil.which("nvcc"):
        pytest.skip("no nvcc")
    from layoutcheck.gpu.ptx_ncu import COPY_CASES, compile_source, predict_copies

    ptx, cubin = compile_source("cp_async.cu", "sm_90a", tmp_path)
    got = {c.kernel: predict_copies(c, ptx)["wavefronts"] for c in COPY_CASES}
    # 16 LDGSTS (4 per warp) each; the ideal per instruction is 4 / 2 / 1 for 16 / 8 / 4 bytes
    assert got == {"cg16_contiguous": 64, "cg16_rows": 512, "cg16_rows_swizzled": 64, "cg16_half_rows": 256,
                   "ca8_contiguous": 32, "ca8_rows": 512, "ca4_contiguous": 16, "ca4_skewed": 16, "ca4_stride2": 32,
                   "ca4_rows": 512}
    from layoutcheck.importers.sass import nvdisasm

    tool = nvdisasm()
    if tool:  # the SASS runs one LDGSTS per PTX cp.async
        import subprocess

        (tmp_path / "k.cubin").write_bytes(cubin)
        sass = subprocess.run([tool, "-c", str(tmp_path / "k.cubin")], capture_output=True, text=True).stdout
        assert sass.count("LDGSTS") == ptx.count("cp.async.ca.") + ptx.count("cp.async.cg.") == 40
