"""Generators for the tma_box semantics tests: a tile stored by a ``#ttg.nvmma_shared`` layout (K-contiguous, one
swizzle row per tile row) and a TMA box filling it with a swizzle mode that may differ, at a destination that may be
off the stage start."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from tests.strategies_sem_nvmma import WIDTH, Case

TMA_MODES = {"SW32": "32B", "SW64": "64B", "SW128": "128B"}


@dataclass(frozen=True)
class BoxCase:
    layout: Case  # the buffer: stored by Triton's nvmma_shared of ``layout.mode``
    tma_mode: str  # the tensor map's swizzle (a key of TMA_MODES)
    dst: int  # the load's destination byte


@st.composite
def box_cases(draw: st.DrawFn) -> BoxCase:
    e = draw(st.sampled_from([1, 2, 4]))
    dtype = {1: "e4m3", 2: "f16", 4: "tf32"}[e]
    mode = draw(st.sampled_from(sorted(WIDTH)))
    rows = draw(st.sampled_from([8, 16, 32, 64]))
    cols = WIDTH[mode] // e  # the box's inner extent is the swizzle width (Triton's choice for TMA operands)
    base = 1024 * draw(st.integers(0, 2))
    tma = draw(st.sampled_from([mode, mode, *sorted(WIDTH)]))
    off = draw(st.sampled_from([0, 0, 0, 16, 128, rows * WIDTH[mode]]))
    return BoxCase(Case(dtype, e, mode, "K", rows, cols, rows, base, ()), tma, base + off)
