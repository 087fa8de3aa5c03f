"""Hypothesis strategies for ``tests/semantics/test_sem_ttgir_smem.py``: Triton encodings as TTGIR text.

Each draw *builds* a valid ``#ttg.blocked`` layout (threads per warp multiply to 32, warps to 4; sizes per thread,
threads and warps powers of two along a drawn order) for a drawn power-of-two tile, and a shared layout of the kinds
Triton and Gluon users write: ``#ttg.swizzled_shared`` (vec, perPhase, maxPhase drawn from the values Triton picks and
from adversarial ones: element-granular swizzles of 16-bit data, a column-major order) and ``#ttg.nvmma_shared``.
"""

from __future__ import annotations

from hypothesis import strategies as st


def _split(draw, total: int, parts: int) -> list[int]:
    """``parts`` powers of two multiplying to ``total``."""
    out = [1] * parts
    for _ in range(total.bit_length() - 1):
        out[draw(st.integers(0, parts - 1))] *= 2
    return out


@st.composite
def blocked_layouts(draw, shape: tuple[int, int]) -> str:
    spt = [draw(st.sampled_from([1, 1, 2, 4, 8])) for _ in shape]
    tpw = _split(draw, 32, 2)
    wpc = _split(draw, 4, 2)
    order = draw(st.sampled_from([[1, 0], [0, 1]]))
    return (f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, "
            f"order = {order}}}>")


@st.composite
def shared_layouts(draw, elem_bits: int, shape: tuple[int, int]) -> str:
    widths = [w for w in (32, 64, 128) if w <= shape[1] * elem_bits // 8]  # a swizzle row fits the inner dimension
    if widths and draw(st.integers(0, 3)) == 0:
        width = draw(st.sampled_from(widths))
        return f"#ttg.nvmma_shared<{{swizzlingByteWidth = {width}, transposed = false, elementBitWidth = {elem_bits}}}>"
    vec = draw(st.sampled_from([1, 2, 4, 8]))
    per_phase = draw(st.sampled_from([1, 2, 4]))
    max_phase = draw(st.sampled_from([1, 2, 4, 8, 16, 32]))
    order = draw(st.sampled_from([[1, 0], [1, 0], [0, 1]]))
    return f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, order = {order}}}>"


@st.composite
def copies(draw):
    """``(shape, elem_bits, register encoding, shared encoding)`` of one register <-> shared copy."""
    shape = draw(st.sampled_from([(32, 32), (32, 64), (64, 64), (64, 32), (16, 128)]))
    bits = draw(st.sampled_from([16, 32, 16]))
    return shape, bits, draw(blocked_layouts(shape)), draw(shared_layouts(bits, shape))


@st.composite
def conversions(draw):
    """``(shape, source encoding, destination encoding)`` of one ``convert_layout``."""
    shape = draw(st.sampled_from([(32, 32), (64, 64), (16, 128)]))
    return shape, draw(blocked_layouts(shape)), draw(blocked_layouts(shape))
