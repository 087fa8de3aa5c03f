"""cta_group::2 operand halves in the data path, tcgen05.cp images and the TMEM_LOAD_STAT atoms (issue #27)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.errors import LayoutError
from layoutcheck.hw.copy import copy_atom
from layoutcheck.hw.tcgen05 import PEER_SPLITS, TMEM_COPY_SHAPES, TMEM_DP_BITS, TMEM_LOAD_STATS, tmem_copy_shape
from layoutcheck.models.datapath import first_fault, hops
from layoutcheck.models.datapath_pair import peer_tables
from layoutcheck.models.datapath_values import MatrixCopy, OperandPath, PeerCopy, TmaCopy, UmmaRead
from layoutcheck.models.tma import TmaBox, mma_smem_layout
from layoutcheck.models.tmem import TmemLoad, copy_cells, load_cells
from layoutcheck.properties.datapath import datapath
from layoutcheck.properties.tmem_copy import tmem_copy_image
from layoutcheck.spec.values import WGMMA_ATOM_ORDER


def _pair(rows: tuple[int, int] = (0, 128), cta: tuple[int, int] = (0, 1), operand: str = "A") -> OperandPath:
    smem = mma_smem_layout("K", "128B", "float16", (128, 64), WGMMA_ATOM_ORDER["K"])
    box = TmaBox("float16", (64, 128), (128,), (64, 128), swizzle="128B")
    return OperandPath(operand, None, (256, 64), 16, "f16", smem, TmaCopy(box, (1, 0)), UmmaRead("K"),
                       PeerCopy(rows, cta))


def test_peer_split_is_cutlass_alayout() -> None:
    lay = PEER_SPLITS["A"].layout(256, 16)
    assert str(lay) == "(2,(128,16)):(128,(1,256))"
    assert lay(1, 5) == 128 + 5  # peer 1, local row 5, k 0 -> m = 133
    with pytest.raises(LayoutError, match="odd"):
        PEER_SPLITS["B"].layout(7, 16)


def test_peer_tables_follow_the_rows_each_peer_loads() -> None:
    own, act = peer_tables(_pair((128, 0)))
    assert own[0, 0] == 0 and own[1, 0] == 128 and act[0, 0] == 128 and act[1, 0] == 0
    _, act = peer_tables(_pair((0, 200)))
    assert act[1, 55] == 255 and act[1, 56] == act[1, 56 + 128 * 3] == -1 and act[1, 0] == 200


def test_pair_path_proven_and_faults_name_the_cta() -> None:
    assert first_fault(_pair()) is None
    tma, umma = hops(_pair())
    assert tma.spaces == ("global", "peer_smem") and umma.spaces == ("peer_smem", "operand")
    assert set(np.unique(tma.peer).tolist()) == {0, 1} and tma.src.size == 256 * 64
    f = first_fault(_pair(cta=(0, 0)))
    assert f is not None and f["stage"] == 0 and f["kind"] == "misplaced"
    claim = datapath([_pair(cta=(0, 0))])
    d = claim.exhaustive()
    assert not d.holds and claim.recheck(d.witness)
    assert "CTA 1's TMA" in claim.explain(d.witness) and "CTA 0 smem byte 0" in claim.explain(d.witness)


def test_pair_needs_tma_and_umma() -> None:
    p = _pair()
    with pytest.raises(LayoutError, match="cta_group::2"):
        hops(OperandPath("A", None, p.tile, 16, "f16", p.smem, p.load, MatrixCopy("SM75_U32x4_LDSM_N"), p.pair))


@pytest.mark.parametrize("name", list(TMEM_COPY_SHAPES))
def test_tcgen05_cp_images_are_injective_and_inside_tmem(name: str) -> None:
    s = TMEM_COPY_SHAPES[name]
    addrs = [a for *_, a in s.image()]
    assert len(addrs) == len(set(addrs)) == s.rows * s.row_bits * s.copies
    assert max(a // TMEM_DP_BITS for a in addrs) < 128 and max(a % TMEM_DP_BITS for a in addrs) < 256
    assert tmem_copy_shape(f"SM100_UTCCP_{name}_2cta") is s and tmem_copy_shape(s.ptx) is s


def test_warpx4_multicasts_each_row_to_every_sub_partition() -> None:
    c = copy_cells(".32x128b.warpx4", 8, 8)
    lanes = sorted(c["lane"][(c["row"] == 3) & (c["element"] == 5)].tolist())
    assert lanes == [3, 35, 67, 99] and set(c["column"][c["element"] == 5].tolist()) == {9}
    with pytest.raises(LayoutError, match=r"unknown tcgen05\.cp shape"):
        tmem_copy_shape(".32x64b")
    assert tmem_copy_image("4x32dp128bit", 8, 4, Layout((32, 16, 4), (1, 128, 32)), 0).exhaustive().holds is False


@pytest.mark.parametrize("name", list(TMEM_LOAD_STATS))
def test_load_stat_atoms_move_the_cells_of_the_load_they_extend(name: str) -> None:
    stat, like = copy_atom(name), copy_atom(TMEM_LOAD_STATS[name].like)
    assert stat.ptx.startswith("tcgen05.ld.red") and stat.val_id == like.val_id
    a, b = load_cells(TmemLoad(name, 1, 32, 0)), load_cells(TmemLoad(like.name, 1, 32, 0))
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_pair_epilogue_follows_each_ctas_accumulator_rows() -> None:
    from layoutcheck.spec.bind import build_property
    from layoutcheck.spec.load import parse_spec

    body = ('format = 1\n[[config]]\nname = "c"\nkind = "datapath"\ntile = [256, 128, 64]\ndtype = "f16"\n'
            'properties = [{ name = "datapath", operand = "C" }]\n[config.C]\ncta_group = 2\ndtype = "f16"\n'
            'tmem_atom = "SM100_TMEM_LOAD_32dp32b32x"\ndata_path = "A"\nswizzle = "128B"\n'
            'write = "UniversalCopy<uint128_t>"\nstore = "tma"\nbox = [64, 128]\npeer_rows = [0, 0]\n')
    cfg = parse_spec(body).configs[0]
    claim = build_property(cfg, cfg.properties[0])
    (path,) = claim.paths
    tmem, write, store = hops(path)
    assert (tmem.spaces, write.spaces, store.spaces) == (("peer_tmem", "peer_regs"), ("peer_regs", "peer_smem"),
                                                         ("peer_smem", "global"))
    d = claim.exhaustive()
    assert not d.holds and d.witness["stage"] == 2 and claim.recheck(d.witness)
    assert "(CTA 1's TMA) lands at global (m,n) = (0,0)" in claim.explain(d.witness)
    assert first_fault(replace(path, pair=PeerCopy((0, 128), (0, 1)))) is None
