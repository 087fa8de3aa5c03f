"""Every engine that decides (PROVEN / REFUTED) agrees with the exhaustive reference, and every counterexample
really violates its property (re-checked here by evaluating the layouts, independently of ``Property.recheck``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck import Layout
from layoutcheck.algebra.layout import size
from layoutcheck.engines.prove import prove
from layoutcheck.properties.layout import (
    Bijective,
    Equivalent,
    InBounds,
    Injective,
    Surjective,
    bijective,
    equivalent,
    in_bounds,
    injective,
    surjective,
)
from layoutcheck.properties.tv import ExactCover, Vectorizable, exact_cover, vectorizable
from layoutcheck.result import Verdict
from tests.strategies_engines import (
    at_zero,
    bijective_layouts,
    boundary_chain_layouts,
    chain_layouts,
    nonnegative_subjects,
    pow2_layouts,
    signed_layouts,
    subjects,
    tv_maps,
)

ENGINES = ("structural", "linear", "z3", "sympy")


def _size(x) -> int:
    return size(getattr(x, "layout", x))


def violates(prop, w: dict) -> bool:
    """Independent re-check of a witness by evaluating the layouts (no engine code)."""
    kind = w["kind"]
    if kind == "count":
        return w["size"] != w["codomain"]
    if isinstance(prop, Injective) or kind == "collision":
        x = prop.subjects()[0]
        return w["i"] != w["j"] and x(w["i"]) == x(w["j"])
    if isinstance(prop, Equivalent):
        return prop.a(w["i"]) != prop.b(w["i"])
    if isinstance(prop, Vectorizable):
        nt, v = prop.threads, prop.vector
        run = [prop.layout(w["t"] + nt * (w["g"] * v + j)) for j in range(v)]
        return run != list(range(run[0], run[0] + v)) or run[0] % v != 0
    x = prop.subjects()[0]
    if kind == "out":
        extent = prop.extent if isinstance(prop, InBounds) else getattr(prop, "codomain", None) or prop.tile_size
        return not 0 <= x(w["i"]) < extent
    if kind == "missing":
        return w["y"] not in set(x.offsets().tolist())
    if kind == "same_thread":
        return w["i"] % prop.threads == w["j"] % prop.threads and x(w["i"]) == x(w["j"]) and w["i"] != w["j"]
    if kind == "owners":
        count = int((x.offsets() == w["y"]).sum())
        return count != prop.replication and all(x(o) == w["y"] for o in w["owners"])
    raise AssertionError(f"unknown witness kind {kind}")


def check_agreement(prop, engines: tuple[str, ...] = ENGINES) -> dict[str, Verdict]:
    """Each of ``engines`` that decides agrees with the exhaustive engine; returns every engine's verdict."""
    ref = prove(prop, engine="exhaustive")
    assert ref.status is not Verdict.UNKNOWN, ref
    if ref.status is Verdict.REFUTED:
        assert violates(prop, ref.counterexample.data), ref
    verdicts = {"exhaustive": ref.status}
    for name in engines:
        res = prove(prop, engine=name, timeout=20)
        verdicts[name] = res.status
        assert "internal error" not in (res.reason or ""), res
        if res.status is Verdict.UNKNOWN:
            continue
        assert res.status is ref.status, f"{name} says {res}, exhaustive says {ref}"
        if res.status is Verdict.REFUTED:
            assert violates(prop, res.counterexample.data), res
        if "structural_witness" in res.stats:  # the rule's own witness, replaced by the canonical one when enumerable
            w = res.stats["structural_witness"]
            assert prop.recheck(w) and violates(prop, w), res
    return verdicts


def _codomain(x) -> int:
    hi = int(x.offsets().max())
    n = _size(x)
    return n if hi < n else hi + 1


@pytest.mark.slow
@given(subjects())
def test_injective(x) -> None:
    check_agreement(injective(x))


@pytest.mark.slow
@given(st.one_of(bijective_layouts(), pow2_layouts(), subjects()))
def test_bijective_and_surjective(x) -> None:
    n = _codomain(x)
    check_agreement(bijective(x, n))
    check_agreement(surjective(x, n))


@pytest.mark.slow
@given(subjects(), st.integers(1, 300))
def test_in_bounds(x, extent) -> None:
    check_agreement(in_bounds(x, extent))


@pytest.mark.slow
@given(bijective_layouts(), st.data())
def test_equivalent(a, data) -> None:
    from layoutcheck import coalesce

    b = data.draw(st.sampled_from([coalesce(a), Layout(size(a)), a]))
    check_agreement(equivalent(a, b))


@pytest.mark.slow
@given(tv_maps(), st.sampled_from([1, 2, 4]))
def test_exact_cover(tv, k) -> None:
    n = size(tv) // k if size(tv) % k == 0 else size(tv)
    k = size(tv) // n  # an image reaching outside the tile is a REFUTED "out" witness, kept on purpose
    check_agreement(exact_cover(tv, n, k))


