"""Generators for the nvmma_descriptor semantics tests: an operand tile stored by a ``#ttg.nvmma_shared`` layout
and the wgmma descriptors that read it block by block, Triton's (right) or with one field corrupted."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

SWIZZLE_CODE = {"INTER": 0, "SW128": 1, "SW64": 2, "SW32": 3}  # PTX ISA: the descriptor's bits 62-63
WIDTH = {"SW32": 32, "SW64": 64, "SW128": 128}
DTYPES = {"e4m3": 1, "f16": 2, "tf32": 4}


@dataclass(frozen=True)
class Case:
    dtype: str
    e: int
    mode: str
    major: str  # "K": stored K-contiguous (transposed = false for A); "MN": MN-contiguous (transposed storage)
    mn_extent: int
    k_extent: int
    instr_mn: int
    base: int
    descs: tuple[tuple[int, int, int], ...]  # (descriptor, mn0, k0) per block, in order


def word(start: int, lbo: int, sbo: int, mode: str) -> int:
    """The 64-bit descriptor (PTX ISA "Matrix Descriptor": start >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4
    in 32-45, base offset 0 in 49-51, swizzle mode in 62-63)."""
    return ((start >> 4) & 0x3FFF) | (((lbo >> 4) & 0x3FFF) << 16) | (((sbo >> 4) & 0x3FFF) << 32) \
        | (SWIZZLE_CODE[mode] << 62)


def unswizzled_byte(c: Case, mn: int, k: int) -> int:
    """Where Triton's nvmma_shared puts element (mn, k) before the XOR: rows of ``w`` bytes along the contiguous
    dimension, 8-row swizzle atoms stacked, tiles of ``w`` bytes along it one after another."""
    w = WIDTH[c.mode]
    contig, row, rows = (k, mn, c.mn_extent) if c.major == "K" else (mn, k, c.k_extent)
    b = contig * c.e
    return c.base + (b // w) * rows * w + row * w + b % w


@st.composite
def cases(draw: st.DrawFn) -> Case:
    dtype = draw(st.sampled_from(sorted(DTYPES)))
    e = DTYPES[dtype]
    mode = draw(st.sampled_from(sorted(WIDTH)))
    w = WIDTH[mode]
    major = draw(st.sampled_from(["K", "MN"])) if dtype == "f16" else "K"  # imm-trans: .f16/.bf16 only
    instr_k = 32 // e
    instr_mn = draw(st.sampled_from([8, 16, 64])) if major == "K" else max(8, w // e) * draw(st.sampled_from([1, 2]))
    mn_extent = instr_mn * draw(st.integers(1, 2))
    k_extent = max(instr_k, (w // e if major == "K" else 8)) * draw(st.integers(1, 2))
    k_extent = -(-k_extent // instr_k) * instr_k
    base = 1024 * draw(st.integers(0, 3))
    c = Case(dtype, e, mode, major, mn_extent, k_extent, instr_mn, base, ())
    descs = []
    for mn0 in range(0, mn_extent, instr_mn):
        for k0 in range(0, k_extent, instr_k):
            start = unswizzled_byte(c, mn0, k0)
            if major == "K":
                lbo, sbo = 16, 8 * w
            else:
                lbo, sbo = k_extent * w, 8 * w
            descs.append((word(start, lbo, sbo, mode), mn0, k0))
    return Case(dtype, e, mode, major, mn_extent, k_extent, instr_mn, base, tuple(descs))


@st.composite
def corrupted(draw: st.DrawFn) -> Case:
    """A case with one descriptor's field changed: swizzle mode, start address, LBO or SBO."""
    c = draw(cases())
    i = draw(st.integers(0, len(c.descs) - 1))
    d, mn0, k0 = c.descs[i]
    field = draw(st.sampled_from(["mode", "start", "lbo", "sbo"]))
    if field == "mode":
        d = (d & ~(3 << 62)) | (draw(st.sampled_from([1, 2, 3])) << 62)
    else:
        d = shifted_address_field(draw, d, field)
    return with_descriptor(c, i, (d, mn0, k0))


def shifted_address_field(draw: st.DrawFn, d: int, field: str) -> int:
    """``d`` with its 14-bit ``start``, ``lbo`` or ``sbo`` field (bits 0, 16, 32 of both the wgmma and the tcgen05
    shared-memory descriptor) moved by a small amount, wrapping inside the field."""
    lo = {"start": 0, "lbo": 16, "sbo": 32}[field]
    v = ((d >> lo) & 0x3FFF) + draw(st.sampled_from([-64, -8, -2, -1, 1, 2, 8, 64]))
    return (d & ~(0x3FFF << lo)) | ((v & 0x3FFF) << lo)


def with_descriptor(c: Case, i: int, desc: tuple[int, int, int]) -> Case:
    """``c`` with its ``i``-th descriptor replaced."""
    return Case(c.dtype, c.e, c.mode, c.major, c.mn_extent, c.k_extent, c.instr_mn, c.base,
                (*c.descs[:i], desc, *c.descs[i + 1:]))
