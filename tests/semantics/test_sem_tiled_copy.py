"""Semantics of tiled copies over tiles that need not divide (kind ``tiled_copy``, ``residue_cover``, issue #27)
against a naive oracle that shares no code with ``layoutcheck.properties``, ``.models``, ``.engines`` or
``layoutcheck.algebra`` (it reads the input values only).

Authority: CuTe (``include/cute/atom/copy_atom.hpp``). ``make_tiled_copy(atom, thr_layout, val_layout)`` builds
``layout_mn = raked_product(thr_layout, val_layout)`` -- mode ``i`` of the copy tile is ``(val_i, thr_i)``, the
values the inner coordinate, so a copy tile element ``(m, n)`` is value ``(m % VM, n % VN)`` of thread
``(m // VM, n // VN)`` --, its tiler ``product_each(shape(layout_mn)) = (TM*VM, TN*VN)``, and ``layout_tv`` its right
inverse: element ``(m, n)`` belongs to thread ``thr(m // VM, n // VN)``, value ``val(m % VM, n % VN)`` (compact
layouts). ``ThrCopy::partition_S`` is ``tidfrg_S`` = ``tile2thrfrg(zipped_divide(tensor, Tiler_MN))``: the copy
tile repeated ``ceil_div(extent, tiler)`` times per mode (``logical_divide``'s complement rounds up), so the last
copy tile runs past a tile the tiler does not divide. Each access's coordinate is the identity tensor's value
(``make_identity_tensor``, partitioned the same way); ``copy`` performs every access, ``copy_if`` with the
predicate ``elem_less(coord, shape)`` only those inside. A truncating ``/`` for the copy-tile count is the user's
mistake the ``div`` count models.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

import pytest
from hypothesis import event, given, settings

from layoutcheck.check import check_property
from layoutcheck.errors import SpecError
from layoutcheck.spec.load import parse_spec
from tests.strategies_sem_tiled_copy import tiled_copy_specs

pytest.importorskip("z3")


def _apply(layout, crd) -> int:
    (_, _), (s, t) = layout
    return crd[0] * s + crd[1] * t


def naive_owner(cfg: dict, local: tuple[int, int]) -> tuple[int, int]:
    """``(thread, value)`` of copy-tile element ``local`` (``make_tiled_copy``'s ``layout_tv`` inverted)."""
    (vm, vn), _ = cfg["values"]
    m, n = local
    return _apply(cfg["threads"], (m // vm, n // vn)), _apply(cfg["values"], (m % vm, n % vn))


def naive_break(cfg: dict, sizes: tuple[int, int]) -> dict | None:
    """The smallest broken coordinate of one tile size: every access of every copy tile, predicated or not."""
    tm = cfg["threads"][0][0] * cfg["values"][0][0]
    tn = cfg["threads"][0][1] * cfg["values"][0][1]
    count = (lambda s, b: -(-s // b)) if cfg["count"] == "ceil_div" else (lambda s, b: s // b)
    owners: Counter = Counter()
    oob = []
    for i, j in itertools.product(range(count(sizes[0], tm)), range(count(sizes[1], tn))):
        for m, n in itertools.product(range(tm), range(tn)):
            c = (i * tm + m, j * tn + n)
            inside = c[0] < sizes[0] and c[1] < sizes[1]
            if inside:
                owners[c] += 1
            elif cfg["predicate"] == "none":
                oob.append(c)
    broken = [(c, "oob", 0) for c in oob]
    broken += [(e, "owners", owners[e]) for e in itertools.product(*map(range, sizes)) if owners[e] != 1]
    if not broken:
        return None
    coord, kind, n = min(broken)
    return {"kind": kind, "sizes": list(sizes), "coord": list(coord), "count": n}


def naive_first(cfg: dict) -> dict | None:
    ranges = cfg.get("sizes") or tuple((t, t) for t in cfg["tile"])
    for sizes in itertools.product(*[range(lo, hi + 1) for lo, hi in ranges]):
        w = naive_break(cfg, sizes)
        if w is not None:
            return w
    return None


def _row(text: str):
    cfg = parse_spec(text).configs[0]
    return check_property(cfg, cfg.properties[0])


@settings(max_examples=120, deadline=None)
@given(tiled_copy_specs())
def test_tiled_copy_is_cute_partition(cfg) -> None:
    """The verdict is the naive one; a witness is at the naive first failing size and coordinate, and an
    out-of-range access names the (thread, value) of ``make_tiled_copy`` that performs it."""
    want = naive_first(cfg)
    event("PROVEN" if want is None else "REFUTED")
    row = _row(cfg["text"])
    assert row.status == ("PROVEN" if want is None else "REFUTED"), (row, want)
    if want is None:
        return
    text = row.counterexample
    at = "(" + ",".join(map(str, want["coord"])) + ")"
    assert f"element {at}" in text, (text, want)
    sizes = re.search(r"tile M=(\d+) x [A-Za-z]+=(\d+)", text)
    assert sizes and [int(sizes[1]), int(sizes[2])] == want["sizes"], (text, want)
    if want["kind"] == "oob":
        tm = cfg["threads"][0][0] * cfg["values"][0][0]
        tn = cfg["threads"][0][1] * cfg["values"][0][1]
        c = want["coord"]
        t, v = naive_owner(cfg, (c[0] % tm, c[1] % tn))
        assert f"thread {t}, value {v} of copy tile ({c[0] // tm},{c[1] // tn})" in text, (text, want)
        assert "outside the tile" in text
    else:
        assert ("no thread copies" in text) == (want["count"] == 0), (text, want)


def test_head_dimension_worked_example() -> None:
    """The user guide's example: 128 threads (16 rows x 8 column threads) copying 8-element vectors, a 64 x 96
    tile: the copy tiler is 16 x 64, so the second copy tile along d runs past 96."""
    base = ('format = 1\n[[config]]\nname = "c"\nkind = "tiled_copy"\nthreads = "(16,8):(8,1)"\n'
            'values = "(1,8):(1,1)"\n')
    row = _row(base + 'tile = [64, 96]\nproperties = ["residue_cover"]\n')
    assert row.status == "REFUTED"
    assert "thread 4, value 0 of copy tile (0,1) copies element (0,96), outside the tile" in row.counterexample
    row = _row(base + 'tile = [64, 96]\npredicate = "coord_lt_shape"\nproperties = ["residue_cover"]\n')
    assert row.status == "PROVEN"
    row = _row(base + 'sizes = { M = [64, 64], d = [1, 256] }\npredicate = "coord_lt_shape"\n'
               'properties = ["residue_cover"]\n')
    assert row.status == "PROVEN"
    row = _row(base + 'sizes = { M = [64, 64], d = [64, 256] }\nproperties = ["residue_cover"]\n')
    assert row.status == "REFUTED" and "tile M=64 x d=65" in row.counterexample


@pytest.mark.parametrize("body", [
    'threads = "(16,8):(8,1)"\nvalues = "(1,8):(1,1)"',
    'threads = "(16,8):(8,1)"\nvalues = "(1,8):(1,1)"\ntile = [64, 96]\nsizes = { M = [1, 2], N = [1, 2] }',
])
def test_tile_or_sizes_exactly_one(body) -> None:
    with pytest.raises(SpecError, match="exactly one of 'tile' or 'sizes'"):
        _row(f'format = 1\n[[config]]\nname = "c"\nkind = "tiled_copy"\n{body}\nproperties = ["residue_cover"]\n')


def test_tile_of_another_rank_is_an_error() -> None:
    row = _row('format = 1\n[[config]]\nname = "c"\nkind = "tiled_copy"\nthreads = "(16,8):(8,1)"\n'
               'values = "(1,8):(1,1)"\ntile = [64]\nproperties = ["residue_cover"]\n')
    assert row.status == "ERROR" and row.key == "tile", row
