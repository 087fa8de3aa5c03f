"""The ``scale_factors`` kind (issue #27): binding, and input errors named with the key."""

from __future__ import annotations

import pytest

from layoutcheck.errors import SpecError
from layoutcheck.spec.bind import build_property
from layoutcheck.spec.load import parse_spec

BASE = 'format = 1\n[[config]]\nname = "c"\nkind = "scale_factors"\nk = 256\nvec = 32\n'


def _build(extra: str):
    spec = parse_spec(BASE + extra, "<t>")
    assert not spec.errors, spec.errors
    cfg = spec.configs[0]
    return build_property(cfg, cfg.properties[0])


def test_agreement_binds_named_and_hand_written_sides() -> None:
    p = _build('mn = 128\nproducer = "(128,(32,8)):(8,(0,1))"\nconsumer = { layout = "linear", vec = 32 }\n'
               'properties = ["scale_agreement"]\n')
    assert p.producer.layout == p.consumer.layout


@pytest.mark.parametrize(("extra", "key"), [
    ('mn = 128\nproducer = "nope"\nconsumer = "128x4"\nproperties = ["scale_agreement"]\n', "producer"),
    ('producer = "linear"\nconsumer = "128x4"\nproperties = ["scale_agreement"]\n', "mn"),
    ('mn = 128\nproducer = "linear"\nconsumer = "128x4"\ntile = [128, 128]\nproperties = ["scale_agreement"]\n',
     "tile"),
    ('tile = [128, 128]\nscheduler = "plain"\nlog = 2\ngrids = { GM = [1, 2], GN = [1, 2] }\n'
     'properties = ["scale_follows_tile"]\n', "log"),
    ('tile = [128, 128]\nscale_layout = "swirl"\ngrids = { GM = [1, 2], GN = [1, 2] }\n'
     'properties = ["scale_follows_tile"]\n', "scale_layout"),
    ('tile = [128, 128]\noperand = "C"\ngrids = { GM = [1, 2], GN = [1, 2] }\nproperties = ["scale_follows_tile"]\n',
     "operand"),
])
def test_input_errors_name_the_key(extra: str, key: str) -> None:
    with pytest.raises(SpecError, match=f"key '{key}'"):
        _build(extra)


def test_hand_written_scale_layout_must_cover_the_largest_grid() -> None:
    with pytest.raises(SpecError, match="does not cover"):
        _build('tile = [128, 128]\nscale_layout = "(256,(32,8)):(8,(0,1))"\ngrids = { GM = [1, 3], GN = [1, 1] }\n'
               'properties = ["scale_follows_tile"]\n')
