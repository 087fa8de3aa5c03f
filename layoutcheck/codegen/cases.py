"""The GPU checks as data: each ``KernelCase`` is a generated CUDA source, its launch shape, inputs and an oracle.

Every index in a kernel is printed by ``layoutcheck.codegen.render`` from a layout (``layoutcheck.expr.ir``);
every oracle evaluates the same layouts with ``Layout.offsets()`` (NumPy) -- two independent paths from one
layout value.

Cases (``layoutcheck.codegen.bundle.bundled_cases()`` collects them):

* ``ownership``: each thread writes its id ``t + T*v`` into every element of its TV map and counts writes with an
  atomic; compared with the oracle's owner and count maps (a missed element has count 0, a doubly owned one 2).
  Plain TV layouts (``make_layout_tv``), tiled-MMA C partitions, and a tiled 8192x8192 map (tile per CTA).
* ``simt_gemm``: the step-1 SIMT GEMM of seeds 000/004 (128x128 tile, 256 threads, ``UniversalFMA``, atoms 16x16,
  permutation ``(16,4):(4,1)`` per mode), C vs NumPy.
* ``mma_gemm``: ``mma.sync.m16n8k16`` f16 -> f32 tile GEMM, operands in swizzled shared memory (each K-major GMMA
  swizzle atom of ``hw.smem``), read with ``ldmatrix.x4``; C vs NumPy.
* ``mma_fragments``: the lane/register holding each A, B and C element of ``m16n8k16``, vs the atom's TV layouts.
* ``permute_transpose``: the warp ``permute_layout`` of seed 002 (4x32 fp32, 2 stages, XOR k = 2).
* ``tma_mma_gemm``: ``mma_gemm`` with its operands loaded by TMA boxes (``tma_kernels``): the ``tma_compatible`` proof
  checked end to end.

Inputs are small integers, so every product and sum is exact in fp16/fp32 and "mismatch" means a wrong element.
``mma_gemm`` and ``tma_mma_gemm`` share their ldmatrix / ``mma.sync`` / C-store part: one set of expressions
(``mma_tile_exprs``) printed into one fragment (``kernels/mma_sync_tile.cuh``, inlined by ``codegen``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from layoutcheck.algebra.layout import Layout, make_layout, size
from layoutcheck.algebra.ops import composition, right_inverse
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.algebra.tiling import tile_to_shape, zipped_divide
from layoutcheck.algebra.tv import make_layout_tv
from layoutcheck.codegen.render import render_template
from layoutcheck.errors import LayoutError
from layoutcheck.expr.c import c_expr
from layoutcheck.expr.ir import Expr, add, band, const, div, mod, mul, shr, var, xor
from layoutcheck.expr.lower import index_ast
from layoutcheck.hw.copy import row_providers
from layoutcheck.hw.mma import mma_atom
from layoutcheck.hw.smem import gmma_smem_atom
from layoutcheck.models.tiled_mma import TiledMMA, make_tiled_mma

# ldmatrix row providers (which lane addresses which row, which thread/register receives it) are hardware facts of
# the copy atoms: ``hw.copy.row_providers`` derives them from the atoms' TV layouts (PTX ISA 9.7.14.5.15 "ldmatrix").
LDSM_X4 = "SM75_U32x4_LDSM_N"  # A of m16n8k16, and B of two neighbouring n-atoms
LDSM_X2 = "SM75_U32x2_LDSM_N"  # B of one m16n8k16 atom
MMA_F16 = "SM80_16x8x16_F32F16F16F32_TN"


@dataclass(frozen=True, slots=True, eq=False)
class KernelCase:
    """One generated kernel and how to check it. ``run`` inputs come from ``inputs(xp)``; ``compare`` returns
    ``(elements checked, mismatches, note)`` given the output arrays (``xp`` is NumPy or CuPy)."""

    kernel: str  # template family
    config: str  # human-readable configuration
    name: str  # C entry point (unique)
    source: str
    grid: int
    block: int
    inputs: Callable[[Any], list[Any]] = field(repr=False)
    outputs: tuple[int, ...] = ()  # indices into inputs() that the kernel writes
    compare: Callable[[list[Any], Any], tuple[int, int, str]] = field(repr=False, default=None)  # type: ignore[assignment]
    # (slot argument, source argument, TmaBox): the runner writes into the 128-byte device slot the CUtensorMap of
    # the box over the source array (it needs the array's device address, so it is encoded at run time)
    tensor_maps: tuple[tuple[int, int, Any], ...] = ()
    arch: str = "sm_90"  # the -arch the source needs (wgmma: sm_90a)
    compare_source: str = ""  # the fused compare kernel run by ``compare`` on the GPU ("" = compared on the host)
    include_dirs: tuple[str, ...] = ()  # -I folders: non-empty means the source includes headers (compiled by nvcc)


def _ident(s: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in s).strip("_")


def _to_np(x: Any) -> np.ndarray:
    return x.get() if hasattr(x, "get") else np.asarray(x)


# -- ownership ---------------------------------------------------------------------------------------------------------
def _ownership_case(config: str, tv: Layout, tile: tuple[int, int], tensor: Layout | None = None) -> KernelCase:
    """``tv``: (thread, value) -> colex index in a ``tile``; ``tensor`` (rank 2, default the tile, colex) is cut into
    tiles, one CTA each: element offset = tensor tile-mode(tv(t, v)) + tensor rest-mode(b)."""
    tensor = tensor if tensor is not None else Layout(tile)
    z = zipped_divide(tensor, (Layout(tile[0]), Layout(tile[1])))
    inner, outer = z[0], z[1]
    T, V, nb = size(tv[0]), size(tv[1]), size(outer)
    off = add(index_ast(inner, index_ast(tv, ("t", "v"))), index_ast(outer, var("b", nb)))
    name = f"ownership_{_ident(config)}"
    src = render_template("ownership", {"KERNEL": name, "THREADS": T, "VALUES": V, "OFFSET": c_expr(off),
                                        "DESCRIPTION": f"{config}: TV {tv} over tile {tile}, tensor {tensor}"})
    n = size(tensor)
    fused = _fused_compare_source(name, make_layout(composition(inner, tv), outer), T * V, config)
    kernel: list[Any] = []  # the compiled fused compare and its mismatch counter, built on first use

    def inputs(xp: Any) -> list[Any]:
        return [xp.zeros(n, dtype=xp.uint32), xp.zeros(n, dtype=xp.uint32)]

    def compare(out: list[Any], xp: Any) -> tuple[int, int, str]:
        if fused and hasattr(xp, "RawKernel"):  # on the GPU: one pass against the inverse layout, no host oracle
            if not kernel:
                kernel.extend([xp.RawKernel(fused, f"{name}_compare", options=("-std=c++17",)),
                               xp.zeros(2, dtype=xp.uint32), MappedWord(xp), compare_grid(xp)])
            fn, state, result, grid = kernel
            fn((grid,), (COMPARE_BLOCK,), (out[0], out[1], np.uint32(n), state, result.device_pointer))
            if result.read_after(xp.cuda.get_current_stream()) == 0:
                return n, 0, "fused one-pass compare vs the inverse layout"
        return reference(out, xp)  # on the host, or to describe a mismatch

    def reference(out: list[Any], xp: Any) -> tuple[int, int, str]:
        tile_off = xp.asarray(inner.offsets()[tv.offsets()])  # (t,v) colex -> offset within the tensor
        full = (outer.offsets(xp=xp)[:, None] + tile_off[None, :]).reshape(-1)
        ids = xp.tile(xp.arange(T * V, dtype=xp.uint32), nb)
        exp_owner = xp.zeros(n, dtype=xp.uint32)
        exp_owner[full] = ids
        exp_count = xp.bincount(full, minlength=n).astype(xp.uint32)
        bad = (out[0] != exp_owner) | (out[1] != exp_count)
        missed = int((out[1] == 0).sum())
        multi = int((out[1] > 1).sum())
        return n, int(bad.sum()), f"missed {missed}, multiply owned {multi}"

    return KernelCase("ownership", config, name, src, nb, T, inputs, (0, 1), compare, compare_source=fused)


class MappedWord:
    """One 32-bit word of page-locked host memory the GPU writes directly (``cudaHostAllocMapped``): a kernel's
    result read back with a stream synchronisation instead of a device-to-host copy. ``xp`` is CuPy."""

    def __init__(self, xp: Any) -> None:
        import ctypes

        rt = xp.cuda.runtime
        self._rt = rt
        self._host = rt.hostAlloc(4, rt.hostAllocMapped)
        self._word = ctypes.c_uint32.from_address(self._host)
        self._word.value = 0
        # under unified addressing the device sees mapped host memory at an address the runtime reports
        self.device_pointer = np.uint64(rt.pointerGetAttributes(self._host).devicePointer)

    def read_after(self, stream: Any) -> int:
        """The word once every kernel queued on ``stream`` so far has finished."""
        stream.synchronize()
        return int(self._word.value)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # interpreter shutdown: the runtime may be gone already
            self._rt.freeHost(self._host)


COMPARE_BLOCK = 256
"""Threads per CTA of the fused compare (its ``__launch_bounds__``)."""


def compare_grid(xp: Any) -> int:
    """CTAs of the fused compare: one grid-stride wave, as many as the device keeps resident at once (every SM full,
    no second wave finishing alone); ``xp`` is CuPy."""
    props = xp.cuda.runtime.getDeviceProperties(xp.cuda.runtime.getDevice())
    return props["multiProcessorCount"] * max(1, props.get("maxThreadsPerMultiProcessor", 2048) // COMPARE_BLOCK)


def _fused_compare_source(name: str, forward: Layout, ids: int, config: str) -> str:
    """The one-pass compare kernel of an ownership map whose writes follow ``forward``: ``(t, v, b) -> offset``.

    Its oracle is ``right_inverse(forward)``, printed as C by the same renderer; ``""`` (compare on the host) unless
    that is a full inverse -- ``size(G) == size(forward)`` with ``forward(G(e)) == e`` (``right_inverse``'s Post) makes
    ``forward`` a bijection onto ``[0, size)`` and ``G`` its inverse -- and the size fits 32-bit indices.
    """
    n = size(forward)
    inv = right_inverse(forward)
    if size(inv) != n or n >= 1 << 32:
        return ""
    return render_template("ownership_compare", {"KERNEL": f"{name}_compare", "OWNER_KERNEL": name, "IDS": ids,
                                                  "INVERSE": c_expr(index_ast(inv, var("e", n))),
                                                  "DESCRIPTION": config})


def tiled_c_tv(tiled: TiledMMA, shape: tuple[int, int]) -> Layout:
    """(thread index, value) -> colex index in an ``shape`` C tensor: ``TiledMMA.tv_layout("C", ...)``, over every
    thread (values ordered as ``partition_C``; a ``ThrK > 1`` thread writes the C elements of the thread it differs
    from only in k, so a split-K C map has every element owned ``ThrK`` times)."""
    return tiled.tv_layout("C", Layout(shape))


def seed_simt_tiled_mma() -> TiledMMA:
    """Seeds 000/004: UniversalFMA, atom layout 16x16 (CuTe column-major: m = t % 16), permutation (16,4):(4,1)."""
    perm = Layout((16, 4), (4, 1))
    return make_tiled_mma("UniversalFMA", (16, 16, 1), (perm, perm, None))


def ownership_cases() -> list[KernelCase]:
    cases = []
    for thr, val in [(Layout((4, 8), (8, 1)), Layout((2, 4), (4, 1))), (Layout((32, 8)), Layout((4, 1))),
                     (Layout((16, 16), (16, 1)), Layout((2, 2)))]:
        tiler, tv = make_layout_tv(thr, val)
        cases.append(_ownership_case(f"make_layout_tv {thr} {val}", tv, tiler))
    simt = seed_simt_tiled_mma()
    cases.append(_ownership_case("tiled_mma UniversalFMA 16x16 perm (16,4):(4,1) C 128x128",
                                 tiled_c_tv(simt, (128, 128)), (128, 128)))
    tc = make_tiled_mma(MMA_F16, (2, 2, 1), (64, 64, 16))
    cases.append(_ownership_case("tiled_mma m16n8k16 (2,2,1) (64,64,16) C", tc.tv_layout_C, (64, 64)))
    return cases


def big_ownership_case(n: int = 8192) -> KernelCase:
    """The tiled m16n8k16 (2,2,1) C map over a row-major ``n x n`` tensor, one 64x64 tile per CTA."""
    tc = make_tiled_mma(MMA_F16, (2, 2, 1), (64, 64, 16))
    return _ownership_case(f"tiled_mma m16n8k16 C {n}x{n} row-major", tc.tv_layout_C, (64, 64),
                           Layout((n, n), (n, 1)))


# -- GEMM oracles ------------------------------------------------------------------------------------------------------
def small_int_operands(seed: int, M: int, N: int, K: int, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """``A`` (M x K) and ``B`` (N x K) of integers in [-3, 3]: every product and sum of a tile GEMM is exact in fp32."""
    rng = np.random.default_rng(seed)
    return rng.integers(-3, 4, (M, K)).astype(dtype), rng.integers(-3, 4, (N, K)).astype(dtype)


def gemm_check(A: np.ndarray, B: np.ndarray) -> tuple[Callable[[Any], list[Any]], Callable[..., tuple[int, int, str]]]:
    """``inputs``: ``[A, B, C]`` with C (M x N fp32) NaN-filled; ``compare``: C element by element vs ``A @ B.T``."""
    M, N = A.shape[0], B.shape[0]
    ref = A.astype(np.float32) @ B.astype(np.float32).T

    def inputs(xp: Any) -> list[Any]:
        return [xp.asarray(A), xp.asarray(B), xp.full((M, N), np.nan, dtype=xp.float32)]

    def compare(out: list[Any], xp: Any) -> tuple[int, int, str]:
        return M * N, int((_to_np(out[0]) != ref).sum()), "exact (small integers)"

    return inputs, compare


# -- SIMT GEMM ---------------------------------------------------------------------------------------------------------
def simt_gemm_case(M: int = 128, N: int = 128, K: int = 64) -> KernelCase:
    tiled = seed_simt_tiled_mma()
    tv = tiled_c_tv(tiled, (M, N))
    T, V = size(tv[0]), size(tv[1])
    elem = index_ast(tv, ("t", "v"))
    m, n = mod(elem, M), div(elem, M)
    k = var("k", K)
    a_off = index_ast(Layout((M, K), (K, 1)), (m, k))
    b_off = index_ast(Layout((N, K), (K, 1)), (n, k))
    c_off = index_ast(Layout((M, N), (N, 1)), (m, n))
    config = f"UniversalFMA 16x16 perm (16,4):(4,1) {M}x{N}x{K}"
    name = "simt_gemm_seed"
    src = render_template("simt_gemm", {
        "KERNEL": name, "THREADS": T, "VALUES": V, "K": K, "TILE_M": M, "TILE_N": N,
        "A_OFFSET": c_expr(a_off), "B_OFFSET": c_expr(b_off), "C_OFFSET": c_expr(c_off),
        "DESCRIPTION": f"{tiled}; C TV {tv}"})
    inputs, compare = gemm_check(*small_int_operands(4, M, N, K, np.float32))
    return KernelCase("simt_gemm", config, name, src, 1, T, inputs, (2,), compare)


# -- tensor-core GEMM ---------------------------------------------------------------------------------------------
def smem_layout(mode: str, rows: int, cols: int) -> ComposedLayout:
    """The ``rows x cols`` fp16 K-major shared tile: ``gmma_smem_atom("K", mode, 16)`` stacked by ``tile_to_shape``."""
    atom = gmma_smem_atom("K", mode, 16)
    return ComposedLayout(atom.element_swizzle, 0, tile_to_shape(atom.layout, (rows, cols)))


def ldsm_address(copy: str, tv: Layout, s_layout: Layout | ComposedLayout, v_base: Expr | int = 0,
                 k_base: Expr | int = 0) -> Expr:
    """Element offset (in ``s_layout``) of the row that ``lane`` gives ldmatrix ``copy``, so that value ``v_base + v``
    of every thread ``t`` receives element ``tv(t, v_base + v) + k_base`` of the operand tile.

    Pre: ``tv`` numbers values as ``copy``'s register side does (the ``mma.sync`` fragments of ``hw.mma`` do: register
    ``j`` = values ``2j, 2j+1``); with more than 32 threads, ``warp`` selects the warp's threads ``32*warp + lane``.
    Post: the address lane ``l`` supplies is ``s_layout(tv(thread(l), v_base + value(l)) + k_base)``, ``thread`` and
    ``value`` the atom's ``row_providers``.
    """
    p = row_providers(copy)
    lane = var("lane", 32)
    t_src = index_ast(p.thread, lane)
    if size(tv[0]) > 32:
        t_src = add(mul(var("warp", size(tv[0]) // 32), 32), t_src)
    v_src = add(index_ast(p.value, lane), const(v_base) if isinstance(v_base, int) else v_base)
    k = const(k_base) if isinstance(k_base, int) else k_base
    return index_ast(s_layout, add(index_ast(tv, (t_src, v_src)), k))


@dataclass(frozen=True, slots=True)
class MmaTileExprs:
    """The part both GEMM tiles share (``kernels/mma_sync_tile.cuh``): ldmatrix.x4 of A and B from shared memory,
    ``mma.sync`` m16n8k16 over the (2,2,1) tiled MMA, C stored through ``tv_layout_C``; every index expression."""

    tiled: TiledMMA
    M: int
    N: int
    K: int
    rest_m: int  # A fragments (m-atoms) per thread
    rest_n: int  # B fragments (n-atoms) per thread
    ldsm_a: Expr  # element offset into sA of lane's ldmatrix row, vars warp, lane, rm, kk
    ldsm_b: Expr  # element offset into sB, vars warp, lane, p, kk (n-atoms 2p and 2p+1)
    acc: Expr  # accumulator base of (rm, rn)
    c_off: Expr  # C offset of (t, v)

    @property
    def threads(self) -> int:
        return self.tiled.size

    @property
    def c_values(self) -> int:
        return size(self.tiled.tv_layout_C[1])

    def params(self) -> dict[str, Any]:
        """The fragment's template parameters."""
        return {"C_VALUES": self.c_values, "K_TILES": self.K // 16, "REST_M": self.rest_m, "REST_N": self.rest_n,
                "LDSM_A": c_expr(self.ldsm_a), "LDSM_B": c_expr(self.ldsm_b), "ACC_BASE": c_expr(self.acc),
                "C_OFFSET": c_expr(self.c_off)}


