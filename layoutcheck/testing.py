"""Gate layout properties from a Python test suite.

``assert_proven(prop)`` proves a property and raises ``ProofFailed`` (an ``AssertionError``) unless it is PROVEN;
the exception carries the ``Result`` and its counterexample, and its message is the verdict with the witness::

    from layoutcheck import Layout, bijective
    from layoutcheck.testing import assert_proven

    def test_my_smem_layout_is_a_bijection():
        assert_proven(bijective(Layout((8, 64), (64, 1))))

``spec_cases(paths)`` turns spec files into ``pytest.mark.parametrize`` cases and ``check_case`` proves one, so a
kernel library can gate its own configs (see also the pytest plugin ``layoutcheck.pytest_plugin``)::

    @pytest.mark.parametrize("case", spec_cases(["specs/"]), ids=str)
    def test_layout_specs(case):
        check_case(case)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from layoutcheck.cli import DEFAULT_TIMEOUT, run_job
from layoutcheck.result import Result, Verdict


class ProofFailed(AssertionError):
    """A property was not PROVEN: ``result`` is the ``Result``; ``counterexample`` its witness (None if UNKNOWN)."""

    def __init__(self, message: str, result: Any) -> None:
        super().__init__(message)
        self.result = result
        self.counterexample = getattr(result, "counterexample", None)


def assert_proven(prop: Any, engine: str = "auto", timeout: float = DEFAULT_TIMEOUT, **kw: Any) -> Result:
    """Prove ``prop``; return the PROVEN ``Result`` or raise ``ProofFailed`` carrying the counterexample/reason.

    >>> from layoutcheck import Layout, bijective
    >>> assert_proven(bijective(Layout((4, 2), (2, 1)))).status.value
    'PROVEN'
    """
    from layoutcheck.engines.prove import prove

    result = prove(prop, engine=engine, timeout=timeout, **kw)
    if result.status is not Verdict.PROVEN:
        raise ProofFailed(str(result), result)
    return result


def assert_refuted(prop: Any, engine: str = "auto", timeout: float = DEFAULT_TIMEOUT, **kw: Any) -> Result:
    """Prove that ``prop`` fails (a regression test for a known-bad layout); return the REFUTED ``Result``."""
    from layoutcheck.engines.prove import prove

    result = prove(prop, engine=engine, timeout=timeout, **kw)
    if result.status is not Verdict.REFUTED:
        raise ProofFailed(f"expected REFUTED, got {result}", result)
    return result


@dataclass(frozen=True, slots=True)
class SpecCase:
    """One (spec file, config, property) check; ``str`` is a readable test id."""

    file: str
    config_index: int
    property_index: int
    label: str

    def __str__(self) -> str:
        return self.label


def spec_cases(paths: list[str], include_broken: bool = False) -> list[SpecCase]:
    """Every (config, property) of the spec files under ``paths`` (loading them raises ``SpecError`` if malformed)."""
    from layoutcheck.spec.load import collect, load_spec

    out: list[SpecCase] = []
    for f in collect(list(paths), include_broken):
        for ci, cfg in enumerate(load_spec(f).configs):
            for pi, req in enumerate(cfg.properties):
                out.append(SpecCase(f, ci, pi, f"{cfg.name}::{req.label}"))
    return out


def check_case(case: SpecCase, engine: str = "auto", timeout: float = DEFAULT_TIMEOUT) -> Any:
    """Prove one spec case; raise ``ProofFailed`` unless PROVEN. Returns the ``report.Row``."""
    row = run_job((case.file, case.config_index, case.property_index), engine, timeout)
    if row.status != "PROVEN":
        detail = row.counterexample if row.status == "REFUTED" else row.reason
        raise ProofFailed(f"{row.status}: {row.config} {row.property} ({row.file}:{row.line}): {detail}", row)
    return row
