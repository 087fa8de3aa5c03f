"""The modules the PTX run is made of, each on its own contract: the machine's integer helpers (``ptx_machine``),
the ALU (``ptx_alu``, through a run), the shared-access and ``cp.async`` recorders (``ptx_shared``), the descriptor
recorders (``ptx_descriptors``), the control-flow graph (``ptx_cfg``) and the tensor-map fields
(``ptx_tensormap``). Expected values are worked by hand from the PTX ISA."""

from __future__ import annotations

import numpy as np

from layoutcheck.importers import ptx_alu, ptx_cfg, ptx_descriptors, ptx_shared, ptx_tensormap
from layoutcheck.importers.ptx import parse_ptx
from layoutcheck.importers.ptx_machine import as_signed, bit_mask, literal, type_of
from layoutcheck.importers.ptx_run import shared_accesses


def _kernel(body: list[str], threads: int = 32) -> str:
    text = "\n    ".join(body)
    return (".version 8.0\n.target sm_90a\n.address_size 64\n.extern .shared .align 16 .b8 smem[];\n"
            f".visible .entry k()\n.reqntid {threads}\n{{\n    {text}\n    ret;\n}}\n")


def test_machine_helpers_follow_the_isa() -> None:
    assert int(bit_mask(8)) == 0xFF and int(bit_mask(64)) == (1 << 64) - 1
    assert as_signed(np.array([0xFF, 0x7F], dtype=np.uint64), 8).tolist() == [-1, 127]
    assert literal("0x10") == 16 and literal("-3") == -3 and literal("%r1") is None


def test_alu_shifts_masks_and_multiplies_per_thread() -> None:
    """Address = ((tid << 3) & 0xF8) + 4 * (tid >> 3): lanes 0..31 store 32-bit words; the machine must compute
    each lane's own address (ALU: ``shl``, ``and``, ``shr``, ``mad.lo``)."""
    body = ["mov.u32 %r0, %tid.x;", "shl.b32 %r1, %r0, 3;", "and.b32 %r2, %r1, 248;", "shr.u32 %r3, %r0, 3;",
            "mad.lo.s32 %r4, %r3, 4, %r2;", "mov.u32 %r5, smem;", "add.s32 %r6, %r5, %r4;",
            "st.shared.b32 [%r6], %r0;"]
    run = shared_accesses(parse_ptx(_kernel(body)), (1,))
    assert not run.stopped and len(run.accesses) == 1
    base = int(run.accesses[0].addrs[0])
    want = [((t << 3) & 0xF8) + 4 * (t >> 3) for t in range(32)]
    assert [int(a) - base for a in run.accesses[0].addrs] == want
    assert callable(ptx_alu.alu) and callable(ptx_alu.shfl_idx)


def test_shared_recorder_keeps_inactive_lanes_out() -> None:
    """A predicated store: only the even lanes are active; the others are recorded as -1 (inactive)."""
    body = ["mov.u32 %r0, %tid.x;", "and.b32 %r1, %r0, 1;", "setp.eq.u32 %p1, %r1, 0;", "shl.b32 %r2, %r0, 2;",
            "mov.u32 %r3, smem;", "add.s32 %r4, %r3, %r2;", "@%p1 st.shared.b32 [%r4], %r0;"]
    k = parse_ptx(_kernel(body))
    run = shared_accesses(k, (1,))
    addrs = run.accesses[0].addrs
    assert (addrs[1::2] == -1).all() and (addrs[0::2] >= 0).all()
    store = next(i for i in k.instrs if i.opcode == "st")
    assert ptx_shared.is_shared(store) and ptx_shared.is_modelled_access(store)
    assert not ptx_shared.is_generic(store) and type_of(store) == "b32"


def test_a_kernel_without_descriptors_records_none() -> None:
    from layoutcheck.importers.ptx_run import tma_loads, umma_executions, wgmma_executions

    k = parse_ptx(_kernel(["mov.u32 %r0, %tid.x;"]))
    for f in (wgmma_executions, umma_executions):
        got = f(k, (1,))
        assert not getattr(got, "executions", ()) and not getattr(got, "stopped", "")
    assert callable(ptx_descriptors.record_wgmma) and callable(ptx_descriptors.record_tensormap)
    assert tma_loads is not None


def test_tensormap_field_of_and_uniform() -> None:
    fields = {("box_dim", 0): 64, ("box_dim", 1): 8}
    assert ptx_tensormap.field_of(fields, "box_dim", 1) == 8 and ptx_tensormap.field_of(fields, "rank") is None
    assert ptx_tensormap.uniform(np.array([5, 5]), np.array([True, True])) == 5
    assert ptx_tensormap.uniform(np.array([5, 5]), np.array([True, False])) is None  # a lane not known
    assert ptx_tensormap.uniform(np.array([5, 6]), np.array([True, True])) is None
    assert "swizzle_mode" in ptx_tensormap.FIELDS


def test_cfg_reconverges_an_if_then_at_its_join() -> None:
    """``@p bra L; a; L: b`` -- the branch's immediate post-dominator is ``L``; a branch whose sides meet only at
    the end has none."""
    body = ["mov.u32 %r0, %tid.x;", "setp.eq.u32 %p1, %r0, 0;", "@%p1 bra $L_join;", "add.s32 %r1, %r0, 1;",
            "$L_join:", "add.s32 %r2, %r0, 2;"]
    k = parse_ptx(_kernel(body))
    cfg = ptx_cfg.Cfg(k.instrs, k.labels)
    bra = next(i for i, ins in enumerate(k.instrs) if ins.opcode == "bra")
    assert cfg.reconvergence(bra) == k.labels["$L_join"]
    body2 = ["mov.u32 %r0, %tid.x;", "setp.eq.u32 %p1, %r0, 0;", "@%p1 bra $L_a;", "ret;", "$L_a:",
             "add.s32 %r1, %r0, 1;"]
    k2 = parse_ptx(_kernel(body2))
    bra2 = next(i for i, ins in enumerate(k2.instrs) if ins.opcode == "bra")
    assert ptx_cfg.Cfg(k2.instrs, k2.labels).reconvergence(bra2) is None
