"""TileLang printouts (``repr`` of ``Layout`` / ``Fragment``): the real samples in ``tests/data/tilelang/`` (printed
by TileLang 0.1.15, ``generate.py``) read back, converted to CuTe and proven; malformed text names its token."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import layoutcheck
from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.linear_layout import LinearLayout
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.algebra.tiling import tile_to_shape
from layoutcheck.engines.prove import prove
from layoutcheck.errors import LayoutError, ParseError
from layoutcheck.expr.numpy import offsets_of as layoutcheck_offsets
from layoutcheck.hw.mma import mma_atom
from layoutcheck.hw.smem import gmma_smem_atom
from layoutcheck.importers.cute import from_cute
from layoutcheck.importers.tilelang import (
    TileLangFragment,
    TileLangLayout,
    find_printouts,
    forward,
    forward_offsets,
    from_tilelang,
    parse_tilelang,
    printout,
    tv_layout,
    tv_linear,
    tv_table,
)
from layoutcheck.importers.tilelang_tir import tir_printouts
from layoutcheck.properties.layout import bijective, equivalent, injective
from layoutcheck.properties.tv import exact_cover
from layoutcheck.result import Verdict
from layoutcheck.spec.values import parse_value

DATA = Path(__file__).parents[1] / "data" / "tilelang"
RECORD = re.compile(r"# name: (.*)\n(?:# cute: (.*)\n)?(?:# inverse: (.*)\n)?(.*)\n")


def records(name: str) -> list[tuple[str, str | None, str]]:
    return [(n, c or None, p) for n, c, _, p in RECORD.findall((DATA / name).read_text())]


SAMPLES = records("layouts.txt") + records("gemm_layout_map.txt")
BY_NAME = {n: p for n, _, p in SAMPLES}
INVERSES = [(n, inv, p) for f in ("layouts.txt", "gemm_layout_map.txt")
            for n, _, inv, p in RECORD.findall((DATA / f).read_text()) if inv]


def test_every_sample_reads_and_has_a_cute_or_linear_form():
    assert len(SAMPLES) == 115
    kinds = {"Layout": 0, "Fragment": 0}
    for name, _, text in SAMPLES:
        x = parse_tilelang(text)
        kinds[type(x).__name__.removeprefix("TileLang")] += 1
        got = forward(x)
        assert isinstance(got, (Layout, ComposedLayout, LinearLayout)), name
        if not isinstance(got, LinearLayout):
            assert np.array_equal(np.asarray(got.offsets()), forward_offsets(x)), name
    assert kinds == {"Layout": 96, "Fragment": 19}


@pytest.mark.parametrize(("name", "cute", "text"), [r for r in SAMPLES if r[1]], ids=lambda v: str(v)[:40])
def test_forward_equals_tilelangs_own_cute_form(name, cute, text):
    """TileLang's ``cute.Layout.from_tilelang`` / ``ComposedLayout.from_tilelang`` (printed beside each sample) is an
    oracle: for a Layout our CuTe form is the same layout, character for character; for a Fragment TileLang's form
    is the register index over the input shape, which our ``forward`` holds as ``slot // threads``."""
    x = parse_tilelang(text)
    ref = from_cute(cute).layout
    if isinstance(x, TileLangLayout):
        assert str(forward(x)) == str(ref)
    else:
        n_in = int(np.prod(x.input_shape))
        assert np.array_equal(np.asarray(ref.offsets()), forward_offsets(x)[:n_in] // x.thread)


def test_sample_values_evaluate_as_printed():
    x = parse_tilelang(BY_NAME["make_mma_swizzle_layout(float16 64x64)"])
    # (0, i, (j // 8 ^ i % 8) * 8 + j % 8) at i = 3, j = 9: (1 ^ 3) * 8 + 1 = 17 -> row-major 3 * 64 + 17
    assert forward_offsets(x)[3 + 64 * 9] == 3 * 64 + 17
    f = parse_tilelang(BY_NAME["T.Fragment([16, 16], thread=rep*32 + i%8*4 + j//4, index=i//8*4 + j%4, replicate=2)"])
    assert (f.replicate, f.thread, f.registers) == (2, 64, 8)
    # i = 9, j = 6, rep = 1: thread 32 + 1*4 + 1 = 37, register 1*4 + 2 = 6
    assert forward_offsets(f)[9 + 16 * 6 + 256 * 1] == 37 + 64 * 6


SWIZZLES = [("full", "128B"), ("half", "64B"), ("quarter", "32B")]


@pytest.mark.parametrize(("width", "mode"), SWIZZLES)
@pytest.mark.parametrize("dtype", ["float16", "int8", "float32"])
def test_tilelang_bank_swizzles_are_cutes_gmma_atoms(width, mode, dtype):
    """make_{full,half,quarter}_bank_swizzled_layout of a 64x64 buffer: PROVEN bijective, and PROVEN equal to CuTe's
    K-major GMMA atom of that swizzle width (``Sw<B,M,3>``, ``hw/smem.py``) tiled over the buffer."""
    bits = {"float16": 16, "int8": 8, "float32": 32}[dtype]
    text = BY_NAME.get(f"make_{width}_bank_swizzled_layout({dtype} 64x64)")
    if text is None:
        pytest.skip("TileLang refuses this width for this dtype (no sample)")
    got = forward(parse_tilelang(text))
    assert prove(bijective(got)).status is Verdict.PROVEN
    sw_atom = gmma_smem_atom("K", mode, bits).composed
    atom = ComposedLayout(sw_atom.swizzle, 0, tile_to_shape(sw_atom.layout, (64, 64)))
    assert prove(equivalent(got, atom)).status is Verdict.PROVEN
    assert isinstance(got, ComposedLayout) and got.swizzle == atom.swizzle


def test_gemm_shared_layouts_are_bijective_and_fragments_exact_covers():
    n = 0
    for name, _, text in records("gemm_layout_map.txt"):
        x = parse_tilelang(text)
        assert prove(bijective(forward(x))).status is Verdict.PROVEN, name
        if isinstance(x, TileLangFragment):
            cover = exact_cover(tv_layout(x), x.input_shape, x.replicate)
            assert prove(cover).status is Verdict.PROVEN, name
            n += 1
    assert n == 10


def test_tv_table_equals_tilelangs_own_inverse():
    """TileLang's ``Fragment.inverse()`` (printed beside each fragment sample) maps (register..., thread) to
    (i, j, ..., rep): at every point it names the element our TV table puts in that slot. The one fragment TileLang
    cannot invert (two elements in one slot) is the one whose TV table we refuse."""
    checked = 0
    for name, inv_text, text in INVERSES:
        f = parse_tilelang(text)
        if inv_text.startswith("(error"):
            with pytest.raises(LayoutError, match="one slot, two elements"):
                tv_table(f)
            continue
        inv = parse_tilelang(inv_text)
        assert inv.input_shape == (*f.output_shape, f.thread), name
        coords = [layoutcheck_offsets(e, inv.domain) for e in inv.forward_index]
        tile = np.zeros_like(coords[0])
        for c, n in zip(reversed(coords[:len(f.input_shape)]), reversed(f.input_shape), strict=True):
            tile = tile * n + c  # colexicographic: i + M*j
        regs, t = np.divmod(np.arange(tile.size), f.registers)  # inverse domain: registers fastest, then thread
        assert np.array_equal(tv_table(f)[regs + f.thread * t], tile), name
        checked += 1
    assert checked == 18


def test_8x8_fragment_is_the_mma_sync_accumulator():
    """make_gemm_fragment_8x8 is the upper half (rows 0-7) of the SM80 16x8 accumulator: for every (thread, value)
    with value < 2, CuTe's C layout of SM80_16x8x16 and TileLang's TV layout name the same (row, column)."""
    tl = tv_layout(parse_tilelang(BY_NAME["make_gemm_fragment_8x8()"]))
    c = mma_atom("SM80_16x8x16_F32F16F16F32_TN").tv_layout_C
    for t in range(32):
        for v in range(2):
            m, n = divmod(c(t + 32 * v), 16)[::-1]
            assert (m, n) == (tl(t + 32 * v) % 8, tl(t + 32 * v) // 8)


def test_broken_fragment_is_refuted_with_both_elements():
    f = parse_tilelang(BY_NAME["T.Fragment([16, 16], thread=i%8*4 + j//4, index=i//8*4 + j%4) (2 elements per slot: "
                               "broken)"])
    r = prove(bijective(forward(f)))
    assert r.status is Verdict.REFUTED
    with pytest.raises(LayoutError, match=r"\(_i=0, _j=0\) and \(_i=8, _j=0\) are both in thread 0, register 0"):
        tv_table(f)


def test_non_injective_layout_is_refuted():
    x = parse_tilelang(BY_NAME["T.Layout([8, 8], lambda i, j: [i // 2, j]) (not injective)"])
    r = prove(injective(forward(x)))
    assert r.status is Verdict.REFUTED
    assert (r.counterexample.data["i"], r.counterexample.data["j"]) == (0, 1)  # (i=0, j=0) and (i=1, j=0): both row 0


def test_swizzle_over_a_domain_that_is_not_a_power_of_two():
    """48 rows = 6 atoms of TileLang's 128-byte swizzle: no GF(2) form, found by the swizzle search, PROVEN
    bijective."""
    got = forward(parse_tilelang(BY_NAME["make_swizzled_layout(float16 48x64) (6 swizzle atoms: not a power of two)"]))
    assert str(got) == "Sw<3,3,3> o 0 o (48,64):(64,1)"
    assert prove(bijective(got)).status is Verdict.PROVEN


def test_volta_swizzle_is_linear_not_cute():
    """Three XOR terms: no single Sw<B,M,S>; the map is GF(2)-linear, so it stays a LinearLayout (and is proven)."""
    got = forward(parse_tilelang(BY_NAME["make_volta_swizzled_layout(float16 64x64)"]))
    assert isinstance(got, LinearLayout) and got.in_dims == ("_i", "_j")
    from layoutcheck.properties.linear import linear_property

    assert prove(linear_property("bijective", got)).status is Verdict.PROVEN


def test_tv_linear_is_tritons_view():
    f = parse_tilelang(BY_NAME["make_gemm_fragment_8x8()"])
    ll = tv_linear(f)
    assert ll.bases == {"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": []}
    rep = tv_linear(parse_tilelang(BY_NAME["... .replicate(2)"]))
    assert rep.bases["warp"] == [[0, 0], [0, 0]]  # 4 replicas: warps broadcast


def test_from_tilelang_is_exported_and_reads_objects_by_repr():
    class Obj:
        def __repr__(self) -> str:
            return BY_NAME["make_linear_layout(float16 64x64)"]

    assert layoutcheck.from_tilelang is from_tilelang
    assert str(forward(from_tilelang(Obj()))) == "(64,64):(64,1)"


def test_find_printouts_in_a_log():
    log = ("step 3: inferred\n  A_s: " + BY_NAME["make_linear_layout(float16 64x64)"] + "\n  C_l -> "
           + BY_NAME["make_gemm_fragment_8x8()"] + " done\nLayout(not one)\n")
    got = find_printouts(log)
    assert [ln for ln, _ in got] == [2, 3]
    assert isinstance(parse_tilelang(got[1][1]), TileLangFragment)


# -- spec values ------------------------------------------------------------------------------------------------
def test_spec_values():
    frag = BY_NAME["make_gemm_fragment_8x8()"]
    assert str(parse_value("layout", {"tilelang": BY_NAME["make_linear_layout(float16 64x64)"]})) == "(64,64):(64,1)"
    assert str(parse_value("tv", {"tilelang": frag})) == "((4,8),2):((16,1),8)"
    assert str(parse_value("layout", {"tilelang": frag})) == "(8,(2,4)):(4,(32,1))"
    with pytest.raises(ValueError, match="unknown key 'shape'"):
        parse_value("layout", {"tilelang": frag, "shape": [8, 8]})
    with pytest.raises(LayoutError, match="needs a TileLang Fragment"):
        parse_value("tv", {"tilelang": BY_NAME["make_linear_layout(float16 64x64)"]})


@pytest.mark.slow
def test_import_and_check_round_trip(tmp_path):
    """``layoutcheck import`` of the real sample files, then ``layoutcheck check`` of the spec: the GEMM layout maps
    are all PROVEN; the layouts file has exactly its two broken samples REFUTED."""
    for name, want_rc, refuted in (("gemm_layout_map.txt", 0, 0), ("layouts.txt", 1, 2),
                                   ("annotate_layout_sm80.tir", 0, 0)):
        spec = tmp_path / (name + ".toml")
        run = [sys.executable, "-m", "layoutcheck"]
        subprocess.run([*run, "import", str(DATA / name), "-o", str(spec)], check=True, timeout=300)
        assert 'tilelang = "' in spec.read_text()
        got = subprocess.run([*run, "check", str(spec)], capture_output=True, text=True)
        assert got.returncode == want_rc, got.stdout[-2000:]
        assert f"{refuted} refuted" in got.stdout


# -- malformed text ---------------------------------------------------------------------------------------------
BAD = [  # (text, what the message says, the token the caret points at)
    ("Layuot((4,) -> (4,), transform: (_i,) -> (_i,))", "expected a TileLang 'Layout(' or 'Fragment('", "Layuot"),
    ("Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8 + _q,))", "unknown variable '_q'", "_q"),
    ("Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8 + ,))", "expression ends early", " ,))"),
    ("Layout((4, n) -> (32,), transform: (_i, _j) -> (_i * 8 + _j,))", "static integer, found 'n'", "n)"),
    ("Layout((4, 8) -> (32,), transform: (_i, _j) -> (T.popcount(_i),))", "unsupported call T.popcount()",
     "T.popcount"),
    ("Layout((4, 8) -> (32,), transform: (_i, _j) -> (T.max(_i),))", "unsupported call T.max() with 1", "T.max"),
    ("Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8 + _j,)", "is never closed", "((4, 8)"),
    ("Layout((4, 8) => (32,), transform: (_i, _j) -> (_i * 8 + _j,))", "expected '->'", "(4, 8) =>"),
    ("Layout((4, 8) -> (32,), transfrom: (_i, _j) -> (_i * 8 + _j,))", "expected 'transform:', found 'transfrom'",
     "transfrom"),
    ("Layout((4, 8) -> (32,), transform: (_i) -> (_i,))", "1 variables for a 2-dimensional input shape", "(_i) ->"),
    ("Layout((4, 8) -> (32,), transform: (_i, 2) -> (_i,))", "expected a variable name, found '2'", "2)"),
    ("Layout((4, 8) -> (32, 1), transform: (_i, _j) -> (_i * 8 + _j,))", "1 index expressions for a 2-dim",
     "(_i * 8"),
    ("Fragment((8, 8) -> (2,), replicate: 1, threads: 32, forward_thread: _i, forward_index: (_j % 2,))",
     "expected 'thread:', found 'threads'", "threads"),
    ("Fragment((8, 8) -> (2,), replicate: 1, thread: 32, forward_thread: _i * 4 + _k, forward_index: (_j % 2,))",
     "unknown variable '_k'", "_k"),
    ("Fragment((8, 8) -> (2,), replicate: 1, thread: 32, forward_thread: _i, forward_index: (_j % 2,)) extra",
     "unexpected text after the Fragment printout", "extra"),
    ("Fragment((8, 8) -> (2,), replicate: 1, thread: 32, forward_thread: _i, forward_index: (_j % 2,), "
     "thread_range: 0..128)", "expected thread_range I.Range(begin, end), found '0..128'", "0..128"),
    ("Fragment((8, 8) -> (2,), replicate: 1, thread: 32, forward_thread: T.bitwise_xor(_i, _j, _i), "
     "forward_index: (_j % 2,))", "unsupported call T.bitwise_xor() with 3 argument(s)", "T.bitwise_xor"),
]


@pytest.mark.parametrize(("text", "what", "token"), BAD)
def test_malformed_text_names_the_token(text, what, token):
    with pytest.raises(ParseError) as e:
        parse_tilelang(text)
    assert what in str(e.value)
    assert e.value.pos == text.index(token), str(e.value)


# -- lowered TIR (layout_map attributes, show_meta=True) ----------------------------------------------------------
def tir(name: str) -> str:
    return (DATA / f"{name}.tir").read_text()


def test_tir_layout_maps_equal_the_printed_layouts():
    """The layout_map of the lowered sm_80 GEMM (read from its TVM JSON metadata) holds the very layouts TileLang
    printed for that kernel (``gemm_layout_map.txt``), point for point; the annotated copy kernel holds the
    ``make_mma_swizzle_layout`` printed alone."""
    got = dict(tir_printouts(tir("gemm_sm80_f16")))
    assert list(got) == ["A_s (2, 64, 32) float16 shared.dyn", "B_s (2, 32, 64) float16 shared.dyn",
                         "C_l (64, 64) local.fragment"]
    for buf, body in got.items():
        ref = BY_NAME[f"sm_80 gemm 64x64x32 float16->float32 128 threads: {buf.split()[0]} "
                      + {"A_s": "[2, 64, 32] float16 shared.dyn", "B_s": "[2, 32, 64] float16 shared.dyn",
                         "C_l": "[64, 64] float32 local.fragment"}[buf.split()[0]]]
        assert np.array_equal(forward_offsets(parse_tilelang(body)), forward_offsets(parse_tilelang(ref))), buf
    ann = dict(tir_printouts(tir("annotate_layout_sm80")))
    a_s = parse_tilelang(ann["A_s (64, 64) float16 shared.dyn"])
    assert np.array_equal(forward_offsets(a_s), forward_offsets(parse_tilelang(
        BY_NAME["make_mma_swizzle_layout(float16 64x64)"])))
    assert str(forward(a_s)) == "Sw<3,3,3> o 0 o (64,64):(64,1)"
    frag = parse_tilelang(ann["B_l (64, 64) float16 local.fragment"])
    assert prove(exact_cover(tv_layout(frag), (64, 64), 1)).status is Verdict.PROVEN


def test_tir_sm90_gemm_is_proven():
    got = tir_printouts(tir("gemm_sm90_f16"))
    assert len(got) == 3
    for buf, body in got:
        assert prove(bijective(forward(parse_tilelang(body)))).status is Verdict.PROVEN, buf


def test_tir_without_metadata_or_with_an_unknown_node():
    text = tir("gemm_sm80_f16")
    body = text[text.index("# from tvm.script"):]
    with pytest.raises(ParseError, match=r"show_meta=True"):
        tir_printouts(body)
    with pytest.raises(LayoutError, match=r"metadata node \d+ is a tirx.Ramp"):
        tir_printouts(text.replace("tirx.FloorMod", "tirx.Ramp", 1))
    with pytest.raises(ParseError, match="malformed TVM JSON"):
        tir_printouts(text.replace('\\"nodes\\"', '\\"nodez\\"'))


def test_values_beyond_the_printed_extents_are_named():
    """A thread past ``thread`` would alias another thread's register (slot = thread + T * register): refused,
    naming the element; likewise an output coordinate past its printed extent."""
    f = parse_tilelang("Fragment((8, 8) -> (2,), replicate: 1, thread: 16, forward_thread: _i * 4 + _j // 2, "
                       "forward_index: (_j % 2,))")
    with pytest.raises(LayoutError, match=r"the thread of \(_i=4, _j=0\) is 16, outside its printed extent 16"):
        forward(f)
    x = parse_tilelang("Layout((4, 8) -> (4, 7), transform: (_i, _j) -> (_i, _j))")
    with pytest.raises(LayoutError, match=r"output coordinate 1 of \(_i=0, _j=7\) is 7, outside its printed extent 7"):
        forward(x)


def test_fit_ladder():
    """Plain, swizzled and linear-only tables, and one that is none of them."""
    from layoutcheck.importers.fit import fit

    assert str(fit(np.array([0, 3, 1, 4, 2, 5]), [("a", 2), ("b", 3)], [("offset", 6)])) == "(2,3):(3,1)"
    assert str(fit(np.array([0, 0, 1, 1]), [("a", 4)], [("offset", 2)])) == "(2,2):(0,1)"
    with pytest.raises(LayoutError, match="no CuTe layout"):
        fit(np.array([0, 2, 1]), [("a", 3)], [("offset", 3)])


def test_annotated_copy_is_conflict_free_only_with_the_swizzle():
    """The annotated kernel copies A_s (make_mma_swizzle_layout) into the fragment B_l (16 contiguous f16 per thread):
    with TileLang's swizzle every lds128 needs its ideal 4 wavefronts (PROVEN); the same fragment from the plain
    row-major buffer (make_linear_layout) needs 8 (REFUTED: lanes 0 and 4 in bank 0)."""
    from layoutcheck.importers.tilelang import shared_linear
    from layoutcheck.properties.linear import LinearConflictFree

    got = dict(tir_printouts(tir("annotate_layout_sm80")))
    frag = tv_linear(parse_tilelang(got["B_l (64, 64) float16 local.fragment"]))
    swizzled = shared_linear(parse_tilelang(got["A_s (64, 64) float16 shared.dyn"]))
    assert prove(LinearConflictFree(frag, swizzled, 16)).status is Verdict.PROVEN
    assert prove(LinearConflictFree(frag, swizzled, 16, "st")).status is Verdict.PROVEN
    plain = shared_linear(parse_tilelang(BY_NAME["make_linear_layout(float16 64x64)"]))
    r = prove(LinearConflictFree(frag, plain, 16))
    assert r.status is Verdict.REFUTED
    assert "lanes [0, 4] hit bank 0" in r.counterexample.text
    with pytest.raises(LayoutError, match="not GF\\(2\\)-linear"):
        shared_linear(parse_tilelang(BY_NAME["make_swizzled_layout(float16 128x72) (padded)"]))


def test_square_bracket_arrays_and_int_literals():
    """Other TVM versions print arrays as ``[..]`` and constants as ``T.int32(k)``: the same values."""
    a = parse_tilelang("Layout([4, 8] -> [32], transform: [_i, _j] -> [_i * T.int32(8) + _j])")
    b = parse_tilelang("Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8 + _j,))")
    assert np.array_equal(forward_offsets(a), forward_offsets(b))
    assert str(forward(a)) == "(4,8):(8,1)"


def test_printout_round_trips_every_sample():
    """Each sample, written back in TileLang's form by ``printout`` and read again, is the same map; the written
    form is a fixed point."""
    for name, _, text in SAMPLES:
        x = parse_tilelang(text)
        again = parse_tilelang(printout(x))
        assert np.array_equal(forward_offsets(again), forward_offsets(x)), name
        assert printout(again) == printout(x), name
        assert (again.input_shape, again.output_shape) == (x.input_shape, x.output_shape)


def legacy_form(x: TileLangLayout | TileLangFragment) -> str:
    """``x`` in the one-line form TileLang printed before mid-2025, written from that version's C++
    (``src/layout/layout.cc`` at tile-ai/tilelang 094796b6, ``DebugOutput``): NOT a TileLang printout, a rendering
    of our value in that grammar, with TVM's ``[..]`` arrays."""
    from layoutcheck.expr.tir import tir_expr

    def arr(xs):
        return "[" + ", ".join(map(str, xs)) + "]"

    index = arr([tir_expr(e) for e in x.forward_index])
    if isinstance(x, TileLangLayout):
        return f"Layout Shape: {arr(x.input_shape)} -> {arr(x.output_shape)} -> {index}"
    rng = "(nullptr)" if x.thread_range is None else f"range(min={x.thread_range[0]}, ext={x.thread_range[1]})"
    return (f"Fragment Shape: {arr(x.input_shape)} -> {arr(x.output_shape)} -> replicate: {x.replicate} -> thread: "
            f"{x.thread} -> forward_thread: {tir_expr(x.forward_thread)} -> forward_index: {index} -> thread_range: "
            f"{rng}")


def test_the_older_one_line_form_reads_the_same():
    for name, _, text in SAMPLES:
        x = parse_tilelang(text)
        old = parse_tilelang(legacy_form(x))
        assert np.array_equal(forward_offsets(old), forward_offsets(x)), name
    log = "\n".join(["[debug] " + legacy_form(parse_tilelang(p)) for _, _, p in SAMPLES[:5]])
    assert [ln for ln, _ in find_printouts(log)] == [1, 2, 3, 4, 5]
    with pytest.raises(ParseError, match="at least three '->'-separated fields"):
        parse_tilelang("Layout Shape: [64, 64] -> [4096]")
    with pytest.raises(ParseError, match="expected 'replicate:', found 'replicat'"):
        parse_tilelang("Fragment Shape: [16, 16] -> [8] -> replicat: 1 -> thread: 32 -> forward_thread: _i -> "
                       "forward_index: [_j] -> thread_range: (nullptr)")
