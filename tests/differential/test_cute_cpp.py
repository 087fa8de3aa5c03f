"""Differential tests against CuTe C++ itself: CUTLASS's headers compiled for the host with g++.

Every case becomes one line of a generated C++ file that prints the C++ result for static layouts; one compile runs
the whole batch. A case C++ refuses (a ``static_assert``: "Stride Divisibility Condition", "Non-injective Layout"...)
breaks the compile at its line; those lines are dropped and the rest recompiled. Then, for every case:

* C++ answers and so do we: the same layout, printed the same way;
* C++ answers and we reject: C++'s answer must break the operation's own law (checked by brute force with CuTe's
  extended evaluation) -- we reject only what is unsound;
* C++ refuses and we answer: ours must satisfy the law.

Opt-in (the compiles take minutes): needs g++, the CUTLASS headers named by ``CUTLASS_INCLUDE`` (fetch
NVIDIA/cutlass, ``git archive HEAD include | tar -x -C /tmp/cutlass``, ``CUTLASS_INCLUDE=/tmp/cutlass/include``)
and the CUDA headers CuTe includes (``CUDA_INCLUDE``, default ``/usr/local/cuda/include``);
skipped otherwise. Nothing of CUTLASS is committed.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import layoutcheck.algebra.ops as ops
import layoutcheck.algebra.tiling as tiling
from layoutcheck.algebra.layout import Layout, extended, make_layout, size
from layoutcheck.errors import LayoutError
from tests.differential.reproducers import REPRODUCERS

CUTLASS = Path(os.environ.get("CUTLASS_INCLUDE", "/nonexistent"))  # opt-in: compiling takes minutes
CUDA = Path(os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include"))
pytestmark = pytest.mark.skipif(
    not (shutil.which("g++") and (CUTLASS / "cute" / "layout.hpp").exists() and (CUDA / "cuda_runtime_api.h").exists()),
    reason="needs g++, the CUTLASS headers (CUTLASS_INCLUDE) and the CUDA headers (CUDA_INCLUDE)",
)


# -- C++ emission ------------------------------------------------------------------------------------------------
def _cpp_tuple(t, maker: str) -> str:
    if isinstance(t, tuple):
        return f"{maker}(" + ",".join(_cpp_tuple(m, maker) for m in t) + ")"
    return f"Int<{t}>{{}}"


def _cpp(x) -> str:
    if isinstance(x, Layout):
        return f"make_layout({_cpp_tuple(x.shape, 'make_shape')},{_cpp_tuple(x.stride, 'make_stride')})"
    if x is None:
        return "_"
    if isinstance(x, tuple):
        return "make_tile(" + ",".join(_cpp(m) for m in x) + ")"
    return f"Int<{x}>{{}}"


def _cpp_call(op: str, args: tuple) -> str:
    if op == "upcast":
        return f"upcast<{args[1]}>({_cpp(args[0])})"
    if op == "complement" and len(args) > 1 and isinstance(args[1], tuple):  # a shape cotarget
        return f"complement({_cpp(args[0])},{_cpp_tuple(args[1], 'make_shape')})"
    return f"{op}(" + ",".join(_cpp(a) for a in args) + ")"


OURS = {
    "composition": ops.composition, "complement": ops.complement, "left_inverse": ops.left_inverse,
    "right_inverse": ops.right_inverse, "coalesce": ops.coalesce, "logical_divide": tiling.logical_divide,
    "zipped_divide": tiling.zipped_divide, "tiled_divide": tiling.tiled_divide, "flat_divide": tiling.flat_divide,
    "logical_product": tiling.logical_product, "zipped_product": tiling.zipped_product,
    "blocked_product": tiling.blocked_product, "raked_product": tiling.raked_product, "upcast": tiling.upcast,
}


def run_cpp(cases: list[tuple[str, tuple]], workdir: Path, chunk: int = 24) -> list[str | None]:
    """C++'s printed answer per case (``_`` removed), ``None`` where C++ refuses it; chunks compile in parallel."""
    from concurrent.futures import ThreadPoolExecutor

    parts = [list(range(k, min(k + chunk, len(cases)))) for k in range(0, len(cases), chunk)]
    answers: list[str | None] = [None] * len(cases)
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        jobs = [pool.submit(_run_chunk, cases, part, workdir / f"chunk{j}") for j, part in enumerate(parts)]
        for job in jobs:
            for i, text in job.result().items():
                answers[i] = text
    return answers


def _run_chunk(cases: list[tuple[str, tuple]], part: list[int], workdir: Path) -> dict[int, str]:
    """Compile and run the cases ``part``; drop the lines C++ refuses and retry."""
    workdir.mkdir(parents=True, exist_ok=True)
    alive = set(part)
    for _ in range(8):
        lines = ["#include <cute/layout.hpp>", "#include <iostream>", "using namespace cute;", "int main() {"]
        first = len(lines) + 1
        order = sorted(alive)
        for i in order:
            lines.append(f'  std::cout << "{i} "; print({_cpp_call(*cases[i])}); std::cout << "\\n";')
        lines.append("}")
        src = workdir / "probe.cpp"
        src.write_text("\n".join(lines) + "\n")
        exe = workdir / "probe"
        proc = subprocess.run(
            ["g++", "-std=c++17", "-O0", "-w", f"-I{CUTLASS}", f"-I{CUDA}", f"-I{CUDA / 'cccl'}", str(src), "-o",
             str(exe)], capture_output=True, text=True, timeout=600)
        if proc.returncode == 0:
            out = subprocess.run([str(exe)], capture_output=True, text=True, check=True, timeout=60).stdout
            return {int(k): text.replace("_", "") for k, text in (line.split(" ", 1) for line in out.splitlines())}
        bad = {int(m) for m in re.findall(r"probe\.cpp:(\d+):", proc.stderr)}
        dropped = {order[n - first] for n in bad if 0 <= n - first < len(order)}
        if not dropped:
            raise AssertionError(proc.stderr[-3000:])
        alive -= dropped
    raise AssertionError("too many rounds of C++ rejections")


