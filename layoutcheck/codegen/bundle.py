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
