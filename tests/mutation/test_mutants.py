"""Mutation testing: every bundled passing config, broken on purpose, must come back REFUTED with a counterexample.

For each config of ``specs/*.toml`` (all PROVEN) the test derives deterministic mutants of its subject:

    swapped_strides   the strides of the first two leaves with different strides exchanged
    stride_plus_one   the largest stride + 1                 stride_doubled   the largest stride x 2
    mode_dropped      the last leaf's extent set to 1        swizzle_bit      Sw<B,M,S> -> Sw<B-1,M,S> (B > 1)
    permutation_shrunk  a tiled-MMA permutation layout without its last mode (it no longer covers its range)
    box_one_atom_wider  a TMA box one swizzle atom (or 16 B) wider       dtype_wider   f16 -> f32, same box

An INDEPENDENT brute-force oracle in this file (its own colexicographic evaluator, swizzle and bank count from the
hardware facts; it never calls a layoutcheck property or engine) decides whether the mutant is really wrong. A mutant
the oracle cannot confirm (an equivalent mutant, or a claim the oracle does not model) is not scored. Every confirmed
mutant must be REFUTED by ``layoutcheck.check.check_property`` on some property, with a counterexample. The score is
written to ``docs/mutation.md`` by hand from ``MUTATION_REPORT=1 pytest tests/mutation -s``.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.check import check_property
from layoutcheck.hw.banks import BANK_BYTES, BANKS
from layoutcheck.hw.tma import DTYPES, SWIZZLES
from layoutcheck.spec.bind import build_property, smem_layout
from layoutcheck.spec.load import collect, load_spec

SPECS = Path(__file__).resolve().parents[2] / "specs"
MAX_POINTS = 1 << 16  # the oracle enumerates; configs above this size are not mutated (keeps the test fast)


# -- the independent oracle -------------------------------------------------------------------------------------------
def _leaves(t: Any) -> list[int]:
    return [x for m in t for x in _leaves(m)] if isinstance(t, tuple) else [t]


def oracle_offsets(x: Layout | ComposedLayout) -> np.ndarray:
    """Every offset, by definition: colexicographic coordinates times strides, then the swizzle."""
    lay = x.layout if isinstance(x, ComposedLayout) else x
    shape, stride = _leaves(lay.shape), _leaves(lay.stride)
    n = int(np.prod(shape))
    i, offs, mult = np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64), 1
    for s, d in zip(shape, stride, strict=True):
        offs += ((i // mult) % s) * d
        mult *= s
    if isinstance(x, ComposedLayout):
        b, m, sh = x.swizzle.bits, x.swizzle.base, x.swizzle.shift
        y = offs + x.offset
        yyy = ((1 << b) - 1) << (m + max(0, sh))
        offs = y ^ ((y & yyy) >> sh) if sh >= 0 else y ^ ((y & yyy) << -sh)
    return offs


def oracle_fails(prop: Any, x: Any) -> bool | None:
    """True if the brute-force oracle shows the claim ``prop`` false for subject ``x``; None if not modelled."""
    name = prop.name
    if name in ("injective", "bijective", "surjective", "in_bounds", "exact_cover"):
        offs = oracle_offsets(x)
        if name == "injective":
            return len(np.unique(offs)) != offs.size
        if name == "in_bounds":
            return bool(((offs < 0) | (offs >= prop.extent)).any())
        if name == "exact_cover":
            n, k = prop.tile_size, prop.replication
            if ((offs < 0) | (offs >= n)).any():
                return True
            return bool((np.bincount(offs, minlength=n) != k).any())
        n = prop.codomain
        if ((offs < 0) | (offs >= n)).any():
            return True
        hit = np.bincount(offs, minlength=n)
        return bool((hit == 0).any() or (name == "bijective" and (hit > 1).any()))
    if name == "conflict_free":
        return _bank_conflict(prop, x)
    return None


def _bank_conflict(prop: Any, x: Any) -> bool | None:
    """Some phase of some instruction hits one bank with two different 32-bit words (misaligned: True)."""
    k, elems = prop.access.kind, prop.access.elems
    if k.merge_group_lanes:  # the 64/128-bit merge rule is the model's business; not re-derived here
        return None
    offs = oracle_offsets(x)
    nbytes = max(1, prop.access.elem_bits // 8)
    for inst in elems:
        addr = [int(offs[e[0]]) * nbytes if e[0] >= 0 else -1 for e in inst]
        if any(a >= 0 and a % k.bytes for a in addr[:k.address_lanes]):
            return True
        for p0 in range(0, k.address_lanes, k.phase_lanes):
            words: dict[int, set[int]] = {}
            for a in addr[p0:p0 + k.phase_lanes]:
                for j in range(k.words if a >= 0 else 0):
                    w = a // BANK_BYTES + j
                    words.setdefault(w % BANKS, set()).add(w)
            if any(len(ws) > 1 for ws in words.values()):
                return True
    return False


# -- mutation operators ---------------------------------------------------------------------------------------------
def _rebuild(t: Any, leaves: list[int], pos: list[int]) -> Any:
    if isinstance(t, tuple):
        return tuple(_rebuild(m, leaves, pos) for m in t)
    pos[0] += 1
    return leaves[pos[0] - 1]


def _with(x: Any, shape: list[int] | None = None, stride: list[int] | None = None, swizzle: Any = None) -> Any:
    lay = x.layout if isinstance(x, ComposedLayout) else x
    new = Layout(_rebuild(lay.shape, shape or _leaves(lay.shape), [0]),
                 _rebuild(lay.stride, stride or _leaves(lay.stride), [0]))
    if isinstance(x, ComposedLayout):
        return ComposedLayout(swizzle or x.swizzle, x.offset, new)
    return new


def layout_mutants(x: Any) -> list[tuple[str, Any]]:
    lay = x.layout if isinstance(x, ComposedLayout) else x
    shape, stride = _leaves(lay.shape), _leaves(lay.stride)
    out = []
    live = [i for i, s in enumerate(shape) if s > 1]
    pair = next(((a, b) for a in live for b in live if a < b and stride[a] != stride[b]), None)
    if pair:
        st = list(stride)
        st[pair[0]], st[pair[1]] = st[pair[1]], st[pair[0]]
        out.append(("swapped_strides", _with(x, stride=st)))
    if live:
        big = max(live, key=lambda i: abs(stride[i]))
        out.append(("stride_plus_one", _with(x, stride=[d + (i == big) for i, d in enumerate(stride)])))
        out.append(("stride_doubled", _with(x, stride=[d * (2 if i == big else 1) for i, d in enumerate(stride)])))
        out.append(("mode_dropped", _with(x, shape=[1 if i == live[-1] else s for i, s in enumerate(shape)])))
    if isinstance(x, ComposedLayout) and x.swizzle.bits > 1:
        sw = x.swizzle
        out.append(("swizzle_bit", _with(x, swizzle=Swizzle(sw.bits - 1, sw.base, sw.shift))))
    return out


# -- the mutants of the bundled configs -------------------------------------------------------------------------------
def _subject(cfg: Any) -> tuple[str, Any] | None:
    if cfg.kind in ("layout", "tv"):
        key = cfg.kind if cfg.kind == "tv" else "layout"
        return key, cfg.get(key)
    if cfg.kind == "smem":
        return "layout", smem_layout(cfg)
    return None


def _replace(cfg: Any, **values: Any) -> Any:
    vals = dict(cfg.values)
    for k, v in values.items():
        if v is None:
            vals.pop(k, None)
        else:
            vals[k] = v
    return dataclasses.replace(cfg, values=tuple(vals.items()))


def mutants() -> list[tuple[str, Any, str]]:
    """(id, mutated config, operator) for every bundled config."""
    out = []
    for f in collect([str(SPECS)]):
        for cfg in load_spec(f).configs:
            sub = _subject(cfg)
            if sub is not None:
                key, x = sub
                if not isinstance(x, (Layout, ComposedLayout)):  # a Triton / TileLang / formula value: no CuTe mutants
                    continue
                lay = x.layout if isinstance(x, ComposedLayout) else x
                if int(np.prod(_leaves(lay.shape))) > MAX_POINTS:
                    continue
                for op, m in layout_mutants(x):
                    extra = {"atom": None, "tile": cfg.get("tile") if cfg.kind == "tv" else None}
                    out.append((f"{cfg.name}-{op}", _replace(cfg, **{key: m}, **extra), op))
            elif cfg.kind == "tiled_mma":
                perm = cfg.get("permutation") or ()
                idx = next((i for i, p in enumerate(perm) if isinstance(p, Layout) and len(p) > 1), None)
                if idx is not None:
                    p = perm[idx]
                    shrunk = Layout(p.shape[:-1], p.stride[:-1])
                    new = tuple(shrunk if i == idx else q for i, q in enumerate(perm))
                    out.append((f"{cfg.name}-permutation_shrunk", _replace(cfg, permutation=new),
                                "permutation_shrunk"))
            elif cfg.kind == "tma" and cfg.get("swizzle", "none") != "none":
                esize = DTYPES[_TMA[cfg.get("dtype")]].bytes
                atom = SWIZZLES[cfg.get("swizzle")].span_bytes // esize
                box = cfg.get("box")
                out.append((f"{cfg.name}-box_one_atom_wider", _replace(cfg, box=(box[0] + atom, *box[1:])),
                            "box_one_atom_wider"))
                if cfg.get("dtype") in ("f16", "bf16"):
                    out.append((f"{cfg.name}-dtype_wider", _replace(cfg, dtype="f32"), "dtype_wider"))
    return out


_TMA = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "tf32": "tfloat32", "u8": "uint8", "s8": "uint8",
        "e4m3": "uint8", "e5m2": "uint8", "f64": "float64"}


def _cute_divided(p: Layout, extent: int) -> Layout | None:
    """``make_layout(p, complement(p, extent))`` by CuTe's ``complement`` (``layout.hpp``): stride-0 and size-1
    modes filtered, the rest sorted by stride, each contributing ``stride / current`` (0: CuTe's assert), then the
    rounding-up rest ``ceil_div(extent, current)``; ``None`` where CuTe asserts."""
    kept = sorted((d, s) for s, d in zip(_leaves(p.shape), _leaves(p.stride), strict=True) if d != 0 and s > 1)
    shape, stride, cur = list(_leaves(p.shape)), list(_leaves(p.stride)), 1
    for d, s in kept:
        if d // cur == 0:
            return None
        shape.append(d // cur)
        stride.append(cur)
        cur = d * s
    shape.append(-(-extent // cur))
    stride.append(cur)
    return Layout(tuple(shape), tuple(stride))


def _confirmed_wrong(cfg: Any, op: str) -> bool | None:
    """The oracle's word on a mutant: True wrong, False still right (an equivalent mutant), None not modelled."""
    if op in ("box_one_atom_wider", "dtype_wider"):  # the driver rule: inner box bytes <= the swizzle span
        esize = DTYPES[_TMA[cfg.get("dtype")]].bytes
        return cfg.get("box")[0] * esize > SWIZZLES[cfg.get("swizzle")].span_bytes
    if op == "permutation_shrunk":  # a permutation is CuTe's tiler (issue #25): wrong iff the divided mode is not
        idx, p = next((i, q) for i, q in enumerate(cfg.get("permutation")) if isinstance(q, Layout))
        tile = cfg.get("tile")
        if idx > 1 or tile is None:
            return None
        divided = _cute_divided(p, tile[idx])  # logical_divide(extent:1, p) = (p, complement(p, extent))
        if divided is None:
            return True  # CuTe's complement refuses the tiler
        offs = oracle_offsets(divided)
        return sorted(offs.tolist()) != list(range(tile[idx]))
    verdicts = []
    x = _subject(cfg)[1]
    for req in cfg.properties:
        try:
            prop = build_property(cfg, req)
        except Exception:
            continue
        verdicts.append(oracle_fails(prop, x))
    if any(v is True for v in verdicts):
        return True
    return False if verdicts and all(v is False for v in verdicts) else None


MUTANTS = mutants()
_SCORE: dict[str, list[int]] = {}


@pytest.mark.parametrize(("cfg", "op"), [(m[1], m[2]) for m in MUTANTS], ids=[m[0] for m in MUTANTS])
def test_every_confirmed_mutant_is_refuted_with_a_counterexample(cfg, op):
    wrong = _confirmed_wrong(cfg, op)
    score = _SCORE.setdefault(op, [0, 0, 0])  # killed, confirmed wrong, not scored
    if not wrong:
        score[2] += 1
        pytest.skip("the oracle does not confirm this mutant wrong (equivalent, or not modelled)")
    score[1] += 1
    rows = [check_property(cfg, req, timeout=10) for req in cfg.properties]
    refuted = [r for r in rows if r.status == "REFUTED"]
    assert refuted, [(r.property, r.status, r.reason) for r in rows]
    assert all(r.counterexample for r in refuted)
    score[0] += 1


def test_the_bundled_configs_pass_the_oracle():
    """The oracle agrees with layoutcheck on the unmutated configs (so a confirmed mutant is the mutation's doing)."""
    for f in collect([str(SPECS)]):
        for cfg in load_spec(f).configs:
            sub = _subject(cfg)
            if sub is None or not isinstance(sub[1], (Layout, ComposedLayout)):  # the oracle reads CuTe layouts
                continue
            lay = sub[1].layout if isinstance(sub[1], ComposedLayout) else sub[1]
            if int(np.prod(_leaves(lay.shape))) > MAX_POINTS:
                continue
            for req in cfg.properties:
                assert oracle_fails(build_property(cfg, req), sub[1]) in (False, None), (cfg.name, req.label)


def teardown_module() -> None:
    if os.environ.get("MUTATION_REPORT"):
        total = [sum(v[i] for v in _SCORE.values()) for i in range(3)]
        print("\noperator killed/confirmed (not scored)")
        for op, (k, c, n) in sorted(_SCORE.items()):
            print(f"{op} {k}/{c} ({n})")
        print(f"TOTAL {total[0]}/{total[1]} ({total[2]})")
