"""Hypothesis strategies for the semantics suite of tiled copies over tiles that need not divide
(``tests/semantics/test_sem_tiled_copy.py``). They *build* adversarial inputs, named after what they guarantee:

- ``tiled_copy_specs``: spec text of a ``tiled_copy`` config: a compact thread layout of 1..4 x 1..4 threads
  (column- or row-major) and a compact value layout of 1..4 x 1..4 values (either order), over one tile (``tile``)
  or a small box of tile sizes (``sizes``) that the copy tiler may or may not divide, with or without a predicate,
  the copy tile count by ``ceil_div`` (CuTe's ``zipped_divide``) or a truncating ``/``.
"""

from __future__ import annotations

from hypothesis import strategies as st


@st.composite
def _compact(draw) -> tuple[tuple[int, int], tuple[int, int]]:
    """A compact rank-2 layout: ``(shape, stride)``, column- or row-major."""
    a, b = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return ((a, b), (1, a)) if draw(st.booleans()) else ((a, b), (b, 1))


def _text(layout: tuple[tuple[int, int], tuple[int, int]]) -> str:
    (a, b), (s, t) = layout
    return f"({a},{b}):({s},{t})"


@st.composite
def tiled_copy_specs(draw) -> dict:
    """``{"threads", "values", "tile" | "sizes", "predicate", "count"}`` (layouts as ``(shape, stride)``) and the
    spec text of that config."""
    thr, val = draw(_compact()), draw(_compact())
    cfg: dict = {"threads": thr, "values": val,
                 "predicate": draw(st.sampled_from(["none", "coord_lt_shape"])),
                 "count": draw(st.sampled_from(["ceil_div", "ceil_div", "div"]))}
    tiler = (thr[0][0] * val[0][0], thr[0][1] * val[0][1])
    if draw(st.booleans()):
        cfg["tile"] = tuple(draw(st.sampled_from([t, 2 * t, t + 1, max(1, t - 1), 3 * t - 1])) for t in tiler)
        where = f"tile = [{cfg['tile'][0]}, {cfg['tile'][1]}]"
    else:
        sizes = []
        for t in tiler:
            lo = draw(st.integers(1, 2 * t + 1))
            sizes.append((lo, lo + draw(st.integers(0, 2 * t))))
        cfg["sizes"] = tuple(sizes)
        where = f"sizes = {{ M = [{sizes[0][0]}, {sizes[0][1]}], d = [{sizes[1][0]}, {sizes[1][1]}] }}"
    cfg["text"] = (f'format = 1\n[[config]]\nname = "c"\nkind = "tiled_copy"\nthreads = "{_text(thr)}"\n'
                   f'values = "{_text(val)}"\n{where}\npredicate = "{cfg["predicate"]}"\ncount = "{cfg["count"]}"\n'
                   'properties = ["residue_cover"]\n')
    return cfg
