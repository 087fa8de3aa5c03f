"""Hypothesis strategies for the semantics suite of persistent and expression tile schedulers
(``tests/semantics/test_sem_schedulers.py``). They *build* adversarial inputs, named after what they guarantee:

- ``persistent_schedulers``: CUTLASS SM90 persistent schedulers over small boxes of grids: every cluster shape up to
  2x2 (and 4x1, 1x4), every ``max_swizzle`` 1..8 (powers of two and not: the host rounds down), every raster order,
  a CTA count that is a multiple of the cluster size (fewer CTAs than tiles, and more); and the wrong variants: the
  host's rounding omitted, a fixed swizzle size that need not be a power of two, a device that decodes in another
  raster order than the host's parameters;
- ``problem_lists``: grouped GEMMs over lists of 1..3 problems whose host launch count (the device's own total, an
  MoE-style upper bound, the bound without the ``P - 1`` ragged tiles, one more, one less, ``P`` times the largest)
  and device walk (per mode, by area, floor in M, one column too many) are each right or wrong;
- ``expr_schedulers``: persistent loops written as expressions: column- and row-major rasters, Triton's grouped
  ordering, a CUTLASS 2.x-style swizzle, and the mistakes one makes writing them (dimensions swapped, the group's
  height not clipped, a loop bound one past or one short, a raster that reads only the CTA).
"""

from __future__ import annotations

from hypothesis import strategies as st

from layoutcheck.models.schedulers import TileScheduler
from layoutcheck.properties.residue import schedule_bijection


def _grids(draw, hi: int = 9) -> tuple[tuple[int, int], tuple[int, int]]:
    out = []
    for _ in range(2):
        lo = draw(st.integers(1, hi))
        out.append((lo, lo + draw(st.integers(0, 4))))
    return tuple(out)


@st.composite
def persistent_schedulers(draw):
    """``schedule_bijection`` of a persistent scheduler, right or wrong, over a small box of grids."""
    cluster = draw(st.sampled_from([(1, 1), (2, 1), (1, 2), (2, 2), (4, 1), (1, 4)]))
    ctas = cluster[0] * cluster[1] * draw(st.integers(1, 12))
    broken = draw(st.sampled_from(["none", "none", "round", "swizzle_size", "device_raster"]))
    kw = {"ctas": ctas, "cluster": cluster, "raster": draw(st.sampled_from(["m", "n", "heuristic"])),
          "max_swizzle": draw(st.integers(1, 9))}
    if broken == "round":
        kw["round_to_cluster"] = False
    elif broken == "swizzle_size":
        kw["swizzle_size"] = draw(st.integers(1, 6))
    elif broken == "device_raster":
        kw["device_raster"] = draw(st.sampled_from(["m", "n", "heuristic"]))
    return schedule_bijection(TileScheduler("persistent", **kw), _grids(draw))


_T = "(cta + ctas*iteration)"
_GROUP_FIRST = f"{_T} // (@*GN) * @"  # @: the group height
_EXPRS = {
    "column": (f"{_T} % GM", f"{_T} // GM", "GM*GN"),
    "row": (f"{_T} // GN", f"{_T} % GN", "GM*GN"),
    "swapped": (f"{_T} // GN", f"{_T} % GM", "GM*GN"),
    "grouped": (f"{_GROUP_FIRST} + {_T} % (@*GN) % min(GM - {_GROUP_FIRST}, @)",
                f"{_T} % (@*GN) // min(GM - {_GROUP_FIRST}, @)", "GM*GN"),
    "grouped_unclipped": (f"{_GROUP_FIRST} + {_T} % (@*GN) % @", f"{_T} % (@*GN) // @", "GM*GN"),
    "one_past": (f"{_T} % GM", f"{_T} // GM", "GM*GN + 1"),
    "one_short": (f"{_T} % GM", f"{_T} // GM", "GM*GN - 1"),
    "cta_only": ("cta % GM", "cta // GM", "GM*GN"),
    "padded": (f"{_T} % (GM + 1)", f"{_T} // (GM + 1)", "(GM + 1)*GN"),
}


@st.composite
def expr_schedulers(draw):
    """``schedule_bijection`` of a persistent loop written as expressions, right or wrong."""
    name = draw(st.sampled_from(sorted(_EXPRS)))
    g = str(draw(st.integers(1, 4)))
    tm, tn, total = (x.replace("@", g) for x in _EXPRS[name])
    s = TileScheduler("expr", ctas=draw(st.integers(1, 20)), tile_m=tm, tile_n=tn, total_expr=total)
    return schedule_bijection(s, _grids(draw))


_HOST = {"tiles": "tiles", "moe_bound": "((sum_M + TM - 1) // TM + P - 1) * ((max_N + TN - 1) // TN)",
         "from_total_m": "(sum_M + TM - 1) // TM * ((max_N + TN - 1) // TN)", "one_more": "tiles + 1",
         "one_less": "tiles - 1 + (tiles == 0)",
         "max_times_p": "P * ((max_M + TM - 1) // TM) * ((max_N + TN - 1) // TN)"}
_DEVICE = {"per_mode": "(M + TM - 1) // TM * ((N + TN - 1) // TN)", "area": "(M*N + TM*TN - 1) // (TM*TN)",
           "floor_m": "M // TM * ((N + TN - 1) // TN)", "padded": "((M + TM - 1) // TM + 1) * ((N + TN - 1) // TN)"}


@st.composite
def problem_lists(draw):
    """``schedule_bijection`` of a grouped GEMM whose host count and device walk are each right or wrong (over
    lists of 1..3 problems, small sizes and tiles, so a ragged tile in either mode is in range)."""
    from layoutcheck.models.schedulers import ProblemListScheduler

    host = _HOST[draw(st.sampled_from(sorted(_HOST)))]
    device = _DEVICE[draw(st.sampled_from(sorted(_DEVICE)))]
    block = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    s = ProblemListScheduler(block, draw(st.integers(1, 5)), host, device)
    sizes = []
    for _ in range(2):
        lo = draw(st.integers(1, 6))
        sizes.append((lo, lo + draw(st.integers(0, 2))))
    lo = draw(st.integers(1, 2))
    return schedule_bijection(s, tuple(sizes), (lo, lo + draw(st.integers(0, 1))))


@st.composite
def clc_schedulers(draw):
    """``schedule_bijection`` of an SM100 CLC scheduler over a small box of grids: clusters up to 2x2 (and 4x1,
    1x4), swizzle sizes 1..5 (powers of two and not), every raster order; and the wrong variants: the swizzle over
    the residual clusters too, the header comment's serpentine flip ``M - m`` (and the right one, ``M - 1 - m``)."""
    kw = {"cluster": draw(st.sampled_from([(1, 1), (2, 1), (1, 2), (2, 2), (4, 1), (1, 4)])),
          "max_swizzle": draw(st.integers(1, 5)), "raster": draw(st.sampled_from(["m", "n", "heuristic"])),
          "swizzle_residual": draw(st.sampled_from([False, False, True])),
          "serpentine": draw(st.sampled_from(["", "", "header_comment", "reflect"]))}
    return schedule_bijection(TileScheduler("clc", **kw), _grids(draw, hi=12))
