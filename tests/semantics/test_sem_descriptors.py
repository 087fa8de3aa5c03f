"""Descriptor claims against naive decoders written from the PTX ISA bit tables.

Authorities: PTX ISA 9.7.16.4.1 'Shared Memory Descriptor' (tcgen05: bits 0-13 start >> 4, 16-29 LBO >> 4, 32-45
SBO >> 4, 46-48 fixed 0b001, 49-51 matrix base offset, 52 LBO mode, 53-60 fixed 0, 61-63 swizzling mode 0 / 1 / 2 /
4 / 6; 14-15 and 30-31 not defined), 9.7.16.4.2 'Instruction descriptor', 9.7.15.5.1.2 'Matrix Descriptor Format'
(wgmma: start, LBO, SBO, base offset 49-51 "valid for all swizzling modes except no-swizzle", swizzle mode 62-63 0 /
128B / 64B / 32B; every other bit undefined), the canonical layouts of both (in 16-byte units, ``w`` units per
swizzle row: K-major ``((8,m),(2,1)):((w|1, SBO),(1|LBO, -))``, MN-major ``((w,n),(8,k)):((1,LBO),(w,SBO))`` and
``((1,n),(8,k)):((-,SBO),(1,LBO))`` without swizzle), the swizzle XOR on *absolute* address bits (measured on the
H100: ``docs/hopper.md``), the base offset anchoring the pattern at ``P = 128*b mod period``, CUTLASS
``cute/arch/mma_sm100_desc.hpp`` / ``mma_sm90_desc.hpp`` (field comments) and ``mma_sm100_umma.hpp`` (the shapes the
SM100 atoms accept).

A verdict the claims must reproduce, per descriptor word: a bit the ISA fixes, or an encoding it does not define ->
REFUTED; a bit it leaves undefined set, a base offset or LBO mode it does not model -> UNKNOWN; else the bytes the
word reads vs the bytes the stage holds, per writer (``tma``: the layout's swizzle on absolute addresses;
``threads``: anchored at the buffer start): PROVEN when they match for every writer the config allows, REFUTED
when they match for none, UNKNOWN otherwise (the config must say ``written_by``).

Nothing here imports ``layoutcheck.models``, ``.properties`` (but the claims under test) or ``.engines``.
"""

from __future__ import annotations

from itertools import product

import pytest
from hypothesis import given

from layoutcheck import prove
from layoutcheck.algebra.layout import size
from layoutcheck.result import Verdict
from tests.strategies_sem_descriptors import (
    ELEMENT_BYTES,
    GMMA_MODES,
    UMMA_MODES,
    Operand,
    Stage,
    gmma_stages,
    instr_configs,
    operands,
    packed_formats,
    scaled_instr_configs,
)

WRITERS = ("tma", "threads")


def bits(word: int, lo: int, width: int) -> int:
    return (word >> lo) & ((1 << width) - 1)


def xor_swizzle(x: int, sw: tuple[int, int, int] | None) -> int:
    """CuTe ``Swizzle<B,M,S>``: bits ``[M, M+B)`` ^= bits ``[M+S, M+S+B)``."""
    if sw is None:
        return x
    b, m, s = sw
    return x ^ ((x >> s) & (((1 << b) - 1) << m))


