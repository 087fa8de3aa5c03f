"""SM90 warpgroup MMA (``wgmma.mma_async``) atoms as data: their A (register form), B and C/D thread-value layouts.

One ``wgmma`` computes ``D[64,N] = A[64,K] * B[N,K]^T + C`` for a *warpgroup* of 128 threads (4 consecutive warps).
A and B come from shared memory through matrix descriptors (``_SS``), or A from registers (``_RS``); C/D always live
in registers. CuTe writes the operands over ``(thread, value)`` exactly as for ``mma.sync`` (``layoutcheck.hw.mma``)::

    tv_layout_A : (T128, V) -> m + 64*k     RS: the register fragment; SS: (128,(64,K)):(0,(1,64)), every thread
                                            "sees" the whole tile (the descriptor, not the thread, addresses it)
    tv_layout_B : (T128, V) -> n + N*k      always a descriptor: (128,(N,K)):(0,(1,N))
    tv_layout_C : (T128, V) -> m + 64*n     ((4,8,4),(2,2,N/8)):((128,1,16),(64,8,512))

The C/D fragment (PTX ISA 9.7.15.5.1, "Register Fragments and Shared Memory Matrix Layouts", figure "WGMMA .m64nNk16
register fragment layout for accumulator matrix D"): thread ``t`` = ``lane + 32*warp``, ``groupID = lane >> 2``,
``threadID_in_group = lane % 4``; its ``d_i`` (``i < N/2``) sits at::

    row = 16*warp + groupID + 8*((i >> 1) & 1)          col = 8*(i >> 2) + 2*threadID_in_group + (i & 1)

so warp ``w`` owns rows ``16w..16w+15`` -- four ``mma.m16n8`` C fragments stacked along M, repeated ``N/8`` times
along N. Worked example, thread 37 (warp 1, lane 5: groupID 1, threadID_in_group 1), ``d_6``: row ``16+1+8 = 25``,
col ``8+2+0 = 10``; CuTe: ``t = (1,1,1)``, ``v = (0,1,1)`` -> ``128 + 1 + 16 + 8 + 512 = 665 = 25 + 64*10``.

The A register fragments (same section, "register fragment layout for matrix A") follow the ``mma.m16n8kK`` A
fragments per warp, with the warp picking its 16 rows: 16-bit ``m64k16`` as C above (N=16); tf32 ``m64k8`` at
``row = 16w + g + 8*(i & 1)``, ``col = t + 4*(i >> 1)``; 8-bit ``m64k32`` at ``row = 16w + g + 8*((i >> 2) & 1)``,
``col = 4t + (i & 3) + 16*(i >> 3)``.

Legal shapes (PTX ISA 9.7.15.5, wgmma.mma_async "Matrix shapes"): ``m64nNk16`` for f16/bf16, ``m64nNk8`` for tf32,
``m64nNk32`` for e4m3/e5m2 with every ``N`` in ``8..256`` step 8; ``m64nNk32`` for s8/u8 with ``N`` in
``{8, 16, 24}`` and ``32..256`` step 16. bf16 accumulates in f32 only; tf32 and 8-bit operands must be K-major
(CuTe names those atoms ``..._TN``); 16-bit atoms take the majors as template parameters (no suffix).

Names are CuTe's (``include/cute/atom/mma_traits_sm90_gmma.hpp`` and ``mma_traits_sm90_gmma_ext.hpp``): e.g.
``SM90_64x128x16_F32F16F16_SS``, ``SM90_64x24x16_F16F16F16_RS``, ``SM90_64x64x8_F32TF32TF32_SS_TN``,
``SM90_64x256x32_F32E4M3E5M2_RS_TN``, ``SM90_64x48x32_S32U8S8_SS_TN`` (the ``_SATURATE`` integer variants share
their layouts and are not listed). Every atom is an ``MmaAtom`` reachable through ``layoutcheck.hw.mma.mma_atom``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from layoutcheck.algebra.layout import Layout
from layoutcheck.hw.bitfields import BitField, DescriptorFormat
from layoutcheck.hw.dtypes import bits_of
from layoutcheck.hw.mma_atom import MmaAtom

_TRAITS = "CUTLASS include/cute/atom/mma_traits_sm90_gmma.hpp (+ _ext.hpp)"
_PTX = "PTX ISA 9.7.15.5 'Asynchronous Warpgroup Level Matrix Multiply-Accumulate' (register fragments, shapes)"

WARPGROUP = Layout(128)
"""``ThrID`` of every wgmma atom: 128 threads, 4 consecutive warps (``warpgroup = tid / 128``)."""

_THR = (4, 8, 4)  # (threadID_in_group, groupID, warp)


def c_layout_64xN(n: int) -> Layout:
    """CuTe's ``GMMA::CLayout_64xN<N>``: ``(T128, V N/2) -> m + 64*n`` (module docstring).

    >>> str(c_layout_64xN(16))
    '((4,8,4),(2,2,2)):((128,1,16),(64,8,512))'
    """
    return Layout((_THR, (2, 2, n // 8)), ((128, 1, 16), (64, 8, 512)))


A_LAYOUT_64x8 = Layout((_THR, (2, 2)), ((64, 1, 16), (8, 256)))  # (T128,V4) -> (M64,K8), tf32 in registers
A_LAYOUT_64x16 = c_layout_64xN(16)  # (T128,V8) -> (M64,K16), 16-bit in registers
A_LAYOUT_64x32 = Layout((_THR, (4, 2, 2)), ((256, 1, 16), (64, 8, 1024)))  # (T128,V16) -> (M64,K32), 8-bit


def ab_layout(mn: int, k: int) -> Layout:
    """CuTe's ``GMMA::ABLayout<MN,K>``: ``(T128, (MN,K)) -> mn + MN*k`` with a stride-0 thread mode (shared memory).

    >>> str(ab_layout(64, 16))
    '(128,(64,16)):(0,(1,64))'
    """
    return Layout((128, (mn, k)), (0, (1, mn)))


@dataclass(frozen=True, slots=True)
class WgmmaFamily:
    """One operand-type family: ``D`` / ``A`` / ``B`` types as CuTe spells them, K, the legal N and the RS A layout."""

    tag: str  # e.g. "F32F16F16" (D, A, B in CuTe's order)
    dtype_d: str
    dtype_a: str
    dtype_b: str
    k: int
    ns: tuple[int, ...]
    a_regs: Layout  # the register A fragment of the _RS form
    k_major_only: bool  # tf32 and 8-bit: CuTe appends _TN

    @property
    def ptx_types(self) -> str:
        return f"{self.dtype_d}.{self.dtype_a}.{self.dtype_b}"


_N_ALL = tuple(range(8, 257, 8))
_N_INT = (8, 16, 24, *range(32, 257, 16))


def _families() -> tuple[WgmmaFamily, ...]:
    fams = [WgmmaFamily("F16F16F16", "f16", "f16", "f16", 16, _N_ALL, A_LAYOUT_64x16, False),
            WgmmaFamily("F32F16F16", "f32", "f16", "f16", 16, _N_ALL, A_LAYOUT_64x16, False),
            WgmmaFamily("F32BF16BF16", "f32", "bf16", "bf16", 16, _N_ALL, A_LAYOUT_64x16, False),
            WgmmaFamily("F32TF32TF32", "f32", "tf32", "tf32", 8, _N_ALL, A_LAYOUT_64x8, True)]
    for d in ("f16", "f32"):
        for a in ("e4m3", "e5m2"):
            for b in ("e4m3", "e5m2"):
                fams.append(WgmmaFamily(f"{d}{a}{b}".upper(), d, a, b, 32, _N_ALL, A_LAYOUT_64x32, True))
    for a in ("s8", "u8"):
        for b in ("s8", "u8"):
            fams.append(WgmmaFamily(f"S32{a}{b}".upper(), "s32", a, b, 32, _N_INT, A_LAYOUT_64x32, True))
    return tuple(fams)


FAMILIES: tuple[WgmmaFamily, ...] = _families()


def wgmma_name(family: WgmmaFamily, n: int, a_source: str) -> str:
    """CuTe's name: ``SM90_64x{N}x{K}_{tag}_{SS|RS}`` plus ``_TN`` for the K-major-only families.

    >>> wgmma_name(FAMILIES[1], 128, "SS")
    'SM90_64x128x16_F32F16F16_SS'
    """
    return f"SM90_64x{n}x{family.k}_{family.tag}_{a_source}" + ("_TN" if family.k_major_only else "")


def _atom(family: WgmmaFamily, n: int, a_source: str) -> MmaAtom:
    k = family.k
    a = family.a_regs if a_source == "RS" else ab_layout(64, k)
    ptx = f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{family.ptx_types}"
    return MmaAtom(wgmma_name(family, n, a_source), (64, n, k), WARPGROUP, a, ab_layout(n, k), c_layout_64xN(n),
                   family.dtype_a, family.dtype_b, family.dtype_d, family.dtype_d, ptx,
                   f"{_TRAITS} MMA_Traits<{wgmma_name(family, n, a_source)}>; {_PTX}")


@cache
def _index() -> dict[str, tuple[WgmmaFamily, int, str]]:
    """CuTe name -> (family, N, A source) of every wgmma atom: the names without building the atoms."""
    return {wgmma_name(f, n, src): (f, n, src) for f in FAMILIES for n in f.ns for src in ("SS", "RS")}


def wgmma_atom_names() -> list[str]:
    """Every wgmma atom's CuTe name (SS and RS, every legal N of every family), in table order."""
    return list(_index())


