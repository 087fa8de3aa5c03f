"""Nested integer tuples: the shapes, strides and coordinates of CuTe layouts.

An ``IntTuple`` is an ``int`` or a tuple of ``IntTuple``. Coordinates are *colexicographic*: the first mode is the
fastest, so the flat index of coordinate ``(c0, c1)`` in shape ``(s0, s1)`` is ``c0 + s0*c1``.

Worked table for shape ``(2,(2,2))``::

    index   0      1      2      3      4      5      6      7
    coord (0,(0,0)) (1,(0,0)) (0,(1,0)) (1,(1,0)) (0,(0,1)) (1,(0,1)) (0,(1,1)) (1,(1,1))

Every helper here is a pure function over these values; nothing else in layoutcheck re-implements them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeAlias

IntTuple: TypeAlias = "int | tuple[IntTuple, ...]"
Coord: TypeAlias = "int | tuple[Coord, ...] | None"


def is_int(x: object) -> bool:
    return type(x) is int or (isinstance(x, int) and not isinstance(x, bool))


def is_tuple(x: object) -> bool:
    return type(x) is tuple


def flatten(t: IntTuple) -> tuple[int, ...]:
    """The leaves of ``t`` in order: ``flatten((2,(3,4))) == (2,3,4)``."""
    if type(t) is not tuple:
        return (t,)
    for x in t:
        if type(x) is tuple:
            break
    else:
        return t  # already flat (the common case): no copy
    out: list[int] = []
    for x in t:
        if type(x) is tuple:
            out += flatten(x)
        else:
            out.append(x)
    return tuple(out)


def iter_leaves(t: IntTuple) -> Iterator[int]:
    yield from flatten(t)


def product(t: IntTuple) -> int:
    """Product of all leaves (the size of a shape)."""
    if type(t) is not tuple:
        return t
    n = 1
    for m in t:
        n *= m if type(m) is not tuple else product(m)
    return n


def rank(t: IntTuple) -> int:
    return len(t) if is_tuple(t) else 1


def depth(t: IntTuple) -> int:
    if is_tuple(t):
        return 1 + max((depth(m) for m in t), default=0)
    return 0


def congruent(a: IntTuple, b: IntTuple) -> bool:
    """Same nesting (profile): ``congruent((2,(3,4)), (1,(6,9)))``."""
    if is_tuple(a) and is_tuple(b):
        return len(a) == len(b) and all(congruent(x, y) for x, y in zip(a, b, strict=True))
    return not is_tuple(a) and not is_tuple(b)


def prefix_product(shape: IntTuple, init: int = 1) -> IntTuple:
    """Exclusive prefix product, nested like ``shape``: ``prefix_product((2,(3,4))) == (1,(2,6))``."""
    if type(shape) is not tuple:
        return init
    out = []
    for m in shape:
        if type(m) is tuple:
            out.append(prefix_product(m, init))
            init *= product(m)
        else:
            out.append(init)
            init *= m
    return tuple(out)


def inner_product(a: IntTuple, b: IntTuple) -> int:
    if is_tuple(a):
        return sum(inner_product(x, y) for x, y in zip(a, b, strict=True))
    return a * b


def idx2crd(idx: int, shape: IntTuple) -> IntTuple:
    """Colexicographic coordinate of ``idx`` in ``shape`` (the last leaf takes any remainder, as CuTe does)."""
    if is_tuple(shape):
        out = []
        for i, m in enumerate(shape):
            if i == len(shape) - 1:
                out.append(idx2crd(idx, m))
            else:
                s = product(m)
                out.append(idx2crd(idx % s, m))
                idx //= s
        return tuple(out)
    return idx


def crd2idx(crd: IntTuple, shape: IntTuple, stride: IntTuple) -> int:
    """Offset of a coordinate: an int coordinate is first unfolded colexicographically over the mode's shape."""
    if is_tuple(crd):
        return sum(crd2idx(c, s, d) for c, s, d in zip(crd, shape, stride, strict=True))
    if is_tuple(shape):
        return crd2idx(idx2crd(crd, shape), shape, stride)
    return crd * stride


def crd2flat(crd: IntTuple, shape: IntTuple) -> int:
    """Colexicographic flat index of a (possibly partial-depth) coordinate in ``shape``."""
    return crd2idx(crd, shape, prefix_product(shape))


def shape_div(a: IntTuple, b: IntTuple) -> IntTuple:
    """CuTe's ``shape_div``: divide ``a`` by ``b`` left to right, leaves either dividing or divided."""
    if is_tuple(a):
        if is_tuple(b):
            return tuple(shape_div(x, y) for x, y in zip(a, b, strict=True))
        out = []
        for m in a:
            out.append(shape_div(m, b))
            b = shape_div(b, product(m))
        return tuple(out)
    if is_tuple(b):
        return shape_div(a, product(b))
    if a % b != 0 and b % a != 0:
        from layoutcheck.errors import NotDivisibleError

        raise NotDivisibleError(f"shape_div: {a} and {b} divide neither way")
    return a // b if a % b == 0 else 1


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def has_none(t: Coord) -> bool:
    if is_tuple(t):
        return any(has_none(m) for m in t)
    return t is None


def slice_(crd: Coord, t: IntTuple) -> tuple[IntTuple, ...]:
    """The modes of ``t`` where ``crd`` is ``None`` (CuTe's ``_``), concatenated as C++ ``filter_tuple`` does."""
    if is_tuple(crd):
        return tuple(m for c, s in zip(crd, t, strict=True) for m in slice_(c, s))
    return (t,) if crd is None else ()


def dice(crd: Coord, t: IntTuple) -> tuple[IntTuple, ...]:
    """The modes of ``t`` where ``crd`` is an int (the complement of ``slice_``)."""
    if is_tuple(crd):
        return tuple(m for c, s in zip(crd, t, strict=True) for m in dice(c, s))
    return () if crd is None else (t,)


def replace_none(crd: Coord, fill: int = 0) -> IntTuple:
    if is_tuple(crd):
        return tuple(replace_none(c, fill) for c in crd)
    return fill if crd is None else crd


def unflatten(flat: tuple[int, ...], profile: IntTuple) -> IntTuple:
    """Rebuild a nested tuple with the nesting of ``profile`` from its leaves."""
    it = iter(flat)

    def build(p: IntTuple) -> IntTuple:
        if is_tuple(p):
            return tuple(build(m) for m in p)
        return next(it)

    return build(profile)
