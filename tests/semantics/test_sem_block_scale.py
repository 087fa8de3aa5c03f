"""Semantics of block-scaled scale factors (``scale_agreement``, ``scale_follows_tile``) against naive oracles that
share no code with ``layoutcheck.properties``, ``.models`` or ``.engines`` (the specs are read with the loader).

Authorities:
- the 128 x 4 interleave: the cuBLAS documentation's "1D Block Scaling Factors Layout" formula, written out directly:
  ``offset(m, kb) = ((m // 128) * ceil(KS / 4) + kb // 4) * 512 + (m % 32) * 16 + ((m % 128) // 32) * 4 + kb % 4``
  with ``KS = ceil(K / vec)`` (rows and scale columns padded to 128 and 4). It is the same function as PyTorch/torchao's
  ``to_blocked`` (``view(RB, 128, CB, 4).permute(0, 2, 1, 3).reshape(-1, 4, 32, 4).transpose(1, 2)``) and CUTLASS's
  ``tile_to_shape(SfKMajorAtom, (MN, K), Step<_2,_1>)`` with ``SfKMajorAtom = ((32,4),(vec,4)):((16,4),(0,1))``;
- ``linear``: ``m * KS + kb``; ``linear_mn``: ``kb * MN + m``; a CuTe layout written by hand: CuTe's evaluation
  (each mode's index split colexicographically over its flattened shape, dotted with the strides);
- schedulers: the launch formulas of CUTLASS 2.x ``GemmIdentityThreadblockSwizzle`` and the grouped persistent raster;
  a raw block index is ``(blockIdx.x, blockIdx.y)`` itself for the 2-D swizzled launch (NVIDIA/cutlass#3394), the
  linear index (``b``, ``c + ctas * i``) rastered column-major for a 1-D or persistent launch.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings

from layoutcheck import Verdict, prove
from layoutcheck.spec.bind import build_property
from layoutcheck.spec.load import parse_spec
from tests.strategies_sem_block_scale import scale_agreements, scale_schedules

INTERLEAVED = ("128x4", "32_4_4", "sm1xx_sfa", "sm1xx_sfb")


# -- the naive scale layouts -------------------------------------------------------------------------------------------
def _flat(t) -> list[int]:
    return [t] if isinstance(t, int) else [x for s in t for x in _flat(s)]


def _cute_mode(shape, stride, i: np.ndarray) -> np.ndarray:
    out = np.zeros_like(i)
    for s, d in zip(_flat(shape), _flat(stride), strict=True):
        out += (i % s) * d
        i = i // s
    return out


def naive_bytes(side: dict, mn: int, k: int, m: np.ndarray, kk: np.ndarray) -> np.ndarray:
    """The byte of element ``(m, kk)``'s scale under one side of the agreement."""
    if side["cute"] is not None:
        (s0, s1), (d0, d1) = side["cute"]
        return _cute_mode(s0, d0, m) + _cute_mode(s1, d1, kk)
    vec = side["vec"]
    ks, kb = -(-k // vec), kk // vec
    if side["name"] in INTERLEAVED:
        return ((m // 128) * -(-ks // 4) + kb // 4) * 512 + (m % 32) * 16 + ((m % 128) // 32) * 4 + kb % 4
    if side["name"] == "linear":
        return m * ks + kb
    return kb * mn + m


def naive_disagreement(case: dict) -> tuple[int, int] | None:
    """The first element ``(m, k)`` (``m`` fastest) whose scale byte differs between producer and consumer."""
    mn, k = case["mn"], case["k"]
    kk, m = np.meshgrid(np.arange(k), np.arange(mn), indexing="ij")  # [k, mn]: m fastest when raveled
    differ = naive_bytes(case["producer"], mn, k, m, kk) != naive_bytes(case["consumer"], mn, k, m, kk)
    bad = np.flatnonzero(differ.ravel())
    return None if bad.size == 0 else (int(bad[0]) % mn, int(bad[0]) // mn)


def _side_toml(side: dict) -> str:
    return f'{{ layout = "{side["name"]}", vec = {side["vec"]} }}'


def _agreement_spec(case: dict) -> str:
    return (f'format = 1\n[[config]]\nname = "c"\nkind = "scale_factors"\nmn = {case["mn"]}\nk = {case["k"]}\n'
            f'vec = 32\nproducer = {_side_toml(case["producer"])}\nconsumer = {_side_toml(case["consumer"])}\n'
            'properties = ["scale_agreement"]\n')


def _build(text: str):
    spec = parse_spec(text, "<sem>")
    assert not spec.errors, spec.errors
    cfg = spec.configs[0]
    return build_property(cfg, cfg.properties[0])


@settings(max_examples=120)
@given(scale_agreements())
def test_scale_agreement_is_the_naive_one(case) -> None:
    prop = _build(_agreement_spec(case))
    r = prove(prop)
    want = naive_disagreement(case)
    assert r.status == (Verdict.PROVEN if want is None else Verdict.REFUTED), (case, r)
    if want is not None:
        assert (r.counterexample.data["m"], r.counterexample.data["k"]) == want, (case, r)


def test_interleave_is_the_cublas_formula_with_padding() -> None:
    """The named interleave equals the cuBLAS formula on every scale of padded and unpadded operands."""
    for mn, k, vec in ((200, 320, 32), (129, 1040, 16), (1, 16, 16), (384, 4096, 32)):
        for name in INTERLEAVED:
            case = {"mn": mn, "k": k, "producer": {"name": name, "vec": vec, "cute": None},
                    "consumer": {"name": "128x4", "vec": vec, "cute": None}}
            assert prove(_build(_agreement_spec(case))).status is Verdict.PROVEN


def test_linear_producer_128x4_consumer_is_refuted_where_the_formulas_part() -> None:
    case = {"mn": 256, "k": 512, "producer": {"name": "linear", "vec": 32, "cute": None},
            "consumer": {"name": "128x4", "vec": 32, "cute": None}}
    r = prove(_build(_agreement_spec(case)))
    assert r.status is Verdict.REFUTED
    assert (r.counterexample.data["m"], r.counterexample.data["k"]) == naive_disagreement(case) == (32, 0)


# -- the naive schedule ------------------------------------------------------------------------------------------------
def _launches(c: dict, gm: int, gn: int) -> list[tuple[int, ...]]:
    """Every launch index, colexicographic (first coordinate fastest), and the launch bounds."""
    if c["scheduler"] == "plain":
        bounds = (gm * gn,)
    elif c["scheduler"] == "swizzle":
        bounds = (gm << c["log"], -(-gn // (1 << c["log"])))
    else:
        bounds = (c["ctas"], -(-(gm * gn) // c["ctas"]))
    return [tuple(reversed(t)) for t in itertools.product(*(range(b) for b in reversed(bounds)))], bounds


def _tile(c: dict, idx: tuple[int, ...], gm: int, gn: int) -> tuple[int, int] | None:
    if c["scheduler"] == "plain":
        return idx[0] % gm, idx[0] // gm
    if c["scheduler"] == "swizzle":
        bx, by = idx
        m, n = bx >> c["log"], (by << c["log"]) + (bx & ((1 << c["log"]) - 1))
        return (m, n) if m < gm and n < gn else None
    t = idx[0] + c["ctas"] * idx[1]
    if t >= gm * gn:
        return None
    first = t // (c["group"] * gn) * c["group"]
    h = min(gm - first, c["group"])
    r = t % (c["group"] * gn)
    return first + r % h, r // h


def naive_follow_failure(c: dict) -> dict | None:
    (lm, hm), (ln, hn) = c["grids"]
    a = c["operand"] == "A"
    b = c["tile"][0] if a else c["tile"][1]
    ks = -(-c["k"] // c["vec"])
    side = {"name": c["layout"], "vec": c["vec"], "cute": None}
    for gm, gn in itertools.product(range(lm, hm + 1), range(ln, hn + 1)):
        tiles = gm if a else gn
        launches, bounds = _launches(c, gm, gn)
        for idx in launches:
            t = _tile(c, idx, gm, gn)
            if t is None:
                continue
            if c["reads"] == "block_index" and c["scheduler"] == "swizzle":
                s = idx  # (blockIdx.x, blockIdx.y) taken as the tile
            elif c["reads"] == "block_index":
                lin = idx[0] + (bounds[0] * idx[1] if len(idx) > 1 else 0)
                s = (lin % gm, lin // gm)
            else:
                s = t
            own, read = (t[0], s[0]) if a else (t[1], s[1])
            w = {"gm": gm, "gn": gn, "idx": list(idx), "own": own, "read": read}
            if not 0 <= read < tiles:
                return {**w, "r": 0, "kb": 0}
            if own == read:
                continue
            for r, kb in itertools.product(range(b), range(ks)):
                mine, theirs = (naive_bytes(side, tiles * b, c["k"], np.array(row), np.array(kb * c["vec"]))
                                for row in (own * b + r, read * b + r))
                if mine != theirs:
                    return {**w, "r": r, "kb": kb}
    return None


def _follow_spec(c: dict) -> str:
    params = "".join(f'{k} = {c[k]}\n' for k in ("log", "group", "ctas") if k in c)
    (lm, hm), (ln, hn) = c["grids"]
    return (f'format = 1\n[[config]]\nname = "c"\nkind = "scale_factors"\noperand = "{c["operand"]}"\n'
            f'k = {c["k"]}\nvec = {c["vec"]}\ntile = [{c["tile"][0]}, {c["tile"][1]}]\n'
            f'scheduler = "{c["scheduler"]}"\n{params}reads = "{c["reads"]}"\nscale_layout = "{c["layout"]}"\n'
            f'grids = {{ GM = [{lm}, {hm}], GN = [{ln}, {hn}] }}\nproperties = ["scale_follows_tile"]\n')


@settings(max_examples=80)
@given(scale_schedules())
def test_scale_follows_tile_is_the_naive_one(c) -> None:
    r = prove(_build(_follow_spec(c)))
    want = naive_follow_failure(c)
    assert r.status == (Verdict.PROVEN if want is None else Verdict.REFUTED), (c, r)
    if want is not None:
        assert r.counterexample.data == want, (c, r)


def test_block_index_under_a_swizzle_is_refuted_and_the_scheduled_tile_proven() -> None:
    c = {"scheduler": "swizzle", "log": 2, "grids": ((1, 4), (1, 4)), "operand": "A", "tile": (128, 256),
         "k": 256, "vec": 32, "layout": "128x4", "reads": "block_index"}
    r = prove(_build(_follow_spec(c)))
    assert r.status is Verdict.REFUTED and r.counterexample.data == naive_follow_failure(c)
    assert prove(_build(_follow_spec({**c, "reads": "scheduled"}))).status is Verdict.PROVEN


def test_split_k_is_not_modelled() -> None:
    """A split-K CTA reads a K slice of the scales: not modelled, so UNKNOWN (never PROVEN)."""
    r = prove(_build(_follow_spec({"scheduler": "split_k", "grids": ((1, 2), (1, 1)), "operand": "A",
                                   "tile": (128, 128), "k": 64, "vec": 32, "layout": "128x4", "reads": "scheduled"})))
    assert r.status is Verdict.UNKNOWN and "split-K" in r.reason


def test_gcd_step_is_exact_for_a_layout_that_varies_inside_a_vector() -> None:
    """A hand-written layout that agrees at every vector's first element but not inside it: compared element by
    element (the gcd step is taken only where both layouts are constant on its chunks)."""
    case = {"mn": 4, "k": 64,
            "producer": {"name": "(4,(32,2)):(2,(100,1))", "vec": 32, "cute": ((4, (32, 2)), (2, (100, 1)))},
            "consumer": {"name": "(4,(32,2)):(2,(0,1))", "vec": 32, "cute": ((4, (32, 2)), (2, (0, 1)))}}
    r = prove(_build(_agreement_spec(case)))
    want = naive_disagreement(case)
    assert want == (0, 1)
    assert r.status is Verdict.REFUTED and (r.counterexample.data["m"], r.counterexample.data["k"]) == want
