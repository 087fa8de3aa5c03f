"""The exhaustive engine, the reference: evaluate every point of the finite domain with NumPy.

It calls each property's ``exhaustive()`` hook, so it decides every property, including ones added in other modules;
a hook that answers ``Undecided`` (an input feature the claim does not model) is UNKNOWN with its reason.
It refuses (UNKNOWN, with the size) when ``domain_size * bytes_per_point`` exceeds the memory budget, and reports a
decision that took longer than the timeout as UNKNOWN (NumPy cannot be interrupted; the budget bounds the time).
"""

from __future__ import annotations

import time

from layoutcheck.engines.base import Engine, Limits, register_engine, to_result, unknown
from layoutcheck.properties.base import Property, Undecided
from layoutcheck.result import Result


class ExhaustiveEngine(Engine):
    name = "exhaustive"

    def __init__(self, memory_budget: int | None = None) -> None:
        self.memory_budget = memory_budget

    def supports(self, prop: Property) -> str | None:
        if type(prop).exhaustive is Property.exhaustive:
            return f"unsupported: {prop.name} has no exhaustive decision hook"
        return None

    def _too_large(self, prop: Property, budget: int) -> str | None:
        need = prop.domain_size() * prop.bytes_per_point
        if need > budget:
            return (f"domain too large for enumeration: {prop.domain_size()} points need about {need >> 20} MiB, "
                    f"over the memory budget of {budget >> 20} MiB (raise it with --memory)")
        return None

    def check(self, prop: Property, limits: Limits) -> Result:
        t0 = time.perf_counter()
        why = self.supports(prop) or self._too_large(prop, self.memory_budget or limits.memory_budget)
        if why is not None:
            return unknown(prop, self.name, why, t0, {"domain": prop.domain_size()})
        decision = prop.exhaustive()
        if isinstance(decision, Undecided):  # an input feature the claim does not model
            return to_result(prop, self.name, decision, t0)
        elapsed = time.perf_counter() - t0
        if elapsed > limits.timeout:
            return to_result(prop, self.name, Undecided(f"timeout: took {elapsed:.2f} s > {limits.timeout} s"), t0)
        if isinstance(decision, Undecided):  # the claim names an input feature it does not model
            return to_result(prop, self.name, Undecided(decision.reason, {"domain": prop.domain_size(),
                                                                            **decision.stats}), t0)
        stats = {"domain": prop.domain_size(), **decision.stats}
        return to_result(prop, self.name, type(decision)(decision.holds, decision.witness, stats), t0)


EXHAUSTIVE = register_engine(ExhaustiveEngine())