@pytest.mark.slow
@given(tv_maps(), st.sampled_from([(4, 4), (8, 4), (16, 4), (4, 2), (2, 1)]))
def test_vectorizable(tv, wd) -> None:
    w, d = wd
    if size(tv[1]) % (w // d):
        tv = Layout((tv.shape[0], (tv.shape[1], w // d)), (tv.stride[0], (tv.stride[1], 0)))
    check_agreement(vectorizable(tv, w, d))


# -- the structural engine on non-power-of-two, nested, negative-stride and stride-0 layouts -----------------------
STRUCTURAL = ("structural",)


def _nontrivial(x) -> int:
    from layoutcheck.engines.structural import modes

    return len(modes(x))


@given(st.one_of(signed_layouts(), chain_layouts(), boundary_chain_layouts()))
def test_structural_injective(x) -> None:
    v = check_agreement(injective(x), STRUCTURAL)
    if _nontrivial(x) <= 2:  # the pair test is exact for two modes: never declined
        assert v["structural"] is v["exhaustive"], x


@given(chain_layouts())
def test_structural_proves_chains(x) -> None:
    assert check_agreement(injective(x), STRUCTURAL)["structural"] is Verdict.PROVEN
    y = at_zero(x)  # an injective image starting at 0: bijective onto size(x), else refuted by count
    assert check_agreement(bijective(y, _codomain(y)), STRUCTURAL)["structural"] is not Verdict.UNKNOWN


@given(st.one_of(nonnegative_subjects(), bijective_layouts()))
def test_structural_bijective_and_surjective(x) -> None:
    n = _codomain(x)
    check_agreement(bijective(x, n), STRUCTURAL)
    check_agreement(surjective(x, n), STRUCTURAL)
    top = int(x.offsets().max()) + 1
    if top < n:  # a larger domain onto the image's top (stride-0 modes): the size > n case
        check_agreement(surjective(x, top), STRUCTURAL)


@given(bijective_layouts())
def test_structural_proves_compact(x) -> None:
    assert check_agreement(bijective(x), STRUCTURAL)["structural"] is Verdict.PROVEN


@given(st.one_of(signed_layouts(), subjects()), st.integers(1, 300))
def test_structural_in_bounds(x, extent) -> None:
    v = check_agreement(in_bounds(x, extent), STRUCTURAL)
    if isinstance(x, Layout):  # exact extremes: a plain layout is always decided
        assert v["structural"] is v["exhaustive"], x


@given(tv_maps())
def test_structural_exact_cover(tv) -> None:
    check_agreement(exact_cover(tv, size(tv)), STRUCTURAL)


# -- hand-picked edge cases -----------------------------------------------------------------------------------
EDGE = [
    Layout(1, 0), Layout(1, 5), Layout(4, 0), Layout((4, 1), (1, 0)), Layout(4, 3), Layout(2, 3),
    Layout((4, 2), (2, 1)), Layout((4, 2), (2, 2)), Layout((2, 2), (1, 1)), Layout(((2, 2), 2), ((1, 4), 2)),
]


@pytest.mark.parametrize("x", EDGE, ids=str)
def test_edge_cases(x) -> None:
    check_agreement(injective(x))
    check_agreement(in_bounds(x, 4))
    check_agreement(bijective(x, _codomain(x)))


def test_linear_smallest_collision_matches_exhaustive() -> None:
    x = Layout((2, 4, 2), (0, 2, 1))  # stride-0 first mode: (0, 1) collide
    for eng in ("linear", "exhaustive", "z3"):
        r = prove(injective(x), engine=eng)
        assert r.counterexample.data["i"] == 0 and r.counterexample.data["j"] == 1, r


def test_linear_declines_carries() -> None:
    r = prove(injective(Layout(4, 3)), engine="linear")
    assert r.status is Verdict.UNKNOWN and "not linear" in r.reason
    assert prove(injective(Layout(4, 3))).engine == "structural"  # one mode: decided before linear is asked
    # carries; no pair collides; 3 and 5 are below the span of 2**17:2, so the prefix is all 2**19 points: both decline
    carries = Layout((1 << 17, 2, 2), (2, 3, 5))
    assert prove(injective(carries), engine="linear").status is Verdict.UNKNOWN
    assert prove(injective(carries), engine="structural").status is Verdict.UNKNOWN
    assert prove(injective(carries)).engine == "exhaustive"


def test_property_types_are_exported() -> None:
    import layoutcheck

    assert layoutcheck.injective(Layout(4, 1)) == Injective(Layout(4, 1))
    assert isinstance(layoutcheck.bijective(Layout(4, 1)), Bijective)
    assert isinstance(layoutcheck.surjective(Layout(4, 1)), Surjective)
    assert isinstance(layoutcheck.exact_cover(Layout((2, 2), (1, 2)), 4), ExactCover)
    assert layoutcheck.prove(layoutcheck.injective(Layout(4, 1))).proven
    assert np.array_equal(Layout(4, 1).offsets(), np.arange(4))
