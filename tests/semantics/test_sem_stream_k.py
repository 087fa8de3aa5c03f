"""Semantics of CUTLASS's SM90 stream-K tile scheduler (``schedule_bijection`` of ``scheduler = "stream_k"``, issue
#27) against a naive oracle that shares no code with ``layoutcheck.properties``, ``.models`` or ``.engines`` (it
reads the scheduler's input values only).

Authority: CUTLASS 3.x, transliterated here line by line from the C++ (1x1 clusters, one batch):
``PersistentTileSchedulerSm90StreamKParams`` (``tile_scheduler_params.h``: ``select_decomposition_mode``,
``get_num_sk_tiles``, ``get_num_sk_units``, ``calculate_groups``, ``adjust_split_count``, ``set_params_basic``,
``set_params_stream_k``) and ``PersistentTileSchedulerSm90StreamK`` (``sm90_tile_scheduler_stream_k.hpp``:
``get_current_work_for_linear_idx``, ``assign_work``,
``get_current_work_iter_start_possible_update_work_tile_k_remaining``, ``update_output_tile_id_and_work_tile_k``,
``continue_current_work_for_linear_idx``, ``WorkTileInfo::is_valid`` / ``is_final_split``, ``fixup_helper``'s
lock: the final split's ``wait_eq(lock, K_idx)``, or NVIDIA/cutlass#2027's wait for the first store), and the
kernel's loop
(``sm90_gemm_tma_warpspecialized_cooperative.hpp``: ``while (work_tile_info.is_valid())``, ``fetch_next_work``,
``advance_to_next_work`` by the grid size). Every CTA of the persistent grid is run; each work tile it computes is
recorded as ``(tile, K_idx, k_tile_count)``; ``uint32`` arithmetic wraps as in C++.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import event, given, settings

from layoutcheck import Verdict, prove
from layoutcheck.check import check_property
from layoutcheck.spec.load import parse_spec
from tests.strategies_sem_stream_k import stream_k_schedulers

MIN_ITERS = 8
U32 = 1 << 32


def naive_params(s, tiles: int, k: int) -> dict:
    """The host: the fields of ``PersistentTileSchedulerSm90StreamKParams`` after ``initialize``."""
    ctas = s.ctas
    p = {"k": k, "splits": 1, "sk_tiles": 0, "sk_units": 0, "groups": 1, "big_groups": 0, "big_units": 0,
         "units_per_problem": tiles, "k_per_sk_unit": k, "sk_units_per_group": 1}

    def basic(splits: int) -> dict:
        p.update(splits=splits, units_per_problem=tiles, big_units=k % splits, k_per_sk_unit=k // splits)
        return p

    if s.decomposition == "split_k" or (s.decomposition == "heuristic" and s.splits > 1):
        splits = min(s.splits, ctas)
        splits = min(splits, k)
        if s.alignment > 1 and splits > 1 and k // splits == 1:
            splits = k // s.alignment
        return basic(splits)
    full, total = tiles // ctas, (tiles + ctas - 1) // ctas
    sk_tiles = 0
    if s.decomposition not in ("data_parallel", "split_k"):
        dp_waves = full - 1 if full > 1 else 0
        sk_tiles = tiles - dp_waves * ctas
        if full == total or k <= MIN_ITERS or (s.decomposition == "heuristic" and 2 * (tiles - full * ctas) >= ctas):
            sk_tiles = 0
    sk_units = min(ctas, (k * sk_tiles) // MIN_ITERS)
    if s.decomposition == "data_parallel" or (s.decomposition == "heuristic" and sk_tiles == 0) or sk_units == 0:
        return basic(1)
    if s.decomposition == "heuristic" and sk_tiles < sk_units and sk_units % sk_tiles == 0:
        return basic(sk_units // sk_tiles)
    # calculate_groups
    groups = min(s.max_groups, 8)
    fallback = 0

    def too_small(g):
        return ((sk_tiles // g) * k) // (sk_units // g) < MIN_ITERS

    while groups > 1 and not (sk_units % groups == 0 and sk_tiles % groups == 0 and not too_small(groups)):
        if fallback == 0 and sk_units % groups == 0 and not too_small(groups):
            fallback = groups
        groups -= 1
    if groups == 1 and fallback > 0:
        groups = fallback
    per_group = sk_units // groups
    k_per_group = k * (sk_tiles // groups)
    p.update(sk_tiles=sk_tiles, sk_units=sk_units, groups=groups, big_groups=sk_tiles % groups,
             units_per_problem=tiles - sk_tiles + sk_units, sk_units_per_group=per_group,
             k_per_sk_unit=k_per_group // per_group, big_units=k_per_group % sk_units)
    return p


def naive_assign(s, p: dict, idx: int, info: dict) -> int:
    """``assign_work`` for linear index ``idx`` into ``info``; returns ``unit_iter_start``."""
    k = p["k"]
    if idx >= p["sk_units"] and p["splits"] == 1:  # data-parallel work
        info.update(tile=idx - p["sk_units"] + p["sk_tiles"], K_idx=0, count=k, remaining=k)
        return 0
    # get_current_work_iter_start_possible_update_work_tile_k_remaining
    group, cluster_idx = idx % p["groups"], idx // p["groups"]
    tiles_in_group = p["sk_tiles"] // p["groups"] + (1 if group < p["big_groups"] else 0)
    k_in_group = tiles_in_group * k
    k_per_unit_in_group = k_in_group // p["sk_units_per_group"]
    big_in_group = k_in_group - k_per_unit_in_group * p["sk_units_per_group"]
    if not s.big_units:
        big_in_group = 0
    clusters_mnl = p["sk_units"] if p["splits"] == 1 else p["units_per_problem"]
    split, cluster_idx = divmod(cluster_idx, clusters_mnl)
    is_split_k = p["splits"] > 1
    lhs = split if is_split_k else cluster_idx
    rhs = p["big_units"] if is_split_k else big_in_group
    mult = k if is_split_k else k_per_unit_in_group
    k_per_split = p["k_per_sk_unit"] if is_split_k else k_per_unit_in_group
    start = (mult * cluster_idx + k_per_split * split) % U32
    mine = k_per_split
    if lhs < rhs:
        start += lhs
        mine += 1
    else:
        start += rhs
    if not is_split_k:
        t = start % k
        if t < MIN_ITERS:
            start -= t
            mine += t
        elif t > k - MIN_ITERS:
            start += k - t
            mine -= k - t
        elif s.alignment == 2 and t % 2:
            start -= 1
            mine += 1
        end_t = (start + mine) % k
        if not s.end_adjust:
            pass
        elif end_t < MIN_ITERS:
            mine -= end_t
        elif end_t > k - MIN_ITERS:
            mine += k - end_t
        elif s.alignment == 2 and end_t % 2:
            mine -= 1
    info["remaining"] = mine % U32
    naive_update(p, idx, start, info)
    return start


def naive_update(p: dict, idx: int, start: int, info: dict) -> None:
    """``update_output_tile_id_and_work_tile_k``: the tile of the unit's last remaining iteration."""
    k = p["k"]
    end = (start + info["remaining"] - 1) % U32
    tile_in_group = end // k
    tile_start, tile_end = tile_in_group * k, tile_in_group * k + k
    tile = tile_in_group * p["groups"] + idx % p["groups"]  # split-K: one group (set_params_basic)
    lo, hi = max(tile_start, start), min(tile_end, end + 1)
    info.update(tile=tile, K_idx=lo - tile_start, count=hi - lo)


