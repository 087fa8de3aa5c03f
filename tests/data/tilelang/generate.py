"""Regenerate the TileLang printouts in this folder: real ``repr`` output of TileLang ``Layout`` / ``Fragment`` objects.

Provenance: ``python3 tests/data/tilelang/generate.py`` in a virtual environment with ``pip install tilelang`` (and a
CPU build of torch, which ``import tilelang`` loads); no GPU is needed. The TileLang version and this command are
written into each file's header. Two files:

- ``layouts.txt``: the layout constructors of ``tilelang.layout`` (swizzles of every width, wgmma / tcgen05 / Volta
  swizzles, the linear and padded layouts, ``make_mma_swizzle_layout``) and hand-built ``T.Layout`` / ``T.Fragment``
  objects (with replication, ``repeat``, xor), one printout per record, each with TileLang's own CuTe form
  (``tilelang.layout.cute``: ``Layout.from_tilelang`` / ``ComposedLayout.from_tilelang``) where it gives one.
- ``gemm_layout_map.txt``: the ``layout_map`` that TileLang's ``LayoutInference`` pass attaches to real GEMM kernels
  (``T.gemm`` of f16/f32 tiles for sm_80 and sm_90), read from the lowered TIR's block annotations.
- ``*.tir``: the lowered TIR itself after ``LayoutInference`` (``mod.script(show_meta=True)``): the ``layout_map``
  block attributes reference ``metadata["tl.Layout"][k]``, whose fields are in the TVM JSON at the top. Kernels: the
  sm_80 f16 GEMM, the sm_90 f16 GEMM, and a copy kernel with ``T.annotate_layout`` of
  ``make_mma_swizzle_layout`` (a ``T.bitwise_xor`` call) and of a hand-built ``T.Fragment``.

Each record is ``# name: <what built it>`` [``# cute: <TileLang's CuTe form>``] [``# inverse: <repr of
Fragment.inverse()>``, TileLang's own ``(register..., thread) -> (i, j, ..., rep)`` map] then the printout on one
line.
This script is never imported by the tests (TileLang is a test-only oracle).
"""

from __future__ import annotations

import sys
from pathlib import Path

import tilelang
import tilelang.layout as L
import tvm
from tilelang import language as T
from tilelang.cuda.intrinsics.layout.mma_layout import make_mma_swizzle_layout
from tilelang.layout import cute
from tvm import tirx
from tvm.target import Target

HERE = Path(__file__).parent
HEADER = (f"# TileLang {tilelang.__version__}: real printouts (repr) of tilelang.layout objects, written by\n"
          f"# `python3 tests/data/tilelang/generate.py` (pip install tilelang; CPU only). Do not edit by hand.\n")


def cute_form(lay) -> str | None:
    """TileLang's own CuTe form of a layout, in elements (``ComposedLayout.from_tilelang`` without a buffer)."""
    try:
        plain = cute.Layout.from_tilelang(lay)
        if plain is not None:
            return str(plain)
        comp = cute.ComposedLayout.from_tilelang(lay)  # without a buffer: in elements, not bytes
        if comp is not None:
            return str(comp)
    except Exception as e:
        return f"(error: {type(e).__name__})"
    return None


