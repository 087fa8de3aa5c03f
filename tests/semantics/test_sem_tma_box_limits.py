"""Semantics of the ``tma_box`` claim (a device-built TMA load against the ``nvmma_shared`` buffer it fills) for
boxes the driver's rules forbid, from the CUDA driver API and the PTX ISA, sharing no code with
``layoutcheck.properties``, ``.models`` or ``.engines``.

Authority: ``cuTensorMapEncodeTiled`` (CUDA driver API): every ``boxDim[i]`` in 1..256; ``boxDim[0] * elementSize``
a multiple of 16 bytes (and, with a swizzle, at most the swizzle span: that case keeps the claim's padded-row
reading, REFUTED or PROVEN as ``test_sem_tma_box``'s naive writer says). PTX ISA
``tensormap.replace``: a tensor map a kernel writes itself is not checked by any driver, and a field outside those
rules makes the TMA's behaviour undefined -- so such a load is never PROVEN (UNKNOWN, naming the rule). Inside the
rules the verdict is ``test_sem_tma_box``'s naive writer's. Before the rules were read, a 512-row box over a 512-row
buffer (twice the limit) was PROVEN.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutcheck.engines.prove import prove
from layoutcheck.errors import LayoutcheckError
from tests.semantics.test_sem_tma_box import SPAN, claim, naive_verdict
from tests.strategies_sem_nvmma import Case
from tests.strategies_sem_tma_box import BoxCase

DTYPE = {1: "e4m3", 2: "f16", 4: "tf32"}


def naive_illegal(b: BoxCase) -> bool:
    c = b.layout
    inner = c.k_extent * c.e
    return not (1 <= c.mn_extent <= 256 and 1 <= c.k_extent <= 256) or inner % 16 != 0


@st.composite
def limit_cases(draw) -> BoxCase:
    e = draw(st.sampled_from([1, 2, 4]))
    mode = draw(st.sampled_from(sorted(SPAN)))
    rows = draw(st.sampled_from([8, 64, 248, 256, 264, 512]))
    cols = SPAN[mode] // e  # one swizzle row (the buffer's nvmma_shared layout): the rows are what varies
    return BoxCase(Case(DTYPE[e], e, mode, "K", rows, cols, rows, 0, ()), mode, 0)


@settings(max_examples=40, deadline=None)
@given(limit_cases())
def test_a_box_past_the_drivers_limits_is_never_proven(b: BoxCase) -> None:
    if naive_illegal(b):
        with pytest.raises(LayoutcheckError, match="cuTensorMapEncodeTiled"):
            claim(b)  # the claim's constructor refuses it: the road makes it an UNKNOWN row naming the rule
        return
    assert prove(claim(b)).status.name == ("PROVEN" if naive_verdict(b) else "REFUTED")


def test_a_512_row_box() -> None:
    b = BoxCase(Case("f16", 2, "SW128", "K", 512, 64, 512, 0, ()), "SW128", 0)
    assert naive_illegal(b) and naive_verdict(b)  # every element would land right, were the box legal
    with pytest.raises(LayoutcheckError, match=r"boxDim\[1\]: 512, must be 1..256"):
        claim(b)
