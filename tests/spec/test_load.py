"""Spec loading: every bundled spec loads; every malformed spec is a one-line SpecError naming file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.errors import SpecError
from layoutcheck.spec.bind import build_property
from layoutcheck.spec.load import collect, load_spec, parse_spec
from layoutcheck.spec.schema import ALL_PROPERTIES, KINDS

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"

GOOD = '''format = 1
description = "demo"

[[config]]
name = "c"
kind = "tv"
tv = "((4,8),(2,2)):((32,1),(16,8))"
tile = [16, 8]
properties = [
  "exact_cover",
  { name = "vectorizable", width = 8 },
]
dtype = "f32"
'''


def test_every_bundled_spec_loads():
    files = collect([str(SPECS)], include_broken=True)
    assert len(files) >= 10
    for f in files:
        spec = load_spec(f)
        assert spec.format == 1 and spec.configs


def test_collect_skips_broken_unless_asked():
    assert not any("broken" in f for f in collect([str(SPECS)]))
    assert any("broken" in f for f in collect([str(SPECS)], include_broken=True))
    assert collect([str(SPECS / "broken" / "missed_element.toml")])  # named explicitly: included


def test_good_spec_values():
    spec = parse_spec(GOOD, "g.toml")
    cfg = spec.configs[0]
    assert cfg.kind == "tv" and cfg.get("tile") == (16, 8) and cfg.get("tv") == Layout(((4, 8), (2, 2)),
                                                                                        ((32, 1), (16, 8)))
    assert [r.label for r in cfg.properties] == ["exact_cover", "vectorizable(width=8)"]
    assert cfg.properties[1].line == 11 and cfg.line_of("tile") == 8 and cfg.line == 4


def test_layout_values_may_be_calc_expressions():
    text = GOOD.replace('tv = "((4,8),(2,2)):((32,1),(16,8))"', 'tv = "make_layout_tv((4,8):(8,1), (2,4):(4,1))"')
    with pytest.raises(SpecError, match="evaluates to"):
        parse_spec(text, "g.toml")  # a (tiler, layout) pair is not a layout
    text = GOOD.replace('"((4,8),(2,2)):((32,1),(16,8))"', '"composition(((4,8),(2,2)):((32,1),(16,8)), 128:1)"')
    assert isinstance(parse_spec(text).configs[0].get("tv"), Layout)
    sw = 'format = 1\n[[config]]\nname = "s"\nkind = "smem"\ndtype = "f16"\nlayout = "Sw<3,3,3> o (8,64):(64,1)"\n' \
         'properties = ["bijective"]\n'
    assert isinstance(parse_spec(sw).configs[0].get("layout"), ComposedLayout)


@pytest.mark.parametrize(("old", "new", "line", "fragment"), [
    ("format = 1", "format = 2", 1, "key 'format'"),
    ("format = 1", "", 1, "missing key 'format'"),
    ('kind = "tv"', 'kind = "tvv"', 6, "did you mean 'tv'"),
    ("tile = [16, 8]", "tiles = [16, 8]", 8, "unknown key"),
    ("tile = [16, 8]", "tile = [16, -8]", 8, "key 'tile'"),
    ("tile = [16, 8]", 'tile = "16x8"', 8, "expected a list of integers"),
    ("tile = [16, 8]", "tile = [16, 8, 1, 1]", 8, "key 'tile'"),
    ("tile = [16, 8]", f"tile = [{2**50}, 8]", 8, "out of range"),
    ('tv = "((4,8),(2,2)):((32,1),(16,8))"', 'tv = "((4,8),(2,2)):((32,1),(16,8)"', 7, "key 'tv'"),
    ('tv = "((4,8),(2,2)):((32,1),(16,8))"', "tv = 5", 7, "key 'tv'"),
    ('"exact_cover"', '"exact_covr"', 10, "did you mean 'exact_cover'"),
    ('"exact_cover"', '"conflict_free"', 10, "does not apply to kind 'tv'"),
    ("width = 8", "widht = 8", 11, "did you mean 'width'"),
    ("width = 8", "width = -8", 11, "parameter 'width'"),
    ('dtype = "f32"', 'dtype = "f33"', 13, "unknown dtype"),
    ('name = "c"', 'name = "a b"', 5, "key 'name'"),
    ('description = "demo"', 'descripton = "demo"', 2, "unknown top-level key"),
    ("tile = [16, 8]", "tile = [16, 8", 9, "invalid TOML"),
])
def test_bad_specs_name_file_line_and_key(old, new, line, fragment):
    text = GOOD.replace(old, new)
    assert text != GOOD
    with pytest.raises(SpecError) as e:
        parse_spec(text, "bad.toml")
    msg = str(e.value)
    assert "\n" not in msg and fragment in msg and msg.startswith(f"bad.toml:{line}:"), msg


def test_missing_required_key_and_duplicates():
    with pytest.raises(SpecError, match="missing key 'tile'"):
        parse_spec(GOOD.replace("tile = [16, 8]\n", ""), "b.toml")
    doubled = GOOD + GOOD.split("\n", 2)[2]
    with pytest.raises(SpecError, match="repeats the config at line 4"):
        parse_spec(doubled, "b.toml")


def test_empty_and_non_utf8(tmp_path):
    with pytest.raises(SpecError, match="no \\[\\[config\\]\\]"):
        parse_spec("format = 1\n", "e.toml")
    p = tmp_path / "x.toml"
    p.write_bytes(b"format = 1\n\xff\xfe")
    with pytest.raises(SpecError, match="not UTF-8"):
        load_spec(str(p))
    with pytest.raises(SpecError, match="cannot read"):
        load_spec(str(tmp_path / "missing.toml"))


def test_every_kind_and_property_is_documented():
    readme = (SPECS / "README.md").read_text()
    for kind in KINDS:
        assert f"`{kind}`" in readme, kind
    for prop in ALL_PROPERTIES:
        assert f"`{prop}`" in readme, prop
    for kind, info in KINDS.items():
        for key in info.keys:
            assert f"`{key}`" in readme, (kind, key)


def test_build_property_errors_point_at_the_config():
    text = GOOD.replace('{ name = "vectorizable", width = 8 }', '{ name = "vectorizable", width = 6 }')
    cfg = parse_spec(text, "b.toml").configs[0]
    with pytest.raises(SpecError, match=r"b.toml:11: config 'c': property 'vectorizable'"):
        build_property(cfg, cfg.properties[1])


def test_tiled_mma_non_divisible_tile_is_refuted_not_an_error():
    """CuTe divides with a rounding-up complement: the partition runs past a 100-row tile (issue #25)."""
    from layoutcheck.engines.prove import prove

    text = ('format = 1\n[[config]]\nname = "m"\nkind = "tiled_mma"\natom = "SM80_16x8x16_F32F16F16F32_TN"\n'
            'atom_layout = [2, 2, 1]\ntile = [100, 128, 32]\nproperties = ["exact_cover"]\n')
    cfg = parse_spec(text, "m.toml").configs[0]
    res = prove(build_property(cfg, cfg.properties[0]))
    assert str(res.status) == "REFUTED" and "row 100 >= 100" in res.counterexample.text
    bad_atom = text.replace("SM80_16x8x16_F32F16F16F32_TN", "SM80_16x8x16_F32F16F16F32_TM")
    cfg = parse_spec(bad_atom, "m.toml").configs[0]
    with pytest.raises(SpecError, match=r"m.toml:5: .*key 'atom'.*did you mean"):
        build_property(cfg, cfg.properties[0])


def test_registry_is_typed_and_complete():
    from layoutcheck.properties.base import Property
    from layoutcheck.spec.bind import BINDERS, PROPERTIES

    assert set(BINDERS) == set(KINDS) and set(PROPERTIES) == set(ALL_PROPERTIES)
    cfg = parse_spec(GOOD).configs[0]
    assert isinstance(build_property(cfg, cfg.properties[0]), Property)


# -- the split: spec.py re-exports calc / spec_values / spec_model / spec_bind; imports flow one way ---------------
SPEC_CHAIN = ("calc", "spec_values", "spec_model", "spec_bind", "spec")


@pytest.mark.parametrize(("key", "value", "parsed"), [
    ("tile", 16, (16,)),
    ("tile", [16, 8, 32], (16, 8, 32)),
    ("modes", [1, 0], (1, 0)),
    ("dtype", " BF16 ", "bf16"),
    ("operand", "a", "A"),
    ("atom", {"major": "k", "mode": "128B"}, (("major", "K"), ("mode", "128B"))),
    ("access_ranges", {"r": 4, "s": 2}, (("r", 4), ("s", 2))),
    ("permutation", [32, "_", "(8,4):(1,8)"], (32, None, Layout((8, 4), (1, 8)))),
    ("layout", "(16,8)", Layout((16, 8))),
    ("layout", "coalesce((2,4):(1,2))", Layout(8)),
])
def test_parse_value_canonicalises(key, value, parsed):
    from layoutcheck.spec.values import parse_value

    assert parse_value(key, value) == parsed


@pytest.mark.parametrize(("key", "value", "message"), [
    ("tile", [True], "expected a list of integers, found [true]"),
    ("tile", [1, 2, 3, 4], "expected 1 to 3 integers, found 4"),
    ("modes", [-1], "entry -1 out of range [0, 2**40]"),
    ("width", 0, "expected an integer in [1, 2**40], found 0"),
    ("access_ranges", {"lane": 2}, "bad loop variable name 'lane' ('lane' is implicit)"),
    ("permutation", ["Sw<1,1,1> o 4:1"], "a permutation mode cannot be swizzled"),
    ("layout", "coalesce(Sw<1,1,1> o 4:1)", "coalesce takes plain layouts, found a swizzled layout"),
])
def test_parse_value_rejects_with_a_reason(key, value, message):
    from layoutcheck.errors import LayoutError
    from layoutcheck.spec.values import parse_value

    with pytest.raises((ValueError, LayoutError)) as e:
        parse_value(key, value)
    assert message in str(e.value)
