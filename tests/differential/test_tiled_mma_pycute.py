"""partition_A/B/C against the same CuTe recipe evaluated with NVIDIA's pycute algebra (skipped without pycute).

pycute has no TiledMMA, so the recipe of ``thrfrg_C`` is spelled out with its free functions: logical_divide by
the permutation, zipped_divide by the atom shape, compose mode 0 with the atom TV layout, logical_divide the rest
by the thread counts; a thread ``(v, m, n)``'s value ``(fv, rm, rn)`` sits at ``tv(v, fv) + rest((m, rm), (n, rn))``.
"""

from __future__ import annotations

import itertools

import pytest

pycute = pytest.importorskip("pycute")

from layoutcheck import Layout, size  # noqa: E402
from layoutcheck.models.tiled_mma import make_tiled_mma  # noqa: E402


def _pc(l: Layout):
    return pycute.Layout(l.shape, l.stride)


def _pc_tiler(p, extent: int):
    if p is None:
        return pycute.Layout(extent)
    if isinstance(p, int):
        return pycute.Layout(p)
    return _pc(p)


def _pycute_partition(tiled, operand: str, tensor: Layout, tid: int) -> list[int]:
    i0, i1 = {"C": (0, 1), "A": (0, 2), "B": (1, 2)}[operand]
    atom = tiled.atom
    tv = {"C": atom.tv_layout_C, "A": atom.tv_layout_A, "B": atom.tv_layout_B}[operand]
    tile = tiled.tile_size_mnk
    t = pycute.logical_divide(_pc(tensor), (_pc_tiler(tiled.permutation[i0], tile[i0]),
                                            _pc_tiler(tiled.permutation[i1], tile[i1])))
    z = pycute.zipped_divide(t, (pycute.Layout(atom.shape_mnk[i0]), pycute.Layout(atom.shape_mnk[i1])))
    atom_tv = pycute.composition(z[0], _pc(tv))
    t0, t1 = tiled.thr_size(i0 + 1), tiled.thr_size(i1 + 1)
    rest = pycute.logical_divide(z[1], (pycute.Layout(t0), pycute.Layout(t1)))
    v, *mnk = tiled.get_slice(tid).thr_vmnk
    c0, c1 = mnk[i0], mnk[i1]
    r0, r1 = size(tensor[0]) // (atom.shape_mnk[i0] * t0), size(tensor[1]) // (atom.shape_mnk[i1] * t1)
    nv = size(tv[1])
    return [atom_tv(v, fv) + rest((c0, q0), (c1, q1))
            for q1, q0, fv in itertools.product(range(r1), range(r0), range(nv))]


CONFIGS = [
    ("UniversalFMA", (16, 16), (Layout((16, 4), (4, 1)), Layout((16, 4), (4, 1)), None), (128, 128)),
    ("UniversalFMA", Layout((16, 16), (16, 1)), (Layout((16, 8), (8, 1)), Layout((16, 2), (2, 1)), None), (128, 64)),
    ("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (32, 32, 16), (128, 128)),
    ("SM80_16x8x8_F32TF32TF32F32_TN", (2, 2, 1), (32, Layout((4, 2, 2), (2, 1, 8)), 8), (64, 32)),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c[0])
@pytest.mark.parametrize("operand", ["A", "B", "C"])
def test_partition_agrees_with_pycute(cfg, operand: str) -> None:
    name, al, perm, (rows, cols) = cfg
    tiled = make_tiled_mma(name, al, perm)
    kt = 2 * tiled.tile_size_mnk[2]
    shape = {"C": (rows, cols), "A": (rows, kt), "B": (cols, kt)}[operand]
    tensor = Layout(shape, (shape[1] + 1, 1))
    for tid in range(0, tiled.size, 7):
        ours = getattr(tiled.get_slice(tid), f"partition_{operand}")(tensor).offsets().tolist()
        assert ours == _pycute_partition(tiled, operand, tensor, tid), f"thread {tid}"
