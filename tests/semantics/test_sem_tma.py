"""Semantics of ``tma_compatible``: a naive oracle from the CUDA driver API and the PTX ISA.

Authority: CUDA driver API ``cuTensorMapEncodeTiled`` (CUDA 12.8-13.0 text): ``tensorRank`` 1..5, ``globalDim`` in
1..2^32, ``globalStrides`` multiples of 16 B and below 2^40, ``boxDim`` 1..256, ``boxDim[0] * elementSize`` a
multiple of 16 B, with a swizzle the inner box extent at most the swizzle span (32/64/128 B); plus the one measured
limit the text does not state (``hw/tma.py``, driver 580 on H100): at most 233472 B (228 KiB) of data per box.
PTX ISA 5.5.3 (tiled mode: box rows laid down innermost first) and 5.5.7 (swizzling: the 16-byte chunk bits 4..6 of
the shared-memory *address* XOR the 128-byte line bits 7..9, as many bits as the mode has: 1, 2, 3), the
cp.async.bulk.tensor destination 128-byte aligned.

Definition restated: the descriptor is legal, each layout mode's extent is a multiple of the box along its dim, and
issuing one box per box-sized block of the tile at ``dst = base + esize * L(block origin)``, every tile element
``c`` lands at ``Sw(dst + lin(j)) - base == esize * Sw_L(L(c))``, every ``dst`` 128-byte aligned. The oracle below is
plain Python over flat colex indices; it shares no code with ``layoutcheck.properties``, ``.models`` or
``.engines``, and reaches the claim only through ``check_property`` on a spec's text.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.semantics.naive_common import colex, flat, layout_text, prod, scaled, spec_rows, swizzle, verdict_event
from tests.strategies_sem_tma import ESIZE, SPAN, SW_BITS, TmaCase, limit_boxes, natural, tma_cases

BOX_BYTES_MAX = 233472  # measured, hw/tma.py LIMITS.box_bytes_max (driver 580.159.04, H100)


def global_dims(case: TmaCase) -> list[int]:
    """The spec binder's default global tensor: the tile's extent along each box dim."""
    dims = [1] * len(case.box)
    for i, d in enumerate(case.modes):
        dims[d] = prod(case.shape[i])
    return dims


def legal(case: TmaCase) -> bool:
    """The driver's rules for these arguments (packed global strides, element strides 1, interleave none)."""
    es, box, dims = case.esize, case.box, global_dims(case)
    strides, acc = [], es
    for g in dims[:-1]:
        acc *= g
        strides.append(acc)
    inner = box[0] * es
    data = es
    for b in box:
        data *= b
    return (1 <= len(box) <= 5 and all(1 <= g <= 2**32 for g in dims)
            and all(s % 16 == 0 and s < 2**40 for s in strides) and all(1 <= b <= 256 for b in box)
            and inner % 16 == 0 and (SPAN[case.swizzle] == 0 or inner <= SPAN[case.swizzle])
            and data <= BOX_BYTES_MAX)


def elements(case: TmaCase) -> list[tuple[bool, bool]]:
    """Per tile element (flat colex index over the layout's modes): (its box's dst aligned, it lands right)."""
    es, tile = case.esize, [prod(m) for m in case.shape]
    n = [case.box[d] for d in case.modes]
    pitch = max(case.box[0] * es, SPAN[case.swizzle])
    rows = list(case.box[1:])
    lsw = case.layout_swizzle or (0, 0, 0)
    out = []
    for i in range(prod(tile)):
        crd, r = [], i
        for t in tile:
            crd.append(r % t)
            r //= t
        origin = [c - c % k for c, k in zip(crd, n, strict=True)]
        o_idx, mul = 0, 1
        for c, t in zip(origin, tile, strict=True):
            o_idx += c * mul
            mul *= t
        dst = case.base_address + es * colex(case.shape, case.stride, o_idx)
        j = [0] * len(tile)
        for m, d in enumerate(case.modes):
            j[d] = crd[m] - origin[m]
        row, mul = 0, 1
        for jj, nn in zip(j[1:], rows, strict=True):  # colex over the box's outer dims
            row += jj * mul
            mul *= nn
        actual = swizzle(SW_BITS[case.swizzle], 4, 3, dst + es * j[0] + pitch * row) - case.base_address
        expected = es * swizzle(*lsw, colex(case.shape, case.stride, i))
        out.append((dst % 128 == 0, actual == expected))
    return out


