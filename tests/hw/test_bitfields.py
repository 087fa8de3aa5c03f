"""The one descriptor bit-field codec (``layoutcheck.hw.bitfields``) and the formats declared with it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck.errors import LayoutError
from layoutcheck.hw.bitfields import BitField, DescriptorFormat
from layoutcheck.hw.tcgen05 import UMMA_INSTR_DESCRIPTOR, UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED, UMMA_SMEM_DESCRIPTOR
from layoutcheck.hw.wgmma import GMMA_DESCRIPTOR

FORMATS = [UMMA_SMEM_DESCRIPTOR, UMMA_INSTR_DESCRIPTOR, UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED, GMMA_DESCRIPTOR]


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_every_bit_is_declared_once(fmt: DescriptorFormat) -> None:
    assert fmt.overlaps() == [] and fmt.outside() == []
    assert fmt.declared_mask() == (1 << fmt.bits) - 1
    assert all(f.source for f in fmt.fields)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_packed_defaults_have_no_issues(fmt: DescriptorFormat) -> None:
    assert fmt.issues(fmt.pack({})) == ()


def test_umma_fixed_bits_codes_and_reserved() -> None:
    good = 0x4000404000010000
    assert UMMA_SMEM_DESCRIPTOR.issues(good) == ()
    laws = {w: [(i.field, i.law, i.refutes) for i in UMMA_SMEM_DESCRIPTOR.issues(w)] for w in (
        0x4000004000010000, 0x4001C04000010000, 0x4020404000010000, 0xA000404000010000, 0x4000404000014000)}
    assert laws == {0x4000004000010000: [("version", "fixed", True)], 0x4001C04000010000: [("version", "fixed", True)],
                    0x4020404000010000: [("fixed_53", "fixed", True)],
                    0xA000404000010000: [("layout_type", "code", True)],
                    0x4000404000014000: [("reserved_14", "reserved", False)]}


def test_bits_beyond_the_word_are_undeclared() -> None:
    (issue,) = UMMA_INSTR_DESCRIPTOR.issues(1 << 40)
    assert issue.law == "undeclared" and "beyond the word" in issue.message and not issue.refutes


def test_pack_rejects_unknown_fields_and_values_that_do_not_fit() -> None:
    with pytest.raises(LayoutError, match="no field 'lbo'"):
        GMMA_DESCRIPTOR.pack({"lbo": 1})
    with pytest.raises(LayoutError, match=r"layout_type \[62,64\) holds 2 bits"):
        GMMA_DESCRIPTOR.pack({"layout_type": 4})


@given(st.integers(0, (1 << 64) - 1))
def test_issues_see_every_set_bit_outside_the_value_fields(word: int) -> None:
    """A word is issue-free exactly when its fixed, coded and reserved ranges hold what they declare."""
    fmt = UMMA_SMEM_DESCRIPTOR
    clean = all((f.fixed is None or f.get(word) == f.fixed) and (f.codes is None or f.get(word) in f.codes)
                and not (f.reserved and f.get(word)) for f in fmt.fields)
    assert (fmt.issues(word) == ()) == clean


def test_a_demo_format() -> None:
    fmt = DescriptorFormat("demo", 8, (BitField("a", 0, 4, "x"), BitField("b", 6, 4, "x")), "x")
    assert fmt.outside() == ["b"]
