"""Validate the restated builder logic against CUTLASS's own builders, compiled on the host.

For a sample of the generator's kernels (the SM90 and SM100 ones ``corpus/cutlass_generator.py`` models), this
writes C++17 translation units holding exactly the ``CollectiveBuilder`` instantiations cutlass_library's own emitter
writes for each kernel (``EmitGemmUniversal3xInstance``: the ``_epilogue`` and ``_mainloop`` aliases, nothing more),
compiles them with g++ against the wheel's headers (host only: CUDA's builtins are stubbed, ``__CUDACC_VER_MAJOR__``
is 13 as under nvcc 13), runs them, and reads back with ``layoutcheck.importers.cute.from_cute`` what the builders
chose: the operand smem layouts (all stages), the tiled MMA, the pipeline stage count, the TMA load atom (multicast or
not) and, for the SM90 TMA epilogue, the epilogue tile and the D / C smem layouts. Each is compared with the checks
the restated logic produced for the same kernel (layouts as functions over their whole domain).

    python3 corpus/validate_builders.py [--per-arch 200] [--batch 20] [-j 2]

Writes ``corpus/builder_validation.json`` (counts, disagreements, compile time); docs/corpus.md shows it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUDA = "/usr/local/cuda"

PRELUDE = r"""
#define CUTLASS_SM90_COLLECTIVE_BUILDER_SUPPORTED 1
#define CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL 1
#include <cstdio>
#include <cuda.h>
// Capture what make_tma_copy asks the driver to encode (no GPU, no libcuda here): the box, its element strides and
// the swizzle, printed; the descriptor itself is left zero.
extern "C" CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap*, CUtensorMapDataType, cuuint32_t rank, void*,
    const cuuint64_t* dim, const cuuint64_t*, const cuuint32_t* box, const cuuint32_t* estride,
    CUtensorMapInterleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  printf("@@TMA rank=%u box=", rank);
  for (cuuint32_t i = 0; i < rank; ++i) printf("%u%s", box[i], i + 1 < rank ? "," : "");
  printf(" gdim=");
  for (cuuint32_t i = 0; i < rank; ++i) printf("%llu%s", (unsigned long long)dim[i], i + 1 < rank ? "," : "");
  printf(" swizzle=%d\n", (int)swizzle);
  return CUDA_SUCCESS;
}
static inline void __syncthreads() {}
static inline void __syncwarp(unsigned = 0xffffffffu) {}
struct lc_dim3 { unsigned x = 0, y = 0, z = 0; };
static lc_dim3 threadIdx, blockIdx, blockDim, gridDim;
#include <cstdio>
#include <type_traits>
// WMMA stays off (its guard reads the toolkit version and would need nvcc's <mma.h>) ...
#include <cutlass/arch/wmma.h>
// ... then the toolkit tests read nvcc 13's version: KernelScheduleAuto (Cooperative / Pingpong from CUDA 12.1) and
// the TMA descriptor encoding (from CUDA 12).
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#include <cutlass/cutlass.h>
#include <cute/tensor.hpp>
#include <cutlass/arch/mma.h>
#include <cutlass/gemm/gemm.h>
// The TMA epilogue keeps SmemLayoutC/D private: open them to this printout (host harness only).
#define private public
#define protected public
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/thread/linear_combination.h>
#include <cutlass/gemm/dispatch_policy.hpp>
using namespace cute;
template <class T, class = void> struct has_smem_d : std::false_type {};
template <class T> struct has_smem_d<T, std::void_t<typename T::SmemLayoutD>> : std::true_type {};
template <class T, class = void> struct has_smem_c : std::false_type {};
template <class T> struct has_smem_c<T, std::void_t<typename T::SmemLayoutC>> : std::true_type {};
template <class S> S packed_stride(int mn, int k) {
  S s{};
  if constexpr (std::is_same_v<std::decay_t<decltype(get<1>(s))>, _1>) { get<0>(s) = k; } else { get<1>(s) = mn; }
  get<2>(s) = int64_t(mn) * k;
  return s;
}
template <class M, class = void> struct has_tma_args : std::false_type {};
template <class M> struct has_tma_args<M, std::void_t<decltype(std::declval<typename M::Arguments>().dA)>>
    : std::bool_constant<!std::is_pointer_v<typename M::StrideA>> {};
