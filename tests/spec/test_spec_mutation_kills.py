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
