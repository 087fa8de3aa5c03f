"""Tests written for the mutants of ``layoutcheck/models`` that the suite let live (docs/soundness.md, "Mutation
score"); each is named after the law it checks."""

from __future__ import annotations

import dataclasses

import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.errors import LayoutcheckError
from layoutcheck.models.umma import decode_umma_descriptor, umma_descriptor


def test_decoding_a_umma_descriptor_with_a_base_offset_alone_is_not_modelled() -> None:
    """A descriptor whose base offset is non-zero (LBO mode 0) is outside what the decoder models: it must refuse it
    (fail closed), not decode it as if the offset were 0 -- either field alone is enough."""
    d = umma_descriptor(Layout(((8, 8), (8, 2)), ((8, 64), (1, 512))), "f16", "K")
    assert str(decode_umma_descriptor(d, "f16", "K", (64, 16)).layout) == "((8,8),(8,2)):((8,64),(1,512))"
    with pytest.raises(LayoutcheckError, match="not modelled"):
        decode_umma_descriptor(dataclasses.replace(d, base_offset=1), "f16", "K", (64, 16))


def test_a_persistent_scheduler_refuses_a_negative_swizzle_size() -> None:
    from layoutcheck.models.schedulers import TileScheduler

    with pytest.raises(LayoutcheckError):
        TileScheduler("persistent", ctas=4, swizzle_size=-1)
