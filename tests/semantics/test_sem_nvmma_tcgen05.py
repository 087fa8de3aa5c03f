"""Semantics of the nvmma_descriptor claim on tcgen05.mma descriptors (``layoutcheck.properties.nvmma`` with
``isa="tcgen05"``, used by ``properties.nvmma_tcgen05`` for Triton's sm_100 kernels), from the PTX ISA.

Authority: PTX ISA, tcgen05 "Shared memory descriptor" (start address, leading and stride byte offsets >> 4 in
bits 0-13, 16-29, 32-45 as in the wgmma matrix descriptor; bits 46-48 the constant 0b001; swizzling mode in bits
61-63: 0 none, 2 128-byte, 4 64-byte, 6 32-byte) and "Shared memory layout" (the canonical K-major / MN-major
layouts, the same as wgmma's for these modes). The naive reader re-encodes the tcgen05 word's fields as the wgmma
word's and reads through ``test_sem_nvmma.naive_read`` (itself written from the ISA, sharing no code with
properties / models / engines)."""

from __future__ import annotations

from hypothesis import given

from layoutcheck.engines.prove import prove
from tests.semantics.test_sem_nvmma import claim as nvmma_claim
from tests.semantics.test_sem_nvmma import naive_read, stored_byte
from tests.strategies_sem_nvmma import Case, unswizzled_byte, word
from tests.strategies_sem_nvmma_tcgen05 import umma_cases, umma_corrupted, umma_word

MODE = {0: 0, 2: 1, 4: 2, 6: 3}  # tcgen05 swizzle code -> wgmma's


def naive_umma_read(desc: int, e: int, major: str, mn: int, k: int) -> int | None:
    """The byte a tcgen05.mma reads for tile element (mn, k); ``None`` for a swizzle code the naive side does not
    know (1: 128-byte with 32-byte atoms; 3, 5, 7 reserved)."""
    code = desc >> 61
    if code not in MODE or (desc >> 46) & 7 != 1:
        return None
    return naive_read((desc & ((1 << 46) - 1)) | (MODE[code] << 62), e, major, mn, k)


def naive_verdict(c: Case) -> bool | None:
    k_instr = 32 // c.e
    got = [(naive_umma_read(d, c.e, c.major, i, j), stored_byte(c, mn0 + i, k0 + j))
           for d, mn0, k0 in c.descs for i in range(c.instr_mn) for j in range(k_instr)]
    return None if any(g is None for g, _ in got) else all(g == w for g, w in got)


def claim(c: Case) -> object:
    return nvmma_claim(c, isa="tcgen05")


@given(umma_cases())
def test_tcgen05_descriptors_of_tritons_layouts_read_every_element_where_it_is_stored(c: Case) -> None:
    assert naive_verdict(c)
    assert prove(claim(c)).status.name == "PROVEN"


@given(umma_corrupted())
def test_the_claim_agrees_with_the_naive_reader_on_corrupted_tcgen05_descriptors(c: Case) -> None:
    r = prove(claim(c))
    want = naive_verdict(c)
    if r.status.name == "UNKNOWN":  # no canonical layout for the corrupted word
        assert "canonical" in str(r.reason) or "not modelled" in str(r.reason), r
        return
    assert want is not None and r.status.name == ("PROVEN" if want else "REFUTED"), (c, r)


def test_a_64_byte_swizzle_read_through_a_128_byte_layout_is_refuted() -> None:
    c = Case("f16", 2, "SW128", "K", 128, 64, 128, 0, ())
    descs = tuple((umma_word(word(unswizzled_byte(c, 0, k0), 16, 1024, "SW64")), 0, k0) for k0 in range(0, 64, 16))
    bad = Case(c.dtype, c.e, c.mode, c.major, c.mn_extent, c.k_extent, c.instr_mn, c.base, descs)
    assert naive_verdict(bad) is False
    r = prove(claim(bad))
    assert r.status.name == "REFUTED" and "stored at byte" in str(r.counterexample)
