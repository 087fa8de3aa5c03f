"""Streaming scans of a subject's whole domain: how the exhaustive decisions run at memory speed in little memory.

The exhaustive engine evaluates every index ``i`` in ``[0, size)``. Holding all offsets at once costs 4-8 bytes per
point before any work; instead a subject is evaluated in *chunks* (``chunks(x)``: consecutive index ranges of about
``CHUNK`` elements, built in place in one reused, cache-sized buffer), and a decision keeps only what it must:

- ``marks``: one byte per codomain value, set when some index hits it. A subject of size ``n`` mapping into
  ``[0, n)`` is a bijection iff every mark is set (pigeonhole), so bijectivity costs one byte per point.
- ``counts``: hits per value, saturating at a cap (``cap = 2`` tells "missing / once / several").
- the failure paths (a witness is wanted) re-scan: the smallest colliding pair ``(i, j)`` is the smallest ``i``
  whose value is hit twice, and the next ``j`` with that value.

Worked example: ``(4,2):(2,2)`` maps ``0..7`` to ``0 2 4 6 2 4 6 8``; ``counts(x, 0, 9, 2)`` is
``[1,0,2,0,2,0,2,0,1]``; the smallest index whose value is hit twice is ``i = 1`` (value 2) and the next index with
value 2 is ``j = 4``: the witness ``(1, 4)``, as sorting all offsets would find it.

Chunks are views of one reused buffer: a consumer must finish with a chunk before drawing the next.

Order: ``marks`` and ``counts`` keep no index, only which values were hit, so they may visit the indices in any order.
They visit them in *memory order* (``memory_order``: the modes sorted by stride, the smallest innermost), so the
scatter into the marks walks memory nearly sequentially instead of jumping by the layout's outer strides (issue #29:
2x faster at 2^24 for a row-major tile read column-major). Everything that answers with an index -- the first index
outside the range, the smallest colliding pair, the owners of a value -- scans in index order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from layoutcheck.algebra.inttuple import flatten
from layoutcheck.algebra.layout import Layout, evaluate_chunks, offset_bounds, offset_dtype
from layoutcheck.algebra.swizzle import ComposedLayout, Subject, inner

CHUNK = 1 << 16
"""Elements per chunk: 256 KiB of int32, so a chunk and its scratch stay in the L2 cache."""


def value_bounds(x: Subject) -> tuple[int, int]:
    """``(lo, hi)`` with ``lo <= x(i) <= hi`` for every ``i`` (exact for a plain layout).

    A swizzle rewrites only the zzz bits: ``y & ~zzz <= f(y) <= y | zzz``, so it moves a value by at most ``zzz``.

    >>> from layoutcheck.algebra.layout import Layout
    >>> value_bounds(Layout((4, 2), (2, -1)))
    (-1, 6)
    """
    lay = inner(x)
    lo, hi = offset_bounds(flatten(lay.shape), flatten(lay.stride))
    if not isinstance(x, ComposedLayout):
        return lo, hi
    lo, hi, zzz = lo + x.offset, hi + x.offset, x.swizzle.zzz_mask
    return (max(0, lo - zzz) if lo >= 0 else lo - zzz), hi + zzz


def chunks(x: Subject, chunk: int | None = None, align: int = 1) -> Iterator[tuple[int, np.ndarray]]:
    """``(start, values)``: ``x(i)`` for consecutive ``i`` from ``start``, covering ``[0, size)`` in order.

    Pre: ``align`` divides ``size(x)``. Post: every ``start`` and length is a multiple of ``align``; int32 when every
    value (and every intermediate) fits, else int64. Each chunk is valid until the next is drawn.
    """
    lay, chunk = inner(x), chunk or CHUNK
    shape, stride = flatten(lay.shape), flatten(lay.stride)
    if not isinstance(x, ComposedLayout):
        yield from evaluate_chunks(shape, stride, chunk, None, align)
        return
    dtype = offset_dtype(*x.bounds())
    off, sw, scratch = dtype(x.offset), x.swizzle, None
    for start, a in evaluate_chunks(shape, stride, chunk, dtype, align):
        if scratch is None or scratch.size < a.size:
            scratch = np.empty(a.size, dtype=dtype)
        if x.offset:
            a += off
        yield start, sw.apply_inplace(a, scratch[:a.size])


def zip_chunks(x: Subject, y: Subject, chunk: int | None = None) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """``(start, x values, y values)`` over one index range at a time. Pre: ``size(x) == size(y)``."""
    return zip_streams(chunks(x, chunk), chunks(y, chunk))


def zip_streams(gx: Iterator[tuple[int, np.ndarray]], gy: Iterator[tuple[int, np.ndarray]]
                ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """``(start, x values, y values)`` over one index range at a time, from two chunk streams of equal length."""
    a = b = np.empty(0, dtype=np.int64)
    pos = 0
    while True:
        if a.size == 0:
            a = next(gx, (0, None))[1]
        if b.size == 0:
            b = next(gy, (0, None))[1]
        if a is None or b is None:
            return
        k = min(a.size, b.size)
        yield pos, a[:k], b[:k]
        pos, a, b = pos + k, a[k:], b[k:]


def memory_order(x: Subject) -> Subject:
    """``x`` with its (flattened) modes sorted by ``|stride|``, the smallest first: the same values, each as often, the
    indices permuted so that consecutive indices move the least in memory.

    >>> print(memory_order(Layout((4, 8), (8, 1))))
    (8,4):(1,8)
    """
    lay = inner(x)
    modes = sorted(zip(flatten(lay.shape), flatten(lay.stride), strict=True), key=lambda m: abs(m[1]))
    ordered = Layout(tuple(s for s, _ in modes), tuple(d for _, d in modes)) if modes else lay
    return ComposedLayout(x.swizzle, x.offset, ordered) if isinstance(x, ComposedLayout) else ordered


def marks(x: Subject, lo: int, n: int) -> tuple[np.ndarray, int | None]:
    """One byte per value in ``[lo, lo + n)``, 1 where some ``x(i)`` hits it; and the first ``i`` whose value lies
    outside that range (``None`` if none; the marks are then complete). Post: ``marks.size == n``.

    The marks are written in memory order (``memory_order``); a value outside the range sends the search for the
    first such ``i`` back to index order."""
    seen = np.zeros(n, dtype=np.uint8)
    xlo, xhi = value_bounds(x)
    check = xlo < lo or xhi >= lo + n
    for _, a in chunks(memory_order(x)):
        if check and (int(a.min()) < lo or int(a.max()) >= lo + n):
            return seen, first_where(x, lambda v: (v < lo) | (v >= lo + n))
        seen[a - lo if lo else a] = 1
    return seen, None


def counts(x: Subject, lo: int, n: int, cap: int) -> np.ndarray:
    """Hits per value in ``[lo, lo + n)``, saturating at ``cap``. Pre: every value lies in that range."""
    dtype = np.uint8 if cap < 255 else np.int64
    out = np.zeros(n, dtype=dtype)
    for _, a in chunks(memory_order(x)):
        vals, hits = np.unique(a, return_counts=True)
        vals = vals - lo if lo else vals
        out[vals] = np.minimum(out[vals].astype(np.int64) + hits, cap)
    return out


def first_where(x: Subject, hit: Callable[[np.ndarray], np.ndarray], after: int = -1) -> int | None:
    """The smallest ``i > after`` with ``hit(values)[i]`` true, scanning chunk by chunk; ``None`` if there is none."""
    for start, a in chunks(x):
        if start + a.size <= after + 1:
            continue
        skip = max(0, after + 1 - start)
        found = np.flatnonzero(hit(a[skip:]))
        if found.size:
            return start + skip + int(found[0])
    return None


def collision(x: Subject, twice: Callable[[np.ndarray], np.ndarray]) -> tuple[int, int] | None:
    """The lexicographically smallest ``(i, j)``, ``i < j``, with ``x(i) == x(j)``, given ``twice(values)``: which
    values are hit more than once. The smallest such ``i`` is the first occurrence of its value."""
    i = first_where(x, twice)
    if i is None:
        return None
    v = x(i)
    j = first_where(x, lambda a: a == v, after=i)
    assert j is not None  # twice(v) said v is hit again after its first occurrence
    return i, j


def indices_of(x: Subject, v: int, limit: int | None) -> list[int]:
    """The smallest ``limit`` indices ``i`` with ``x(i) == v`` (all of them for ``limit=None``), in order."""
    out: list[int] = []
    for start, a in chunks(x):
        out += (start + np.flatnonzero(a == v)).tolist()
        if limit is not None and len(out) >= limit:
            return out[:limit]
    return out


__all__ = ["CHUNK", "chunks", "collision", "counts", "first_where", "indices_of", "marks", "memory_order",
           "value_bounds", "zip_chunks"]
