"""Semantics of every bit of the descriptor words the ``nvmma_descriptor`` claim reads from a kernel's PTX (wgmma on
sm_90, tcgen05.mma on sm_100), against the PTX ISA's tables, sharing no code with ``layoutcheck.properties``,
``.models`` or ``.engines``.

Authority: PTX ISA 9.7.15.5.1 "Matrix Descriptor Format" (wgmma: start address bits 0-13, LBO 16-29, SBO 32-45, base
offset 49-51, swizzle mode 62-63; no other bit is defined) and 9.7.16.4.1 "Shared memory descriptor" (tcgen05: the
same three address fields, bits 46-48 "fixed constant value of 0b001", base offset 49-51, LBO mode 52, bits 53-60
"fixed constant value of 0", swizzling mode 61-63 with 0, 1, 2, 4, 6 defined). A word that breaks a fixed constant
or uses an undefined swizzle code is no descriptor: the claim is REFUTED. A word with a bit the ISA does not define
set, or (tcgen05) a base offset / LBO mode the model does not read, is not PROVEN: the claim is UNKNOWN. The words
flipped here start from descriptors that read every element right (``strategies_sem_nvmma``), so before the words
were checked, a flipped undefined or fixed bit -- which every decoder ignored -- came out PROVEN.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from layoutcheck.engines.prove import prove
from tests.semantics.test_sem_nvmma import claim as nvmma_claim
from tests.strategies_sem_nvmma import Case, cases, unswizzled_byte, with_descriptor, word
from tests.strategies_sem_nvmma_tcgen05 import umma_cases, umma_word

WGMMA_UNDEFINED = [*range(14, 16), *range(30, 32), *range(46, 49), *range(52, 62)]
UMMA_UNDEFINED = [14, 15, 30, 31]
UMMA_FIXED = [*range(46, 49), *range(53, 61)]  # 0b001 at 46-48, 0 at 53-60
UMMA_UNREAD = [*range(49, 53)]  # base offset, LBO mode: defined, not modelled


def naive_umma_word(d: int) -> str:
    """``ok``, ``invalid`` (a fixed constant or an undefined swizzle code) or ``unknown`` for a tcgen05 word."""
    if (d >> 46) & 0b111 != 0b001 or (d >> 53) & 0xFF or (d >> 61) not in (0, 1, 2, 4, 6):
        return "invalid"
    if any(d >> b & 1 for b in UMMA_UNDEFINED + UMMA_UNREAD):
        return "unknown"
    return "ok"


def naive_gmma_word(d: int) -> str:
    return "unknown" if any(d >> b & 1 for b in WGMMA_UNDEFINED) else "ok"


@st.composite
def flipped(draw, source, bits: list[int]) -> tuple[Case, int]:
    c = draw(source)
    i = draw(st.integers(0, len(c.descs) - 1))
    d, mn0, k0 = c.descs[i]
    flip = 0
    for b in draw(st.lists(st.sampled_from(bits), min_size=1, max_size=3, unique=True)):
        flip |= 1 << b
    return with_descriptor(c, i, (d ^ flip, mn0, k0)), d ^ flip


@settings(max_examples=80, deadline=None)
@given(flipped(umma_cases(), UMMA_UNDEFINED + UMMA_FIXED + UMMA_UNREAD))
def test_tcgen05_word_bits(case) -> None:
    c, d = case
    want = naive_umma_word(d)
    r = prove(nvmma_claim(c, isa="tcgen05"))
    if want == "invalid":
        assert r.status.name == "REFUTED", (hex(d), r)
        assert "fixed constant" in str(r.counterexample) or "not a defined encoding" in str(r.counterexample), r
    elif want == "unknown":
        assert r.status.name == "UNKNOWN", (hex(d), r)


@settings(max_examples=60, deadline=None)
@given(flipped(cases(), WGMMA_UNDEFINED))
def test_wgmma_word_bits(case) -> None:
    c, d = case
    assert naive_gmma_word(d) == "unknown"
    r = prove(nvmma_claim(c))
    assert r.status.name == "UNKNOWN" and "not modelled" in str(r.reason), (hex(d), r)


def test_a_blackwell_version_field_of_zero_is_no_descriptor() -> None:
    """The pinned reproducer: a right tcgen05 word with bits 46-48 = 0 (a wgmma-style word handed to tcgen05.mma)
    was PROVEN; the ISA fixes them at 0b001."""
    c = Case("f16", 2, "SW128", "K", 128, 64, 128, 0, ())
    descs = tuple((umma_word(word(unswizzled_byte(c, 0, k0), 16, 1024, "SW128")), 0, k0) for k0 in range(0, 64, 16))
    good = Case(c.dtype, c.e, c.mode, c.major, c.mn_extent, c.k_extent, c.instr_mn, c.base, descs)
    assert prove(nvmma_claim(good, isa="tcgen05")).status.name == "PROVEN"
    d, mn0, k0 = descs[1]
    bad = with_descriptor(good, 1, (d & ~(0b111 << 46), mn0, k0))
    r = prove(nvmma_claim(bad, isa="tcgen05"))
    assert r.status.name == "REFUTED" and "bits [46,49) (version)" in str(r.counterexample), r
    assert r.counterexample.data == {"kind": "word", "field": "version", "block": 1}
