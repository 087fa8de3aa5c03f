"""wgmma atoms against the PTX ISA fragment formulas (written here independently of the layouts), every atom."""

from __future__ import annotations

import numpy as np
import pytest

from layoutcheck.algebra.layout import size
from layoutcheck.errors import LayoutError
from layoutcheck.hw.mma import mma_atom, mma_atom_names
from layoutcheck.hw.wgmma import FAMILIES, wgmma_atoms, wgmma_family
from layoutcheck.models.tiled_mma import make_tiled_mma, ownership


def _thread_parts() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    t = np.arange(128)
    lane, warp = t % 32, t // 32
    return lane % 4, lane // 4, warp  # threadID_in_group, groupID, warp


def ptx_c(n: int) -> np.ndarray:
    """[t, i] -> m + 64*n from PTX ISA 'WGMMA .m64nNk* register fragment layout for accumulator matrix D'."""
    tig, g, w = _thread_parts()
    i = np.arange(n // 2)
    row = 16 * w[:, None] + g[:, None] + 8 * ((i >> 1) & 1)
    col = 8 * (i >> 2) + 2 * tig[:, None] + (i & 1)
    return row + 64 * col


def ptx_a(k: int) -> np.ndarray:
    """[t, i] -> m + 64*k of the register A fragment (PTX ISA 'register fragment layout for matrix A')."""
    tig, g, w = _thread_parts()
    base = 16 * w[:, None] + g[:, None]
    if k == 16:
        return ptx_c(16)
    i = np.arange(4 if k == 8 else 16)
    if k == 8:
        row, col = base + 8 * (i & 1), tig[:, None] + 4 * (i >> 1)
    else:
        row, col = base + 8 * ((i >> 2) & 1), 4 * tig[:, None] + (i & 3) + 16 * (i >> 3)
    return row + 64 * col


def tv_table(layout) -> np.ndarray:
    return layout.offsets().reshape(size(layout[1]), 128).T


def test_count_and_names() -> None:
    atoms = wgmma_atoms()
    assert len(atoms) == 912
    assert {"SM90_64x128x16_F32F16F16_SS", "SM90_64x8x16_F16F16F16_RS", "SM90_64x256x8_F32TF32TF32_SS_TN",
            "SM90_64x24x32_F32E4M3E5M2_RS_TN", "SM90_64x48x32_S32U8S8_SS_TN"} <= set(atoms)
    assert "SM90_64x40x32_S32S8S8_SS_TN" not in atoms  # integer N above 32 steps by 16
    assert set(atoms) <= set(mma_atom_names())


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.tag)
def test_atoms_match_ptx_fragments(family) -> None:
    names = [n for n in wgmma_atoms() if f"_{family.tag}_" in n]
    assert len(names) == 2 * len(family.ns)
    for name in names:
        _check_atom(name)


def _check_atom(name: str) -> None:
    a = mma_atom(name)
    fam = wgmma_family(name)
    m, n, k = a.shape_mnk
    assert (m, k) == (64, fam.k) and n in fam.ns
    assert np.array_equal(tv_table(a.tv_layout_C), ptx_c(n))
    if name.endswith(("_RS", "_RS_TN")):
        assert np.array_equal(tv_table(a.tv_layout_A), ptx_a(k))
    else:  # shared memory: every thread sees the whole tile through the descriptor
        assert a.tv_layout_A.offsets().reshape(64 * k, 128)[:, 0].tolist() == list(range(64 * k))
    assert np.all(a.tv_layout_B.offsets().reshape(n * k, 128) == np.arange(n * k)[:, None])


def test_families_cover_the_ptx_type_table() -> None:
    tags = {f.tag for f in FAMILIES}
    assert "F16BF16BF16" not in tags  # bf16 accumulates in f32 only
    assert len(tags) == 16


def test_unknown_atom_suggests() -> None:
    with pytest.raises(LayoutError, match="did you mean SM90_64x128x16_F32F16F16_SS"):
        mma_atom("SM90_64x128x16_F32F16F16")


@pytest.mark.parametrize("layout", [(2, 1, 1), (1, 2, 1), (2, 2, 1)])
def test_tiled_wgmma_c_exact_cover(layout: tuple[int, int, int]) -> None:
    t = make_tiled_mma("SM90_64x64x16_F32F16F16_SS", layout)
    assert t.size == 128 * layout[0] * layout[1]
    own = ownership(t, "C")
    assert own.replication == 1
    # warpgroup w along M owns rows 64*(w % AtomsM) .. + 63 (CuTe's column-major atom layout)
    wg = own.thread[:, :, 0] // 128
    assert np.all(wg[:64, :64] == 0) and np.all(wg[64:, :64] == 1 if layout[0] == 2 else True)