@cache
def wgmma_atom(name: str) -> MmaAtom:
    """The wgmma atom called ``name``, built on first use; ``KeyError`` when not a wgmma atom.

    >>> str(wgmma_atom("SM90_64x8x16_F32F16F16_SS").tv_layout_C)
    '((4,8,4),(2,2,1)):((128,1,16),(64,8,512))'
    """
    return _atom(*_index()[name])


@cache
def wgmma_atoms() -> dict[str, MmaAtom]:
    """Every wgmma atom by CuTe name (SS and RS, every legal N of every family): 912 atoms."""
    return {name: wgmma_atom(name) for name in _index()}


@cache
def wgmma_family(name: str) -> WgmmaFamily:
    """The family of atom ``name`` (its operand types, K and RS layout); ``KeyError`` when not a wgmma atom."""
    return _index()[name][0]


# -- the shared-memory matrix descriptor (wgmma's A and B operands) ---------------------------------------------------
_PTX_DESC = "PTX ISA 9.7.15.5.1.2 'Matrix Descriptor Format' (wgmma)"
_CUTLASS_DESC = "CUTLASS include/cute/arch/mma_sm90_desc.hpp union GmmaDescriptor"
_UNDEFINED = f"{_PTX_DESC}: not in the table; {_CUTLASS_DESC}: unused"
GMMA_DESCRIPTOR = DescriptorFormat(
    "wgmma matrix descriptor", 64,
    (BitField("start_address", 0, 14, f"{_PTX_DESC}: matrix-descriptor-encode(start address)", unit=16),
     BitField("reserved_14", 14, 2, _UNDEFINED, reserved=True),
     BitField("leading_byte_offset", 16, 14, f"{_PTX_DESC}: matrix-descriptor-encode(LBO)", unit=16),
     BitField("reserved_30", 30, 2, _UNDEFINED, reserved=True),
     BitField("stride_byte_offset", 32, 14, f"{_PTX_DESC}: matrix-descriptor-encode(SBO)", unit=16),
     BitField("reserved_46", 46, 3, _UNDEFINED, reserved=True),
     BitField("base_offset", 49, 3, f"{_PTX_DESC}: matrix base offset (not for the no-swizzle mode)"),
     BitField("reserved_52", 52, 10, _UNDEFINED, reserved=True),
     BitField("layout_type", 62, 2, f"{_PTX_DESC}: swizzle mode 0 none, 1 128B, 2 64B, 3 32B",
              codes=(0, 1, 2, 3))),
    f"{_PTX_DESC}; {_CUTLASS_DESC}")
