"""Semantics of ``conflict_free`` and ``wavefront_count`` against a naive bank/wavefront oracle.

Authority: the CUDA C++ Programming Guide, "Shared Memory" (32 banks of 4-byte words, successive words in successive
banks; lanes reading one word share it; 64-bit accesses are served per half-warp, 128-bit per quarter-warp), the PTX
ISA's ``ld``/``st`` (naturally aligned vectors) and ``ldmatrix``/``stmatrix`` (``.m8n8``: each 8x8 b16 matrix is 8
rows of 16 contiguous bytes, 16-byte aligned, whose row addresses come from lanes 8q..8q+7 for matrix q; ``.x1``
uses lanes 0-7, ``.x2`` 0-15, ``.x4`` all 32), and the one measured rule of ``docs/banks.md`` (64/128-bit loads
whose lane pairs ``l, l^1`` or ``l, l^2`` share addresses are served per 32 / 16 lanes). CuTe gives the layout's
meaning: element ``e`` of a ``(rows, cols)`` tile is the colexicographic index ``m + rows * n``, its offset
``sum_k c_k * d_k`` over the flattened modes, then ``offset + ...`` through ``Sw<B,M,S>``:
``x ^ ((x & (2^B-1) << (M+S)) >> S)``.

The canonical access the claims speak about (``properties.banks``' docstrings): ldmatrix/stmatrix take every 8x16 B
subtile, 8 rows of 16 B along the contiguous mode (the mode that steps by one element at the origin, else the mode
that steps least, mode 0 on a tie), matrices numbered with the contiguous-mode chunk fastest, ``x`` consecutive
matrices per instruction; ld/st take consecutive ``bytes``-wide vectors along the contiguous mode, then the next
line, 32 per instruction.

Nothing here imports ``layoutcheck.properties``, ``.models`` or ``.engines`` except to build the claim under test.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.engines.prove import prove
from layoutcheck.properties.banks import conflict_free, wavefront_count
from tests.strategies_sem_banks import KIND_BYTES, MATRIX_KINDS, smem_tiles, wavefront_bounds

BANKS, WORD = 32, 4


# -- the naive model ---------------------------------------------------------------------------------------------
def _flat(t):
    return [x for y in t for x in _flat(y)] if isinstance(t, tuple) else [t]


def offsets(shape, stride, swz, base) -> list[int]:
    """``base + L(e)`` through the swizzle, for every colexicographic index ``e``."""
    shp, std = _flat(shape), _flat(stride)
    n = 1
    for s in shp:
        n *= s
    out = []
    for e in range(n):
        rest, off = e, 0
        for s, d in zip(shp, std, strict=True):
            off += (rest % s) * d
            rest //= s
        x = base + off
        if swz is not None:
            b, m, s = swz
            x ^= (x & (((1 << b) - 1) << (m + s))) >> s
        out.append(x)
    return out


def _extent(mode) -> int:
    n = 1
    for s in _flat(mode):
        n *= s
    return n


def canonical_access(shape, offs, kind, elem_bits) -> list[list[list[int] | None]]:
    """Per instruction, per lane: the element indices the lane's address covers (``None``: no address)."""
    rows, cols = _extent(shape[0]), _extent(shape[1])
    d0, d1 = offs[1] - offs[0], offs[rows] - offs[0]
    mode = 0 if d0 == 1 else 1 if d1 == 1 else (0 if abs(d0) <= abs(d1) else 1)
    along, across = (rows, cols) if mode == 0 else (cols, rows)

    def elem(a, c):  # along-coordinate a, across-coordinate c -> colex index in (rows, cols)
        m, n = (a, c) if mode == 0 else (c, a)
        return m + rows * n

    if kind in MATRIX_KINDS:
        v = 128 // elem_bits
        x = int(kind.split("_x")[1][0])
        chunks = along // v
        mats = chunks * (across // 8)
        out = []
        for i in range(mats // x):
            lanes: list[list[int] | None] = [None] * 32
            for lane in range(8 * x):
                q = i * x + lane // 8
                chunk, band, r = q % chunks, q // chunks, lane % 8
                lanes[lane] = [elem(chunk * v + j, band * 8 + r) for j in range(v)]
            out.append(lanes)
        return out
    v = max(1, KIND_BYTES[kind] * 8 // elem_bits)
    per_line = along // v
    vecs = [[elem((k % per_line) * v + j, k // per_line) for j in range(v)] for k in range(per_line * across)]
    return [vecs[i:i + 32] for i in range(0, len(vecs), 32)]


def _phase_lanes(kind: str) -> int:
    if kind in MATRIX_KINDS:
        return 8
    return {8: 16, 16: 8}.get(KIND_BYTES[kind], 32)


def _cost(kind: str, addrs: list[int | None]) -> tuple[int, int]:
    """(wavefronts, ideal) of one instruction from its lanes' byte addresses."""
    nbytes = KIND_BYTES[kind]
    groups = [list(range(g, g + _phase_lanes(kind))) for g in range(0, 32, _phase_lanes(kind))]
    merged = any(all(addrs[lane] == addrs[lane ^ x] for lane in range(32)) for x in (1, 2))
    if kind.startswith("lds") and nbytes > WORD and merged:  # measured: uniform lane pairs merge the phases
        size = {8: 32, 16: 16}[nbytes]  # (docs/banks.md)
        groups = [list(range(g, g + size)) for g in range(0, 32, size)]
    total = ideal = 0
    for g in groups:
        words: dict[int, set[int]] = {}
        for lane in g:
            a = addrs[lane]
            if a is None:
                continue
            for w in range(a // WORD, (a + nbytes - 1) // WORD + 1):  # an aligned access: one word if narrower
                words.setdefault(w % BANKS, set()).add(w)
        if words:
            total += max(len(ws) for ws in words.values())
            ideal += 1
    return total, ideal


def naive(shape, stride, swz, base, elem_bits, kind) -> dict:
    """The first failure of the access (``split``, ``misaligned``, ``conflict``) and the total wavefronts."""
    offs = offsets(shape, stride, swz, base)
    eb = elem_bits // 8
    insts = canonical_access(shape, offs, kind, elem_bits)
    for i, lanes in enumerate(insts):
        for lane, es in enumerate(lanes):
            if es is not None and [offs[e] for e in es] != [offs[es[0]] + j for j in range(len(es))]:
                return {"first": ("split", i, lane)}
    for i, lanes in enumerate(insts):
        for lane, es in enumerate(lanes):
            if es is not None and offs[es[0]] * eb % KIND_BYTES[kind]:
                return {"first": ("misaligned", i, lane)}
    costs = [_cost(kind, [None if es is None else offs[es[0]] * eb for es in lanes]) for lanes in insts]
    bad = [i for i, (w, ideal) in enumerate(costs) if w > ideal]
    return {"first": ("conflict", bad[0]) if bad else None, "total": sum(w for w, _ in costs)}


def _subject(shape, stride, swz, base):
    lay = Layout(shape, stride)
    return lay if swz is None and base == 0 else ComposedLayout(Swizzle(*(swz or (0, 0, 0))), base, lay)


def _witness_key(res) -> tuple:
    w = res.counterexample.data
    if w["kind"] in ("split", "misaligned"):
        return w["kind"], w["instruction"], w["lane"]
    return ("conflict", w["instruction"])


# -- the claims agree with it ------------------------------------------------------------------------------------
ENGINES = ("exhaustive", "auto", "linear")


@given(smem_tiles())
def test_conflict_free_equals_the_naive_model(tile):
    shape, stride, swz, base, bits, kind = tile
    want = naive(*tile)
    claim = conflict_free(_subject(shape, stride, swz, base), kind, bits)
    for engine in ENGINES:
        res = prove(claim, engine=engine)
        if engine == "linear" and res.status.value == "UNKNOWN":  # not GF(2)-linear: declined, never guessed
            continue
        assert res.status.value == ("PROVEN" if want["first"] is None else "REFUTED"), (engine, tile, want, res)
        if want["first"] is not None:
            assert _witness_key(res) == want["first"], (engine, tile, res)


@given(smem_tiles(), st.data())
def test_wavefront_count_equals_the_naive_total(tile, data):
    shape, stride, swz, base, bits, kind = tile
    want = naive(*tile)
    total = want.get("total", 0)
    key, value = data.draw(wavefront_bounds(total))
    claim = wavefront_count(_subject(shape, stride, swz, base), kind, dtype_bits=bits, **{key: value})
    holds = want["first"] is None or want["first"][0] == "conflict"
    holds = holds and (total == value if key == "n" else total <= value)
    res = prove(claim)
    assert res.status.value == ("PROVEN" if holds else "REFUTED"), (tile, key, value, want, res)


# -- hand-picked edges, and deliberately broken layouts the claims must refute ------------------------------------
@pytest.mark.parametrize(("tile", "first"), [
    # Sw<3,3,3> on 16-bit elements swizzles whole 16-byte rows: the classic conflict-free ldmatrix tile
    ((((64, 64), (64, 1), (3, 3, 3), 0, 16, "ldsm_x4")), None),
    # broken: a row-major 128-byte-pitch tile without swizzle: 8 rows of one matrix in one bank group
    ((((64, 64), (64, 1), None, 0, 16, "ldsm_x4")), ("conflict", 0)),
    # broken: Sw<3,2,3> is finer than the 16-byte row (8-byte units): row 0 of matrix 4 comes apart
    ((((64, 64), (64, 1), (3, 2, 3), 0, 16, "ldsm_x4")), ("split", 1, 0)),
    # broken: no stride-1 mode, so every ldmatrix row is 8 elements 4 bytes apart
    ((((64, 64), (2, 128), None, 0, 16, "ldsm_x4")), ("split", 0, 0)),
    # broken: a 2-element offset puts every 16-byte row off its alignment
    ((((64, 64), (64, 1), None, 2, 16, "ldsm_x4")), ("misaligned", 0, 0)),
    # broken: the same offset under Sw<3,3,3>: row 1 straddles a swizzled 16-byte unit, which splits it
    ((((64, 64), (64, 1), (3, 3, 3), 2, 16, "ldsm_x4")), ("split", 0, 1)),
    # a padded pitch (+8 halves = 16 B) spreads the rows over the banks
    ((((64, 64), (72, 1), None, 0, 16, "ldsm_x4")), None),
])
def test_hand_picked_tiles(tile, first):
    assert naive(*tile)["first"] == first
    shape, stride, swz, base, bits, kind = tile
    res = prove(conflict_free(_subject(shape, stride, swz, base), kind, bits))
    assert res.status.value == ("PROVEN" if first is None else "REFUTED")
    if first is not None:
        assert _witness_key(res) == first
