"""Hypothesis strategies for the multicast semantics suite: cluster shapes up to 16 CTAs, tile extents that the
cluster divides and that it does not, and the formulas kernels write -- right, split along the wrong axis, masks
shifted by the wrong coordinate or missing CTAs, slices one short or one long."""

from __future__ import annotations

from hypothesis import strategies as st

SLICE_START = ["y * (MN / CN)", "x * (MN / CM)", "y * (MN / CN) + 1", "(x + y * CM) * (MN / (CM * CN))", "0",
               "y * (MN / CM)"]
SLICE_ROWS = ["MN / CN", "MN / CM", "MN", "MN / CN + 1", "MN / (CM * CN)", "1"]
MASK = ["row_mask << x", "column_mask << (y * CM)", "row_mask << y", "1 << (x + y * CM)", "row_mask", "0",
        "(1 << (CM * CN)) - 1", "row_mask << (x + 1)"]
NEEDS = ["x", "y", "0", "x + y * CM"]


@st.composite
def multicasts(draw) -> dict:
    cm = draw(st.integers(1, 4))
    cn = draw(st.integers(1, max(1, 16 // cm)))
    return {"cluster": [cm, cn], "operand": draw(st.sampled_from(["A", "B"])),
            "extent": draw(st.sampled_from([1, 8, 12, 16, 64, 96, 128])),
            "slice_start": draw(st.sampled_from(SLICE_START)), "slice_rows": draw(st.sampled_from(SLICE_ROWS)),
            "mask": draw(st.sampled_from(MASK)), "needs": draw(st.sampled_from(NEEDS))}
