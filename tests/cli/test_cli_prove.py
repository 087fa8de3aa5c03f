"""``layoutcheck.cli_prove``: ``prove``'s flags as the typed config a spec file would hold, and its ``--help`` table."""

from __future__ import annotations

import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.cli import build_parser
from layoutcheck.cli_prove import _dest, property_table, prove_request
from layoutcheck.errors import UsageError
from layoutcheck.spec.schema import ALL_PROPERTIES, PROPERTY_SPECS


def _request(*argv: str):
    return prove_request(build_parser().parse_args(["prove", *argv]))


def test_the_flags_become_the_config_a_spec_holds() -> None:
    cfg, req = _request("8:1", "--property", "injective")
    assert (cfg.name, cfg.kind, cfg.file, cfg.line) == ("prove", "layout", "<command line>", 0)
    assert cfg.values == (("layout", Layout(8, 1)),) and cfg.properties == (req,)
    assert (req.name, req.params) == ("injective", ())


def test_a_spec_only_property_and_a_missing_input_name_the_flags() -> None:
    spec_only = next(p for p in ALL_PROPERTIES if PROPERTY_SPECS[p].prove is None)
    with pytest.raises(UsageError, match="write a spec file"):
        _request("8:1", "--property", spec_only)
    with pytest.raises(UsageError, match="--property composes needs"):
        _request("8:1", "--property", "composes")


def test_the_property_table_lists_every_property_once() -> None:
    lines = property_table().splitlines()
    assert lines[0] == "properties (NAME of --property):"
    assert [ln.split()[0] for ln in lines[1:]] == list(ALL_PROPERTIES)
    assert all(("spec files only" in ln) == (PROPERTY_SPECS[ln.split()[0]].prove is None) for ln in lines[1:])


def test_a_flag_is_read_from_its_argparse_attribute() -> None:
    assert _dest("--max-wavefronts") == "max_wavefronts" and _dest("--tile") == "tile"
