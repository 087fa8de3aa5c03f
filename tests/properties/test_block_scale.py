"""``properties.block_scale``: ``scale_agreement`` holds iff producer and consumer put each scale at one address."""

from __future__ import annotations

import pytest

from layoutcheck.engines.prove import prove
from layoutcheck.models.block_scale import scale_layout
from layoutcheck.properties.block_scale import ScaleAgreement, scale_agreement


@pytest.mark.parametrize("name", ["linear", "128x4"])
def test_a_layout_agrees_with_itself(name: str) -> None:
    s = scale_layout(name, 128, 256, 32)
    prop = scale_agreement(s, s)
    assert isinstance(prop, ScaleAgreement)
    assert prove(prop).status.value == "PROVEN"


def test_linear_against_the_interleave_is_refuted_with_a_witness() -> None:
    r = prove(scale_agreement(scale_layout("linear", 128, 256, 32), scale_layout("128x4", 128, 256, 32)))
    assert r.status.value == "REFUTED"
    assert r.counterexample is not None
