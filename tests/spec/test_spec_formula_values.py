"""Spec values of issue #27: ``{ formula, coords }`` layouts and ``equivalent`` between any two forms."""

from __future__ import annotations

import pytest

from layoutcheck.check import check_property
from layoutcheck.errors import SpecError
from layoutcheck.spec.load import parse_spec

HEAD = 'format = 1\n[[config]]\nname = "c"\n'


def _rows(body: str) -> list:
    spec = parse_spec(HEAD + body, "f.toml")
    assert not spec.errors, spec.errors
    return [check_property(cfg, req, "auto", 10.0) for cfg in spec.configs for req in cfg.properties]


def test_formula_layout_and_other():
    rows = _rows('kind = "layout"\nlayout = { formula = "i*72 + j", coords = { j = 64, i = 8 } }\n'
                 'other = "(64,8):(1,72)"\n'
                 'properties = ["injective", "equivalent", { name = "in_bounds", bound = 512 }]\n')
    assert [r.status for r in rows] == ["PROVEN", "PROVEN", "REFUTED"]
    assert rows[2].counterexample.startswith("(j=8, i=7) -> 512 is outside [0,512)")


def test_formula_in_smem_bank_claims():
    rows = _rows('kind = "smem"\ndtype = "f16"\naccess = "ldsm_x4"\n'
                 'layout = { formula = "i*64 + ((j/8 + i) % 8)*8 + j%8", coords = { j = 64, i = 8 } }\n'
                 'properties = ["conflict_free", { name = "wavefront_count", n = 8 }, "bijective"]\n')
    assert [r.status for r in rows] == ["PROVEN"] * 3


@pytest.mark.parametrize(("value", "message"), [
    ('{ formula = "j" }', "needs its coordinates"),
    ('{ formula = "j", coords = { j = 4 }, shape = [4] }', "unknown key 'shape'"),
    ('{ formula = "j * k", coords = { j = 4 } }', "unknown variable 'k'"),
    ('{ formula = "j", coords = { j = 0 } }', "expected an integer"),
])
def test_bad_formula_values_are_errors_on_the_key(value, message):
    with pytest.raises(SpecError, match=f"key 'layout': .*{message}"):
        parse_spec(HEAD + f'kind = "layout"\nlayout = {value}\nproperties = ["injective"]\n', "f.toml")


def test_a_tv_formula_needs_a_thread_and_a_value_coordinate():
    # a TV map is a formula of (thread, value); one coordinate is an ERROR row naming 'tv', not a parse error
    spec = parse_spec(HEAD + 'kind = "tv"\ntv = { formula = "j", coords = { j = 4 } }\ntile = [4]\n'
                      'properties = ["exact_cover"]\n', "f.toml")
    row = check_property(spec.configs[0], spec.configs[0].properties[0], "auto", 10.0)
    assert row.status == "ERROR" and "two coordinates" in (row.reason or "")
    with pytest.raises(SpecError, match="key 'access_tv'"):
        parse_spec(HEAD + 'kind = "smem"\nlayout = "(8,8):(8,1)"\ndtype = "f16"\n'
                   'access_tv = { formula = "j", coords = { j = 4 } }\nproperties = ["injective"]\n', "f.toml")


def test_claims_a_formula_does_not_have_are_errors():
    spec = parse_spec(HEAD + 'kind = "layout"\nlayout = { formula = "j", coords = { j = 4 } }\n'
                      'properties = [{ name = "vectorizable", width = 4 }]\n', "f.toml")
    row = check_property(spec.configs[0], spec.configs[0].properties[0], "auto", 10.0)
    assert row.status == "ERROR" and "not defined for an index formula" in (row.reason or row.counterexample or "")


def test_two_triton_layouts_over_different_splits_are_refuted_by_domain():
    rows = _rows('kind = "layout"\n'
                 'layout = { triton = "#ttg.blocked<{sizePerThread=[1,2], threadsPerWarp=[4,8], warpsPerCTA=[1,2], '
                 'order=[1,0]}>", shape = [4, 32] }\n'
                 'other = { triton = "#ttg.blocked<{sizePerThread=[1,4], threadsPerWarp=[4,8], warpsPerCTA=[1,1], '
                 'order=[1,0]}>", shape = [4, 32] }\nproperties = ["equivalent"]\n')
    assert rows[0].status == "REFUTED" and rows[0].counterexample.startswith("input dimensions differ")
