"""The streaming exhaustive decisions (``properties.scan``: chunks, one mark byte per value) give exactly the
decisions, witnesses and stats of the whole-array reference -- the definitions evaluated on every offset at once --
with chunks small enough that every domain is scanned in many pieces; and they stay within their memory per point."""

from __future__ import annotations

import tracemalloc
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutcheck import ComposedLayout, Layout, Swizzle
from layoutcheck.algebra.layout import size
from layoutcheck.properties import scan
from layoutcheck.properties.base import Decision, first_out_of_range, pair_witness, smallest_collision
from layoutcheck.properties.layout import (
    bijective,
    equivalent,
    in_bounds,
    injective,
    surjective,
)
from layoutcheck.properties.tv import exact_cover, vectorizable
from tests.strategies_engines import nonnegative_subjects, signed_layouts, subjects, tv_maps


@pytest.fixture(autouse=True)
def _tiny_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan, "CHUNK", 16)


def _offs(x: Any) -> np.ndarray:
    return np.array([x(i) for i in range(size(getattr(x, "layout", x)))], dtype=np.int64)


def ref_injective(x: Any) -> Decision:
    offs = _offs(x)
    pair = smallest_collision(offs)
    stats = {"collisions": int(offs.size - np.unique(offs).size)}
    return Decision(True, None, stats) if pair is None else Decision(False, pair_witness(*pair), stats)


def ref_onto(x: Any, n: int, need_injective: bool) -> Decision | None:
    offs, m = _offs(x), size(getattr(x, "layout", x))
    if m < n or (need_injective and m != n):
        return None  # decided by counting alone, before any scan
    i = first_out_of_range(offs, n)
    if i is not None:
        return Decision(False, {"kind": "out", "i": i}, {})
    counts = np.bincount(offs, minlength=n)
    stats = {"missing": int((counts == 0).sum()), "multiply_hit": int((counts > 1).sum())}
    if m == n and stats["missing"] == 0:
        return Decision(True, None, stats)
    if need_injective or m == n:
        pair = smallest_collision(offs)
        return Decision(True, None, stats) if pair is None else Decision(False, pair_witness(*pair), stats)
    missing = np.flatnonzero(counts == 0)
    return Decision(True, None, stats) if missing.size == 0 else Decision(False, {"kind": "missing",
                                                                                   "y": int(missing[0])}, stats)


def same(got: Decision, want: Decision) -> None:
    assert (got.holds, got.witness, got.stats) == (want.holds, want.witness, want.stats)


@settings(max_examples=150, deadline=None)
@given(st.one_of(subjects(), signed_layouts()))
def test_injective_and_in_bounds_match_the_reference(x: Any) -> None:
    same(injective(x).exhaustive(), ref_injective(x))
    offs = _offs(x)
    for e in (1, int(offs.max()) + 1, int(offs.max())):
        if e <= 0:
            continue
        bad = np.flatnonzero((offs < 0) | (offs >= e))
        want = Decision(True, None, {"out_of_bounds": 0}) if bad.size == 0 else \
            Decision(False, {"kind": "out", "i": int(bad[0])}, {"out_of_bounds": int(bad.size)})
        same(in_bounds(x, e).exhaustive(), want)


@settings(max_examples=150, deadline=None)
@given(nonnegative_subjects(), st.integers(0, 3))
def test_onto_matches_the_reference(x: Any, shrink: int) -> None:
    m = size(x.layout)
    n = max(1, m >> shrink)
    for make, inj in ((surjective, False), (bijective, True)):
        try:
            prop = make(x, n)
        except Exception:  # the codomain cannot hold the image: rejected when built, not an engine's business
            continue
        want = ref_onto(x, n, inj)
        if want is not None:
            same(prop.exhaustive(), want)


@settings(max_examples=100, deadline=None)
@given(subjects(), st.data())
def test_equivalent_matches_the_reference(a: Any, data: st.DataObject) -> None:
    lay = a.layout if isinstance(a, ComposedLayout) else a
    b = data.draw(st.sampled_from([Layout(lay.shape), lay, ComposedLayout(Swizzle(1, 0, 1), 0, lay)]))
    diff = np.flatnonzero(_offs(a) != _offs(b))
    want = Decision(True, None, {"differing": 0}) if diff.size == 0 else \
        Decision(False, {"kind": "differ", "i": int(diff[0])}, {"differing": int(diff.size)})
    same(equivalent(a, b).exhaustive(), want)


@settings(max_examples=100, deadline=None)
@given(tv_maps())
def test_tv_properties_match_the_reference(tv: Layout) -> None:
    offs, n, nt = _offs(tv), size(tv), size(tv[0])
    if offs.min() >= 0 and offs.max() < n:
        counts = np.bincount(offs, minlength=n)
        bad = np.flatnonzero(counts != 1)
        got = exact_cover(tv, (n,)).exhaustive()
        assert got.holds == (bad.size == 0)
        if bad.size:
            y = int(bad[0])
            assert got.witness == {"kind": "owners", "y": y, "owners": np.flatnonzero(offs == y)[:64].tolist(),
                                   "count": int(counts[y])}
            assert got.stats == {"missing": int((counts == 0).sum()), "over_owned": int((counts > 1).sum()),
                                 "under_owned": int((counts < 1).sum())}
    nv = size(tv[1])
    for w in (1, 2, 4):
        if nv % w:
            continue
        o = offs.reshape(-1, w, nt)
        ok = ((o - o[:, :1, :]) == np.arange(w).reshape(1, w, 1)).all(axis=1) & (o[:, 0, :] % w == 0)
        bad = np.argwhere(~ok)
        got = vectorizable(tv, 4 * w, 4).exhaustive()
        assert got.stats == {"vectors": int(ok.size), "failing_vectors": int(bad.shape[0])}
        if bad.shape[0]:
            g, t = (int(v) for v in bad[np.lexsort((bad[:, 0], bad[:, 1]))[0]])
            assert got.witness == {"kind": "vector", "t": t, "g": g}


@pytest.mark.parametrize("prop", [
    bijective(ComposedLayout(Swizzle(3, 4, 3), 0, Layout((1024, 1024), (1024, 1)))),
    injective(ComposedLayout(Swizzle(3, 4, 3), 0, Layout((1024, 1024), (1024, 1)))),
    in_bounds(Layout((1024, 1024), (1024, 1)), 1 << 20),
    exact_cover(Layout((1024, 1024), (1, 1024)), (1024, 1024)),
])
def test_peak_memory_stays_within_bytes_per_point(prop: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan, "CHUNK", 1 << 16)
    n = prop.domain_size()
    tracemalloc.start()
    try:
        assert prop.exhaustive().holds
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= prop.bytes_per_point * n + (4 << 20), (peak / n, prop.bytes_per_point)
    assert prop.bytes_per_point <= 12
