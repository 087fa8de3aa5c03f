"""Copy atoms against the PTX ISA ldmatrix / stmatrix descriptions, rebuilt here as (lane, bit) -> bit maps.

PTX: lanes ``8i..8i+7`` give the 16-byte row addresses of matrix ``i`` (rows ``8i..8i+7`` of the reference tile,
128 bits each); in registers lane ``l`` holds, of matrix ``i``, row ``l//4`` elements ``2(l%4), 2(l%4)+1`` (non-trans)
or elements ``(2(l%4)+h, l//4)`` for ``h`` in 0, 1 (``.trans``), 16 bits each, low half first.
"""

from __future__ import annotations

import pytest

from layoutcheck import Layout, LayoutError, size
from layoutcheck.hw.copy import all_copy_atoms, copy_atom, copy_atom_names, in_elements, row_providers


def _smem_bits(x: int) -> dict[tuple[int, int], int]:
    """(lane, bit) -> bit for the shared-memory side; lanes past 8x alias lane % 8x (their address is unused)."""
    return {(l, b): 128 * (l % (8 * x)) + b for l in range(32) for b in range(128)}


def _reg_bits(x: int, trans: bool) -> dict[tuple[int, int], int]:
    """(lane, register bit) -> bit; register bit v = 32*i + 16*h + j: matrix i, half h, bit j of the b16 element."""
    out = {}
    for l in range(32):
        for i in range(x):
            for h in range(2):
                for j in range(16):
                    if trans:
                        row, col = 2 * (l % 4) + h, l // 4
                    else:
                        row, col = l // 4, 2 * (l % 4) + h
                    out[(l, 32 * i + 16 * h + j)] = 128 * (8 * i + row) + 16 * col + j
    return out


def _as_map(layout) -> dict[tuple[int, int], int]:
    nv = size(layout[1])
    return {(l, v): layout(l, v) for l in range(32) for v in range(nv)}


