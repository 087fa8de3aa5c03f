"""Bank conflicts of Triton layouts (issue #29): the vectorised shared addresses equal ``LinearLayout.apply`` per
(register, lane), on every (register, shared) pair of the Triton differential cases that share a shape."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from layoutcheck.algebra.linear_layout import LinearLayout
from layoutcheck.errors import LayoutError
from layoutcheck.importers.triton import from_triton
from layoutcheck.properties.linear import one_cta, shared_addresses, vector_width

TRITON_CASES = pytest.importorskip("tests.differential.test_triton")


def _by_apply(reg: LinearLayout, shared: LinearLayout, elem_bits: int, vec: int) -> np.ndarray:
    inv = one_cta(shared).invert()
    to_off = reg.transpose_outs(inv.in_dims).with_in_dims(["register", "lane", "warp", "block"]).compose(inv)
    return np.array([[to_off.apply({"register": r, "lane": ln})[0] for ln in range(32)]
                     for r in range(0, to_off.in_dim_size("register"), vec)], dtype=np.int64) * (elem_bits // 8)


def _pairs() -> list[tuple[str, str, tuple[int, ...]]]:
    dist = [(t, tuple(s)) for t, _, s in TRITON_CASES.distributed_cases()]
    shared = [(t, tuple(s)) for t, _, s in TRITON_CASES.shared_cases() if "padded" not in t]
    return [(d, s, ds) for (d, ds), (s, ss) in itertools.product(dist, shared) if ds == ss]


def test_vectorised_addresses_equal_apply() -> None:
    checked = 0
    for dt, st, shape in _pairs():
        reg, sh = from_triton(dt, shape), from_triton(st, shape)
        for bits in (8, 16, 32):
            try:
                vec = vector_width(reg, sh, bits)
                want = _by_apply(reg, sh, bits, vec)
            except LayoutError:
                with pytest.raises(LayoutError):
                    shared_addresses(reg, sh, bits, vector_width(reg, sh, bits))
                continue
            assert np.array_equal(shared_addresses(reg, sh, bits, vec), want), (dt, st, shape, bits)
            checked += 1
    assert checked > 100
