"""Hypothesis strategies for ``on_tile`` (``tests/semantics/test_sem_on_tile.py``): a tile and a memory layout built
to be a layout of it (its modes, each possibly split into nested factors), or adversarially not (extents permuted,
one extent smaller or larger, a mode too many or too few, a flat map shorter or longer than the tile)."""

from __future__ import annotations

from hypothesis import strategies as st

from layoutcheck.algebra.layout import Layout


def _factor(draw, n: int):
    """``n`` as a nested mode: itself, or ``(a, n // a)`` for a divisor ``a``."""
    divs = [a for a in range(2, n) if n % a == 0]
    if divs and draw(st.booleans()):
        a = draw(st.sampled_from(divs))
        return (a, n // a)
    return n


@st.composite
def tiles_and_memories(draw):
    tile = tuple(draw(st.lists(st.integers(1, 8), min_size=1, max_size=3)))
    how = draw(st.sampled_from(["exact", "exact", "permuted", "smaller", "larger", "rank+1", "rank-1", "flat"]))
    ext = list(tile)
    if how == "permuted":
        ext = draw(st.permutations(ext))
    elif how in ("smaller", "larger"):
        k = draw(st.integers(0, len(ext) - 1))
        ext[k] = max(1, ext[k] - 1) if how == "smaller" else ext[k] + draw(st.integers(1, 3))
    elif how == "rank+1":
        ext.append(draw(st.integers(1, 3)))
    elif how == "rank-1" and len(ext) > 1:
        ext = ext[:-1]
    elif how == "flat":
        n = 1
        for t in tile:
            n *= t
        ext = [max(1, n + draw(st.integers(-2, 2)))]
    shape = tuple(_factor(draw, e) for e in ext)
    flat = [x for m in shape for x in (m if isinstance(m, tuple) else (m,))]
    strides = [draw(st.integers(0, 64)) for _ in flat]
    it = iter(strides)
    stride = tuple(tuple(next(it) for _ in m) if isinstance(m, tuple) else next(it) for m in shape)
    lay = Layout(shape[0], stride[0]) if len(shape) == 1 else Layout(shape, stride)
    return lay, tile
