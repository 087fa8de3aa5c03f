"""``spec.ownership``: the one function giving a bound config's ownership TV map (issue #26), and the registry's
columns naming per-kind / per-property functions elsewhere (``owner_map``, ``picture``, ``silicon``): each name the
registry writes is a function there, and each function is named."""

from __future__ import annotations

import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.codegen.refuted_cases import REPRODUCTIONS
from layoutcheck.errors import SpecError
from layoutcheck.report.html import PICTURES
from layoutcheck.spec.bind import mma_cta_tile, tiled_mma
from layoutcheck.spec.load import parse_spec
from layoutcheck.spec.ownership import OWNED_KINDS, OWNER_MAPS, has_owner_map, owner_map
from layoutcheck.spec.schema import KINDS, PROPERTY_SPECS

SPEC = """
format = 1
[[config]]
name = "t"
kind = "tv"
tv = "((4,8),(2,2)):((16,1),(8,64))"
tile = [8, 16]
properties = ["exact_cover"]
[[config]]
name = "m"
kind = "tiled_mma"
atom = "SM80_16x8x16_F32F16F16F32_TN"
atom_layout = [2, 2, 1]
tile = [64, 64]
properties = ["exact_cover"]
[[config]]
name = "s"
kind = "smem"
dtype = "f16"
atom = { major = "K", mode = "SW128" }
tile = [64, 64]
properties = ["bijective"]
"""


def test_every_owner_map_the_registry_names_exists_and_is_named() -> None:
    named = {k.owner_map for k in KINDS.values() if k.owner_map}
    assert named == set(OWNER_MAPS)
    assert tuple(k for k, spec in KINDS.items() if spec.owner_map) == OWNED_KINDS


def test_every_picture_and_reproduction_the_registry_names_exists_and_is_named() -> None:
    assert {p.picture for p in PROPERTY_SPECS.values() if p.picture} == set(PICTURES)
    assert {p.silicon for p in PROPERTY_SPECS.values() if p.silicon} == set(REPRODUCTIONS)


def test_a_tv_config_owns_its_tv_over_its_tile() -> None:
    t = parse_spec(SPEC, "o.toml").configs[0]
    m = owner_map(t)
    assert m.mma is None and m.tile == (8, 16) and m.memory is None
    assert m.tv == t.get("tv")


def test_a_tiled_mma_config_owns_its_operand_partition_of_the_cta_tile() -> None:
    cfg = parse_spec(SPEC, "o.toml").configs[1]
    mma = tiled_mma(cfg)
    for op in "CAB":
        m = owner_map(cfg, op)
        assert m.mma is mma and m.operand == op and m.tile == mma_cta_tile(cfg, mma, op)
        assert m.tv == mma.tv_layout(op, Layout(m.tile))


def test_a_kind_without_an_ownership_map_is_refused_naming_those_that_have_one() -> None:
    s = parse_spec(SPEC, "o.toml").configs[2]
    assert not has_owner_map(s)
    with pytest.raises(SpecError, match=r"o.toml:\d+: config 's' is kind 'smem'; an ownership map needs kind 'tv' "
                                        r"or 'tiled_mma'"):
        owner_map(s)
