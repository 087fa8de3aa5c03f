"""The ``.ptx`` road of ``layoutcheck check``: a kernel as compiled (CUDA C++ through nvcc, Triton through its own
lowering) gets a ``conflict_free`` row per source line and access kind, decided on the addresses its PTX computes
for every thread; what the run cannot follow is an UNKNOWN row."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from layoutcheck.check import check_paths
from layoutcheck.check_roads import road_of

DATA = Path(__file__).parents[1] / "data" / "ptx"


def _rows(path: Path) -> dict[str, tuple[str, str]]:
    return {r.config: (r.status, r.counterexample or r.reason or "") for r in check_paths([str(path)])}


def test_the_unpadded_transpose_is_refuted_at_its_column_read_and_the_padded_one_proven() -> None:
    rows = _rows(DATA / "transpose.ptx")
    assert rows["transpose_naive transpose.cu:8 sts32 (PTX)"][0] == "PROVEN"
    status, why = rows["transpose_naive transpose.cu:11 lds32 (PTX)"]
    assert status == "REFUTED" and "32 wavefronts (ideal 1, lds32)" in why and "hit bank 0" in why
    assert rows["transpose_padded transpose.cu:8 sts32 (PTX)"][0] == "PROVEN"
    assert rows["transpose_padded transpose.cu:11 lds32 (PTX)"][0] == "PROVEN"


def test_without_a_block_size_the_run_is_unknown_never_guessed(tmp_path: Path) -> None:
    # the kernels declare only .maxntid 256 (a bound): with no block given, nothing is decided
    text = (DATA / "transpose.ptx").read_text().replace("// layoutcheck: block=32,8\n", "")
    f = tmp_path / "k.ptx"
    f.write_text(text)
    rows = check_paths([str(f)])
    assert [r.status for r in rows] == ["UNKNOWN", "UNKNOWN"]
    assert all("no block size" in r.reason for r in rows)


def test_a_rewritten_file_is_checked_again_by_its_content(tmp_path: Path) -> None:
    text = (DATA / "transpose.ptx").read_text()
    f = tmp_path / "k.ptx"
    f.write_text(text)
    assert "REFUTED" in {r.status for r in check_paths([str(f)])}
    f.write_text(text.replace("// layoutcheck: block=32,8", "// layoutcheck: block=32,8 entry=transpose_naive "
                                                           "grid=1"))
    assert "REFUTED" in {r.status for r in check_paths([str(f)])}
    f.write_text(text.replace("block=32,8", "block=1,1"))  # one thread: no two lanes, no conflict
    assert {r.status for r in check_paths([str(f)])} == {"PROVEN"}


def test_ptx_is_recognised_by_suffix_and_by_text(tmp_path: Path) -> None:
    assert road_of(str(DATA / "transpose.ptx")) == "ptx"
    f = tmp_path / "kernel.txt"
    f.write_text((DATA / "transpose.ptx").read_text())
    assert road_of(str(f)) == "ptx"


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_nvcc_compiles_the_source_to_the_same_verdicts(tmp_path: Path) -> None:
    out = tmp_path / "t.ptx"
    subprocess.run(["nvcc", "-ptx", "-arch=sm_90", "-lineinfo", str(DATA / "transpose.cu"), "-o", str(out)],
                   check=True, timeout=300)
    out.write_text("// layoutcheck: block=32,8\n" + out.read_text())
    got = {(r.config.split(" ")[0], r.config.rsplit(" ", 2)[-2], r.status) for r in check_paths([str(out)])}
    assert ("transpose_naive", "lds32", "REFUTED") in got
    assert ("transpose_padded", "lds32", "PROVEN") in got


def test_a_cute_cpp_kernel_as_nvcc_compiled_agrees_with_the_layout_road(tmp_path: Path) -> None:
    # tests/data/ptx/cute_smem.cu: a TiledCopy of 128-bit vectors into shared memory and a ldmatrix.x4 TiledCopy of
    # an SM80 tiled MMA, over Sw<2,3,3> o (128,32):(32,1) halves and over the plain layout. The verdicts read off
    # nvcc's PTX equal those the spec road proves for the same smem layouts and access, down to the conflict:
    # lanes 0, 2, 4, 6 on bank 0, words 0, 32, 64, 96, 16 wavefronts for an ideal 4.
    rows = {r.config: r for r in check_paths([str(DATA / "cute_smem.ptx")])}
    spec = tmp_path / "smem.toml"
    spec.write_text('format = 1\n' + "".join(
        f'[[config]]\nname = "{n}"\nkind = "smem"\nlayout = "{lay}"\ndtype = "f16"\n'
        'properties = [{ name = "conflict_free", access = "ldsm_x4" }]\n'
        for n, lay in (("smem_swizzled", "Sw<2,3,3> o (128,32):(32,1)"), ("smem_plain", "(128,32):(32,1)"))))
    model = {r.config: r for r in check_paths([str(spec)])}
    for name in ("smem_swizzled", "smem_plain"):
        assert rows[f"{name} cute_smem.cu:30 ldsm_x4 (PTX)"].status == model[name].status
        assert rows[f"{name} cute_smem.cu:23 sts128 (PTX)"].status == "PROVEN"
    w, m = rows["smem_plain cute_smem.cu:30 ldsm_x4 (PTX)"].counterexample_data, model["smem_plain"].counterexample_data
    assert (w["lanes"], w["words"], w["wavefronts"], w["ideal"]) == (m["lanes"], m["words"], m["wavefronts"],
                                                                      m["ideal"]) == ([0, 2, 4, 6], [0, 32, 64, 96],
                                                                                      16, 4)


def test_an_elected_lanes_branch_is_followed_to_the_tiles_reads_refuted_down_columns_proven_along_rows() -> None:
    """tests/data/ptx/elected_tma_{rows,columns}.ptx: an elect.sync lane arms the mbarrier in a warp-splitting
    branch, then every warp reads the tile; the broken variant reads down the columns (32-way conflicts)."""
    assert [s for s, _ in _rows(DATA / "elected_tma_rows.ptx").values()] == ["PROVEN"]
    (status, why), = _rows(DATA / "elected_tma_columns.ptx").values()
    assert status == "REFUTED" and "32 wavefronts (ideal 1, lds32)" in why
