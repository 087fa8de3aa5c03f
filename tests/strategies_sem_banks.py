"""Hypothesis strategies for the bank claims' semantics suite (``tests/semantics/test_sem_banks.py``).

Each draw *builds* a rank-2 shared-memory tile (``rows x cols`` elements) the canonical accesses can cover -- every
extent a multiple of 32, so each 8x16 B ldmatrix band and each warp of vectors is whole -- and makes it adversarial:
row- or column-major, padded strides (bank-shifting), a nested mode, no stride-1 mode (a split vector), swizzles
``Sw<B,M,S>`` finer than, equal to and coarser than the 16-byte ldmatrix row for the drawn dtype, and a base offset
(misaligned when it is not a multiple of the access). Returned as plain data, so the naive oracle reads the same
numbers the claim is given: ``(shape, stride, swizzle (B, M, S) or None, offset, elem_bits, kind)``.
"""

from __future__ import annotations

from hypothesis import strategies as st

MATRIX_KINDS = ("ldsm_x1", "ldsm_x2", "ldsm_x4", "ldsm_x4_trans", "stsm_x1", "stsm_x2", "stsm_x4")
VECTOR_KINDS = ("lds8", "lds16", "lds32", "lds64", "lds128", "sts8", "sts16", "sts32", "sts64", "sts128")
KIND_BYTES = {**{k: 16 for k in MATRIX_KINDS}, **{k: int(k[3:]) // 8 for k in VECTOR_KINDS}}


@st.composite
def smem_tiles(draw, kinds: tuple[str, ...] = MATRIX_KINDS + VECTOR_KINDS):
    """A rank-2 smem tile, a dtype and an access kind whose canonical access covers the tile exactly."""
    kind = draw(st.sampled_from(kinds))
    elem_bits = draw(st.sampled_from([16, 16, 8, 32, 64] if kind in MATRIX_KINDS else [8, 16, 32, 64]))
    if elem_bits > 8 * KIND_BYTES[kind]:  # a sub-element access: keep it, at the element's own width
        elem_bits = 8 * KIND_BYTES[kind]
    rows, cols = draw(st.sampled_from([32, 64])), draw(st.sampled_from([32, 64]))
    order = draw(st.sampled_from(["row", "col", "row", "col", "split"]))
    pad = draw(st.sampled_from([0, 0, 0, 1, 2, 4, 8]))
    if order == "row":  # (rows, cols):(cols + pad, 1)
        shape, stride = (rows, cols), (cols + pad, 1)
    elif order == "col":
        shape, stride = (rows, cols), (1, rows + pad)
    else:  # no stride-1 mode: every vector of more than one element is split
        step = draw(st.sampled_from([2, 3, 4]))
        shape, stride = (rows, cols), (step, step * rows + pad)
    if draw(st.booleans()) and order != "split":  # nest mode 0 as (a, rows/a) with the same offsets
        a = draw(st.sampled_from([2, 4, 8]))
        shape = ((a, rows // a), shape[1])
        stride = ((stride[0], stride[0] * a), stride[1])
    swz = None
    if draw(st.integers(0, 3)):
        b = draw(st.integers(1, 3))
        m = draw(st.integers(0, 5))  # in elements: 2**m * elem_bytes is finer / coarser than 16 B
        s = draw(st.integers(b, 7))
        swz = (b, m, s)
    offset = draw(st.sampled_from([0, 0, 0, 8, 64, 1024, 1, 3]))
    return shape, stride, swz, offset, elem_bits, kind


def wavefront_bounds(total: int) -> st.SearchStrategy[tuple[str, int]]:
    """``(param, value)`` of a ``wavefront_count`` request around ``total``: exact, one off, bounds either side."""
    return st.sampled_from([("n", total), ("n", total + 1), ("n", max(0, total - 1)), ("max", total),
                            ("max", max(0, total - 1)), ("max", total + 3)])