def mma_tile_exprs(s_a: Layout | ComposedLayout, s_b: Layout | ComposedLayout, M: int = 64, N: int = 64,
                   K: int = 64) -> MmaTileExprs:
    """Index math of the shared GEMM tile part for operands laid out in shared memory as ``s_a`` (M x K, colex
    ``m + M*k``) and ``s_b`` (N x K).

    Pre: M, N multiples of 32, K of 16. Post: ``ldsm_a`` at (warp, lane, rm, kk) is ``ldsm_address`` of
    ``tv_layout_A`` at values ``8*rm + ...`` and k-tile ``kk``; likewise ``ldsm_b`` for pairs of n-atoms.
    """
    tiled = make_tiled_mma(MMA_F16, (2, 2, 1), (M, N, 16))
    tvA, tvB, tvC = tiled.tv_layout_A, tiled.tv_layout_B, tiled.tv_layout_C
    rest_m, rest_n = size(tvA[1]) // 8, size(tvB[1]) // 4
    kk = var("kk", K // 16)
    ld_a = ldsm_address(LDSM_X4, tvA, s_a, mul(var("rm", rest_m), 8), mul(kk, 16 * M))
    ld_b = ldsm_address(LDSM_X4, tvB, s_b, mul(var("p", rest_n // 2), 8), mul(kk, 16 * N))
    acc = index_ast(Layout((rest_m, rest_n), (4, 4 * rest_m)), ("rm", "rn"))
    c_off = index_ast(Layout((M, N), (N, 1)), index_ast(tvC, ("t", "v")))
    return MmaTileExprs(tiled, M, N, K, rest_m, rest_n, ld_a, ld_b, acc, c_off)


@dataclass(frozen=True, slots=True)
class StagingCopy:
    """global -> shared in 16-byte vectors: vector ``(t, i)`` (``i < iters``) -> element offsets ``gmem``, ``smem``."""

    iters: int
    gmem: Expr
    smem: Expr


def staging_copy(rows: int, cols: int, threads: int, s_layout: ComposedLayout) -> StagingCopy:
    """Vector ``q = t + threads*i`` holds 8 consecutive k of one row: ``q -> (row, k-chunk)`` with the 8 k-chunks of a
    row in consecutive lanes; global is row-major (K-major), shared is ``s_layout`` (colex ``row + rows*k``)."""
    vecs = rows * cols // 8
    iters = vecs // threads
    q = add(var("t", threads), mul(var("i", iters), threads))
    idx = index_ast(Layout((cols // 8, rows), (8 * rows, 1)), q)  # -> colex (row + rows*k)
    return StagingCopy(iters, index_ast(Layout((rows, cols), (cols, 1)), idx), index_ast(s_layout, idx))


@dataclass(frozen=True, slots=True)
class MmaGemmExprs:
    """Every index expression of one ``mma_gemm`` kernel: the staging copies and the shared tile part."""

    mode: str
    s_a: ComposedLayout
    s_b: ComposedLayout
    copy_a: StagingCopy
    copy_b: StagingCopy
    tile: MmaTileExprs


def mma_gemm_exprs(mode: str, M: int = 64, N: int = 64, K: int = 64) -> MmaGemmExprs:
    """The ``mma_gemm`` kernel's index math from the layout objects (what ``mma_gemm_case`` prints)."""
    s_a, s_b = smem_layout(mode, M, K), smem_layout(mode, N, K)
    tile = mma_tile_exprs(s_a, s_b, M, N, K)
    return MmaGemmExprs(mode, s_a, s_b, staging_copy(M, K, tile.threads, s_a), staging_copy(N, K, tile.threads, s_b),
                        tile)


def mma_gemm_case(mode: str, M: int = 64, N: int = 64, K: int = 64) -> KernelCase:
    e = mma_gemm_exprs(mode, M, N, K)
    ca, cb, tile = e.copy_a, e.copy_b, e.tile
    name = f"mma_gemm_{mode.lower()}"
    src = render_template("mma_gemm", {
        "KERNEL": name, "THREADS": tile.threads, "SMEM_A_ELEMS": M * K, "SMEM_B_ELEMS": N * K,
        "SMEM_LAYOUT": f"A {e.s_a}, B {e.s_b}", "COPY_A_ITERS": ca.iters, "COPY_A_GMEM": c_expr(ca.gmem),
        "COPY_A_SMEM": c_expr(ca.smem), "COPY_B_ITERS": cb.iters, "COPY_B_GMEM": c_expr(cb.gmem),
        "COPY_B_SMEM": c_expr(cb.smem), **tile.params(), "DESCRIPTION": str(tile.tiled)})
    inputs, compare = gemm_check(*small_int_operands(3, M, N, K, np.float16))
    return KernelCase("mma_gemm", f"m16n8k16 (2,2,1) {M}x{N}x{K} smem K-major {mode} {e.s_a}", name, src, 1,
                      tile.threads, inputs, (2,), compare)


def mma_fragments_case() -> KernelCase:
    atom = mma_atom(MMA_F16)
    m, n, k = atom.shape_mnk
    sa, sb = Layout((m, k), (k, 1)), Layout((n, k), (k, 1))  # row-major (K-major) shared tiles
    ld_a = ldsm_address(LDSM_X4, atom.tv_layout_A, sa)
    ld_b = ldsm_address(LDSM_X2, atom.tv_layout_B, sb)
    name = "mma_fragments_m16n8k16"
    src = render_template("mma_fragments", {"KERNEL": name, "A_ELEMS": m * k, "B_ELEMS": n * k,
                                            "LDSM_A": c_expr(ld_a), "LDSM_B": c_expr(ld_b),
                                            "DESCRIPTION": str(atom)})
    mm, kk_ = np.meshgrid(np.arange(m), np.arange(k), indexing="ij")
    nn, kn = np.meshgrid(np.arange(n), np.arange(k), indexing="ij")
    code_a = (mm + m * kk_).astype(np.float16)  # element (m,k) holds its colex index m + M*k
    code_b = (nn + n * kn).astype(np.float16)
    a2 = np.zeros((m, k), np.float16)
    a2[:, 0], a2[:, 1] = np.arange(m), 1
    b2 = np.zeros((n, k), np.float16)
    b2[:, 0], b2[:, 1] = 1, m * np.arange(n)  # C(m, n) = m + M*n

    def inputs(xp: Any) -> list[Any]:
        outs = [xp.full(size(tv), -1, dtype=xp.float32) for tv in (atom.tv_layout_A, atom.tv_layout_B,
                                                                   atom.tv_layout_C)]
        return [xp.asarray(code_a), xp.asarray(code_b), xp.asarray(a2), xp.asarray(b2), *outs]

    def compare(out: list[Any], xp: Any) -> tuple[int, int, str]:
        bad, total, notes = 0, 0, []
        for label, o, tv in zip("ABC", out, (atom.tv_layout_A, atom.tv_layout_B, atom.tv_layout_C), strict=True):
            got = _to_np(o).astype(np.int64)
            nb = int((got != tv.offsets()).sum())
            bad, total = bad + nb, total + got.size
            notes.append(f"{label} {nb}/{got.size}")
        return total, bad, "mismatches " + ", ".join(notes)

    return KernelCase("mma_fragments", f"{MMA_F16} A/B via ldmatrix, C after mma.sync", name, src, 1, 32,
                      inputs, (4, 5, 6), compare)


# -- warp permute_layout (seed 002) -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PermuteExprs:
    """The permute kernel's index math: per stage ``s`` and iteration ``r`` lane ``lane`` reads ``sSrc[src]`` and
    writes ``sDst[dst]`` (fp32 elements); ``elems`` per array, ``iters`` iterations per stage."""

    src_layout: Layout
    dst_layout: Layout
    src: Expr
    dst: Expr
    stages: int
    iters: int
    elems: int
    elem_bytes: int = 4


def permute_exprs(stages: int = 2, rows: int = 4, cols: int = 32, xor_bits: int = 2, shift: int = 3) -> PermuteExprs:
    """Source ``(cols,rows,stages):(1,cols,rows*cols)``, destination ``(cols,rows,stages):(rows,1,rows*cols)``;
    lane = column, iteration ``r`` reads row ``r ^ ((lane >> shift) & (2**xor_bits - 1))``."""
    P = rows * cols // 32
    src_l = Layout((cols, rows, stages), (1, cols, rows * cols))
    dst_l = Layout((cols, rows, stages), (rows, 1, rows * cols))
    lane, r, s = var("lane", 32), var("r", P), var("s", stages)
    j = xor(r, band(shr(lane, shift), (1 << xor_bits) - 1))
    if j.bound > rows:
        raise LayoutError(f"XOR of {xor_bits} bits sends the row index to {j.bound - 1}, outside [0,{rows})")
    return PermuteExprs(src_l, dst_l, index_ast(src_l, (lane, j, s)), index_ast(dst_l, (lane, j, s)), stages, P,
                        rows * cols * stages)


def permute_case(stages: int = 2, rows: int = 4, cols: int = 32, xor_bits: int = 2, shift: int = 3) -> KernelCase:
    """The kernel of ``permute_exprs`` (same arguments), checked against the layouts' offsets."""
    pe = permute_exprs(stages, rows, cols, xor_bits, shift)
    src_l, dst_l = pe.src_layout, pe.dst_layout
    name = f"permute_transpose_k{xor_bits}"
    src = render_template("permute_transpose", {
        "KERNEL": name, "ROWS": rows, "COLS": cols, "ELEMS": pe.elems, "STAGES": stages, "P": pe.iters,
        "SRC_OFFSET": c_expr(pe.src), "DST_OFFSET": c_expr(pe.dst),
        "DESCRIPTION": f"src {src_l}, dst {dst_l}, XOR k = {xor_bits} (shift {shift}, mask {(1 << xor_bits) - 1})"})
    data = np.arange(rows * cols * stages, dtype=np.float32) + 1

    def inputs(xp: Any) -> list[Any]:
        return [xp.asarray(data), xp.zeros(rows * cols * stages, dtype=xp.float32)]

    def compare(out: list[Any], xp: Any) -> tuple[int, int, str]:
        exp = np.zeros_like(data)
        exp[dst_l.offsets()] = data[src_l.offsets()]
        got = _to_np(out[0])
        return got.size, int((got != exp).sum()), "dst(c,i,s) == src(c,i,s)"

    return KernelCase("permute_transpose", f"{rows}x{cols} fp32, {stages} stages, XOR k={xor_bits}", name, src, 1, 32,
                      inputs, (1,), compare)
