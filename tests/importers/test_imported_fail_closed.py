"""Importers fail closed (issue #25): every layout of a ``.ttgir`` file yields a row (UNKNOWN where it is not
modelled, REFUTED ``consistent_with_module`` where it contradicts its module), shared-memory claims hold per CTA
(``num_ctas = 2``), and a TileLang printout's declared extents reach the spec road."""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutcheck.engines.prove import prove
from layoutcheck.errors import ParseError
from layoutcheck.importers.tilelang import as_subject, parse_tilelang
from layoutcheck.importers.triton import from_triton, import_ttgir
from layoutcheck.properties.linear import LinearInjective, LinearSharedBijective, linear_property
from layoutcheck.properties.ttgir import NotModelled, ttgir_claims
from layoutcheck.result import Verdict
from layoutcheck.spec.imported import spec_from_ttgir

DATA = Path(__file__).parents[1] / "data" / "ttgir"
MODULE = ('module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
          '"ttg.threads-per-warp" = 32 : i32}} {{\n  tt.func public @k(%p: f32) {{\n{body}\n    tt.return\n  }}\n}}\n')
MIXED = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#good = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mfma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>
#mma7 = #ttg.nvidia_mma<{versionMajor = 7, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#dot = #ttg.dot_op<{opIdx = 0, parent = #mfma, kWidth = 4}>
""" + MODULE.format(body="\n".join(f"    %{k} = tt.splat %p : f32 -> tensor<64x64xf32, #{e}>"
                                   for k, e in enumerate(["blocked", "good", "mfma", "mma7", "dot"])))


def rows(text: str):
    return [(c, prove(c.prop)) for c in ttgir_claims(text).claims if c.required]


def test_a_file_with_n_layouts_yields_n_rows():
    got = rows(MIXED)
    assert [c.subject.split()[0] for c, _ in got] == ["#blocked", "#good", "#mfma", "#mma7", "#dot"]
    verdicts = [(c.prop.name, r.status) for c, r in got]
    assert verdicts == [("consistent_with_module", Verdict.REFUTED), ("exact_cover", Verdict.PROVEN),
                        ("exact_cover", Verdict.UNKNOWN), ("exact_cover", Verdict.UNKNOWN),
                        ("exact_cover", Verdict.UNKNOWN)]
    for (c, r), what in zip(got[2:], ["#ttg.amd_mfma", "versionMajor 7", "#ttg.dot_op"], strict=True):
        assert "not modelled" in r.reason and what in r.reason, r.reason
        assert what in str(c.prop)  # the claim itself names it (any engine, any report)


def test_a_contradiction_names_the_attribute_and_both_values():
    (_c, r) = rows(MIXED)[0]
    want = {"attribute": "threadsPerWarp", "encoding": 64, "module": 32, "module_attribute": "ttg.threads-per-warp"}
    assert want.items() <= r.counterexample.data.items()
    assert "threadsPerWarp gives 64 threads per warp" in str(r.counterexample)
    assert "ttg.threads-per-warp = 32" in str(r.counterexample)


def test_warps_and_ctas_contradictions():
    text = ("#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0], "
            "CGALayout = [[1]]}>\n" + MODULE.format(body="    %0 = tt.splat %p : f32 -> tensor<512xf32, #b>"))
    ((_c, r),) = rows(text)
    assert r.status is Verdict.REFUTED and r.counterexample.data["dim"] == "warp"
    assert r.counterexample.data["module"] == 4 and r.counterexample.data["encoding"] == 8
    ((_c, r),) = rows(text.replace('"ttg.num-warps" = 4', '"ttg.num-warps" = 8'))
    assert r.counterexample.data["dim"] == "block" and r.counterexample.data["encoding"] == 2


def test_a_warp_specialize_partition_may_use_its_own_warp_count():
    text = ("#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>\n"
            + MODULE.format(body="    %0 = tt.splat %p : f32 -> tensor<256xf32, #b>\n    // partition0() num_warps(8)"))
    ((c, r),) = rows(text)
    assert c.prop.name == "exact_cover" and r.status is Verdict.PROVEN


def test_not_modelled_is_unknown_on_every_engine():
    p = NotModelled("#x 4x4xf32 (#ttg.amd_mfma)", "unsupported encoding #ttg.amd_mfma")
    for engine in ("auto", "structural", "linear", "exhaustive", "z3", "sympy"):
        assert prove(p, engine=engine).status is Verdict.UNKNOWN
    assert "not modelled" in prove(p, engine="exhaustive").reason


def test_num_ctas_2_matmul_holds_per_cta():
    text = (DATA / "matmul_fp16_128x128x64_w4_sm90_ctas2.ttgir").read_text()
    got = rows(text)
    assert got and all(r.status is Verdict.PROVEN for _, r in got), [(c.subject, str(r)) for c, r in got]
    shared = [c for c, _ in got if isinstance(c.prop, LinearSharedBijective)]
    replicated = [c for c in shared if any(not any(b) for b in c.prop.layout.bases["block"])]
    assert replicated  # the A tile: both CTAs hold it, which is correct (each has its own shared memory)
    assert prove(LinearInjective(replicated[0].prop.layout)).status is Verdict.REFUTED  # the old, whole-cluster claim


def test_per_cta_claims_refute_a_collision_inside_one_cta():
    ll = from_triton("#ttg.shared_linear<{offset = [[0, 1], [0, 1], [1, 0]], block = [[0, 0]]}>", [2, 4])
    r = prove(linear_property("bijective", ll))
    assert r.status is Verdict.REFUTED and "in every CTA" in str(r.counterexample)
    assert prove(linear_property("injective", ll)).status is Verdict.REFUTED
    ok = from_triton("#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0]], block = [[0, 1]]}>", [2, 4])
    assert prove(linear_property("bijective", ok)).status is Verdict.PROVEN  # CTA 1 holds what CTA 0 holds, XORed
    missing = from_triton("#ttg.shared_linear<{offset = [[0, 1], [1, 0]], block = [[0, 0]]}>", [2, 4])
    r = prove(linear_property("bijective", missing))
    assert r.status is Verdict.REFUTED and "no offset of any CTA" in str(r.counterexample)


def test_a_multi_buffered_nvmma_allocation_is_read_on_its_buffer():
    text = ("#s = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 32}>\n"
            + MODULE.format(body="    %0 = ttg.local_alloc : () -> !ttg.memdesc<3x64x32xf32, #s, #smem, mutable>"))
    (imp,) = import_ttgir(text)
    assert imp.layout is not None and imp.layout.out_shape == (64, 32)


def test_the_spec_road_keeps_unmodelled_layouts():
    spec = spec_from_ttgir(MIXED)
    assert spec.count("[[config]]") == 5 and "not modelled" in spec and "contradicts its module" in spec


@pytest.mark.parametrize("text, onto", [
    ("Layout((4, 8) -> (64,), transform: (_i, _j) -> (_i * 8 + _j,))", False),
    ("Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8 + _j,))", True),
    ("Fragment((8, 8) -> (4,), replicate: 1, thread: 32, forward_thread: _i * 4 + _j // 2, "
     "forward_index: (_j % 2,))", False),
])
def test_tilelang_declared_extents_reach_the_spec_road(text, onto):
    from layoutcheck.properties.tilelang import tilelang_property

    x = parse_tilelang(text)
    value = as_subject(x)
    assert (value is x) is not onto  # a CuTe layout only where it has as many points as printed slots
    assert (prove(tilelang_property("bijective", x)).status is Verdict.PROVEN) is onto


BROKEN = Path(__file__).parents[2] / "specs" / "broken"


def test_the_broken_ttgir_is_refuted_row_by_row():
    got = rows((BROKEN / "imported_module_contradiction.ttgir").read_text())
    assert [(c.prop.name, r.status, (r.counterexample.data["dim"] if r.counterexample else None)) for c, r in got] == [
        ("consistent_with_module", Verdict.REFUTED, "lane"), ("consistent_with_module", Verdict.REFUTED, "warp"),
        ("consistent_with_module", Verdict.REFUTED, "block"), ("exact_cover", Verdict.PROVEN, None)]


def test_the_broken_imported_specs():
    from layoutcheck.check import check_paths

    got = {(r.config, r.property): r.status for r in check_paths([str(BROKEN / "imported_tilelang_extents.toml"),
                                                                  str(BROKEN / "imported_triton_shared_per_cta.toml")])}
    assert got == {("layout_64_slots_for_32_points", "bijective"): "REFUTED",
                   ("layout_64_slots_for_32_points", "injective"): "PROVEN",
                   ("fragment_4_registers_for_2", "bijective"): "REFUTED",
                   ("two_offsets_one_element", "bijective"): "REFUTED",
                   ("no_cta_holds_column_2", "bijective"): "REFUTED",
                   ("cluster_replicates_the_tile", "bijective"): "PROVEN",
                   ("cluster_replicates_the_tile", "injective"): "PROVEN"}


def test_a_truncated_tilelang_printout_is_a_row_not_a_gap():
    from layoutcheck.properties.tilelang import tilelang_claims
    from layoutcheck.spec.imported import spec_from_tilelang

    log = ("ok: Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8 + _j,))\n"
           "cut: Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8\n")
    with pytest.raises(ParseError, match="never closed"):  # unreadable: an ERROR, not a shorter list of claims
        tilelang_claims(log)
    assert spec_from_tilelang(log).count("[[config]]") == 2  # the spec keeps it: checking it gives its ERROR row
