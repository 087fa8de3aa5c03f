"""MMA atoms as data: the thread-value (TV) layouts of one hardware matrix-multiply instruction.

An atom computes ``D[M,N] = A[M,K] * B[N,K]^T + C[M,N]`` for one warp (or one thread for ``UniversalFMA``). Its
operands are spread over the threads as CuTe's TV layouts (CUTLASS ``include/cute/atom/mma_traits_sm80.hpp``)::

    tv_layout_A : (thread, value) -> m + M*k      column-major index in the M x K tile
    tv_layout_B : (thread, value) -> n + N*k      column-major index in the N x K tile (B is stored "N x K", TN)
    tv_layout_C : (thread, value) -> m + M*n      column-major index in the M x N tile

``thread`` is the lane (``thr_id`` maps the atom's logical thread to a thread index, ``32:1`` for a warp) and
``value`` is the register element index (``a0, a1, ...`` in the PTX ISA's fragment tables, low to high).

Worked example, ``mma.m16n8k16`` C/D (PTX ISA 9.7.14.5.8, "Matrix Fragments for mma.m16n8k16 with floating point
type"): lane ``l``, ``groupID = l >> 2``, ``threadID_in_group = l % 4``; ``c_i`` sits at
``row = groupID + 8*(i >= 2)``, ``col = 2*threadID_in_group + (i & 1)``. As a CuTe layout this is
``((4,8),(2,2)):((32,1),(16,8))`` (``SM80_16x8_Row``): lane ``(t, g)`` = ``(threadID_in_group, groupID)`` and
value ``(i&1, i>>1)`` give ``m + 16*n = g + 8*(i>>1) + 16*(2t + (i&1))``.

Every atom's layouts are checked in ``tests/hw/test_mma.py`` against TV maps built independently from the PTX
formulas. ``/work/shared/reference/hardware-facts.md`` section 3 agrees with CUTLASS and the PTX ISA for every entry
it lists (checked there too).
"""

from __future__ import annotations

from functools import cache

from layoutcheck.algebra.layout import Layout
from layoutcheck.errors import LayoutError
from layoutcheck.hw.mma_atom import MmaAtom

_TRAITS = "CUTLASS include/cute/atom/mma_traits_sm80.hpp"
_PTX = "PTX ISA 9.7.14.5 'Matrix Fragments for mma.{shape}'"


# -- the shared TV layouts of mma_traits_sm80.hpp (signature: (T32,V) -> tile index) -------------------------------
SM80_8x4 = Layout(((4, 8), 1), ((8, 1), 0))  # (T32,V1) -> (M8,K4)
SM80_8x8_Row = Layout(((4, 8), 2), ((16, 1), 8))  # (T32,V2) -> (M8,N8)
SM80_8x16_Row = Layout(((4, 8), 4), ((32, 1), 8))  # (T32,V4) -> (M8,K16)
SM80_16x8_Row = Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))  # (T32,V4) -> (M16,N8)

_A_16x16_F16 = Layout(((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128)))  # (T32,V8) -> (M16,K16)
_B_8x16_F16 = Layout(((4, 8), (2, 2)), ((16, 1), (8, 64)))  # (T32,V4) -> (N8,K16)
_A_16x8_TF32 = Layout(((4, 8), (2, 2)), ((16, 1), (8, 64)))  # (T32,V4) -> (M16,K8)
_B_8x8_TF32 = Layout(((4, 8), 2), ((8, 1), 32))  # (T32,V2) -> (N8,K8)
_A_16x4_TF32 = Layout(((4, 8), 2), ((16, 1), 8))  # (T32,V2) -> (M16,K4)
_A_16x16_S8 = Layout(((4, 8), (4, 2)), ((64, 1), (16, 8)))  # (T32,V8) -> (M16,K16)
_A_16x32_S8 = Layout(((4, 8), (4, 2, 2)), ((64, 1), (16, 8, 256)))  # (T32,V16) -> (M16,K32)
_B_8x32_S8 = Layout(((4, 8), (4, 2)), ((32, 1), (8, 128)))  # (T32,V8) -> (N8,K32)

_WARP = Layout(32)


def _sm80(name: str, mnk: tuple[int, int, int], a: Layout, b: Layout, c: Layout, types: str, ptx: str,
          section: str) -> MmaAtom:
    d, ta, tb, tc = types.split()
    return MmaAtom(name, mnk, _WARP, a, b, c, ta, tb, tc, d, ptx,
                   f"{_TRAITS} MMA_Traits<{name}>; {_PTX.format(shape=section)}")


