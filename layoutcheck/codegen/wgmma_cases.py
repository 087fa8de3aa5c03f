"""The Hopper path on silicon: TMA -> swizzled shared memory -> ``wgmma`` through layoutcheck's descriptors -> C.

``wgmma_gemm_case(dtype, major_a, major_b, swizzle, M, N, K)`` generates ``templates/wgmma_gemm.cu``: one CTA of
``M/64`` warpgroups (a tiled wgmma ``(M/64, 1, 1)``), every index from a layout value::

    smem    = mma_smem_layout(major, swizzle, dtype, (MN, K))          # the GMMA atom tiled to the stage
    boxes   = plan_boxes(major, swizzle, dtype, (MN, K))               # PROVEN tma_compatible with smem
    blocks  = gmma_blocks(smem, dtype, 64 | N)                         # one wgmma operand per (MN-block, K-block)
    desc    = gmma_descriptor(blocks.block_layout(), dtype, major)    # block 0, for a buffer at address 0
    desc(w, kb) = desc + (base + e * blocks.tile[1](w, kb)) / 16      # CuTe's DescriptorIterator advance
    C store: gC[row-major (m, n)] with m + M*n = tiled.tv_layout_C(t, v)
    RS form: A register (t, v) = gA[(m, k)] with m + M*k = tiled.tv_layout_A(t, v) (+ 16 * kb along K)

The host checks C element by element against ``A @ B.T`` in fp32 (small integers: every product and sum exact in
every input type). If a fragment map, a descriptor field, the base-address handling or the TMA placement were wrong
for the hardware, some C elements would differ.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from layoutcheck.algebra.layout import Layout, cosize, size
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle, inner
from layoutcheck.codegen.cases import KernelCase, _to_np
from layoutcheck.codegen.render import render_template
from layoutcheck.codegen.tma_cases import box_loads
from layoutcheck.errors import LayoutError
from layoutcheck.expr.c import c_expr
from layoutcheck.expr.ir import add, const, div, mod, mul, var
from layoutcheck.expr.lower import index_ast
from layoutcheck.hw.dtypes import DTYPES
from layoutcheck.hw.mma import mma_atom
from layoutcheck.hw.wgmma import FAMILIES, wgmma_name
from layoutcheck.models.gmma import element_bytes, gmma_blocks, gmma_descriptor
from layoutcheck.models.tiled_mma import make_tiled_mma
from layoutcheck.properties.tma import plan_boxes

SWIZZLES = ("none", "32B", "64B", "128B")
BITS_TYPE = {1: "unsigned char", 2: "unsigned short", 4: "unsigned"}
"""The unsigned C type of an element's bits, by element bytes (register packing reads bits, never values)."""
UNSIGNED = ("u8",)
"""Operand types whose host integers are drawn non-negative (|x| of the shared signed draw)."""


def wgmma_atom_name(dtype_a: str, dtype_b: str, acc: str, n: int, form: str) -> str:
    """CuTe's name of the wgmma atom with these operand and accumulator types (``hw.wgmma.FAMILIES``).

    >>> wgmma_atom_name("s8", "u8", "s32", 64, "SS"), wgmma_atom_name("e5m2", "e5m2", "f16", 8, "RS")
    ('SM90_64x64x32_S32S8U8_SS_TN', 'SM90_64x8x32_F16E5M2E5M2_RS_TN')
    """
    fam = next((f for f in FAMILIES if (f.dtype_a, f.dtype_b, f.dtype_d) == (dtype_a, dtype_b, acc)), None)
    if fam is None:
        raise LayoutError(f"no wgmma family {acc} <- {dtype_a} x {dtype_b} (PTX ISA 9.7.15.5)")
    return wgmma_name(fam, n, form)


E5M2_OF_INT = {0: 0x00, 1: 0x3C, 2: 0x40, 3: 0x42}
"""OCP E5M2 bit patterns of 0..3 (bias 15, 2 mantissa bits; sign in bit 7)."""


def e4m3_bits(x: int) -> int:
    """OCP E4M3 bit pattern of a small integer that E4M3 holds exactly (bias 7, 3 mantissa bits, sign bit 7).

    >>> [hex(e4m3_bits(v)) for v in (1, 2, 3, -3, 256)]
    ['0x38', '0x40', '0x44', '0xc4', '0x78']
    """
    sign, x = (0x80 if x < 0 else 0), abs(int(x))
    if x == 0:
        return sign
    p = x.bit_length() - 1
    mant = (x - (1 << p)) * 8
    if mant % (1 << p) or p > 8:
        raise ValueError(f"{x} is not exact in E4M3")
    return sign | ((p + 7) << 3) | (mant >> p)


def encode(values: np.ndarray, dtype: str) -> np.ndarray:
    """Small integers as the bit patterns of ``dtype`` (what TMA copies): f16/bf16 as uint16, e4m3 as uint8, in
    row-major (C) order whatever the order of ``values``: a kernel reads the raw buffer, and NumPy keeps a transposed
    view's Fortran order through ``astype`` (a transposed A once reached the GPU as ``A.T``)."""
    values = np.ascontiguousarray(values)
    v = values.astype(np.float32)
    if dtype == "f16":
        return v.astype(np.float16).view(np.uint16)
    if dtype == "bf16":
        return (v.view(np.uint32) >> 16).astype(np.uint16)  # exact: small integers have no low mantissa bits
    if dtype == "e4m3":
        return np.vectorize(e4m3_bits)(values.astype(int)).astype(np.uint8)
    if dtype == "e5m2":
        mag = np.vectorize(E5M2_OF_INT.__getitem__)(np.abs(values).astype(int)).astype(np.uint8)
        return mag | np.where(values < 0, 0x80, 0).astype(np.uint8)
    if dtype == "s8":
        return values.astype(np.int8).view(np.uint8)
    if dtype == "u8":
        if (values < 0).any():
            raise ValueError("u8 operands hold non-negative integers only")
        return values.astype(np.uint8)
    return v


