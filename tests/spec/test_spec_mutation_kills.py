"""Tests written for the mutants of ``layoutcheck/spec/bind*.py`` that the suite let live (docs/soundness.md,
"Mutation score"); each is named after the law it checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutcheck.check import check_paths


def _rows(tmp_path: Path, body: str) -> list:
    p = tmp_path / f"s{len(list(tmp_path.iterdir()))}.toml"  # a new path each time (check caches loaded specs)
    p.write_text("format = 1\n[[config]]\nname = \"c\"\n" + body)
    return check_paths([str(p)])


@pytest.mark.parametrize("atom", ["SM100_TMEM_LOAD_32dp32b1x", "SM100_TMEM_LOAD_32dp32b2x"])
def test_default_tmem_load_columns_reach_the_last_accumulator_column(tmp_path: Path, atom: str) -> None:
    """Without ``columns`` the epilogue issues ``atom`` at every atom-width step over the accumulator's columns: an
    atom one or two columns wide must reach column N-1 too (a 128 x 64 f32 accumulator: 64 columns), so every
    accumulator element is read exactly once."""
    rows = _rows(tmp_path, f'kind = "tmem"\nmma_m = 128\nmma_n = 64\natom = "{atom}"\n'
                           'properties = ["tmem_exact_cover"]\n')
    assert [r.status for r in rows] == ["PROVEN"], [(r.status, r.reason, r.counterexample) for r in rows]


def test_a_grouped_gemm_with_well_formed_counts_binds_and_is_proven() -> None:
    """The bundled grouped-GEMM schedulers (``specs/schedulers.toml``: host count and device walk written as
    expressions) bind in this process -- a well-formed expression is not an error -- and are PROVEN; a host count
    naming an unknown variable is an ERROR on ``host_count``."""
    from layoutcheck.check import check_property
    from layoutcheck.spec.load import load_spec, parse_spec

    spec = load_spec(str(Path(__file__).resolve().parents[2] / "specs" / "schedulers.toml"))
    grouped = [c for c in spec.configs if c.get("host_count") is not None]
    assert grouped
    for cfg in grouped:
        for req in cfg.properties:
            row = check_property(cfg, req)
            assert row.status == "PROVEN", (cfg.name, row.status, row.reason)
    text = "\n".join(line for line in (Path(__file__).resolve().parents[2] / "specs" / "schedulers.toml")
                     .read_text().splitlines())
    bad = text.replace('host_count = "tiles"', 'host_count = "tiles + bogus"', 1)
    cfg = next(c for c in parse_spec(bad).configs if c.get("host_count") == "tiles + bogus")
    row = check_property(cfg, cfg.properties[0])
    assert row.status == "ERROR" and row.key == "host_count", (row.status, row.key, row.reason)


def test_default_rows_of_a_16dp_load_on_128_rows_are_both_half_slabs(tmp_path: Path) -> None:
    """``.16x256b`` reads 16 of each sub-partition's 32 lanes per issue: on a 128-row accumulator the default
    ``rows`` is ``[0, 16]`` (both half-slabs), so without ``rows`` the epilogue still covers every element once --
    the bundled ``tmem_1sm_M128_N128_16dp256b`` with its explicit ``rows = [0, 16]`` left out."""
    rows = _rows(tmp_path, 'kind = "tmem"\nmma_m = 128\nmma_n = 128\natom = "SM100_TMEM_LOAD_16dp256b2x"\n'
                           'properties = ["tmem_exact_cover"]\n')
    assert [r.status for r in rows] == ["PROVEN"], [(r.status, r.reason, r.counterexample) for r in rows]


_SPECS = Path(__file__).resolve().parents[2] / "specs"


def test_the_subject_of_a_smem_config_is_its_shared_memory_layout() -> None:
    """``subject`` of a ``kind = "smem"`` config (``show``, ``vectors``, the layout claims) is the stage layout the
    config builds (``smem_layout``): the bundled K-major 32B f16 atom tiled to 64 x 16, which is a bijection."""
    from layoutcheck.check import check_property
    from layoutcheck.spec.bind import smem_layout, subject
    from layoutcheck.spec.load import load_spec

    cfg = next(c for c in load_spec(str(_SPECS / "seed003_gmma_swizzle.toml")).configs if c.name == "K_32B_f16")
    assert cfg.kind == "smem"
    assert str(subject(cfg)) == str(smem_layout(cfg))
    req = next(r for r in cfg.properties if r.name == "bijective")
    assert check_property(cfg, req).status == "PROVEN"


def test_a_tma_box_of_lower_rank_than_its_stage_is_an_error_about_the_box(tmp_path: Path) -> None:
    """A one-entry box over a two-mode stage layout: the ERROR names the box (one entry where the two-mode tile
    needs two), not a global extent the config never gave."""
    rows = _rows(tmp_path, 'kind = "tma"\ndtype = "f16"\nsmem_layout = "(16,32):(32,1)"\nbox = [32]\n'
                           'properties = ["tma_compatible"]\n')
    assert [(r.status, r.key) for r in rows] == [("ERROR", "box")], [(r.status, r.key, r.reason) for r in rows]
    assert "box_dims (32,)" in rows[0].reason and "need 2 entries" in rows[0].reason, rows[0].reason
    assert "global_dims" not in rows[0].reason, rows[0].reason


def test_a_wgmma_stage_without_base_address_is_checked_at_address_zero(tmp_path: Path) -> None:
    """``base_address`` defaults to 0: the bundled SM90 K-major SW128 stage gives the same PROVEN descriptors and
    fields with the key left out as with ``base_address = 0``."""
    body = ('kind = "wgmma"\ndtype = "f16"\nmajor = "K"\nswizzle = "128B"\ntile = [128, 64]\nblock_mn = 64\n'
            'properties = ["gmma_addresses", "gmma_fields"]\n')  # no box: only tma_wgmma reads one
    without, at_zero = _rows(tmp_path, body), _rows(tmp_path, body + "base_address = 0\n")
    assert [r.status for r in without] == ["PROVEN", "PROVEN"], [(r.status, r.reason) for r in without]
    assert [(r.status, r.reason) for r in without] == [(r.status, r.reason) for r in at_zero]


def test_every_k_block_slice_of_a_plain_operand_tile_reads_its_own_k_columns() -> None:
    """``k_block_slices`` cuts an unswizzled (MN, K) = (64, 32) f16 tile into its K / K_mma = 2 K blocks of 16 columns
    (256 bits): element ``(m, k)`` of slice ``kb`` is element ``(m, 16 kb + k)`` of the tile, so slice 1 starts 16
    elements in, not at the tile's origin."""
    from layoutcheck.algebra.layout import Layout
    from layoutcheck.algebra.swizzle import ComposedLayout
    from layoutcheck.spec.bind_tcgen05 import k_block_slices

    tile = Layout((64, 32), (32, 1))

    def at(x: object, i: int) -> int:
        return x.swizzle(x.offset + x.layout(i)) if isinstance(x, ComposedLayout) else x(i)

    slices = k_block_slices(tile, 16)
    assert len(slices) == 2
    for kb, s in enumerate(slices):
        got = [at(s, m + 64 * k) for k in range(16) for m in range(64)]
        assert got == [32 * m + 16 * kb + k for k in range(16) for m in range(64)], kb


