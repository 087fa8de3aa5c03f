"""Semantics of the layout and TV-map claims, against naive oracles written from CuTe's definitions.

Authority: CuTe's colexicographic layouts (``L(c) = sum c_k d_k``, the flat index ``i`` split colex, first mode
fastest; CuTe's extended evaluation lets the last mode run on), ``ThrMMA::partition_X`` (CUTLASS
``include/cute/atom/mma_atom.hpp``: ``thrfrg_X`` = ``logical_divide`` by the permutation tiler with its rounding-up
complement -- NVIDIA's pycute computes the complement here --, ``zipped_divide`` by the atom, the atom's TV layout,
``zipped_divide`` by the thread counts; a thread is sliced at ``(v,(m,n))`` and its ``k`` ignored for C).
An *owner* of a tile element is a pair ``(t, v)`` that reaches it.

Nothing here imports ``layoutcheck.properties``, ``.models`` or ``.engines`` except to build the claim through its
public constructor or the spec binder and to call ``prove``: the oracles evaluate shapes and strides themselves.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings

from layoutcheck import Layout
from layoutcheck.engines.prove import prove
from layoutcheck.hw.mma import mma_atom
from layoutcheck.properties.layout import bijective, in_bounds, injective, surjective
from layoutcheck.properties.tv import exact_cover
from layoutcheck.result import Verdict
from layoutcheck.spec.bind import Unsound, build_property
from layoutcheck.spec.load import parse_spec
from tests.strategies_sem_layout import covers, layouts, tiled_mma_configs

pycute = pytest.importorskip("pycute")

ENGINES = ("structural", "linear", "exhaustive", "z3")
FEW = settings(max_examples=max(20, settings.default.max_examples // 4))
"""Every engine (z3 included) on every example: a quarter of the profile's examples (37 under ``ci``, 100 ``dev``)."""


# -- the naive evaluator: colex, from the shape and stride alone ----------------------------------------------------
def _leaves(t) -> list[int]:
    return [x for m in t for x in _leaves(m)] if isinstance(t, tuple) else [t]


def naive_eval(shape, stride, i: int, extended: bool = False) -> int:
    """``L(i)``: split ``i`` colex over the flat modes; ``extended``: the last mode takes what is left (CuTe)."""
    ss, ds = _leaves(shape), _leaves(stride)
    out = 0
    for k, (s, d) in enumerate(zip(ss, ds, strict=True)):
        last = k == len(ss) - 1
        c = i if (extended and last) else i % s
        i //= s
        out += c * d
    return out


def naive_offsets(lay: Layout) -> list[int]:
    n = 1
    for s in _leaves(lay.shape):
        n *= s
    return [naive_eval(lay.shape, lay.stride, i) for i in range(n)]


def _ceil(a: int, b: int) -> int:
    return (a + b - 1) // b


def _size(t) -> int:
    n = 1
    for s in _leaves(t):
        n *= s
    return n


