"""Issue #25 (command line and Python API): the reproducers of ``prove``'s crashes, wrong layouts reported as
unreadable input, ``calc``'s joined arguments, ``bool(Result)`` and a ``ComposedLayout``'s size/rank/cosize."""

from __future__ import annotations

import re

import pytest

import layoutcheck as lc
from layoutcheck.algebra.notation import parse_layout
from layoutcheck.cli import main
from layoutcheck.result import Verdict
from layoutcheck.spec.schema import ALL_PROPERTIES, PROPERTY_SPECS, kinds_of


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- wrong layouts are REFUTED (exit 1) with the element, never an ERROR (exit 2) ------------------------------------
@pytest.mark.parametrize(("layout", "lane", "addresses"), [
    # Sw<3,2,3> swaps 8-byte halves of the 16-byte ldmatrix row: lane 0 of instruction 1 reads row 0, columns 32..39
    ("Sw<3,2,3> o (64,64):(64,1)", 0, "[72, 74, 76, 78, 64, 66, 68, 70]"),
    # no mode steps by one element: the first row is 8 elements 4 bytes apart
    ("(64,64):(2,128)", 0, "[0, 4, 8, 12, 16, 20, 24, 28]"),
])
@pytest.mark.parametrize("prop", ["conflict_free", "wavefront_count"])
def test_a_split_ldmatrix_row_is_refuted_with_lane_and_addresses(capsys, layout, lane, addresses, prop):
    extra = ["--wavefronts", "32"] if prop == "wavefront_count" else []
    code, out, err = run(capsys, "prove", layout, "--property", prop, "--access", "ldsm_x4", "--dtype", "f16", *extra)
    assert (code, err) == (1, ""), err
    assert f"lane {lane}:" in out and addresses in out and "not one contiguous 16-byte row" in out


def test_a_finer_swizzle_is_refuted_at_every_engine(capsys):
    for engine in ("auto", "exhaustive", "linear"):
        code, out, _ = run(capsys, "prove", "Sw<3,2,3> o (64,64):(64,1)", "--property", "conflict_free", "--access",
                           "ldsm_x4", "--dtype", "f16", "--engine", engine)
        assert code == 1 and "REFUTED" in out, (engine, out)


def test_a_coarser_swizzle_keeps_rows_whole(capsys):
    code, out, _ = run(capsys, "prove", "Sw<3,3,3> o (64,64):(64,1)", "--property", "conflict_free", "--access",
                       "ldsm_x4", "--dtype", "f16")
    assert code == 0, out


def test_a_memory_layout_that_is_not_of_the_tile_is_refuted(tmp_path, capsys):
    spec = tmp_path / "m.toml"
    spec.write_text('format = 1\n[[config]]\nname = "m"\nkind = "tv"\ntv = "((4,8),(2,2)):((32,1),(16,8))"\n'
                    'tile = [16, 8]\nmemory = "(10,8):(8,1)"\ndtype = "f16"\n'
                    'properties = [{ name = "vectorizable", width = 4 }]\n')
    code, out, _ = run(capsys, "check", "-q", "-j", "1", str(spec))
    assert code == 1 and "REFUTED" in out
    assert "tile element (10,0) (index 10) is element (0,1) of memory layout (10,8):(8,1)" in out


# -- prove: every property runs from flags or says which spec kind it needs (exit 2, never 4) ------------------------
@pytest.mark.parametrize("prop", [p for p in ALL_PROPERTIES if PROPERTY_SPECS[p].prove is None])
def test_spec_only_properties_exit_2_naming_their_kind(capsys, prop):
    code, out, err = run(capsys, "prove", "(8,64):(64,1)", "--property", prop)
    kinds = kinds_of(prop)
    assert code == 2 and out == "" and "internal error" not in err
    assert f"kind {kinds[0]!r}" in err and "layoutcheck check" in err


@pytest.mark.parametrize(("argv", "flag"), [
    (["--property", "in_bounds"], "--bound"),
    (["--property", "composes"], "--lhs"),
    (["--property", "vectorizable", "--dtype", "f16"], "--width"),
])
def test_prove_errors_name_flags_not_spec_keys(capsys, argv, flag):
    code, _, err = run(capsys, "prove", "(8,64):(64,1)", *argv)
    assert code == 2 and flag in err
    assert "codomain'" not in err and "Layout(" not in err


