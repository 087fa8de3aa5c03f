"""Hypothesis strategies for the bank model, named after the precondition they guarantee."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from layoutcheck.hw.banks import ACCESS_KINDS


@st.composite
def aligned_warp_addresses(draw, kinds: tuple[str, ...] = tuple(sorted(ACCESS_KINDS)), max_rows: int = 6):
    """``(kind, addrs)``: ``addrs[n, 32]`` byte addresses, every active lane aligned to the access size, -1 inactive.

    Covers the shapes the model distinguishes: few or many distinct units (broadcast vs conflicts), lane pairings
    ``l ^ 1``, ``l ^ 2`` (LDS.64/128 merging) and ``l ^ 4`` (measured not to merge), uniform rows, inactive lanes
    (which also disable merging), and bases above 2**31 (the int64 path of the vectorised model).
    """
    kind = ACCESS_KINDS[draw(st.sampled_from(kinds))]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, max_rows))
    pool = draw(st.sampled_from([1, 2, 3, 8, 33, 256, 5000]))
    base = draw(st.sampled_from([0, 0, 1 << 20, (1 << 33) + (1 << 12)]))
    a = base + rng.integers(0, pool, size=(n, 32)) * kind.bytes
    x = draw(st.sampled_from([0, 0, 1, 2, 4]))
    if x:
        lanes = np.arange(32)
        a = np.where((lanes & x) != 0, a[:, lanes & ~x], a)  # addr[l] == addr[l ^ x]
    if draw(st.booleans()) and n > 1:
        a[0] = a[0, 0]  # a uniform row
    drop = draw(st.sampled_from([0.0, 0.0, 0.1, 0.5, 1.0]))
    if drop:
        a[rng.random(a.shape) < drop] = -1
    return kind.name, a.astype(np.int64)