def naive(case: TmaCase) -> bool:
    if not legal(case):
        return False
    if any(prod(m) % case.box[d] for m, d in zip(case.shape, case.modes, strict=True)):
        return False
    return all(a and b for a, b in elements(case))


def spec(case: TmaCase) -> str:
    shape = tuple(m if isinstance(m, int) else tuple(m) for m in case.shape)
    return (f'[[config]]\nname = "c"\nkind = "tma"\ndtype = "{case.dtype}"\nswizzle = "{case.swizzle}"\n'
            f'smem_layout = "{layout_text(shape, case.stride, case.layout_swizzle)}"\n'
            f"modes = {list(case.modes)}\nbox = {list(case.box)}\nbase_address = {case.base_address}\n"
            'properties = ["tma_compatible"]\n')


def check(case: TmaCase) -> bool:
    want = naive(case)
    rows = spec_rows(spec(case))
    status = "PROVEN" if want else "REFUTED"
    verdict_event(status)
    assert rows["auto"].status == status, (case, rows["auto"].status, rows["auto"].reason,
                                           rows["auto"].counterexample)
    for e, r in rows.items():
        assert r.status in (status, "UNKNOWN"), (case, e, r.status, r.reason)
        w = r.counterexample_data or {}
        if r.status == "REFUTED" and w.get("kind") in ("place", "dst"):  # the witness is wrong by the definition
            dst_ok, placed = elements(case)[w["i"]]
            assert not (dst_ok if w["kind"] == "dst" else placed), (case, e, w)
        if r.status == "REFUTED" and w.get("kind") == "descriptor":
            assert not legal(case), (case, e, w)
    return want


@scaled(0.5)
@given(tma_cases())
def test_every_engine_agrees_with_the_naive_tma_oracle(case: TmaCase) -> None:
    check(case)


@settings(max_examples=24)
@given(limit_boxes())
def test_driver_limits_at_the_value_and_one_past(case: TmaCase) -> None:
    if case.how == "limit rank over=True":  # the spec schema reads 1 to 5 modes: a rank-6 box is an ERROR row
        assert not legal(case)
        assert {r.status for r in spec_rows(spec(case)).values()} == {"ERROR"}
        return
    assert check(case) == ("over=False" in case.how), case


def test_the_natural_case_is_proven_for_every_swizzle_and_dtype() -> None:
    for dtype in ESIZE:
        for sw in SPAN:
            b0 = max(16, SPAN[sw]) // ESIZE[dtype]
            assert check(natural(dtype, sw, (b0, 8), (2, 2), (0, 1))), (dtype, sw)
            assert check(natural(dtype, sw, (b0, 8), (2, 3), (1, 0))), (dtype, sw)


def test_broken_variant_is_refuted() -> None:
    """Deliberately broken: the 128B swizzle's span padding dropped on a 64-byte box (rows 64 B apart in the layout,
    128 B apart in shared memory) -- refuted; the padded layout is proven."""
    good = natural("f16", "128B", (32, 8), (2, 1), (0, 1))
    bad = TmaCase(**{**natural("f16", "none", (32, 8), (2, 1), (0, 1)).__dict__, "swizzle": "128B",
                     "layout_swizzle": good.layout_swizzle})
    assert check(good) and not check(bad)
    assert flat(bad.stride) != flat(good.stride)


@settings(max_examples=10)
@given(st.sampled_from(["16B", "32B"]))
def test_interleave_is_not_proven(interleave: str) -> None:
    """Interleaved boxes are outside the smem-image model: never PROVEN (fail closed; it was PROVEN before)."""
    case = natural("f16", "32B" if interleave == "32B" else "none", (16, 2, 2), (1, 1, 1), (0, 1, 2))
    rows = spec_rows(spec(case).replace("properties", f'interleave = "{interleave}"\nproperties'))
    assert all(r.status != "PROVEN" for r in rows.values()), {e: (r.status, r.reason) for e, r in rows.items()}
