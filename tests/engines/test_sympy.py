"""``engines.sympy``: PROVEN only when the difference simplifies to 0; REFUTED only by a probe that really differs."""

from __future__ import annotations

import pytest

pytest.importorskip("sympy")

from layoutcheck.algebra.layout import Layout
from layoutcheck.engines.prove import prove
from layoutcheck.engines.sympy import probes
from layoutcheck.properties.layout import equivalent, in_bounds


def test_probes_are_increasing_in_range_and_keep_the_ends() -> None:
    p = probes(5000)
    assert p == sorted(set(p)) and p[0] == 0 and p[-1] == 4999
    assert {255, 1023, 1024, 1025, 4095, 4096, 4097} <= set(p)
    assert probes(1) == [0]


def test_a_layout_equal_to_the_identity_is_proven() -> None:
    r = prove(equivalent(Layout((4, (2, 2)), (1, (4, 8))), Layout(16, 1)), engine="sympy")
    assert r.status.value == "PROVEN"


def test_a_transpose_is_refuted_at_a_probe() -> None:
    r = prove(equivalent(Layout((4, 2), (1, 4)), Layout((4, 2), (2, 1))), engine="sympy")
    assert r.status.value == "REFUTED"


def test_in_bounds_by_the_proven_bound_and_out_of_bounds_by_a_probe() -> None:
    assert prove(in_bounds(Layout((4, 8), (8, 1)), 32), engine="sympy").status.value == "PROVEN"
    assert prove(in_bounds(Layout((4, 8), (8, 1)), 31), engine="sympy").status.value == "REFUTED"
