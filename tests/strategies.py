"""Hypothesis strategies for the algebra, named after the precondition they guarantee."""

from __future__ import annotations

from hypothesis import strategies as st

from layoutcheck import Layout
from layoutcheck.algebra.inttuple import flatten, unflatten

MAX_SIZE = 4096


@st.composite
def flat_shapes(draw, max_modes: int = 4, max_size: int = MAX_SIZE, pow2: bool | None = None) -> tuple[int, ...]:
    n = draw(st.integers(1, max_modes))
    out: list[int] = []
    total = 1
    for _ in range(n):
        choices = [1, 2, 4, 8] if pow2 else [1, 2, 3, 4, 5, 6, 8]
        s = draw(st.sampled_from(choices))
        if total * s > max_size:
            s = 1
        out.append(s)
        total *= s
    return tuple(out)


@st.composite
def nestings(draw, flat: tuple[int, ...]):
    """A random nesting (profile) of ``len(flat)`` leaves: groups of consecutive leaves, at most depth 3."""

    def group(items: list, depth: int):
        if len(items) == 1 or depth == 0 or not draw(st.booleans()):
            return tuple(items) if len(items) > 1 else items[0]
        cuts = sorted(set(draw(st.lists(st.integers(1, len(items) - 1), max_size=2))))
        parts, prev = [], 0
        for c in [*cuts, len(items)]:
            parts.append(group(items[prev:c], depth - 1))
            prev = c
        return tuple(parts) if len(parts) > 1 else parts[0]

    return group(list(range(len(flat))), 3)


def _nest(flat_vals: tuple[int, ...], profile) -> object:
    return unflatten(flat_vals, profile)


@st.composite
def layouts(draw, pow2: bool | None = None, max_stride: int = 64, allow_zero: bool = True) -> Layout:
    """Any layout: nested shape, random non-negative strides (zero allowed), size <= MAX_SIZE."""
    flat = draw(flat_shapes(pow2=pow2))
    lo = 0 if allow_zero else 1
    if pow2:
        strides = tuple(draw(st.sampled_from([0, 1, 2, 4, 8, 16, 32, 64][1 - lo:])) for _ in flat)
    else:
        strides = tuple(draw(st.integers(lo, max_stride)) for _ in flat)
    profile = draw(nestings(flat))
    return Layout(_nest(flat, profile), _nest(strides, profile))


@st.composite
def compact_layouts(draw, pow2: bool | None = None) -> Layout:
    """Bijective onto ``[0, size)``: a random mode order over a random nested shape."""
    flat = draw(flat_shapes(pow2=pow2))
    order = draw(st.permutations(range(len(flat))))
    strides = [0] * len(flat)
    cur = 1
    for i in order:
        strides[i] = cur
        cur *= flat[i]
    profile = draw(nestings(flat))
    return Layout(_nest(flat, profile), _nest(tuple(strides), profile))


@st.composite
def injective_layouts(draw, pow2: bool | None = None) -> Layout:
    """Injective with gaps: sorted modes chain as ``d_{j+1} = k * s_j * d_j`` (k >= 1)."""
    flat = draw(flat_shapes(pow2=pow2))
    order = draw(st.permutations(range(len(flat))))
    strides = [0] * len(flat)
    cur = draw(st.sampled_from([1, 1, 2, 4] if pow2 else [1, 1, 2, 3]))
    for i in order:
        strides[i] = cur
        cur *= flat[i] * draw(st.sampled_from([1, 1, 2] if pow2 else [1, 1, 2, 3]))
    profile = draw(nestings(flat))
    return Layout(_nest(flat, profile), _nest(tuple(strides), profile))


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


@st.composite
def divisible_tilers(draw, a: Layout | None = None):
    """``(A, B)`` where the layout tiler ``B`` divides ``size(A)`` exactly (``logical_divide`` is defined)."""
    if a is None:
        a = draw(layouts())
    n = 1
    for s in flatten(a.shape):
        n *= s
    # B = (b0, b1):(1, g) with b0*g*... dividing n: tile of b0 contiguous elements, b1 groups g apart
    b0 = draw(st.sampled_from(divisors(n)))
    rest = n // b0
    b1 = draw(st.sampled_from(divisors(rest)))
    g_mult = draw(st.sampled_from(divisors(rest // b1)))
    if b1 == 1:
        return a, Layout(b0, 1)
    return a, Layout((b0, b1), (1, b0 * g_mult))


# -- issue #15: CuTe's edges ----------------------------------------------------------------------------------------
@st.composite
def layouts_with_unit_and_zero_modes(draw) -> Layout:
    """Any layout with at least one size-1 mode and one stride-0 mode (trailing ones included)."""
    a = draw(layouts())
    flat_s, flat_d = list(flatten(a.shape)), list(flatten(a.stride))
    unit_at = draw(st.integers(0, len(flat_s)))
    flat_s.insert(unit_at, 1)
    flat_d.insert(unit_at, draw(st.integers(0, 16)))
    zero_at = draw(st.integers(0, len(flat_s)))
    flat_s.insert(zero_at, draw(st.sampled_from([2, 3, 4])))
    flat_d.insert(zero_at, 0)
    return Layout(tuple(flat_s), tuple(flat_d))


@st.composite
def non_dividing_tilers(draw, a: Layout | None = None):
    """``(A, B)``: a compact A and an injective layout tiler ``B`` whose size need not divide ``size(A)``."""
    if a is None:
        a = draw(compact_layouts())
    n = 1
    for s in flatten(a.shape):
        n *= s
    b0 = draw(st.integers(1, n + 2))
    if draw(st.booleans()):
        return a, Layout(b0, draw(st.sampled_from([1, 1, 2, 3])))
    b1 = draw(st.integers(2, 4))
    return a, Layout((b0, b1), (1, b0 * draw(st.sampled_from([1, 2]))))


@st.composite
def past_the_end_pairs(draw):
    """``(A, B)`` where B's image runs past ``size(A)`` (CuTe evaluates A's last mode on; the law uses it)."""
    a = draw(layouts())
    n = 1
    for s in flatten(a.shape):
        n *= s
    b = draw(st.sampled_from([1, 2, 3, 4]))
    reach = n + draw(st.integers(1, 2 * n))
    return a, Layout(ceil_div(reach, b), b)


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)
