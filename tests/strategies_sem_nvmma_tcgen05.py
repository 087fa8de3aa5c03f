"""Generators for the tcgen05 nvmma_descriptor semantics tests: the operand tiles and block reads of
``strategies_sem_nvmma`` with each descriptor written in the tcgen05 shared-memory descriptor format, right or
with one field corrupted."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.strategies_sem_nvmma import Case, cases, shifted_address_field, with_descriptor

UMMA_MODE = {"INTER": 0, "SW128": 2, "SW64": 4, "SW32": 6}  # PTX ISA tcgen05 descriptor bits 61-63
GMMA_MODE = {0: "INTER", 1: "SW128", 2: "SW64", 3: "SW32"}  # the wgmma word's bits 62-63


def umma_word(gmma_word: int) -> int:
    """The tcgen05 descriptor of the same start / LBO / SBO (PTX ISA tcgen05 "Shared memory descriptor": bits 0-13,
    16-29, 32-45 as for wgmma; bits 46-48 the fixed 0b001; base offset 49-51 = 0; LBO mode 52 = 0; swizzle 61-63)."""
    fields = gmma_word & ((1 << 46) - 1)
    return fields | (1 << 46) | (UMMA_MODE[GMMA_MODE[gmma_word >> 62]] << 61)


@st.composite
def umma_cases(draw: st.DrawFn) -> Case:
    c = draw(cases())
    return Case(c.dtype, c.e, c.mode, c.major, c.mn_extent, c.k_extent, c.instr_mn, c.base,
                tuple((umma_word(d), mn0, k0) for d, mn0, k0 in c.descs))


@st.composite
def umma_corrupted(draw: st.DrawFn) -> Case:
    """One descriptor's swizzle mode, start address, LBO or SBO changed."""
    c = draw(umma_cases())
    i = draw(st.integers(0, len(c.descs) - 1))
    d, mn0, k0 = c.descs[i]
    field = draw(st.sampled_from(["mode", "start", "lbo", "sbo"]))
    if field == "mode":
        d = (d & ~(7 << 61)) | (draw(st.sampled_from([0, 2, 4, 6])) << 61)
    else:
        d = shifted_address_field(draw, d, field)
    return with_descriptor(c, i, (d, mn0, k0))
