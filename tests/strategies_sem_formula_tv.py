"""Hypothesis strategies for TV maps written as formulas: sums of ``(t % a) * s``, ``(t / a) * s`` and the same of
``v`` (strides that tile, overlap, leave holes or run past the tile), replication 1 or 2, tiles smaller, equal to and
larger than threads x values."""

from __future__ import annotations

from hypothesis import strategies as st


@st.composite
def bijective_tv(draw) -> dict:
    """A TV map that is a bijection onto its tile: the four factors (t % a, t / a, v % b, v / b) placed at the
    positions of a random order, each stride the product of the extents before it (an exact cover), then perhaps
    broken by one stride or the tile's size."""
    t_n = draw(st.sampled_from([1, 2, 4, 8, 16, 32]))
    v_n = draw(st.sampled_from([1, 2, 4, 8]))
    a = draw(st.sampled_from([d for d in (1, 2, 4, 8, 16, 32) if t_n % d == 0]))
    b = draw(st.sampled_from([d for d in (1, 2, 4, 8) if v_n % d == 0]))
    factors = [(f"(t % {a})", a), (f"(t / {a})", t_n // a), (f"(v % {b})", b),
               (f"(v / {b})", v_n // b)]
    order = draw(st.permutations(range(4)))
    stride, terms = 1, []
    for i in order:
        text, n = factors[i]
        terms.append(f"{text} * {stride}")
        stride *= n
    if draw(st.booleans()) and len(terms) > 1:  # break it: one stride doubled
        k = draw(st.integers(0, 3))
        terms[k] = terms[k].rsplit("* ", 1)[0] + f"* {int(terms[k].rsplit('* ', 1)[1]) * 2}"
    return {"formula": " + ".join(terms), "t": t_n, "v": v_n, "tile": t_n * v_n, "replication": 1}


@st.composite
def tv_formulas(draw) -> dict:
    if draw(st.booleans()):
        return draw(bijective_tv())
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
