"""Ownership vectors: the relation against direct evaluation of the TV layout, every format, the tiled-MMA path."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck import Layout
from layoutcheck.errors import LayoutError, SpecError
from layoutcheck.report.vectors import from_tv, inverse_relation, ownership_for_spec, write_vectors

REPO = Path(__file__).resolve().parents[2]
C_TV = Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))


def test_c_fragment_matches_ptx_formula():
    # PTX ISA mma.m16n8k16 C/D: row = lane>>2 (+8 for c2,c3), col = 2*(lane%4) + (i&1)
    own = from_tv("c", C_TV, (16, 8))
    for lane in range(32):
        for i in range(4):
            assert own.row[lane, i] == (lane >> 2) + 8 * (i >= 2)
            assert own.col[lane, i] == 2 * (lane % 4) + (i & 1)
    assert own.owners_of(9, 1) == [(4, 3)] and own.owners_of(8, 0) == [(0, 2)]


@given(st.permutations(list(range(24))))
def test_inverse_relation_of_a_permutation(perm):
    a = np.array(perm)
    start, owner = inverse_relation(a, 24)
    assert start.tolist() == list(range(25)) and a[owner].tolist() == list(range(24))


@given(st.lists(st.integers(0, 9), min_size=1, max_size=40))
def test_inverse_relation_general(elems):
    a = np.array(elems)
    start, owner = inverse_relation(a, 10)
    for e in range(10):
        ids = owner[start[e]:start[e + 1]].tolist()
        assert ids == sorted(np.flatnonzero(a == e).tolist())


def test_memory_offsets_and_out_of_tile():
    own = from_tv("c", C_TV, (16, 8), Layout((16, 8), (8, 1)))
    assert own.offset[0].tolist() == [0, 1, 64, 65]
    with pytest.raises(LayoutError, match="outside the 16x4 tile"):
        from_tv("c", C_TV, (16, 4))
    with pytest.raises(LayoutError, match="rank 2"):
        from_tv("c", Layout(8), (8,))


@pytest.mark.parametrize("fmt", ["npz", "json", "csv", "h"])
def test_every_format_round_trips(tmp_path, fmt):
    own = from_tv("m16n8k16_C", C_TV, (16, 8))
    p = tmp_path / f"v.{fmt}"
    write_vectors(own, str(p), fmt)
    if fmt == "npz":
        z = np.load(p)
        assert (z["row"] == own.row).all() and (z["owner"] == own.owner).all()
        assert json.loads(str(z["meta"]))["threads"] == 32
    elif fmt == "json":
        d = json.loads(p.read_text())
        assert d["schema_version"] == 2 and d["row"] == own.row.T.reshape(-1).tolist()  # index t + T*v
        assert d["owner_start"] == own.owner_start.tolist()
    elif fmt == "csv":
        lines = p.read_text().splitlines()
        assert lines[0] == "thread,value,row,col,offset" and lines[1:4] == ["0,0,0,0,0", "0,1,0,1,16", "0,2,8,0,8"]
        assert len(lines) == 1 + 128  # a header line, no comment line (pandas.read_csv reads it as is)
    else:
        text = p.read_text()
        assert "#define LC_M16N8K16_C_THREADS 32" in text
        assert "#define LC_M16N8K16_C_ROW_DATA \\\n0,0,0,0,1,1,1,1," in text  # thread 0..31 of value 0 first
        assert "static const int32_t lc_m16n8k16_C_row[128] LC_VECTORS_UNUSED = {LC_M16N8K16_C_ROW_DATA};" in text
        assert ("static __device__ const int32_t lc_m16n8k16_C_row_dev[128] LC_VECTORS_UNUSED = "
                "{LC_M16N8K16_C_ROW_DATA};") in text
        body = text.split("#define LC_M16N8K16_C_OWNER_DATA \\\n")[1].split("\nstatic")[0]
        assert [int(x) for x in body.replace("\\\n", "").split(",")] == own.owner.tolist()


def test_chunked_writes_are_exact(tmp_path, monkeypatch):
    import layoutcheck.report.vectors as v

    monkeypatch.setattr(v, "CHUNK", 7)
    own = from_tv("c", C_TV, (16, 8))
    for fmt in ("json", "csv", "h"):
        write_vectors(own, str(tmp_path / f"v.{fmt}"), fmt)
    assert json.loads((tmp_path / "v.json").read_text())["col"] == own.col.T.reshape(-1).tolist()  # t + T*v
    assert len((tmp_path / "v.csv").read_text().splitlines()) == 129


def test_tiled_mma_vectors_match_partition_C():
    from layoutcheck.spec.load import parse_spec  # noqa: F401  (spec path used below)

    own = ownership_for_spec(str(REPO / "specs" / "seed000_permutation.toml"), "simt_128x128_R4")
    assert own.tile == (128, 128) and own.num_threads == 256 and own.num_values == 64
    rows = sorted(set(own.row[0].tolist()))
    assert rows == [0, 1, 2, 3, 64, 65, 66, 67]  # seed 000 / 004: thread 0 owns rows {0..3, 64..67}
    counts = np.diff(own.owner_start)
    assert (counts == 1).all()


def test_spec_errors(tmp_path):
    with pytest.raises(SpecError, match="no config named"):
        ownership_for_spec(str(REPO / "specs" / "seed001_mma_c_fragment.toml"), "nope")
    with pytest.raises(SpecError, match="kind 'tv' or 'tiled_mma'"):
        ownership_for_spec(str(REPO / "specs" / "seed003_gmma_swizzle.toml"), "K_none_f16")


def test_owner_ids_are_the_tv_layouts_own_index():
    """The owner id is ``t + T*v`` (``layoutcheck.witness.owner_id``) in every vectors format: the owners of each
    element are exactly the TV indices the layout maps there, and a flat forward list is indexed by the same id."""
    from layoutcheck.witness_record import owner_id

    tv = Layout(((2, 4), 3), ((1, 6), 2))  # 8 threads x 3 values, an exact cover of 24
    own = from_tv("p", tv, (24,))
    T = own.num_threads
    offs = tv.offsets()
    for e in range(24):
        ids = own.owner[own.owner_start[e]:own.owner_start[e + 1]].tolist()
        assert ids == [i for i in range(offs.size) if offs[i] == e]
        assert [owner_id(t, v, T) for t, v in own.owners_of(e, 0)] == ids
    flat = own.row.T.reshape(-1)
    assert all(int(flat[owner_id(t, v, T)]) == int(own.row[t, v]) for t in range(T) for v in range(3))