def _wgmma_asm(atom: Any, form: str, nacc: int, trans_a: int, trans_b: int) -> tuple[str, str, str, int]:
    """The ``wgmma.mma_async`` line, its output and input operand lists and the index of the scale-d operand."""
    d_list = ", ".join(f"%{i}" for i in range(nacc))
    sixteen = atom.dtype_a in ("f16", "bf16")
    if form == "SS":
        a, b, ins, nxt = f"%{nacc}", f"%{nacc + 1}", '"l"(desc_a), "l"(desc_b)', nacc + 2
        trans = f", {trans_a}, {trans_b}" if sixteen else ""
    else:
        a = "{" + ", ".join(f"%{nacc + j}" for j in range(4)) + "}"
        b, nxt = f"%{nacc + 4}", nacc + 5
        ins = ", ".join(f'"r"(a_r[{j}])' for j in range(4)) + ', "l"(desc_b)'
        trans = f", {trans_b}" if sixteen else ""
    integer = atom.dtype_c == "s32"  # integer wgmma has no scale-a/b immediates and accumulates in s32 registers
    line = f"{atom.ptx} {{{d_list}}}, {a}, {b}, p{'' if integer else ', 1, 1'}{'' if integer else trans};"
    packed = integer or atom.dtype_c == "f16"  # f16 accumulators: two per 32-bit register (f16x2)
    outs = ", ".join(f'"+{"r" if packed else "f"}"(d[{i}])' for i in range(nacc))
    return line, outs, ins, nxt


