"""Differential atom truth tables: layoutcheck's mma.sync atoms (hw/mma.py, CuTe's SM80 TV layouts) against
Triton's linear layouts of the same instruction (``#ttg.nvidia_mma`` v2 for C, ``#ttg.dot_op`` for A and B) on one
warp and one instruction tile. Both sides are converted to ``(lane, register) -> (row, col)`` and compared basis by
basis, i.e. for every (thread, value) pair. Triton's side is computed by ``from_triton`` (itself checked against
Triton's C++ in test_triton.py) and, when Triton is installed, by Triton directly.
"""

from __future__ import annotations

import pytest

from layoutcheck.algebra.linear_layout import LinearLayout, linear_from_cute
from layoutcheck.hw.mma import mma_atom
from layoutcheck.importers.triton import from_triton

MMA = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>"

# (atom, kWidth = 32 / element bits): Triton's dot_op tile is 16 x 8*kWidth (A) and 8*kWidth x 8 (B)
ATOMS = [("SM80_16x8x16_F32F16F16F32_TN", 2), ("SM80_16x8x16_F16F16F16F16_TN", 2),
         ("SM80_16x8x16_F32BF16BF16F32_TN", 2), ("SM80_16x8x8_F32TF32TF32F32_TN", 1),
         ("SM80_16x8x32_S32S8S8S32_TN", 4)]


def cute_side(tv, rows: int, cols: int, transposed: bool = False) -> LinearLayout:
    """A CuTe TV layout ``(T32, V) -> r + rows*c`` as ``(lane, register) -> (dim0, dim1)``; ``transposed`` when the
    atom's index is ``c + cols*r`` (CuTe's B is ``n + N*k`` while Triton's B tensor is ``[K, N]``)."""
    nval = tv.offsets().size // 32
    if transposed:
        ll = linear_from_cute(tv, {"lane": 32, "register": nval}, {"dim1": cols, "dim0": rows})
        return ll.transpose_outs(["dim0", "dim1"])
    return linear_from_cute(tv, {"lane": 32, "register": nval}, {"dim0": rows, "dim1": cols})


def triton_side(encoding: str, shape: list[int]) -> LinearLayout:
    ll = from_triton(encoding, shape)
    assert not ll.bases["warp"] and not ll.bases["block"]
    return ll.transpose_ins(["lane", "register", "warp", "block"])


def _same(a: LinearLayout, b: LinearLayout) -> bool:
    return all(a.bases.get(n, []) == b.bases.get(n, []) for n in ("lane", "register")) and a.out_dims == b.out_dims


@pytest.mark.parametrize(("name", "kw"), ATOMS)
def test_mma_sync_atoms_equal_tritons(name, kw):
    atom = mma_atom(name)
    m, n, k = atom.shape_mnk
    assert k == 8 * kw
    assert _same(cute_side(atom.tv_layout_C, m, n), triton_side(MMA, [m, n])), "C"
    assert _same(cute_side(atom.tv_layout_A, m, k), triton_side(
        f"#ttg.dot_op<{{opIdx = 0, parent = {MMA}, kWidth = {kw}}}>", [m, k])), "A"
    assert _same(cute_side(atom.tv_layout_B, k, n, transposed=True), triton_side(
        f"#ttg.dot_op<{{opIdx = 1, parent = {MMA}, kWidth = {kw}}}>", [k, n])), "B"


def test_triton_itself_agrees():
    gl = pytest.importorskip("triton.experimental.gluon.language")
    lib = pytest.importorskip("triton._C.libtriton")
    ctx = lib.ir.context()
    lib.ir.load_dialects(ctx)
    b = lib.gluon_ir.GluonOpBuilder(ctx)
    mma = gl.NVMMADistributedLayout([2, 0], [1, 1], [16, 8])
    atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN")
    got = b.to_linear_layout(gl.DotOperandLayout(0, mma, 2)._to_ir(b), [16, 16])
    mine = cute_side(atom.tv_layout_A, 16, 16)
    assert got.lane_bases == mine.bases["lane"] and got.reg_bases == mine.bases["register"]


# -- SM90 wgmma (hw/wgmma.py) against #nvidia_mma v3 / #dot_op<{opIdx = 0}> (A from registers) -------------------
def wgmma_cases():
    from layoutcheck.hw.wgmma import wgmma_atoms

    atoms = wgmma_atoms()
    for tag, bits in (("F32F16F16", 16), ("F32BF16BF16", 16), ("F32TF32TF32", 32), ("S32S8S8", 8),
                      ("F32E4M3E4M3", 8)):
        for n in (8, 16, 64, 128, 256):
            names = [k for k in atoms if f"x{n}x" in k and tag in k and k.endswith(("RS", "RS_TN"))]
            for name in names:
                yield name, 32 // bits


def cute_side_wg(tv, rows: int, cols: int) -> LinearLayout:
    """A warpgroup TV layout ``(T128, V) -> r + rows*c`` as ``(lane, warp, register) -> (dim0, dim1)``."""
    nval = tv.offsets().size // 128
    return linear_from_cute(tv, {"lane": 32, "warp": 4, "register": nval}, {"dim0": rows, "dim1": cols})


def _same_wg(a: LinearLayout, b: LinearLayout) -> bool:
    return all(a.bases.get(n, []) == b.bases.get(n, []) for n in ("lane", "warp", "register")) and \
        a.out_dims == b.out_dims


WGMMA = list(wgmma_cases())


def test_wgmma_cases_exist():
    assert len(WGMMA) >= 20


@pytest.mark.parametrize(("name", "kw"), WGMMA)
def test_wgmma_atoms_equal_tritons(name, kw):
    from layoutcheck.hw.wgmma import wgmma_atoms

    atom = wgmma_atoms()[name]
    m, n, k = atom.shape_mnk
    parent = (f"#ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = "
              f"[16, {n}, {k}]}}>")
    tri_c = from_triton(parent, [m, n]).transpose_ins(["lane", "warp", "register", "block"])
    assert _same_wg(cute_side_wg(atom.tv_layout_C, m, n), tri_c), "C"
    tri_a = from_triton(f"#ttg.dot_op<{{opIdx = 0, parent = {parent}, kWidth = {kw}}}>", [m, k])
    assert _same_wg(cute_side_wg(atom.tv_layout_A, m, k), tri_a.transpose_ins(["lane", "warp", "register", "block"])), \
        "A"
