"""The bundled kernel cases: every configuration ``layoutcheck gpu`` runs by default, ``gpu.build`` writes and CI
compiles (the benchmark's 8192x8192 ownership map is ``layoutcheck.codegen.cases.big_ownership_case``).

The cases come from ``layoutcheck.codegen.cases`` (ownership maps, SIMT / MMA GEMMs, fragments, the permute) and
``layoutcheck.codegen.tma_cases`` (the TMA-fed MMA GEMMs); this module sits above both, so neither imports the other
backwards.
"""

from __future__ import annotations

from layoutcheck.codegen.cases import (
    KernelCase,
    mma_fragments_case,
    mma_gemm_case,
    ownership_cases,
    permute_case,
    simt_gemm_case,
)
from layoutcheck.codegen.tma_cases import tma_mma_gemm_cases


def bundled_cases() -> list[KernelCase]:
    """Every bundled configuration (the benchmark's 8192x8192 map is ``big_ownership_case``)."""
    return [*ownership_cases(), simt_gemm_case(), *(mma_gemm_case(m) for m in ("INTER", "SW32", "SW64", "SW128")),
            mma_fragments_case(), permute_case(), *tma_mma_gemm_cases()]


def all_generated_cases(spec_paths: list[str] | None = None, refuted_paths: list[str] | None = None
                        ) -> list[KernelCase]:
    """Every kernel codegen generates, once each (by entry name): the bundled cases, the benchmark's 8192x8192 map,
    the Hopper ones (``codegen.wgmma_cases``: fragment probes, TMA -> wgmma GEMMs, placed base-offset experiments,
    K-first stages, types), the ownership kernels of the PROVEN spec configs of ``spec_paths``, the device-vectors
    kernel, and the instantiated REFUTED configurations of ``refuted_paths`` -- what the GPU validation's sanitizer
    section runs (``runner --sanitize --all``)."""
    from layoutcheck.codegen.cases import big_ownership_case
    from layoutcheck.codegen.refuted_cases import refuted_cases
    from layoutcheck.codegen.spec_cases import spec_cases
    from layoutcheck.codegen.vectors_case import vectors_device_case
    from layoutcheck.codegen.wgmma_cases import kfirst_cases, placed_cases, probe_cases, type_cases, wgmma_gemm_cases

    cases = [*bundled_cases(), big_ownership_case(), *probe_cases(), *wgmma_gemm_cases(),
             *(c for c, _ in placed_cases()), *kfirst_cases(), *type_cases(), vectors_device_case()]
    if spec_paths:
        cases += spec_cases(spec_paths)[0]
    if refuted_paths:
        cases += [rc.case for rc in refuted_cases(refuted_paths) if rc.case is not None]  # (bank rows: probes)
    return list({c.name: c for c in cases}.values())
