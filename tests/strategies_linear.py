"""Hypothesis strategies for linear layouts, named after the precondition they guarantee."""

from __future__ import annotations

from hypothesis import strategies as st

from layoutcheck.algebra.linear_layout import LinearLayout

IN_DIMS = ("register", "lane", "warp")


@st.composite
def linear_layouts(draw, max_in_bits: int = 8, max_out_bits: int = 7) -> LinearLayout:
    """Any linear layout: up to 3 input dims, 1..3 output dims, every basis inside the output shape."""
    outs = draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))
    while sum(outs) > max_out_bits:
        outs[outs.index(max(outs))] -= 1
    out_dims = {f"dim{k}": 1 << b for k, b in enumerate(outs)}
    nin = draw(st.integers(1, 3))
    bases = {}
    budget = max_in_bits
    for name in IN_DIMS[:nin]:
        k = draw(st.integers(0, min(4, budget)))
        budget -= k
        bases[name] = [[draw(st.integers(0, s - 1)) for s in out_dims.values()] for _ in range(k)]
    return LinearLayout.make(bases, out_dims)


@st.composite
def permutation_layouts(draw, max_bits: int = 7) -> LinearLayout:
    """Bijective linear layouts: an invertible GF(2) matrix (a product of row operations on the identity)."""
    outs = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    while sum(outs) > max_bits:
        outs[outs.index(max(outs))] -= 1
    n = sum(outs)
    cols = [1 << j for j in range(n)]
    for _ in range(draw(st.integers(0, 2 * n))):
        a, b = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        if a != b:
            cols[a] ^= cols[b]
    cols = draw(st.permutations(cols))
    shape = [1 << b for b in outs]
    shifts = [sum(outs[:k]) for k in range(len(outs))]
    bases = [[(c >> sh) & (s - 1) for sh, s in zip(shifts, shape, strict=True)] for c in cols]
    split = draw(st.integers(0, n))
    return LinearLayout.make({"register": bases[:split], "lane": bases[split:]},
                             {f"dim{k}": s for k, s in enumerate(shape)})
