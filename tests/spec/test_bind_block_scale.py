"""``spec.bind_block_scale``: the ``scale_factors`` kind binds its two claims; a bad key is an ERROR naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutcheck.check import check_property
from layoutcheck.spec import bind_block_scale
from layoutcheck.spec.bind import BINDERS
from layoutcheck.spec.load import load_spec, parse_spec

SPECS = Path(__file__).resolve().parents[2] / "specs"
HEAD = 'format = 1\n[[config]]\nname = "c"\nkind = "scale_factors"\nmn = 256\nk = 512\nvec = 32\n'


def _rows(path: Path) -> list[tuple[str, str]]:
    spec = load_spec(str(path))
    return [(c.name, check_property(c, r).status) for c in spec.configs for r in c.properties]


def _row(text: str) -> object:
    cfg = parse_spec(text, "t.toml").configs[0]
    return check_property(cfg, cfg.properties[0])


def test_it_is_the_binder_of_scale_factors() -> None:
    assert BINDERS["scale_factors"] is bind_block_scale.bind_scale_factors


def test_the_bundled_spec_proves_and_its_broken_twins_refute() -> None:
    assert {s for _, s in _rows(SPECS / "block_scale.toml")} == {"PROVEN"}
    for broken in ("scale_layout_mismatch.toml", "scale_block_index.toml"):
        assert "REFUTED" in {s for _, s in _rows(SPECS / "broken" / broken)}


def test_same_layout_on_both_sides_agrees() -> None:
    row = _row(HEAD + 'producer = "sm1xx_sfa"\nconsumer = "sm1xx_sfa"\nproperties = ["scale_agreement"]\n')
    assert row.status == "PROVEN"


@pytest.mark.parametrize(("extra", "key"), [
    ('producer = "no_such_layout"\nconsumer = "sm1xx_sfa"\n', "producer"),
    ('producer = "sm1xx_sfa"\n', "consumer"),
])
def test_a_bad_or_missing_side_is_an_error_on_its_key(extra: str, key: str) -> None:
    row = _row(HEAD + extra + 'properties = ["scale_agreement"]\n')
    assert (row.status, row.key) == ("ERROR", key)
