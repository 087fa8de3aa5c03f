"""Binding the descriptor kinds: ``written_by``, ``bits`` and which key an error blames (issue #25, #30)."""

from __future__ import annotations

from pathlib import Path

from layoutcheck.check import check_paths

SW128 = "make_composed_layout(Sw<3,3,3>, tile_to_shape((8,64):(64,1), (128,64)))"


def _rows(tmp_path: Path, body: str) -> list:
    p = tmp_path / f"s{len(list(tmp_path.iterdir()))}.toml"  # a new path each time (check caches loaded specs)
    p.write_text("format = 1\n[[config]]\nname = \"c\"\n" + body)
    return check_paths([str(p)])


def test_written_by_must_name_a_writer(tmp_path: Path) -> None:
    rows = _rows(tmp_path, 'kind = "wgmma"\ndtype = "f16"\nmajor = "K"\ntile = [64, 64]\nswizzle = "128B"\n'
                           'written_by = "cp.async"\nproperties = ["gmma_addresses"]\n')
    assert rows and all(r.status == "ERROR" and r.key == "written_by" for r in rows)


def test_unknown_type_blames_its_own_key(tmp_path: Path) -> None:
    rows = _rows(tmp_path, 'kind = "umma_instr"\na_dtype = "f16"\nb_dtype = "f17"\nc_dtype = "f32"\nmma_m = 128\n'
                           'mma_n = 128\nproperties = ["descriptor_fields"]\n')
    assert rows[0].status == "ERROR" and rows[0].key == "b_dtype"


def test_bad_shape_is_a_verdict(tmp_path: Path) -> None:
    rows = _rows(tmp_path, 'kind = "umma_instr"\na_dtype = "f16"\nb_dtype = "f16"\nc_dtype = "f32"\nmma_m = 128\n'
                           'mma_n = 257\nproperties = ["descriptor_fields"]\n')
    assert rows[0].status == "REFUTED" and "N=257" in rows[0].counterexample


def test_word_width(tmp_path: Path) -> None:
    body = ('kind = "descriptor_format"\nbits = 32\nfields = [{ name = "a", lo = 28, width = 6, values = [1] }]\n'
            'properties = ["descriptor_fields"]\n')
    (row,) = _rows(tmp_path, body)
    assert row.status == "REFUTED" and "past bit 31 of the 32-bit word" in row.counterexample


def test_umma_smem_written_by(tmp_path: Path) -> None:
    body = (f'kind = "umma_smem"\ndtype = "f16"\nmajor = "K"\nlayout = "{SW128}"\nbase_address = 1152\n'
            'properties = ["umma_describes"]\n')
    assert _rows(tmp_path, body)[0].status == "UNKNOWN"
    assert _rows(tmp_path, body + 'written_by = "tma"\n')[0].status == "PROVEN"