@pytest.mark.parametrize("x", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_and_stmatrix_match_ptx(x: int, trans: bool) -> None:
    bits = f"U16x{2 * x}" if trans else f"U32x{x}"
    t = "T" if trans else "N"
    ld, st = copy_atom(f"SM75_{bits}_LDSM_{t}"), copy_atom(f"SM90_{bits}_STSM_{t}")
    assert _as_map(ld.src_layout) == _smem_bits(x)
    assert _as_map(ld.dst_layout) == _reg_bits(x, trans)
    assert _as_map(st.dst_layout) == _smem_bits(x) and _as_map(st.src_layout) == _reg_bits(x, trans)
    assert ld.address_lanes == tuple(range(8 * x)) == st.address_lanes
    assert ld.smem_access_kind("load") == f"ldsm_x{x}" and st.smem_access_kind("store") == f"stsm_x{x}"
    assert ld.bytes_per_address == 16 and ld.transpose == trans and ld.smem_side == "src" and st.smem_side == "dst"


def test_fact_sheet_table_agrees() -> None:
    # hardware-facts.md section 4 table (agrees with CUTLASS copy_traits_sm75.hpp and the PTX ISA, checked above)
    table = {
        "SM75_U32x1_LDSM_N": ("((8,4),128):((128,0),1)", "(32,32):(32,1)"),
        "SM75_U32x2_LDSM_N": ("((16,2),128):((128,0),1)", "(32,(32,2)):(32,(1,1024))"),
        "SM75_U32x4_LDSM_N": ("(32,128):(128,1)", "(32,(32,4)):(32,(1,1024))"),
        "SM75_U16x2_LDSM_T": ("((8,4),128):((128,0),1)", "((4,8),(16,2)):((256,16),(1,128))"),
        "SM75_U16x4_LDSM_T": ("((16,2),128):((128,0),1)", "((4,8),(16,2,2)):((256,16),(1,128,1024))"),
        "SM75_U16x8_LDSM_T": ("(32,128):(128,1)", "((4,8),(16,2,4)):((256,16),(1,128,1024))"),
    }
    for name, (src, dst) in table.items():
        a = copy_atom(name)
        assert (str(a.src_layout), str(a.dst_layout)) == (src, dst)


def test_in_elements() -> None:
    a = copy_atom("SM75_U32x4_LDSM_N")
    e = in_elements(a.dst_layout, 16)  # lane l: elements 2l, 2l+1 (+64 per matrix) of 8x8 b16 matrices
    assert [e(0, v) for v in range(8)] == [0, 1, 64, 65, 128, 129, 192, 193]
    assert str(a.src_in_elements(16)) == "(32,8):(8,1)"
    with pytest.raises(LayoutError):
        in_elements(a.dst_layout, 12)


@pytest.mark.parametrize("bits", [32, 64, 128])
def test_word_atoms(bits: int) -> None:
    word = {32: "uint32_t", 64: "uint64_t", 128: "uint128_t"}[bits]
    u = copy_atom(f"UniversalCopy<{word}>")
    assert u.num_threads == 1 and u.access_bits == bits and size(u.src_layout) == bits
    assert u.smem_access_kind("load") == f"lds{bits}" and u.smem_access_kind("store") == f"sts{bits}"
    c = copy_atom(f"SM80_CP_ASYNC_CACHEALWAYS<{word}>")
    assert c.bytes_per_address == bits // 8 and c.smem_access_kind("store") == f"ldgsts{bits}"
    with pytest.raises(LayoutError, match="no shared-memory load"):
        c.smem_access_kind("load")


def test_cp_async_cg_is_16_bytes_only() -> None:
    assert copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>").bytes_per_address == 16
    with pytest.raises(LayoutError, match="unknown copy atom"):
        copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint32_t>")


def test_names_and_errors() -> None:
    assert len(copy_atom_names()) == len(all_copy_atoms()) == 12 + 7 + 148 + 2  # + tcgen05.ld/st, LOAD_STAT
    with pytest.raises(LayoutError, match="did you mean SM75_U32x4_LDSM_N"):
        copy_atom("SM75_U32x4_LDSM")
    with pytest.raises(LayoutError):
        copy_atom(3)  # type: ignore[arg-type]
    with pytest.raises(LayoutError, match="direction"):
        copy_atom("SM75_U32x4_LDSM_N").smem_access_kind("sideways")
    assert copy_atom(copy_atom("SM75_U32x1_LDSM_N")).name == "SM75_U32x1_LDSM_N"
    assert "ldsm_x1" in str(copy_atom("SM75_U32x1_LDSM_N"))


# -- row providers: the kernels' view of the same atoms ------------------------------------------------------------
MATRIX_ATOMS = [a.name for a in all_copy_atoms() if a.num_threads == 32 and a.smem_side in ("src", "dst")]


@pytest.mark.parametrize("name", MATRIX_ATOMS)
@pytest.mark.parametrize("element_bits", [8, 16])
def test_row_providers_agree_with_the_tv_layouts(name: str, element_bits: int) -> None:
    """The row each lane addresses (src/dst layout, ``address_lanes``) has its first element at the provider's
    (thread, value) of the register-side layout: the two views are one fact."""
    a = copy_atom(name)
    smem, reg = (a.src_layout, a.dst_layout) if a.smem_side == "src" else (a.dst_layout, a.src_layout)
    p = row_providers(name, element_bits)
    assert size(p.thread) == size(p.value) == 32 and p.source == a.source
    for lane in range(32):
        assert reg(p.thread(lane), element_bits * p.value(lane)) == smem(lane, 0)
    for row, lane in enumerate(a.address_lanes):  # the addressing lane of row r is the one whose address is row r
        assert smem(lane, 0) == 128 * row
        assert reg(p.thread(lane), element_bits * p.value(lane)) == 128 * row


@pytest.mark.parametrize("x", [1, 2, 4])
def test_row_providers_match_ptx(x: int) -> None:
    """PTX ISA ldmatrix (non-trans, b16): lane 8j + r addresses row r of matrix j; elements 2c, 2c+1 of that row land
    in register j of lane 4r + c, i.e. (thread 4r, value 2j); lanes past 8x repeat lane % 8x.
    ``.trans``: element 0 of row r goes to lane r // 2 (column 0), half r % 2 of register j."""
    for t, st in ((False, False), (True, False), (False, True), (True, True)):
        bits = f"U16x{2 * x}" if t else f"U32x{x}"
        name = f"SM90_{bits}_STSM_{'T' if t else 'N'}" if st else f"SM75_{bits}_LDSM_{'T' if t else 'N'}"
        p = row_providers(name)
        for lane in range(32):
            j, r = (lane % (8 * x)) // 8, lane % 8
            want = (r // 2, r % 2 + 2 * j) if t else (4 * r, 2 * j)
            assert (p.thread(lane), p.value(lane)) == want, (name, lane)


def test_row_providers_are_the_kernels_layouts() -> None:
    """The layouts the mma kernels were first written with (PTX ISA 9.7.14.5.15), now derived."""
    x4, x2 = row_providers("SM75_U32x4_LDSM_N"), row_providers("SM75_U32x2_LDSM_N")
    assert (x4.thread, x4.value) == (Layout((8, 4), (4, 0)), Layout((8, 4), (0, 2)))
    for got, want in ((x2.thread, Layout((8, 2, 2), (4, 0, 0))), (x2.value, Layout((8, 2, 2), (0, 2, 0)))):
        assert got.offsets().tolist() == want.offsets().tolist()


def test_row_providers_reject_word_atoms() -> None:
    with pytest.raises(LayoutError, match="not an ldmatrix/stmatrix"):
        row_providers("UniversalCopy<uint128_t>")
    with pytest.raises(LayoutError, match="exceeds"):
        row_providers("SM75_U32x4_LDSM_N", 256)
    with pytest.raises(LayoutError, match="power of two"):
        row_providers("SM75_U32x4_LDSM_N", 12)


def test_address_rules_are_the_ptx_isa_ones() -> None:
    """issue #31: cp.async and ld/st align to their access size (PTX ISA 6.4.1), ldmatrix/stmatrix rows to 16 bytes
    (9.7.14.5.15/16); every rule names its section and quotes it."""
    from layoutcheck.hw.copy import ADDRESS_RULES, address_rule, all_copy_atoms

    for atom in all_copy_atoms():
        if atom.smem_side == "none":
            continue
        rule = address_rule(atom)
        want = 16 if "LDSM" in atom.name or "STSM" in atom.name else atom.bytes_per_address
        assert rule.alignment(atom.bytes_per_address) == want, atom.name
        assert ("cp.async" in rule.source) is ("CP_ASYNC" in atom.name)
    for rule in ADDRESS_RULES.values():
        assert rule.source.startswith("PTX ISA")
        assert "aligned" in rule.quote or "Addresses as Operands" in rule.quote