def canonical_bytes(major: str, e: int, w: int, rows: int, lbo: int, sbo: int, mn: int, k: int) -> int:
    """Byte offset (unswizzled, from the start) of element ``(mn, k)`` in the canonical layout, LBO/SBO in bytes."""
    t = 16 // e
    if major == "K":
        i, group, chunk = mn % 8, mn // 8, k // t
        units = i * w + chunk if w > 1 else i + chunk * (lbo // 16)
        return 16 * units + group * sbo + (k % t) * e
    j, r = mn // t, k
    if w == 1:
        return j * sbo + 16 * (r % 8) + (r // 8) * lbo + (mn % t) * e
    return 16 * (j % w) + (j // w) * lbo + 16 * w * (r % rows) + (r // rows) * sbo + (mn % t) * e


def stage_bytes(op: Operand, writer: str) -> list[int]:
    """Where ``writer`` put every element (flat colex over ``(MN, K)``)."""
    e = ELEMENT_BYTES[op.dtype]
    lay = op.layout.layout
    out = []
    for i in range(size(lay)):
        x = e * lay(i)
        threads = op.base + xor_swizzle(x, op.swizzle)
        out.append(threads if writer == "threads" else xor_swizzle(op.base + x, op.swizzle))
    return out


def by_writers(op: Operand, read: list[int]) -> tuple[str, dict[str, list[int]]]:
    want = {w: stage_bytes(op, w) for w in WRITERS}
    allowed = WRITERS if op.written_by is None else (op.written_by,)
    ok = [w for w in allowed if want[w] == read]
    verdict = "PROVEN" if len(ok) == len(allowed) else "REFUTED" if not ok else "UNKNOWN"
    return verdict, want


def _mn_k(op: Operand) -> tuple[int, int]:
    lay = op.layout.layout
    return size(lay[0]), size(lay[1])


# -- the tcgen05 shared-memory descriptor -----------------------------------------------------------------------------
def naive_umma(op: Operand) -> tuple[str, list[int] | None]:
    """The verdict of ``umma_describes`` for ``op`` and, when it compares bytes, what the word reads."""
    w = op.word
    start, lbo, sbo = 16 * bits(w, 0, 14), 16 * bits(w, 16, 14), 16 * bits(w, 32, 14)
    if bits(w, 46, 3) != 0b001 or bits(w, 53, 8) != 0 or bits(w, 61, 3) not in UMMA_MODES:
        return "REFUTED", None
    if bits(w, 14, 2) or bits(w, 30, 2) or bits(w, 49, 3) or bits(w, 52, 1):
        return "UNKNOWN", None
    code = bits(w, 61, 3)
    if code == 1 and op.major == "K":  # 128B with 32B atomicity: MN-major only (CUTLASS make_umma_desc)
        return "REFUTED", None
    units, sw = UMMA_MODES[code]
    rows = 4 if code == 1 else 8
    e = ELEMENT_BYTES[op.dtype]
    mn_ext, k_ext = _mn_k(op)
    read = [xor_swizzle(start + canonical_bytes(op.major, e, units, rows, lbo, sbo, i % mn_ext, i // mn_ext), sw)
            for i in range(mn_ext * k_ext)]
    return by_writers(op, read)[0], read


def _umma_claim(op: Operand):
    from layoutcheck.properties.descriptors import umma_describes

    return umma_describes(op.layout, op.dtype, op.major, op.base, op.word, op.written_by)


@given(operands("umma"))
def test_umma_describes_equals_the_naive_decoder(op: Operand) -> None:
    verdict, read = naive_umma(op)
    r = prove(_umma_claim(op))
    assert r.status.value == verdict, (hex(op.word), r.counterexample or r.reason)
    if r.status is Verdict.REFUTED and r.counterexample.data.get("kind") == "place":  # the witness breaks the law
        cx = r.counterexample.data
        assert stage_bytes(op, cx["writer"])[cx["i"]] != read[cx["i"]]


# -- the wgmma matrix descriptor --------------------------------------------------------------------------------------
def naive_gmma(op: Operand) -> tuple[str, list[int] | None]:
    """The verdict of ``gmma_addresses`` (one block, descriptor ``op.word``) and what the word reads."""
    w = op.word
    if bits(w, 14, 2) or bits(w, 30, 2) or bits(w, 46, 3) or bits(w, 52, 10):
        return "UNKNOWN", None
    start, lbo, sbo, b, code = 16 * bits(w, 0, 14), 16 * bits(w, 16, 14), 16 * bits(w, 32, 14), bits(w, 49, 3), \
        bits(w, 62, 2)
    units, sw = GMMA_MODES[code]
    if b and sw is None:  # "valid for all swizzling modes except the no-swizzle mode"
        return "UNKNOWN", None
    period = 1 << sum(sw) if sw else 1
    anchor = (128 * b) % period if sw else 0
    if start < anchor:
        return "UNKNOWN", None
    p = start - ((start - anchor) % period) if sw else 0
    e = ELEMENT_BYTES[op.dtype]
    mn_ext, k_ext = _mn_k(op)
    read = [p + xor_swizzle(start - p + canonical_bytes(op.major, e, units, 8, lbo, sbo, i % mn_ext, i // mn_ext), sw)
            for i in range(mn_ext * k_ext)]
    return by_writers(op, read)[0], read


@given(operands("gmma"))
def test_gmma_addresses_equals_the_naive_decoder(op: Operand) -> None:
    from layoutcheck.properties.gmma import gmma_addresses

    verdict, read = naive_gmma(op)
    r = prove(gmma_addresses(op.layout, op.dtype, op.major, op.base, desc=op.word, written_by=op.written_by))
    assert r.status.value == verdict, (hex(op.word), r.counterexample or r.reason)
    if r.status is Verdict.REFUTED and r.counterexample.data.get("kind") == "place":
        cx = r.counterexample.data
        assert stage_bytes(op, cx["writer"])[cx["i"]] != read[cx["i"]]


def naive_gmma_word(w: int) -> str | None:
    """UNKNOWN for a wgmma word whose undefined bits are set or whose base offset is not modelled, else ``None``."""
    if bits(w, 14, 2) or bits(w, 30, 2) or bits(w, 46, 3) or bits(w, 52, 10):
        return "UNKNOWN"
    b, (_, sw) = bits(w, 49, 3), GMMA_MODES[bits(w, 62, 2)]
    if b and (sw is None or 16 * bits(w, 0, 14) < (128 * b) % (1 << sum(sw))):
        return "UNKNOWN"
    return None


def naive_gmma_fields(s: Stage) -> str:
    """``gmma_fields``: per writer, MN-major only for 16-bit types, the word's layout type is the stage's, its base
    offset the writer's (TMA: 0; threads: ``(base mod period) >> 7``), every K block's start fits 14 bits."""
    unknown = naive_gmma_word(s.word)
    if unknown:
        return unknown
    e = ELEMENT_BYTES[s.dtype]
    _, sw = GMMA_MODES[s.code]
    period = 1 << sum(sw) if sw else 128
    lay = _read(s.text).layout if sw else _read(s.text)
    kb = 32 // e
    starts = [16 * bits(s.word, 0, 14) + e * (lay(0, r * kb) - lay(0, 0)) for r in range(4)]

    def ok(writer: str) -> bool:
        want_bo = (s.base % period) >> 7 if (sw and writer == "threads") else 0
        return (s.major == "K" or e == 2) and bits(s.word, 62, 2) == s.code and bits(s.word, 49, 3) == want_bo \
            and all(x >> 4 < 1 << 14 for x in starts)

    allowed = WRITERS if s.written_by is None else (s.written_by,)
    good = [x for x in allowed if ok(x)]
    return "PROVEN" if len(good) == len(allowed) else "REFUTED" if not good else "UNKNOWN"


def _read(text: str):
    from layoutcheck.spec.values import parse_value

    return parse_value("layout", text)


@given(gmma_stages())
def test_gmma_fields_equals_the_naive_table(s: Stage) -> None:
    from layoutcheck.properties.gmma import gmma_fields

    r = prove(gmma_fields(_read(s.text), s.dtype, s.major, s.base, desc=s.word, written_by=s.written_by))
    assert r.status.value == naive_gmma_fields(s), (s, r.counterexample or r.reason)


# -- the tcgen05 instruction descriptor -------------------------------------------------------------------------------
FORMATS = {"f16": 0, "bf16": 1, "tf32": 2, "e4m3": 0, "e5m2": 1, "e2m3": 3, "e3m2": 4, "e2m1": 5, "u8": 0, "s8": 1}
"""A/B format codes (PTX ISA instruction descriptor, per kind; CUTLASS to_UMMAFormat)."""
TRANSPOSABLE = {"f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8"}
"""CUTLASS InstrDescriptor: 'Major value of 1 is only valid for E4M3, E5M2, INT8, F16, BF16 and TF32'."""


def naive_instr_ok(c: dict) -> bool:
    """The SM100 dense MMA atoms' static_asserts (CUTLASS mma_sm100_umma.hpp) and the majors rule."""
    i8 = c["a_dtype"] in ("s8", "u8")
    m, n = c["m"], c["n"]
    if c["cta_group"] == 1:
        shape = m in (64, 128) and (n in range(16, 257, 16) or n == 8 if i8 else n in range(8, 257, 8))
    else:
        shape = m in (128, 256) and (n in range(32, 257, 32) if i8 else n in range(16, 257, 16))
    majors = all(mj == "K" or t in TRANSPOSABLE for mj, t in ((c["a_major"], c["a_dtype"]),
                                                              (c["b_major"], c["b_dtype"])))
    return shape and majors


@given(instr_configs())
def test_umma_instr_equals_the_naive_table(c: dict) -> None:
    from layoutcheck.properties.descriptors import instr_descriptor_fields

    r = prove(instr_descriptor_fields(c["a_dtype"], c["b_dtype"], c["c_dtype"], c["m"], c["n"], c["a_major"],
                                      c["b_major"], c["cta_group"]))
    ok = naive_instr_ok(c)
    assert (r.status is Verdict.PROVEN) == ok, (c, r.counterexample)
    if ok:  # every bit of the word, read naively
        word = int(r.stats["descriptor"], 16)
        assert bits(word, 24, 5) << 4 == c["m"] and bits(word, 17, 6) << 3 == c["n"]
        assert bits(word, 15, 1) == (c["a_major"] == "MN") and bits(word, 16, 1) == (c["b_major"] == "MN")
        assert bits(word, 7, 3) == FORMATS[c["a_dtype"]] and bits(word, 10, 3) == FORMATS[c["b_dtype"]]
        assert bits(word, 4, 2) == {"f16": 0, "f32": 1, "s32": 2}[c["c_dtype"]]
        assert not any(bits(word, b, 1) for b in (0, 1, 2, 3, 6, 13, 14, 23, 29, 30, 31))


def naive_scaled_kind(c: dict) -> str | None:
    """PTX ISA block-scaled kinds: mxf4 (e2m1 x e2m1, ue8m0), mxf4nvf4 (e2m1 x e2m1, ue8m0 or ue4m3), mxf8f6f4
    (any of e4m3 e5m2 e2m3 e3m2 e2m1, ue8m0); the first that fits, in CUTLASS's order."""
    fp4 = c["a_dtype"] == c["b_dtype"] == "e2m1"
    if fp4 and c["scale_dtype"] == "ue8m0":
        return "mxf4"
    if fp4:
        return "mxf4nvf4"
    return "mxf8f6f4" if c["scale_dtype"] == "ue8m0" else None


def naive_scaled_ok(c: dict) -> bool:
    """The SM100 block-scaled atoms (CUTLASS ``SM100_MMA_MXF8F6F4_SS`` / ``_MXF4_SS`` and their 2x1SM forms)."""
    kind, m, n = naive_scaled_kind(c), c["m"], c["n"]
    if kind is None:
        return False
    if c["cta_group"] == 1:
        shape = m == 128 and n in range(8, 257, 8)
    else:
        shape = m in ((256,) if kind == "mxf8f6f4" else (128, 256)) and n in range(16, 257, 16)
    transposable = {"e4m3", "e5m2"} if kind == "mxf8f6f4" else set()
    majors = all(mj == "K" or t in transposable for mj, t in ((c["a_major"], c["a_dtype"]),
                                                              (c["b_major"], c["b_dtype"])))
    return shape and majors


SCALED_FORMATS = {"mxf8f6f4": {"e4m3": 0, "e5m2": 1, "e2m3": 3, "e3m2": 4, "e2m1": 5}, "mxf4": {"e2m1": 1},
                  "mxf4nvf4": {"e2m1": 1}}
"""A/B format codes of the block-scaled kinds (CUTLASS MXF8F6F4Format, MXF4Format)."""


@given(scaled_instr_configs())
def test_block_scaled_umma_instr_equals_the_naive_table(c: dict) -> None:
    from layoutcheck.properties.descriptors import instr_descriptor_fields

    r = prove(instr_descriptor_fields(c["a_dtype"], c["b_dtype"], c["c_dtype"], c["m"], c["n"], c["a_major"],
                                      c["b_major"], c["cta_group"], c["scale_dtype"]))
    ok = naive_scaled_ok(c)
    assert (r.status is Verdict.PROVEN) == ok, (c, r.counterexample)
    if ok:  # the block-scaled bit table, read naively
        word, fmts = int(r.stats["descriptor"], 16), SCALED_FORMATS[naive_scaled_kind(c)]
        assert bits(word, 24, 5) << 4 == c["m"] and bits(word, 17, 6) << 3 == c["n"]
        assert bits(word, 7, 3) == fmts[c["a_dtype"]] and bits(word, 10, 3) == fmts[c["b_dtype"]]
        assert bits(word, 23, 1) == (c["scale_dtype"] == "ue8m0")
        assert bits(word, 15, 1) == (c["a_major"] == "MN") and bits(word, 16, 1) == (c["b_major"] == "MN")
        assert not any(bits(word, b, 1) for b in (0, 1, 2, 3, 4, 5, 6, 13, 14, 29, 30, 31))


# -- hand-packed formats ----------------------------------------------------------------------------------------------
def naive_packs(fields: tuple[tuple[int, int], ...], doms: tuple[tuple[int, ...], ...], nbits: int) -> bool:
    """Every combination packs (OR at ``lo``) into ``nbits`` and reads back (shift and mask), nothing past the word."""
    for vals in product(*doms):
        word = 0
        for (lo, _), v in zip(fields, vals, strict=True):
            word |= v << lo
        if word >> nbits:
            return False
        if any(bits(word, lo, wd) != v for (lo, wd), v in zip(fields, vals, strict=True)):
            return False
    return all(lo + wd <= nbits for lo, wd in fields)


@given(packed_formats())
def test_descriptor_fields_equals_the_naive_packer(fmt) -> None:
    from layoutcheck.hw.bitfields import BitField
    from layoutcheck.properties.descriptors import descriptor_fields

    fields, doms, nbits = fmt
    claim = descriptor_fields(tuple(BitField(f"f{i}", lo, w, "test") for i, (lo, w) in enumerate(fields)), doms, nbits)
    assert (prove(claim).status is Verdict.PROVEN) == naive_packs(fields, doms, nbits)


# -- deliberately broken variants: each REFUTED ---------------------------------------------------------------------
SW128_K = "make_composed_layout(Sw<3,3,3>, (128,16):(64,1))"  # the first K block of a K-major SW128 tile


@pytest.mark.parametrize(("word", "why"), [
    (0x4000004000010000, "version"),  # a Hopper descriptor: bits 46-48 = 0
    (0x4001C04000010000, "version"),  # version 7
    (0x4020404000010000, "fixed_53"),  # bit 53 set
    (0x6000404000010000, "layout_type"),  # code 3: not defined
    (0xE000404000010000, "layout_type"),  # code 7
])
def test_broken_umma_words_are_refuted(word: int, why: str) -> None:
    from layoutcheck.properties.descriptors import umma_describes
    from layoutcheck.spec.values import parse_value

    r = prove(umma_describes(parse_value("layout", SW128_K), "f16", "K", 0, word))
    assert r.status is Verdict.REFUTED and r.counterexample.data["field"] == why


@pytest.mark.parametrize("word", [0x4000404000014000, 0x4000404040010000, 0x4002404000010000, 0x4010404000010000])
def test_undefined_or_unmodelled_umma_bits_are_unknown(word: int) -> None:
    """Bit 14, bit 30, base offset 1, LBO mode 1: not modelled, never PROVEN."""
    from layoutcheck.properties.descriptors import umma_describes
    from layoutcheck.spec.values import parse_value

    assert prove(umma_describes(parse_value("layout", SW128_K), "f16", "K", 0, word)).status is Verdict.UNKNOWN


def test_a_blackwell_word_on_hopper_is_unknown() -> None:
    from layoutcheck.properties.gmma import gmma_addresses
    from layoutcheck.spec.values import parse_value

    lay = parse_value("layout", "make_composed_layout(Sw<3,3,3>, (64,16):(64,1))")
    assert prove(gmma_addresses(lay, "f16", "K", desc=0x4000004000010000)).status is Verdict.PROVEN
    r = prove(gmma_addresses(lay, "f16", "K", desc=0x4000404000010000))  # bit 46: tcgen05's 0b001
    assert r.status is Verdict.UNKNOWN and "bits [46,49)" in r.reason


def test_k_major_tile_declared_mn_is_refuted_in_tile_coordinates() -> None:
    from layoutcheck.properties.descriptors import umma_describes_all
    from layoutcheck.spec.bind_tcgen05 import k_block_slices
    from layoutcheck.spec.values import parse_value

    tile = parse_value("layout", "make_composed_layout(Sw<3,3,3>, tile_to_shape((8,64):(64,1), (128,64)))")
    r = prove(umma_describes_all(tuple(k_block_slices(tile, 16)), "f16", "MN"))
    assert r.status is Verdict.REFUTED and "element (mn=1, k=0)" in r.counterexample.text


@pytest.mark.parametrize(("writer", "status"), [("tma", Verdict.REFUTED), ("threads", Verdict.PROVEN),
                                                (None, Verdict.UNKNOWN)])
def test_base_offset_3_depends_on_who_wrote_the_stage(writer, status) -> None:
    from layoutcheck.properties.gmma import gmma_addresses
    from layoutcheck.spec.values import parse_value

    lay = parse_value("layout", "make_composed_layout(Sw<3,3,3>, (64,16):(64,1))")
    r = prove(gmma_addresses(lay, "f16", "K", 1408, desc=0x4006004000010058, written_by=writer))
    assert r.status is status
    if status is Verdict.UNKNOWN:
        assert "written_by" in r.reason


@pytest.mark.parametrize(("writer", "status"), [("tma", Verdict.PROVEN), ("threads", Verdict.UNKNOWN),
                                                (None, Verdict.UNKNOWN)])
def test_derived_umma_descriptor_at_an_unaligned_base(writer, status) -> None:
    """0x480 is 128 bytes into a SW128 pattern: TMA data needs base offset 0 (derived: PROVEN); threads-stored data
    would need base offset 1, which is not modelled on sm_100 (UNKNOWN); unset: UNKNOWN naming ``written_by``."""
    from layoutcheck.properties.descriptors import umma_describes
    from layoutcheck.spec.values import parse_value

    r = prove(umma_describes(parse_value("layout", SW128_K), "f16", "K", 0x480, written_by=writer))
    assert r.status is status
    if writer is None:
        assert "written_by" in r.reason