def naive_walk(s, tiles: int, k: int) -> list[tuple[int, int, int, int]]:
    """``(cta, tile, K_idx, count)`` of every valid work tile every CTA computes, as the kernel's loop runs."""
    p = naive_params(s, tiles, k)
    limit = p["units_per_problem"] * p["splits"]
    out = []
    for cta in range(s.ctas):
        idx = cta
        while idx < limit:
            info: dict = {}
            start = naive_assign(s, p, idx, info)
            if info["count"] <= 0:  # WorkTileInfo::is_valid() is false: the CTA's loop ends
                break
            while True:
                out.append((cta, info["tile"], info["K_idx"], info["count"]))
                info["remaining"] -= info["count"]
                if info["remaining"] <= 0:  # continue_current_work: no iterations left in the unit
                    break
                naive_update(p, idx, start, info)
                if info["count"] <= 0:
                    break
            idx += s.ctas
    return out


def naive_early_final(s, walk, k: int) -> tuple[int, int] | None:
    """``(tile, K_idx)`` of a peer whose partial a final split may miss: ``fixup_helper``'s lock played out. The
    non-final peers arrive in ``K_idx`` order (each waits for the lock to reach its ``K_idx``, or for the first's
    store), adding ``k_tile_count``; the final split proceeds at ``lock == K_idx`` (both reduction modes) or, in
    NVIDIA/cutlass#2027's code, at ``lock >= 1``."""
    by_tile: dict = {}
    for _, tile, k0, n in walk:
        by_tile.setdefault(tile, []).append((k0, n))
    for tile, pieces in sorted(by_tile.items()):
        pieces.sort()
        final = [k0 for k0, n in pieces if k0 + n == k]
        peers = [(k0, n) for k0, n in pieces if k0 + n != k]
        if len(final) != 1 or not peers:
            continue
        lock = 0
        for j, (_, n) in enumerate(peers):
            lock += n
            ready = lock >= 1 if s.reduction == "final_waits_first" else lock == final[0]
            if ready and j + 1 < len(peers):
                return tile, peers[j + 1][0]
    return None


