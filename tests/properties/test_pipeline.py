"""``pipeline_protocol`` through the spec road: the bundled pipelines are PROVEN, each broken one REFUTED at the
k-block and rule its description names, and a formula that cannot be read is an ERROR naming its key."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from layoutcheck.check import check_paths
from layoutcheck.models.pipeline import Pipeline, earlier_uses

SPECS = Path(__file__).parents[2] / "specs"


def test_bundled_pipelines_are_proven() -> None:
    rows = check_paths([str(SPECS / "pipelines.toml")])
    assert rows and {r.status for r in rows} == {"PROVEN"}


def test_each_broken_pipeline_is_refuted_where_its_description_says() -> None:
    rows = {r.config: r for r in check_paths([str(SPECS / "broken" / "pipelines.toml")])}
    want = {"producer_starts_at_phase_0": (0, "producer_phase"), "consumer_phase_flips_one_stage_early":
            (3, "consumer_phase"), "stage_mask_with_3_stages": (3, "stage"),
            "stage_bytes_break_the_1024_alignment": (1, "align")}
    for name, (kb, rule) in want.items():
        r = rows[name]
        assert r.status == "REFUTED", (name, r.reason)
        assert (r.counterexample_data["kb"], r.counterexample_data["rule"]) == (kb, rule)
        assert f"k-block {kb} (any K loop of {kb + 1} or more k-blocks)" in r.counterexample


def _spec(tmp_path: Path, extra: str) -> list:
    f = tmp_path / "p.toml"
    f.write_text('format = 1\n[[config]]\nname = "p"\nkind = "pipeline"\nstages = 4\nk_blocks = 64\n'
                 f'stage_bytes = 1024\n{extra}\nproperties = ["pipeline_protocol"]\n')
    return check_paths([str(f)])


def test_a_formula_that_does_not_parse_or_names_an_unknown_variable_is_an_error_at_its_key(tmp_path: Path) -> None:
    (r,) = _spec(tmp_path, 'stage = "kb %% 4"')
    assert r.status == "ERROR" and "stage" in r.reason
    (r,) = _spec(tmp_path, 'consumer_phase = "(k / 4) % 2"')
    assert r.status == "ERROR" and "consumer_phase" in r.reason and "'k'" in r.reason
    (r,) = _spec(tmp_path, "align = 96")
    assert r.status == "ERROR" and "power of two" in r.reason


def test_a_stage_past_the_allocation_is_out_of_bounds_not_out_of_range(tmp_path: Path) -> None:
    (r,) = _spec(tmp_path, "smem_bytes = 3072")  # room for 3 of the 4 stages
    assert r.status == "REFUTED" and r.counterexample_data["rule"] == "bounds"
    assert r.counterexample_data["kb"] == 3


def test_earlier_uses_counts_each_stage_separately() -> None:
    s = np.array([0, 1, 0, 2, 1, 0, 0])
    assert earlier_uses(s).tolist() == [0, 0, 1, 0, 1, 2, 3]
    p = Pipeline(3, 7, 128, 384, stage="(kb * 2) % S")
    assert p.table["uses"].tolist() == [0, 0, 0, 1, 1, 1, 2]
