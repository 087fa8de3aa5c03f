"""Hypothesis strategies for the cta_group::2 and tcgen05.cp semantics oracles
(``tests/semantics/test_sem_tcgen05_paths.py``).

``pairs``: a 2-SM UMMA operand (A or B, 128 or 256 rows over the pair) whose two peer CTAs load rows ``peer_rows``
into CTAs ``peer_cta``: the right split, swapped halves, both into one CTA, both loading one half, a half offset by
the other operand's extent, a CTA past the pair, rows before the tile -- and the consistent double swap (CTA 0 loads
the second half into CTA 1), which is right. ``copies``: one tcgen05.cp shape, element width and column, with the
image of its own shape or of another shape, the consumer's column the copy's or another, a column near the end.
"""

from __future__ import annotations

from hypothesis import strategies as st

SHAPES = [".128x256b", ".128x128b", ".4x256b", ".64x128b.warpx2::02_13", ".64x128b.warpx2::01_23",
          ".32x128b.warpx4"]


@st.composite
def pairs(draw) -> dict:
    mn = draw(st.sampled_from([128, 256]))
    half = mn // 2
    right = draw(st.booleans())  # half the cases start from the right split (then the double swap, or one change)
    rows = [0, half] if right else draw(st.sampled_from([[half, 0], [0, 0], [half, half], [0, mn], [-half, 0],
                                                         [0, 64], [half // 2, half]]))
    cta = [0, 1] if right and draw(st.booleans()) else draw(st.sampled_from([[0, 1], [1, 0], [0, 0], [1, 1],
                                                                             [0, 2]]))
    return {"operand": draw(st.sampled_from(["A", "B"])), "mn": mn, "peer_rows": rows, "peer_cta": cta}


def image(shape: str, bits: int) -> str:
    """The image of ``shape`` over ``bits``-bit elements as a CuTe layout text, written from the PTX ISA's words
    (one row's elements on consecutive slots; the rows on the lanes the shape names)."""
    e = {".128x256b": 256, ".4x256b": 256}.get(shape, 128) // bits
    return {".128x256b": f"(128,{e}):(1,128)", ".128x128b": f"(128,{e}):(1,128)", ".4x256b": f"(4,{e}):(32,128)",
            ".64x128b.warpx2::02_13": f"(64,{e},2):(1,128,64)",
            ".64x128b.warpx2::01_23": f"((32,2),{e},2):((1,64),128,32)",
            ".32x128b.warpx4": f"(32,{e},4):(1,128,32)"}[shape]


@st.composite
def copies(draw) -> dict:
    shape = draw(st.sampled_from(SHAPES))
    bits = draw(st.sampled_from([8, 16, 32]))
    believed = draw(st.sampled_from([shape, shape, *SHAPES]))
    column = draw(st.sampled_from([0, 4, 8, 500, 504, 508, 511]))
    read = draw(st.sampled_from([column, column, 0, 4]))
    return {"shape": shape, "bits": bits, "column": column, "read_column": read, "layout": image(believed, bits)}
