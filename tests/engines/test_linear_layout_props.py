"""Properties of linear layouts: the linear engine agrees with the exhaustive one, witnesses re-check."""

from __future__ import annotations

from hypothesis import given

from layoutcheck.algebra.linear_layout import LinearLayout
from layoutcheck.engines.prove import prove
from layoutcheck.properties.linear import (
    LinearConflictFree,
    LinearExactCover,
    LinearInjective,
    LinearSurjective,
)
from layoutcheck.result import Verdict
from tests.strategies_linear import linear_layouts, permutation_layouts


@given(linear_layouts())
def test_linear_agrees_with_exhaustive(ll):
    for cls in (LinearInjective, LinearSurjective, LinearExactCover):
        a, b = prove(cls(ll), engine="linear"), prove(cls(ll), engine="exhaustive")
        assert a.status == b.status != Verdict.UNKNOWN, (cls, ll)


@given(permutation_layouts())
def test_bijections_are_exact_covers(ll):
    assert prove(LinearExactCover(ll)).status is Verdict.PROVEN


def test_broadcast_is_an_exact_cover_but_not_injective():
    ll = LinearLayout.make({"register": [[1]], "lane": [[2], [0]]}, {"dim0": 4})
    assert prove(LinearInjective(ll)).status is Verdict.REFUTED
    assert prove(LinearExactCover(ll)).status is Verdict.PROVEN


def test_replication_without_broadcast_is_refuted_with_named_inputs():
    ll = LinearLayout.make({"register": [[1]], "lane": [[2], [1]]}, {"dim0": 4})
    r = prove(LinearExactCover(ll))
    assert r.status is Verdict.REFUTED
    assert "register=1" in str(r) and "lane=2" in str(r)


def test_bank_conflict_counterexample():
    shared = LinearLayout.make({"offset": [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]},
                               {"dim0": 32, "dim1": 8})
    rows = LinearLayout.make({"register": [[0, 1], [0, 2], [0, 4]],
                              "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 8})
    r = prove(LinearConflictFree(rows, shared, 32))
    assert r.status is Verdict.REFUTED and "bank 0" in str(r)
    cols = LinearLayout.make({"register": [[4, 0], [8, 0], [16, 0]],
                              "lane": [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]]}, {"dim0": 32, "dim1": 8})
    assert prove(LinearConflictFree(cols, shared, 32)).status is Verdict.PROVEN
