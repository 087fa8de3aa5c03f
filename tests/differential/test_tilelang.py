"""layoutcheck's TileLang importer against TileLang itself (a test-only oracle, skipped when ``import tilelang``
fails; it needs ``pip install tilelang`` and a CPU build of torch, and no GPU).

Each case builds a layout with TileLang's own API, reads its ``repr`` with ``from_tilelang``, and compares, at every
point, what layoutcheck computes with what TileLang computes: a Layout's row-major offset against
``Layout.map_forward_index`` (simplified by TVM's analyzer) and TileLang's CuTe form (``cute.Layout.from_tilelang``,
``cute.ComposedLayout.from_tilelang``); a Fragment's TV table against ``Fragment.inverse()``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

tilelang = pytest.importorskip("tilelang")  # ImportError (tilelang, or the torch it loads) -> skipped

import tilelang.layout as L  # noqa: E402 - after the skip
import tvm  # noqa: E402
from tilelang.layout import cute  # noqa: E402
from tvm import tirx  # noqa: E402

from layoutcheck.algebra.linear_layout import LinearLayout  # noqa: E402
from layoutcheck.importers.cute import from_cute  # noqa: E402
from layoutcheck.importers.tilelang import (  # noqa: E402
    TileLangFragment,
    forward,
    forward_offsets,
    from_tilelang,
    tv_table,
)

SWIZZLERS = ("make_swizzled_layout", "make_full_bank_swizzled_layout", "make_half_bank_swizzled_layout",
             "make_quarter_bank_swizzled_layout", "make_wgmma_swizzled_layout", "make_tcgen05mma_swizzled_layout",
             "make_linear_layout")
CASES = [(f, d, s) for f in SWIZZLERS for d in ("float16", "int8", "float32", "float64")
         for s in ((8, 64), (16, 32), (64, 64), (32, 256), (128, 16), (48, 64), (64, 96))]


def tilelang_offsets(lay) -> np.ndarray:
    """TileLang's own forward map at every input point (colexicographic), linearized row-major."""
    an = tvm.arith.Analyzer()
    shape = [int(n) for n in lay.get_input_shape()]
    out_shape = [int(n) for n in lay.get_output_shape()]
    vals = []
    for crd in itertools.product(*(range(n) for n in reversed(shape))):
        idx = [tirx.IntImm("int32", c) for c in reversed(crd)]
        flat = 0
        for e, n in zip(lay.map_forward_index(idx), out_shape, strict=True):
            flat = flat * n + int(an.simplify(e))
        vals.append(flat)
    return np.asarray(vals)


@pytest.mark.parametrize(("maker", "dtype", "shape"), CASES, ids=lambda v: str(v))
def test_layouts_match_tilelang(maker, dtype, shape):
    buf = tirx.decl_buffer(shape, dtype, scope="shared")
    try:
        lay = getattr(L, maker)(buf)
    except Exception as e:  # TileLang refuses this combination
        pytest.skip(f"TileLang: {type(e).__name__}")
    x = from_tilelang(lay)
    ours = forward_offsets(x)
    if shape[0] * shape[1] <= 2048:
        assert np.array_equal(ours, tilelang_offsets(lay))
    got = forward(x)
    ref = cute.Layout.from_tilelang(lay) or cute.ComposedLayout.from_tilelang(lay)
    if ref is not None:
        assert not isinstance(got, LinearLayout)
        assert np.array_equal(np.asarray(got.offsets()), np.asarray(from_cute(str(ref)).layout.offsets()))
    if not isinstance(got, LinearLayout):
        assert np.array_equal(np.asarray(got.offsets()), ours)


FRAGMENTS = [
    ("8x8", lambda: L.make_gemm_fragment_8x8()),
    ("8x8^T", lambda: L.make_gemm_fragment_8x8_transposed()),
    ("8x8 x[2,2] regs", lambda: L.make_gemm_fragment_8x8().repeat([2, 2], False)),
    ("8x8 x[2,4] regs, lower first", lambda: L.make_gemm_fragment_8x8().repeat([2, 4], False, True)),
    ("8x8 x[2,4] regs, upper first", lambda: L.make_gemm_fragment_8x8().repeat([2, 4], False, False)),
    ("8x8 x[4,1] threads", lambda: L.make_gemm_fragment_8x8().repeat([4, 1], True)),
    ("8x8 x[2,2] regs x[2,2] threads",
     lambda: L.make_gemm_fragment_8x8().repeat([2, 2], False).repeat([2, 2], True)),
    ("8x8 replicate 2", lambda: L.make_gemm_fragment_8x8().replicate(2)),
    ("8x8 x[1,2] threads replicate 4", lambda: L.make_gemm_fragment_8x8().repeat([1, 2], True).replicate(4)),
    ("hand-built, replicate 2", lambda: L.Fragment(
        [16, 16], forward_thread_fn=lambda i, j, rep: (i % 8) * 4 + j // 4 + rep * 32,
        forward_index_fn=lambda i, j: j % 4 + (i // 8) * 4, replicate=2)),
]


@pytest.mark.parametrize(("name", "make"), FRAGMENTS, ids=[n for n, _ in FRAGMENTS])
def test_fragment_tv_tables_match_tilelangs_inverse(name, make):
    frag = make()
    f = from_tilelang(frag)
    assert isinstance(f, TileLangFragment)
    inv = frag.inverse()  # (register..., thread) -> (i, j, ..., rep)
    an = tvm.arith.Analyzer()
    table = tv_table(f)
    m_shape = f.input_shape
    for v, t in itertools.product(range(f.registers), range(f.thread)):
        crd = [int(an.simplify(e)) for e in inv.map_forward_index([tirx.IntImm("int32", v),
                                                                   tirx.IntImm("int32", t)])]
        tile = 0
        for c, n in zip(reversed(crd[:len(m_shape)]), reversed(m_shape), strict=True):
            tile = tile * n + c
        assert table[t + f.thread * v] == tile, (v, t)
