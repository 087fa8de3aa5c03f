"""``multicast_cover`` through the spec road: the bundled clusters are PROVEN, each broken one REFUTED at the CTA,
row and rule its description names, a bad formula an ERROR at its key."""

from __future__ import annotations

from pathlib import Path

from layoutcheck.check import check_paths

SPECS = Path(__file__).parents[2] / "specs"


def test_bundled_multicasts_are_proven() -> None:
    rows = check_paths([str(SPECS / "multicast.toml")])
    assert len(rows) == 4 and {r.status for r in rows} == {"PROVEN"}


def test_each_broken_multicast_is_refuted_where_its_description_says() -> None:
    rows = {r.config: r for r in check_paths([str(SPECS / "broken" / "multicast.toml")])}
    want = {"A_mask_along_the_wrong_axis": ("foreign", 0, 0), "A_slices_split_over_CM": ("twice", 0, 0),
            "B_slices_of_the_wrong_size": ("outside", 0, 128), "A_no_multicast_but_split": ("missing", 0, 64)}
    for name, (rule, dest, row) in want.items():
        w = rows[name].counterexample_data
        assert rows[name].status == "REFUTED" and (w["rule"], w["dest"], w["row"]) == (rule, dest, row), name


def test_a_bad_formula_or_operand_is_an_error_at_its_key(tmp_path: Path) -> None:
    f = tmp_path / "m.toml"
    f.write_text('format = 1\n[[config]]\nname = "m"\nkind = "multicast"\ncluster = [2, 2]\noperand = "A"\n'
                 'extent = 64\nmask = "row_mask << z"\nproperties = ["multicast_cover"]\n')
    (r,) = check_paths([str(f)])
    assert r.status == "ERROR" and "mask" in r.reason and "'z'" in r.reason
    f.write_text(f.read_text().replace('operand = "A"', 'operand = "C"').replace(' << z"', '"'))
    (r,) = check_paths([str(f)])
    assert r.status == "ERROR" and "operand" in r.reason
