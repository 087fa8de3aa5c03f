"""Semantics of persistent and expression tile schedulers (``schedule_bijection``, issue #27) against naive oracles
that share no code with ``layoutcheck.properties``, ``.models`` or ``.engines`` (they read the input values only).

Authorities:
- ``persistent``: CUTLASS 3.x, transliterated here from the C++: ``PersistentTileSchedulerSm90Params::initialize``
  and ``get_grid_shape`` (``tile_scheduler_params.h``: ``get_log_swizzle_size``, ``round_up(problem_blocks,
  (1 << log_swizzle) * cluster)``, ``get_rasterization_order``'s heuristic, the launch grid ``cm x ctas/cm`` AlongN,
  ``ctas/cn x cn`` AlongM) and ``PersistentTileSchedulerSm90`` (``sm90_tile_scheduler.hpp`` /
  ``static_tile_scheduler.hpp``: the linear index from ``blockIdx`` and ``gridDim``, ``+= total_grid_size`` per
  iteration, ``get_work_idx_m_and_n`` with ``block_id_in_cluster``): every CTA of the 2-D launch grid walked, its
  position in its cluster taken from its block index as the hardware does. The user variants (no rounding, a
  swizzle size in CUTLASS's mask arithmetic, the device's own raster order) change exactly the line they name;
- ``problems`` (grouped GEMM): CUTLASS's grouped problem visitor / Triton's grouped GEMM tutorial: the host launches
  ``host_count`` work tiles, the device walks the problems in order, each taking ``device_tiles`` indices, rastered
  column-major over its ``ceil_div`` tile grid; the texts evaluated by Python;
- ``clc``: CUTLASS's SM100 CLC scheduler, transliterated from ``PersistentTileSchedulerSm100Params::initialize``
  (``tile_scheduler_params.h``: the tile grid rounded up to the cluster, ``get_rasterization_order`` over the cluster
  counts with AlongN's 65535 grid.y fallback, ``divmod_swizzle_size_ = max_swizzle``, none at 1), ``get_grid_shape``
  / ``possibly_transpose_grid`` and ``swizzle_and_rasterize`` / ``possibly_transpose_work_tile``
  (``sm100_tile_scheduler.hpp``): every CTA id of the launch grid, as clusterlaunchcontrol hands each out once;
  the serpentine variants follow the header's comment (``M - new_m_local``) and its fix (``M - 1 - new_m_local``);
- ``expr``: the user's texts evaluated by Python itself (``eval`` with ``min``/``max``) for every (CTA, iteration)
  of the loop ``for t in range(cta, total, ctas)``.
A tile past the problem (``m >= GM`` or ``n >= GN``) of the persistent scheduler writes nothing (TMA bounds, the
epilogue's predicates), so it is not counted; an expression scheduler masks nothing but its loop bound.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import event, given, settings

from layoutcheck import Verdict, prove
from layoutcheck.check import check_property
from layoutcheck.spec.load import parse_spec
from tests.strategies_sem_schedulers import clc_schedulers, expr_schedulers, persistent_schedulers, problem_lists

pytest.importorskip("z3")


# -- CUTLASS SM90, transliterated -----------------------------------------------------------------------------------
def _log_swizzle(ctas_m: int, ctas_n: int, max_swizzle: int) -> int:
    least = min(ctas_m, ctas_n)
    if max_swizzle >= 8 and least >= 6:
        return 3
    if max_swizzle >= 4 and least >= 3:
        return 2
    if max_swizzle >= 2 and least >= 2:
        return 1
    return 0


def _round_up(a: int, b: int) -> int:
    return (a + b - 1) // b * b


def naive_persistent(s, gm: int, gn: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """``((cta, iteration), (m, n))`` for every work tile inside the problem, CUTLASS's loop over the launch grid.
    ``cta`` is the CTA's linear work index at iteration 0."""
    cm, cn = s.cluster
    size = s.swizzle_size or 1 << _log_swizzle(gm, gn, s.max_swizzle)
    pm = _round_up(gm, size * cm) if s.round_to_cluster else gm
    pn = _round_up(gn, size * cn) if s.round_to_cluster else gn
    along_n = s.raster == "n" or (s.raster == "heuristic" and not pn > pm)
    dev = s.device_raster or ("n" if along_n else "m")
    dev_n = dev == "n" or (dev == "heuristic" and not pn > pm)
    blocks = pm * pn
    major, minor = (cn, cm) if along_n else (cm, cn)  # divmod_cluster_shape_major / _minor
    blk_major = pn // cn if along_n else pm // cm
    blk_major = blk_major or 1  # FastDivmod(0): only with the rounding omitted, where no index reaches it
    grid = (cm, s.ctas // cm) if along_n else (s.ctas // cn, cn)
    out = []
    for bx, by in itertools.product(range(grid[0]), range(grid[1])):
        cta_m, cta_n = bx % cm, by % cn  # block_id_in_cluster
        linear = bx + by * grid[0] if along_n else bx * grid[1] + by
        first, it = linear, 0
        while linear < blocks:
            blk = linear // minor
            cluster_id, major_off = blk // major, blk % major
            minor_off = cta_m if dev_n else cta_n
            offset = cluster_id & (size - 1)
            extra = cluster_id // size  # cluster_id >> log_swizzle_size
            div_swizzle, idx_major = extra // blk_major, extra % blk_major
            idx_minor = div_swizzle * size + offset
            minor_work = idx_minor * minor + minor_off
            major_work = idx_major * major + major_off
            m, n = (minor_work, major_work) if dev_n else (major_work, minor_work)
            if m < gm and n < gn:
                out.append(((first, it), (m, n)))
            linear += s.ctas
            it += 1
    return out


def naive_clc(s, gm: int, gn: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """``((x, y), (m, n))`` for every CTA id of the SM100 launch grid whose tile lies inside the problem."""
    cm, cn = s.cluster
    pm, pn = _round_up(gm, cm), _round_up(gn, cn)
    tiles_m, tiles_n = pm // cm, pn // cn
    heuristic_n = not tiles_n > tiles_m and tiles_m * cn <= (1 << 16) - 1  # grid.y's limit
    along_n = heuristic_n if s.raster == "heuristic" else s.raster == "n"
    gx, gy = (tiles_n * cm, tiles_m * cn) if along_n else (pm, pn)
    size = s.max_swizzle if s.max_swizzle > 1 else 0
    out = []
    for x in range(gx):
        for y in range(gy):
            cta_m, cta_n = x, y
            if size:
                major, off_m = divmod(cta_m, cm)
                minor, off_n = divmod(cta_n, cn)
                minor_div, minor_mod = divmod(minor, size)
                major_clusters_div = (gx // cm) // size
                first_res_major = major_clusters_div * size
                first_res_minor = ((gy // cn) // size) * size
                if s.swizzle_residual or (major < first_res_major and minor < first_res_minor):
                    major_div, major_mod = divmod(major, size)
                    new_major = major_div + major_clusters_div * minor_mod
                    if s.serpentine and minor_div % 2 == 1:
                        new_major = first_res_major - new_major - (1 if s.serpentine == "reflect" else 0)
                    major, minor = new_major, major_mod + minor_div * size
                cta_m, cta_n = major * cm + off_m, minor * cn + off_n
            if along_n:
                (cl_m, r_m), (cl_n, r_n) = divmod(cta_m, cm), divmod(cta_n, cn)
                cta_m, cta_n = cl_n * cm + r_m, cl_m * cn + r_n
            if 0 <= cta_m < gm and 0 <= cta_n < gn:
                out.append(((x, y), (cta_m, cta_n)))
    return out


def naive_expr(s, gm: int, gn: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    env = {"min": min, "max": max, "ctas": s.ctas, "GM": gm, "GN": gn, "__builtins__": {}}
    total = eval(s.total_expr, dict(env))
    out = []
    for cta in range(s.ctas):
        for it, _t in enumerate(range(cta, total, s.ctas)):
            e = dict(env, cta=cta, iteration=it)
            out.append(((cta, it), (eval(s.tile_m, e), eval(s.tile_n, e))))
    return out


def naive_first_failure(prop, walk) -> tuple[int, int] | None:
    """The first grid (``GM`` slowest) where a tile is computed twice, never, or outside the grid."""
    for gm, gn in itertools.product(*[range(lo, hi + 1) for lo, hi in prop.grids]):
        hits = Counter(tile for _, tile in walk(prop.scheduler, gm, gn))
        if set(hits) != set(itertools.product(range(gm), range(gn))) or any(v != 1 for v in hits.values()):
            return gm, gn
    return None


def _witness_holds(prop, walk, w: dict) -> bool:
    gm, gn = w["grid"]
    tile = tuple(w["tile"])
    launches = walk(prop.scheduler, gm, gn)
    by = {idx: t for idx, t in launches}
    inside = 0 <= tile[0] < gm and 0 <= tile[1] < gn
    if w["kind"] == "missing":
        return inside and all(t != tile for _, t in launches)
    if w["kind"] == "outside":
        return not inside and by.get(tuple(w["index"])) == tile
    return w["index"] != w["other"] and by.get(tuple(w["index"])) == tile == by.get(tuple(w["other"]))


def _agrees(prop, walk) -> Verdict:
    """Every engine's verdict is the naive one; the exhaustive engine's witness is at the naive first grid; every
    witness holds in the naive walk. Returns the naive verdict."""
    first = naive_first_failure(prop, walk)
    want = Verdict.PROVEN if first is None else Verdict.REFUTED
    event(want.name)
    for engine in ("exhaustive", "z3"):
        r = prove(prop, engine=engine, timeout=60)
        if engine == "z3" and r.status is Verdict.UNKNOWN:
            continue  # a timeout is never a verdict; the exhaustive engine decided
        assert r.status is want, (engine, r)
        if first is not None:
            assert _witness_holds(prop, walk, r.counterexample.data), (engine, r.counterexample.data)
            if engine == "exhaustive":
                assert tuple(r.counterexample.data["grid"]) == first
    return want


@settings(max_examples=40, deadline=None)
@given(persistent_schedulers())
def test_persistent_is_cutlass(prop) -> None:
    _agrees(prop, naive_persistent)


@settings(max_examples=40, deadline=None)
@given(clc_schedulers())
def test_clc_is_cutlass(prop) -> None:
    _agrees(prop, naive_clc)


@settings(max_examples=40, deadline=None)
@given(expr_schedulers())
def test_expr_is_the_loop(prop) -> None:
    _agrees(prop, naive_expr)


def naive_problems(s, sizes: tuple[tuple[int, int], ...]) -> list[tuple[int, tuple[int, int, int]]]:
    """``(t, (problem, m, n))`` for every launched work index the device maps into a problem."""
    tm, tn = s.block
    walked = [eval(s.device_tiles, {"__builtins__": {}, "M": m, "N": n, "TM": tm, "TN": tn})
              for m, n in sizes]
    env = {"__builtins__": {}, "P": len(sizes), "TM": tm, "TN": tn, "tiles": sum(walked),
           "sum_M": sum(m for m, _ in sizes), "max_M": max(m for m, _ in sizes),
           "sum_N": sum(n for _, n in sizes), "max_N": max(n for _, n in sizes)}
    host = int(eval(s.host_count, env))
    out = []
    for t in range(host):
        start = 0
        for p, (m, _) in enumerate(sizes):
            if start <= t < start + walked[p]:
                local, gm = t - start, -(-m // tm)
                out.append((t, (p, local % gm, local // gm)))
                break
            start += walked[p]
    return out


def naive_list_failure(prop) -> tuple | None:
    """The first problem list (shorter first) where some problem's tile is computed twice, never, or outside."""
    one = list(itertools.product(*[range(lo, hi + 1) for lo, hi in prop.sizes]))
    tm, tn = prop.scheduler.block
    for n_problems in range(prop.problems[0], prop.problems[1] + 1):
        for sizes in itertools.product(one, repeat=n_problems):
            hits = Counter(tile for _, tile in naive_problems(prop.scheduler, sizes))
            want = {(p, a, b) for p, (m, n) in enumerate(sizes)
                    for a, b in itertools.product(range(-(-m // tm)), range(-(-n // tn)))}
            if set(hits) != want or any(v != 1 for v in hits.values()):
                return sizes
    return None


@settings(max_examples=40, deadline=None)
@given(problem_lists())
def test_problem_lists_are_the_loop(prop) -> None:
    first = naive_list_failure(prop)
    want = Verdict.PROVEN if first is None else Verdict.REFUTED
    event(want.name)
    for engine in ("exhaustive", "z3"):
        r = prove(prop, engine=engine, timeout=60)
        if engine == "z3" and r.status is Verdict.UNKNOWN:
            continue
        assert r.status is want, (engine, r)
        if first is None:
            continue
        w = r.counterexample.data
        sizes = tuple(tuple(z) for z in w["problems"])
        if engine == "exhaustive":
            assert sizes == first
        launched = {t: tile for t, tile in naive_problems(prop.scheduler, sizes)}
        tile = (w["problem"], *w["tile"])
        m, n = sizes[w["problem"]]
        inside = w["tile"][0] < -(-m // prop.scheduler.block[0]) and w["tile"][1] < -(-n // prop.scheduler.block[1])
        named = [k[0] + prop.scheduler.ctas * k[1] for k in (w.get("index"), w.get("other")) if k is not None]
        if w["kind"] == "missing":
            assert inside and tile not in launched.values()
        else:
            assert named and all(launched.get(t) == tile for t in named)
            assert (not inside) if w["kind"] == "outside" else len(set(named)) == 2


def _spec(body: str) -> object:
    text = f'format = 1\n[[config]]\nname = "s"\nkind = "scheduler"\n{body}\nproperties = ["schedule_bijection"]\n'
    cfg = parse_spec(text).configs[0]
    return check_property(cfg, cfg.properties[0])


def test_broken_variants_refuted_and_fixes_proven() -> None:
    """Each user mistake is REFUTED with the tile (and the CTA and iteration where one computes it); its fix is
    PROVEN, over every grid of the box."""
    grids = 'grids = { GM = [1, 24], GN = [1, 24] }'
    base = f'scheduler = "persistent"\nctas = 132\nmax_swizzle = 8\n{grids}'
    assert _spec(base).status == "PROVEN"
    row = _spec(base + "\nround_to_cluster = false")
    assert row.status == "REFUTED" and "tile (1,2) is computed by no CTA" in row.counterexample
    row = _spec(f'scheduler = "persistent"\nctas = 132\nswizzle_size = 3\n{grids}')
    assert row.status == "REFUTED" and "CTA 0 at iteration 0" in row.counterexample
    assert _spec(f'scheduler = "persistent"\nctas = 132\nswizzle_size = 4\n{grids}').status == "PROVEN"
    row = _spec(f'scheduler = "persistent"\nctas = 132\nraster = "heuristic"\ndevice_raster = "m"\n{grids}')
    assert row.status == "REFUTED"
    assert _spec(f'scheduler = "persistent"\nctas = 132\nraster = "heuristic"\n'
                 f'device_raster = "heuristic"\n{grids}').status == "PROVEN"


@pytest.mark.parametrize("body, key", [
    ('scheduler = "persistent"\nctas = 131\ncluster = [2, 1]', "scheduler"),
    ('scheduler = "expr"\nctas = 4\ntile_m = "cta +"\ntile_n = "0"', "tile_m"),
    ('scheduler = "expr"\nctas = 4\ntile_m = "cta"\ntile_n = "lane"', "tile_n"),
    ('scheduler = "expr"\nctas = 4\ntile_m = "cta"', "scheduler"),
    ('scheduler = "grouped"\nraster = "m"', "raster"),
])
def test_unreadable_scheduler_is_an_error(body, key) -> None:
    row = _spec(body + '\ngrids = { GM = [1, 4], GN = [1, 4] }')
    assert row.status == "ERROR" and row.key == key, row
