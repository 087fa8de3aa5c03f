"""Semantics of the nvmma_descriptor claim (``layoutcheck.properties.nvmma``), from the PTX ISA.

Authority: PTX ISA 9.7.15.5.1 "Matrix Descriptor" (start address, LBO, SBO >> 4 in bits 0-13, 16-29, 32-45;
swizzle mode in bits 62-63) and "Shared Memory Matrix Layout" (the canonical K-major / MN-major layouts, as CUTLASS
``mma_traits_sm90_gmma.hpp`` writes them in bytes; the swizzle XORs the 16-byte chunk bits 4.. with address bits
7..), and Triton's ``NVMMASharedEncodingAttr`` (rows of the swizzle width, row ``r`` XORs its 16-byte chunk with
``(r / perPhase) % maxPhase``). The naive reader below shares no code with properties / models / engines.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given

from layoutcheck.engines.prove import prove
from layoutcheck.properties.nvmma import nvmma_descriptor_claim
from tests.strategies_sem_nvmma import WIDTH, Case, cases, corrupted, unswizzled_byte

MODE_OF = {0: "INTER", 1: "SW128", 2: "SW64", 3: "SW32"}


def xor_swizzle(addr: int, mode: str) -> int:
    bits = {"INTER": 0, "SW32": 1, "SW64": 2, "SW128": 3}[mode]
    return addr ^ (((addr >> 7) & ((1 << bits) - 1)) << 4)


def stored_byte(c: Case, mn: int, k: int) -> int:
    return xor_swizzle(unswizzled_byte(c, mn, k), c.mode)


def naive_read(desc: int, e: int, major: str, mn: int, k: int) -> int:
    """The byte a wgmma reads for tile element (mn, k) through ``desc`` (base offset 0: absolute swizzle)."""
    start, lbo, sbo = (desc & 0x3FFF) << 4, ((desc >> 16) & 0x3FFF) << 4, ((desc >> 32) & 0x3FFF) << 4
    mode = MODE_OF[desc >> 62]
    if major == "K":
        r, g = mn % 8, mn // 8
        c, w = divmod(k * e, 16)
        if mode == "INTER":
            a = start + 16 * r + sbo * g + lbo * c + w
        else:
            a = start + WIDTH[mode] * r + sbo * g + 16 * c + w
    else:
        q, w = divmod(mn * e, 16)
        kr, kg = k % 8, k // 8
        if mode == "INTER":
            a = start + w + sbo * q + 16 * kr + lbo * kg
        else:
            n = WIDTH[mode] // 16
            a = start + w + 16 * (q % n) + lbo * (q // n) + WIDTH[mode] * kr + sbo * kg
    return xor_swizzle(a, mode)


def naive_verdict(c: Case) -> bool:
    k_instr = 32 // c.e
    return all(naive_read(d, c.e, c.major, i, j) == stored_byte(c, mn0 + i, k0 + j)
               for d, mn0, k0 in c.descs for i in range(c.instr_mn) for j in range(k_instr))


def claim(c: Case, isa: str = "wgmma") -> object:
    """The claim on the naive stored map (offset -> element), one read per descriptor (``isa``: whose descriptors)."""
    n = c.mn_extent * c.k_extent
    mn = np.zeros(n, dtype=np.int64)
    k = np.zeros(n, dtype=np.int64)
    for i in range(c.mn_extent):
        for j in range(c.k_extent):
            o = (stored_byte(c, i, j) - c.base) // c.e
            mn[o], k[o] = i, j
    return nvmma_descriptor_claim(c.dtype, c.e, c.base, tuple(mn.tolist()), tuple(k.tolist()),
                                  (c.mn_extent, c.k_extent),
                                  tuple((d, c.major, c.instr_mn, 32 // c.e) for d, _, _ in c.descs),
                                  **({} if isa == "wgmma" else {"isa": isa}))


@given(cases())
def test_triton_descriptors_read_every_element_where_it_is_stored(c: Case) -> None:
    assert naive_verdict(c)
    assert prove(claim(c)).status.name == "PROVEN"


@given(corrupted())
def test_the_claim_agrees_with_the_naive_reader_on_corrupted_descriptors(c: Case) -> None:
    r = prove(claim(c))
    if r.status.name == "UNKNOWN":  # the GMMA model has no canonical layout for the corrupted descriptor
        assert "no canonical layout" in str(r.reason), r
        return
    assert r.status.name == ("PROVEN" if naive_verdict(c) else "REFUTED"), (c, r)
    if r.status.name == "REFUTED":
        assert "byte" in str(r.counterexample) or "block" in str(r.counterexample)


def test_a_broken_swizzle_is_refuted_with_the_element() -> None:
    c = Case("f16", 2, "SW128", "K", 64, 64, 64, 0, ())
    from tests.strategies_sem_nvmma import word

    descs = tuple((word(unswizzled_byte(c, 0, k0), 16, 1024, "SW64"), 0, k0) for k0 in range(0, 64, 16))
    bad = Case(c.dtype, c.e, c.mode, c.major, c.mn_extent, c.k_extent, c.instr_mn, c.base, descs)
    assert not naive_verdict(bad)
    r = prove(claim(bad))
    assert r.status.name == "REFUTED" and "stored at byte" in str(r.counterexample)


@given(cases())
def test_the_stored_side_is_tritons_nvmma_shared(c: Case) -> None:
    """``stored_operand`` (Triton's nvmma_shared as a linear layout) against the naive NVMMASharedEncodingAttr
    formula: operand A ``[MN, K]`` (K-contiguous: ``transposed = false``; MN-contiguous: ``transposed = true``)."""
    from layoutcheck.importers.triton import TensorUse
    from layoutcheck.properties.nvmma import stored_operand

    elem = {"e4m3": "f8E4M3FN", "f16": "f16", "tf32": "f32"}[c.dtype]
    enc = (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {WIDTH[c.mode]}, transposed = "
           f"{'false' if c.major == 'K' else 'true'}, elementBitWidth = {8 * c.e}}}>")
    op = stored_operand("A", TensorUse("memdesc", (c.mn_extent, c.k_extent), elem, enc, 0), c.base, {}, False)
    for i in range(c.mn_extent):
        for j in range(c.k_extent):
            assert op.element_at(stored_byte(c, i, j)) == (0, i, j)
