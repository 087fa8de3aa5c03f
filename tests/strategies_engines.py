"""Hypothesis strategies for the engine tests, named after the precondition they guarantee.

``layouts``: any nested layout (size-1 and stride-0 modes included) of size <= ``max_size``; ``pow2_layouts``:
power-of-two shapes and strides (often GF(2)-linear, sometimes with carries); ``bijective_layouts``: compact
permutations of modes (bijective onto ``[0, size)`` by construction); ``subjects``: any of those, optionally under a
``Swizzle`` whose bits stay inside the codomain; ``tv_maps``: rank-2 (thread, value) layouts.
"""

from __future__ import annotations

from hypothesis import strategies as st

from layoutcheck import ComposedLayout, Layout, Swizzle
from layoutcheck.inttuple import flatten, unflatten
from layoutcheck.layout import size

SMALL = 256


def _nest(flat: tuple[int, ...], draw) -> object:
    """A random nesting profile of ``len(flat)`` leaves (consecutive groups, depth <= 2)."""
    n = len(flat)
    if n == 1:
        return 0
    cuts = sorted(set(draw(st.lists(st.integers(1, n - 1), max_size=2))))
    parts, prev = [], 0
    for c in [*cuts, n]:
        grp = tuple(range(prev, c))
        parts.append(grp if len(grp) > 1 else grp[0])
        prev = c
    return tuple(parts)


def _build(shape: tuple[int, ...], stride: tuple[int, ...], draw) -> Layout:
    profile = _nest(shape, draw)
    return Layout(unflatten(shape, profile), unflatten(stride, profile))


@st.composite
def shapes(draw, pow2: bool = False, max_size: int = SMALL, max_modes: int = 4) -> tuple[int, ...]:
    out, total = [], 1
    for _ in range(draw(st.integers(1, max_modes))):
        s = draw(st.sampled_from([1, 2, 4, 8] if pow2 else [1, 2, 3, 4, 5, 6, 8]))
        s = s if total * s <= max_size else 1
        out.append(s)
        total *= s
    return tuple(out)


@st.composite
def layouts(draw, max_size: int = SMALL) -> Layout:
    shp = draw(shapes(max_size=max_size))
    return _build(shp, tuple(draw(st.integers(0, 24)) for _ in shp), draw)


@st.composite
def pow2_layouts(draw, max_size: int = SMALL) -> Layout:
    shp = draw(shapes(pow2=True, max_size=max_size))
    return _build(shp, tuple(draw(st.sampled_from([0, 1, 2, 4, 8, 16, 32, 64])) for _ in shp), draw)


@st.composite
def bijective_layouts(draw, pow2: bool | None = None, max_size: int = SMALL) -> Layout:
    """Compact: strides are the prefix products of the modes taken in a random order."""
    p2 = draw(st.booleans()) if pow2 is None else pow2
    shp = draw(shapes(pow2=p2, max_size=max_size))
    order = draw(st.permutations(range(len(shp))))
    stride, acc = [0] * len(shp), 1
    for k in order:
        stride[k], acc = acc, acc * shp[k]
    return _build(shp, tuple(stride), draw)


@st.composite
def swizzles_within(draw, n: int) -> Swizzle:
    """A swizzle whose read and written bits lie below ``n`` (a power of two): it permutes ``[0, n)``."""
    bits = max(n.bit_length() - 1, 0)
    if bits < 2:
        return Swizzle(0, 0, 0)
    b = draw(st.integers(1, bits // 2))
    s = draw(st.integers(b, bits - b))
    m = draw(st.integers(0, bits - b - s))
    return Swizzle(b, m, s)


@st.composite
def subjects(draw, max_size: int = SMALL) -> Layout | ComposedLayout:
    lay = draw(st.one_of(layouts(max_size), pow2_layouts(max_size), bijective_layouts(max_size=max_size)))
    if not draw(st.booleans()):
        return lay
    span = 1 << max(max(flatten(lay.stride)) * size(lay), 1).bit_length()
    sw = draw(swizzles_within(span))
    return ComposedLayout(sw, 0, lay)


@st.composite
def tv_maps(draw, max_size: int = SMALL) -> Layout:
    """Rank 2: the first ``k`` flat modes are the threads, the rest the values."""
    lay = draw(st.one_of(bijective_layouts(max_size=max_size), pow2_layouts(max_size), layouts(max_size)))
    shp, strd = flatten(lay.shape), flatten(lay.stride)
    if len(shp) == 1:
        shp, strd = (*shp, 1), (*strd, 0)
    k = draw(st.integers(1, len(shp) - 1))
    return Layout((shp[:k], shp[k:]), (strd[:k], strd[k:]))
