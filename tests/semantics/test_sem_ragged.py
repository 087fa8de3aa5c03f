"""Semantics of ragged tilings (``residue_cover``, ``tile_partition``), tile schedulers (``schedule_bijection``) and
whole-kernel data paths' address rules (``datapath``), against naive oracles that share no code with
``layoutcheck.properties``, ``.models`` or ``.engines`` (they read the input values only).

Authorities:
- ragged tiles: CuTe's recipe -- ``ceil_div`` tiles per mode (``local_tile``), a TV map's tile index placed by
  ``idx2crd`` (colexicographic, the last mode unbounded), and CUTLASS's predication: an access is performed iff its
  coordinate is inside the problem (``elem_less(coord, shape)``; TMA clips the same way), or always with none;
- schedulers: the launch-index formulas of CUTLASS 2.x ``GemmIdentityThreadblockSwizzle``, the grouped persistent
  raster (Triton, TileLang), split-K's ``gemm_k_size``, every (CTA, iteration) enumerated;
- data paths: PTX ISA 6.4.1 "Addresses as Operands" (an address is aligned to its access size; cp.async's cp-size),
  9.7.14.5.15 ``ldmatrix`` (16-byte rows naturally aligned); each element followed through naive address arithmetic.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest
from hypothesis import given, settings

from layoutcheck import Verdict, prove
from layoutcheck.check import check_property
from layoutcheck.models.residue import ResidueTiling
from layoutcheck.models.schedulers import TileScheduler
from layoutcheck.properties.residue import residue_cover, schedule_bijection, tile_partition
from layoutcheck.spec.bind import build_property
from layoutcheck.spec.load import parse_spec
from tests.strategies_sem_ragged import residue_covers, schedulers, sm80_operand_paths

pytest.importorskip("z3")


# -- naive helpers: reading a layout value -------------------------------------------------------------------------
def _flat(t) -> list[int]:
    return [x for e in t for x in _flat(e)] if isinstance(t, tuple) else [t]


def _offsets(layout) -> list[int]:
    """``layout(i)`` for every ``i`` in colex order, from its shape and stride alone."""
    shape, stride = _flat(layout.shape), _flat(layout.stride)
    out = []
    for i in range(math.prod(shape)):
        off = 0
        for s, d in zip(shape, stride, strict=True):
            off, i = off + (i % s) * d, i // s
        out.append(off)
    return out


# -- residue_cover: brute force over every problem size -----------------------------------------------------------
def _idx2crd(i: int, tile: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for d, b in enumerate(tile):
        out.append(i if d == len(tile) - 1 else i % b)
        i //= b
    return tuple(out)


def _tiles(s: int, b: int, count: str) -> int:
    return -(-s // b) if count == "ceil_div" else s // b


def naive_break(tile, offsets, count, predicate, sizes) -> dict | None:
    """The lexicographically smallest broken coordinate of one size: every access of every tile placed, predicated."""
    owners: Counter = Counter()
    oob = []
    for t in itertools.product(*[range(_tiles(s, b, count)) for s, b in zip(sizes, tile, strict=True)]):
        for off in offsets:
            c = tuple(td * b + x for td, b, x in zip(t, tile, _idx2crd(off, tile), strict=True))
            inside = all(0 <= x < s for x, s in zip(c, sizes, strict=True))
            if predicate != "none" and not inside:
                continue  # predicated off
            if inside:
                owners[c] += 1
            else:
                oob.append(c)
    broken = [(list(c), "oob", 0) for c in oob]
    broken += [(list(e), "owners", owners[e]) for e in itertools.product(*map(range, sizes)) if owners[e] != 1]
    if not broken:
        return None
    coord, kind, n = min(broken)
    return {"kind": kind, "sizes": list(sizes), "coord": coord, **({"count": n} if kind == "owners" else {})}


def naive_cover(prop) -> dict | None:
    t = prop.tiling
    offs = _offsets(t.tv) if t.tv is not None else list(range(math.prod(t.tile)))
    for sizes in itertools.product(*[range(lo, hi + 1) for lo, hi in prop.sizes]):
        w = naive_break(t.tile, offs, t.count, t.predicate, sizes)
        if w is not None:
            return w
    return None


def naive_partition(t) -> bool:
    offs = _offsets(t.tv) if t.tv is not None else list(range(math.prod(t.tile)))
    return sorted(offs) == list(range(math.prod(t.tile)))


@settings(max_examples=150, deadline=None)
@given(residue_covers())
def test_residue_cover_is_the_brute_force(prop) -> None:
    """Both engines' verdicts and witnesses are the brute force's (the smallest size, then the smallest broken
    coordinate); z3 answers UNKNOWN only where the TV map does not partition the tile and the count or predicate is
    not CuTe's recipe, and then it names the precondition."""
    want = naive_cover(prop)
    ex = prove(prop, engine="exhaustive")
    assert ex.status is (Verdict.PROVEN if want is None else Verdict.REFUTED)
    assert want is None or ex.counterexample.data == want
    z = prove(prop, engine="z3", timeout=60)
    t = prop.tiling
    if z.status is Verdict.UNKNOWN:
        assert not naive_partition(t) and (t.count == "div" or t.predicate == "none")
        assert "tile_partition" in z.reason
    else:
        assert z.status is ex.status
        assert want is None or z.counterexample.data == want
    assert (prove(tile_partition(t)).status is Verdict.PROVEN) is naive_partition(t)


