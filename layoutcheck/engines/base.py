"""The engine protocol: who decides a property, and how an answer becomes a ``Result``.

An engine has a ``name`` and two methods:

- ``supports(prop) -> str | None``: ``None`` if it can attempt ``prop``, else the reason it cannot (a construct it
  does not model, a domain over its budget). Cheap; ``prove(engine="auto")`` uses it to fall through.
- ``check(prop, limits) -> Result``: PROVEN, REFUTED (with a counterexample re-checked by evaluating the layouts via
  ``prop.recheck``) or UNKNOWN (with the reason). ``limits`` carries the wall-clock timeout, the memory budget of
  the exhaustive engine and the z3 ``rlimit``.

``HandlerEngine`` is the usual base: a table from property type to a *handler* ``(prop, limits) -> Decision |
Undecided``, filled with ``@ENGINE.handles(PropertyType)``; a property without a handler is declined. Modules that
add properties (``banks.py``, ``tma.py``) may register handlers on an engine without the engine knowing them::

    from layoutcheck.engines.linear import LINEAR
    @LINEAR.handles(ConflictFree)
    def _conflict_free_linear(prop, limits): ...

``to_result`` is the one place a decision becomes a ``Result``: a witness that fails ``prop.recheck`` is never
reported as REFUTED (it becomes UNKNOWN with an ``internal error`` reason, which the tests treat as a bug).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from layoutcheck.properties.base import Decision, Property, Undecided
from layoutcheck.result import DEFAULT_TIMEOUT, Counterexample, Result, Verdict
from layoutcheck.witness_record import Witness

Handler = Callable[[Any, "Limits"], "Decision | Undecided"]

DEFAULT_MEMORY_BUDGET = 2 << 30  # bytes the exhaustive engine may use (about 2 GiB)


@dataclass(frozen=True, slots=True)
class Limits:
    """What an engine may spend: seconds of wall clock, bytes of memory, z3 resource units (``None``: no limit)."""

    timeout: float = DEFAULT_TIMEOUT
    memory_budget: int = DEFAULT_MEMORY_BUDGET
    rlimit: int | None = None


class Engine:
    """Base engine: subclasses set ``name`` and implement ``supports`` and ``check``."""

    name: str = "engine"

    def supports(self, prop: Property) -> str | None:
        raise NotImplementedError

    def check(self, prop: Property, limits: Limits) -> Result:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<engine {self.name}>"


class HandlerEngine(Engine):
    """An engine that decides each property type with a registered handler."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.handlers: dict[type, Handler] = {}

    def handles(self, prop_type: type) -> Callable[[Handler], Handler]:
        def register(fn: Handler) -> Handler:
            self.handlers[prop_type] = fn
            return fn

        return register

    def handler(self, prop: Property) -> Handler | None:
        for cls in type(prop).__mro__:
            if cls in self.handlers:
                return self.handlers[cls]
        return None

    def precondition(self, prop: Property) -> str | None:
        """Engine-specific applicability (linear: every subject GF(2)-linear); ``None`` means applicable."""
        return None

    def supports(self, prop: Property) -> str | None:
        if self.handler(prop) is None:
            return f"unsupported: the {self.name} engine has no handler for {prop.name}"
        return self.precondition(prop)

    def check(self, prop: Property, limits: Limits) -> Result:
        t0 = time.perf_counter()
        if self.handler(prop) is not None:  # a cheap refutation the property knows (a misaligned vector) comes first
            early = prop.refutation()
            if early is not None:
                return to_result(prop, self.name, early, t0)
        why = self.supports(prop)
        if why is not None:
            return unknown(prop, self.name, why, t0)
        handler = self.handler(prop)
        assert handler is not None
        return to_result(prop, self.name, handler(prop, limits), t0)


def unknown(prop: Property, engine: str, reason: str, t0: float, stats: dict[str, Any] | None = None) -> Result:
    return Result(prop, Verdict.UNKNOWN, engine, time.perf_counter() - t0, None, reason, stats or {})


def to_result(prop: Property, engine: str, outcome: Decision | Undecided, t0: float) -> Result:
    """The single conversion of an engine's outcome into a ``Result``; re-checks every witness by evaluation."""
    if isinstance(outcome, Undecided):
        return unknown(prop, engine, outcome.reason, t0, dict(outcome.stats))
    if outcome.holds:
        return Result(prop, Verdict.PROVEN, engine, time.perf_counter() - t0, None, None, dict(outcome.stats))
    witness = outcome.witness or {}
    try:
        ok = prop.recheck(witness)
    except Exception as exc:  # a malformed witness is an engine bug, never a REFUTED
        ok, witness = False, {**witness, "recheck_error": repr(exc)}
    if not ok:
        return unknown(prop, engine, f"internal error: the {engine} engine's counterexample {witness} did not "
                                     "re-check by evaluation", t0, dict(outcome.stats))
    typed = witness if isinstance(witness, Witness) else None
    cex = Counterexample(prop.explain(witness), typed.to_json() if typed else dict(witness), typed)
    return Result(prop, Verdict.REFUTED, engine, time.perf_counter() - t0, cex, None, dict(outcome.stats))


# -- the registry ---------------------------------------------------------------------------------------------
_ENGINES: dict[str, Engine] = {}
AUTO_ORDER: list[str] = []
"""The order ``prove(engine="auto")`` tries engines in: cheapest decision first."""


_PRIORITY: dict[str, int] = {"structural": 0, "linear": 1, "exhaustive": 2, "z3": 3, "sympy": 4}
"""Fixed ``auto`` priority of the built-in engines, so the order never depends on which module was imported first."""


def register_engine(engine: Engine, rank: int | None = None) -> Engine:
    """Add ``engine`` to the registry and the ``auto`` order: built-ins by their fixed priority, others by ``rank``
    (default: after the built-ins, in registration order)."""
    _ENGINES[engine.name] = engine
    if engine.name not in AUTO_ORDER:
        _PRIORITY.setdefault(engine.name, 100 + len(AUTO_ORDER) if rank is None else rank)
        AUTO_ORDER.append(engine.name)
        AUTO_ORDER.sort(key=lambda n: _PRIORITY[n])
    return engine


def engines() -> dict[str, Engine]:
    load_builtin()
    return dict(_ENGINES)


_BUILTIN = ("structural", "linear", "exhaustive", "z3", "sizes_z3", "sympy")
_loaded = False


def load_builtin() -> None:
    """Import the built-in engine modules once; each registers itself in the ``auto`` order (cheapest first)."""
    global _loaded
    if not _loaded:
        _loaded = True
        for mod in _BUILTIN:
            import_module(f"layoutcheck.engines.{mod}")
