"""The per-mode screen of ``ResidueCover`` (``first_failing``) decides exactly what the size-by-size enumeration
decides: the same first failing size, the same witness, for every count, predicate and box."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutcheck import Layout
from layoutcheck.models.residue import COUNTS, PREDICATES, ResidueTiling
from layoutcheck.properties.residue import residue_cover


def _reference(prop) -> tuple[tuple[int, ...] | None, dict | None]:
    """The definition: every size of the box in ``itertools.product`` order, one enumeration each."""
    for sizes in itertools.product(*[range(lo, hi + 1) for lo, hi in prop.sizes]):
        w = prop.tiling.violation(sizes)
        if w is not None:
            return sizes, w
    return None, None


@st.composite
def _props(draw):
    rank = draw(st.integers(1, 3))
    tile = tuple(draw(st.integers(1, 5)) for _ in range(rank))
    tv = None
    if rank == 2 and draw(st.booleans()):  # a bijective TV layout onto the tile: the colex identity, permuted modes
        tv = Layout((tile[1], tile[0]), (tile[0], 1))
    tiling = ResidueTiling(("M", "N", "K")[:rank], tile, draw(st.sampled_from(COUNTS)),
                           draw(st.sampled_from(PREDICATES)), tv)
    sizes = []
    for _ in range(rank):
        lo = draw(st.integers(1, 12))
        sizes.append((lo, lo + draw(st.integers(0, 9))))
    return residue_cover(tiling, tuple(sizes))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(_props())
def test_screen_equals_enumeration(prop) -> None:
    first, w = _reference(prop)
    assert prop.first_failing() == first
    d = prop.exhaustive()
    assert d.holds is (first is None)
    if first is not None:
        assert d.witness == w
