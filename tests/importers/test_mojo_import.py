"""Mojo layout printouts read back: real samples from Mojo's own layout tests (tests/data/mojo/), each parsed by
``from_cute``, printed back in Mojo's style, and -- where the test states the layout behind it -- compared with the
layout layoutcheck's algebra builds from the same inputs (a differential test against Mojo's output)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.ops import coalesce, complement
from layoutcheck.algebra.tiling import (
    blocked_product,
    logical_divide,
    logical_product,
    tile_to_shape,
    upcast,
    zipped_divide,
)
from layoutcheck.errors import ParseError
from layoutcheck.importers.cute import from_cute, mojo_str, parse_cute_layout

DATA = json.loads((Path(__file__).parents[1] / "data" / "mojo" / "layout_strings.json").read_text())
SAMPLES = [s for s in DATA["samples"] if s["op"] != "dynamic"]


def _arg(x):
    """A sample's argument: a layout in CuTe notation, a by-mode tiler (list of layouts), or plain ints."""
    if isinstance(x, str):
        return parse_cute_layout(x)[0]
    if isinstance(x, list):
        return tuple(_arg(m) if isinstance(m, (str, list)) else m for m in x)
    return x


def _select(layout: Layout, modes: tuple[int, ...]) -> Layout:
    return Layout(tuple(layout.shape[i] for i in modes), tuple(layout.stride[i] for i in modes))


def _keep_rank(layout: Layout) -> Layout:
    return coalesce(layout, (1,) * len(layout))


OPS = {
    "layout": lambda a: a,
    "coalesce": coalesce,
    "coalesce_keep_rank": _keep_rank,
    "complement": complement,
    "logical_divide": logical_divide,
    "logical_product": logical_product,
    "blocked_product": blocked_product,
    "blocked_product_coalesced": lambda a, b: _keep_rank(blocked_product(a, b)),
    "tile_to_shape": tile_to_shape,
    "zipped_divide": zipped_divide,
    "select": _select,
    "upcast": upcast,
}


def _ids(samples):
    return [f"{s['test']}-{s['printed']}" for s in samples]


@pytest.mark.parametrize("sample", SAMPLES, ids=_ids(SAMPLES))
def test_sample_round_trips(sample):
    got = from_cute(sample["printed"])
    assert got.kind == "layout"
    assert mojo_str(got.layout) == sample["printed"]


COMPUTED = [s for s in SAMPLES if s["op"] in OPS]


@pytest.mark.parametrize("sample", COMPUTED, ids=_ids(COMPUTED))
def test_sample_equals_layoutcheck_algebra(sample):
    """Mojo's printed result == layoutcheck's own op on the inputs the Mojo test states."""
    want = OPS[sample["op"]](*(_arg(a) for a in sample["args"]))
    got = from_cute(sample["printed"]).layout
    if sample.get("compare") == "function":  # grouped differently (sample["note"]); same map index -> offset
        assert size(got) == size(want) and all(got(i) == want(i) for i in range(size(want)))
    else:
        assert got == want, f"layoutcheck computes {mojo_str(want)}"


TILERS = [s for s in SAMPLES if "tiler_given" in s]


@pytest.mark.parametrize("sample", TILERS, ids=_ids(TILERS))
def test_mojo_layout_tiler_divides_by_its_shape_not_as_cute(sample):
    """Mojo's zipped_divide by a whole tiler Layout is not CuTe's (composition with that Layout): a divergence of
    Mojo from CuTe, recorded so that a printout from Mojo is not mistaken for CuTe's result."""
    a, tiler = _arg(sample["args"][0]), _arg(sample["tiler_given"])
    cute = zipped_divide(a, tiler)
    got = from_cute(sample["printed"]).layout
    assert got != cute and any(got(i) != cute(i) for i in range(size(a)))
    pycute = pytest.importorskip("pycute")
    ref = pycute.zipped_divide(pycute.Layout(a.shape, a.stride), pycute.Layout(tiler.shape, tiler.stride))
    assert (ref.shape, ref.stride) == (cute.shape, cute.stride)


REGROUPED = [s for s in SAMPLES if s["op"] == "regroup"]


@pytest.mark.parametrize("sample", REGROUPED, ids=_ids(REGROUPED))
def test_regrouped_sample_is_same_function(sample):
    """expand_modes_alike only regroups modes: the printout is its argument as a function of the linear index."""
    got, src = from_cute(sample["printed"]).layout, _arg(sample["args"][0])
    assert size(got) == size(src)
    assert all(got(i) == src(i) for i in range(size(src)))


def test_every_sample_is_checked():
    assert all(s["op"] in OPS or s["op"] in ("regroup", "dynamic") for s in DATA["samples"])
    assert len(SAMPLES) >= 30


@pytest.mark.parametrize("table", DATA["tables"], ids=[t["layout"] for t in DATA["tables"]])
def test_print_layout_table(table):
    """Mojo's print_layout / format_layout grid: every cell re-checked against the stated layout."""
    want = _arg(table["layout"])
    text = table["printed"] if table["printed"].startswith("(") else mojo_str(want) + "\n" + table["printed"]
    got = from_cute(text)
    assert got.kind == "print_layout" and got.layout == want


def test_dynamic_sample_is_rejected_naming_the_unknown():
    """Mojo prints UNKNOWN_VALUE as -1; a static layout cannot hold it, so the reader says where it is."""
    (dyn,) = [s for s in DATA["samples"] if s["op"] == "dynamic"]
    with pytest.raises(ParseError, match="-1"):
        from_cute(dyn["printed"])


@pytest.mark.parametrize(("text", "token"), [
    ("((2, 2):(1, 2)", "end of text"),
    ("((2, 2):(1, x))", "'x'"),
    ("((2, 2):(1, 2)))", "')'"),
    ("((2, 2);(1, 2))", "';'"),
    ("((2, 2):(1, 2, 4))", "2, 4"),
])
def test_malformed_variant_names_the_token(text, token):
    with pytest.raises((ParseError, ValueError)) as e:
        from_cute(text)
    assert token in str(e.value)