def test_the_tma_box_of_an_mn_major_wgmma_stage_is_bound_mn_first() -> None:
    """``tma_wgmma`` on a stage given by ``major``/``tile`` alone: for an MN-major stage the TMA box's dim 0 runs
    along MN (the contiguous mode) and dim 1 along K, so the stage's modes map onto box dims ``(0, 1)``; the bundled
    SM90 bf16 N-major B stage (``specs/sm90_wgmma.toml``) is PROVEN in this process."""
    from layoutcheck.check import check_property
    from layoutcheck.spec.load import load_spec

    cfg = next(c for c in load_spec(str(_SPECS / "sm90_wgmma.toml")).configs if c.name == "bf16_128x256x64_B_MN_SW128")
    assert cfg.get("major") == "MN" and cfg.get("smem_layout") is None
    row = check_property(cfg, next(r for r in cfg.properties if r.name == "tma_wgmma"))
    assert row.status == "PROVEN", (row.status, row.reason)


def test_a_umma_instruction_runs_on_cta_group_1_or_2_only(tmp_path: Path) -> None:
    """tcgen05.mma has ``cta_group::1`` and ``::2``: the bundled 2-SM bf16 256 x 256 instruction (``cta_group = 2``)
    binds and its descriptor is PROVEN; ``cta_group = 3`` is an ERROR on that key."""
    body = ('kind = "umma_instr"\na_dtype = "bf16"\nb_dtype = "bf16"\nc_dtype = "f32"\nmma_m = 256\nmma_n = 256\n'
            'b_major = "MN"\nproperties = ["descriptor_fields"]\n')
    two = _rows(tmp_path, body + "cta_group = 2\n")
    assert [r.status for r in two] == ["PROVEN"], [(r.status, r.reason) for r in two]
    three = _rows(tmp_path, body + "cta_group = 3\n")
    assert [(r.status, r.key) for r in three] == [("ERROR", "cta_group")], [(r.status, r.key, r.reason) for r in three]


def test_a_umma_stage_without_base_address_is_checked_at_address_zero(tmp_path: Path) -> None:
    """``base_address`` defaults to 0 for a UMMA stage too: the bundled 256 x 64 f16 K-major SW128 B stage
    (``specs/sm100_umma.toml``, no ``base_address``) is PROVEN, exactly as with ``base_address = 0``."""
    body = ('kind = "umma_smem"\ndtype = "f16"\nmajor = "K"\n'
            'layout = "make_composed_layout(Sw<3,3,3>, tile_to_shape((8,64):(64,1), (256,64)))"\n'
            'properties = ["umma_describes"]\n')
    without, at_zero = _rows(tmp_path, body), _rows(tmp_path, body + "base_address = 0\n")
    assert [r.status for r in without] == ["PROVEN"], [(r.status, r.reason) for r in without]
    assert [(r.status, r.reason) for r in without] == [(r.status, r.reason) for r in at_zero]
