"""Semantics of ``equivalent`` between any two layout forms, and of the claims on index formulas.

Authorities: CuTe's layout function (a flat index read colexicographically, first mode fastest; offset
``sum c_k * d_k``; ``Sw<B,M,S>``: ``x ^ ((x & (2^B-1) << (M+S)) >> S)``), Triton's ``LinearLayout`` (the XOR of the
bases of the set bits of each input; ``flattenIns`` puts the first input dimension lowest, ``flattenOuts`` ``dim0``
fastest), the formula's own text read by Python (``/`` is floor division), and the definition of the claim
(``properties/equivalence.py``): ``size(A) == size(B)`` and ``A(i) == B(i)`` for every flat index; two Triton layouts
on their own input dimensions; a Triton layout against another form in CuTe's ``(thread, value)`` order
(``lane, warp, register``). The naive oracles below enumerate every point; they share no code with
``layoutcheck.properties``, ``.models`` or ``.engines`` (the layouts are built with the algebra, the formulas parsed).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.linear_layout import LinearLayout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.engines.prove import prove
from layoutcheck.expr.formula import parse_formula
from layoutcheck.importers.triton import from_triton
from layoutcheck.properties.banks import conflict_free
from layoutcheck.properties.formula import formula_property
from layoutcheck.properties.layout import equivalent
from tests.semantics.test_sem_banks import _cost, canonical_access
from tests.strategies_sem_banks import KIND_BYTES, smem_tiles
from tests.strategies_sem_equivalence import (
    coords,
    cute_and_formula,
    expressions,
    formula_pairs,
    indicator,
    linear_pairs,
)

pytest.importorskip("z3")


# -- naive evaluators: every point, straight from the definitions ---------------------------------------------------
def _points(cs):
    n = 1
    for _, e in cs:
        n *= e
    for flat in range(n):
        env, rest = {}, flat
        for name, e in cs:
            env[name], rest = rest % e, rest // e
        yield env


def naive_formula(text: str, cs) -> list[int]:
    py = re.sub(r"(?<!/)/(?!/)", "//", text)  # C's / on the non-negative operands it is accepted on; // as is
    return [eval(py, {"__builtins__": {}}, env) for env in _points(cs)]  # the generated test text


def naive_cute(shape, stride, swz) -> list[int]:
    out = []
    for env in _points([(k, s) for k, s in enumerate(shape)]):
        x = sum(env[k] * d for k, d in enumerate(stride))
        if swz is not None:
            b, m, s = swz
            x ^= (x & (((1 << b) - 1) << (m + s))) >> s
        out.append(x)
    return out


def naive_linear(bases, order, out) -> list[int]:
    cs = [(d, 1 << len(bases[d])) for d in order]
    vals = []
    for env in _points(cs):
        y = [0, 0]
        for d in order:
            for j, b in enumerate(bases[d]):
                if env[d] >> j & 1:
                    y = [y[0] ^ b[0], y[1] ^ b[1]]
        vals.append(y[0] + out[0] * y[1])
    return vals


def naive_first_difference(a: list[int], b: list[int]) -> tuple[str, int] | None:
    if len(a) != len(b):
        return "size", min(len(a), len(b))
    diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    return ("differ", diff[0]) if diff else None


def _agrees(claim, want, engines=("exhaustive", "auto", "z3"), z3_may_decline=True) -> None:
    for engine in engines:
        res = prove(claim, engine=engine)
        if res.status.value == "UNKNOWN" and (engine == "linear" or (engine == "z3" and z3_may_decline)):
            assert "unsupported" in (res.reason or "") or "timeout" in (res.reason or ""), (engine, claim, res)
            continue
        assert res.status.value == ("PROVEN" if want is None else "REFUTED"), (engine, str(claim), want, res)
        if want is not None:
            w = res.counterexample.data
            assert (w["kind"], w["i"]) == want, (engine, str(claim), want, w)


def _f(pair_side):
    text, cs = pair_side
    return parse_formula(text, cs)


# -- equivalent ---------------------------------------------------------------------------------------------------
@given(formula_pairs())
def test_formula_pairs_equal_the_naive_comparison(pair):
    want = naive_first_difference(naive_formula(*pair.a), naive_formula(*pair.b))
    if pair.how == "point":  # the strategy's promise: exactly the one point differs
        assert want is not None and want[0] == "differ"
    _agrees(equivalent(_f(pair.a), _f(pair.b)), want)


@given(cute_and_formula())
def test_cute_against_a_formula_equals_the_naive_comparison(c):
    lay = Layout(c.shape, c.stride)
    sub = lay if c.swizzle is None else ComposedLayout(Swizzle(*c.swizzle), 0, lay)
    want = naive_first_difference(naive_cute(c.shape, c.stride, c.swizzle), naive_formula(c.text, c.coords))
    if c.changed is None:
        assert want is None
    f = parse_formula(c.text, c.coords)
    _agrees(equivalent(sub, f), want)
    _agrees(equivalent(f, sub), want, engines=("exhaustive", "linear"))


def _ll(bases, out):
    return LinearLayout.make(bases, {"dim0": out[0], "dim1": out[1]})


@given(linear_pairs())
def test_triton_pairs_equal_the_naive_comparison(p):
    a, b = _ll(p.a, p.out), _ll(p.b, p.out)
    order = ["register", "lane", "warp"]
    claim = equivalent(a, b)
    if any(len(p.a[d]) != len(p.b[d]) for d in order):  # a basis moved: a register is not a lane
        for engine in ("exhaustive", "linear", "z3", "auto"):
            res = prove(claim, engine=engine)
            assert res.status.value == "REFUTED" and res.counterexample.data["kind"] in ("domain", "size"), res
        return
    want = naive_first_difference(naive_linear(p.a, order, p.out), naive_linear(p.b, order, p.out))
    if p.how == "same":
        assert want is None
    _agrees(claim, want, engines=("exhaustive", "linear", "z3", "auto"))


@given(linear_pairs())
def test_triton_against_a_formula_reads_thread_value_order(p):
    """A Triton layout against another form: flat index ``lane + 32*warp + T*register`` (CuTe's (T, V))."""
    order = ["lane", "warp", "register"]
    terms = []
    for d in order:
        for j, bv in enumerate(p.a[d]):
            col = bv[0] + p.out[0] * bv[1]
            if col:
                terms.append(f"(({d} >> {j}) & 1) * {col}")
    text = " ^ ".join(terms) or "0"
    f = parse_formula(text, [(d, 1 << len(p.a[d])) for d in order])
    b = _ll(p.b, p.out)
    want = naive_first_difference(naive_linear(p.b, order, p.out), naive_formula(text, [(d, 1 << len(p.a[d]))
                                                                                        for d in order]))
    if any(len(p.a[d]) != len(p.b[d]) for d in order):
        want_sizes = [1 << sum(len(p.b[d]) for d in order), 1 << sum(len(p.a[d]) for d in order)]
        assert want_sizes[0] == want_sizes[1]  # a moved basis keeps the size: compared point by point
    _agrees(equivalent(b, f), want)


def test_misplaced_basis_of_the_mma_accumulator_is_named_at_lane_8():
    """Deliberately broken: Triton's SM80 accumulator with lane bases 3 and 4 swapped (still an exact cover)."""
    tv = Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))
    bad = from_triton("#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [4, 0], [2, 0]], "
                      "warp = [], block = []}>", [16, 8])
    good = from_triton("#ttg.nvidia_mma<{versionMajor=2, versionMinor=0, warpsPerCTA=[1,1], instrShape=[16,8]}>",
                       [16, 8])
    for engine in ("exhaustive", "linear", "z3"):
        assert prove(equivalent(tv, good), engine=engine).status.value == "PROVEN"
        res = prove(equivalent(tv, bad), engine=engine)
        assert res.status.value == "REFUTED" and res.counterexample.data == {"kind": "differ", "i": 8}, res
        assert "lane=8" in res.counterexample.text and "-> 4" in res.counterexample.text