def test_prove_composes_from_flags(capsys):
    code, out, _ = run(capsys, "prove", "(2,3):(6,3)", "--property", "composes", "--lhs", "(4,6,8):(2,3,5)",
                       "--rhs", "6:3")
    assert code == 1 and "index 2" in out


def test_prove_help_lists_every_property(capsys):
    code, out, _ = run(capsys, "prove", "--help")
    assert code == 0
    listed = re.findall(r"^  (\w+) ", out.split("properties (NAME of --property):")[1], re.M)
    assert listed == ALL_PROPERTIES


# -- calc: one expression per argument -----------------------------------------------------------------------------
def test_calc_evaluates_each_argument(capsys):
    code, out, err = run(capsys, "calc", "(8,64):(64,1)", "size((8,64):(64,1))")
    assert (code, out.split(), err) == (0, ["(8,64):(64,1)", "512"], "")


@pytest.mark.parametrize(("expr", "expected"), [
    ("size(Sw<3,3,3> o (8,64):(64,1))", "512"), ("rank(Sw<3,3,3> o (8,64):(64,1))", "2"),
    ("cosize(Sw<3,3,3> o (8,64):(64,1))", "512"), ("shape(Sw<3,3,3> o (8,64):(64,1))", "(8,64)"),
    ("depth(Sw<3,3,3> o 4 o ((2,4),64):((1,2),8))", "2"),
])
def test_calc_size_of_a_composed_layout(capsys, expr, expected):
    assert run(capsys, "calc", expr)[:2] == (0, expected + "\n")


# -- the Python API --------------------------------------------------------------------------------------------------
def test_a_result_has_no_truth_value():
    res = lc.prove(lc.bijective(lc.Layout((4, 8), (8, 2))))
    assert res.verdict is Verdict.REFUTED and not res.proven
    with pytest.raises(TypeError, match=r"result\.proven"):
        assert res
    with pytest.raises(TypeError, match="no truth value"):
        bool(lc.prove(lc.bijective(lc.Layout((4, 8), (8, 1)))))


@pytest.mark.parametrize("text", ["Sw<3,3,3> o (8,64):(64,1)", "Sw<2,2,3> o 32 o ((4,2),(8,4)):((2,1),(64,8))",
                                  "Sw<1,0,4> o 7:3"])
def test_a_composed_layouts_domain_is_its_inner_layouts(text):
    """CuTe (layout_composed.hpp): shape/size/rank/depth/cosize of ComposedLayout<A,O,B> are those of layout_b()."""
    c = parse_layout(text)
    assert (lc.size(c), lc.rank(c), lc.cosize(c), lc.depth(c)) == (
        lc.size(c.layout), lc.rank(c.layout), lc.cosize(c.layout), lc.depth(c.layout))
    assert all(lc.size(c, m) == lc.size(c.layout, m) for m in range(lc.rank(c)))


def test_prove_flags_are_the_registrys_inputs(capsys):
    """Every option of ``prove`` (besides --property and the engine's) is an input the registry declares, and its
    help names the properties that take it; a flag a property does not take is refused, naming the flag."""
    from layoutcheck.spec.schema import PROVE_KEYS, prove_inputs

    code, out, _ = run(capsys, "prove", "--help")
    declared = {p.flag for p in PROVE_KEYS} | {q.flag for s in PROPERTY_SPECS.values() for q in s.params if q.flag}
    options = set(re.findall(r"^  (--[a-z-]+)", out.split("properties (NAME of --property):")[0], re.M))
    assert code == 0 and options - {"--help", "--property", "--engine", "--timeout", "--memory"} == declared
    for prop in ALL_PROPERTIES:
        for i in prove_inputs(prop):
            assert re.search(rf"^  {i.flag}\b.*?\(([^()]*)\)\s*$", out, re.M | re.S), i.flag
    code, _, err = run(capsys, "prove", "(8,64):(64,1)", "--property", "injective", "--width", "16")
    assert code == 2 and "--width does not apply to property injective" in err
    code, _, err = run(capsys, "prove", "(8,64):(64,1)", "--property", "wavefront_count", "--dtype", "f16",
                       "--access", "ldsm_x4")
    assert code == 2 and "--wavefronts N" in err and "--max-wavefronts N" in err
