"""The fused ownership compare (``templates/ownership_compare.cu``), without a GPU: its oracle expression, evaluated
with C semantics for every element, is the inverse of the ownership kernel's own index expression, so the one-pass
check "owner[e] == inverse(e) % T*V and count[e] == 1" accepts exactly the correct ownership maps."""

from __future__ import annotations

import re

import numpy as np
import pytest

from layoutcheck.codegen.bundle import bundled_cases
from layoutcheck.codegen.cases import big_ownership_case
from layoutcheck.expr.c import eval_c

CASES = [c for c in bundled_cases() if c.kernel == "ownership"] + [big_ownership_case(256)]


def _forward(case) -> tuple[np.ndarray, np.ndarray]:
    """(offset, owner id) of every (t, v, b), from the ownership kernel's source."""
    expr = re.search(r"const unsigned off = (.*);", case.source).group(1)
    V = int(re.search(r"v < (\d+)u", case.source).group(1))
    t, v, b = (a.ravel() for a in np.meshgrid(np.arange(case.block), np.arange(V), np.arange(case.grid),
                                              indexing="ij"))
    return eval_c(expr, {"t": t, "v": v, "b": b}).astype(np.int64), t + case.block * v


def _fused_oracle(case, n: int) -> np.ndarray:
    src = case.compare_source
    inv = re.search(r"expected_owner\(const unsigned e\) \{ return \((.*)\) % (\d+)u; \}", src)
    return eval_c(inv.group(1), {"e": np.arange(n, dtype=np.uint32)}).astype(np.int64) % int(inv.group(2))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_fused_oracle_is_the_inverse_of_the_kernel_map(case) -> None:
    assert case.compare_source, "every bundled ownership map is a bijection: it gets the fused compare"
    off, ids = _forward(case)
    n = off.size
    owner = np.zeros(n, dtype=np.int64)
    owner[off] = ids
    assert np.array_equal(_fused_oracle(case, n), owner)
    assert np.array_equal(np.sort(off), np.arange(n))  # and the kernel's map covers every element once


def test_the_fused_compare_catches_a_wrong_owner_and_a_double_count() -> None:
    case = big_ownership_case(256)
    off, ids = _forward(case)
    owner, count = np.zeros(off.size, np.int64), np.zeros(off.size, np.int64)
    owner[off], count[off] = ids, 1
    expected = _fused_oracle(case, off.size)
    owner[17] += 1
    count[99] = 2
    wrong = (owner != expected) | (count != 1)
    assert np.flatnonzero(wrong).tolist() == [17, 99]
