"""Hypothesis strategies for the block-scale semantics suite (``tests/semantics/test_sem_block_scale.py``).

They build adversarial inputs rather than filter for them: operand extents that are not multiples of 128 rows or of
4 scale columns (the interleave's padding), K not a multiple of ``vec`` (a partial last vector), 16- and 32-element
vectors on either side, every named layout against every other, and CuTe layouts a kernel might write by hand: the
interleave with one stride changed, a row-major layout with a padded row pitch, a layout that is not constant on a K
vector (one byte per element), a stride-0 row mode. Schedules: plain, swizzled and grouped rasters, scales taken
from the scheduled tile or the raw block index, tiles smaller and larger than one 128-row block.
"""

from __future__ import annotations

from hypothesis import strategies as st

NAMES = ("128x4", "32_4_4", "sm1xx_sfa", "sm1xx_sfb", "linear", "linear_mn")


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


@st.composite
def hand_written_layouts(draw, mn: int, k: int, vec: int) -> tuple[tuple, tuple]:
    """``(shape, stride)`` of a CuTe layout ``(mn, k) -> byte`` covering the operand, as a kernel might write it."""
    ks = _ceil(k, vec)
    form = draw(st.sampled_from(("interleave", "interleave_bent", "pitched", "per_element", "stride0_rows")))
    if form.startswith("interleave"):
        mb, kb = _ceil(mn, 128), _ceil(ks, 4)
        st_m = [16, 4, 512 * kb]
        st_k = [0, 1, 512]
        if form == "interleave_bent":  # one stride off: a hand-derived formula with a slip
            which = draw(st.integers(0, 4))
            delta = draw(st.sampled_from((-1, 1, 2)))
            (st_m if which < 3 else st_k)[which % 3 if which < 3 else which - 2] += delta
        return ((32, 4, mb), (vec, 4, kb)), (tuple(st_m), tuple(st_k))
    if form == "pitched":
        pitch = ks + draw(st.integers(0, 3))
        return (mn, (vec, ks)), (pitch, (0, 1))
    if form == "per_element":
        return (mn, k), (k, 1)
    return (mn, (vec, ks)), (0, (0, 1))


def layout_text(shape, stride) -> str:
    def show(t) -> str:
        return str(t) if isinstance(t, int) else "(" + ",".join(show(x) for x in t) + ")"

    return f"{show(shape)}:{show(stride)}"


@st.composite
def scale_sides(draw, mn: int, k: int) -> dict:
    """One side of ``scale_agreement``: ``{"name": ..., "vec": ..., "cute": (shape, stride) | None}``."""
    vec = draw(st.sampled_from((16, 32)))
    if draw(st.integers(0, 3)) == 0:
        shape, stride = draw(hand_written_layouts(mn, k, vec))
        return {"name": layout_text(shape, stride), "vec": vec, "cute": (shape, stride)}
    return {"name": draw(st.sampled_from(NAMES)), "vec": vec, "cute": None}


@st.composite
def scale_agreements(draw) -> dict:
    """``scale_agreement`` inputs: extents around the 128-row and 4-column block edges, two sides."""
    mn = draw(st.sampled_from((1, 31, 32, 33, 96, 127, 128, 129, 200, 256, 257)))
    k = draw(st.sampled_from((16, 32, 48, 64, 100, 128, 130, 192, 256, 320, 512)))
    producer = draw(scale_sides(mn, k))
    consumer = draw(st.one_of(st.just(dict(producer)), scale_sides(mn, k)))
    return {"mn": mn, "k": k, "producer": producer, "consumer": consumer}


@st.composite
def scale_schedules(draw) -> dict:
    """``scale_follows_tile`` inputs over a small box of grids."""
    kind = draw(st.sampled_from(("plain", "swizzle", "grouped")))
    params = {"plain": {}, "swizzle": {"log": draw(st.integers(0, 2))},
              "grouped": {"group": draw(st.integers(1, 4)), "ctas": draw(st.integers(1, 6))}}[kind]
    lo_m, lo_n = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return {"scheduler": kind, **params,
            "grids": ((lo_m, lo_m + draw(st.integers(0, 3))), (lo_n, lo_n + draw(st.integers(0, 3)))),
            "operand": draw(st.sampled_from(("A", "B"))),
            "tile": (draw(st.sampled_from((32, 64, 128, 256))), draw(st.sampled_from((32, 64, 128, 256)))),
            "k": draw(st.sampled_from((32, 64, 100, 256))), "vec": draw(st.sampled_from((16, 32))),
            "layout": draw(st.sampled_from(NAMES)), "reads": draw(st.sampled_from(("scheduled", "block_index")))}
