"""Hypothesis strategies for the semantics suite of ragged tilings, tile schedulers and data paths
(``tests/semantics/test_sem_ragged.py``). They *build* adversarial inputs, named after what they guarantee:

- ``residue_covers``: a tile of 1..3 modes (extents 1..4), a TV map that is the identity, a bijection onto the tile
  (the colex identity with its modes permuted), or an arbitrary layout of the tile's size (stride 0, duplicates,
  gaps, indices past the tile), every count and predicate, a small box of problem sizes;
- ``schedulers``: every scheduler kind, correct and broken (``drop_partial_group``, ``count = "div"``), over small
  boxes of grids;
- ``sm80_operand_paths``: spec text of an SM80 operand A data path (16-byte cp.async, ldmatrix.x4) whose stage is
  ``Sw<B,M,S> o (64,32):(lds,1)`` with padded rows, any swizzle, and a global leading dimension that need not be a
  multiple of 8 halves: aligned and misaligned copies, rows past the buffer, chunks that overlap.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from layoutcheck import Layout
from layoutcheck.models.residue import COUNTS, PREDICATES, ResidueTiling
from layoutcheck.models.schedulers import TileScheduler
from layoutcheck.properties.residue import residue_cover, schedule_bijection


@st.composite
def _factorisation(draw, n: int) -> tuple[int, ...]:
    """A shape whose product is ``n`` (1..3 modes)."""
    parts = [n]
    for _ in range(draw(st.integers(0, 2))):
        k = draw(st.integers(0, len(parts) - 1))
        divisors = [d for d in range(2, parts[k]) if parts[k] % d == 0]
        if divisors:
            d = draw(st.sampled_from(divisors))
            parts[k:k + 1] = [d, parts[k] // d]
    return tuple(parts)


@st.composite
def tv_maps(draw, tile: tuple[int, ...]) -> Layout | None:
    """The identity (``None``), a bijection onto ``tile``, or any layout of its size with strides 0..2*size."""
    n = math.prod(tile)
    how = draw(st.sampled_from(("identity", "bijection", "any", "any")))
    if how == "identity":
        return None
    if how == "bijection":
        perm = draw(st.permutations(range(len(tile))))
        strides = [math.prod(tile[:d]) for d in range(len(tile))]
        return Layout(tuple(tile[d] for d in perm), tuple(strides[d] for d in perm))
    shape = draw(_factorisation(n))
    stride = tuple(draw(st.integers(0, 2 * n)) for _ in shape)
    return Layout(shape, stride)


@st.composite
def residue_covers(draw):
    """``residue_cover`` over a small box: any TV map, count and predicate (module docstring)."""
    rank = draw(st.integers(1, 3))
    tile = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    tiling = ResidueTiling(("M", "N", "K")[:rank], tile, draw(st.sampled_from(COUNTS)),
                           draw(st.sampled_from(PREDICATES)), draw(tv_maps(tile)))
    sizes = []
    for _ in range(rank):
        lo = draw(st.integers(1, 6))
        sizes.append((lo, lo + draw(st.integers(0, 4 if rank < 3 else 2))))
    return residue_cover(tiling, tuple(sizes))


@st.composite
def schedulers(draw):
    """``schedule_bijection`` of every kind, correct and broken, over a small box of grids."""
    kind = draw(st.sampled_from(("plain", "swizzle", "grouped", "split_k")))
    s = {"plain": lambda: TileScheduler("plain"),
         "swizzle": lambda: TileScheduler("swizzle", log=draw(st.integers(0, 2))),
         "grouped": lambda: TileScheduler("grouped", group=draw(st.integers(1, 4)), ctas=draw(st.integers(1, 6)),
                                          drop_partial_group=draw(st.booleans())),
         "split_k": lambda: TileScheduler("split_k", splits=draw(st.integers(1, 5)),
                                          count=draw(st.sampled_from(("ceil_div", "div"))))}[kind]()
    grids = []
    for d in range(2):
        lo = draw(st.integers(1, 7))
        grids.append((1, 1) if kind == "split_k" and d == 1 else (lo, lo + draw(st.integers(0, 4))))
    return schedule_bijection(s, tuple(grids))


@st.composite
def sm80_operand_paths(draw) -> dict:
    """An SM80 operand-A path as spec values (module docstring): ``swizzle`` ``(B, M, S)``, stage row pitch ``lds``
    and global leading dimension ``ld`` (both in halves)."""
    b = draw(st.integers(0, 3))
    m = draw(st.integers(0, 4))
    s = draw(st.integers(max(b, 3), 7))
    lds = draw(st.sampled_from((16, 24, 32, 36, 40, 44, 48, 64, 72)))
    ld = draw(st.sampled_from((32, 36, 40, 48, 64)))
    return {"swizzle": (b, m, s), "lds": lds, "ld": ld}
