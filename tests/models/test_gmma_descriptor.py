"""GMMA descriptors: bit-for-bit against CUTLASS's own construction (tests/data/gmma_descriptors_cutlass.tsv), the
round trip through ``decode_gmma_descriptor``, and the refusals of non-canonical layouts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.notation import parse_layout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.errors import LayoutError
from layoutcheck.hw.smem import gmma_smem_atom
from layoutcheck.models.gmma import (
    GmmaDescriptor,
    base_offset_for,
    decode_gmma_descriptor,
    element_bytes,
    gmma_blocks,
    gmma_descriptor,
)
from layoutcheck.models.tma import mma_smem_layout

DATA = Path(__file__).resolve().parents[1] / "data" / "gmma_descriptors_cutlass.tsv"
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "s8": 8}


def cutlass_rows() -> list[tuple[str, ...]]:
    return [tuple(line.split("\t")) for line in DATA.read_text().splitlines() if line and not line.startswith("#")]


def stage(case: str, dtype: str, major: str, layout: str) -> ComposedLayout:
    mode = case.split("_")[2]
    sw = gmma_smem_atom(major, mode, BITS[dtype]).element_swizzle
    return ComposedLayout(sw, 0, parse_layout(layout))


def _mn(st: ComposedLayout) -> int:
    return size(st.layout[0])


@pytest.mark.parametrize("row", cutlass_rows(), ids=lambda r: f"{r[0]}-{r[3]}")
def test_descriptors_equal_cutlass(row: tuple[str, ...]) -> None:
    case, dtype, major, operand, layout, descs = row
    st = stage(case, dtype, major, layout)
    blocks = gmma_blocks(st, dtype, 64 if operand == "A" else min(128, _mn(st)))
    e = element_bytes(dtype)
    first = gmma_descriptor(blocks.block_layout(), dtype, major)
    n_mn = blocks.tile[1].shape[0] if isinstance(blocks.tile[1].shape, tuple) else 1
    want = {}
    for item in descs.split(";"):
        crd, val = item.split(":")
        m, k = (int(x) for x in crd.split(","))
        want[(m, k)] = int(val, 16)
    assert len(want) == blocks.count
    for (m, k), value in want.items():
        r = m + n_mn * k
        got = first.advance(e * blocks.block_offset(r))
        assert got.value == value, (case, operand, m, k, str(got), str(GmmaDescriptor.from_value(value)))
        # and the block built directly (its own start address) is the same word
        direct = gmma_descriptor(ComposedLayout(st.swizzle, blocks.block_offset(r), blocks.tile[0]), dtype, major)
        assert direct.value == value


@pytest.mark.parametrize("major", ["K", "MN"])
@pytest.mark.parametrize("swizzle", ["none", "32B", "64B", "128B"])
@pytest.mark.parametrize("dtype", ["f16", "tf32", "e4m3"])
def test_decode_reads_the_layout_every_block(major: str, swizzle: str, dtype: str) -> None:
    tname = {"f16": "float16", "tf32": "float32", "e4m3": "uint8"}[dtype]
    kext = {"f16": 64, "tf32": 32, "e4m3": 128}[dtype]
    st = mma_smem_layout(major, swizzle, tname, (128, kext))
    e = element_bytes(dtype)
    for base in (0, 2048, 5 * 1024):
        b = gmma_blocks(st, dtype, 128 if (major, dtype) == ("MN", "e4m3") else 64)
        d0 = gmma_descriptor(b.block_layout(), dtype, major, base)
        exp = b.expected(base, e)
        for r in range(b.count):
            got = decode_gmma_descriptor(d0.advance(e * b.block_offset(r)), dtype, major, b.block[0]).addresses()
            assert np.array_equal(got, exp[r]), (r, base)


@pytest.mark.parametrize("base", [128, 384, 896, 1024 + 640])
def test_unaligned_pattern_start_needs_base_offset(base: int) -> None:
    st = mma_smem_layout("K", "128B", "float16", (64, 64))
    b = gmma_blocks(st, "f16")
    d = gmma_descriptor(b.block_layout(), "f16", "K", base)
    assert d.base_offset == (base % 1024) >> 7 == base_offset_for(base, "SW128")
    assert np.array_equal(decode_gmma_descriptor(d, "f16", "K", 64).addresses(), b.expected(base, 2)[0])
    wrong = GmmaDescriptor(d.start_address, d.leading_byte_offset, d.stride_byte_offset, 0, d.layout_type)
    assert not np.array_equal(decode_gmma_descriptor(wrong, "f16", "K", 64).addresses(), b.expected(base, 2)[0])


def test_value_round_trip_and_fields() -> None:
    d = GmmaDescriptor(0x1230, 16, 1024, 3, "SW64")
    assert GmmaDescriptor.from_value(d.value) == d
    assert (d.value >> 62) == 2 and (d.value >> 49) & 7 == 3 and d.value & 0x3FFF == 0x123
    assert GmmaDescriptor(0, 0, 0, 0, "INTER").value == 0


def test_field_violations() -> None:
    assert [law for law, _ in GmmaDescriptor(8, 16, 1 << 18, 0, "SW128").violations()] == ["align", "range"]
    with pytest.raises(LayoutError, match="cannot encode"):
        _ = GmmaDescriptor(8, 16, 1024, 0, "SW128").value


@pytest.mark.parametrize("layout, why", [
    (ComposedLayout(Swizzle(3, 4, 3), 0, Layout(((8, 8), 16), ((64, 512), 1))), "not a GMMA swizzle"),
    (ComposedLayout(Swizzle(3, 3, 3), 0, Layout(((8, 8), 16), ((32, 512), 1))), "stride failure"),
    (ComposedLayout(Swizzle(3, 3, 3), 0, Layout(((8, 8), 32), ((64, 512), 1))), "K extent 32"),
    (Layout(((8, 8), 16), ((16, 128), 1)), "stride failure"),  # INTER with 32-byte rows: the chunks are not core rows
    (Layout((64, 16), (1, 64)), "chunks do not run along K"),  # MN-contiguous but called K-major
    (Layout((12, 16), (16, 1)), "multiple of 8"),
])
def test_non_canonical_layouts_are_refused(layout, why: str) -> None:
    with pytest.raises(LayoutError, match=why):
        gmma_descriptor(layout, "f16", "K")


def test_mn_major_refusals() -> None:
    with pytest.raises(LayoutError, match="MN extent"):
        gmma_descriptor(ComposedLayout(Swizzle(3, 3, 3), 0, Layout((32, (8, 2)), (1, (64, 512)))), "f16", "MN")


@pytest.mark.parametrize("major,swizzle,block_mn", [("K", "128B", 64), ("MN", "128B", 64), ("MN", "64B", 96),
                                                    ("MN", "128B", 96), ("K", "none", 192)])
def test_descriptor_reads_and_block_crd(major: str, swizzle: str, block_mn: int) -> None:
    """``block_crd`` names the tile coordinate of ``expected[r, i]``; ``descriptor_reads`` is block 0's descriptor
    advanced and decoded block by block (the straddled 96-wide SW128 blocks through the whole-MN descriptor)."""
    from layoutcheck.models.gmma import block_crd, block_descriptors, descriptor_reads, stage_blocks

    st = mma_smem_layout(major, swizzle, "float16", (192, 64), "row")
    rd = descriptor_reads(st, "f16", major, block_mn, 2048)
    r, i = np.divmod(np.arange(rd.expected.size), rd.expected.shape[1])
    mn, k = block_crd(192, rd.block, r, i)
    assert np.array_equal(rd.expected.ravel(), 2048 + 2 * st.offsets()[mn + 192 * k])
    b = stage_blocks(st, "f16", block_mn)
    if b is None:  # a block starts inside a swizzle atom: misread, and no descriptor describes a block
        assert (major, swizzle, block_mn) == ("MN", "128B", 96) and not np.array_equal(rd.addresses(), rd.expected)
        return
    descs = block_descriptors(b, gmma_descriptor(b.block_layout(), "f16", major, 2048), "f16")
    assert rd.descs == descs
    for got, d in zip(rd.read, descs, strict=True):
        assert np.array_equal(got, decode_gmma_descriptor(d, "f16", major, block_mn).addresses())
    assert np.array_equal(rd.addresses(), rd.expected)