# -- the law each operation must satisfy (for the cases where the two disagree on acceptance) ----------------------
def _law_holds(op: str, args: tuple, r: Layout) -> bool:
    a = args[0]
    if op == "composition" and isinstance(args[1], Layout):
        b = args[1]
        return size(r) == size(b) and all(r(i) == extended(a, b(i)) for i in range(size(b)))
    if op in ("logical_divide", "zipped_divide", "tiled_divide", "flat_divide") and isinstance(args[1], Layout):
        # a layout tiler: the three regroupings have logical_divide's offsets in the same colex order
        t = args[1]
        full = make_layout(t, ops.complement(t, ops.coalesce(a).shape))
        return size(r) == size(full) and all(r(i) == extended(a, full(i)) for i in range(size(full)))
    if op == "left_inverse":
        return all(extended(a, extended(r, a(i))) == a(i) for i in range(size(a)))
    if op == "complement":
        joint = make_layout(a, r).offsets()
        return len(set(joint.tolist())) == len(joint)
    return True


# -- the cases: every reproducer of issue #15, then generated families --------------------------------------------
L = Layout
CASES_REPRO: list[tuple[str, tuple]] = [(op, args) for op, args, _, _ in REPRODUCERS]


def _rand_layout(rng: random.Random, *, zero: bool = True, one: bool = True, compact: bool = False) -> Layout:
    n = rng.randint(1, 3)
    shape = [rng.choice([1, 2, 3, 4, 5, 6, 8] if one else [2, 3, 4, 6, 8]) for _ in range(n)]
    if compact:
        order = rng.sample(range(n), n)
        stride, cur = [0] * n, 1
        for i in order:
            stride[i] = cur
            cur *= shape[i] * rng.choice([1, 1, 2])
    else:
        stride = [rng.choice([0, 1, 2, 3, 4, 6, 8, 12, 16] if zero else [1, 2, 3, 4, 6, 8, 12, 16]) for _ in range(n)]
    if n == 1:
        return L(shape[0], stride[0])
    if n == 3 and rng.random() < 0.3:
        return L(((shape[0], shape[1]), shape[2]), ((stride[0], stride[1]), stride[2]))
    return L(tuple(shape), tuple(stride))


def generated_cases(seed: int = 15, n: int = 40) -> list[tuple[str, tuple]]:
    """Families the issue names: non-dividing tilers, stride-0 and size-1 modes, past-the-end compositions."""
    rng = random.Random(seed)
    out: list[tuple[str, tuple]] = []
    for _ in range(n):
        a = _rand_layout(rng, zero=False, compact=True)
        t = rng.randint(1, size(a) + 2)
        out.append(("logical_divide", (a, L(t, rng.choice([1, 1, 2])))))  # tile sizes that need not divide
        out.append(("zipped_divide", (a, L(rng.randint(1, 5), 1))))
        out.append(("composition", (_rand_layout(rng), _rand_layout(rng, compact=True))))  # may run past A
        out.append(("composition", (_rand_layout(rng, zero=False), L(rng.randint(1, 12), rng.randint(1, 6)))))
        out.append(("complement", (_rand_layout(rng, compact=True), rng.randint(1, 64))))
        out.append(("left_inverse", (_rand_layout(rng),)))
        out.append(("right_inverse", (_rand_layout(rng),)))
        out.append(("logical_product", (_rand_layout(rng, compact=True), _rand_layout(rng, compact=True))))
        out.append(("upcast", (_rand_layout(rng), rng.choice([2, 4, 8]))))
    return out


@pytest.fixture(scope="module")
def cpp_answers(tmp_path_factory) -> list[tuple[str, tuple, str | None]]:
    cases = CASES_REPRO + generated_cases()
    answers = run_cpp(cases, tmp_path_factory.mktemp("cute_cpp"))
    return [(op, args, ans) for (op, args), ans in zip(cases, answers, strict=True)]


def _ours(op: str, args: tuple) -> Layout | LayoutError:
    try:
        return OURS[op](*args)
    except LayoutError as e:
        return e


def test_the_recorded_reproducer_values_are_what_cpp_computes(cpp_answers) -> None:
    for (op, args, cpp, _), (_, _, theirs) in zip(REPRODUCERS, cpp_answers, strict=False):
        assert theirs == cpp, (op, args, theirs, cpp)


def test_generated_families_agree_with_cute_cpp(cpp_answers) -> None:
    same = rejected_unsound = ours_only = 0
    for op, args, theirs in cpp_answers:
        ours = _ours(op, args)
        if isinstance(ours, LayoutError):
            if theirs is not None:  # C++ answers where we reject: its answer must break the law
                from layoutcheck.algebra.notation import parse_layout

                assert not _law_holds(op, args, parse_layout(theirs)), (op, args, theirs, ours)
                rejected_unsound += 1
            continue
        if theirs is None:  # C++ refuses at compile time where we answer: ours must satisfy the law
            assert _law_holds(op, args, ours), (op, args, ours)
            ours_only += 1
            continue
        assert str(ours) == theirs, (op, args, ours, theirs)
        same += 1
    assert same > 250, (same, rejected_unsound, ours_only)
