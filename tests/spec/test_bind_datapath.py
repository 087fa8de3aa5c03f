"""``spec.bind_datapath``: a ``datapath`` config's A/B/C tables bind to paths; a bad table is an ERROR on its key."""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutcheck.check import check_property
from layoutcheck.spec import bind_datapath
from layoutcheck.spec.load import load_spec, parse_spec

SPECS = Path(__file__).resolve().parents[2] / "specs"
HEAD = ('format = 1\n[[config]]\nname = "c"\nkind = "datapath"\natom = "SM80_16x8x16_F32F16F16F32_TN"\n'
        'atom_layout = [2, 2, 1]\npermutation = [32, 32, 16]\ntile = [128, 128, 32]\ndtype = "f16"\n'
        'properties = ["datapath"]\n')
A = ('[config.A]\nsmem = "make_composed_layout(Sw<2,3,3>, tile_to_shape((8,32):(32,1), (128,32)))"\n'
     'load = "cp.async"\nthreads = "(32,4):(4,1)"\nvalues = "(1,8)"\nread = "SM75_U32x4_LDSM_N"\n')


def _row(text: str) -> object:
    cfg = parse_spec(text, "t.toml").configs[0]
    return check_property(cfg, cfg.properties[0])


def test_the_bundled_sm80_spec_proves() -> None:
    spec = load_spec(str(SPECS / "datapath_sm80.toml"))
    assert {check_property(c, r).status for c in spec.configs for r in c.properties} == {"PROVEN"}


def test_a_broken_path_is_refuted() -> None:
    spec = load_spec(str(SPECS / "broken" / "datapath_sm80_ldmatrix_no_trans.toml"))
    assert "REFUTED" in {check_property(c, r).status for c in spec.configs for r in c.properties}


def test_the_default_cp_async_atom_is_cutlass_s() -> None:
    assert bind_datapath.CP_ASYNC == "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>"


@pytest.mark.parametrize(("text", "key"), [
    (HEAD.replace("[128, 128, 32]", "[128, 128]"), "tile"),
    (HEAD, "properties"),  # no A, B or C table
    (HEAD + A.replace('"cp.async"', '"dma"'), "A"),
], ids=["tile", "no-path", "load"])
def test_a_bad_table_is_an_error_on_its_key(text: str, key: str) -> None:
    row = _row(text)
    assert (row.status, row.key) == ("ERROR", key)