template <class M> void tma_boxes() {
  if constexpr (has_tma_args<M>::value) {
    alignas(128) static typename M::ElementA a[64];
    alignas(128) static typename M::ElementB b[64];
    typename M::Arguments args{};
    args.ptr_A = a; args.ptr_B = b;
    args.dA = packed_stride<typename M::StrideA>(1024, 1024);
    args.dB = packed_stride<typename M::StrideB>(1024, 1024);
    (void)M::to_underlying_arguments(make_shape(1024, 1024, 1024, 1), args, nullptr);
  }
}
template <class M, class E> void report(const char* name) {
  printf("@@KERNEL %s\n@@A ", name); print(typename M::SmemLayoutA{});
  printf("\n@@B "); print(typename M::SmemLayoutB{});
  printf("\n@@STAGES %d\n", (int)M::DispatchPolicy::Stages);
  tma_boxes<M>();
  printf("@@MMA\n"); print(typename M::TiledMma{});
  printf("\n@@MCAST_A %d\n@@MCAST_B %d\n",
         (int)(std::is_same_v<typename M::GmemTiledCopyA, SM90_TMA_LOAD_MULTICAST>),
         (int)(std::is_same_v<typename M::GmemTiledCopyB, SM90_TMA_LOAD_MULTICAST>));
  if constexpr (has_smem_d<E>::value) {
    printf("@@D "); print(typename E::SmemLayoutD{}); printf("\n@@EPI "); print(typename E::EpilogueTile{});
    printf("\n");
  }
  if constexpr (has_smem_c<E>::value) {
    if constexpr (!std::is_void_v<typename E::ElementC>) {
      printf("@@C "); print(typename E::SmemLayoutC{}); printf("\n");
    }
  }
  printf("@@END\n");
}
"""


PRELUDE80 = r"""
#include <cstdio>
static inline void __syncthreads() {}
struct lc_dim3 { unsigned x = 0, y = 0, z = 0; };
static lc_dim3 threadIdx, blockIdx, blockDim, gridDim;
#include <cutlass/cutlass.h>
#include <cutlass/arch/arch.h>
namespace cutlass { namespace arch { inline int LaneId() { return 0; } inline int SmId() { return 0; } } }
#include <cutlass/gemm/threadblock/default_mma.h>
template <class Mma> void report80(const char* name) {
  using SS = typename Mma::Base::SharedStorage;
  printf("@@KERNEL %s\n@@SHAPE %d %d %d\n@@WARP %d %d %d\n@@STAGES %d\n", name, Mma::Shape::kM, Mma::Shape::kN,
         Mma::Shape::kK, Mma::Operator::Shape::kM, Mma::Operator::Shape::kN, Mma::Operator::Shape::kK, Mma::kStages);
  auto la = SS::LayoutA();
  auto lb = SS::LayoutB();
  printf("@@A");
  for (int k = 0; k < Mma::Shape::kK; ++k)
    for (int m = 0; m < Mma::Shape::kM; ++m) printf(" %lld", (long long)la(cutlass::MatrixCoord(m, k)));
  printf("\n@@B");
  for (int k = 0; k < Mma::Shape::kK; ++k)
    for (int n = 0; n < Mma::Shape::kN; ++n) printf(" %lld", (long long)lb(cutlass::MatrixCoord(k, n)));
  printf("\n@@END\n");
}
"""


def sm80_mma(op: Any) -> str:
    """The threadblock MMA of one 2.x kernel as the library instantiates it (gemm_operation.py
    EmitGemmUniversalInstance: the transposed problem, B first) -- DefaultGemmUniversal's DefaultMma."""
    from cutlass_library.library import DataTypeTag, LayoutTag, MathOperationTag, TransposedLayout

    td, mi = op.tile_description, op.tile_description.math_instruction
    warp = [td.threadblock_shape[i] // td.warp_count[i] for i in range(3)]
    shape = "cutlass::gemm::GemmShape<{}, {}, {}>"
    return (f"cutlass::gemm::threadblock::DefaultMma<{DataTypeTag[op.B.element]}, "
            f"{LayoutTag[TransposedLayout[op.B.layout]]}, {op.B.alignment}, {DataTypeTag[op.A.element]}, "
            f"{LayoutTag[TransposedLayout[op.A.layout]]}, {op.A.alignment}, {DataTypeTag[mi.element_accumulator]}, "
            f"cutlass::layout::RowMajor, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80, "
            f"{shape.format(*td.threadblock_shape)}, {shape.format(*warp)}, {shape.format(*mi.instruction_shape)}, "
            f"{td.stages}, {MathOperationTag[mi.math_operation]}>::ThreadblockMma")


def _generate_module() -> Any:
    sys.path.insert(0, os.path.join(ROOT, "corpus"))
    import generate as gen

    sys.modules["corpus_generate"] = gen
    return gen, gen.generator_module()


def sample(mapped: list[Any], n: int) -> list[Any]:
    """Up to ``n`` modelled kernels, most different first: one per distinct set of derived facts, gemm kind and
    kernel schedule (spread evenly over the sorted sets), then round robin."""
    groups: dict[str, list[Any]] = {}
    for m in mapped:
        if m.checks and not m.not_modelled:
            key = {**m.facts, "gemm kind": m.kernel.gemm_kind, "schedules": m.kernel.kernel_schedule}
            groups.setdefault(json.dumps(key, sort_keys=True), []).append(m)
    keys = sorted(groups)
    out: list[Any] = []
    depth = 0
    while len(out) < n and any(depth < len(groups[k]) for k in keys):
        step = max(1, len(keys) // max(1, n - len(out)))
        for k in keys[::step] if depth == 0 else keys:
            if depth < len(groups[k]) and len(out) < n:
                out.append(groups[k][depth])
        depth += 1
    return out[:n]


def emitted(op: Any) -> str:
    """The generator's own C++ for one kernel, cut before the kernel type (only the two collectives)."""
    from cutlass_library.gemm_operation import EmitGemmUniversal3xInstance

    text = EmitGemmUniversal3xInstance().emit(op)
    return text.split("// Gemm operator")[0]


def translation_unit(ops: list[Any]) -> str:
    if ops and ops[0].arch == 80:
        calls = "\n".join(f'  report80<{sm80_mma(op)}>("{op.procedural_name()}");' for op in ops)
        return PRELUDE80 + "int main() {\n" + calls + "\n}\n"
    body = [PRELUDE]
    calls = []
    for i, op in enumerate(ops):
        name = op.procedural_name()
        body.append(f"namespace k{i} {{\n{emitted(op)}\n}}")
        calls.append(f'  report<k{i}::{name}_mainloop, k{i}::{name}_epilogue>("{name}");')
    body.append("int main() {\n" + "\n".join(calls) + "\n}\n")
    return "\n".join(body)


def compile_and_run(src: str, workdir: str, tag: str) -> tuple[str, str, float]:
    inc = os.path.join(os.path.dirname(__import__("cutlass_library").__file__), "source", "include")
    cpp, exe = os.path.join(workdir, f"{tag}.cpp"), os.path.join(workdir, tag)
    with open(cpp, "w") as f:
        f.write(src)
    t0 = time.time()
    r = subprocess.run(["nice", "-n", "5", "g++", "-std=c++17", "-O0", "-fpermissive", "-w", f"-I{inc}",
                        f"-I{CUDA}/include", f"-I{CUDA}/include/cccl", cpp, "-o", exe, f"-L{CUDA}/lib64", "-lcudart"],
                       capture_output=True, text=True)
    dt = time.time() - t0
    if r.returncode != 0:
        return "", r.stderr[-4000:], dt
    out = subprocess.run([exe], capture_output=True, text=True, env=dict(os.environ, LD_LIBRARY_PATH=f"{CUDA}/lib64"))
    return out.stdout, out.stderr, dt


def parse_output(text: str) -> dict[str, dict[str, str]]:
    got: dict[str, dict[str, str]] = {}
    for block in text.split("@@KERNEL ")[1:]:
        name, rest = block.split("\n", 1)
        d: dict[str, str] = {}
        for part in re.split(r"\n@@", "\n" + rest)[1:]:
            key, _, val = part.partition(" ") if not part.startswith("MMA") else ("MMA", "", part[4:])
            key = key.strip()
            d[key] = d[key] + "\n" + val.strip() if key in d else val.strip()  # @@TMA: one line per operand
        got[name] = d
    return got


_PTR = re.compile(r"Sw<(\d+),(\d+),(\d+)> o \w*_ptr\[(\d+)b\]\(unset\)")


def _element_swizzle(m: re.Match) -> str:
    """CuTe prints a swizzle composed with ``smem_ptr_flag_bits<b>`` in bytes (the GMMA atoms are defined on bits
    and upcast); on ``b``-bit elements ``Sw<B,M,S>`` is ``Sw<B, M - log2(b/8), S>``."""
    b, mm, s, bits = (int(x) for x in m.groups())
    return f"Sw<{b},{mm - max(0, (bits // 8).bit_length() - 1)},{s}> o 0"


def cute_layout(text: str) -> Any:
    from layoutcheck.importers.cute import from_cute

    return from_cute(_PTR.sub(_element_swizzle, text)).layout


def _flat(t: Any) -> list[int]:
    return [y for x in t for y in _flat(x)] if isinstance(t, tuple) else [int(t)]


def offsets(x: Any) -> Any:
    """Every value of a (swizzled) layout at its colexicographic indices, as a NumPy array."""
    import numpy as np

    from layoutcheck.models.canonical import split

    sw, off, lay = split(x)
    shape, stride = _flat(lay.shape), _flat(lay.stride)
    idx = np.arange(int(np.prod(shape)), dtype=np.int64)
    out = np.zeros_like(idx)
    for s, d in zip(shape, stride, strict=True):
        out += (idx % s) * d
        idx //= s
    out += off
    if sw.bits:
        if sw.shift >= 0:
            out ^= (out & (((1 << sw.bits) - 1) << (sw.base + sw.shift))) >> sw.shift
        else:
            out ^= (out & (((1 << sw.bits) - 1) << sw.base)) << -sw.shift
    return out


def same_function(a: Any, b: Any, n: int | None = None) -> str | None:
    """None when ``a(i) == b(i)`` for every colexicographic index (the first ``n`` if given), else the first index."""
    import numpy as np

    va, vb = offsets(a), offsets(b)
    if n is None and len(va) != len(vb):
        return f"sizes differ ({len(va)} vs {len(vb)})"
    count = n if n is not None else len(va)
    diff = np.nonzero(va[:count] != vb[:count])[0]
    if len(diff):
        i = int(diff[0])
        return f"index {i}: CUTLASS {int(va[i])}, restated {int(vb[i])}"
    return None


def spec_layout(check: Any) -> Any:
    from layoutcheck.spec.values import _layout_text

    keys = dict(check.keys)
    text = (keys.get("layout") or keys.get("smem_layout")).strip('"')
    return _layout_text(text)


TMA_SWIZZLE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}  # CUtensorMapSwizzle


def compare_tma(m: Any, lines: list[str]) -> list[str]:
    """The boxes ``make_tma_copy`` encoded for A and B (SM90 mainloop) against the restated TMA checks: the swizzle,
    the contiguous extent (one swizzle atom), and for a K-major operand the rows, split among the CTAs a multicast
    serves (cluster N for A, cluster M for B: the restated box is the whole CTA tile, see generate.py)."""
    bad = []
    tmas = [c for c in m.checks if c.kind == "tma" and not c.name.startswith(("sm90_D", "sm90_C"))]
    mcast = (m.kernel.cluster[1], m.kernel.cluster[0])
    for op, line, ours, split in zip("AB", lines, tmas, mcast, strict=False):
        box = [int(x) for x in re.search(r"box=([\d,]+)", line).group(1).split(",")]
        sw = int(re.search(r"swizzle=(\d+)", line).group(1))
        keys = dict(ours.keys)
        want = json.loads(keys["box"])
        want_sw = TMA_SWIZZLE[keys["swizzle"].strip('"')]
        major = "K" if keys["modes"] == "[1, 0]" else "MN"
        rows_ok = box[1] * split == want[1] if major == "K" else True
        if sw != want_sw or box[0] != want[0] or not rows_ok:
            bad.append(f"{op} TMA ({major}-major): CUTLASS box {box} swizzle {sw}, restated box {want} swizzle "
                       f"{want_sw} (multicast over {split})")
    return bad


def compare(m: Any, got: dict[str, str]) -> list[str]:
    """The disagreements between what the builder printed and the restated checks of the same kernel."""
    from layoutcheck.algebra.layout import size
    from layoutcheck.algebra.swizzle import inner

    k = m.kernel
    if k.arch == "SM80":
        return compare80(m, got)
    bad = []
    by_role = {}
    for c in m.checks:
        if k.arch == "SM90" and c.kind == "layout" and c.name.endswith("_smem") and c.name.startswith("sm90_"):
            by_role.setdefault("AB", []).append(c)
        if k.arch == "SM100" and c.kind == "umma_smem":
            by_role.setdefault("AB", []).append(c)
        if c.name.startswith(("sm90_D", "sm90_C")) and c.name.endswith("_smem"):
            by_role["D" if c.name.startswith("sm90_D") else "C"] = [c]
    for op, ours in zip("AB", by_role.get("AB", []), strict=False):
        theirs = cute_layout(got[op])
        mine = spec_layout(ours)
        n = size(inner(mine).shape)
        if k.arch == "SM90" and size(inner(theirs).shape) != n:
            bad.append(f"{op} smem: CUTLASS has {size(inner(theirs).shape)} elements (stages {got['STAGES']}), "
                       f"restated {n}")
            continue
        diff = same_function(theirs, mine, n)
        if diff:
            bad.append(f"{op} smem layout: {diff}")
    if k.arch == "SM90":
        if m.facts.get("stages") != got["STAGES"]:
            bad.append(f"stages: CUTLASS {got['STAGES']}, restated {m.facts.get('stages')}")
        wg = 2 if m.facts["schedule"] == "cooperative" else 1
        mma = next(c for c in m.checks if c.kind == "tiled_mma")
        atom = dict(mma.keys)["atom"].strip('"')
        shape = re.search(r"Shape_MNK:\s*\((\S+?),(\S+?),(\S+?)\)", got["MMA"])
        thr = re.search(r"ThrLayoutVMNK:\s*\(_128,_(\d+),", got["MMA"])
        an = int(shape.group(2).strip("_")) if shape else -1
        if f"64x{an}x" not in atom or not thr or int(thr.group(1)) != wg:
            theirs = (shape.groups() if shape else None, thr.group(1) if thr else None)
            bad.append(f"tiled MMA: CUTLASS Shape_MNK {theirs[0]} x {theirs[1]} warpgroups, restated {atom} x {wg}")
        if "TMA" in got:
            bad += compare_tma(m, got["TMA"].splitlines())
        mc = (k.cluster[1] > 1, k.cluster[0] > 1)
        if (got["MCAST_A"] == "1", got["MCAST_B"] == "1") != mc:
            bad.append(f"TMA atoms: CUTLASS multicast A/B {got['MCAST_A']}/{got['MCAST_B']}, restated {mc}")
        epi = m.facts.get("epilogue", "")
        if ("D" in got) != epi.startswith("tma"):
            bad.append(f"epilogue: CUTLASS {'has' if 'D' in got else 'has no'} smem D, restated {epi}")
        elif "D" in got:
            e = re.findall(r"_(\d+)", got["EPI"])
            if f"{e[0]}x{e[1]}" != epi.split()[1]:
                bad.append(f"epilogue tile: CUTLASS {e[:2]}, restated {epi}")
            for role in ("D", "C"):
                if role in got and role in by_role:
                    mine = spec_layout(by_role[role][0])
                    diff = same_function(cute_layout(got[role]), mine, size(inner(mine).shape))
                    if diff:
                        bad.append(f"epilogue {role} smem: {diff}")
                elif role in got or role in by_role:
                    bad.append(f"epilogue {role}: CUTLASS {'has' if role in got else 'lacks'} it")
    else:
        shape = re.search(r"Shape_MNK:\s*\((\S+?),(\S+?),(\S+?)\)", got["MMA"])
        want = m.facts["mma"].split("x")[:2]
        if not shape or [shape.group(1).strip("_"), shape.group(2).strip("_")] != want:
            bad.append(f"MMA shape: CUTLASS {shape.groups() if shape else None}, restated {want}")
    return bad


def formula_offsets(text: str, mn: int, k: int, stages: int) -> Any:
    """The index formula of a corpus ``layout = { formula = ..., coords = ... }`` at every (mn, k, s), colexicographic,
    read by layoutcheck's own formula parser."""
    import numpy as np

    from layoutcheck.spec.values import _formula

    formula = re.search(r'formula = "([^"]+)"', text).group(1)
    f = _formula({"formula": formula, "coords": {"mn": mn, "k": k, "s": stages}}, "layout")
    s_, k_, m_ = np.meshgrid(np.arange(stages), np.arange(k), np.arange(mn), indexing="ij")
    from layoutcheck.expr.numpy import evaluate

    return np.asarray(evaluate(f.expr, {"mn": m_.ravel(), "k": k_.ravel(), "s": s_.ravel()}), dtype=np.int64)


def compare80(m: Any, got: dict[str, str]) -> list[str]:
    """SM80: tile, warp tile and stages, and each operand's first-stage smem offsets (CUTLASS 2.x's TensorOp
    multiplicand layout, evaluated at every (row, k) of the tile) against the restated CuTe layout."""
    bad = []
    tm, tn, tk = m.kernel.tile
    wm, wn, _ = m.kernel.warps
    shape = [int(x) for x in got["SHAPE"].split()]
    warp = [int(x) for x in got["WARP"].split()]
    if shape != [tm, tn, tk] or warp[:2] != [tm // wm, tn // wn]:
        bad.append(f"tile {shape} warp {warp}: restated {m.kernel.tile} with {wm}x{wn} warps")
    if got["STAGES"] != m.facts.get("stages"):
        bad.append(f"stages: CUTLASS {got['STAGES']}, restated {m.facts.get('stages')}")
    smem = [c for c in m.checks if c.name.startswith("sm80x_")]
    stages = int(got["STAGES"])
    for op, ours, mn in zip("AB", smem, (tm, tn), strict=True):
        import numpy as np

        theirs = np.array([int(x) for x in got[op].split()], dtype=np.int64)
        mine = formula_offsets(dict(ours.keys)["layout"], mn, tk, stages)[: mn * tk]
        # the formula's (mn, k, s) colexicographic: index mn + MN*k for stage 0; the printout walks k outer, mn inner
        diffs = np.nonzero(mine != theirs)[0]
        if len(diffs):
            i = int(diffs[0])
            bad.append(f"{op} smem ({ours.name}): {len(diffs)} of {mn * tk} offsets differ, first at "
                       f"(mn={i % mn}, k={i // mn}): CUTLASS {theirs[i]}, restated {mine[i]}")
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-arch", type=int, default=200)
    ap.add_argument("--batch", type=int, default=20)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--arch", action="append", choices=["SM80", "SM90", "SM100"])
    ap.add_argument("--out", default=os.path.join(ROOT, "corpus", "builder_validation.json"),
                    help="the JSON report (architectures not run this time are kept from it)")
    args = ap.parse_args(argv)
    _, cg = _generate_module()
    report: dict[str, Any] = {"archs": {}}
    t_all = time.time()
    with tempfile.TemporaryDirectory() as work:
        for arch in args.arch or ["SM80", "SM90", "SM100"]:
            ops = {op.procedural_name(): op for op in cg.generator_operations(arch)}
            mapped = list(cg.map_kernels([cg._kernel(arch, op) for op in ops.values()]))
            picked = sample(mapped, args.per_arch)
            batches = [picked[i:i + args.batch] for i in range(0, len(picked), args.batch)]
            jobs = [(translation_unit([ops[m.kernel.name] for m in b]), f"{arch}_{i}") for i, b in enumerate(batches)]
            with ThreadPoolExecutor(args.j) as ex:
                results = list(ex.map(lambda j: compile_and_run(j[0], work, j[1]), jobs))
            agree, disagree, failed = 0, {}, {}
            seconds = 0.0
            for b, (out, err, dt) in zip(batches, results, strict=True):
                seconds += dt
                got = parse_output(out)
                for m in b:
                    if m.kernel.name not in got:
                        errs = [ln for ln in err.splitlines() if "error" in ln][:2] or err.strip().splitlines()[-1:]
                        failed[m.kernel.name] = errs or ["no output"]
                        continue
                    try:
                        bad = compare(m, got[m.kernel.name])
                    except Exception as e:  # a printout we cannot read is a failure, never an agreement
                        bad = [f"unreadable: {type(e).__name__}: {e}"]
                    if bad:
                        disagree[m.kernel.name] = bad
                    else:
                        agree += 1
            report["archs"][arch] = {"sampled": len(picked), "agree": agree, "disagree": len(disagree),
                                     "failed_to_build": len(failed), "compile_s": round(seconds, 1),
                                     "translation_units": len(jobs), "disagreements": disagree,
                                     "failures": failed}
            print(arch, {k: v for k, v in report["archs"][arch].items() if not isinstance(v, dict)}, flush=True)
    report["wall_s"] = round(time.time() - t_all, 1)
    path = args.out
    if os.path.exists(path):  # keep the architectures not run this time
        with open(path) as f:
            old = json.load(f)
        report["archs"] = {**old.get("archs", {}), **report["archs"]}
        report["wall_s"] = {**(old["wall_s"] if isinstance(old.get("wall_s"), dict) else {}),
                            ",".join(args.arch or ["SM80", "SM90", "SM100"]): report["wall_s"]}
    with open(path, "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
