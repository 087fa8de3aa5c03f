"""Grouped GEMM (problem lists): where the device walks exactly each problem's tile grid (the default
``device_tiles``), the Z3 engine asks one query per list length, "the host launches fewer than the tiles walked"
(``sizes_z3._list_short``). It must give what the general queries (``_list_outside`` / ``_list_missing``) and the
exhaustive engine give: the same verdict and the same witness (the smallest failing list, then its first fault)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutcheck import Verdict, prove
from layoutcheck.models.schedulers import ProblemListScheduler
from layoutcheck.properties.residue import schedule_bijection
from tests.strategies_sem_schedulers import _DEVICE, _HOST

pytest.importorskip("z3")

import layoutcheck.engines.sizes_z3 as sizes_z3


def _general(prop) -> object:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(sizes_z3, "_walks_its_grid", lambda s: False)
        return prove(prop, engine="z3", timeout=60)


@st.composite
def default_walks(draw):
    """Problem lists whose device walks each grid (the default ``device_tiles``), host counts right or wrong."""
    host = _HOST[draw(st.sampled_from(sorted(_HOST)))]
    block = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    s = ProblemListScheduler(block, draw(st.integers(1, 5)), host)
    sizes = []
    for _ in range(2):
        lo = draw(st.integers(1, 6))
        sizes.append((lo, lo + draw(st.integers(0, 2))))
    lo = draw(st.integers(1, 2))
    return schedule_bijection(s, tuple(sizes), (lo, lo + draw(st.integers(0, 1))))


def test_only_the_default_walk_takes_the_short_query() -> None:
    assert sizes_z3._walks_its_grid(ProblemListScheduler((64, 128), 132, "tiles"))
    for name, text in _DEVICE.items():
        assert sizes_z3._walks_its_grid(ProblemListScheduler((4, 3), 2, "tiles", text)) == (name == "per_mode")


@settings(max_examples=30, deadline=None)
@given(default_walks())
def test_short_query_is_the_general_queries_and_the_enumeration(prop) -> None:
    assert sizes_z3._walks_its_grid(prop.scheduler)
    short, general, ex = prove(prop, engine="z3", timeout=60), _general(prop), prove(prop,
                                                                                                   engine="exhaustive")
    assert short.status is ex.status is not Verdict.UNKNOWN
    if general.status is not Verdict.UNKNOWN:
        assert general.status is short.status
    if short.status is Verdict.REFUTED:
        assert short.counterexample.data == ex.counterexample.data
        if general.status is Verdict.REFUTED:
            assert short.counterexample.data == general.counterexample.data


def test_short_query_on_the_bundled_grouped_specs() -> None:
    moe = ProblemListScheduler((64, 128), 132, "((sum_M + TM - 1) // TM + P - 1) * ((max_N + TN - 1) // TN)")
    assert prove(schedule_bijection(moe, ((1, 32), (1, 32)), (1, 3)), engine="z3").status is Verdict.PROVEN
    short = ProblemListScheduler((64, 128), 132, "(sum_M + TM - 1) // TM * ((max_N + TN - 1) // TN)")
    r = prove(schedule_bijection(short, ((1, 1024), (1, 1024)), (1, 3)), engine="z3")
    assert r.status is Verdict.REFUTED and r.counterexample.data["problems"] == [[1, 1], [1, 1]]