"""(64-bit word) -> start address, LBO, SBO (bytes >> 4: ``matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4``), base
offset, layout type (CUTLASS: start_address_ [0,14), leading_byte_offset_ [16,30), stride_byte_offset_ [32,46),
base_offset_ [49,52), layout_type_ [62,64)). Bits 14-15, 30-31, 46-48, 52-61 are not defined: a word with one set is
not modelled (a Blackwell descriptor's ``0b001`` at bits 46-48, for one)."""

GMMA_DESCRIPTOR_FIELDS: tuple[BitField, ...] = tuple(f for f in GMMA_DESCRIPTOR.fields if not f.reserved)
"""The five value fields of ``GMMA_DESCRIPTOR``, in bit order."""

GMMA_LAYOUT_TYPE: dict[str, int] = {"INTER": 0, "SW128": 1, "SW64": 2, "SW32": 3}
"""Swizzle mode -> ``layout_type`` code (PTX ISA: 0 no swizzle, 1 128B, 2 64B, 3 32B; CUTLASS ``GMMA::LayoutType``)."""

GMMA_PATTERN_BYTES: dict[str, int] = {"INTER": 128, "SW32": 256, "SW64": 512, "SW128": 1024}
"""Bytes after which a swizzle pattern repeats (PTX ISA: 'starting address of the repeating pattern': 1024 / 512 /
256-byte boundaries for 128B / 64B / 32B). For INTER the 8x16-byte core matrix (128 B) is listed for uniformity."""

GMMA_BITS: dict[str, int] = bits_of(("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8"))
"""Element widths of wgmma's shared-memory operand types (PTX ISA 9.7.15.5 'Matrix data types')."""

GMMA_K_BYTES = 32
"""Bytes of K one dense wgmma reads per row: K = 16 / 8 / 32 elements of 16- / 32- / 8-bit (CuTe: two uint128_t)."""
