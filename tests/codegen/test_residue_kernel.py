"""The ragged kernel's source: its index math is the model's (printed through CInt), for each variant."""

from __future__ import annotations

import pytest

from layoutcheck import LayoutError
from layoutcheck.codegen.residue import C, CTerm, residue_kernel
from layoutcheck.gpu.residue import TV_C
from layoutcheck.models.residue import ResidueTiling


def test_c_interpreter_prints_the_model_formulas() -> None:
    t = ResidueTiling(("M", "N"), (128, 128))
    assert t.tiles(CTerm("M"), 0, C) == "(((M + 128u) - 1u) / 128u)"
    assert t.performed((CTerm("m"), CTerm("n")), (CTerm("M"), CTerm("N")), C) == "((m < M) && (n < N))"


@pytest.mark.parametrize("predicate", ["coord_lt_shape", "none"])
def test_kernel_source(predicate: str) -> None:
    src = residue_kernel(ResidueTiling(("M", "N"), (128, 128), predicate=predicate, tv=TV_C), 256)
    assert "atomicAdd(&count[m + M * n], 1u)" in src and "v < 64u" in src
    assert ("(m < M)" in src) == (predicate == "coord_lt_shape")


def test_kernel_needs_a_2d_tiling_and_whole_values() -> None:
    with pytest.raises(LayoutError, match="2-D"):
        residue_kernel(ResidueTiling(("M", "N"), (128, 128)), 100)