# -- naive definitions ----------------------------------------------------------------------------------------------
def owners_of(image: list[int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for i, y in enumerate(image):
        out.setdefault(y, []).append(i)
    return out


def naive_cover(image: list[int | None], n: int, k: int, threads: int) -> bool:
    """Every (t, v) inside [0, n) (``None`` = outside), every y owned by exactly k pairs, of k distinct threads."""
    if any(y is None or not 0 <= y < n for y in image):
        return False
    own = owners_of(image)
    return all(len(own.get(y, [])) == k and len({i % threads for i in own.get(y, [])}) == k for y in range(n))


def cover_witness_violates(w: dict, image: list[int | None], n: int, k: int, threads: int) -> bool:
    kind = w["kind"]
    if kind == "count":
        return len(image) != k * n and w["size"] == len(image)
    if kind == "out":
        y = image[w["i"]]
        return y is None or not 0 <= y < n
    if kind == "same_thread":
        i, j = w["i"], w["j"]
        return i != j and i % threads == j % threads and image[i] == image[j] is not None
    if kind == "owners":
        return 0 <= w["y"] < n and sum(1 for y in image if y == w["y"]) != k
    return False


def _agree(prop, naive: bool, violates) -> dict[str, Verdict]:
    seen = {}
    for eng in ENGINES:
        r = prove(prop, engine=eng, timeout=20)
        seen[eng] = r.status
        assert "internal error" not in (r.reason or ""), r
        if eng == "exhaustive":
            assert r.status is not Verdict.UNKNOWN, r
        if r.status is Verdict.UNKNOWN:
            continue
        assert r.status is (Verdict.PROVEN if naive else Verdict.REFUTED), f"{eng}: {r} (naive says {naive})"
        if r.status is Verdict.REFUTED:
            assert violates(r.counterexample.data), f"{eng}: witness {r.counterexample} does not violate: {prop}"
    return seen


# -- injective / surjective / bijective / in_bounds --------------------------------------------------------------
def _layout_witness(offs: list[int], n: int | None):
    def violates(w: dict) -> bool:
        kind = w["kind"]
        if kind == "collision":
            return w["i"] != w["j"] and offs[w["i"]] == offs[w["j"]]
        if kind == "out":
            return not 0 <= offs[w["i"]] < n
        if kind == "missing":
            return 0 <= w["y"] < n and w["y"] not in offs
        if kind == "count":
            return w["size"] == len(offs) and w["codomain"] == n
        return False
    return violates


@FEW
@given(layouts())
def test_injective_and_in_bounds(x: Layout) -> None:
    offs = naive_offsets(x)
    _agree(injective(x), len(set(offs)) == len(offs), _layout_witness(offs, None))
    e = max(1, max(offs))
    _agree(in_bounds(x, e), all(0 <= y < e for y in offs), _layout_witness(offs, e))


@FEW
@given(layouts())
def test_surjective_and_bijective(x: Layout) -> None:
    offs = naive_offsets(x)
    for n in {len(offs), max(1, len(set(offs)))}:
        inside = all(0 <= y < n for y in offs)
        _agree(surjective(x, n), inside and set(range(n)) <= set(offs), _layout_witness(offs, n))
        _agree(bijective(x, n), inside and sorted(offs) == list(range(n)), _layout_witness(offs, n))


# -- exact_cover of a tile by a TV map, with replication -------------------------------------------------------------
@FEW
@given(covers())
def test_exact_cover(case) -> None:
    tv, tile, k = case
    image = naive_offsets(tv)
    n, threads = _size(tile), _size(tv.shape[0])
    naive = naive_cover(image, n, k, threads)
    _agree(exact_cover(tv, tile, k), naive, lambda w: cover_witness_violates(w, image, n, k, threads))


REPRODUCERS = [  # issue #25: (tv, tile, k, verdict)
    (Layout(((32, 2), 4), ((1, 0), 32)), 128, 1, False),  # threads t and t+32 both own every element
    (Layout(((32, 2), 4), ((1, 0), 32)), 128, 2, True),
    (Layout(((32, 2), 4), ((1, 0), 32)), 256, 1, False),  # right size, half the tile never owned
    (Layout((32, (4, 2)), (1, (32, 0))), 128, 2, False),  # replicated in the value mode: one thread, twice
    (Layout((1 << 20, 1 << 20), (1, 1 << 20)), 1 << 40, 1, True),
]


@pytest.mark.parametrize("tv, tile, k, holds", REPRODUCERS, ids=str)
def test_exact_cover_reproducers(tv: Layout, tile: int, k: int, holds: bool) -> None:
    if _size(tv.shape) <= 1 << 16:
        image = naive_offsets(tv)
        assert naive_cover(image, tile, k, _size(tv.shape[0])) is holds
    r = prove(exact_cover(tv, tile, k))
    assert r.status is (Verdict.PROVEN if holds else Verdict.REFUTED), r
    if not holds:
        assert r.counterexample.data["kind"] in ("owners", "same_thread"), r


# -- tiled-MMA partitions (C, A, B) over every thread ---------------------------------------------------------------
_MODES = {"C": (0, 1, 2), "A": (0, 2, 1), "B": (1, 2, 0)}  # the operand's (row mode, column mode, replicating mode)


def _tiler(p, default: int):
    if p == "_":
        return pycute.Layout(default)
    if isinstance(p, int):
        return pycute.Layout(p)
    shape, stride = (tuple(int(v) for v in part.strip("()").split(",")) for part in p.split(":"))
    return pycute.Layout(shape, stride)


def naive_partition(cfg: dict) -> tuple[list[tuple[int, int]], int, tuple[int, int]]:
    """``image[t + T*v]`` = the tile coordinate ``(row, col)`` of thread ``t``'s value ``v``, ``T``, and the tile."""
    atom = mma_atom(cfg["atom"])
    operand, al = cfg["operand"], cfg["atom_layout"]
    i0, i1, _ = _MODES[operand]
    tile3 = cfg["tile"]
    tile = (tile3[i0], tile3[i1])
    ext = atom.shape_mnk
    tv = {"C": atom.tv_layout_C, "A": atom.tv_layout_A, "B": atom.tv_layout_B}[operand]
    V = _size(tv.shape[0])
    frg = _size(tv.shape[1])
    perms = list(cfg["permutation"]) + ["_"] * (3 - len(cfg["permutation"]))
    divided, rest = [], []
    for axis, i in enumerate((i0, i1)):
        p = _tiler(perms[i], ext[i] * al[i])
        lay = pycute.make_layout(p, pycute.complement(p, tile[axis]))  # logical_divide(tile mode, p), as CuTe
        divided.append(lay)
        rest.append(_ceil(_ceil(pycute.size(lay), ext[i]), al[i]))  # zipped_divide by the atom, then the threads
    T = V * al[0] * al[1] * al[2]
    nval = frg * rest[0] * rest[1]
    image = [(0, 0)] * (T * nval)
    for t in range(T):
        v, m, n, k = t % V, (t // V) % al[0], (t // (V * al[0])) % al[1], t // (V * al[0] * al[1])
        crd = {0: m, 1: n, 2: k}
        for fv, r0, r1 in itertools.product(range(frg), range(rest[0]), range(rest[1])):
            a = naive_eval(tv.shape, tv.stride, v + V * fv)
            a0, a1 = a % ext[i0], a // ext[i0]
            q0 = a0 + ext[i0] * (crd[i0] + al[i0] * r0)
            q1 = a1 + ext[i1] * (crd[i1] + al[i1] * r1)
            row = naive_eval(divided[0].shape, divided[0].stride, q0, extended=True)
            col = naive_eval(divided[1].shape, divided[1].stride, q1, extended=True)
            image[t + T * (fv + frg * (r0 + rest[0] * r1))] = (row, col)
    return image, T, tile


def _spec(cfg: dict) -> str:
    perm = ", ".join(f'"{p}"' if isinstance(p, str) else str(p) for p in cfg["permutation"])
    prop = f'{{ name = "exact_cover", operand = "{cfg["operand"]}"'
    prop += "" if cfg["replication"] is None else f', replication = {cfg["replication"]}'
    return (f'format = 1\n[[config]]\nname = "m"\nkind = "tiled_mma"\natom = "{cfg["atom"]}"\n'
            f'atom_layout = {cfg["atom_layout"]}\npermutation = [{perm}]\ntile = {cfg["tile"]}\n'
            f'properties = [{prop} }}]\n')


def _tiler_injective(p) -> bool:
    """CuTe's complement needs the tiler injective once its stride-0 modes are dropped."""
    if not isinstance(p, str) or p == "_":
        return True
    shape, stride = (tuple(int(v) for v in part.strip("()").split(",")) for part in p.split(":"))
    offs = [sum(c * d for c, d in zip(crd, stride, strict=True) if d) for crd in itertools.product(
        *(range(s) for s in shape))]
    return len(set(offs)) == len(offs) // _size(tuple(s for s, d in zip(shape, stride, strict=True) if d == 0) or 1)


def _check_tiled(cfg: dict) -> dict[str, Verdict]:
    if not all(_tiler_injective(p) for p in cfg["permutation"]):  # CuTe rejects the tiler: the law is refuted
        spec = parse_spec(_spec(cfg), "m.toml")
        with pytest.raises(Unsound) as u:
            build_property(spec.configs[0], spec.configs[0].properties[0])
        r = prove(u.value.claim)
        assert r.status is Verdict.REFUTED and "not an injective tiler" in u.value.what, r
        return {"exhaustive": Verdict.REFUTED}
    image, T, tile = naive_partition(cfg)
    flat = [r + tile[0] * c if r < tile[0] and c < tile[1] and r >= 0 and c >= 0 else None for r, c in image]
    _, _, _rep_mode = _MODES[cfg["operand"]]
    default = {"C": 1, "A": cfg["atom_layout"][1], "B": cfg["atom_layout"][0]}[cfg["operand"]]
    k = default if cfg["replication"] is None else cfg["replication"]
    n = tile[0] * tile[1]
    spec = parse_spec(_spec(cfg), "m.toml")
    assert not spec.errors, spec.errors
    prop = build_property(spec.configs[0], spec.configs[0].properties[0])
    assert prop.replication == k
    return _agree(prop, naive_cover(flat, n, k, T), lambda w: cover_witness_violates(w, flat, n, k, T))


@FEW
@given(tiled_mma_configs())
def test_tiled_mma_partitions(cfg: dict) -> None:
    _check_tiled(cfg)


TILED = [  # issue #25's reproducers: (config, naive verdict)
    ({"atom": "SM80_16x8x16_F32F16F16F32_TN", "atom_layout": [2, 2, 2], "permutation": ["_"], "tile": [64, 32, 32],
      "operand": "C", "replication": None}, False),  # split-K: two warps write every C element
    ({"atom": "SM80_16x8x16_F32F16F16F32_TN", "atom_layout": [2, 2, 2], "permutation": ["_"], "tile": [64, 32, 32],
      "operand": "C", "replication": 2}, True),
    ({"atom": "SM80_16x8x16_F32F16F16F32_TN", "atom_layout": [2, 2, 2], "permutation": ["_"], "tile": [64, 32, 32],
      "operand": "A", "replication": None}, True),
    ({"atom": "SM80_16x8x16_F32F16F16F32_TN", "atom_layout": [1, 1, 1], "permutation": ["(16,1):(2,1)", 8, 16],
      "tile": [128, 8, 16], "operand": "C", "replication": None}, True),  # a tiler, not a bijection: still a cover
    ({"atom": "SM80_16x8x16_F32F16F16F32_TN", "atom_layout": [1, 1, 1], "permutation": ["(16,1):(2,1)", 8, 16],
      "tile": [16, 8, 16], "operand": "C", "replication": None}, False),  # rows 16..31 run past a 16-row tile
    ({"atom": "SM80_16x8x16_F32F16F16F32_TN", "atom_layout": [1, 1, 1], "permutation": ["_"], "tile": [24, 8, 16],
      "operand": "C", "replication": None}, False),  # 24 rows under a 16-row atom: rows 24..31 fall outside
]


@pytest.mark.parametrize("cfg, holds", TILED, ids=lambda c: str(c)[:60])
def test_tiled_mma_reproducers(cfg: dict, holds: bool) -> None:
    seen = _check_tiled(cfg)
    want = Verdict.PROVEN if holds else Verdict.REFUTED
    assert seen["exhaustive"] is want


def test_tile_not_a_multiple_names_the_row_outside() -> None:
    cfg = TILED[-1][0]
    spec = parse_spec(_spec(cfg), "m.toml")
    r = prove(build_property(spec.configs[0], spec.configs[0].properties[0]))
    assert r.status is Verdict.REFUTED and "outside the 24x8 tile (row 24 >= 24)" in r.counterexample.text, r
    owners = Counter(naive_partition(cfg)[0])
    assert all(owners[(r, c)] == 1 for r in range(32) for c in range(8))  # rows 24..31 are reached, none twice


def test_broken_ownership_spec_is_refuted_with_the_owners() -> None:
    """``specs/broken/ownership.toml``: a split-K double write, a replicated TV map, a tile past its atoms."""
    from pathlib import Path

    from layoutcheck.spec.load import load_spec

    spec = load_spec(str(Path(__file__).parents[2] / "specs" / "broken" / "ownership.toml"), strict=False)
    assert not spec.errors
    texts = {}
    for cfg in spec.configs:
        r = prove(build_property(cfg, cfg.properties[0]))
        assert r.status is Verdict.REFUTED, r
        texts[cfg.name] = r.counterexample.text
    assert "(thread 0, value 0), (thread 128, value 0)" in texts["split_k_double_write"]
    assert "(thread 0, value 0), (thread 32, value 0)" in texts["replicated_tv_map"]
    assert "row 24 >= 24" in texts["tile_not_a_multiple_of_the_atom"]
