"""Strategies for the descriptor semantics suite (``tests/semantics/test_sem_descriptors.py``).

They *build* descriptor words field by field from the PTX ISA bit tables, then overwrite fields -- fixed
constants, reserved bits, version, base offset, LBO mode, layout types the ISA does not define -- with any value of
their whole range, next to an operand block whose layout is built from the canonical formulas (in elements, with
LBO/SBO that may differ from the word's), in a buffer at an aligned or unaligned base, written by TMA, by threads,
or by nobody said. Inputs only: nothing here decides anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle

ELEMENT_BYTES = {"u8": 1, "f16": 2, "tf32": 4}
"""Operand types by bytes (names as both descriptor claims spell them)."""

UMMA_FIELDS = ((0, 14), (14, 2), (16, 14), (30, 2), (32, 14), (46, 3), (49, 3), (52, 1), (53, 8), (61, 3))
"""tcgen05 shared-memory descriptor, every bit range of PTX ISA 'Shared Memory Descriptor' (incl. the gaps)."""

GMMA_FIELDS = ((0, 14), (14, 2), (16, 14), (30, 2), (32, 14), (46, 3), (49, 3), (52, 10), (62, 2))
"""wgmma matrix descriptor, every bit range of PTX ISA 'Matrix Descriptor Format' (incl. the undefined ones)."""

UMMA_MODES = {0: (1, None), 1: (8, (2, 5, 2)), 2: (8, (3, 4, 3)), 4: (4, (2, 4, 3)), 6: (2, (1, 4, 3))}
"""tcgen05 layout type -> (16-byte units per swizzle row, byte ``Swizzle<B,M,S>``)."""

GMMA_MODES = {0: (1, None), 1: (8, (3, 4, 3)), 2: (4, (2, 4, 3)), 3: (2, (1, 4, 3))}
"""wgmma layout type -> (16-byte units per swizzle row, byte ``Swizzle<B,M,S>``)."""

BASES = (0, 128, 384, 640, 1024, 1152, 1408, 2048, 4096 + 640)


@dataclass(frozen=True)
class Operand:
    """One MMA's ``(MN, K)`` operand block and a descriptor word for it."""

    dtype: str
    major: str
    layout: ComposedLayout
    swizzle: tuple[int, int, int] | None  # the layout's byte swizzle
    base: int
    word: int
    written_by: str | None


def _element_swizzle(sw: tuple[int, int, int] | None, e: int) -> Swizzle:
    if sw is None:
        return Swizzle(0, 0, 0)
    b, m, s = sw
    return Swizzle(b, m - (e.bit_length() - 1), s)


