"""Hypothesis strategies that *build* swizzled layouts ``Sw<B,M,S> o L`` and thread-value maps for the semantics
oracles of the swizzle claims and ``vectorizable`` (``tests/semantics/test_sem_swizzle.py``,
``tests/semantics/test_sem_vectorizable.py``).

``swizzles``: every ``B`` in 0..3, ``M`` in 0..4, ``|S| >= B`` (CuTe's precondition), positive and negative ``S``.
``tv_maps``: ``(thread, value)`` layouts whose values are vectors of ``W`` elements: the natural map (thread ``t``'s
value ``v`` at ``W*t + v`` or threads interleaved by whole vectors) and broken ones (a vector misaligned by one
element, values strided, a value stride 0, a thread stride 0), optionally swizzled.
"""

from __future__ import annotations

from hypothesis import strategies as st

from tests.strategies_sem_composition import nonneg_layouts


@st.composite
def swizzles(draw: st.DrawFn) -> tuple[int, int, int]:
    b = draw(st.integers(0, 3))
    m = draw(st.integers(0, 4))
    s = draw(st.integers(max(b, 1), 4)) * draw(st.sampled_from([1, 1, -1]))
    return b, m, s


@st.composite
def swizzled_layouts(draw: st.DrawFn) -> tuple[tuple[int, int, int], tuple, tuple]:
    sw = draw(swizzles())
    shape, stride = draw(nonneg_layouts(max_leaves=4, max_size=256))
    return sw, shape, stride


@st.composite
def tv_maps(draw: st.DrawFn) -> tuple[int, int, tuple, tuple, tuple[int, int, int] | None, str]:
    """``(width_bytes, dtype_bytes, shape, stride, swizzle, how)`` with ``shape = (threads, (W, vectors))``."""
    es = draw(st.sampled_from([1, 2, 4, 8]))
    w = draw(st.sampled_from([x for x in (1, 2, 4, 8, 16) if x * es <= 16]))
    nt = draw(st.sampled_from([1, 2, 4, 8, 32]))
    nvec = draw(st.sampled_from([1, 2, 3]))
    how = draw(st.sampled_from(["contiguous", "interleaved", "misaligned", "strided", "value0", "thread0",
                                "random"]))
    # interleaved: thread t's vector g at W*(t + nt*g); else thread t's vectors one after the other
    stride = (w, (1, w * nt)) if how == "interleaved" else (w * nvec, (1, w))
    if how == "misaligned":
        stride = (w * nvec + 1, (1, w))
    elif how == "strided":
        stride = (stride[0], (2, stride[1][1]))
    elif how == "value0":
        stride = (stride[0], (0, stride[1][1]))
    elif how == "thread0":
        stride = (0, stride[1])
    elif how == "random":
        stride = (draw(st.integers(0, 40)), (draw(st.integers(0, 3)), draw(st.integers(0, 40))))
    sw = draw(st.one_of(st.none(), swizzles()))
    return w * es, es, (nt, (w, nvec)), stride, sw, how
