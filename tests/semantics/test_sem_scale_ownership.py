"""Semantics of ``scale_ownership`` (block-scaled MMA): a naive oracle from the PTX ISA's block scaling.

Authority: PTX ISA 9.7.16.10.7 (tcgen05.mma ``.block_scale``, ``scale_vec::1X/2X/4X``): every ``vec`` consecutive
K elements of one row of A (or column of B) are scaled by one scale factor, and different (row, vector) pairs have
their own factor. Definition restated: ``sf(mn, k)`` (colex index ``mn + MN * k``) is constant on each K vector
``k // vec`` and injective on ``(mn, k // vec)``; a K extent that is not a multiple of ``vec`` cannot be stated.

The oracle is a plain loop; it shares no code with ``layoutcheck.properties``, ``.models`` or ``.engines`` and
reaches the claim only through the public ``layoutcheck.scale_ownership`` and ``layoutcheck.prove``. The spec kind
``block_scale`` (which layout a CTA's MMA reads, CUTLASS's ``Sm1xxBlockScaledConfig``) is not restated here.
"""

from __future__ import annotations

import pytest
from hypothesis import given

import layoutcheck as lc
from tests.semantics.naive_common import ENGINES, colex, layout_text, prod, verdict_event
from tests.strategies_sem_scale_ownership import scale_layouts


def naive(vec: int, shape: tuple, stride: tuple) -> bool:
    mn, k = prod(shape[0]), prod(shape[1])
    sf = [[colex(shape, stride, m + mn * kk) for kk in range(k)] for m in range(mn)]
    if any(sf[m][kk] != sf[m][kk - kk % vec] for m in range(mn) for kk in range(k)):
        return False
    firsts = [sf[m][v * vec] for m in range(mn) for v in range(k // vec)]
    return len(set(firsts)) == len(firsts)


def verdicts(vec: int, shape: tuple, stride: tuple) -> dict[str, str]:
    claim = lc.scale_ownership(lc.parse_layout(layout_text(shape, stride)), vec)
    return {e: str(lc.prove(claim, engine=e).status.value) for e in ENGINES}


@given(scale_layouts())
def test_every_engine_agrees_with_the_naive_scale_owner(case: tuple) -> None:
    vec, shape, stride, _ = case
    if prod(shape[1]) % vec:
        with pytest.raises(lc.LayoutError):
            verdicts(vec, shape, stride)
        return
    want = "PROVEN" if naive(vec, shape, stride) else "REFUTED"
    verdict_event(want)
    got = verdicts(vec, shape, stride)
    assert got["auto"] == want, (case, got)
    assert all(v in (want, "UNKNOWN") for v in got.values()), (case, got)


def test_broken_variant_is_refuted() -> None:
    """128 rows x 4 vectors of 16 (NVFP4-style): the natural K-major scales are owned once; with the vector stride 1
    the elements of one vector read four different scales."""
    shape = (128, (16, 4))
    assert verdicts(16, shape, (4, (0, 1)))["auto"] == "PROVEN"
    assert verdicts(16, shape, (4, (1, 1)))["auto"] == "REFUTED"
