"""TMEM model and the Blackwell properties: epilogue coverage, sub-partitions, allocations, packed cells, scale
ownership, descriptor fields -- each PROVEN on a CUTLASS-style configuration and REFUTED on a broken one."""

from __future__ import annotations

import numpy as np
import pytest

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.engines.prove import prove
from layoutcheck.errors import LayoutError
from layoutcheck.hw.bitfields import BitField
from layoutcheck.hw.tcgen05 import TMEM, UMMA_INSTR_DESCRIPTOR, tmem_atom_specs
from layoutcheck.models.block_scale import mma_scale_layout, sf_atom, sf_layout
from layoutcheck.models.tmem import (
    TmemLoad,
    accumulator_layout,
    atom_columns,
    datapath_layout,
    epilogue_loads,
    lane_column,
    load_cells,
)
from layoutcheck.properties.descriptors import descriptor_fields
from layoutcheck.properties.tmem import (
    scale_ownership,
    tmem_allocation,
    tmem_exact_cover,
    tmem_packed_injective,
    tmem_subpartition,
)
from layoutcheck.result import Verdict

LOAD_ATOMS = sorted(n for n, _, _, load, _ in tmem_atom_specs() if load)


def _epilogue(atom: str, n: int, rows: tuple[int, ...]) -> tuple[TmemLoad, ...]:
    return epilogue_loads(atom, rows=rows, columns=tuple(range(0, n, atom_columns(atom))))


@pytest.mark.parametrize("atom", LOAD_ATOMS)
def test_every_load_atom_reads_one_sub_partition_and_distinct_cells(atom: str) -> None:
    """Each tcgen05.ld atom, issued by warp 2 at its sub-partition's base, stays in lanes 64..95 and gives every
    (thread, 32-bit register) its own cell: a bijection onto lanes x columns it spans."""
    c = load_cells(TmemLoad(atom, 2, 64, 0))
    assert c["lane"].min() >= 64 and c["lane"].max() < 96
    cells = c["lane"] * TMEM.columns + c["column"]
    assert np.unique(cells).size == cells.size


@pytest.mark.parametrize(("mma_m", "cta_group", "atom", "rows"), [
    (128, 1, "SM100_TMEM_LOAD_32dp32b32x", (0,)),
    (128, 1, "SM100_TMEM_LOAD_16dp256b2x", (0, 16)),
    (128, 1, "SM100_TMEM_LOAD_16dp128b4x", (0, 16)),
    (128, 1, "SM100_TMEM_LOAD_16dp64b8x", (0, 16)),
    (128, 1, "SM100_TMEM_LOAD_16dp32b8x", (0, 16)),
    (64, 1, "SM100_TMEM_LOAD_16dp256b1x", (0,)),
    (128, 2, "SM100_TMEM_LOAD_32dp32b16x", (0,)),
    (256, 2, "SM100_TMEM_LOAD_32dp32b8x", (0,)),
])
def test_epilogue_covers_the_accumulator_exactly_once(mma_m: int, cta_group: int, atom: str, rows) -> None:
    n = 128
    acc = accumulator_layout(mma_m, cta_group, n)
    cols = n // 2 if (mma_m, cta_group) == (128, 2) else n  # data path B folds N onto lanes 64-127
    loads = _epilogue(atom, cols, rows)
    assert prove(tmem_exact_cover(acc, loads)).status is Verdict.PROVEN
    assert prove(tmem_subpartition(loads)).status is Verdict.PROVEN


def test_tvm_20068_row_zero_only_is_refuted() -> None:
    """apache/tvm#20068: both M=64 halves of an M=128 accumulator read with .16x256b at row 0."""
    acc = accumulator_layout(128, 1, 64)
    r = prove(tmem_exact_cover(acc, _epilogue("SM100_TMEM_LOAD_16dp256b1x", 64, (0, 0))))
    assert r.status is Verdict.REFUTED
    assert "(0,0) at TMEM (lane 0, column 0) is loaded 2 times" in str(r.counterexample)


def test_tvm_20075_data_path_b_read_as_m64_is_refuted() -> None:
    acc = accumulator_layout(128, 2, 128)
    r = prove(tmem_exact_cover(acc, _epilogue("SM100_TMEM_LOAD_16dp256b1x", 128, (0,))))
    assert r.status is Verdict.REFUTED and "not part of the accumulator" in str(r.counterexample)


def test_subpartition_violation() -> None:
    r = prove(tmem_subpartition((TmemLoad("SM100_TMEM_LOAD_16dp256b1x", 1, 24, 0),)))
    assert r.status is Verdict.REFUTED and "outside warp 1's sub-partition (lanes 32-63)" in str(r.counterexample)


@pytest.mark.parametrize(("cols", "ok"), [((32,), True), ((512,), True), ((128, 256, 128), True), ((96,), False),
                                          ((16,), False), ((1024,), False), ((256, 256, 32), False)])
def test_allocations(cols, ok: bool) -> None:
    assert prove(tmem_allocation(cols)).status is (Verdict.PROVEN if ok else Verdict.REFUTED)


@pytest.mark.parametrize("atom", [n for n in LOAD_ATOMS if n.endswith("_16b")][::3])
def test_packed_16b_atoms_are_injective(atom: str) -> None:
    assert prove(tmem_packed_injective(atom, 16)).status is Verdict.PROVEN


