"""The data path's matrix-copy hops against NVIDIA's CuTe DSL (``nvidia-cutlass-dsl``, CPU tracing): the DSL's
``make_tiled_copy_A/B/C`` of ldmatrix / stmatrix on a 2x2x1 tiled mma.sync m16n8k16 says which tile element each lane's
row starts at (its shared-memory TV layout) and which element each register holds (its register TV layout); its
``make_tiled_copy_tv`` of cp.async gives the thread copies' ``(thread, value) -> tile index`` (``copy_tv``). The
hardware then moves 16 contiguous bytes per row from the address a lane supplies; ``models.datapath_hops.row_addresses``
must predict the same address for every register, for a layout whose offsets reveal any mix-up (1000 * tile index).
Skipped when the DSL is not installed."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
cute = pytest.importorskip("cutlass.cute")
cutlass = pytest.importorskip("cutlass")

import numpy as np  # noqa: E402

from layoutcheck.algebra.layout import size  # noqa: E402
from layoutcheck.algebra.notation import parse_layout  # noqa: E402
from layoutcheck.hw.copy import copy_atom, in_elements  # noqa: E402
from layoutcheck.models.datapath_fragments import fragment  # noqa: E402
from layoutcheck.models.datapath_hops import row_addresses  # noqa: E402
from layoutcheck.models.tiled_mma import make_tiled_mma  # noqa: E402

CASES = {  # name -> (our atom, operand, DSL transpose, tile of the DSL's tiler)
    "A": ("SM75_U32x4_LDSM_N", "A", False, (32, 16)),
    "B_trans": ("SM75_U16x8_LDSM_T", "B", True, (32, 16)),
    "B": ("SM75_U32x4_LDSM_N", "B", False, (32, 16)),
    "C": ("SM90_U32x4_STSM_N", "C", False, (32, 32)),
}


THREAD_COPIES = {  # name -> (threads, values) of make_tiled_copy (CUTLASS's SM80 K-major and MN-major cp.async)
    "cp_async_K": ((32, 4), (4, 1), (1, 8)),
    "cp_async_MN": ((16, 8), (1, 16), (8, 1)),
}


def _copies(out: dict[str, tuple[str, str, str]]) -> None:
    from cutlass.cute.nvgpu import cpasync, warp

    g2s = cute.make_copy_atom(cpasync.CopyG2SOp(), cutlass.Float16, num_bits_per_copy=128)
    for name, (shape, stride, val) in THREAD_COPIES.items():
        tc = cute.make_tiled_copy_tv(g2s, cute.make_layout(shape, stride=stride), cute.make_layout(val))
        out[name] = (str(tc.layout_tv_tiled), "", str(tc.tiler_mn))

    op = warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (16, 8, 16))
    t = cute.make_tiled_mma(op, cute.make_layout((2, 2, 1)), permutation_mnk=(32, 32, 16))
    for name, (_, operand, trans, _) in CASES.items():
        if operand == "C":
            atom = cute.make_copy_atom(warp.StMatrix8x8x16bOp(trans, 4), cutlass.Float16)
            tc = cute.make_tiled_copy_C(atom, t)
        else:
            atom = cute.make_copy_atom(warp.LdMatrix8x8x16bOp(trans, 4), cutlass.Float16)
            tc = (cute.make_tiled_copy_A if operand == "A" else cute.make_tiled_copy_B)(atom, t)
        out[name] = (str(tc.layout_src_tv_tiled), str(tc.layout_dst_tv_tiled), str(tc.tiler_mn))


def _dsl() -> dict[str, tuple[str, str, str]]:
    out: dict[str, tuple[str, str, str]] = {}

    @cute.jit
    def run():
        _copies(out)

    run()
    return out


def _table(tv_text: str) -> np.ndarray:
    lay = parse_layout(tv_text)
    return lay.offsets().reshape(size(lay[1]), size(lay[0])).T  # [thread, value] -> tile index


@pytest.fixture(scope="module")
def dsl() -> dict[str, tuple[str, str, str]]:
    try:
        return _dsl()
    except Exception as e:  # an op the installed DSL version spells differently: say so, do not pass silently
        pytest.skip(f"CuTe DSL could not build the copies: {type(e).__name__}: {str(e)[:200]}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matrix_copy_addresses_equal_cute(dsl, name):
    atom_name, operand, _, tile = CASES[name]
    src, dst, _ = dsl[name]
    smem_tv, reg_tv = (_table(src), _table(dst)) if operand != "C" else (_table(dst), _table(src))
    mma = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (32, 32, 16))
    frag = fragment(mma, operand, tile)
    assert np.array_equal(frag.tile, reg_tv)  # the copy's registers are the MMA fragment, value for value
    atom = copy_atom(atom_name)
    reg = in_elements(atom.dst_layout if operand != "C" else atom.src_layout, 16)
    e = reg.offsets().reshape(size(reg[1]), 32).T  # [lane, value] -> reference element (row * 8 + j)
    offsets = 1000 * np.arange(tile[0] * tile[1])
    ours = row_addresses(atom, 16, frag.tile, offsets, "write" if operand == "C" else "read")
    for t in range(frag.tile.shape[0]):
        for v in range(frag.values):
            row, j = divmod(int(e[t % 32, v]), 8)
            lane = 32 * (t // 32) + row  # lane `row` of the same warp supplies that row's address (x4)
            assert ours[t, v] == 1000 * smem_tv[lane, 0] + j, (name, t, v)


@pytest.mark.parametrize("name", sorted(THREAD_COPIES))
def test_copy_tv_equals_cute_make_tiled_copy(dsl, name):
    from layoutcheck.algebra.layout import Layout
    from layoutcheck.models.datapath_fragments import copy_tv

    shape, stride, val = THREAD_COPIES[name]
    theirs, _, tiler = dsl[name]
    tile = tuple(int(x.split(":")[0]) for x in tiler.strip("()").split(", "))
    ours = copy_tv(Layout(shape, stride), Layout(val), tile)
    assert np.array_equal(ours.offsets(), parse_layout(theirs).offsets())