def _a_coord(tiled: Any, M: int, K: int, kblk: int) -> tuple[Any, Any]:
    """RS form: tile coordinate ``(m, k)`` of thread ``t``'s A value ``v`` (``tiled.tv_layout_A``) in K-block ``kb``."""
    elem = index_ast(tiled.tv_layout_A, ("t", "v"))
    return mod(elem, M), add(div(elem, M), mul(var("kb", K // kblk), kblk))


def _a_pack(load: str, e: int) -> str:
    """RS form: each thread's four A registers, ``4/e`` values ``a_at(v)`` = ``load`` each, lowest value index in the
    lowest bits (PTX ISA register fragments)."""
    per = 4 // e
    pack = " | ".join(f"(a_at({per}u * j + {q}u) << {8 * e * q})" for q in range(per))
    return ("    unsigned a_r[4];\n"
            f"    auto a_at = [&](unsigned v) {{ return static_cast<unsigned>({load}); }};\n"
            "#pragma unroll\n"
            f"    for (unsigned j = 0; j < 4u; ++j) a_r[j] = {pack};")


def _a_registers(tiled: Any, M: int, K: int, kblk: int, e: int) -> str:
    """RS form: each thread packs its A values of K-block ``kb`` from K-major ``gA`` (``_a_coord``, ``_a_pack``)."""
    g = index_ast(Layout((M, K), (K, 1)), _a_coord(tiled, M, K, kblk))
    return _a_pack(f"gA[{c_expr(g)}]", e)


def _a_registers_smem(tiled: Any, stage: Any, M: int, K: int, kblk: int, e: int) -> str:
    """RS form with A staged in shared memory (e.g. tf32 MN-major, which no descriptor can transpose): each thread
    reads its A values of K-block ``kb`` at ``stage(m, k)`` in ``sA`` (``_a_coord``), packed by ``_a_pack``; the
    addresses are the stage layout's own, swizzle included."""
    off = index_ast(stage, _a_coord(tiled, M, K, kblk))
    return _a_pack(f"reinterpret_cast<const {BITS_TYPE[e]}*>(sA)[{c_expr(off)}]", e)


def _stage(major: str, swizzle: str, dtype: str, mn: int, k: int, atom_order: str) -> Any:
    """The TMA box plan of one operand stage: atoms stacked MN-first (``"mn_first"``, the stacking of the first
    silicon kernels) or as CUTLASS's SM90 mainloop and the spec kinds stack them (``"cutlass"``:
    ``spec.values.WGMMA_ATOM_ORDER``, K-first for MN-major operands)."""
    from layoutcheck.spec.values import WGMMA_ATOM_ORDER

    order = "col" if atom_order == "mn_first" else WGMMA_ATOM_ORDER[major]
    return plan_boxes(major, swizzle, DTYPES[dtype].tma, (mn, k), order)


def _c_value(acc: str, v: str = "v") -> str:
    """The C expression of accumulator value ``v`` as a float: f16 accumulators unpack ``d[v/2]``'s half ``v%2``."""
    if acc == "f16":
        return f"f16_bits_to_float(static_cast<unsigned short>(d[{v} >> 1] >> (16u * ({v} & 1u))))"
    return f"static_cast<float>(d[{v}])"


def epilogue_exprs(tiled: Any, M: int, N: int, smem_c: Any) -> tuple[Any, Any]:
    """The smem epilogue's two index expressions: the store ``sC[smem_c(m, n)]`` of value ``v`` of thread ``t`` with
    ``m + M*n = tiled.tv_layout_C(t, v)``, and the copy-out read ``sC[smem_c(i / N, i % N)]`` of row-major ``i``."""
    elem = index_ast(tiled.tv_layout_C, ("t", "v"))
    store = index_ast(smem_c, (mod(elem, M), div(elem, M)))
    i = var("i", M * N)
    return store, index_ast(smem_c, (div(i, N), mod(i, N)))


def epilogue_pairs(tiled: Any, M: int, N: int, smem_c: Any) -> bool:
    """Whether the smem epilogue stores values in pairs: every thread's values ``2j`` and ``2j+1`` land on
    consecutive words, the first 8-byte aligned (then one ``st.shared.v2.f32`` stores both, as a vectorising epilogue
    does; otherwise one ``st.shared.f32`` per value). Decided from the store expression over every ``(t, v)``."""
    from layoutcheck.expr.numpy import evaluate

    store, _ = epilogue_exprs(tiled, M, N, smem_c)
    t, v = np.meshgrid(np.arange(tiled.size), np.arange(0, size(tiled.tv_layout_C[1]), 2), indexing="ij")
    lo, hi = evaluate(store, {"t": t, "v": v}), evaluate(store, {"t": t, "v": v + 1})
    return bool((hi == lo + 1).all() and (lo % 2 == 0).all())


def _store_c(tiled: Any, M: int, N: int, nvals: int, acc: str, c_off: str, smem_c: Any) -> str:
    """The C store: straight to ``gC`` through the C layout, or (``smem_c``) staged in shared memory through it with
    inline PTX (``st.shared.v2.f32`` per value pair where ``epilogue_pairs``, else ``st.shared.f32`` per value: the
    instructions the bank model is given, pinned so that ptxas neither merges nor splits them), then copied out with
    ``ld.shared.f32`` in row-major order."""
    if smem_c is None:
        return f"#pragma unroll\n  for (unsigned v = 0; v < {nvals}u; ++v) gC[{c_off}] = {_c_value(acc)};"
    store, load = epilogue_exprs(tiled, M, N, smem_c)
    addr = f"\"r\"(c_base + 4u * ({c_expr(store)}))"
    if epilogue_pairs(tiled, M, N, smem_c):
        st = (f"  for (unsigned v = 0; v < {nvals}u; v += 2u)\n"
              f"    asm volatile(\"st.shared.v2.f32 [%0], {{%1, %2}};\\n\" :: {addr}, \"f\"({_c_value(acc)}), "
              f"\"f\"({_c_value(acc, 'v + 1u')}) : \"memory\");\n")
    else:
        st = (f"  for (unsigned v = 0; v < {nvals}u; ++v)\n"
              f"    asm volatile(\"st.shared.f32 [%0], %1;\\n\" :: {addr}, \"f\"({_c_value(acc)}) : \"memory\");\n")
    return (f"  __shared__ alignas(1024) float sC[{cosize(inner(smem_c))}];\n"
            f"  const unsigned c_base = static_cast<unsigned>(__cvta_generic_to_shared(sC));\n"
            "#pragma unroll\n" + st +
            "  __syncthreads();\n"
            f"  for (unsigned i = t; i < {M * N}u; i += {tiled.size}u) {{\n"
            "    float c;\n"
            f"    asm volatile(\"ld.shared.f32 %0, [%1];\\n\" : \"=f\"(c) : \"r\"(c_base + 4u * ({c_expr(load)})) "
            ": \"memory\");\n"
            "    gC[i] = c;\n"
            "  }")


def wgmma_gemm_case(dtype: str = "f16", major_a: str = "K", major_b: str = "K", swizzle: str = "128B",
                    M: int = 64, N: int = 64, K: int = 64, form: str = "SS", probe: str = "", *,
                    dtype_b: str | None = None, acc: str | None = None, atom_order: str = "mn_first",
                    smem_c: Any = None, wgmma: bool = True, tag: str = "", desc_swizzle_a: str | None = None,
                    operands: tuple[np.ndarray, np.ndarray] | None = None) -> KernelCase:
    """One generated TMA -> smem -> wgmma GEMM tile and its exact host check (module docstring).

    Pre: ``M`` in {64, 128}; ``N`` a legal wgmma N; the stages divide the GMMA atoms; MN-major through a
    descriptor only for 16-bit types; the RS form for a K-major A (read from ``gA``) or an MN-major A (read from its
    shared-memory stage). ``dtype`` is A's type (and B's unless ``dtype_b``); ``acc`` the accumulator type (default
    s32 for integers, else f32); ``atom_order`` how the stages stack their GMMA atoms (``_stage``); ``smem_c`` an
    ``(M, N) -> element`` layout to stage C through shared memory (f32 accumulators); ``wgmma=False`` leaves out
    the ``wgmma.mma_async`` itself, nothing else (an ncu control: C stays 0); ``tag`` is appended to the name.
    ``probe`` (``probe_cases``) replaces the GEMM check by a fragment experiment that does not use the layout under
    test. ``desc_swizzle_a`` (a refuted configuration, ``codegen.refuted_cases``): A's descriptors and block
    offsets describe the stage of that swizzle while TMA writes the ``swizzle`` stage; ``operands`` the integer
    ``(A [M, K], B [N, K])`` to use instead of random ones.
    """
    dtype_b = dtype_b or dtype
    acc = acc or ("s32" if dtype in ("s8", "u8") else "f32")
    e = element_bytes(dtype)
    atom = mma_atom(wgmma_atom_name(dtype, dtype_b, acc, N, form))
    kblk = atom.shape_mnk[2]
    tiled = make_tiled_mma(atom, (M // 64, 1, 1))
    pa = _stage(major_a, swizzle, dtype, M, K, atom_order)
    pb = _stage(major_b, swizzle, dtype_b, N, K, atom_order)
    pd = pa if desc_swizzle_a is None else _stage(major_a, desc_swizzle_a, dtype, M, K, atom_order)
    ba, bb = gmma_blocks(pd.layout, dtype, 64), gmma_blocks(pb.layout, dtype_b, N)
    da = gmma_descriptor(ba.block_layout(), dtype, major_a) if form == "SS" else None
    db = gmma_descriptor(bb.block_layout(), dtype_b, major_b)
    kb = var("kb", K // kblk)
    off_a = mul(index_ast(ba.tile[1], (var("wg", M // 64), kb)), e)
    off_b = mul(index_ast(bb.tile[1], (const(0), kb)), element_bytes(dtype_b))
    nvals = size(atom.tv_layout_C[1])
    nregs = nvals // 2 if acc == "f16" else nvals
    line, outs, ins, scale = _wgmma_asm(atom, form, nregs, int(major_a == "MN"), int(major_b == "MN"))
    la, lb = box_loads(pa), box_loads(pb)
    c_off = index_ast(Layout((M, N), (N, 1)), index_ast(tiled.tv_layout_C, ("t", "v")))
    types = dtype if dtype_b == dtype else f"{dtype}x{dtype_b}"
    kfirst = "_kfirst" if atom_order != "mn_first" and "MN" in (major_a, major_b) else ""
    name = (f"wgmma_gemm_{types}{'_' + acc if acc == 'f16' else ''}_{form.lower()}_{major_a}{major_b}_{swizzle}_"
            f"{M}x{N}x{K}{kfirst}{tag}").lower()
    if form == "RS":
        a_regs = (_a_registers(tiled, M, K, kblk, e) if major_a == "K" else
                  _a_registers_smem(tiled, pa.layout, M, K, kblk, e))
    src = render_template("wgmma_gemm", {
        "KERNEL": name, "THREADS": tiled.size, "INSTR": atom.ptx, "FORM": atom.name, "M": M, "N": N, "K": K,
        "MAJOR_A": major_a, "MAJOR_B": major_b, "SMEM_A": str(pa.layout), "SMEM_B": str(pb.layout),
        "TYPE_A": DTYPES[dtype].c_type, "TYPE_B": DTYPES[dtype_b].c_type, "SMEM_A_BYTES": M * K * e,
        "SMEM_B_BYTES": N * K * element_bytes(dtype_b),
        "TX_BYTES": la.plan.box.box_bytes * la.count + lb.plan.box.box_bytes * lb.count,
        "BOXES_A": la.count, "DST_A": c_expr(la.dst), "C0_A": c_expr(la.c0), "C1_A": c_expr(la.c1),
        "BOXES_B": lb.count, "DST_B": c_expr(lb.dst), "C0_B": c_expr(lb.c0), "C1_B": c_expr(lb.c1),
        "NACC": nregs, "DESC_A0": hex(da.value) if da else "0x0", "DESC_B0": hex(db.value),
        "KBLOCKS": K // kblk, "OFF_A": c_expr(off_a), "OFF_B": c_expr(off_b),
        "A_REGS": _A_CODES if probe == "A" else a_regs if form == "RS" else "",
        "WGMMA": line if wgmma else "// control: no wgmma.mma_async (fence, commit and wait stay)",
        "SCALE_ARG": scale, "D_OPERANDS": outs, "IN_OPERANDS": ins,
        "ACC_T": "int" if acc == "s32" else "unsigned" if acc == "f16" else "float",
        "STORE_C": _store_c(tiled, M, N, nvals, acc, f"t * {nvals}u + v" if probe else c_expr(c_off),
                            None if probe else smem_c),
        "DESCRIPTION": f"tiled wgmma {atom.name} x ({M // 64},1,1); descriptors A {da or '(registers)'}, B {db}"
                       + (f"; A's descriptors describe the {desc_swizzle_a} stage, TMA writes {swizzle}"
                          if desc_swizzle_a else "")
                       + (f"; C staged in smem as {smem_c}" if smem_c is not None else "")})
    rng = np.random.default_rng(M * 7 + N * 3 + K)
    A, B = operands if operands is not None else (rng.integers(-3, 4, (M, K)), rng.integers(-3, 4, (N, K)))
    A, B = (np.abs(A) if dtype in UNSIGNED else A), (np.abs(B) if dtype_b in UNSIGNED else B)
    if probe:
        return _probe_case(probe, name, src, tiled, A.shape, B.shape, (pa.box, pb.box), dtype, e)
    ref = A.astype(np.float32) @ B.astype(np.float32).T if wgmma else np.zeros((M, N), dtype=np.float32)
    ga = encode(A if major_a == "K" else A.T.copy(), dtype)
    gb = encode(B if major_b == "K" else B.T.copy(), dtype_b)

    def inputs(xp: Any) -> list[Any]:
        maps = xp.zeros(256, dtype=xp.uint8)
        return [xp.asarray(ga), xp.asarray(gb), maps[0:128], maps[128:256],
                xp.full((M, N), np.nan, dtype=xp.float32), xp.zeros(1, dtype=xp.uint32)]

    def compare(out: list[Any], xp: Any) -> tuple[int, int, str]:
        bad = int((_to_np(out[0]) != ref).sum())
        status = int(_to_np(out[1])[0])
        return M * N, bad if status == 0 else max(bad, 1), "exact (small integers)" if status == 0 else \
            f"status {status} (1: mbarrier timeout, 2: misaligned)"

    config = (f"{types}{' (f16 acc)' if acc == 'f16' else ''} {form} A {major_a}-major B {major_b}-major {swizzle} "
              f"{M}x{N}x{K}{' K-first atoms' if kfirst else ''}, {tiled.size} threads, "
              f"descA {hex(da.value) if da else 'registers'} descB {hex(db.value)}"
              + (f", C via smem {smem_c}" if smem_c is not None else "") + ("" if wgmma else ", no wgmma (control)"))
    return KernelCase("wgmma_gemm", config, name, src, 1, tiled.size, inputs, (4, 5), compare,
                      tensor_maps=((2, 0, pa.box), (3, 1, pb.box)), arch="sm_90a")


_A_CODES = ("    unsigned a_r[4];  // probe: each A register element holds its own code t*8 + v (f16 bits from gA)\n"
            "#pragma unroll\n"
            "    for (unsigned j = 0; j < 4u; ++j)\n"
            "      a_r[j] = static_cast<unsigned>(gA[t * 8u + 2u * j])\n"
            "             | (static_cast<unsigned>(gA[t * 8u + 2u * j + 1u]) << 16);")


def _probe_case(probe: str, name: str, src: str, tiled: Any, sa: tuple[int, int], sb: tuple[int, int],
                boxes: tuple[Any, Any], dtype: str, e: int) -> KernelCase:
    """Fragment experiments; each thread dumps its raw accumulators ``d[v]`` to ``out[t, v]``.

    ``C``: K columns spell out the row and column in binary, ``A[m, j] = bit j of m``, ``B[n, j] = 2**j`` (j < 6),
    ``A[m, 6+j] = 64``, ``B[n, 6+j] = bit j of n * 2**j``, so ``C[m, n] = m + 64*n``: each accumulator names its own
    position (powers of two: exact in every input type). ``A``: the RS registers hold codes ``t*8 + v`` and B is the
    identity, so ``C[m, k]`` names the (thread, value) the hardware took for ``A[m, k]``."""
    M, K = sa
    N = sb[0]
    nacc = size(tiled.atom.tv_layout_C[1])
    T = tiled.size
    A, B = np.zeros(sa, dtype=np.int64), np.zeros(sb, dtype=np.int64)
    if probe == "C":
        for j in range(6):
            A[:, j], B[:, j] = (np.arange(M) >> j) & 1, 1 << j
        for j in range(8):
            A[:, 6 + j], B[:, 6 + j] = 64, ((np.arange(N) >> j) & 1) << j
        ga, gb = encode(A, dtype), encode(B, dtype)
    else:  # "A": codes t*8+v in the A registers (via gA), B = identity (N == K)
        ga = encode(np.arange(128 * 8), dtype)
        B[np.arange(min(N, K)), np.arange(min(N, K))] = 1
        gb = encode(B, dtype)

    def inputs(xp: Any) -> list[Any]:
        maps = xp.zeros(256, dtype=xp.uint8)
        return [xp.asarray(ga), xp.asarray(gb), maps[0:128], maps[128:256],
                xp.full((T * nacc,), np.nan, dtype=xp.float32), xp.zeros(1, dtype=xp.uint32)]

    def compare(out: list[Any], xp: Any) -> tuple[int, int, str]:
        raw = _to_np(out[0]).reshape(T, nacc)
        if probe == "C":
            elem = tiled.tv_layout_C.offsets().reshape(nacc, T).T
            bad = int((raw != elem).sum())
            return T * nacc, bad, "C fragment: d[v] of thread t sits at (m, n) = tv_layout_C(t, v)"
        code = raw.astype(np.int64)  # C[m, n] = A[m, n]: the code of the register that supplied A[m, k=n]
        elem = tiled.tv_layout_C.offsets().reshape(nacc, T).T
        m, k = elem % M, elem // M
        inv = np.full(M * K, -1)
        tvA = tiled.atom.tv_layout_A.offsets().reshape(8, 128).T
        for t in range(128):
            for v in range(8):
                inv[tvA[t, v]] = t * 8 + v
        bad = int((code != inv[m + M * k]).sum())
        return T * nacc, bad, "A fragment: register (t, v) supplies A[m, k] with m + 64*k = tv_layout_A(t, v)"

    return KernelCase("wgmma_probe", f"{probe} fragment of {tiled.atom.name} (raw register dump)", name + "_probe_"
                      + probe.lower(), src.replace(name, name + "_probe_" + probe.lower()), 1, T, inputs, (4, 5),
                      compare, tensor_maps=((2, 0, boxes[0]), (3, 1, boxes[1])), arch="sm_90a")


def probe_cases() -> list[KernelCase]:
    """One-hot-style fragment experiments: the C/D map of SS wgmma for N = 8, 64, 256 (f16) and 64 (tf32, e4m3),
    the RS A map (f16, K = 16 against an identity B)."""
    return [wgmma_gemm_case("f16", "K", "K", "128B", 64, 8, 64, probe="C"),
            wgmma_gemm_case("f16", "K", "K", "128B", 64, 64, 64, probe="C"),
            wgmma_gemm_case("f16", "K", "K", "128B", 64, 256, 64, probe="C"),
            wgmma_gemm_case("tf32", "K", "K", "128B", 64, 64, 32, probe="C"),
            wgmma_gemm_case("e4m3", "K", "K", "128B", 64, 64, 128, probe="C"),
            wgmma_gemm_case("f16", "K", "K", "32B", 64, 16, 16, "RS", probe="A")]


def wgmma_gemm_cases() -> list[KernelCase]:
    """Every swizzle mode x both majors for f16 and bf16 (64x64x64), plus wider and multi-warpgroup tiles, the RS
    form, tf32 and e4m3 (K-major)."""
    cases = [wgmma_gemm_case(dt, maj, maj, sw) for dt in ("f16", "bf16") for maj in ("K", "MN")
             for sw in ("none", "32B", "64B", "128B")]
    cases += [wgmma_gemm_case("f16", "K", "MN", "128B", 64, 128, 64),
              wgmma_gemm_case("f16", "K", "K", "128B", 128, 128, 64),
              wgmma_gemm_case("bf16", "K", "K", "128B", 128, 256, 64),
              wgmma_gemm_case("f16", "MN", "K", "64B", 128, 64, 128),
              wgmma_gemm_case("f16", "K", "K", "128B", 64, 8, 64),
              wgmma_gemm_case("f16", "K", "K", "128B", 64, 24, 64),
              wgmma_gemm_case("f16", "K", "K", "128B", 64, 64, 64, "RS"),
              wgmma_gemm_case("bf16", "K", "MN", "64B", 128, 128, 64, "RS"),
              wgmma_gemm_case("tf32", "K", "K", "128B", 64, 64, 32),
              wgmma_gemm_case("tf32", "K", "K", "32B", 128, 64, 32),
              wgmma_gemm_case("e4m3", "K", "K", "128B", 64, 64, 128),
              wgmma_gemm_case("e4m3", "K", "K", "64B", 128, 128, 128),
              wgmma_gemm_case("e5m2", "K", "K", "128B", 64, 64, 128),
              wgmma_gemm_case("s8", "K", "K", "128B", 64, 64, 128),
              wgmma_gemm_case("s8", "K", "K", "32B", 128, 48, 64),
              wgmma_gemm_case("s8", "K", "K", "64B", 64, 24, 128, "RS")]
    return cases


def kfirst_cases() -> list[KernelCase]:
    """MN-major stages stacked K-first, as CUTLASS's SM90 mainloop and the ``tma`` / ``wgmma`` spec kinds stack them
    (``spec.values.WGMMA_ATOM_ORDER``): every swizzle with operands wider than one atom along MN (so the order matters:
    SBO is the K step between atoms, LBO the MN step across the whole K extent), mixed majors, the RS form with an
    MN-major B, and tf32 with an MN-major A fed from its swizzled stage through registers (wgmma transposes no 32-bit
    operand)."""
    sws = SWIZZLES
    cases = [wgmma_gemm_case("f16", "MN", "MN", sw, 128, 128, 64, atom_order="cutlass") for sw in sws]
    cases += [wgmma_gemm_case("bf16", "MN", "MN", sw, 64, 256, 64, atom_order="cutlass") for sw in sws]
    cases += [wgmma_gemm_case("f16", "K", "MN", "128B", 128, 128, 64, atom_order="cutlass"),
              wgmma_gemm_case("f16", "MN", "K", "64B", 128, 64, 128, atom_order="cutlass"),
              wgmma_gemm_case("bf16", "K", "MN", "32B", 128, 128, 64, "RS", atom_order="cutlass")]
    cases += [wgmma_gemm_case("tf32", "MN", "K", sw, 128, 64, 32, "RS", atom_order="cutlass") for sw in sws]
    return cases


def type_cases() -> list[KernelCase]:
    """The operand types the first silicon run left out: u8, mixed integers (s8 x u8, u8 x s8), fp8 with f16
    accumulators (two per register), mixed fp8, f16 x f16 with f16 accumulators (``F16F16F16``); SS and RS; plus
    C-fragment probes of the packed f16 accumulators (N = 32: every position ``m + 64 n < 2048`` is exact in f16)."""
    return [wgmma_gemm_case("u8", "K", "K", "128B", 64, 64, 128),
            wgmma_gemm_case("u8", "K", "K", "32B", 128, 48, 64),
            wgmma_gemm_case("s8", "K", "K", "128B", 64, 64, 128, dtype_b="u8"),
            wgmma_gemm_case("s8", "K", "K", "64B", 64, 24, 128, "RS", dtype_b="u8"),
            wgmma_gemm_case("u8", "K", "K", "128B", 128, 64, 128, dtype_b="s8"),
            wgmma_gemm_case("u8", "K", "K", "32B", 64, 32, 64, "RS", dtype_b="s8"),
            wgmma_gemm_case("e4m3", "K", "K", "128B", 64, 64, 128, acc="f16"),
            wgmma_gemm_case("e4m3", "K", "K", "64B", 128, 128, 128, acc="f16"),
            wgmma_gemm_case("e5m2", "K", "K", "128B", 64, 64, 128, acc="f16"),
            wgmma_gemm_case("e5m2", "K", "K", "32B", 64, 32, 64, "RS", acc="f16"),
            wgmma_gemm_case("e4m3", "K", "K", "128B", 64, 64, 128, dtype_b="e5m2"),
            wgmma_gemm_case("e5m2", "K", "K", "64B", 64, 128, 64, dtype_b="e4m3", acc="f16"),
            wgmma_gemm_case("e4m3", "K", "K", "128B", 64, 32, 128, probe="C", acc="f16"),
            wgmma_gemm_case("f16", "K", "K", "128B", 64, 64, 64, acc="f16"),
            wgmma_gemm_case("f16", "MN", "K", "64B", 64, 128, 64, acc="f16"),
            wgmma_gemm_case("f16", "K", "MN", "32B", 64, 32, 64, "RS", acc="f16"),
            wgmma_gemm_case("f16", "K", "K", "128B", 64, 32, 64, probe="C", acc="f16")]


SMEM_C = {"row": Layout((64, 64), (64, 1)), "col": Layout((64, 64), (1, 64)),
          "sw323": ComposedLayout(Swizzle(3, 2, 3), 0, Layout((64, 64), (64, 1)))}
"""Shared-memory C tiles of the smem-epilogue ncu kernels (``epilogue_prediction`` in ``gpu.smem_ncu``): row-major
(value pairs as 64-bit stores, the 8 rows of a warp's fragment in one bank group: 2-way), column-major (single
floats: 4-way stores and a 32-way row-major copy-out), ``Sw<3,2,3>`` over row-major (pairs, conflict-free)."""


def ncu_cases() -> list[tuple[str, dict[str, Any], KernelCase]]:
    """The kernels whose shared-memory traffic the ncu section measures, each with its role and the arguments it was
    generated from: operands through descriptors only (no LSU instruction of theirs touches shared memory), the same
    kernel without its wgmma (the control that isolates what the wgmma reads add to any counter), and C staged
    through shared memory by ``st.shared.f32`` / ``ld.shared.f32`` (the bank model predicts every wavefront)."""
    runs: list[tuple[str, dict[str, Any]]] = [
        ("operands", {"dtype": "f16", "major_a": "K", "major_b": "K", "swizzle": sw}) for sw in SWIZZLES]
    runs += [("operands", {"dtype": "f16", "major_a": "MN", "major_b": "MN", "swizzle": sw, "M": 128, "N": 128,
                           "atom_order": "cutlass"}) for sw in SWIZZLES]
    runs += [("operands", {"dtype": "f16", "major_a": "K", "major_b": "K", "swizzle": "128B", "form": "RS"})]
    runs += [("control", {"dtype": "f16", "major_a": "K", "major_b": "K", "swizzle": sw, "wgmma": False,
                          "tag": "_nowgmma"}) for sw in ("none", "128B")]
    runs += [("epilogue", {"dtype": "f16", "major_a": "K", "major_b": "K", "swizzle": "128B", "smem_c": lay,
                           "tag": f"_smemc_{name}"}) for name, lay in SMEM_C.items()]
    return [(role, args, wgmma_gemm_case(**args)) for role, args in runs]


# -- descriptor experiments: operands placed by threads, patterns anchored where the experiment says ---------------
def _placed_descriptor(blocks: Any, major: str, pattern_start: int, base_offset: int | None) -> Any:
    """Block 0's f16 descriptor of a stage whose swizzle pattern starts at byte ``pattern_start``, its ``base_offset``
    field replaced by ``base_offset`` when given (``None``: layoutcheck's)."""
    from dataclasses import replace

    from layoutcheck.models.gmma import unchecked_descriptor

    d = unchecked_descriptor(blocks.block_layout(), "f16", major, pattern_start)
    return d if base_offset is None else replace(d, base_offset=base_offset)


def placed_case(swizzle: str, pattern_start: int, base_offset: int | None = None, major: str = "K",
                N: int = 64, K: int = 64) -> KernelCase:
    """A 64xNxK f16 wgmma whose A stage starts at byte ``pattern_start`` of a 1024-aligned buffer *with its swizzle
    pattern anchored there* (stored by threads at ``pattern_start + 2 * stage(m, k)``); B sits at a 1024-aligned
    offset. ``base_offset`` overrides A's descriptor field (``None``: layoutcheck's ``(start mod period) >> 7``), so
    one launch tests the PTX rule and another what happens without it. Exact iff the descriptors read the layout."""
    from layoutcheck.models.gmma import GmmaDescriptor, block_descriptors

    M, e = 64, 2
    atom = mma_atom(f"SM90_64x{N}x16_F32F16F16_SS")
    sa = plan_boxes(major, swizzle, "float16", (M, K)).layout
    sb = plan_boxes("K", swizzle, "float16", (N, K)).layout
    ba, bb = gmma_blocks(sa, "f16", M), gmma_blocks(sb, "f16", N)
    b_at = ((pattern_start + M * K * e) // 1024 + 1) * 1024
    da = [d.value for d in block_descriptors(ba, _placed_descriptor(ba, major, pattern_start, base_offset), "f16")]
    db = [d.value for d in block_descriptors(bb, gmma_descriptor(bb.block_layout(), "f16", "K", b_at), "f16")]
    addr_a = (pattern_start + e * sa.offsets()).astype(np.uint32)
    addr_b = (b_at + e * sb.offsets()).astype(np.uint32)
    nacc = size(atom.tv_layout_C[1])
    line, outs, _, _ = _wgmma_asm(atom, "SS", nacc, int(major == "MN"), 0)
    tag = "none" if base_offset is None else str(base_offset)
    name = f"wgmma_placed_{major}_{swizzle}_at{pattern_start}_bo{tag}".lower()
    src = render_template("wgmma_placed", {
        "KERNEL": name, "INSTR": atom.ptx, "M": M, "N": N, "K": K, "NACC": nacc, "KBLOCKS": ba.count,
        "SMEM_BYTES": b_at + N * K * e, "WGMMA": line, "SCALE_ARG": nacc + 2, "D_OPERANDS": outs,
        "DESCRIPTION": f"A {sa} at byte {pattern_start} (pattern anchored there), "
                       f"descA[0] {GmmaDescriptor.from_value(da[0])}"})
    rng = np.random.default_rng(pattern_start + 17)
    A, B = rng.integers(-3, 4, (M, K)), rng.integers(-3, 4, (N, K))
    ref = A.astype(np.float32) @ B.astype(np.float32).T
    elem = make_tiled_mma(atom).tv_layout_C.offsets().reshape(nacc, 128).T
    want = ref.T.reshape(-1)[elem]  # ref[m, n] at m + 64*n

    def inputs(xp: Any) -> list[Any]:
        return [xp.asarray(encode(A.T.reshape(-1), "f16")), xp.asarray(encode(B.T.reshape(-1), "f16")),
                xp.asarray(addr_a), xp.asarray(addr_b), xp.asarray(np.array(da, dtype=np.uint64)),
                xp.asarray(np.array(db, dtype=np.uint64)), xp.full(128 * nacc, np.nan, dtype=xp.float32)]

    def compare(out: list[Any], xp: Any) -> tuple[int, int, str]:
        got = _to_np(out[0]).reshape(128, nacc)
        return 128 * nacc, int((got != want).sum()), f"descA[0] {GmmaDescriptor.from_value(da[0])}"

    config = (f"A {major}-major {swizzle} pattern at byte {pattern_start}, base_offset "
              f"{'layoutcheck' if base_offset is None else base_offset}")
    return KernelCase("wgmma_placed", config, name, src, 1, 128, inputs, (6,), compare, arch="sm_90a")


PLACED = (("128B", 0, None, "K"), ("128B", 1408, None, "K"), ("128B", 1408, 0, "K"), ("64B", 256, None, "K"),
          ("64B", 256, 0, "K"), ("32B", 128, None, "K"), ("32B", 128, 0, "K"), ("128B", 640, None, "MN"),
          ("128B", 640, 0, "MN"), ("128B", 1024, None, "K"), ("none", 384, None, "K"))
"""(swizzle, pattern start, base_offset override, major) of each base-offset experiment."""


def placed_prediction(swizzle: str, pattern_start: int, base_offset: int | None, major: str) -> bool:
    """What layoutcheck predicts for ``placed_case``: ``gmma_addresses`` PROVEN (exact) or REFUTED (mismatches)."""
    from layoutcheck.properties.gmma import gmma_addresses

    stage = plan_boxes(major, swizzle, "float16", (64, 64)).layout
    d = _placed_descriptor(gmma_blocks(stage, "f16", 64), major, pattern_start, base_offset)
    return gmma_addresses(stage, "f16", major, pattern_start, 64, desc=d, written_by="threads").exhaustive().holds


def placed_cases() -> list[tuple[KernelCase, bool]]:
    """The base-offset experiments and layoutcheck's prediction for each (True: exact): every swizzle mode with
    its pattern at an unaligned start, once with layoutcheck's base offset and once with 0; aligned controls."""
    return [(placed_case(sw, at, bo, major=maj), placed_prediction(sw, at, bo, maj)) for sw, at, bo, maj in PLACED]


# -- refuted descriptors on silicon: what the wgmma reads, element by element ------------------------------------------
def readout_values(count: int) -> np.ndarray:
    """``count`` (<= 4096) distinct, non-zero integers exact in f16 (``-2048..-1, 1..2048``): A's element ``j`` holds
    value ``j``-th, so any element read from a wrong place shows, and zero-filled shared memory is told apart."""
    if count > 4096:
        raise LayoutError(f"{count} elements: f16 holds 4096 distinct non-zero integers exactly")
    j = np.arange(count)
    return np.where(j < 2048, j - 2048, j - 2047).astype(np.float32)


def readout_case(name: str, reads: Any, major: str, mn: int, k: int, writer_note: str) -> tuple[KernelCase, np.ndarray]:
    """The ``wgmma_placed`` kernel as a read-out of an f16 A operand: A (``mn`` x ``k``, ``mn == 64``) is stored by
    threads at the bytes ``reads.expected`` gives each element (where its writer puts it, ``models.gmma.placed``),
    read through the descriptors ``reads.descs``, and multiplied by ``B = I`` (``k x k``, a 128B K-major stage with
    layoutcheck's descriptors), so ``C = A'`` -- the operand as the hardware read it.

    Returns the case and the model's prediction of ``C`` (``[m, n]``): the 2-byte value at each byte
    ``reads.read[r][i]`` of the model's memory image (zero-filled, A and B placed), 0 where nothing was stored.
    Pre: every descriptor formed; every address inside the buffer.
    """
    from layoutcheck.models.gmma import GmmaDescriptor, block_crd, block_descriptors

    e, M, K, N = 2, mn, k, k
    if M != 64 or K % 16 or not 16 <= K <= 256:
        raise LayoutError(f"the read-out takes a 64 x K f16 A stage (K a multiple of 16, <= 256), found {M}x{K}")
    if any(d is None for d in reads.descs) or any(r is None for r in reads.read):
        raise LayoutError("a block's descriptor cannot be formed")
    nblk = len(reads.read)
    if nblk * reads.block[0] * reads.block[1] != M * K or tuple(reads.block) != (64, 16):
        raise LayoutError(f"blocks {reads.block} x {nblk} do not cover the 64 x {K} stage in k-blocks of 16")
    blk_i = np.arange(reads.block[0] * reads.block[1])
    addr_a = np.empty(M * K, dtype=np.int64)
    read_a = np.empty(M * K, dtype=np.int64)
    for r in range(nblk):
        m_, k_ = block_crd(M, reads.block, r, blk_i)
        addr_a[m_ + M * k_] = reads.expected[r]
        read_a[m_ + M * k_] = reads.read[r]
    atom = mma_atom(f"SM90_64x{N}x16_F32F16F16_SS")
    sb = plan_boxes("K", "128B", "float16", (N, K)).layout
    bb = gmma_blocks(sb, "f16", N)
    b_at = ((int(max(addr_a.max(), read_a.max())) + 2) // 1024 + 1) * 1024
    db = [d.value for d in block_descriptors(bb, gmma_descriptor(bb.block_layout(), "f16", "K", b_at), "f16")]
    addr_b = (b_at + e * sb.offsets()).astype(np.int64)
    smem_bytes = b_at + N * K * e
    if addr_a.min() < 0 or read_a.min() < 0:
        raise LayoutError("an address below the buffer")
    A = readout_values(M * K)  # flat colex m + M*k
    Bt = np.eye(N, K, dtype=np.float32)  # [n, k]
    image = np.zeros(smem_bytes // 2, dtype=np.float32)  # the model's memory image in 2-byte words
    image[addr_a // 2] = A
    image[addr_b // 2] = Bt.T.reshape(-1)  # element n + N*k (colex) at addr_b
    predicted = image[read_a // 2].reshape(K, M).T  # A'[m, k] = C[m, n=k]
    nacc = size(atom.tv_layout_C[1])
    line, outs, _, _ = _wgmma_asm(atom, "SS", nacc, int(major == "MN"), 0)
    da = [d.value for d in reads.descs]
    src = render_template("wgmma_placed", {
        "KERNEL": name, "INSTR": atom.ptx, "M": M, "N": N, "K": K, "NACC": nacc, "KBLOCKS": nblk,
        "SMEM_BYTES": smem_bytes, "WGMMA": line, "SCALE_ARG": nacc + 2, "D_OPERANDS": outs,
        "DESCRIPTION": f"read-out of A ({writer_note}) through descA[0] {GmmaDescriptor.from_value(da[0])}; B = I"})
    elem = make_tiled_mma(atom).tv_layout_C.offsets().reshape(nacc, 128).T  # [t, v] -> m + 64*n
    want = predicted.T.reshape(-1)[elem]

    def inputs(xp: Any) -> list[Any]:
        return [xp.asarray(encode(A.astype(np.int64), "f16")), xp.asarray(encode(Bt.T.reshape(-1).astype(np.int64),
                                                                                    "f16")),
                xp.asarray(addr_a.astype(np.uint32)), xp.asarray(addr_b.astype(np.uint32)),
                xp.asarray(np.array(da, dtype=np.uint64)), xp.asarray(np.array(db, dtype=np.uint64)),
                xp.full(128 * nacc, np.nan, dtype=xp.float32)]

    def compare(out: list[Any], xp: Any) -> tuple[int, int, str]:
        got = _to_np(out[0]).reshape(128, nacc)
        return 128 * nacc, int((got != want).sum()), "C = A' as the model says the descriptors read it"

    case = KernelCase("wgmma_readout", f"A read-out: {writer_note}", name, src, 1, 128, inputs, (6,), compare,
                      arch="sm_90a")
    return case, predicted


def readout_c(out: np.ndarray, n: int) -> np.ndarray:
    """The ``[m, n]`` C matrix (64 x ``n``) from a read-out kernel's raw accumulator dump ``out[t * NACC + v]``."""
    atom = mma_atom(f"SM90_64x{n}x16_F32F16F16_SS")
    nacc = size(atom.tv_layout_C[1])
    elem = make_tiled_mma(atom).tv_layout_C.offsets().reshape(nacc, 128).T  # [t, v] -> m + 64*n
    c = np.empty(64 * n, dtype=np.float32)
    c[elem.reshape(-1)] = np.asarray(out, dtype=np.float32).reshape(128, nacc).reshape(-1)
    return c.reshape(n, 64).T
