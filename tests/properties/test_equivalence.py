"""``properties.equivalence.map_equivalent``: two forms of a map are equal iff they agree at every flat index."""

from __future__ import annotations

from layoutcheck.algebra.layout import Layout
from layoutcheck.engines.prove import prove
from layoutcheck.expr.formula import parse_formula
from layoutcheck.properties.equivalence import map_equivalent, map_size, value_at


def test_a_layout_and_its_formula_are_equivalent() -> None:
    f = parse_formula("r*8 + c", {"c": 8, "r": 4})
    assert prove(map_equivalent(Layout((8, 4), (1, 8)), f)).status.value == "PROVEN"


def test_value_at_is_the_layout_at_the_flat_index() -> None:
    lay = Layout((4, 2), (2, 1))
    assert map_size(lay) == 8
    assert [value_at(lay, i) for i in range(8)] == [lay(i) for i in range(8)]


def test_a_transposed_layout_is_refuted_at_its_first_difference() -> None:
    r = prove(map_equivalent(Layout((4, 2), (1, 4)), Layout((4, 2), (2, 1))))
    assert r.status.value == "REFUTED"
    assert r.counterexample is not None


def test_equal_layouts_written_differently_are_equivalent() -> None:
    assert prove(map_equivalent(Layout((2, 4), (1, 2)), Layout(8, 1))).status.value == "PROVEN"
