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

from layoutcheck.errors import ProofFailed
from layoutcheck.result import DEFAULT_TIMEOUT, Result, Verdict


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
    config: str = ""
    """The config's name when collected (``check_case`` reads the file again and checks it is still there)."""
    property: str = ""
    """The property request's label when collected."""

    def __str__(self) -> str:
        return self.label


def spec_cases(paths: list[str], include_broken: bool = False) -> list[SpecCase]:
    """Every (config, property) of the spec files under ``paths`` (loading them raises ``SpecError`` if malformed).

    Post: the labels (``str(case)``, the test ids) are unique: ``config::property``, prefixed by the file's name
    when several files are collected, and numbered when a config lists one property twice.
    """
    import os

    from layoutcheck.spec.load import collect, load_spec

    out: list[SpecCase] = []
    files = collect(list(paths), include_broken)
    seen: dict[str, int] = {}
    for f in files:
        stem = os.path.splitext(os.path.basename(f))[0]
        for ci, cfg in enumerate(load_spec(f).configs):
            for pi, req in enumerate(cfg.properties):
                label = f"{cfg.name}::{req.label}" if len(files) == 1 else f"{stem}::{cfg.name}::{req.label}"
                seen[label] = seen.get(label, 0) + 1
                if seen[label] > 1:
                    label = f"{label}#{seen[label]}"
                out.append(SpecCase(f, ci, pi, label, cfg.name, req.label))
    return out


def check_case(case: SpecCase, engine: str = "auto", timeout: float = DEFAULT_TIMEOUT) -> Any:
    """Prove one spec case; raise ``ProofFailed`` unless PROVEN. Returns the ``layoutcheck.check.Row``."""
    from layoutcheck.check import check_property
    from layoutcheck.spec.load import load_spec

    cfg, req = _collected(load_spec(case.file), case)  # read now: a file rewritten since gives its new verdict
    row = check_property(cfg, req, engine, timeout)
    if row.status != "PROVEN":
        detail = row.counterexample if row.status == "REFUTED" else row.reason
        raise ProofFailed(f"{row.status}: {row.config} {row.property} ({row.file}:{row.line}): {detail}", row)
    return row


def _collected(spec: Any, case: SpecCase) -> tuple[Any, Any]:
    """The (config, property request) of ``case`` in ``spec`` as read now; ``SpecError`` if the file no longer holds
    the config and property it held when collected (it was edited since: collect again)."""
    from layoutcheck.errors import SpecError

    cfgs = spec.configs
    cfg = cfgs[case.config_index] if case.config_index < len(cfgs) else None
    req = cfg.properties[case.property_index] if cfg and case.property_index < len(cfg.properties) else None
    if cfg is None or req is None or (case.config and (cfg.name, req.label) != (case.config, case.property)):
        raise SpecError(f"{case.file}: changed since it was collected: it no longer holds {case.label!r} at the same "
                        f"place (collect the cases again)", file=case.file)
    return cfg, req


def triton_smem(kernel: str, signature: dict[str, str], constexprs: dict[str, Any] | None = None,
                num_warps: int = 4, num_stages: int = 3, target: str = "cuda:90") -> list[Any]:
    """Compile ``FILE.py::KERNEL`` on the CPU with the installed Triton (as ``layoutcheck triton`` does) and return
    its shared-memory traffic: one ``layoutcheck.properties.ttgir_smem.Traffic`` per operation, ``line`` its TTGIR
    line, ``where`` (added here) its Python ``file:line``."""
    from layoutcheck.importers.triton_kernel import KernelSpec, compile_kernel
    from layoutcheck.properties.ttgir_smem import smem_traffic
    from layoutcheck.report.triton import traffic_at_source

    text = compile_kernel(KernelSpec(kernel, signature, constexprs or {}, num_warps, num_stages, target))
    return list(traffic_at_source(smem_traffic(text), text))


def assert_triton_conflict_free(kernel: str, signature: dict[str, str], constexprs: dict[str, Any] | None = None,
                                num_warps: int = 4, num_stages: int = 3, target: str = "cuda:90",
                                allow_unmodelled: bool = True) -> list[Any]:
    """Raise ``ProofFailed`` if any shared-memory operation of the compiled kernel needs more wavefronts than its
    ideal (the message names each at its Python line, with the counts); with ``allow_unmodelled=False`` also if an
    operation is not modelled (a conversion's scratch, a cross-warp reduction, an MMA-operand copy). Returns the
    ``(where, Traffic)`` list.

        def test_my_kernel_has_no_bank_conflicts():
            assert_triton_conflict_free("kernels/attn.py::attn_fwd", {"q_ptr": "*fp16", ...}, {"BLOCK_M": 128})
    """
    traffic = triton_smem(kernel, signature, constexprs, num_warps, num_stages, target)
    bad = [f"{w}: {t.subject}: {t.wavefronts} wavefronts, ideal {t.ideal}" for w, t in traffic if t.excess]
    if not allow_unmodelled:
        bad += [f"{w}: {t.subject}: {t.reason}" for w, t in traffic if t.wavefronts is None]
    if bad:
        raise ProofFailed(f"{kernel}: shared-memory bank conflicts:\n  " + "\n  ".join(bad), traffic)
    return traffic
