"""Binders name the offending spec key from the error's ``key`` (set where the value is parsed), never from its text.

Issue #26: ``spec/bind.py`` guessed the key from words in the message (``"complement" in str(e)``, a formula's
``"stage = "``, a tma key's name anywhere in the text). Each case below is a value whose error used to be matched by
text; the row must name that key and its line. ``t_f64`` is the one the text match got wrong (it said ``box``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from layoutcheck.errors import SpecError
from layoutcheck.spec.bind import build_property
from layoutcheck.spec.load import parse_spec

ROOT = Path(__file__).resolve().parents[2] / "layoutcheck"

PIPELINE = 'kind = "pipeline"\nstages = 2\nk_blocks = 4\nstage_bytes = 64\n'
MULTICAST = 'kind = "multicast"\ncluster = [2, 2]\noperand = "A"\nextent = 128\n'
TMA = 'kind = "tma"\ndtype = "f16"\nmajor = "K"\nswizzle = "none"\ntile = [64, 16]\nbox = [8, 64]\n'
MMA = 'kind = "tiled_mma"\natom = "SM80_16x8x16_F32F16F16F32_TN"\natom_layout = [2, 2, 1]\ntile = [32, 32, 16]\n'

CASES = [  # (body of the config, property, the key the error must name)
    (PIPELINE + "align = 100\n", "pipeline_protocol", "align"),
    (PIPELINE + 'stage = "kb %% 2"\n', "pipeline_protocol", "stage"),
    (PIPELINE + 'consumer_phase = "foo + 1"\n', "pipeline_protocol", "consumer_phase"),
    (PIPELINE + 'producer_phase = "(kb"\n', "pipeline_protocol", "producer_phase"),
    (MULTICAST.replace('"A"', '"C"'), "multicast_cover", "operand"),
    (MULTICAST.replace("[2, 2]", "[4, 8]"), "multicast_cover", "cluster"),
    (MULTICAST + 'mask = "zz"\n', "multicast_cover", "mask"),
    (MULTICAST + 'slice_start = "y / / 2"\n', "multicast_cover", "slice_start"),
    (TMA.replace('"f16"', '"f64"'), "tma_compatible", "dtype"),
    (TMA.replace("[64, 16]", "[60, 16]").replace('"none"', '"128B"'), "tma_compatible", "tile"),
    (TMA + "global_shape = [16, 64]\nglobal_strides = [128, 4096]\n", "tma_compatible", "global_strides"),
    (TMA.replace("[8, 64]", "[8, 64, 1]"), "tma_compatible", "box"),
    (TMA + 'interleave = "bad"\n', "tma_compatible", "interleave"),
    (MMA + 'permutation = ["16:-1", 32, 16]\n', "exact_cover", "permutation"),
]


def _config(body: str, prop: str) -> object:
    text = f'format = 1\n[[config]]\nname = "c"\n{body}properties = ["{prop}"]\n'
    spec = parse_spec(text, "bad.toml")
    return spec.configs[0], text


@pytest.mark.parametrize(("body", "prop", "key"), CASES, ids=[f"{k}-{i}" for i, (_, _, k) in enumerate(CASES)])
def test_the_error_names_the_key_that_holds_the_value(body: str, prop: str, key: str) -> None:
    cfg, text = _config(body, prop)
    with pytest.raises(SpecError) as info:
        build_property(cfg, cfg.properties[0])
    e = info.value
    assert e.key == key
    line = next(n for n, ln in enumerate(text.splitlines(), 1) if ln.startswith(f"{key} ="))
    assert e.line == line
    assert str(e).startswith(f"bad.toml:{line}: config 'c': key {key!r}: ")


def _guesses_from_text(source: str, name: str) -> list[str]:
    """``in`` / ``not in`` tests whose operands use the exception an ``except ... as e`` caught."""
    found = []
    for handler in ast.walk(ast.parse(source)):
        if not isinstance(handler, ast.ExceptHandler) or handler.name is None:
            continue
        for node in ast.walk(handler):
            if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
                names = {n.id for part in (node.left, *node.comparators) for n in ast.walk(part)
                         if isinstance(n, ast.Name)}
                if handler.name in names:
                    found.append(f"{name}:{node.lineno}")
    return found


def test_no_binder_matches_an_error_message_to_find_a_key() -> None:
    files = [*sorted((ROOT / "spec").glob("bind*.py")), ROOT / "codegen" / "spec_cases.py"]
    assert [hit for f in files for hit in _guesses_from_text(f.read_text(), f.name)] == []


def test_the_text_check_sees_a_guess() -> None:
    src = "try:\n    pass\nexcept ValueError as e:\n    key = 'tile' if 'tile' in str(e) else 'kind'\n"
    assert _guesses_from_text(src, "probe.py") == ["probe.py:4"]


def test_a_layout_error_carries_the_key_its_raiser_names() -> None:
    from layoutcheck.errors import ComplementError, LayoutError, ParseError, blame

    assert LayoutError("x").key is None and LayoutError("x", key="tile").key == "tile"
    assert ParseError("ab", 1, "bad").key is None
    with pytest.raises(LayoutError) as info, blame("tile"):
        raise LayoutError("does not divide")
    assert info.value.key == "tile"
    with pytest.raises(LayoutError) as info, blame("tile"):
        raise LayoutError("unknown swizzle", key="swizzle")  # the innermost raiser knows best
    assert info.value.key == "swizzle"
    assert issubclass(ComplementError, LayoutError)


def test_complement_refusals_are_complement_errors() -> None:
    from layoutcheck.algebra.layout import Layout
    from layoutcheck.algebra.ops import complement
    from layoutcheck.errors import ComplementError

    for bad in (Layout(4, -2), Layout((2, 2), (4, 4))):
        with pytest.raises(ComplementError):
            complement(bad, 32)


def test_a_spec_error_key_is_what_its_raiser_passed() -> None:
    assert SpecError("f.toml:3: config 'c': key 'tile': bad").key is None
    assert SpecError("f.toml:3: config 'c': key 'tile': bad", key="tile").key == "tile"
