"""The plan streams (issue #29): ``plan`` keeps per file its counts, its text (in a spool, in memory then on disk)
and its content digest, never one object per config; units are made file by file as they run, and a pool is fed in
bounded windows -- the same rows, in the same order, as one list gave."""

from __future__ import annotations

import gc
import os
from pathlib import Path

from layoutcheck import check, check_plan, check_roads
from layoutcheck.check import check_paths
from layoutcheck.check_plan import PlannedUnits, content_digest
from layoutcheck.check_roads import plan

SHAPES = ["(8,4):(4,1)", "(4,8):(1,4)", "(4,4):(1,2)", "(2,8):(8,1)"]  # the third is not injective


def _specs(tmp_path: Path, files: int, per_file: int) -> list[str]:
    out = []
    for k in range(files):
        body = "".join(f'[[config]]\nname = "c{k}_{i}"\nkind = "layout"\nlayout = "{SHAPES[(k + i) % 4]}"\n'
                       f'properties = ["injective", "bijective"]\n' for i in range(per_file))
        p = tmp_path / f"s{k:02d}.toml"
        p.write_text("format = 1\n" + body)
        out.append(str(p))
    return out


def _strip(rows):
    return [(r.file, r.config, r.property, r.status, r.counterexample, r.line) for r in rows]


def test_plan_holds_counts_per_file_not_units(tmp_path):
    paths = _specs(tmp_path, 3, 5)
    p = plan([str(tmp_path)])
    assert isinstance(p.units, PlannedUnits) and len(p.units.files) == 3
    assert len(p.units) == 15 and p.checks == 30
    units = list(p.units)
    assert [(u.file, u.index) for u in units] == [(f, i) for f in paths for i in range(5)]
    assert list(p.units) == units  # re-iterable
    assert all(u.planned.digest == content_digest(Path(u.file).read_text()) for u in units)


def test_the_caches_are_keyed_by_a_digest_of_the_content(tmp_path):
    (path,) = _specs(tmp_path, 1, 2)
    check_paths([path])
    text = Path(path).read_text()
    assert (path, content_digest(text)) in check_roads._SPECS
    assert not any(isinstance(k[1], str) for k in check_roads._SPECS)  # no text kept as a key


def test_a_spooled_plan_checks_the_content_it_planned(tmp_path, monkeypatch):
    """Past ``SPOOL_IN_MEMORY`` the planned texts go to a temporary file: a file rewritten after ``plan`` is still
    checked as planned, and the spool file goes with the plan."""
    monkeypatch.setattr(check_plan, "SPOOL_IN_MEMORY", 0)
    paths = _specs(tmp_path, 2, 3)
    before = _strip(check_paths(paths))
    check_roads._SPECS.clear()
    p = plan(paths)
    spool = p.units.files[0].planned.blob.path
    assert spool is not None and os.path.exists(spool)
    for f in paths:
        Path(f).write_text("format = 1\n")  # no configs any more
    check_roads._SPECS.clear()  # nothing cached: the run reads the spool
    assert _strip(check_paths(paths, planned=p)) == before
    assert _strip(check_paths(paths, planned=p, jobs=2)) == before
    del p
    gc.collect()
    assert not os.path.exists(spool)


def test_a_pool_fed_in_windows_gives_the_rows_of_one_list(tmp_path, monkeypatch):
    paths = _specs(tmp_path, 4, 7)
    serial = _strip(check_paths(paths, jobs=1))
    assert {r[3] for r in serial} >= {"PROVEN", "REFUTED"}
    monkeypatch.setattr(check, "POOL_WINDOW", 3)  # many windows, each smaller than a file
    assert _strip(check_paths(paths, jobs=2)) == serial
    assert _strip(check_paths([*paths, paths[0]], jobs=2)) == _strip(check_paths([*paths, paths[0]], jobs=1))


def test_a_plan_holds_no_memory_per_config(tmp_path, monkeypatch):
    """With its texts spooled to disk, a plan holds memory per file, not per config (issue #29): what goes when a
    plan of 6,000 configs goes is under 8 bytes a config (one ``Unit`` apiece was ~100, its text ~100 more)."""
    import tracemalloc

    from layoutcheck.spec import load

    monkeypatch.setattr(check_plan, "SPOOL_IN_MEMORY", 0)
    _specs(tmp_path, 2, 3000)
    tracemalloc.start()
    try:
        p = plan([str(tmp_path)])
        assert len(p.units) == 6000
        check_roads._SPECS.clear()  # the parse caches (bounded, not the plan's)
        check_roads._held_configs = 0
        load._lines.cache_clear()
        gc.collect()
        with_plan = tracemalloc.get_traced_memory()[0]
        del p
        gc.collect()
        held = with_plan - tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held < 6000 * 8, held
