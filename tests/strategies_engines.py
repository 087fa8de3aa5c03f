"""Hypothesis strategies for the engine tests, named after the precondition they guarantee.

``layouts``: any nested layout (size-1 and stride-0 modes included) of size <= ``max_size``; ``pow2_layouts``:
power-of-two shapes and strides (often GF(2)-linear, sometimes with carries); ``bijective_layouts``: compact
permutations of modes (bijective onto ``[0, size)`` by construction); ``subjects``: any of those, optionally under a
``Swizzle`` whose bits stay inside the codomain; ``tv_maps``: rank-2 (thread, value) layouts. For the structural
engine: ``signed_layouts`` (negative strides too), ``chain_layouts`` (injective by the chain condition),
``boundary_chain_layouts`` (one stride step from failing it), ``nonnegative_subjects`` (shifted so the image starts
at 0: a valid codomain for ``surjective`` / ``bijective``).
"""

from __future__ import annotations

from hypothesis import strategies as st

from layoutcheck import ComposedLayout, Layout, Swizzle
from layoutcheck.algebra.inttuple import flatten, unflatten
from layoutcheck.algebra.layout import size

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


@st.composite
def signed_layouts(draw, max_size: int = SMALL) -> Layout:
    """Any nested layout with strides in ``[-24, 24]``: negative, size-1 and (one mode in six) stride-0 modes."""
    shp = draw(shapes(max_size=max_size, max_modes=5))
    return _build(shp, tuple(0 if draw(st.integers(0, 5)) == 0 else draw(st.integers(-24, 24)) for _ in shp), draw)


@st.composite
def chain_layouts(draw, max_size: int = SMALL, slack: tuple[int, ...] = (1, 1, 2, 3, 6)) -> Layout:
    """Injective by the chain condition: taken by ``|stride|``, each mode's ``|stride|`` exceeds the span of the
    modes below it (``|d| = span + slack``, slack 1 giving a compact layout), with random signs and mode order."""
    shp = draw(shapes(max_size=max_size, max_modes=5))
    order = draw(st.permutations(range(len(shp))))
    stride, span = [0] * len(shp), 0
    for k in order:
        d = span + draw(st.sampled_from(slack))
        stride[k] = d if draw(st.booleans()) else -d
        span += (shp[k] - 1) * d
    return _build(shp, tuple(stride), draw)


def boundary_chain_layouts(max_size: int = SMALL) -> st.SearchStrategy[Layout]:
    """Strides on the chain's boundary: ``|d| = span + slack``, slack 0 or 1. A mode with slack 0 (and a non-empty
    span) always collides: ``s_i - 1`` on each lower mode, on the side of its stride's sign, reaches ``|d|``."""
    return chain_layouts(max_size, slack=(0, 1))


def at_zero(lay: Layout, swizzle: Swizzle | None = None) -> ComposedLayout:
    """``swizzle o off o lay`` with ``off`` making the smallest offset of ``lay`` exactly 0 (image starts at 0)."""
    lo = sum((s - 1) * d for s, d in zip(flatten(lay.shape), flatten(lay.stride), strict=True) if d < 0)
    return ComposedLayout(swizzle or Swizzle(0, 0, 0), -lo, lay)


@st.composite
def nonnegative_subjects(draw, max_size: int = SMALL) -> ComposedLayout:
    """A signed or chain layout shifted so that its image starts at 0, optionally swizzled within its span:
    valid for ``surjective`` / ``bijective`` codomains."""
    lay = draw(st.one_of(signed_layouts(max_size), chain_layouts(max_size)))
    x = at_zero(lay)
    span = 1 << max(int(x.offsets().max()), 1).bit_length()
    return at_zero(lay, draw(swizzles_within(span)) if draw(st.booleans()) else None)
