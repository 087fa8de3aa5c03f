"""Kernel generation without a GPU: sources are reproducible, and their index maps equal the oracles' layouts."""

from __future__ import annotations

import re

import numpy as np
import pytest

from layoutcheck import Layout
from layoutcheck.codegen.bundle import bundled_cases
from layoutcheck.codegen.cases import big_ownership_case, permute_case, seed_simt_tiled_mma, tiled_c_tv
from layoutcheck.expr.c import eval_c
from layoutcheck.gpu.build import generate_sources, main
from layoutcheck.models.tiled_mma import ownership


def _offset_expr(src: str) -> str:
    return re.search(r"const unsigned off = (.*);", src).group(1)


def test_sources_are_reproducible_and_complete() -> None:
    a, b = generate_sources(), generate_sources()
    assert a == b
    for name, src in a.items():
        assert "{{" not in src and f" {name}(" in src
        assert '#include "' not in src  # self-contained: fragments are inlined, NVRTC needs no include path


@pytest.mark.parametrize("case", [c for c in bundled_cases() if c.kernel == "ownership"], ids=lambda c: c.name)
def test_ownership_kernel_map_equals_oracle(case) -> None:
    """Evaluate the kernel's emitted offset for every (t, v, b) and run the oracle comparison on it."""
    expr = _offset_expr(case.source)
    V = int(re.search(r"v < (\d+)u", case.source).group(1))
    t, v, b = np.meshgrid(np.arange(case.block), np.arange(V), np.arange(case.grid), indexing="ij")
    off = eval_c(expr, {"t": t.ravel(), "v": v.ravel(), "b": b.ravel()}).astype(np.int64)
    owner, count = (np.zeros_like(x) for x in case.inputs(np))
    owner[off] = (t + case.block * v).ravel()
    np.add.at(count, off, 1)
    checked, bad, note = case.compare([owner, count], np)
    assert bad == 0, note
    assert checked == owner.size


def test_big_ownership_offsets_sample() -> None:
    case = big_ownership_case(8192)
    assert case.grid == 8192 * 8192 // (64 * 64)
    expr = _offset_expr(case.source)
    assert "/" not in expr and "%" not in expr  # powers of two only: shifts and masks


def test_simt_tv_equals_tiled_mma_ownership() -> None:
    tiled = seed_simt_tiled_mma()
    tv = tiled_c_tv(tiled, (128, 128))
    own = ownership(tiled, "C", Layout((128, 128)))
    off = tv.offsets().reshape(-1, own.num_threads).T  # colex (t, v) -> [t, v]
    assert np.array_equal(off % 128, own.row_of) and np.array_equal(off // 128, own.col_of)
    # CuTe's column-major atom layout: thread 1 is the next row group, not the next column group (seed 004)
    assert sorted(set(own.row_of[1].tolist())) == [4, 5, 6, 7, 68, 69, 70, 71]


def test_permute_xor_out_of_range_rejected() -> None:
    from layoutcheck.errors import LayoutError

    with pytest.raises(LayoutError, match="outside"):
        permute_case(xor_bits=3, shift=2)


def test_cli_usage() -> None:
    assert main([]) == 2
