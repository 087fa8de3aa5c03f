"""tcgen05.ld/st atoms against NVIDIA's CuTe DSL on the CPU (``cutlass.cute.nvgpu.tcgen05``): the DSL's copy atoms for
Float32 print ``layout_src_tv`` / ``layout_dst_tv`` in 32-bit elements, i.e. ``upcast<32>`` of CUTLASS's bit layouts;
ours must agree for every shape, repetition and (un)packing. One traced function runs the whole batch. Skipped
when the DSL is not installed."""

from __future__ import annotations

import pytest

from layoutcheck.hw.copy import copy_atom, in_elements
from layoutcheck.hw.tcgen05 import TMEM_LDST_SHAPES, tmem_atom_specs

cute = pytest.importorskip("cutlass.cute")
cutlass = pytest.importorskip("cutlass")
tcgen05 = pytest.importorskip("cutlass.cute.nvgpu.tcgen05")

_OPS = {"32dp32b": "32x32b", "16dp64b": "16x64b", "16dp128b": "16x128b", "16dp256b": "16x256b", "16dp32b": "16x32bx2"}


def _dsl_op(family: str, reps: int, load: bool, packed: bool):
    cls = getattr(tcgen05, f"{'Ld' if load else 'St'}{_OPS[family]}Op")
    rep = getattr(tcgen05.Repetition, f"x{reps}")
    if load:
        return cls(rep, tcgen05.Pack.PACK_16b_IN_32b if packed else tcgen05.Pack.NONE)
    return cls(rep, tcgen05.Unpack.UNPACK_32b_IN_16b if packed else tcgen05.Unpack.NONE)


@pytest.fixture(scope="module")
def dsl_atoms() -> dict[str, tuple[str, str, str]]:
    specs = [s for s in tmem_atom_specs() if s[2] <= 32]  # x1..x32 of every shape: 120 atoms, one trace
    out: dict[str, tuple[str, str, str]] = {}

    @cute.jit
    def trace():
        for name, fam, reps, load, packed in specs:
            atom = cute.make_copy_atom(_dsl_op(fam, reps, load, packed), cutlass.Float32)
            out[name] = (str(atom.layout_src_tv), str(atom.layout_dst_tv), str(atom.thr_id))

    trace()
    return out


def test_families_cover_the_ptx_shapes() -> None:
    assert sorted(s.ptx for s in TMEM_LDST_SHAPES.values()) == [".16x128b", ".16x256b", ".16x32bx2", ".16x64b",
                                                               ".32x32b"]


def test_every_atom_agrees_with_the_cute_dsl(dsl_atoms) -> None:
    assert len(dsl_atoms) == 120
    for name, (src, dst, thr) in dsl_atoms.items():
        a = copy_atom(name)
        assert (str(in_elements(a.src_layout, 32)), str(in_elements(a.dst_layout, 32)), str(a.thr_id)) == \
            (src.replace(" ", ""), dst.replace(" ", ""), thr.replace(" ", "")), name
