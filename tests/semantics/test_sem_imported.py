"""Semantics of the imported-layout claims (Triton TTGIR, TileLang printouts).

Authorities: Triton's own ``LinearLayout`` for an encoding (``toLinearLayout``, reached through Gluon's Python API on
a CPU: a test-only oracle), Triton's verifier (``parse_mlir_module`` rejects a tensor whose layout has other lanes,
warps or CTAs than its module: "Layout has 64 threads per warp, but the module specifies 32"), the CUDA programming
model (each CTA of a cluster has its own shared memory, so a shared layout is a bijection *per CTA*), and TileLang's
printout (its declared output extents are what TileLang allocates). The naive oracles below read the oracle's bases
and enumerate every input; they share no code with ``layoutcheck.properties``, ``.models`` or ``.engines``.
"""

from __future__ import annotations

import itertools
from math import prod

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck.engines.prove import prove
from layoutcheck.importers.triton import from_triton
from layoutcheck.properties.linear import linear_property
from layoutcheck.properties.ttgir import ttgir_claims
from layoutcheck.result import Verdict
from tests.strategies_sem_imported import (
    Module,
    blocked,
    modules_and_blocked,
    shapes,
    swizzled,
    tilelang_fragments,
    tilelang_layouts,
    unknown_encodings,
)

gl = pytest.importorskip("triton.experimental.gluon.language")
libtriton = pytest.importorskip("triton._C.libtriton")


@pytest.fixture(scope="module")
def builder():
    ctx = libtriton.ir.context()  # kept alive with the builder (a freed context crashes the builder)
    libtriton.ir.load_dialects(ctx)
    return ctx, libtriton.gluon_ir.GluonOpBuilder(ctx)


def triton_bases(builder, layout, shape) -> dict[str, list[list[int]]]:
    b = builder[1]
    got = b.to_linear_layout(layout._to_ir(b), list(shape))
    if hasattr(got, "reg_bases"):
        return {"register": got.reg_bases, "lane": got.lane_bases, "warp": got.warp_bases, "block": got.block_bases}
    return {"offset": got.offset_bases, "block": got.block_bases}


# -- naive definitions, over every input ----------------------------------------------------------------------------
def apply(bases: dict[str, list[list[int]]], ins: dict[str, int], rank: int) -> tuple[int, ...]:
    """Triton's definition of a linear layout: XOR of the bases of the set bits of each input."""
    out = [0] * rank
    for name, v in ins.items():
        for k, b in enumerate(bases.get(name, [])):
            if v >> k & 1:
                out = [o ^ x for o, x in zip(out, b, strict=True)]
    return tuple(out)


def inputs(bases: dict[str, list[list[int]]], names: list[str]):
    for vals in itertools.product(*(range(1 << len(bases.get(n, []))) for n in names)):
        yield dict(zip(names, vals, strict=True))


def naive_exact_cover(bases, shape) -> bool:
    """Every element owned; two owners of one element differ only in bits whose basis is zero (a broadcast)."""
    names = list(bases)
    zero = {(n, k) for n in names for k, b in enumerate(bases[n]) if not any(b)}
    owners: dict[tuple[int, ...], dict[str, int]] = {}
    for ins in inputs(bases, names):
        y = apply(bases, ins, len(shape))
        if y in owners:
            first = owners[y]
            for n in names:
                diff = first[n] ^ ins[n]
                if any(diff >> k & 1 and (n, k) not in zero for k in range(len(bases[n]))):
                    return False
        else:
            owners[y] = ins
    return len(owners) == prod(shape)


def naive_shared_bijective(bases, shape) -> bool:
    """Per CTA (one value of ``block``): distinct offsets hold distinct elements; every element held by a CTA."""
    held = set()
    for blk in range(1 << len(bases.get("block", []))):
        mine = set()
        for off in range(1 << len(bases["offset"])):
            y = apply(bases, {"offset": off, "block": blk}, len(shape))
            if y in mine:
                return False
            mine.add(y)
        held |= mine
    return len(held) == prod(shape) and all(all(0 <= c < s for c, s in zip(y, shape, strict=True)) for y in held)


