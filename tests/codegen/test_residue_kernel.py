"""The ragged kernel's source: its index math is the model's (trees printed by ``expr.c``), for each variant."""

from __future__ import annotations

import pytest

from layoutcheck import LayoutError
from layoutcheck.codegen.residue import residue_kernel
from layoutcheck.expr.c import c_expr
from layoutcheck.expr.ir import var
from layoutcheck.gpu.residue import TV_C
from layoutcheck.models.residue import ResidueTiling


def test_c_interpreter_prints_the_model_formulas() -> None:
    t = ResidueTiling(("M", "N"), (128, 128))
    m, n, big_m, big_n = (var(k, 1 << 32) for k in ("m", "n", "M", "N"))
    assert c_expr(t.tiles(big_m, 0)) == "(((M + 128u) - 1u) / 128u)"
    assert c_expr(t.performed((m, n), (big_m, big_n))) == "((m < M) && (n < N))"
    assert c_expr(ResidueTiling(("M", "N"), (128, 128), predicate="none").performed((m, n), (big_m, big_n))) == "true"


@pytest.mark.parametrize("predicate", ["coord_lt_shape", "none"])
def test_kernel_source(predicate: str) -> None:
    src = residue_kernel(ResidueTiling(("M", "N"), (128, 128), predicate=predicate, tv=TV_C), 256)
    assert "atomicAdd(&count[m + M * n], 1u)" in src and "v < 64u" in src
    assert ("(m < M)" in src) == (predicate == "coord_lt_shape")


def test_kernel_needs_a_2d_tiling_and_whole_values() -> None:
    with pytest.raises(LayoutError, match="2-D"):
        residue_kernel(ResidueTiling(("M", "N"), (128, 128)), 100)


@pytest.mark.parametrize(("tile", "threads", "tv"), [((128, 128), 256, TV_C), ((64, 32), 128, None)])
def test_kernel_coordinates_are_the_models_at_every_index(tile, threads, tv) -> None:
    """The printed ``m`` and ``n`` (read back by ``expr.c``) are ``tile * block + tv(i)`` split colex over the tile,
    for every flat TV index ``i`` and a few blocks: the kernel runs the model's coordinates exactly."""
    import re

    import numpy as np

    from layoutcheck.expr.c import eval_c

    t = ResidueTiling(("M", "N"), tile, tv=tv)
    src = residue_kernel(t, threads).replace("blockIdx.x", "bx").replace("blockIdx.y", "by")
    m_txt, n_txt = re.search(r"unsigned m = (.*), n = (.*);", src).groups()
    i = np.arange(t.tile_size)
    local = t.local_offsets()
    for bx, by in [(0, 0), (3, 1), (7, 5)]:
        env = {"i": i, "bx": bx, "by": by}
        assert (eval_c(m_txt, env) == bx * tile[0] + local % tile[0]).all()
        assert (eval_c(n_txt, env) == by * tile[1] + local // tile[0]).all()