def canonical_block(e: int, major: str, w: int, rows: int, mn_groups: int, lbo: int, sbo: int) -> Layout:
    """The ``(MN, K)`` block of one MMA (K = 32 bytes) in elements, from the canonical formulas in 16-byte units
    (``T = 16/e`` elements): K-major ``((8,m),(T,2))``, MN-major ``((T,w,n),(rows,k))`` (PTX ISA canonical layouts)."""
    t = 16 // e
    if major == "K":
        k_stride = lbo * t if w == 1 else t
        return Layout(((8, mn_groups), (t, 2)), ((w * t, sbo * t), (1, k_stride)))
    kg = (32 // e) // rows
    if w == 1:
        return Layout(((t, 8 * mn_groups), (8, kg)), ((1, sbo * t), (t, lbo * t)))
    return Layout(((t, w, 8 * mn_groups // w), (rows, kg)), ((1, t, lbo * t), (w * t, sbo * t)))


_OFFSETS = st.one_of(st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128]), st.integers(0, (1 << 14) - 1))


@st.composite
def operands(draw, family: str) -> Operand:
    """A canonical block of ``family`` (``umma`` or ``gmma``) and a word: a right one, then zero to two fields
    overwritten with any value of their width; the block's LBO/SBO sometimes differ from the word's."""
    modes, fields = (UMMA_MODES, UMMA_FIELDS) if family == "umma" else (GMMA_MODES, GMMA_FIELDS)
    dtype = draw(st.sampled_from(sorted(ELEMENT_BYTES)))
    e = ELEMENT_BYTES[dtype]
    major = draw(st.sampled_from(["K", "MN"]))
    codes = [c for c in modes if not (family == "umma" and c == 1 and major == "K")]
    code = draw(st.sampled_from(codes))
    w, sw = modes[code]
    rows = 4 if (family == "umma" and code == 1) else 8
    groups = draw(st.integers(1, 2))
    lbo, sbo = draw(_OFFSETS), draw(_OFFSETS)
    if draw(st.booleans()):  # the word's offsets are the layout's
        lay_lbo, lay_sbo = lbo, sbo
    else:
        lay_lbo, lay_sbo = draw(_OFFSETS), draw(_OFFSETS)
    lay = canonical_block(e, major, w, rows, groups, lay_lbo, lay_sbo)
    base = draw(st.sampled_from(BASES))
    writer = draw(st.sampled_from([None, "tma", "threads"]))
    period = 1 << (sum(sw)) if sw else 128
    base_offset = 0
    if family == "gmma" and sw is not None and draw(st.booleans()):  # right for a threads-stored stage
        base_offset = (base % period) >> 7
    word = ((base >> 4) | lbo << 16 | sbo << 32 | base_offset << 49
            | (1 << 46 if family == "umma" else 0) | code << (61 if family == "umma" else 62))
    for lo, width in draw(st.lists(st.sampled_from(fields), max_size=2)):
        word = (word & ~(((1 << width) - 1) << lo)) | draw(st.integers(0, (1 << width) - 1)) << lo
    return Operand(dtype, major, ComposedLayout(_element_swizzle(sw, e), 0, lay), sw, base, word, writer)


@dataclass(frozen=True)
class Stage:
    """A wgmma stage of four 32-byte K blocks stacked from a CUTLASS ``GMMA::Layout_*_Atom`` and a block-0 word."""

    dtype: str
    major: str
    code: int  # the stage's layout type
    text: str  # the stage in CuTe notation (read with the spec reader)
    base: int
    word: int
    written_by: str | None


@st.composite
def gmma_stages(draw) -> Stage:
    """``tile_to_shape(Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom, (MN, 4 K blocks))`` and a word whose base offset
    is right for threads, for TMA, or anything, whose layout type may be another, with 0-1 more ranges overwritten."""
    dtype = draw(st.sampled_from(sorted(ELEMENT_BYTES)))
    e = ELEMENT_BYTES[dtype]
    t = 16 // e
    major = draw(st.sampled_from(["K", "MN"]))
    code = draw(st.sampled_from(sorted(GMMA_MODES)))
    w, sw = GMMA_MODES[code]
    row = w * t
    atom = f"({8},{row}):({row},1)" if major == "K" else f"({row},{8}):(1,{row})"
    mn = draw(st.sampled_from([64, 128])) if major == "K" else row * draw(st.integers(1, 2))
    tile = f"tile_to_shape({atom}, ({mn},{4 * 32 // e}))"
    text = tile if sw is None else f"make_composed_layout(Sw<{sw[0]},{sw[1] - (e.bit_length() - 1)},{sw[2]}>, {tile})"
    base = draw(st.sampled_from((*BASES, (1 << 18) - 2048)))
    period = 1 << sum(sw) if sw else 128
    bo = draw(st.sampled_from([0, (base % period) >> 7 if sw else 0, draw(st.integers(0, 7))]))
    wcode = code if draw(st.booleans()) else draw(st.integers(0, 3))
    word = (base >> 4) | draw(_OFFSETS) << 16 | draw(_OFFSETS) << 32 | bo << 49 | wcode << 62
    for lo, width in draw(st.lists(st.sampled_from(GMMA_FIELDS), max_size=1)):
        word = (word & ~(((1 << width) - 1) << lo)) | draw(st.integers(0, (1 << width) - 1)) << lo
    return Stage(dtype, major, code, text, base, word, draw(st.sampled_from([None, "tma", "threads"])))


# -- instruction descriptors ----------------------------------------------------------------------------------------
INSTR_TYPES = (("f16", "f16", ("f32", "f16")), ("bf16", "bf16", ("f32",)), ("tf32", "tf32", ("f32",)),
               ("e4m3", "e5m2", ("f32", "f16")), ("e2m1", "e3m2", ("f32",)), ("s8", "u8", ("s32",)))
"""Dense MMAs whose types form a kind (PTX ISA tcgen05.mma 'kind' table), with their accumulator types."""


@st.composite
def instr_configs(draw) -> dict:
    """A dense ``umma_instr`` config: a type combination of one kind, and shapes, CTA groups and majors drawn from
    around and outside what the SM100 MMA atoms accept."""
    a, b, cs = draw(st.sampled_from(INSTR_TYPES))
    return {"a_dtype": a, "b_dtype": b, "c_dtype": draw(st.sampled_from(cs)),
            "m": draw(st.sampled_from([16, 64, 96, 128, 128, 256, 256, 512])),
            "n": draw(st.one_of(st.integers(0, 300), st.sampled_from([8, 16, 24, 32, 48, 64, 256, 257, 264]))),
            "a_major": draw(st.sampled_from(["K", "MN"])), "b_major": draw(st.sampled_from(["K", "MN"])),
            "cta_group": draw(st.sampled_from([1, 2]))}


SCALED_TYPES = (("e4m3", "e5m2"), ("e2m1", "e2m1"), ("e2m3", "e2m1"))
"""Block-scaled operand pairs (PTX ISA kind::mxf8f6f4 / mxf4 / mxf4nvf4 operand types)."""


@st.composite
def scaled_instr_configs(draw) -> dict:
    """A block-scaled ``umma_instr`` config: operand pair, scale type, shapes, CTA groups and majors."""
    a, b = draw(st.sampled_from(SCALED_TYPES))
    return {"a_dtype": a, "b_dtype": b, "c_dtype": "f32", "scale_dtype": draw(st.sampled_from(["ue8m0", "ue4m3"])),
            "m": draw(st.sampled_from([64, 128, 128, 256])),
            "n": draw(st.one_of(st.integers(0, 272), st.sampled_from(range(16, 257, 16)))),
            "a_major": draw(st.sampled_from(["K", "K", "MN"])), "b_major": draw(st.sampled_from(["K", "K", "MN"])),
            "cta_group": draw(st.sampled_from([1, 2]))}


# -- hand-packed formats --------------------------------------------------------------------------------------------
@st.composite
def packed_formats(draw) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, ...], ...], int]:
    """``(fields (lo, width), value domains, word bits)``: fields anywhere (also past the word), values that may not
    fit, fields that may overlap."""
    bits = draw(st.sampled_from([32, 64]))
    n = draw(st.integers(1, 3))
    fields = tuple((draw(st.integers(0, bits + 6)), draw(st.integers(1, 16))) for _ in range(n))
    doms = tuple(tuple(draw(st.lists(st.integers(0, (1 << (w + 1)) - 1), min_size=1, max_size=3, unique=True)))
                 for _, w in fields)
    return fields, doms, bits