# -- claims on index formulas ---------------------------------------------------------------------------------------
def naive_claims(vals: list[int], bound: int) -> dict[str, tuple | None]:
    n = len(vals)
    pair = next((("collision", i, j) for i in range(n) for j in range(i + 1, n) if vals[i] == vals[j]), None)
    out = next((("out", i) for i, v in enumerate(vals) if not 0 <= v < bound), None)
    missing = next((("missing", y) for y in range(bound) if y not in set(vals)), None) if out is None else None
    return {
        "injective": pair,
        "in_bounds": out,
        "bijective": ("count",) if n != bound else out or pair,
        "surjective": ("count",) if n < bound else out or missing,
    }


def _key(w: dict) -> tuple:
    if w["kind"] == "collision":
        return "collision", w["i"], w["j"]
    if w["kind"] == "out":
        return "out", w["i"]
    if w["kind"] == "missing":
        return "missing", w["y"]
    return (w["kind"],)


@settings(max_examples=80)
@given(coords(), st.data())
def test_formula_claims_equal_the_naive_definitions(cs, data):
    text = data.draw(expressions([n for n, _ in cs]))
    vals = naive_formula(text, cs)
    bound = data.draw(st.sampled_from([len(vals), len(vals) + 3, max(1, len(vals) - 1), max([*vals, 0]) + 1]))
    bound = max(1, bound)
    want = naive_claims(vals, bound)
    f = parse_formula(text, cs)
    for name in ("injective", "in_bounds", "bijective", "surjective"):
        claim = formula_property(name, f, None if name == "injective" else bound)
        engines = ("exhaustive", "auto") + (("z3",) if name in ("injective", "in_bounds") else ())
        for engine in engines:
            res = prove(claim, engine=engine)
            if engine == "z3" and res.status.value == "UNKNOWN":
                assert "unsupported" in (res.reason or "") or "timeout" in (res.reason or ""), res
                continue
            assert res.status.value == ("PROVEN" if want[name] is None else "REFUTED"), (name, engine, text, cs, res)
            if want[name] is not None:
                assert _key(res.counterexample.data) == want[name], (name, engine, text, cs, res)