@settings(max_examples=60, deadline=None)
@given(residue_covers())
def test_residue_recheck_is_point_wise_and_exact(prop) -> None:
    """The re-check accepts a witness iff the brute force says that coordinate breaks the claim at that size."""
    t = prop.tiling
    offs = _offsets(t.tv) if t.tv is not None else list(range(math.prod(t.tile)))
    sizes = tuple(hi for _, hi in prop.sizes)
    for c in itertools.product(*[range(s + 2) for s in sizes]):
        owners = 0
        for tt in itertools.product(*[range(_tiles(s, b, t.count)) for s, b in zip(sizes, t.tile, strict=True)]):
            owners += sum(tuple(td * b + x for td, b, x in zip(tt, t.tile, _idx2crd(o, t.tile), strict=True)) == c
                          for o in offs)
        inside = all(x < s for x, s in zip(c, sizes, strict=True))
        kind = "owners" if inside else "oob"
        broken = owners != 1 if inside else (t.predicate == "none" and owners > 0)
        w = {"kind": kind, "sizes": list(sizes), "coord": list(c), **({"count": owners} if inside else {})}
        assert prop.recheck(w) is broken


@pytest.mark.parametrize("tv, sizes, want", [
    ("(2,2):(1,1)", ((1, 1),), None),  # element 3 never owned, but M = 1 never reaches it
    ("4:2", ((1, 1),), None),  # index 4 past the tile is predicated off at M = 1
    ("4:2", ((1, 3),), {"kind": "owners", "sizes": [2], "coord": [1], "count": 0}),
])
def test_issue_31_witnesses_are_real(tv, sizes, want) -> None:
    from layoutcheck.spec.values import parse_value

    prop = residue_cover(ResidueTiling(("M",), (4,), tv=parse_value("tv", tv)), sizes)
    for engine in ("exhaustive", "z3"):
        r = prove(prop, engine=engine, timeout=60)
        assert r.status is (Verdict.PROVEN if want is None else Verdict.REFUTED)
        assert want is None or r.counterexample.data == want
    assert prove(tile_partition(prop.tiling)).status is Verdict.REFUTED


def test_predicated_off_access_is_not_an_owner() -> None:
    """tv (2,2):(1,4) reaches tile index 4, CuTe's (0,2) in the next tile's rows: predicated off at N <= 2, so the
    first failure is element (0,1), owned by no access -- not '(0,0) has 2 performed accesses'."""
    from layoutcheck import Layout

    prop = residue_cover(ResidueTiling(("M", "N"), (2, 2), tv=Layout((2, 2), (1, 4))), ((1, 2), (1, 2)))
    want = {"kind": "owners", "sizes": [1, 2], "coord": [0, 1], "count": 0}
    assert naive_cover(prop) == want
    for engine in ("exhaustive", "z3"):
        assert prove(prop, engine=engine, timeout=60).counterexample.data == want


