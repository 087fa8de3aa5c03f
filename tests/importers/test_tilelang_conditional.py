"""TileLang layouts with ``T.if_then_else`` / ``T.Select`` / ``T.max`` / ``T.min``, comparisons and ``and``/``or``
(the real printouts of ``tests/data/tilelang/conditional.txt`` and ``annotate_conditional_sm80.tir``, TileLang
0.1.15), decided on their own expressions; ``layoutcheck check`` of a TileLang log or ``.tir`` file; a coordinate past
its printed extent REFUTED (``in_bounds``), not an error."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from layoutcheck.engines.prove import prove
from layoutcheck.errors import ParseError
from layoutcheck.expr.numpy import offsets_of
from layoutcheck.importers.tilelang import TileLangFragment, parse_tilelang, printout
from layoutcheck.importers.tilelang_tir import tir_printouts
from layoutcheck.properties.tilelang import (
    TileLangBijective,
    TileLangInBounds,
    TileLangInjective,
    tilelang_claims,
    tilelang_properties,
    tilelang_property,
)
from layoutcheck.result import Verdict

DATA = Path(__file__).parents[1] / "data" / "tilelang"
RECORD = re.compile(r"# name: (.*)\n(?:# inverse: .*\n)?(.*)\n")
SAMPLES = dict(RECORD.findall((DATA / "conditional.txt").read_text()))


def sample(prefix: str):
    return parse_tilelang(next(p for n, p in SAMPLES.items() if n.startswith(prefix)))


def _grid(shape):
    return np.meshgrid(*[np.arange(n) for n in shape], indexing="ij")


def test_every_sample_reads_and_round_trips():
    """Each printout reads, and our own printout of it (``T.if_then_else``, ``<``, ``and`` ...) reads back to the
    same values at every point."""
    assert len(SAMPLES) == 12
    for name, text in SAMPLES.items():
        x = parse_tilelang(text)
        y = parse_tilelang(printout(x))
        for e, f in zip(x.forward_index, y.forward_index, strict=True):
            assert np.array_equal(offsets_of(e, x.domain), offsets_of(f, y.domain)), name
        if isinstance(x, TileLangFragment):
            assert np.array_equal(offsets_of(x.forward_thread, x.domain), offsets_of(y.forward_thread, y.domain))


def test_values_are_what_the_kernel_wrote():
    """The printed expressions (rewritten by TileLang's simplifier) compute the lambdas ``generate.py`` gave."""
    i, j = _grid((64, 40))
    tail = np.where(j < 32, i * 32 + j, 2048 + i * 8 + (j - 32))
    x = sample("T.Layout([64, 40]")
    assert np.array_equal(offsets_of(x.forward_index[0], x.domain), tail.T.reshape(-1))
    i, j = _grid((4, 8))
    x = sample("T.Layout([4, 8]")  # TileLang printed ``_i == 1 or _i < 3`` for ``i == 1 or i != 3``
    want = i * 8 + (j ^ np.where((i == 1) | (i != 3), 1, 0))
    assert np.array_equal(offsets_of(x.forward_index[0], x.domain), want.T.reshape(-1))
    i, j = _grid((12, 8))
    f = sample("T.Fragment([12, 8]")
    assert np.array_equal(offsets_of(f.forward_thread, f.domain), (np.minimum(i, 7) * 4 + j // 2).T.reshape(-1))


VERDICTS = [  # (sample, claim, verdict, counterexample)
    ("T.Layout([64, 40]", "in_bounds", "REFUTED", "(_i=2, _j=0) -> output coordinate 0 = 64, outside its printed "
                                                  "extent 64"),
    ("T.Layout([64, 40]", "injective", "PROVEN", None),
    ("T.Layout([16, 16]", "injective", "PROVEN", None),
    ("T.Layout([8], ", "in_bounds", "REFUTED", "(_i=4) -> output coordinate 0 = -4, outside its printed extent 8"),
    ("T.Layout([8, 8], max", "bijective", "REFUTED", "(_i=1, _j=0) and (_i=0, _j=1) both map to (8,)"),
    ("T.Layout([8, 8], [max", "bijective", "REFUTED", "(_i=1, _j=0) and (_i=0, _j=1) both map to (1, 0)"),
    ("T.Layout([6, 8]", "bijective", "REFUTED", "(_i=0, _j=0) and (_i=1, _j=0) both map to (32,)"),
    ("T.Layout([4, 8]", "bijective", "PROVEN", None),
    ("T.Fragment([16, 12]", "bijective", "REFUTED", "no input point maps to thread 32, register 2 (192 points for "
                                                    "1024 slots)"),
    ("T.Fragment([16, 12]", "injective", "PROVEN", None),
    ("T.Fragment([12, 8]", "in_bounds", "PROVEN", None),
    ("T.Fragment([12, 8]", "injective", "PROVEN", None),
    ("T.Fragment([12, 8]", "bijective", "REFUTED", "no input point maps to thread 0, register 2"),
    ("T.Fragment([7, 9]", "bijective", "REFUTED", "no input point maps to thread 31, register 1 (63 points for 64"),
    ("T.Fragment([7, 9]", "injective", "PROVEN", None),
    ("T.Fragment([48, 40]", "bijective", "PROVEN", None),
]


def test_required_claims_follow_the_slot_count():
    """``bijective`` where points and printed slots are as many, else ``injective``: a tail fragment may leave a
    register empty (63 elements in 32 x 2 slots), never put two copies in one."""
    want = {"T.Fragment([7, 9]": "injective", "T.Fragment([48, 40]": "bijective", "T.Layout([16, 16]": "injective",
            "T.Layout([8, 8], max": "bijective"}
    for n, second in want.items():
        assert [p.name for p in tilelang_properties(sample(n))] == ["in_bounds", second], n


@pytest.mark.parametrize(("name", "claim", "verdict", "ce"), VERDICTS)
def test_verdicts(name, claim, verdict, ce):
    x = sample(name)
    prop = tilelang_property(claim, x)
    r = prove(prop)
    assert r.status is Verdict(verdict), (r.status, r.counterexample, r.reason)
    if ce is not None:
        assert ce in str(r.counterexample)
        assert prop.recheck(r.counterexample.data)


def test_pos_inf_thread_count_is_the_reached_one():
    """TileLang printed ``thread: pos_inf`` (its analyzer has no bound for an ``if_then_else`` thread): the count is
    1 + the largest thread the expression reaches."""
    assert "thread: pos_inf" in SAMPLES[next(n for n in SAMPLES if n.startswith("T.Fragment([16, 12]"))]
    assert sample("T.Fragment([16, 12]").thread == 64


def test_witnesses_are_rechecked_not_trusted():
    x = sample("T.Layout([64, 40]")
    ok = {"kind": "out", "i": 2, "dim": 0, "value": 64, "extent": 64}
    assert TileLangInBounds(x).recheck(ok)
    assert not TileLangInBounds(x).recheck({**ok, "i": 1, "value": 32})  # (_i=1, _j=0) -> 32 is inside
    y = sample("T.Layout([8, 8], max")
    assert TileLangBijective(y).recheck({"kind": "collision", "i": 1, "j": 8})
    assert not TileLangInjective(y).recheck({"kind": "collision", "i": 1, "j": 2})


def test_out_of_extent_is_a_verdict_not_an_error():
    """The project's rule: a well-formed printout whose map leaves its declared output shape is a wrong layout --
    ``in_bounds`` REFUTED with the first input point outside -- while unreadable text stays exit 2."""
    x = parse_tilelang("Layout((4, 8) -> (4, 7), transform: (_i, _j) -> (_i, _j))")
    r = prove(TileLangInBounds(x))
    assert r.status is Verdict.REFUTED
    assert str(r.counterexample) == "(_i=0, _j=7) -> output coordinate 1 = 7, outside its printed extent 7"
    f = parse_tilelang("Fragment((8, 8) -> (2,), replicate: 1, thread: 16, forward_thread: _i * 4 + _j // 2, "
                       "forward_index: (_j % 2,))")
    r = prove(TileLangInBounds(f))
    assert str(r.counterexample) == "(_i=4, _j=0) -> thread = 16, outside its printed extent 16"


def test_tir_metadata_with_select_and_if_then_else():
    """The lowered TIR's metadata holds ``Call(if_then_else)``, ``Select`` and ``LT`` nodes: read into the same
    map TileLang printed for the annotated layout (the TIR has no output extent: 1 + the largest value)."""
    got = dict(tir_printouts((DATA / "annotate_conditional_sm80.tir").read_text()))
    a_s = parse_tilelang(got["A_s (64, 40) float16 shared.dyn"])
    assert a_s.output_shape == (2560,)
    want = sample("T.Layout([64, 40]")
    assert np.array_equal(offsets_of(a_s.forward_index[0], a_s.domain),
                          offsets_of(want.forward_index[0], want.domain))
    b_s = parse_tilelang(got["B_s (16, 16) float16 shared.dyn"])
    assert "T.Select(" in got["B_s (16, 16) float16 shared.dyn"] and b_s.output_shape == (16, 16)


def test_claims_of_a_log_and_of_tir():
    claims = tilelang_claims((DATA / "conditional.txt").read_text())
    assert (claims[0].line, claims[0].prop.name) == (5, "in_bounds")
    assert claims[0].subject.startswith("T.Layout([64, 40]")
    tir = tilelang_claims((DATA / "gemm_sm80_f16.tir").read_text())
    assert [c.subject.split()[1] for c in tir[::2]] == ["A_s", "B_s", "C_l"]
    assert all(c.line > 0 for c in tir)


def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "layoutcheck", "check", *args], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.slow
def test_check_a_tilelang_log_and_tir_files_directly(tmp_path):
    """``layoutcheck check FILE`` proves what a TileLang log or lowered TIR implies, as for a ``.ttgir`` module."""
    got = _check(str(DATA / "conditional.txt"))
    assert got.returncode == 1, got.stdout[-2000:] + got.stderr[-2000:]
    assert "26 checks: 20 proven, 6 refuted, 0 unknown, 0 error" in got.stdout
    assert "conditional.txt:5" in got.stdout
    got = _check(str(DATA / "gemm_sm80_f16.tir"), str(DATA / "annotate_conditional_sm80.tir"))
    assert got.returncode == 0, got.stdout[-2000:]
    assert "10 checks: 10 proven" in got.stdout
    log = tmp_path / "run.log"
    log.write_text("compiling...\n" + next(p for n, p in SAMPLES.items() if n.startswith("T.Fragment([48")) + "\n")
    got = _check(str(log), "--json", str(tmp_path / "out.json"))
    assert got.returncode == 0 and "2 checks: 2 proven" in got.stdout
    bad = tmp_path / "bad.tir"
    bad.write_text("Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8 + ,))\n")
    got = _check(str(bad))
    assert got.returncode == 2 and "expression ends early" in got.stdout


@pytest.mark.slow
def test_import_then_check_decides_maps_without_a_cute_form(tmp_path):
    """``layoutcheck import`` keeps every conditional layout (no more skipped ones): a map without a CuTe or linear
    form is a ``layout = { tilelang = ... }`` config whose claims are decided on its own expressions."""
    spec = tmp_path / "conditional.toml"
    run = [sys.executable, "-m", "layoutcheck"]
    subprocess.run([*run, "import", str(DATA / "conditional.txt"), "-o", str(spec)], check=True, timeout=300)
    assert "skipped" not in spec.read_text()
    got = subprocess.run([*run, "check", str(spec)], capture_output=True, text=True, timeout=300)
    assert got.returncode == 1, got.stdout[-2000:]
    assert "refuted" in got.stdout and " 0 error" in got.stdout
    assert "(_i=2, _j=0) -> output coordinate 0 = 64, outside its printed extent 64" in got.stdout
    bad = spec.read_text().replace('properties = ["in_bounds", "injective"]',
                                   'properties = [{ name = "in_bounds", bound = 9 }]', 1)
    spec.write_text(bad)
    got = subprocess.run([*run, "check", str(spec)], capture_output=True, text=True, timeout=300)
    assert got.returncode == 2 and "takes no 'bound'" in got.stdout + got.stderr


def test_unreadable_inputs_stay_exit_2(tmp_path):
    """Lowered TIR printed without ``show_meta=True`` holds only references: exit 2 saying how to print it."""
    text = (DATA / "gemm_sm80_f16.tir").read_text()
    bare = tmp_path / "bare.tir"
    bare.write_text(text[text.index("# from tvm.script"):])
    got = _check(str(bare))
    assert got.returncode == 2 and "show_meta=True" in got.stdout


def test_a_map_without_cute_form_outside_kind_layout_is_named(tmp_path):
    """Only ``kind = "layout"`` decides a TileLang map without a CuTe form; elsewhere the ERROR shows the printout."""
    spec = tmp_path / "s.toml"
    spec.write_text('format = 1\n[[config]]\nname = "s"\nkind = "smem"\ndtype = "f16"\nlayout = { tilelang = "'
                    'Layout((8, 8) -> (64,), transform: (_i, _j) -> (T.max(_i, _j) * 8 + T.min(_i, _j),))" }\n'
                    'properties = ["injective"]\n')
    got = _check(str(spec))
    assert got.returncode == 2
    assert "found TileLangLayout Layout((8, 8) -> (64,), transform: (_i, _j) -> (((T.max(_i, _j) * 8)" in got.stdout


def test_unreadable_printout_is_still_a_parse_error():
    with pytest.raises(ParseError, match="chained comparison"):
        parse_tilelang("Layout((4, 8) -> (32,), transform: (_i, _j) -> (T.Select(0 < _i < 3, _i, _j),))")
