"""``schedule_bijection`` decided by the z3 engine over grid boxes away from the origin (``GM``, ``GN`` up to ~40),
for every scheduler kind and clusters up to 8 CTAs (non-powers of two for CLC), against the naive launch walks of
``test_sem_ragged`` (plain, swizzle, grouped, split-K) and ``test_sem_schedulers`` (persistent, CLC, expr), which share
no code with ``layoutcheck.properties``, ``.models`` or ``.engines``. The existing files draw grids up to 11-12 and
clusters up to 2x2 / 4x1; the z3 queries over the sizes are where a wrong lemma would hide.
"""

from __future__ import annotations

from hypothesis import event, given, settings
from hypothesis import strategies as st

from layoutcheck import Verdict, prove
from layoutcheck.models.schedulers import TileScheduler
from layoutcheck.properties.residue import schedule_bijection
from tests.semantics.test_sem_ragged import naive_schedule
from tests.semantics.test_sem_schedulers import naive_clc, naive_expr, naive_first_failure, naive_persistent

EXPRS = [("(cta + ctas*iteration) % GM", "(cta + ctas*iteration) // GM", "GM*GN"),
         ("(cta + ctas*iteration) // GN", "(cta + ctas*iteration) % GN", "GM*GN"),
         ("(cta + ctas*iteration) % GM", "(cta + ctas*iteration) // GM", "GM*GN + 1"),
         ("(cta + ctas*iteration) % GN", "(cta + ctas*iteration) // GN", "GM*GN"),
         ("(cta + ctas*iteration) % GM", "(cta + ctas*iteration) // GM", "GM*GN - 1")]
CLUSTERS = [(1, 1), (2, 1), (1, 2), (2, 2), (4, 1), (1, 4), (4, 2), (2, 4), (8, 1), (1, 8)]


@st.composite
def wide_schedulers(draw):
    kind = draw(st.sampled_from(["plain", "swizzle", "grouped", "split_k", "persistent", "clc", "expr"]))
    kw: dict = {}
    if kind == "swizzle":
        kw = {"log": draw(st.integers(0, 3))}
    elif kind == "grouped":
        kw = {"group": draw(st.integers(1, 9)), "ctas": draw(st.integers(1, 40)),
              "drop_partial_group": draw(st.booleans())}
    elif kind == "split_k":
        kw = {"splits": draw(st.integers(1, 7)), "count": draw(st.sampled_from(["ceil_div", "div"]))}
    elif kind == "persistent":
        cl = draw(st.sampled_from(CLUSTERS))
        kw = {"cluster": cl, "ctas": cl[0] * cl[1] * draw(st.integers(1, 12)), "max_swizzle": draw(st.integers(1, 8)),
              "raster": draw(st.sampled_from(["m", "n", "heuristic"]))}
        bug = draw(st.sampled_from(["", "", "round", "size", "device"]))
        if bug == "round":
            kw["round_to_cluster"] = False
        elif bug == "size":
            kw["swizzle_size"] = draw(st.integers(1, 6))
        elif bug == "device":
            kw["device_raster"] = draw(st.sampled_from(["m", "n"]))
    elif kind == "clc":
        kw = {"cluster": draw(st.sampled_from([*CLUSTERS, (3, 1), (1, 3)])), "max_swizzle": draw(st.integers(1, 9)),
              "raster": draw(st.sampled_from(["m", "n", "heuristic"])), "swizzle_residual": draw(st.booleans()),
              "serpentine": draw(st.sampled_from(["", "", "header_comment", "reflect"]))}
    else:
        tm, tn, tot = draw(st.sampled_from(EXPRS))
        kw = {"ctas": draw(st.integers(1, 40)), "tile_m": tm, "tile_n": tn, "total_expr": tot}
    lo1, lo2 = draw(st.integers(1, 30)), draw(st.integers(1, 30))
    grids = ((lo1, lo1 + draw(st.integers(0, 6))),
             (1, 1) if kind == "split_k" else (lo2, lo2 + draw(st.integers(0, 6))))
    return schedule_bijection(TileScheduler(kind, **kw), grids)


@settings(max_examples=60, deadline=None)
@given(wide_schedulers())
def test_z3_over_wide_grid_boxes_is_the_naive_walk(prop) -> None:
    kind = prop.scheduler.kind
    if kind in ("plain", "swizzle", "grouped", "split_k"):
        first = naive_schedule(prop)
    else:
        first = naive_first_failure(prop, {"persistent": naive_persistent, "clc": naive_clc, "expr": naive_expr}[kind])
    want = Verdict.PROVEN if first is None else Verdict.REFUTED
    event(f"{kind} {want.name}")
    for engine in ("z3", "exhaustive"):
        r = prove(prop, engine=engine, timeout=60)
        if engine == "z3" and r.status is Verdict.UNKNOWN:
            continue
        assert r.status is want, (engine, prop.scheduler, prop.grids, r)
        if first is not None and engine == "exhaustive":
            assert tuple(r.counterexample.data["grid"]) == first
