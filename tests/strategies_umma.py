"""Hypothesis strategies for the Blackwell (tcgen05) models, named after the precondition they guarantee."""

from __future__ import annotations

from hypothesis import strategies as st

from layoutcheck.hw.tcgen05 import DTYPE_BITS, UMMA_SMEM_DESCRIPTOR, umma_swizzle

_SW = ["SWIZZLE_NONE", "SWIZZLE_32B", "SWIZZLE_64B", "SWIZZLE_128B", "SWIZZLE_128B_BASE32B"]


@st.composite
def canonical_descriptors(draw):
    """A descriptor CUTLASS's make_umma_desc can produce, with the (dtype, major, shape) of the tile it describes."""
    dtype = draw(st.sampled_from(["f16", "tf32", "e4m3"]))
    major = draw(st.sampled_from(["K", "MN"]))
    sw = umma_swizzle(draw(st.sampled_from(_SW if major == "MN" else _SW[:4])))
    t = 128 // DTYPE_BITS[dtype]
    if major == "K":
        mn, k = 8 * draw(st.integers(2, 16)), 2 * t
        lbo = draw(st.integers(1, (1 << 14) - 1)) if sw.bits == 0 else 1
    else:
        rows = 4 if sw.name == "SWIZZLE_128B_BASE32B" else 8
        mn, k = sw.mn_units * t * draw(st.integers(2, 4)), rows * draw(st.integers(2, 4))
        lbo = draw(st.integers(1, (1 << 14) - 1))
    sbo = draw(st.integers(1, (1 << 14) - 1))
    start = draw(st.integers(0, (1 << 14) - 1))
    fields = {"start_address": start, "leading_byte_offset": lbo, "stride_byte_offset": sbo, "version": 1,
              "layout_type": sw.code}
    return UMMA_SMEM_DESCRIPTOR.pack(fields), dtype, major, (mn, k)