def layouts() -> list[tuple[str, object, object]]:
    out = []
    for dtype in ("float16", "int8", "float32"):
        for shape in ((64, 64), (128, 32), (32, 128)):
            buf = tirx.decl_buffer(shape, dtype, scope="shared")
            tag = f"{dtype} {shape[0]}x{shape[1]}"
            for name in ("make_swizzled_layout", "make_full_bank_swizzled_layout", "make_half_bank_swizzled_layout",
                         "make_quarter_bank_swizzled_layout", "make_wgmma_swizzled_layout",
                         "make_tcgen05mma_swizzled_layout", "make_linear_layout"):
                try:
                    out.append((f"{name}({tag})", getattr(L, name)(buf), buf))
                except Exception as e:
                    print(f"skip {name}({tag}): {type(e).__name__}: {e}", file=sys.stderr)
            out.append((f"make_mma_swizzle_layout({tag})", make_mma_swizzle_layout(buf), buf))
    buf = tirx.decl_buffer((64, 64), "float16", scope="shared")
    out.append(("make_wgmma_swizzled_layout(float16 64x64, k_major=False)",
                L.make_wgmma_swizzled_layout(buf, k_major=False), buf))
    out.append(("make_volta_swizzled_layout(float16 64x64)", L.make_volta_swizzled_layout(buf), buf))
    out.append(("make_swizzled_layout(float16 48x64) (6 swizzle atoms: not a power of two)",
                L.make_swizzled_layout(tirx.decl_buffer((48, 64), "float16", scope="shared")), None))
    out.append(("make_swizzled_layout(float16 128x72) (padded)",
                L.make_swizzled_layout(tirx.decl_buffer((128, 72), "float16", scope="shared")), None))
    out.append(("T.Layout([8, 8], lambda i, j: [i, j ^ i])", L.Layout([8, 8], lambda i, j: [i, j ^ i]), None))
    out.append(("T.Layout([16, 8], lambda i, j: [(i << 3) | (j & 7)])",
                L.Layout([16, 8], lambda i, j: [(i << 3) | (j & 7)]), None))
    out.append(("T.Layout([4, 6], lambda i, j: [j, i]) (transpose, not a power of two)",
                L.Layout([4, 6], lambda i, j: [j, i]), None))
    out.append(("T.Layout([8, 8], lambda i, j: [i // 2, j]) (not injective)",
                L.Layout([8, 8], lambda i, j: [i // 2, j]), None))
    out.append(("make_gemm_fragment_8x8()", L.make_gemm_fragment_8x8(), None))
    out.append(("make_gemm_fragment_8x8_transposed()", L.make_gemm_fragment_8x8_transposed(), None))
    out.append(("make_gemm_fragment_8x8().repeat([2, 2], False)", L.make_gemm_fragment_8x8().repeat([2, 2], False),
                None))
    out.append(("make_gemm_fragment_8x8().repeat([4, 1], True)", L.make_gemm_fragment_8x8().repeat([4, 1], True),
                None))
    f = L.Fragment([16, 16], forward_thread_fn=lambda i, j, rep: (i % 8) * 4 + j // 4 + rep * 32,
                   forward_index_fn=lambda i, j: j % 4 + (i // 8) * 4, replicate=2)
    out.append(("T.Fragment([16, 16], thread=rep*32 + i%8*4 + j//4, index=i//8*4 + j%4, replicate=2)", f, None))
    out.append(("... .replicate(2)", f.replicate(2), None))
    out.append(("... .repeat([2, 1], True)", f.repeat([2, 1], True), None))
    out.append(("T.Fragment([16, 16], thread=i%8*4 + j//4, index=i//8*4 + j%4) (2 elements per slot: broken)",
                L.Fragment([16, 16], forward_thread_fn=lambda i, j: (i % 8) * 4 + j // 4,
                           forward_index_fn=lambda i, j: j % 4 + (i // 16) * 4), None))
    out.append(("make_fully_replicated_layout_fragment((4,), 128)", L.make_fully_replicated_layout_fragment(
        tirx.decl_buffer((4,), "float32", scope="local.fragment"), 128), None))
    return out


def matmul(M, N, K, bm, bn, bk, dtype, acc, threads):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), acc)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=threads) as (bx, by):
            A_s = T.alloc_shared((bm, bk), dtype)
            B_s = T.alloc_shared((bk, bn), dtype)
            C_l = T.alloc_fragment((bm, bn), acc)
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=2):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * bm, bx * bn])
    return main


def lowered(func, arch: str):
    """The module after TileLang's passes up to LayoutInference (``tilelang/cuda/pipeline.py``'s prologue)."""
    target = Target({"kind": "cuda", "arch": arch})
    mod = tvm.IRModule({"main": func})
    with tvm.transform.PassContext(), target:
        mod = tirx.transform.BindTarget(target)(mod)
        for p in (tilelang.transform.MaterializeKernelLaunch(lower_thread_binding=True, default_threads=128),
                  tilelang.transform.AddWrapperForSingleBufStore(), tilelang.transform.LegalizeNegativeIndex(),
                  tilelang.transform.InjectAssumes(), tilelang.transform.Simplify(),
                  tilelang.transform.IfStmtBinding(), tilelang.transform.PipelinePlanning(),
                  tilelang.transform.InjectSoftwarePipeline(), tilelang.transform.Simplify(),
                  tilelang.transform.LayoutInference()):
            mod = p(mod)
    return mod


def layout_map(func, arch: str) -> dict[str, object]:
    """The layout_map of the kernel's outermost annotated block after LayoutInference."""
    mod = lowered(func, arch)
    found: dict[str, object] = {}

    def visit(node):
        ann = getattr(node, "annotations", None)
        if ann is not None and "layout_map" in ann:
            for buf, lay in ann["layout_map"].items():
                found.setdefault(f"{buf.name} {list(map(int, buf.shape))} {buf.dtype} {buf.scope()}", lay)

    tirx.stmt_functor.post_order_visit(mod["main"].body, visit)
    return found


def gemms() -> list[tuple[str, object, object]]:
    out = []
    for arch in ("sm_80", "sm_90"):
        for (bm, bn, bk, dtype, acc, threads) in ((64, 64, 32, "float16", "float32", 128),
                                                  (128, 128, 32, "float16", "float32", 256),
                                                  (64, 128, 64, "float16", "float16", 128),
                                                  (64, 64, 32, "float32", "float32", 128),
                                                  (64, 64, 64, "int8", "int32", 128)):
            name = f"{arch} gemm {bm}x{bn}x{bk} {dtype}->{acc} {threads} threads"
            try:
                got = layout_map(matmul(1024, 1024, 1024, bm, bn, bk, dtype, acc, threads), arch)
            except Exception as e:
                print(f"skip {name}: {type(e).__name__}: {str(e)[:200]}", file=sys.stderr)
                continue
            for buf, lay in got.items():
                out.append((f"{name}: {buf}", lay, None))
    return out


def annotated(M, N, dtype):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((M, N), dtype)
            B_l = T.alloc_fragment((M, N), dtype)
            T.annotate_layout({A_s: make_mma_swizzle_layout(A_s),
                               B_l: L.Fragment((M, N), forward_thread_fn=lambda i, j: (i % 32) * 4 + j // (N // 4),
                                               forward_index_fn=lambda i, j: (i // 32) * (N // 4) + j % (N // 4))})
            T.copy(A[0, bx], A_s)
            T.copy(A_s, B_l)
            T.copy(B_l, B[0, bx])
    return main


def tir_files() -> None:
    for name, func, arch in (("gemm_sm80_f16", matmul(1024, 1024, 1024, 64, 64, 32, "float16", "float32", 128),
                              "sm_80"),
                             ("gemm_sm90_f16", matmul(1024, 1024, 1024, 128, 128, 64, "float16", "float32", 256),
                              "sm_90"),
                             ("annotate_layout_sm80", annotated(64, 64, "float16"), "sm_80")):
        text = lowered(func, arch).script(show_meta=True)
        (HERE / f"{name}.tir").write_text(HEADER + f"# lowered TIR of {name} after LayoutInference ({arch})\n" + text)
        print(f"{name}.tir: {len(text)} characters")


def write(path: Path, records) -> None:
    lines = [HEADER]
    for name, lay, _buf in records:
        lines.append(f"# name: {name}")
        form = cute_form(lay)
        if form is not None:
            lines.append(f"# cute: {form}")
        if isinstance(lay, L.Fragment):
            try:
                lines.append(f"# inverse: {lay.inverse()!r}")
            except Exception as e:
                lines.append(f"# inverse: (error: {type(e).__name__})")
        lines.append(repr(lay))
        lines.append("")
    path.write_text("\n".join(lines))
    print(f"{path}: {len(records)} printouts")


if __name__ == "__main__":
    write(HERE / "layouts.txt", layouts())
    write(HERE / "gemm_layout_map.txt", gemms())
    tir_files()