def test_data_paths() -> None:
    f = datapath_layout("F", 32)
    lanes = sorted({int(lane_column(int(v))[0]) for v in f.offsets()})
    assert lanes == [*range(0, 16), *range(32, 48), *range(64, 80), *range(96, 112)]
    b = accumulator_layout(128, 2, 64)
    assert lane_column(int(b(0, 32))) == (64, 0)  # column N/2 folds onto lane 64
    with pytest.raises(LayoutError, match="must be even"):
        datapath_layout("B", 7)


def test_sf_atom_and_layout() -> None:
    assert str(sf_atom(16)) == "((32,4),(16,4)):((16,4),(0,1))"
    sf = sf_layout(256, 256, 32)
    assert size(sf) == 256 * 256 and prove(scale_ownership(sf, 32)).status is Verdict.PROVEN
    with pytest.raises(LayoutError, match="multiple of 128"):
        sf_layout(96, 128, 32)


@pytest.mark.parametrize(("operand", "m", "n", "cta"), [("A", 128, 256, 1), ("B", 128, 256, 1), ("A", 256, 256, 2),
                                                        ("B", 256, 128, 2), ("B", 128, 128, 2)])
def test_cutlass_scale_layouts_own_each_vector(operand: str, m: int, n: int, cta: int) -> None:
    sf = mma_scale_layout(operand, m, n, 128, 32, cta)
    assert prove(scale_ownership(sf, 32)).status is Verdict.PROVEN


def test_triton_3653_b_scale_mod_64_is_refuted() -> None:
    sf = mma_scale_layout("B", 128, 128, 128, 32, cta_group=2, scale_extent=64)
    r = prove(scale_ownership(sf, 32))
    assert r.status is Verdict.REFUTED
    assert "elements (0, 0) and (64, 0)" in str(r.counterexample)


def test_scale_vector_must_be_constant() -> None:
    r = prove(scale_ownership(Layout((4, 64), (64, 1)), 32))
    assert r.status is Verdict.REFUTED and "different scale bytes" in str(r.counterexample)


def test_descriptor_fields() -> None:
    good = UMMA_INSTR_DESCRIPTOR
    m, n = good.field("m_dim"), good.field("n_dim")
    assert prove(descriptor_fields((m, n), ((4, 8, 16), tuple(range(1, 33))))).status is Verdict.PROVEN
    trt = (BitField("sfa_layout", 26, 1, "TensorRT-LLM#19183"), BitField("m_dim", 24, 5, "TensorRT-LLM#19183"))
    r = prove(descriptor_fields(trt, ((0, 1), (4, 8, 16))))  # umma_m >> 4 packed at bit 24
    assert r.status is Verdict.REFUTED and "sfa_layout=0, m_dim=4" in str(r.counterexample)


def _sf_rows() -> list[dict]:
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).parents[1] / "data" / "tmem_atoms.json").read_text())
    return data.get("sf_layouts", [])


@pytest.mark.parametrize("r", _sf_rows(), ids=lambda r: f"vec{r['vec']}-{r['mn']}x{r['k']}")
def test_sf_layout_equals_cutlass_tile_atom_to_shape_sfa(r: dict) -> None:
    """CUTLASS's ``Sm1xxBlockScaledConfig<vec>::tile_atom_to_shape_SFA`` and ``sf_layout`` are the same function."""
    from layoutcheck.algebra.notation import parse_layout

    ref = parse_layout(r["layout"].replace("_", ""))
    ours = sf_layout(r["mn"], r["k"], r["vec"])
    assert size(ref) == size(ours) and np.array_equal(ref.offsets(), ours.offsets())
    assert prove(scale_ownership(ours, r["vec"])).status is Verdict.PROVEN


@pytest.mark.parametrize("atom", LOAD_ATOMS[::5])
@pytest.mark.parametrize("bits", [32, 16])
def test_loads_cells_is_each_loads_cells_in_order(atom, bits):
    """One broadcast over the loads of one atom equals ``load_cells`` of each load concatenated (and ``load`` its
    index); mixed atoms take the per-load path."""
    from layoutcheck.models.tmem import loads_cells

    loads = _epilogue(atom, 64, (0,))
    other = LOAD_ATOMS[0] if atom != LOAD_ATOMS[0] else LOAD_ATOMS[1]
    for ls in (loads, (*loads, TmemLoad(other, 1, 32, 256))):
        got = loads_cells(ls, bits)
        parts = [load_cells(x, bits) for x in ls]
        want = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        want["load"] = np.concatenate([np.full(p["thread"].size, j) for j, p in enumerate(parts)])
        assert list(got) == list(want)
        for k in want:
            assert got[k].dtype == want[k].dtype and np.array_equal(got[k], want[k]), k


@pytest.mark.parametrize("bits", [8, 16, 32])
def test_copy_cells_are_val_id_called_per_element(bits: int) -> None:
    """``copy_cells`` reads ``val_id.offsets()`` at each element's flat index: the same cell as calling ``val_id`` on
    the element's logical coordinate, one element at a time, for every shape."""
    from layoutcheck.hw.tcgen05 import TMEM_COPY_SHAPES, TMEM_DP_BITS, tmem_copy_shape
    from layoutcheck.models.tmem import copy_cells

    for name in TMEM_COPY_SHAPES:
        s, c = tmem_copy_shape(name), copy_cells(name, bits, column=5)
        one_by_one = [s.val_id(*s.logical(int(r), int(e) * bits, int(j)))
                      for r, e, j in zip(c["row"], c["element"], c["copy"], strict=True)]
        assert [int(x) for x in c["lane"]] == [a // TMEM_DP_BITS for a in one_by_one], name
        assert [int(x) for x in (c["column"] - 5) * 32 + c["sub"] * bits] == [a % TMEM_DP_BITS for a in one_by_one]