def required(text: str):
    return [c for c in ttgir_claims(text).claims if c.required]


# -- Triton encodings: the map is Triton's, the claim the naive one -------------------------------------------------
@given(blocked(), shapes(hi=5))
def test_blocked_with_a_cluster_is_tritons_layout_and_its_exact_cover(builder, enc, shape):
    want = triton_bases(builder, gl.BlockedLayout(enc.spt, enc.tpw, enc.wpc, enc.order, enc.cga), shape)
    ll = from_triton(enc.text(), shape)
    assert {n: b for n, b in ll.bases.items() if n in want} == want
    text = Module(32, prod(enc.wpc), 1 << len(enc.cga)).wrap([enc.text()], [f"tensor<{_t(shape)}x!tt.ptr<f32>, #e0>"])
    (claim,) = required(text)
    assert claim.prop.name == "exact_cover"
    assert (prove(claim.prop).status is Verdict.PROVEN) == naive_exact_cover(want, shape)


@given(swizzled(), shapes(lo=2, hi=6))
def test_shared_with_a_cluster_is_bijective_per_cta(builder, enc, shape):
    """A ``CGALayout`` basis that replicates the tile (zero) or splits it: each CTA's offsets hold distinct elements,
    the CTAs together hold the tensor; the verdict on Triton's layout equals the naive per-CTA one."""
    want = triton_bases(builder, gl.SwizzledSharedLayout(enc.vec, enc.per_phase, enc.max_phase, enc.order, enc.cga),
                        shape)
    ll = from_triton(enc.text(), shape)
    assert ll.bases == want
    naive = naive_shared_bijective(want, shape)
    text = Module(32, 4, 1 << len(enc.cga)).wrap(
        [enc.text()], []).replace("    tt.return", f"    %a = ttg.local_alloc : () -> !ttg.memdesc<{_t(shape)}xf16, "
                                                  "#e0, #smem, mutable>\n    tt.return")
    (claim,) = required(text)
    assert claim.prop.name == "bijective"
    assert (prove(claim.prop).status is Verdict.PROVEN) == naive
    assert (prove(linear_property("bijective", ll)).status is Verdict.PROVEN) == naive  # the spec road


@st.composite
def shared_linear(draw):
    """A ``#ttg.shared_linear`` with offset bases that may collide (a broken variant) and block bases that may
    replicate, split or collide with the offsets (correct per CTA)."""
    rank_bits = [draw(st.integers(0, 3)), draw(st.integers(0, 3))]
    units = [[1 << k, 0] for k in range(rank_bits[0])] + [[0, 1 << k] for k in range(rank_bits[1])]
    offset = draw(st.permutations(units)) if units else []
    if offset and draw(st.booleans()):  # a collision inside one CTA, or a dropped element
        k = draw(st.integers(0, len(offset) - 1))
        offset = [*offset[:k], draw(st.sampled_from([offset[0], [0, 0]])), *offset[k + 1:]]
    block = draw(st.lists(st.sampled_from([[0, 0], *(units or [[0, 0]])]), max_size=2))
    return offset, block, (1 << rank_bits[0], 1 << rank_bits[1])


@given(shared_linear())
def test_shared_linear_per_cta_matches_naive(sl):
    offset, block, shape = sl
    text = f"#ttg.shared_linear<{{offset = {offset}, block = {block}}}>"
    ll = from_triton(text, shape)
    naive = naive_shared_bijective({"offset": offset, "block": block}, shape)
    got = prove(linear_property("bijective", ll))
    assert (got.status is Verdict.PROVEN) == naive, (text, shape, str(got))


