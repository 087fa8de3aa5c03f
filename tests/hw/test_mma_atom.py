"""``hw.mma_atom.MmaAtom``: thread and value counts of the bundled atoms agree with their TV layouts."""

from __future__ import annotations

from layoutcheck.algebra.layout import size
from layoutcheck.hw.mma import mma_atom
from layoutcheck.hw.mma_atom import MmaAtom

SM80 = "SM80_16x8x16_F32F16F16F32_TN"


def test_sm80_atom_counts() -> None:
    a = mma_atom(SM80)
    assert isinstance(a, MmaAtom)
    assert a.shape_mnk == (16, 8, 16)
    assert a.num_threads == 32
    assert a.values_per_thread == (8, 4, 4)  # A 16x16, B 8x16, C 16x8 over 32 threads


def test_each_tv_layout_covers_its_operand_once() -> None:
    a = mma_atom(SM80)
    m, n, k = a.shape_mnk
    for tv, extent in ((a.tv_layout_A, m * k), (a.tv_layout_B, n * k), (a.tv_layout_C, m * n)):
        assert size(tv) == extent
        assert sorted(tv(i) for i in range(extent)) == list(range(extent))


def test_str_names_shape_and_threads() -> None:
    assert str(mma_atom(SM80)).startswith(f"{SM80} [16x8x16, 32 thr] A=")
