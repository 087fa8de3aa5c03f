"""The exhaustive engine's memory budget is exact at its bound: a claim that needs exactly the budget is decided,
one byte less is UNKNOWN naming the size; its own budget (``ExhaustiveEngine(memory_budget=...)``) wins over the
limits'; a claim without an exhaustive hook is declined by name."""

from __future__ import annotations

from layoutcheck.algebra.layout import Layout
from layoutcheck.engines.base import Limits
from layoutcheck.engines.exhaustive import ExhaustiveEngine
from layoutcheck.engines.prove import prove
from layoutcheck.properties.base import Property
from layoutcheck.properties.layout import injective
from layoutcheck.result import Verdict


def test_the_budget_bound_is_inclusive() -> None:
    p = injective(Layout((64, 4), (1, 64)))
    need = p.domain_size() * p.bytes_per_point
    assert prove(p, engine="exhaustive", memory_budget=need).status is Verdict.PROVEN
    r = prove(p, engine="exhaustive", memory_budget=need - 1)
    assert r.status is Verdict.UNKNOWN and "too large" in r.reason and str(p.domain_size()) in r.reason


def test_the_engines_own_budget_wins() -> None:
    p = injective(Layout((64, 4), (1, 64)))
    need = p.domain_size() * p.bytes_per_point
    assert ExhaustiveEngine(need - 1).check(p, Limits(10.0, 1 << 30)).status is Verdict.UNKNOWN
    assert ExhaustiveEngine(need).check(p, Limits(10.0, 1)).status is Verdict.PROVEN
    assert ExhaustiveEngine().check(p, Limits(10.0, need)).status is Verdict.PROVEN


def test_a_claim_without_a_hook_is_declined() -> None:
    class Hookless(Property):
        name = "hookless"

        def subjects(self) -> tuple:
            return (Layout(4),)

    assert "no exhaustive decision hook" in ExhaustiveEngine().supports(Hookless())
    assert ExhaustiveEngine().supports(injective(Layout(4))) is None