def naive_fault(s, tiles: int, k: int) -> bool:
    hits: Counter = Counter()
    walk = naive_walk(s, tiles, k)
    for _, tile, k0, n in walk:
        if not (0 <= tile < tiles and k0 >= 0 and k0 + n <= k):
            return True
        for x in range(k0, k0 + n):
            hits[(tile, x)] += 1
    if any(hits[(t, x)] != 1 for t in range(tiles) for x in range(k)) or len(hits) != tiles * k:
        return True
    return naive_early_final(s, walk, k) is not None


def naive_first(prop) -> tuple[int, int] | None:
    for tiles, k in itertools.product(*[range(lo, hi + 1) for lo, hi in prop.grids]):
        if naive_fault(prop.scheduler, tiles, k):
            return tiles, k
    return None


@settings(max_examples=150, deadline=None)
@given(stream_k_schedulers())
def test_stream_k_is_cutlass(prop) -> None:
    """The verdict is the naive one; the witness is at the naive first failing problem and holds in the naive walk
    (its ``(tile, k)`` computed never, twice, or outside)."""
    first = naive_first(prop)
    want = Verdict.PROVEN if first is None else Verdict.REFUTED
    event(want.name)
    r = prove(prop, timeout=120)
    assert r.status is want, (r, first)
    if first is None:
        return
    w = r.counterexample.data
    assert tuple(w["grid"]) == first
    walk = naive_walk(prop.scheduler, *first)
    if w["kind"] == "fixup":
        assert naive_early_final(prop.scheduler, walk, first[1]) == (w["tile"], w["k"])
        return
    tile, k = w["tile"]
    hits = [c for c, t, k0, n in walk if t == tile and k0 <= k < k0 + n]
    if w["kind"] == "missing":
        assert not hits
    elif w["kind"] == "duplicate":
        assert len(hits) >= 2 and w["index"][0] in hits and w["other"][0] in hits
    else:
        assert any(c == w["index"][0] and (t, k0) == (tile, k) for c, t, k0, _ in walk)


def _row(body: str):
    text = (f'format = 1\n[[config]]\nname = "s"\nkind = "scheduler"\nscheduler = "stream_k"\n{body}\n'
            'properties = ["schedule_bijection"]\n')
    cfg = parse_spec(text).configs[0]
    return check_property(cfg, cfg.properties[0])


def test_worked_examples() -> None:
    """The user guide's examples: CUTLASS's arithmetic PROVEN; the big units dropped REFUTED at 4 tiles x 11."""
    grids = "grids = { tiles = [1, 40], k_tiles = [1, 40] }"
    assert _row(f'ctas = 8\ndecomposition = "stream_k"\n{grids}').status == "PROVEN"
    row = _row(f'ctas = 8\ndecomposition = "stream_k"\nbig_units = false\n{grids}')
    assert row.status == "REFUTED" and "4 tiles x 11 k-tiles" in row.counterexample
    assert "k-iteration 0 of tile 3 is computed by no CTA" in row.counterexample
    row = _row(f'ctas = 8\ndecomposition = "stream_k"\nend_adjust = false\n{grids}')
    assert row.status == "REFUTED" and "k-iteration 8 of tile 0 is computed by no CTA" in row.counterexample


@pytest.mark.parametrize("body, key", [('ctas = 8\ncluster = [2, 1]', "cluster"),
                                       ('ctas = 8\ndecomposition = "stream_k"\nsplits = 2', "scheduler"),
                                       ('ctas = 8\nalignment = 3', "scheduler")])
def test_unreadable_stream_k_is_an_error(body, key) -> None:
    row = _row(body + '\ngrids = { tiles = [1, 4], k_tiles = [1, 4] }')
    assert row.status == "ERROR" and row.key == key, row