# -- bank conflicts of a formula: the same naive bank model as CuTe layouts' (tests/semantics/test_sem_banks) ------
def naive_banks(rows: int, cols: int, offs: list[int], elem_bits: int, kind: str) -> tuple | None:
    insts = canonical_access((rows, cols), offs, kind, elem_bits)
    eb = elem_bits // 8
    for i, lanes in enumerate(insts):
        for lane, es in enumerate(lanes):
            if es is not None and [offs[e] for e in es] != [offs[es[0]] + j for j in range(len(es))]:
                return "split", i, lane
    for i, lanes in enumerate(insts):
        for lane, es in enumerate(lanes):
            if es is not None and offs[es[0]] * eb % KIND_BYTES[kind]:
                return "misaligned", i, lane
    costs = [_cost(kind, [None if es is None else offs[es[0]] * eb for es in lanes]) for lanes in insts]
    bad = [i for i, (w, ideal) in enumerate(costs) if w > ideal]
    return ("conflict", bad[0]) if bad else None


def _bank_key(w: dict) -> tuple:
    return (w["kind"], w["instruction"], w["lane"]) if w["kind"] in ("split", "misaligned") else ("conflict",
                                                                                                  w["instruction"])


@settings(max_examples=60)
@given(smem_tiles(), st.sampled_from(["cute", "rotate", "pad"]))
def test_conflict_free_of_a_formula_equals_the_naive_model(tile, how):
    shape, stride, swz, base, bits, kind = tile
    rows, cols = (shape[0] if isinstance(shape[0], int) else shape[0][0] * shape[0][1]), shape[1]
    s0 = stride[0] if isinstance(stride[0], int) else None
    if s0 is None:  # nested mode 0 (a, rows/a) with strides (d, d*a): the same as one mode of stride d
        s0 = stride[0][0]
    y = f"{base} + m*{s0} + n*{stride[1]}"
    if how == "rotate" and swz is None:  # a rotation of 16-byte chunks within each row (not XOR-linear)
        v = max(1, 128 // bits)
        if stride[1] == 1 and cols % v == 0:
            q = cols // v
            y = f"{base} + m*{s0} + ((n/{v} + m) % {q})*{v} + n%{v}"
    if how == "pad" and swz is None:
        y = f"{base} + m*{s0 + (3 if stride[1] == 1 else 0)} + n*{stride[1] + (3 if s0 == 1 else 0)}"
    if swz is not None:
        b, m_, s = swz
        y = f"({y}) ^ ((({y}) & {((1 << b) - 1) << (m_ + s)}) >> {s})"
    cs = [("m", rows), ("n", cols)]
    offs = naive_formula(y, cs)
    want = naive_banks(rows, cols, offs, bits, kind)
    claim = conflict_free(parse_formula(y, cs), kind, bits)
    for engine in ("exhaustive", "auto"):
        res = prove(claim, engine=engine)
        assert res.status.value == ("PROVEN" if want is None else "REFUTED"), (engine, y, kind, bits, want, res)
        if want is not None:
            assert _bank_key(res.counterexample.data) == want, (engine, y, res)


def test_indicator_is_one_at_its_point_only():
    cs = [("i", 3), ("j", 5)]
    vals = naive_formula(indicator(cs, [2, 4]), cs)
    assert vals.index(1) == 2 + 3 * 4 and sum(vals) == 1
