"""Semantics of the tma_box claim (``layoutcheck.properties.tma_box``: a TMA box and swizzle against the
``nvmma_shared`` layout of the buffer it fills), from the PTX ISA and Triton's layout.

Authority: PTX ISA 5.5.7 "Tensor swizzling modes" (the box is written row after row, ``box_dim[0] * e`` bytes a
row; within each 16-byte chunk index bits 4.. of the address XOR the address bits 7.. of the 32 / 64 / 128-byte
mode: 1 / 2 / 3 bits; a row narrower than the span is padded to it) and Triton's ``NVMMASharedEncodingAttr``
(``test_sem_nvmma.stored_byte``). The naive writer below shares no code with properties / models / engines; the
judged side is the claim its public constructor ``properties.tma_box.box_placement`` builds from the tensor-map
fields (the offsets ``models.tma.box_smem_offsets`` gives)."""

from __future__ import annotations

import numpy as np
from hypothesis import given

from layoutcheck.engines.prove import prove
from layoutcheck.properties.nvmma import StoredOperand
from layoutcheck.properties.tma_box import box_placement
from tests.semantics.test_sem_nvmma import stored_byte, xor_swizzle
from tests.strategies_sem_tma_box import BoxCase, box_cases

CODE = {"SW32": 1, "SW64": 2, "SW128": 3}  # tensormap .swizzle_mode
ELEM = {1: 0, 2: 6, 4: 7}  # tensormap .elemtype: u8, f16, f32


SPAN = {"SW32": 32, "SW64": 64, "SW128": 128}


def naive_written(b: BoxCase, r: int, c: int) -> int:
    """A box row narrower than the mode's span takes the whole span (the row is padded: CUDA programming guide,
    "Tensor memory access" swizzle table; measured on the H100 by the GPU validation's TMA section)."""
    c_ = b.layout
    pitch = max(c_.k_extent * c_.e, SPAN[b.tma_mode])
    return xor_swizzle(b.dst + r * pitch + c * c_.e, b.tma_mode)


def naive_verdict(b: BoxCase) -> bool:
    c = b.layout
    start = b.dst - c.base
    if start % (c.mn_extent * c.k_extent * c.e):  # not the start of a stage
        return False
    return all(naive_written(b, r, j) == stored_byte(c, r, j) + start for r in range(c.mn_extent)
               for j in range(c.k_extent))


def claim(b: BoxCase) -> object:
    c = b.layout
    n = c.mn_extent * c.k_extent
    mn, k = np.zeros(2 * n, dtype=np.int64), np.zeros(2 * n, dtype=np.int64)
    stage = np.repeat([0, 1], n)
    for s in (0, 1):  # two stages, the second right after the first
        for i in range(c.mn_extent):
            for j in range(c.k_extent):
                o = (stored_byte(c, i, j) - c.base) // c.e + s * n
                mn[o], k[o] = i, j
    op = StoredOperand("tile", c.dtype, c.e, c.base, tuple(stage.tolist()), tuple(mn.tolist()), tuple(k.tolist()),
                       c.mn_extent, c.k_extent)
    fields = {("rank", 0): 1, ("elemtype", 0): ELEM[c.e], ("swizzle_mode", 0): CODE[b.tma_mode],
              ("interleave_layout", 0): 0, ("box_dim", 0): c.k_extent, ("box_dim", 1): c.mn_extent,
              ("element_stride", 0): 1, ("element_stride", 1): 1}
    return box_placement("generated", op, b.dst, fields)


@given(box_cases())
def test_tma_box_placement_equals_the_naive_writer(b: BoxCase) -> None:
    r = prove(claim(b))
    assert r.status.name == ("PROVEN" if naive_verdict(b) else "REFUTED"), (b, r)


def test_a_64_byte_box_into_a_128_byte_layout_is_refuted_at_row_4() -> None:
    from tests.strategies_sem_nvmma import Case

    b = BoxCase(Case("f16", 2, "SW128", "K", 64, 64, 64, 0, ()), "SW64", 0)
    assert not naive_verdict(b)
    r = prove(claim(b))
    assert r.status.name == "REFUTED" and "box element (row, col) = (4, 0)" in str(r.counterexample)
