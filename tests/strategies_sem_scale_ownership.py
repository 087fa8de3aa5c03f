"""Hypothesis strategies that *build* scale-factor layouts ``sf: (MN, K) -> scale byte`` for the semantics oracle of
``scale_ownership`` (``tests/semantics/test_sem_scale_ownership.py``).

The natural layout gives each row's ``vec``-element K vector its own scale: ``(MN, (vec, K/vec)) : (s_mn, (0,
s_k))`` with the scales of a tile compact (MN-major or K-major). Broken on purpose: the vector stride not 0 (scales
vary inside a vector), the row stride 0 (rows share scales), the vector-index stride 0 (vectors share), strides that
overlap, and a vector size different from the one the layout was built for (``vec`` halved or doubled).
"""

from __future__ import annotations

from hypothesis import strategies as st


@st.composite
def scale_layouts(draw: st.DrawFn) -> tuple[int, tuple, tuple, str]:
    """``(vec, shape, stride, how)`` with ``shape = (MN, (vec_built, K/vec_built))``."""
    vec = draw(st.sampled_from([1, 2, 4, 8, 16, 32]))
    mn = draw(st.sampled_from([1, 2, 4, 8, 32, 128]))
    kv = draw(st.sampled_from([1, 2, 3, 4]))
    kmajor = draw(st.booleans())
    s_mn, s_k = (kv, 1) if kmajor else (1, mn)
    how = draw(st.sampled_from(["natural", "natural", "in_vector", "row0", "vector0", "overlap", "vec_half",
                                "vec_double"]))
    inner = 0
    if how == "in_vector":
        inner = draw(st.integers(1, 3))
    elif how == "row0":
        s_mn = 0
    elif how == "vector0":
        s_k = 0
    elif how == "overlap" and mn > 1:
        s_mn, s_k = 1, max(1, mn // 2)
    claimed = vec
    if how == "vec_half" and vec > 1:
        claimed = vec // 2
    elif how == "vec_double":
        claimed = vec * 2
    return claimed, (mn, (vec, kv)), (s_mn, (inner, s_k)), how
