"""The nvmma_descriptor claim on Triton's own Hopper kernels (compiled on the CPU): Triton's wgmma descriptors read
every operand element where its nvmma_shared layout stores it; a corrupted descriptor or swizzle is REFUTED."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from layoutcheck.engines.prove import prove
from layoutcheck.importers.ptx import parse_ptx
from layoutcheck.importers.ptx_run import wgmma_executions
from layoutcheck.properties.nvmma import nvmma_claims
from layoutcheck.properties.ttgir import NotModelled

pytest.importorskip("triton")

DATA = Path(__file__).parents[1] / "data" / "triton_kernels"
MM = {"c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
KERNELS = {
    "fp16": ("matmul_kernel", MM | {"a_ptr": "*fp16", "b_ptr": "*fp16"}, {"BM": 64, "BN": 64, "BK": 32},
             {"3": 64, "4": 64, "5": 64}),
    "fp8": ("matmul_kernel", MM | {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv"}, {"BM": 64, "BN": 64, "BK": 64},
            {"3": 64, "4": 64, "5": 128}),
    "attention": ("attention_fwd_kernel", {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16",
                                           "L": "i32"}, {"BM": 128, "BN": 64, "D": 64}, {"4": 128}),
    # two warpgroups (8 warps: Triton reads the warp id with shfl.sync.idx), and a 3-stage cp.async pipeline (tf32)
    "bf16-w8": ("matmul_kernel", MM | {"a_ptr": "*bf16", "b_ptr": "*bf16"}, {"BM": 128, "BN": 128, "BK": 64},
                {"3": 128, "4": 128, "5": 128}, 8),
    "tf32-3stages": ("matmul_kernel", MM | {"a_ptr": "*fp32", "b_ptr": "*fp32"}, {"BM": 64, "BN": 64, "BK": 32},
                     {"3": 64, "4": 64, "5": 128}),
}


@functools.cache
def _stages(which: str) -> tuple[str, str, dict[str, int]]:  # (ttgir, ptx, scalars)
    from layoutcheck.importers.triton_kernel import KernelSpec, compile_stages

    name, sig, consts, scalars, *warps = KERNELS[which]
    st = compile_stages(KernelSpec(f"{DATA / 'tutorials.py'}::{name}", sig, consts, *(warps or [4]), 3, "cuda:90"))
    return st["ttgir"], st["ptx"], scalars


def _verdicts(ttgir: str, ptx: str, scalars: dict[str, int], offsets: tuple[int | None, ...] = ()
              ) -> list[tuple[int, str, str]]:
    out = []
    for c in nvmma_claims(ttgir, ptx, (1, 1), scalars, offsets):
        r = prove(c.prop)
        out.append((c.line, r.status.name, str(r.counterexample or r.reason)))
    return out


@pytest.mark.parametrize("which", sorted(KERNELS))
def test_tritons_hopper_kernels_read_their_operands_where_they_are_stored(which: str) -> None:
    from layoutcheck.importers.triton_kernel import allocation_offsets

    ttgir, ptx, scalars = _stages(which)
    offsets = allocation_offsets(ttgir)
    assert offsets and None not in offsets  # Triton's own allocation pass, run on the CPU
    for given in (offsets, ()):  # at Triton's offsets, and with the buffers placed from the descriptors
        got = _verdicts(ttgir, ptx, scalars, given)
        assert len(got) == ttgir.count("ttng.warp_group_dot ") and got
        assert {s for _, s, _ in got} == {"PROVEN"}, got


def test_a_start_address_off_by_a_whole_swizzle_period_needs_the_allocation_offsets() -> None:
    from layoutcheck.importers.triton_kernel import allocation_offsets

    ttgir, ptx, scalars = _stages("fp16")
    # B's descriptors: start address 0x100 (4096 B) and 0x180: move both by 1024 B (= 0x40 in 16-byte units)
    moved = ptx.replace(str(0x4000004000000000), str(0x4000004000000040))
    assert moved != ptx
    assert [s for _, s, _ in _verdicts(ttgir, moved, scalars)] == ["PROVEN"]  # inferred placement: not seen
    got = _verdicts(ttgir, moved, scalars, allocation_offsets(ttgir))
    assert [s for _, s, _ in got] == ["REFUTED"] and "allocation.offset" in got[0][2], got


def test_the_interpreter_records_every_warpgroups_descriptors() -> None:
    _, ptx, scalars = _stages("attention")
    run = wgmma_executions(parse_ptx(ptx), grid=(1, 1), scalars=scalars)
    mma = [e for e in run.execs if e.shape]
    assert not run.stopped and {e.shape for e in mma} == {"m64n64k16"}
    assert {e.desc_a is None for e in mma} == {False, True}  # QK^T reads A through a descriptor, PV from registers
    assert {(e.trans_a, e.trans_b) for e in mma if e.desc_a is None} == {(0, 1)}  # V is MN-major


SW128_SBO1024 = str(0x4000004000000000)


@pytest.mark.parametrize(("bad", "what"), [(0x8000004000000000, "swizzle"), (0x4000002000000000, "SBO")])
def test_a_corrupted_descriptor_is_refuted_with_the_element(bad: int, what: str) -> None:
    ttgir, ptx, scalars = _stages("attention")
    assert SW128_SBO1024 in ptx  # Triton's 128-byte swizzle, SBO = 1024 B: the constant it ORs into descriptors
    got = _verdicts(ttgir, ptx.replace(SW128_SBO1024, str(bad)), scalars)
    assert {s for _, s, _ in got} == {"REFUTED"}, (what, got)
    stored = r"element \(mn, k\) = \(\d+, \d+\) is stored at byte \d+ .* at byte \d+"
    assert all(re.search(stored, t) for _, _, t in got)


def test_a_hand_edited_nvmma_swizzle_is_refuted() -> None:
    ttgir, ptx, scalars = _stages("fp16")
    edited = ttgir.replace("#ttg.nvmma_shared<{swizzlingByteWidth = 64,", "#ttg.nvmma_shared<{swizzlingByteWidth = 32,")
    assert edited != ttgir
    got = _verdicts(edited, ptx, scalars)
    assert [s for _, s, _ in got] == ["REFUTED"] and "stored at byte" in got[0][2]


def test_what_cannot_be_followed_is_unknown() -> None:
    ttgir, ptx, _ = _stages("fp16")
    stopped = nvmma_claims(ttgir, ptx, (1, 1), {})  # K unknown: the loop bound stops the run
    assert stopped and all(isinstance(c.prop, NotModelled) and "stopped" in c.prop.what for c in stopped)
    assert all(prove(c.prop).status.name == "UNKNOWN" for c in stopped)
    unpaired = nvmma_claims(ttgir, ptx.replace("wgmma.mma_async", "// wgmma.mma_async"), (1, 1), {"5": 64})
    assert unpaired and all(isinstance(c.prop, NotModelled) and "not paired" in c.prop.what for c in unpaired)


def test_layoutcheck_triton_prints_the_row_at_the_dots_python_line(capsys: pytest.CaptureFixture[str]) -> None:
    from layoutcheck.cli import main

    main(["triton", f"{DATA / 'tutorials.py'}::attention_fwd_kernel", "--signature",
          "q_ptr=*fp16,k_ptr=*fp16,v_ptr=*fp16,o_ptr=*fp16,L=i32", "--constexpr", "BM=128,BN=64,D=64",
          "--target", "cuda:90", "--scalar", "L=128"])
    rows = [ln for ln in capsys.readouterr().out.splitlines() if re.search(r"\bnvmma_descriptor +[A-Z]", ln)]
    assert len(rows) == 2 and all("PROVEN" in r for r in rows)
    assert {re.search(r"tutorials\.py:(\d+)", r).group(1) for r in rows} == {"84", "90"}  # type: ignore[union-attr]


def test_shfl_sync_idx_follows_the_isa() -> None:
    # Triton's warp id: every lane reads lane 0's tid/32; with a segment mask (c = 0x1f | 0x18 << 8) lane l reads
    # lane (l & 0x18) | (b & 7): the ISA's minLane | (b & ~segmask)
    from layoutcheck.importers.ptx_run import shared_accesses

    body = """
.visible .entry k(.param .u32 k_param_0)
.reqntid 64, 1, 1
{
    .reg .b32 %r<9>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    shfl.sync.idx.b32 %r3, %r2, 0, 31, -1;
    shfl.sync.idx.b32 %r4|%p1, %r1, 5, 6175, -1;
    shl.b32 %r5, %r3, 8;
    add.s32 %r6, %r5, %r4;
    shl.b32 %r7, %r6, 2;
    st.shared.b32 [%r7], %r1;
    ret;
}
"""
    run = shared_accesses(parse_ptx(".version 8.0\n.target sm_90a\n.address_size 64\n" + body))
    assert not run.stopped, run.stopped
    for a in run.accesses:
        for lane, addr in enumerate(a.addrs):
            want = (a.warp << 8) + 32 * a.warp + ((lane & 0x18) | 5)
            assert addr == 4 * want
