"""The one canonical-layout recogniser (``models.canonical``) behind the GMMA and UMMA descriptors: both families
read the same LBO / SBO from the same layouts, ``canonical_layout`` inverts ``canonical_form`` at every coordinate,
and a layout that is not made of K-contiguous 16-byte chunks is refused by both (UMMA used to accept it)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.errors import DescriptorError
from layoutcheck.hw.swizzle_modes import swizzle_mode
from layoutcheck.models import gmma, umma
from layoutcheck.models.canonical import canonical_layout
from layoutcheck.models.tma import mma_smem_layout

_UMMA_NAME = {"INTER": "SWIZZLE_NONE", "SW32": "SWIZZLE_32B", "SW64": "SWIZZLE_64B", "SW128": "SWIZZLE_128B"}
_CASES = [(dt, major, mode) for (dt, major), mode in itertools.product(
    [("f16", "K"), ("f16", "MN"), ("tf32", "K"), ("e4m3", "K")], _UMMA_NAME)]


def _slice(dtype: str, major: str, mode: str) -> Layout | ComposedLayout:
    """The first (MN=64, K=32 bytes) operand block of a CUTLASS-style stage tile."""
    tdt = {"f16": "float16", "tf32": "float32", "e4m3": "uint8"}[dtype]
    stage = mma_smem_layout(major, swizzle_mode(mode).name, tdt, (64, 128))
    return gmma.gmma_blocks(stage, dtype, 64).block_layout()


@pytest.mark.parametrize(("dtype", "major", "mode"), _CASES)
def test_gmma_and_umma_read_the_same_form(dtype: str, major: str, mode: str) -> None:
    sl = _slice(dtype, major, mode)
    g, u = gmma.canonical_gmma(sl, dtype, major), umma.canonical_umma(sl, dtype, major)
    assert (g.atom.name, g.lbo, g.sbo, g.start, g.shape) == (mode, u.lbo, u.sbo, u.start, u.shape)
    assert u.atom.name == _UMMA_NAME[mode]


@pytest.mark.parametrize(("dtype", "major", "mode"), _CASES)
def test_canonical_layout_inverts_the_recogniser(dtype: str, major: str, mode: str) -> None:
    sl = _slice(dtype, major, mode)
    c = gmma.canonical_gmma(sl, dtype, major)
    bits = 8 * gmma.element_bytes(dtype)
    back = canonical_layout(c.atom, major, bits, c.shape, c.lbo, c.sbo)
    lay = sl.layout if isinstance(sl, ComposedLayout) else sl
    assert np.array_equal(back.offsets(), lay.offsets())


@pytest.mark.parametrize("family", ["gmma", "umma"])
def test_mn_contiguous_layout_is_not_k_major(family: str) -> None:
    """``(64,16):(1,64)`` f16 in 16-byte units is ``(8,16):(1,8)``: the chunks run along MN, so no K-major
    descriptor reads it (INTER's 1-unit row stride would otherwise match by accident)."""
    recognise = gmma.canonical_gmma if family == "gmma" else umma.canonical_umma
    with pytest.raises(DescriptorError, match="chunks do not run along K"):
        recognise(Layout((64, 16), (1, 64)), "f16", "K")
