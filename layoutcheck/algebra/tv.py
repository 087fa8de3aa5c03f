"""Thread-value (TV) layouts: ``(thread, value) -> index`` inside a tile.

A TV layout has rank 2: mode 0 ranges over threads, mode 1 over each thread's values; its image is the tile's
column-major (colex) index ``m + M*n``. ``make_layout_tv(thr, val)`` builds the TV layout of a tile whose threads are
arranged by ``thr`` (``(m,n) -> thread``) and each thread owns a ``val``-shaped block of values, raked across the
tile -- CuTe's ``make_layout_tv``::

    layout_mn = raked_product(thr, val)                 # (m,n) -> (thread, value) as a flat index
    layout_tv = composition(right_inverse(layout_mn), make_layout((size(thr), size(val))))
"""

from __future__ import annotations

from layoutcheck.algebra.layout import Layout, as_layout, size
from layoutcheck.algebra.ops import composition, right_inverse
from layoutcheck.algebra.tiling import raked_product


def make_layout_tv(thr: Layout, val: Layout) -> tuple[tuple[int, ...], Layout]:
    """Return ``(tiler_mn, layout_tv)`` for threads ``thr`` and per-thread values ``val`` (CuTe's order).

    >>> tiler, tv = make_layout_tv(Layout((4,8),(8,1)), Layout((2,4),(4,1)))
    >>> tiler, str(tv)
    ((8, 32), '((8,4),(4,2)):((32,2),(8,1))')
    """
    thr, val = as_layout(thr), as_layout(val)
    layout_mn = raked_product(thr, val)
    tiler = tuple(size(m) for m in layout_mn)
    tv = composition(right_inverse(layout_mn), Layout((size(thr), size(val))))
    return tiler, tv