# -- encodings that contradict their module: Triton's verifier is the authority ------------------------------------
def triton_accepts(text: str, tmp_path) -> bool:
    path = tmp_path / "m.ttgir"
    path.write_text(text)
    ctx = libtriton.ir.context()
    libtriton.ir.load_dialects(ctx)
    try:
        libtriton.ir.parse_mlir_module(str(path), ctx)
    except RuntimeError:
        return False
    return True


@given(modules_and_blocked())
def test_an_encoding_that_contradicts_its_module_is_refuted(tmp_path_factory, case):
    module, enc, shape = case
    text = module.wrap([enc.text()], [f"tensor<{_t(shape)}x!tt.ptr<f32>, #e0>"])
    naive = (prod(enc.tpw) == module.threads and prod(enc.wpc) == module.warps and 1 << len(enc.cga) == module.ctas)
    assert triton_accepts(text, tmp_path_factory.mktemp("m")) == naive
    (claim,) = required(text)  # one row either way
    r = prove(claim.prop)
    if naive:
        assert claim.prop.name == "exact_cover"
        return
    assert claim.prop.name == "consistent_with_module" and r.status is Verdict.REFUTED
    w = r.counterexample.data
    attr, mine, theirs = {"lane": ("threadsPerWarp", prod(enc.tpw), module.threads),
                          "warp": ("warpsPerCTA", prod(enc.wpc), module.warps),
                          "block": ("CGALayout", 1 << len(enc.cga), module.ctas)}[w["dim"]]
    assert (w["attribute"], w["encoding"], w["module"]) == (attr, mine, theirs) and mine != theirs


# -- unmodelled encodings: counted rows -----------------------------------------------------------------------------
@given(st.lists(unknown_encodings(), min_size=1, max_size=3), st.lists(blocked(warps_bits=2), max_size=3))
def test_a_file_with_n_layouts_yields_n_rows(unknown, known):
    encs = [t for t, _ in unknown] + [b.text() for b in known]
    uses = [f"tensor<64x64xf32, #e{k}>" for k in range(len(encs))]
    rows = [(c, prove(c.prop)) for c in required(Module(32, 4, 1).wrap(encs, uses).replace(
        "!tt.ptr<f32> -> tensor<64x64xf32", "f32 -> tensor<64x64xf32"))]
    assert len(rows) == len(encs)
    assert [c.subject.split()[0] for c, _ in rows] == [f"#e{k}" for k in range(len(encs))]
    for (_c, r), (_, what) in zip(rows, unknown, strict=False):
        assert r.status is Verdict.UNKNOWN and "not modelled" in r.reason and what in r.reason
    for c, r in rows[len(unknown):]:
        assert r.status is not Verdict.UNKNOWN, (c.subject, r.reason)


# -- TileLang printouts: the declared extents are the codomain, on every road ---------------------------------------
def _spec_row(tmp_path, text: str, prop: str):
    from layoutcheck.check import check_paths

    p = tmp_path / "t.toml"
    p.write_text(f'format = 1\n[[config]]\nname = "x"\nkind = "layout"\nlayout = {{ tilelang = "{text}" }}\n'
                 f'properties = ["{prop}"]\n')
    (row,) = check_paths([str(p)])
    return row


@given(st.one_of(tilelang_layouts(), tilelang_fragments()))
def test_tilelang_bijective_is_onto_the_declared_extents(tmp_path_factory, case):
    from layoutcheck.importers.tilelang import parse_tilelang
    from layoutcheck.properties.tilelang import tilelang_property

    text, points, slots = case
    naive = points == slots  # every map here is in bounds and one to one by construction
    row = _spec_row(tmp_path_factory.mktemp("t"), text, "bijective")
    assert row.status == ("PROVEN" if naive else "REFUTED"), (text, row)
    assert (prove(tilelang_property("bijective", parse_tilelang(text))).status is Verdict.PROVEN) == naive
    assert _spec_row(tmp_path_factory.mktemp("t"), text, "injective").status == "PROVEN"


def _t(shape) -> str:
    return "x".join(map(str, shape))
