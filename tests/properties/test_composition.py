"""``composes(R, A, B)``: composition's contract ``R(i) == A(B(i))``, refuted on the CuTe results of
NVIDIA/cutlass#3177 and #2955, proven for every composition layoutcheck's algebra computes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from layoutcheck import Layout, prove
from layoutcheck.algebra.ops import composition
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.errors import LayoutError
from layoutcheck.properties.composition import composes
from layoutcheck.result import Verdict
from tests.strategies import divisible_tilers, past_the_end_pairs


def test_cutlass_3177_weak_stride_divisibility_is_refuted() -> None:
    r = prove(composes(Layout((2, 3), (6, 3)), Layout((4, 6, 8), (2, 3, 5)), Layout(6, 3)))
    assert r.status is Verdict.REFUTED
    assert r.counterexample.text == "index 2: R(0,1) -> 3 but B(2) -> 6 and A(6) = A(2,1,0) -> 7"


def test_cutlass_2955_carry_across_a_mode_is_refuted() -> None:
    r = prove(composes(Layout((3, 2), (2, 3)), Layout((6, 2), (1, 7)), Layout((3, 2), (2, 3))))
    assert r.status is Verdict.REFUTED
    assert r.counterexample.text == "index 5: R(2,1) -> 7 but B(2,1) -> 7 and A(7) = A(1,1) -> 8"


def test_sizes_must_agree() -> None:
    r = prove(composes(Layout(4, 1), Layout(8, 1), Layout(2, 1)))
    assert r.status is Verdict.REFUTED and r.counterexample.text.startswith("size(R) = 4 but size(B) = 2")


def test_lhs_is_evaluated_past_its_domain_as_cpp_does() -> None:
    # B = 3:2 reaches index 4 of the size-4 A = (2,2):(1,4); C++ evaluates A's last mode on: A(4) = A(0,2) -> 8
    a, b = Layout((2, 2), (1, 4)), Layout(3, 2)
    assert prove(composes(Layout(3, 4), a, b)).status is Verdict.PROVEN
    r = prove(composes(Layout(3, 2), a, b))
    assert r.status is Verdict.REFUTED
    assert r.counterexample.text == "index 1: R(1) -> 2 but B(1) -> 2 and A(2) = A(0,1) -> 4"


def test_swizzled_lhs() -> None:
    sw = Swizzle(3, 3, 3)
    a = Layout((16, 64), (64, 1))
    b = Layout((16, 8), (1, 128))
    r = ComposedLayout(sw, 0, composition(a, b))
    assert prove(composes(r, ComposedLayout(sw, 0, a), b)).status is Verdict.PROVEN
    assert prove(composes(composition(a, b), ComposedLayout(sw, 0, a), b)).status is Verdict.REFUTED


def test_negative_rhs_is_a_layout_error() -> None:
    with pytest.raises(LayoutError, match="negative offsets"):
        composes(Layout(2, -1), Layout(4, 1), Layout(2, -1))


@settings(max_examples=60, deadline=None)
@given(divisible_tilers())
def test_every_composition_layoutcheck_computes_composes(pair) -> None:
    a, b = pair
    try:
        r = composition(a, b)
    except LayoutError:  # an inadmissible pair: rejected, never a wrong layout
        return
    result = prove(composes(r, a, b))
    assert result.status is Verdict.PROVEN, (a, b, r, result.counterexample)


@settings(max_examples=40, deadline=None)
@given(past_the_end_pairs())
def test_compositions_past_the_end_compose(pair) -> None:
    a, b = pair
    try:
        r = composition(a, b)
    except LayoutError:
        return
    assert prove(composes(r, a, b)).status is Verdict.PROVEN, (a, b, r)


def test_spec_needs_lhs_and_rhs(tmp_path) -> None:
    from layoutcheck.check import check_property
    from layoutcheck.errors import SpecError
    from layoutcheck.spec.bind import build_property
    from layoutcheck.spec.load import load_spec

    spec = tmp_path / "c.toml"
    spec.write_text('format = 1\n[[config]]\nname = "c"\nkind = "layout"\nlayout = "(2,3):(6,3)"\n'
                    'lhs = "(4,6,8):(2,3,5)"\nproperties = ["composes"]\n')
    cfg = load_spec(str(spec)).configs[0]
    with pytest.raises(SpecError, match="key 'rhs'"):
        build_property(cfg, cfg.properties[0])
    spec.write_text(spec.read_text().replace('properties = ["composes"]',
                                             'properties = [{ name = "composes", rhs = "6:3" }]'))
    cfg = load_spec(str(spec)).configs[0]
    row = check_property(cfg, cfg.properties[0], "auto", 10.0)
    assert row.status == "REFUTED" and row.counterexample.startswith("index 2: R(0,1) -> 3")
