"""MMA atom TV layouts against the PTX ISA fragment formulas, rebuilt here independently of the CuTe layouts.

Each ``_ptx_*`` function is a transcription of the PTX ISA section 9.7.14.5 "Matrix Fragments for mma.mXnYkZ"
formulas: ``g = groupID = lane >> 2``, ``t = threadID_in_group = lane % 4``; A fragments give (row=m, col=k),
B fragments (row=k, col=n), C/D fragments (row=m, col=n). The layout must send ``(lane, i)`` to ``m + M*k``,
``n + N*k`` and ``m + M*n`` respectively (CuTe's column-major tile index).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from layoutcheck import Layout, LayoutError, size
from layoutcheck.hw.mma import all_mma_atoms, mma_atom, mma_atom_names

Frag = Callable[[int, int], tuple[int, int]]  # (lane, i) -> (row, col)


def _g(lane: int) -> int:
    return lane >> 2


def _t(lane: int) -> int:
    return lane % 4


# -- C/D: m16n8 (all m16n8kX): row = g + 8*(i>=2), col = 2t + (i&1); m8n8: row = g, col = 2t + i ----------------
def c_m16n8(l: int, i: int) -> tuple[int, int]:
    return _g(l) + 8 * (i >= 2), 2 * _t(l) + (i & 1)


def c_m8n8(l: int, i: int) -> tuple[int, int]:
    return _g(l), 2 * _t(l) + i


# -- f16/bf16 ------------------------------------------------------------------------------------------------------
def a_m16n8k16_f16(l: int, i: int) -> tuple[int, int]:
    row = _g(l) if (0 <= i < 2 or 4 <= i < 6) else _g(l) + 8
    col = 2 * _t(l) + (i & 1) + (8 if i >= 4 else 0)
    return row, col


def b_m16n8k16_f16(l: int, i: int) -> tuple[int, int]:
    return 2 * _t(l) + (i & 1) + (8 if i >= 2 else 0), _g(l)


def a_m16n8k8_f16(l: int, i: int) -> tuple[int, int]:
    return _g(l) + (8 if i >= 2 else 0), 2 * _t(l) + (i & 1)


def b_m16n8k8_f16(l: int, i: int) -> tuple[int, int]:
    return 2 * _t(l) + i, _g(l)


# -- tf32 ----------------------------------------------------------------------------------------------------------
def a_m16n8k8_tf32(l: int, i: int) -> tuple[int, int]:
    return _g(l) + (8 if i in (1, 3) else 0), _t(l) + (4 if i >= 2 else 0)


def b_m16n8k8_tf32(l: int, i: int) -> tuple[int, int]:
    return _t(l) + 4 * i, _g(l)


def a_m16n8k4_tf32(l: int, i: int) -> tuple[int, int]:
    return _g(l) + 8 * i, _t(l)


def b_m16n8k4_tf32(l: int, i: int) -> tuple[int, int]:
    return _t(l), _g(l)


# -- f64 m8n8k4 ----------------------------------------------------------------------------------------------------
def a_m8n8k4_f64(l: int, i: int) -> tuple[int, int]:
    return _g(l), _t(l)


def b_m8n8k4_f64(l: int, i: int) -> tuple[int, int]:
    return _t(l), _g(l)


# -- s8 ------------------------------------------------------------------------------------------------------------
def a_m8n8k16_s8(l: int, i: int) -> tuple[int, int]:
    return _g(l), 4 * _t(l) + i


def b_m8n8k16_s8(l: int, i: int) -> tuple[int, int]:
    return 4 * _t(l) + i, _g(l)


def a_m16n8k16_s8(l: int, i: int) -> tuple[int, int]:
    return _g(l) + (8 if i >= 4 else 0), 4 * _t(l) + (i & 3)


def b_m16n8k16_s8(l: int, i: int) -> tuple[int, int]:
    return 4 * _t(l) + i, _g(l)


def a_m16n8k32_s8(l: int, i: int) -> tuple[int, int]:
    row = _g(l) if (i < 4 or 8 <= i < 12) else _g(l) + 8
    return row, 4 * _t(l) + (i & 3) + (16 if i >= 8 else 0)


def b_m16n8k32_s8(l: int, i: int) -> tuple[int, int]:
    return 4 * _t(l) + (i & 3) + (16 if i >= 4 else 0), _g(l)


PTX: dict[str, tuple[Frag, Frag, Frag]] = {
    "SM80_16x8x8_F16F16F16F16_TN": (a_m16n8k8_f16, b_m16n8k8_f16, c_m16n8),
    "SM80_16x8x8_F32F16F16F32_TN": (a_m16n8k8_f16, b_m16n8k8_f16, c_m16n8),
    "SM80_16x8x8_F32BF16BF16F32_TN": (a_m16n8k8_f16, b_m16n8k8_f16, c_m16n8),
    "SM80_16x8x16_F16F16F16F16_TN": (a_m16n8k16_f16, b_m16n8k16_f16, c_m16n8),
    "SM80_16x8x16_F32F16F16F32_TN": (a_m16n8k16_f16, b_m16n8k16_f16, c_m16n8),
    "SM80_16x8x16_F32BF16BF16F32_TN": (a_m16n8k16_f16, b_m16n8k16_f16, c_m16n8),
    "SM80_16x8x4_F32TF32TF32F32_TN": (a_m16n8k4_tf32, b_m16n8k4_tf32, c_m16n8),
    "SM80_16x8x8_F32TF32TF32F32_TN": (a_m16n8k8_tf32, b_m16n8k8_tf32, c_m16n8),
    "SM80_8x8x4_F64F64F64F64_TN": (a_m8n8k4_f64, b_m8n8k4_f64, c_m8n8),
    "SM80_8x8x16_S32S8S8S32_TN": (a_m8n8k16_s8, b_m8n8k16_s8, c_m8n8),
    "SM80_16x8x16_S32S8S8S32_TN": (a_m16n8k16_s8, b_m16n8k16_s8, c_m16n8),
    "SM80_16x8x32_S32S8S8S32_TN": (a_m16n8k32_s8, b_m16n8k32_s8, c_m16n8),
}


def _tv_from_ptx(frag: Frag, nvals: int, rows: int, kind: str) -> list[list[int]]:
    """``[lane][i] -> column-major tile index``: A ``m + M*k``, B ``n + N*k`` (row is k, col is n), C ``m + M*n``."""
    out = []
    for lane in range(32):
        row_vals = []
        for i in range(nvals):
            r, c = frag(lane, i)
            row_vals.append(c + rows * r if kind == "B" else r + rows * c)
        out.append(row_vals)
    return out


@pytest.mark.parametrize("name", sorted(PTX))
@pytest.mark.parametrize("operand", ["A", "B", "C"])
def test_tv_layout_matches_ptx_formulas(name: str, operand: str) -> None:
    atom = mma_atom(name)
    m, n, _ = atom.shape_mnk
    tv = {"A": atom.tv_layout_A, "B": atom.tv_layout_B, "C": atom.tv_layout_C}[operand]
    frag = dict(zip("ABC", PTX[name], strict=True))[operand]
    rows = {"A": m, "B": n, "C": m}[operand]
    nvals = size(tv[1])
    expected = _tv_from_ptx(frag, nvals, rows, operand)
    got = [[tv(lane, i) for i in range(nvals)] for lane in range(32)]
    assert got == expected


@pytest.mark.parametrize("atom", [a for a in all_mma_atoms() if not a.name.startswith("SM90_")], ids=lambda a: a.name)
def test_tv_layouts_are_bijections_onto_the_tiles(atom) -> None:
    m, n, k = atom.shape_mnk
    for tv, extent in ((atom.tv_layout_A, m * k), (atom.tv_layout_B, n * k), (atom.tv_layout_C, m * n)):
        assert size(tv[0]) == atom.num_threads
        assert sorted(tv.offsets().tolist()) == list(range(extent))


def test_every_sm80_atom_is_checked_against_ptx() -> None:
    # the SM90 wgmma atoms are checked against their PTX fragments in tests/hw/test_wgmma.py
    assert {n for n in mma_atom_names() if not n.startswith("SM90_")} - {"UniversalFMA"} == set(PTX)


def test_universal_fma() -> None:
    a = mma_atom("UniversalFMA")
    assert a.shape_mnk == (1, 1, 1) and a.num_threads == 1 and a.values_per_thread == (1, 1, 1)


def test_fact_sheet_entries() -> None:
    # hardware-facts.md section 3, restated: all agree with CUTLASS / PTX (checked above).
    assert str(mma_atom("SM80_16x8x16_F16F16F16F16_TN").tv_layout_A) == "((4,8),(2,2,2)):((32,1),(16,8,128))"
    assert str(mma_atom("SM80_16x8x16_S32S8S8S32_TN").tv_layout_A) == "((4,8),(4,2)):((64,1),(16,8))"
    assert str(mma_atom("SM80_8x8x4_F64F64F64F64_TN").tv_layout_C) == "((4,8),2):((16,1),8)"
    # lane 0's A elements of m16n8k16 (m,k): (0,0),(0,1),(8,0),(8,1),(0,8),(0,9),(8,8),(8,9)
    a = mma_atom("SM80_16x8x16_F32F16F16F32_TN").tv_layout_A
    assert [divmod(a(0, i), 16)[::-1] for i in range(8)] == [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9),
                                                              (8, 8), (8, 9)]


def test_unknown_name_suggests_close_names() -> None:
    with pytest.raises(LayoutError, match="SM80_16x8x16_F32F16F16F32_TN"):
        mma_atom("SM80_16x8x16_F32F16F16F32")
    with pytest.raises(LayoutError, match="unknown MMA atom"):
        mma_atom("zzz")
    with pytest.raises(LayoutError):
        mma_atom(Layout(4))  # type: ignore[arg-type]
