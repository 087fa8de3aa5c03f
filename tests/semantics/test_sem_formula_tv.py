"""Semantics of ``exact_cover`` for a TV map written as a formula (``tv = { formula, coords = { t, v } }``), from the
claim's definition (``properties.tv.ExactCover``: every tile element is the image of exactly ``replication``
``(thread, value)`` pairs, of distinct threads, and no pair maps outside the tile). The naive side evaluates the
formula with Python at every pair (``/`` as floor division) and counts owners per element."""

from __future__ import annotations

from hypothesis import given

from tests.semantics.naive_common import agree, spec_rows
from tests.strategies_sem_formula_tv import tv_formulas


def naive(p: dict) -> tuple[str, int] | None:
    """``None`` when the formula covers the tile exactly, else the first failure: (``out``, flat index) or
    (``owners`` / ``same_thread``, element)."""
    owners: dict[int, list[int]] = {}
    for i in range(p["t"] * p["v"]):
        t, v = i % p["t"], i // p["t"]
        e = eval(p["formula"].replace("/", "//"), {"__builtins__": {}}, {"t": t, "v": v})
        if not 0 <= e < p["tile"]:
            return "out", i
        owners.setdefault(e, []).append(t)
    for e in range(p["tile"]):
        if len(owners.get(e, [])) != p["replication"]:
            return "owners", e
    for e in range(p["tile"]):
        if len(set(owners[e])) < len(owners[e]):
            return "same_thread", e
    return None


def _spec(p: dict) -> str:
    rep = f', replication = {p["replication"]}' if p["replication"] > 1 else ""
    return (f'[[config]]\nname = "f"\nkind = "tv"\ntv = {{ formula = "{p["formula"]}", coords = {{ t = {p["t"]}, '
            f'v = {p["v"]} }} }}\ntile = [{p["tile"]}]\nproperties = [{{ name = "exact_cover"{rep} }}]\n')


@given(tv_formulas())
def test_formula_exact_cover_equals_the_naive_owner_count(p) -> None:
    want = naive(p)
    rows = spec_rows(_spec(p))
    agree(rows, want is None, f"tv formula {p}")
    r = rows["auto"]
    if r.status == "REFUTED":
        w = r.counterexample_data
        if w["kind"] == "out":
            got = ("out", w["i"])
        elif w["kind"] == "owners":
            got = ("owners", w["y"])
        else:  # same_thread: two flat (t, v) indices of one thread on one element
            i = w["i"]
            got = ("same_thread", eval(p["formula"].replace("/", "//"), {"__builtins__": {}},
                                       {"t": i % p["t"], "v": i // p["t"]}))
        assert got == want, (w, want)
