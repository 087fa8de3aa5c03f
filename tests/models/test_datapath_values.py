"""``models.datapath_values``: the accesses a hop issues."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st


@given(st.lists(st.integers(0, 64), min_size=0, max_size=8), st.integers(1, 16))
def test_disjoint_accesses_report_each_overlap_against_a_pairwise_reading(starts: list[int], size: int) -> None:
    """``Accesses.overlapping`` (TMA boxes of one stage may not share a byte): some access starts inside another's
    bytes exactly when two of the ``[start, start + size)`` ranges meet (the naive pairwise reading); each row it
    gives is such a pair."""
    import numpy as np

    from layoutcheck.models.datapath_values import Accesses

    acc = Accesses("smem", np.arange(len(starts)), np.array(starts, dtype=np.int64), size, 1, 1 << 20, "test",
                   disjoint=True)
    meet = any(a < b + size and b < a + size for i, a in enumerate(starts) for b in starts[i + 1:])
    rows = acc.overlapping()
    assert bool(rows.size) == meet
    for k, j in rows:
        assert k != j and starts[j] <= starts[k] < starts[j] + size
    plain = Accesses("smem", np.arange(len(starts)), np.array(starts, dtype=np.int64), size, 1, 1 << 20, "test")
    assert not plain.overlapping().size