@cache
def _table() -> dict[str, MmaAtom]:
    atoms = [
        # (T1,V1) -> (M1,K1) etc.; CuTe's compact Layout<Shape<_1,_1>> is (_1,_1):(_0,_0) (size-1 modes get stride 0)
        MmaAtom("UniversalFMA", (1, 1, 1), Layout(1, 0), Layout((1, 1), (0, 0)), Layout((1, 1), (0, 0)),
                Layout((1, 1), (0, 0)),
                "f32", "f32", "f32", "f32", "fma",
                "CUTLASS include/cute/atom/mma_traits.hpp MMA_Traits<UniversalFMA<D,A,B,C>> (one thread, 1x1x1)"),
        # f16 / bf16, m16n8k8
        _sm80("SM80_16x8x8_F16F16F16F16_TN", (16, 8, 8), SM80_16x8_Row, SM80_8x8_Row, SM80_16x8_Row,
              "f16 f16 f16 f16", "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", "m16n8k8"),
        _sm80("SM80_16x8x8_F32F16F16F32_TN", (16, 8, 8), SM80_16x8_Row, SM80_8x8_Row, SM80_16x8_Row,
              "f32 f16 f16 f32", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", "m16n8k8"),
        _sm80("SM80_16x8x8_F32BF16BF16F32_TN", (16, 8, 8), SM80_16x8_Row, SM80_8x8_Row, SM80_16x8_Row,
              "f32 bf16 bf16 f32", "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", "m16n8k8"),
        # f16 / bf16, m16n8k16
        _sm80("SM80_16x8x16_F16F16F16F16_TN", (16, 8, 16), _A_16x16_F16, _B_8x16_F16, SM80_16x8_Row,
              "f16 f16 f16 f16", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", "m16n8k16"),
        _sm80("SM80_16x8x16_F32F16F16F32_TN", (16, 8, 16), _A_16x16_F16, _B_8x16_F16, SM80_16x8_Row,
              "f32 f16 f16 f32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "m16n8k16"),
        _sm80("SM80_16x8x16_F32BF16BF16F32_TN", (16, 8, 16), _A_16x16_F16, _B_8x16_F16, SM80_16x8_Row,
              "f32 bf16 bf16 f32", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "m16n8k16"),
        # tf32
        _sm80("SM80_16x8x4_F32TF32TF32F32_TN", (16, 8, 4), _A_16x4_TF32, SM80_8x4, SM80_16x8_Row,
              "f32 tf32 tf32 f32", "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", "m16n8k4"),
        _sm80("SM80_16x8x8_F32TF32TF32F32_TN", (16, 8, 8), _A_16x8_TF32, _B_8x8_TF32, SM80_16x8_Row,
              "f32 tf32 tf32 f32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "m16n8k8"),
        # f64
        _sm80("SM80_8x8x4_F64F64F64F64_TN", (8, 8, 4), SM80_8x4, SM80_8x4, SM80_8x8_Row,
              "f64 f64 f64 f64", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", "m8n8k4"),
        # s8
        _sm80("SM80_8x8x16_S32S8S8S32_TN", (8, 8, 16), SM80_8x16_Row, SM80_8x16_Row, SM80_8x8_Row,
              "s32 s8 s8 s32", "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32", "m8n8k16"),
        _sm80("SM80_16x8x16_S32S8S8S32_TN", (16, 8, 16), _A_16x16_S8, SM80_8x16_Row, SM80_16x8_Row,
              "s32 s8 s8 s32", "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32", "m16n8k16"),
        _sm80("SM80_16x8x32_S32S8S8S32_TN", (16, 8, 32), _A_16x32_S8, _B_8x32_S8, SM80_16x8_Row,
              "s32 s8 s8 s32", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "m16n8k32"),
    ]
    return {a.name: a for a in atoms}


@cache
def _atoms() -> dict[str, MmaAtom]:
    from layoutcheck.hw.wgmma import wgmma_atoms  # the SM90 warpgroup atoms (built on first use)

    return _table() | wgmma_atoms()


@cache
def _names() -> frozenset[str]:
    from layoutcheck.hw.wgmma import wgmma_atom_names

    return frozenset(_table()) | frozenset(wgmma_atom_names())


def _lookup(name: str) -> MmaAtom | None:
    """The atom called ``name`` or ``None``; a wgmma atom is built on first use (912 of them, a config needs one)."""
    from layoutcheck.hw.wgmma import wgmma_atom

    if name in _table():
        return _table()[name]
    return wgmma_atom(name) if name in _names() else None


def mma_atom_names() -> list[str]:
    return sorted(_names())


def all_mma_atoms() -> list[MmaAtom]:
    return [_atoms()[n] for n in mma_atom_names()]


def mma_atom(name: str | MmaAtom) -> MmaAtom:
    """The atom called ``name`` (CUTLASS spelling); an atom passes through.

    Pre: ``name`` is one of ``mma_atom_names()``. Post: the atom's TV layouts cover its tiles exactly once (C) or
    exactly once per thread-replica (A, B).

    >>> str(mma_atom("SM80_16x8x16_F32F16F16F32_TN").tv_layout_C)
    '((4,8),(2,2)):((32,1),(16,8))'
    """
    if isinstance(name, MmaAtom):
        return name
    if not isinstance(name, str):
        raise LayoutError(f"MMA atom must be a name or an MmaAtom, found {name!r}")
    atom = _lookup(name)
    if atom is not None:
        return atom
    names = mma_atom_names()
    from difflib import get_close_matches  # only a miss pays for the import

    close = get_close_matches(name, names, n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; known atoms: {', '.join(names)}"
    raise LayoutError(f"unknown MMA atom {name!r}{hint}")
