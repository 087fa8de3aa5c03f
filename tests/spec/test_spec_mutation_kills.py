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
