"""``prove(prop)``: run an engine (or the cheapest that decides) on a property and return a ``Result``.

``engine="auto"`` tries the engines in ``AUTO_ORDER`` (structural, linear, exhaustive, z3, sympy: a fixed priority,
independent of import order): an engine that declines or answers UNKNOWN passes the property on; the first PROVEN
or REFUTED wins and names its engine. If none decides, the result is UNKNOWN with every engine's reason. A named
engine that does not support the property answers UNKNOWN with its reason (it never silently falls back).
"""

from __future__ import annotations

import time

from layoutcheck.engines.base import AUTO_ORDER, DEFAULT_MEMORY_BUDGET, Limits, engines
from layoutcheck.errors import LayoutError
from layoutcheck.properties.base import Property
from layoutcheck.result import DEFAULT_TIMEOUT, Result, Verdict


def prove(prop: Property, engine: str = "auto", timeout: float = DEFAULT_TIMEOUT,
          memory_budget: int = DEFAULT_MEMORY_BUDGET, rlimit: int | None = None) -> Result:
    """Decide ``prop``. Post: PROVEN only from an engine's decision over the whole domain; REFUTED with a re-checked
    counterexample; otherwise UNKNOWN with a reason.

    >>> from layoutcheck import Layout, bijective
    >>> prove(bijective(Layout((4, 2), (2, 1)))).status
    <Verdict.PROVEN: 'PROVEN'>
    """
    if not isinstance(prop, Property):
        raise LayoutError(f"prove expects a property such as injective(L), found {type(prop).__name__} {prop!r}")
    if not timeout > 0:
        raise LayoutError(f"prove: timeout must be positive, found {timeout!r}")
    table = engines()
    limits = Limits(float(timeout), int(memory_budget), rlimit)
    if engine != "auto":
        if engine not in table:
            raise LayoutError(f"prove: unknown engine {engine!r}; choose 'auto' or one of {', '.join(table)}")
        return table[engine].check(prop, limits)
    return _auto(prop, limits, table)


def _auto(prop: Property, limits: Limits, table: dict) -> Result:
    t0 = time.perf_counter()
    reasons: list[str] = []
    for name in AUTO_ORDER:
        eng = table[name]
        why = eng.supports(prop)
        if why is not None:
            reasons.append(f"{name}: {why}")
            continue
        left = limits.timeout - (time.perf_counter() - t0)
        if left <= 0:
            reasons.append(f"{name}: timeout: no time left")
            break
        res = eng.check(prop, Limits(left, limits.memory_budget, limits.rlimit))
        if res.status is not Verdict.UNKNOWN:
            tried = [r.split(":")[0] for r in reasons]
            return Result(res.property, res.status, res.engine, time.perf_counter() - t0, res.counterexample,
                          res.reason, {**res.stats, "declined": tried} if tried else res.stats)
        reasons.append(f"{name}: {res.reason}")
    return Result(prop, Verdict.UNKNOWN, "auto", time.perf_counter() - t0, None, _unknown_reason(reasons), {})


_NO_HANDLER = "unsupported: the "


def _unknown_reason(reasons: list[str]) -> str:
    """Why no engine decided: what the engines that have a handler said first (a timeout, a budget, an input feature
    not modelled), then the engines with no handler for the claim, by name only."""
    said = [r for r in reasons if not r.split(": ", 1)[-1].startswith(_NO_HANDLER)]
    idle = [r.split(":", 1)[0] for r in reasons if r not in said]
    if not said:
        return "; ".join(reasons)
    return "; ".join(said) + (f" (no handler in {', '.join(idle)})" if idle else "")


__all__ = ["prove"]
