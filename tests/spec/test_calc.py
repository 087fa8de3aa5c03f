"""``spec.calc``: the function table ``layoutcheck calc`` and spec layout values evaluate over."""

from __future__ import annotations

from layoutcheck.algebra.layout import Layout
from layoutcheck.spec.calc import CALC_FUNCTIONS, calc_functions


def test_every_listed_name_is_callable() -> None:
    table = calc_functions()
    assert all(callable(table[n]) for n in (*CALC_FUNCTIONS, "shape", "stride", "get", "layout"))


def test_the_table_is_a_fresh_dict_each_call() -> None:
    a = calc_functions()
    a["coalesce"] = None
    assert callable(calc_functions()["coalesce"])


def test_algebra_through_the_table() -> None:
    t = calc_functions()
    assert t["coalesce"](Layout((2, 4), (1, 2))) == Layout(8, 1)
    assert t["size"](Layout((2, 4), (1, 2))) == 8
