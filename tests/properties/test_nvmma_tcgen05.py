"""tcgen05 descriptor agreement on kernels Triton compiles for sm_100 on the CPU (``properties.nvmma_tcgen05``):
the tutorial matmul (cp.async operands) and the TMA matmul (``b.T``: a ``memdesc_trans`` view) PROVEN; their PTX
with one descriptor field changed REFUTED with the element (or UNKNOWN when the instruction descriptor names
another type), as the hardware would read it."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

pytest.importorskip("triton")

from layoutcheck.engines.prove import prove
from layoutcheck.importers.triton_kernel import KernelSpec, allocation_offsets, compile_stages
from layoutcheck.properties.nvmma_tcgen05 import umma_claims

DATA = Path(__file__).parents[1] / "data" / "triton_kernels"
ALIGNED = {"a_ptr": "*fp16:16", "b_ptr": "*fp16:16", "c_ptr": "*fp16:16", "M": "i32:16", "N": "i32:16",
           "K": "i32:16"}
SCALARS = {"3": 128, "4": 128, "5": 256}


@cache
def _stages(kernel: str) -> tuple[str, str]:
    file = "tutorials.py" if kernel == "matmul_kernel" else "tma_kernels.py"
    sig = ALIGNED if kernel == "matmul_kernel" else {k: v.removesuffix(":16") for k, v in ALIGNED.items()}
    s = compile_stages(KernelSpec(f"{DATA / file}::{kernel}", sig, {"BM": 128, "BN": 128, "BK": 64},
                                  target="cuda:100"))
    return s["ttgir"], s["ptx"]


def _verdicts(ttgir: str, ptx: str) -> list[tuple[str, str]]:
    out = []
    for c in umma_claims(ttgir, ptx, (1,), SCALARS, allocation_offsets(ttgir, "cuda:100")):
        r = prove(c.prop)
        out.append((r.status.name, str(r.counterexample or r.reason or "")))
    return out


@pytest.mark.parametrize("kernel", ["matmul_kernel", "tma_matmul_kernel"])
def test_tritons_tcgen05_descriptors_read_its_nvmma_shared_operands(kernel: str) -> None:
    got = _verdicts(*_stages(kernel))
    assert [s for s, _ in got] == ["PROVEN", "PROVEN"]  # the peeled first K step and the loop's


def _swap(ptx: str, old: str, new: str) -> str:
    assert old in ptx
    return ptx.replace(old, new)


def test_a_descriptor_swizzle_or_major_that_disagrees_is_refuted_with_the_element() -> None:
    ttgir, ptx = _stages("matmul_kernel")
    hi = str(0x40004040)  # SBO 1024 B, version 1, SWIZZLE_128B: the high word Triton writes
    sw64 = _swap(ptx, f", {hi};", f", {0x80004040};")  # every A and B descriptor: SWIZZLE_64B
    status, why = _verdicts(ttgir, sw64)[0]
    assert status == "REFUTED" and "stored at byte" in why and "descriptor reads" in why
    idesc = str(0x8210010)  # kind::f16, f32 accumulate, B MN-major, N 128, M 128
    b_k_major = _swap(ptx, idesc, str(0x8210010 & ~(1 << 16)))
    status, why = _verdicts(ttgir, b_k_major)[0]
    assert status == "REFUTED" and "operand B" in why


def test_an_instruction_descriptor_of_another_type_is_unknown_naming_the_field() -> None:
    ttgir, ptx = _stages("matmul_kernel")
    bf16 = _swap(ptx, str(0x8210010), str(0x8210010 | (1 << 7)))  # A format 1: bf16
    status, why = _verdicts(ttgir, bf16)[0]
    assert status == "UNKNOWN" and "A format 1 (bf16) is not the operand's f16" in why