def test_witness_near_1e9_rechecks_point_wise() -> None:
    """A truncating tile count over sizes near 10^9: Z3 finds the smallest failing size, the re-check evaluates one
    coordinate (no enumeration), and the witness is the naive one computed point-wise."""
    lo = 10**9 - 200
    prop = residue_cover(ResidueTiling(("M", "N"), (128, 128), count="div"), ((lo, 10**9), (128, 128)))
    r = prove(prop, timeout=60)
    first = next(s for s in range(lo, 10**9 + 1) if s % 128)
    assert r.status is Verdict.REFUTED and r.engine == "z3"
    assert r.counterexample.data == {"kind": "owners", "sizes": [first, 128], "coord": [first // 128 * 128, 0],
                                     "count": 0}


# -- schedule_bijection: every (CTA, iteration) enumerated ---------------------------------------------------------
def naive_tile(s: TileScheduler, idx: tuple[int, ...], gm: int, gn: int) -> tuple[int, int] | None:
    """The tile launch index ``idx`` computes, from the formulas of the authorities (``None``: masked)."""
    if s.kind == "plain":
        (b,) = idx
        return b % gm, b // gm
    if s.kind == "swizzle":
        bx, by = idx
        m, n = bx >> s.log, (by << s.log) + (bx & ((1 << s.log) - 1))
        return (m, n) if m < gm and n < gn else None
    if s.kind == "split_k":
        sl, j, n = idx
        per = -(-gm // s.splits) if s.count == "ceil_div" else gm // s.splits
        t = sl * per + j
        return (t, n) if t < gm else None
    c, i = idx
    total = gm // s.group * s.group * gn if s.drop_partial_group else gm * gn
    t = c + s.ctas * i
    if t >= total:
        return None
    first = t // (s.group * gn) * s.group
    h = min(gm - first, s.group)
    r = t % (s.group * gn)
    return first + r % h, r // h


def naive_launch(s: TileScheduler, gm: int, gn: int) -> list[tuple[int, ...]]:
    if s.kind == "plain":
        return [(b,) for b in range(gm * gn)]
    if s.kind == "swizzle":
        return list(itertools.product(range(gm << s.log), range(-(-gn // (1 << s.log)))))
    if s.kind == "split_k":
        per = -(-gm // s.splits) if s.count == "ceil_div" else gm // s.splits
        return list(itertools.product(range(s.splits), range(per), range(gn)))
    total = gm // s.group * s.group * gn if s.drop_partial_group else gm * gn
    return list(itertools.product(range(s.ctas), range(-(-total // s.ctas))))


def naive_schedule(prop) -> tuple[int, int] | None:
    """The first grid (``GM`` slowest) where some tile is computed twice, never, or outside the grid."""
    s = prop.scheduler
    for gm, gn in itertools.product(*[range(lo, hi + 1) for lo, hi in prop.grids]):
        hits = Counter(t for idx in naive_launch(s, gm, gn) if (t := naive_tile(s, idx, gm, gn)) is not None)
        if set(hits) != set(itertools.product(range(gm), range(gn))) or any(v != 1 for v in hits.values()):
            return gm, gn
    return None


def _naive_witness_holds(s: TileScheduler, w: dict) -> bool:
    gm, gn = w["grid"]
    tile = tuple(w["tile"])
    if w["kind"] == "outside":
        return naive_tile(s, tuple(w["index"]), gm, gn) == tile and not (0 <= tile[0] < gm and 0 <= tile[1] < gn)
    if w["kind"] == "duplicate":
        return w["index"] != w["other"] and naive_tile(s, tuple(w["index"]), gm, gn) == tile == naive_tile(
            s, tuple(w["other"]), gm, gn)
    return all(naive_tile(s, idx, gm, gn) != tile for idx in naive_launch(s, gm, gn))


@settings(max_examples=100, deadline=None)
@given(schedulers())
def test_schedule_bijection_is_the_enumeration(prop) -> None:
    first = naive_schedule(prop)
    for engine in ("exhaustive", "z3"):
        r = prove(prop, engine=engine, timeout=60)
        assert r.status is (Verdict.PROVEN if first is None else Verdict.REFUTED)
        if first is not None:
            assert tuple(r.counterexample.data["grid"]) == first
            assert _naive_witness_holds(prop.scheduler, r.counterexample.data)


def test_missing_tile_near_1e9_rechecks_point_wise() -> None:
    """split-K with a truncating ``gemm_k_size`` over ~10^9 k-tiles: REFUTED (not UNKNOWN) with the last k-tile."""
    lo = 10**9 - 3
    prop = schedule_bijection(TileScheduler("split_k", splits=4, count="div"), ((lo, 10**9), (1, 1)))
    r = prove(prop, timeout=60)
    gm = next(g for g in range(lo, 10**9 + 1) if g % 4)
    assert r.status is Verdict.REFUTED and r.counterexample.data["grid"] == [gm, 1]
    assert r.counterexample.data["tile"] == [gm // 4 * 4, 0] and r.counterexample.data["kind"] == "missing"


@pytest.mark.parametrize("kind, key, value", [("plain", "drop_partial_group", "true"), ("grouped", "log", "3"),
                                              ("swizzle", "ctas", "4"), ("split_k", "group", "8"),
                                              ("plain", "splits", "2")])
def test_a_key_of_another_scheduler_kind_is_an_error(kind, key, value) -> None:
    text = (f'format = 1\n[[config]]\nname = "s"\nkind = "scheduler"\nscheduler = "{kind}"\n{key} = {value}\n'
            f'grids = {{ GM = [1, 4], GN = [1, 1] }}\nproperties = ["schedule_bijection"]\n')
    cfg = parse_spec(text).configs[0]
    row = check_property(cfg, cfg.properties[0])
    assert row.status == "ERROR" and row.key == key and f"'{key}'" in row.reason


# -- datapath: each element through naive address arithmetic -------------------------------------------------------
def _swizzle(x: int, b: int, m: int, s: int) -> int:
    """CuTe's Swizzle<B,M,S>: bits [M+S, M+S+B) XOR-ed into bits [M, M+B)."""
    return x ^ ((x >> s) & (((1 << b) - 1) << m))


def naive_sm80_path(b: int, m: int, s: int, lds: int, ld: int) -> tuple[bool, set]:
    """A K-major (64, 32) f16 stage ``Sw<b,m,s> o (64,32):(lds,1)``, written by 16-byte cp.async of 8 halves
    ``(r, 8c .. 8c+7)`` from global ``r*ld + 8c`` and read by ldmatrix rows of the same 8 halves (mma.m16n8k16's A):
    element ``(r, 8c+j)`` goes to byte ``a + 2j`` and is read from the row address ``a`` plus ``2j``, ``a`` = the
    stage's byte of ``(r, 8c)``. Right iff the chunks' byte ranges are disjoint (no element overwritten), every
    chunk's smem and global byte is 16-byte aligned (PTX ISA), and every chunk lies in the stage buffer (the declared
    layout's bytes). Returns (right, the bad (space, byte) accesses)."""
    stage = [[2 * _swizzle(r * lds + k, b, m, s) for k in range(32)] for r in range(64)]
    buffer = max(max(row) for row in stage) + 2
    chunks = [(stage[r][8 * c], 2 * (r * ld + 8 * c)) for r in range(64) for c in range(4)]
    bad = {("smem", a) for a, _ in chunks if a % 16 or a + 16 > buffer} | {("global", g) for _, g in chunks if g % 16}
    spans = sorted(a for a, _ in chunks)
    disjoint = all(y - x >= 16 for x, y in itertools.pairwise(spans))
    return disjoint and not bad, bad


def _sm80_spec(b: int, m: int, s: int, lds: int, ld: int) -> str:
    return f"""format = 1
[[config]]
name = "a"
kind = "datapath"
atom = "SM80_16x8x16_F32F16F16F32_TN"
atom_layout = [2, 2, 1]
permutation = [32, 32, 16]
tile = [64, 32, 32]
dtype = "f16"
properties = [{{ name = "datapath", operand = "A" }}]
[config.A]
smem = "make_composed_layout(Sw<{b},{m},{s}>, (64,32):({lds},1))"
load = "cp.async"
threads = "(32,4):(4,1)"
values = "(1,8)"
gmem = "(64,32):({ld},1)"
read = "SM75_U32x4_LDSM_N"
"""


@settings(max_examples=120, deadline=None)
@given(sm80_operand_paths())
def test_datapath_address_rules_are_the_naive_ones(case) -> None:
    (b, m, s), lds, ld = case["swizzle"], case["lds"], case["ld"]
    right, bad = naive_sm80_path(b, m, s, lds, ld)
    cfg = parse_spec(_sm80_spec(b, m, s, lds, ld)).configs[0]
    r = prove(build_property(cfg, cfg.properties[0]), engine="exhaustive")
    assert r.status is (Verdict.PROVEN if right else Verdict.REFUTED)
    w = r.counterexample.data if r.counterexample else {}
    if w.get("kind") in ("misaligned", "outside_buffer"):
        assert (w["space"], w["address"]) in bad


def test_issue_31_half_the_rows_8_bytes_off() -> None:
    """Sw<1,2,4> o (64,32):(64,1): odd rows 8 bytes off their 16-byte slots, the composition right (PROVEN before
    issue #31), the first cp.async of row 1 misaligned and the last row past the buffer."""
    right, bad = naive_sm80_path(1, 2, 4, 64, 32)
    assert not right and ("smem", 136) in bad and ("smem", 2 * (63 * 64 + 28)) in bad
    cfg = parse_spec(_sm80_spec(1, 2, 4, 64, 32)).configs[0]
    r = prove(build_property(cfg, cfg.properties[0]), engine="exhaustive")
    assert r.status is Verdict.REFUTED
    assert r.counterexample.data == {"path": "A", "stage": 0, "kind": "misaligned", "i": 64, "space": "smem",
                                          "address": 136, "bytes": 16, "align": 16, "limit": 8128}
    assert "thread 4, value 0" in r.counterexample.text and "smem byte 136" in r.counterexample.text
