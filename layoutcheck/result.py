"""Verdicts and results: what a proof attempt says, and with what evidence.

``PROVEN`` and ``REFUTED`` are claims an engine has *decided*: PROVEN only when the engine checked every case
(exhaustive enumeration, a GF(2) rank argument, or ``unsat`` of the negated property); REFUTED only with a concrete
counterexample that was re-checked by evaluating the layouts. Everything else -- a timeout, a solver ``unknown``, a
domain too large to enumerate, a construct the engine does not model -- is ``UNKNOWN`` with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from layoutcheck.display import render
from layoutcheck.witness_record import Witness

DEFAULT_TIMEOUT = 30.0
"""Seconds one proof may take unless told otherwise: the one default of ``prove``, ``check``, ``testing`` and the
pytest plugin."""


class Verdict(Enum):
    PROVEN = "PROVEN"
    """The property holds for every input in its domain; an engine decided it."""
    REFUTED = "REFUTED"
    """The property fails; ``Result.counterexample`` is a concrete, re-checked witness."""
    UNKNOWN = "UNKNOWN"
    """Not decided: ``Result.reason`` says why (timeout, solver unknown, too large, unsupported)."""

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Counterexample:
    """A concrete witness: ``text`` for people (CuTe coordinates), ``data`` for programs (plain ints: the JSON object
    of ``check --json``), ``witness`` the typed record it came from (``layoutcheck.witness``; ``None`` for a claim
    whose witness is still an untyped dict)."""

    text: str
    data: dict[str, Any] = field(default_factory=dict)
    witness: Witness | None = None

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of ``prove(prop)``."""

    property: Any
    status: Verdict
    engine: str
    time_s: float = 0.0
    counterexample: Counterexample | None = None
    reason: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status is Verdict.REFUTED and self.counterexample is None:
            raise AssertionError("a REFUTED result must carry a counterexample")
        if self.status is Verdict.UNKNOWN and not self.reason:
            raise AssertionError("an UNKNOWN result must carry a reason")

    @property
    def proven(self) -> bool:
        """Whether an engine decided the property holds (``status is Verdict.PROVEN``)."""
        return self.status is Verdict.PROVEN

    @property
    def verdict(self) -> Verdict:
        """The verdict (the same value as ``status``)."""
        return self.status

    def __bool__(self) -> bool:
        """Refused: a REFUTED or UNKNOWN result is an object, so ``assert prove(...)`` would always pass.

        >>> from layoutcheck import Layout, bijective, prove
        >>> bool(prove(bijective(Layout((4, 8), (8, 2)))))
        Traceback (most recent call last):
        ...
        TypeError: a Result has no truth value (REFUTED would pass 'assert' and 'if'): use result.proven, or \
result.verdict is Verdict.PROVEN
        """
        raise TypeError("a Result has no truth value (REFUTED would pass 'assert' and 'if'): use result.proven, or "
                        "result.verdict is Verdict.PROVEN")

    def __str__(self) -> str:
        head = f"{self.status}: {self.property} [{self.engine}, {self.time_s * 1e3:.1f} ms]"
        if self.counterexample is not None:
            return f"{head}\n  counterexample: {self.counterexample}"
        if self.reason:
            return f"{head}\n  reason: {self.reason}"
        return head

    def _repr_html_(self) -> str:
        """Jupyter: the verdict, and for a counterexample its picture (the HTML report's)."""
        return render(self, "html")
