"""The shared-memory model of ``layoutcheck triton`` against Triton itself (test-only oracles, skipped without it):

- Gluon's ``bank_conflicts()`` (``bankConflictsMemDesc`` in ``GenericSwizzling.cpp``): the excess wavefronts per
  wavefront of each ld/st.shared instruction, ``wavefronts / ideal - 1`` of every instruction of ours;
- ``cvt_path``: a ``convert_layout`` that layoutcheck says only reorders registers gets no shared memory from
  Triton's allocator (``metadata.shared == 0``), one that crosses warps gets some;
- the PTX Triton emits: the number of ``st.shared`` / ``ld.shared`` instructions per thread of each width equals the
  instructions per warp our traffic counts for the Gluon copies.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("triton")
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource

from layoutcheck.importers.triton_kernel import KernelSpec, load_kernel
from layoutcheck.properties.ttgir import convert_claims, copies
from layoutcheck.properties.ttgir_smem import copy_traffic, smem_traffic

GLUON = str(Path(__file__).parents[1] / "data" / "triton_kernels" / "gluon_kernels.py")
SIG = {"x_ptr": "*fp16", "y_ptr": "*fp16"}


@pytest.fixture(autouse=True)
def _fresh_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")  # Gluon's static_print runs only when Triton compiles


def _compile(kernel: str, consts: dict[str, object], sig: dict[str, str], warps: int = 4) -> object:
    fn = load_kernel(KernelSpec(f"{GLUON}::{kernel}"))
    full = {a: sig.get(a, "constexpr") for a in fn.arg_names}
    src = GluonASTSource(fn=fn, signature=full, constexprs=consts)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})


REGS = [gl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0]), gl.BlockedLayout([1, 1], [32, 1], [1, 4], [0, 1]),
        gl.BlockedLayout([1, 4], [4, 8], [2, 2], [1, 0]), gl.BlockedLayout([2, 1], [8, 4], [1, 4], [0, 1]),
        gl.BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0])]
SMEMS = [gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), gl.SwizzledSharedLayout(1, 1, 32, [1, 0]),
         gl.SwizzledSharedLayout(2, 1, 32, [1, 0]), gl.SwizzledSharedLayout(8, 2, 4, [1, 0]),
         gl.SwizzledSharedLayout(1, 1, 1, [0, 1]), gl.NVMMASharedLayout(128, 16), gl.NVMMASharedLayout(64, 16)]


@pytest.mark.parametrize(("reg", "smem"), list(itertools.product(REGS, SMEMS)))
def test_wavefronts_agree_with_gluon_bank_conflicts(reg: object, smem: object, capfd: pytest.CaptureFixture[str]
                                                    ) -> None:
    k = _compile("bank_probe", {"REG": reg, "SMEM": smem, "M": 64, "N": 64}, {"x_ptr": "*fp16"})
    theirs = int(re.search(r"BANK_CONFLICTS (\d+)", capfd.readouterr().out).group(1))  # type: ignore[union-attr]
    found = copies(k.asm["ttgir"])  # type: ignore[attr-defined]
    assert found
    for c in found:  # the store and the load back: the same register <-> shared map
        t = copy_traffic(c.line, c.subject, c.prop)  # type: ignore[arg-type]
        assert t.wavefronts is not None and t.ideal is not None
        bits = int(t.instruction[3:])
        print("CASE", t.instruction, t.wavefronts, t.ideal, theirs, bits)
        if bits >= 32:  # Triton's bank model counts 32-bit banks exactly here
            assert t.wavefronts == t.ideal * (theirs + 1), (t, theirs)
        else:  # sub-word accesses: Triton's model gives each element its own bank slot (a lower bound)
            assert t.wavefronts >= t.ideal * (theirs + 1), (t, theirs)


PAIRS = [(REGS[0], REGS[1]), (REGS[0], REGS[2]), (REGS[1], REGS[3]), (REGS[2], REGS[4]), (REGS[0], REGS[0]),
         (gl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0]), gl.BlockedLayout([1, 2], [1, 32], [4, 1], [1, 0])),
         (gl.BlockedLayout([1, 1], [1, 32], [2, 2], [1, 0]), gl.BlockedLayout([1, 1], [1, 32], [2, 2], [0, 1]))]


@pytest.mark.parametrize(("src", "dst"), PAIRS)
def test_convert_layout_path_agrees_with_triton_allocator(src: object, dst: object) -> None:
    k = _compile("cvt_kernel", {"SRC": src, "DST": dst, "M": 64, "N": 64}, SIG)
    ttgir = k.asm["ttgir"]  # type: ignore[attr-defined]
    shared = k.metadata.shared  # type: ignore[attr-defined]
    claims = convert_claims(ttgir)
    through = [c for c in claims if "data crosses warps" in c.prop.what]  # type: ignore[attr-defined]
    if "ttg.convert_layout" not in ttgir or not claims:  # registers only: Triton allocates nothing for it
        assert shared == 0
    if through:
        assert shared > 0


@pytest.mark.parametrize("kernel", ["transpose_kernel", "transpose_conflicts_kernel"])
def test_instruction_counts_agree_with_triton_ptx(kernel: str) -> None:
    k = _compile(kernel, {"M": 64, "N": 64}, SIG)
    ptx = Counter(re.findall(r"\b(ld|st)\.shared\.(?:v(\d)\.)?b(\d+)", k.asm["ptx"]))  # type: ignore[attr-defined]
    got = Counter()
    for t in smem_traffic(k.asm["ttgir"]):  # type: ignore[attr-defined]
        got[t.instruction] += t.instructions // 4  # per warp = per thread (4 warps)
    theirs = Counter({f"{'lds' if op == 'ld' else 'sts'}{int(v or 1) * int(b)}": n for (op, v, b), n in ptx.items()})
    assert got == theirs
