"""``algebra.gf2``: GF(2) elimination over ints as bit vectors, against brute force over every small matrix."""

from __future__ import annotations

import itertools

import pytest

from layoutcheck.algebra.gf2 import echelon, inverse, rank, span_prefix


def _span(cols: tuple[int, ...]) -> set[int]:
    out = {0}
    for c in cols:
        out |= {x ^ c for x in out}
    return out


def _apply(cols: list[int], x: int) -> int:
    y = 0
    for j, c in enumerate(cols):
        if x >> j & 1:
            y ^= c
    return y


@pytest.mark.parametrize("cols", list(itertools.product(range(8), repeat=3)))
def test_rank_is_log2_of_the_span_and_kernel_vectors_map_to_zero(cols: tuple[int, ...]) -> None:
    e = echelon(cols)
    assert 1 << rank(cols) == len(_span(cols))
    assert e.rank + len(e.kernel) == len(cols)
    assert all(_apply(list(cols), k) == 0 and k for k in e.kernel)
    assert list(e.kernel) == sorted(e.kernel)


@pytest.mark.parametrize("cols", list(itertools.product(range(1, 8), repeat=3)))
def test_inverse_is_the_inverse_or_none_when_singular(cols: tuple[int, ...]) -> None:
    inv = inverse(list(cols), 3)
    if rank(cols) < 3:
        assert inv is None
    else:
        assert inv is not None
        assert all(_apply(inv, _apply(list(cols), x)) == x for x in range(8))


def test_span_prefix_starts_at_zero_and_stays_in_the_span() -> None:
    assert span_prefix((1, 4), 3) == [0, 1, 4]
    assert span_prefix((1, 4), 4) == [0, 1, 4, 5]
    assert span_prefix((), 1) == [0]
    assert set(span_prefix((2, 8, 16), 8)) == _span((2, 8, 16))


def test_empty_and_zero_columns() -> None:
    assert rank([]) == 0 and echelon([]).kernel == ()
    assert echelon([0, 0]).kernel == (1, 2)
