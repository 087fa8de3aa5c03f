"""Hypothesis strategies for TV maps written as formulas: sums of ``(t % a) * s``, ``(t / a) * s`` and the same of
``v`` (strides that tile, overlap, leave holes or run past the tile), replication 1 or 2, tiles smaller, equal to and
larger than threads x values."""

from __future__ import annotations

from hypothesis import strategies as st


@st.composite
def tv_formulas(draw) -> dict:
    t_n = draw(st.sampled_from([1, 2, 4, 8, 16, 32]))
    v_n = draw(st.sampled_from([1, 2, 3, 4, 8]))
    terms = []
    for var, n in (("t", t_n), ("v", v_n)):
        a = draw(st.sampled_from([1, 2, 4, 8, n]))
        s1 = draw(st.sampled_from([0, 1, 2, 4, 8, 16, 32]))
        s2 = draw(st.sampled_from([0, 1, 2, 4, 8, 16, 32, 64]))
        terms += [f"({var} % {a}) * {s1}", f"({var} / {a}) * {s2}"]
    rep = draw(st.sampled_from([1, 1, 1, 2]))
    size = t_n * v_n // rep if (t_n * v_n) % rep == 0 else t_n * v_n
    tile = max(1, size + draw(st.sampled_from([0, 0, 0, -1, 1, -size // 2])))
    return {"formula": " + ".join(terms), "t": t_n, "v": v_n, "tile": tile, "replication": rep}
