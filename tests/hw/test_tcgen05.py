"""tcgen05 facts: descriptor formats are sound (fields disjoint, fixed bits), TMEM copy atoms equal CUTLASS's own
Copy_Traits (``tests/data/tmem_atoms.json``, printed by CUTLASS's host code), data paths are injective into TMEM."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from layoutcheck.algebra.layout import size
from layoutcheck.algebra.notation import parse_layout
from layoutcheck.errors import LayoutError
from layoutcheck.hw.copy import copy_atom
from layoutcheck.hw.tcgen05 import (
    DATA_PATHS,
    TMEM,
    UMMA_INSTR_DESCRIPTOR,
    UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED,
    UMMA_SMEM_DESCRIPTOR,
    UMMA_SWIZZLES,
    data_path,
    tmem_atom_specs,
    umma_swizzle,
)

DATA = json.loads((Path(__file__).parents[1] / "data" / "tmem_atoms.json").read_text())
CUTLASS_ATOMS = {r["name"]: r for r in DATA["tmem_atoms"]}


@pytest.mark.parametrize("fmt", [UMMA_SMEM_DESCRIPTOR, UMMA_INSTR_DESCRIPTOR, UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED])
def test_descriptor_fields_are_disjoint_and_in_the_word(fmt) -> None:
    assert fmt.overlaps() == []
    assert all(f.hi <= fmt.bits and f.source for f in fmt.fields)


def test_smem_descriptor_fixed_bits_and_field_ranges() -> None:
    word = UMMA_SMEM_DESCRIPTOR.pack({})
    assert word == 1 << 46  # bits 46..48 = 0b001
    with pytest.raises(LayoutError, match=r"stride_byte_offset \[32,46\) holds 14 bits"):
        UMMA_SMEM_DESCRIPTOR.pack({"stride_byte_offset": 1 << 14})


def test_swizzle_codes() -> None:
    assert {s.name: s.code for s in UMMA_SWIZZLES.values()} == {
        "SWIZZLE_NONE": 0, "SWIZZLE_128B_BASE32B": 1, "SWIZZLE_128B": 2, "SWIZZLE_64B": 4, "SWIZZLE_32B": 6}
    assert umma_swizzle("SW128").repeat_bytes == 1024 and umma_swizzle("SW32").repeat_bytes == 256
    assert umma_swizzle("SW128_32B").atomicity_bytes == 32
    with pytest.raises(LayoutError, match="code 3 is not defined"):
        umma_swizzle(3)


def test_tmem_geometry() -> None:
    assert (TMEM.lanes, TMEM.columns, TMEM.cell_bits) == (128, 512, 32)
    assert TMEM.address(5, 7) == (5 << 16) | 7


def test_every_cutlass_tmem_atom_is_modelled() -> None:
    ours = {s[0] for s in tmem_atom_specs()}
    theirs = {n for n in CUTLASS_ATOMS if "_STAT_" not in n}  # LOAD_STAT (tcgen05.ld.red) is not modelled
    assert ours == theirs and len(ours) == 148


@pytest.mark.parametrize("name", sorted(n for n in CUTLASS_ATOMS if "_STAT_" not in n))
def test_tmem_atom_equals_cutlass_copy_traits(name: str) -> None:
    a, ref = copy_atom(name), CUTLASS_ATOMS[name]
    for key, ours in (("thr_id", a.thr_id), ("val_id", a.val_id), ("src_layout", a.src_layout),
                      ("dst_layout", a.dst_layout)):
        assert str(ours) == str(parse_layout(ref[key].replace("_", ""))), key


@pytest.mark.parametrize("name", ["SM100_TMEM_LOAD_32dp32b8x", "SM100_TMEM_LOAD_16dp256b1x",
                                  "SM100_TMEM_STORE_16dp64b4x_16b", "SM100_TMEM_LOAD_16dp32b2x"])
def test_tmem_atom_register_side_is_a_bijection(name: str) -> None:
    a = copy_atom(name)
    reg = a.dst_layout if a.access_kinds == ("tmem_ld",) else a.src_layout
    offs = reg.offsets()
    assert sorted(offs.tolist()) == list(range(size(reg)))


@pytest.mark.parametrize("letter", sorted(DATA_PATHS))
@pytest.mark.parametrize("n", [32, 64, 256])
def test_data_paths_are_injective_and_fit_tmem(letter: str, n: int) -> None:
    atom = DATA_PATHS[letter].atom(n)
    offs = atom.offsets()
    assert np.unique(offs).size == size(atom)
    assert offs.max() < TMEM.lanes * TMEM.columns


def test_data_path_lookup() -> None:
    assert data_path(128, 1).letter == "D" and data_path(64, 1, ws=True).letter == "E"
    with pytest.raises(LayoutError, match="no TMEM data path"):
        data_path(256, 1)


_FRG_LETTER = {(1, 128): "D", (1, 64): "F", (2, 64): "B", (2, 128): "A", (2, 32): "G"}


@pytest.mark.parametrize("r", DATA["data_paths"], ids=lambda r: f"{r['n_sm']}sm-{r['m_mma']}x{r['n_mma']}")
def test_data_paths_equal_cutlass_tmem_frg(r: dict) -> None:
    """CUTLASS's ``tmem_frg<float, float, n_sm>::make`` (mode 0: ``(m, n) -> lane << 16 | column``) is our data path
    restrided from ``lane + 128 * column`` to TMEM addresses."""
    from layoutcheck.algebra.layout import Layout
    from layoutcheck.algebra.ops import composition

    dp = DATA_PATHS[_FRG_LETTER[(r["n_sm"], r["m_mma"])]].atom(r["n_mma"])
    ours = composition(Layout((TMEM.lanes, 16384), (1 << TMEM.lane_shift, 1)), dp)
    ref = parse_layout(r["layout"].replace("_", ""))
    assert size(ref) == size(ours) and np.array_equal(ref.offsets(), ours.offsets())
