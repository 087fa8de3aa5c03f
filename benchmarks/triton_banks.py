"""Bank conflicts of Triton layouts against Gluon's ``bank_conflicts()`` (Triton's C++), differential and timed.

Run: ``python benchmarks/triton_banks.py`` (needs ``triton`` with Gluon; runs on a CPU). For every (register, shared)
pair of the Triton differential cases (``tests/differential/test_triton.py``) with the same shape, it asks Gluon for
the conflict count (``GluonOpBuilder.get_shared_bank_conflicts``, the call behind ``gl.bank_conflicts``, on a builder
taken from one traced Gluon kernel so the module carries its ``ttg.*`` attributes) and layoutcheck for the
``conflict_free`` verdict (``LinearConflictFree.exhaustive``): they must agree (conflict-free iff Gluon counts 0).
Times per pair, cold (first call) and warm (best of 5), and prints our time over Gluon's (issue #29: <= 2x warm).
Not a test: the numbers depend on the machine.
"""

from __future__ import annotations

import itertools
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from layoutcheck.errors import LayoutError
from layoutcheck.importers.triton import from_triton
from layoutcheck.properties.linear import LinearConflictFree


def gluon_builder() -> Any:
    """A ``GluonOpBuilder`` whose module has the attributes ``get_shared_bank_conflicts`` reads (taken from tracing a
    one-line Gluon kernel for sm_90; nothing is compiled further)."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.compiler.compiler import make_backend
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language import _semantic

    caught: dict[str, Any] = {}
    original = _semantic.GluonSemantic.bank_conflicts

    def spy(self: Any, d: Any, s: Any) -> Any:
        caught["builder"] = self.builder
        return original(self, d, s)

    @gluon.jit
    def kernel() -> None:
        reg = gl.distributed_type(gl.float16, [32, 32], gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]))
        gl.bank_conflicts(reg, gl.shared_memory_descriptor_type(gl.float16, [32, 32],
                                                                gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), [32, 32]))

    _semantic.GluonSemantic.bank_conflicts = spy
    try:
        target = GPUTarget("cuda", 90, 32)
        backend = make_backend(target)
        opts = backend.parse_options({})
        from triton._C.libtriton import ir
        ctx = ir.context()
        ir.load_dialects(ctx)
        backend.load_dialects(ctx)
        caught["module"] = ASTSource(kernel, {}, {}).make_ir(target, opts, backend.get_codegen_implementation(opts),
                                                              backend.get_module_map(), ctx)
        caught["ctx"] = ctx
    finally:
        _semantic.GluonSemantic.bank_conflicts = original
    return caught


def pairs() -> list[tuple[str, Any, str, Any, tuple[int, ...], int]]:
    from tests.differential.test_triton import distributed_cases, shared_cases
    out = []
    for (dt, dl, ds), (st, sl, ss) in itertools.product(distributed_cases(), shared_cases()):
        if tuple(ds) != tuple(ss) or "padded" in st or "CGALayout" in st or "CGALayout" in dt:
            continue
        bits = int(st.split("elementBitWidth = ")[1].split("}")[0]) if "elementBitWidth" in st else 16
        out.append((dt, dl, st, sl, tuple(ds), bits))
    return out


def _best(fn: Any, n: int = 5) -> float:
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    keep = gluon_builder()
    b = keep["builder"]
    agree, cold, warm, rows = 0, [], [], 0
    for dt, dl, st, sl, shape, bits in pairs():
        reg, sh = from_triton(dt, shape), from_triton(st, shape)

        def theirs(dl: Any = dl, sl: Any = sl, shape: tuple[int, ...] = shape, bits: int = bits) -> int:
            return b.get_shared_bank_conflicts(dl._to_ir(b), sl._to_ir(b), list(shape), bits)

        def ours(reg: Any = reg, sh: Any = sh, bits: int = bits) -> bool:
            return LinearConflictFree(reg, sh, bits, "ld").exhaustive().holds

        try:
            t0 = time.perf_counter()
            verdict = ours()
            t_ours_cold = time.perf_counter() - t0
        except LayoutError:
            continue  # not 32 lanes, or a shared layout that is not bijective per CTA: no verdict to compare
        t0 = time.perf_counter()
        count = theirs()
        t_theirs_cold = time.perf_counter() - t0
        rows += 1
        if verdict == (count == 0):
            agree += 1
        else:
            print(f"DIFFER: {dt} on {st} {shape} {bits}-bit: layoutcheck conflict_free={verdict}, Gluon {count}")
        cold.append(t_ours_cold / t_theirs_cold)
        warm.append(_best(ours) / _best(theirs))
    print(f"{rows} (register, shared) pairs; verdicts equal on {agree}/{rows}")
    print(f"layoutcheck / Gluon time per pair: cold median {statistics.median(cold):.2f}x, "
          f"warm median {statistics.median(warm):.2f}x (min {min(warm):.2f}, max {max(warm):.2f})")


if __name__ == "__main__":
    main()
