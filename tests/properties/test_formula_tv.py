"""A TV map written as an index formula (``tv = { formula, coords = { t, v } }``): the PTX ISA's mma.m16n8k16 C
fragment formula is the same map as layoutcheck's SM80 atom (an independent derivation of one fact), covers its tile
exactly, and a wrong row half is REFUTED naming both owners."""

from __future__ import annotations

from pathlib import Path

from layoutcheck.check import check_paths
from layoutcheck.expr.formula import parse_formula
from layoutcheck.hw.mma import mma_atom

SPECS = Path(__file__).parents[2] / "specs"
C_FRAGMENT = "(t / 4 + 8 * (v / 2)) + 16 * ((t % 4) * 2 + v % 2)"  # PTX ISA 9.7.14.5.8, mma.m16n8k16 C / D


def test_the_isa_formula_is_the_atoms_c_layout() -> None:
    f = parse_formula(C_FRAGMENT, {"t": 32, "v": 4})
    atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN").tv_layout_C
    assert [f(t + 32 * v) for v in range(4) for t in range(32)] == [atom(t, v) for v in range(4) for t in range(32)]


def test_tv_formulas_through_the_spec_road() -> None:
    ok = {r.config + r.property: r.status for r in check_paths([str(SPECS / "reach_formulas.toml")])}
    assert ok["mma_m16n8k16_C_fragment_formulaexact_cover"] == "PROVEN"
    bad = {r.config: r for r in check_paths([str(SPECS / "broken" / "reach_formulas.toml")])}
    r = bad["mma_C_fragment_formula_wrong_row_half"]
    assert r.status == "REFUTED" and "(t=0, v=0), (t=0, v=2)" in r.counterexample


def test_a_tv_formula_needs_two_coordinates(tmp_path: Path) -> None:
    f = tmp_path / "t.toml"
    f.write_text('format = 1\n[[config]]\nname = "t"\nkind = "tv"\n'
                 'tv = { formula = "t + 32*v + 128*w", coords = { t = 32, v = 4, w = 1 } }\ntile = [128]\n'
                 'properties = ["exact_cover"]\n')
    (r,) = check_paths([str(f)])
    assert r.status == "ERROR" and "two coordinates" in r.reason
