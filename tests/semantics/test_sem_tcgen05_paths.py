"""Semantics of the cta_group::2 operand halves (``datapath`` with ``cta_group = 2``) and of ``tmem_copy_image``.

Authorities. cta_group::2: the PTX ISA (tcgen05 ``.cta_group::2``: the MMA reads A and B from the shared memory of
both CTAs of the pair) and CUTLASS's ``MMA_Traits<SM100_MMA_*_2x1SM_SS>`` (``ALayout (2,(M/2,K)):(M/2,(1,M))``:
CTA ``p`` supplies rows ``p*MN/2 ..`` of the operand; BLayout likewise over N). The naive side tracks rows: peer
``p``'s TMA writes global row ``peer_rows[p] + i`` to local row ``i`` of CTA ``peer_cta[p]``; the path is right iff
local row ``i`` of CTA ``c`` (c = 0, 1) receives exactly one write, of row ``c*MN/2 + i``, and nothing lands in
another CTA or comes from outside the operand (the per-CTA stage is a right one: SW128 K-major, its box). The C
side: CTA ``c`` holds accumulator rows ``c*M/2 ..`` (``CLayout``) and stores its row ``i`` at ``peer_rows[c] + i``.

tcgen05.cp: the PTX ISA's words for each ``.shape`` (9.7.16.9.2): ``.128x256b`` / ``.128x128b`` row ``r`` to lane
``r``; ``.4x256b`` row ``r`` to lane ``32 r``; ``.64x128b.warpx2::02_13`` to lanes ``r`` and ``64 + r``;
``.64x128b.warpx2::01_23`` rows 0-31 to lanes ``r``, ``32 + r`` and rows 32-63 to ``32 + r``, ``64 + r``;
``.32x128b.warpx4`` to ``r + 32 j``; a row's bits on consecutive columns from the issued one. No CUTLASS ValID.
"""

from __future__ import annotations

from hypothesis import given

from tests.semantics.naive_common import agree, offsets, spec_rows
from tests.strategies_sem_tcgen05_paths import copies, image, pairs


# -- cta_group::2 ----------------------------------------------------------------------------------------------------
def naive_pair_holds(p: dict) -> bool:
    mn = p["mn"]
    half = mn // 2
    got: dict[tuple[int, int], list[int]] = {}
    for peer in (0, 1):
        for i in range(half):
            row, cta = p["peer_rows"][peer] + i, p["peer_cta"][peer]
            if cta not in (0, 1) or not 0 <= row < mn:
                return False
            got.setdefault((cta, i), []).append(row)
    return all(got.get((c, i)) == [c * half + i] for c in (0, 1) for i in range(half))


def _pair_spec(p: dict) -> str:
    mn, half = p["mn"], p["mn"] // 2
    tile = [mn, 128, 64] if p["operand"] == "A" else [128, mn, 64]
    return (f'[[config]]\nname = "p"\nkind = "datapath"\ntile = {tile}\ndtype = "f16"\n'
            f'properties = [{{ name = "datapath", operand = "{p["operand"]}" }}]\n\n[config.{p["operand"]}]\n'
            f'cta_group = 2\nmajor = "K"\nswizzle = "128B"\nbox = [64, {half}]\nread = "umma"\n'
            f'peer_rows = {p["peer_rows"]}\npeer_cta = {p["peer_cta"]}\n')


@given(pairs())
def test_pair_verdict_equals_the_naive_row_walk(p) -> None:
    want = naive_pair_holds(p)
    rows = spec_rows(_pair_spec(p), ("auto",))
    agree(rows, want, f"pair {p}")
    if not want:  # the witness names a global element whose peer's TMA does not put it in its own CTA
        w = rows["auto"].counterexample_data
        half = p["mn"] // 2
        if w["stage"] == 0 and w["kind"] == "misplaced":
            peer, i = divmod(w["i"], half * 64)
            local = i % half
            assert (p["peer_rows"][peer] + local, p["peer_cta"][peer]) != (peer * half + local, peer), (w, p)


def naive_epilogue_pair_holds(p: dict) -> bool:
    """C: CTA ``c`` holds accumulator rows ``c*M/2 + i`` (CLayout) and stores its row ``i`` to global row
    ``peer_rows[c] + i``; right iff every row is stored once, by the CTA that holds it, and nothing outside."""
    mn, half = p["mn"], p["mn"] // 2
    got: dict[int, list[int]] = {}
    for c in (0, 1):
        for i in range(half):
            r = p["peer_rows"][c] + i
            if not 0 <= r < mn:
                return False
            got.setdefault(r, []).append(c * half + i)
    return all(got.get(r) == [r] for r in range(mn))


def _epilogue_spec(p: dict) -> str:
    mn, half = p["mn"], p["mn"] // 2
    path = "A" if mn == 256 else "B"
    return (f'[[config]]\nname = "c"\nkind = "datapath"\ntile = [{mn}, 128, 64]\ndtype = "f16"\n'
            f'properties = [{{ name = "datapath", operand = "C" }}]\n\n[config.C]\ncta_group = 2\ndtype = "f16"\n'
            f'tmem_atom = "SM100_TMEM_LOAD_32dp32b32x"\ndata_path = "{path}"\nswizzle = "128B"\n'
            f'write = "UniversalCopy<uint128_t>"\nstore = "tma"\nbox = [64, {half}]\n'
            f'peer_rows = {p["peer_rows"]}\n')


@given(pairs())
def test_pair_epilogue_verdict_equals_the_naive_row_walk(p) -> None:
    want = naive_epilogue_pair_holds(p)
    agree(spec_rows(_epilogue_spec(p), ("auto",)), want, f"C pair {p}")


def test_the_consistent_double_swap_is_right() -> None:
    p = {"operand": "A", "mn": 256, "peer_rows": [128, 0], "peer_cta": [1, 0]}
    assert naive_pair_holds(p)
    assert spec_rows(_pair_spec(p), ("auto",))["auto"].status == "PROVEN"


def test_both_halves_into_the_leader_is_wrong() -> None:
    p = {"operand": "B", "mn": 256, "peer_rows": [0, 128], "peer_cta": [0, 0]}
    assert not naive_pair_holds(p)
    r = spec_rows(_pair_spec(p), ("auto",))["auto"]
    assert r.status == "REFUTED" and "CTA 1's TMA" in r.counterexample and "CTA 0 smem" in r.counterexample


# -- tcgen05.cp ----------------------------------------------------------------------------------------------------
def naive_lanes(shape: str, r: int) -> list[int]:
    if shape in (".128x256b", ".128x128b"):
        return [r]
    if shape == ".4x256b":
        return [32 * r]
    if shape == ".64x128b.warpx2::02_13":
        return [r, 64 + r]
    if shape == ".64x128b.warpx2::01_23":
        return [r, 32 + r] if r < 32 else [32 + r, 64 + r]
    return [r + 32 * j for j in range(4)]


def naive_copy_violation(c: dict) -> tuple[str, int, int] | None:
    shape, bits = c["shape"], c["bits"]
    rows = {".4x256b": 4, ".64x128b.warpx2::02_13": 64, ".64x128b.warpx2::01_23": 64, ".32x128b.warpx4": 32}.get(
        shape, 128)
    elems = (256 if shape in (".128x256b", ".4x256b") else 128) // bits
    per = 32 // bits
    shp, strd = c["layout"].split(":")
    img_shape, img_stride = eval(shp), eval(strd)  # a layout text the strategy wrote: nested int tuples
    off = offsets(img_shape, img_stride)
    r_img = img_shape[0] if isinstance(img_shape[0], int) else img_shape[0][0] * img_shape[0][1]
    e_img = img_shape[1]
    copies_img = img_shape[2] if len(img_shape) == 3 else 1
    base = 128 * c["read_column"] * per
    declared = {(r, e): sorted(base + off[r + r_img * (e + e_img * j)] for j in range(copies_img))
                for r in range(r_img) for e in range(e_img)}
    bad = []
    for r in range(rows):
        for e in range(elems):
            slot = c["column"] * per + e
            cells = sorted(lane + 128 * slot for lane in naive_lanes(shape, r))
            if slot >= 512 * per:
                bad.append((0, r, e, "outside"))
            elif cells != declared.get((r, e), []):
                bad.append((1, r, e, "misplaced"))
    for r, e in declared:
        if r >= rows or e >= elems:
            bad.append((2, r, e, "uncopied"))
    if not bad:
        return None
    big = max(rows, r_img)
    _, r, e, rule = min(bad, key=lambda b: (b[0], b[1] + big * b[2]))
    return rule, r, e


def _copy_spec(c: dict) -> str:
    return (f'[[config]]\nname = "c"\nkind = "tmem_copy"\nshape = "{c["shape"]}"\nbits = {c["bits"]}\n'
            f'column = {c["column"]}\nread_column = {c["read_column"]}\nlayout = "{c["layout"]}"\n'
            f'properties = ["tmem_copy_image"]\n')


@given(copies())
def test_tmem_copy_image_equals_the_ptx_description(c) -> None:
    want = naive_copy_violation(c)
    rows = spec_rows(_copy_spec(c), ("auto",))
    agree(rows, want is None, f"tcgen05.cp {c}")
    if want is not None:
        w = rows["auto"].counterexample_data
        assert (w["rule"], w["row"], w["element"]) == want, (w, want, c)


def test_warpx4_scale_factors_in_every_sub_partition() -> None:
    c = {"shape": ".32x128b.warpx4", "bits": 8, "column": 8, "read_column": 8, "layout": image(".32x128b.warpx4", 8)}
    assert naive_copy_violation(c) is None
    assert spec_rows(_copy_spec(c), ("auto",))["auto"].status == "PROVEN"
    c["shape"] = ".128x128b"
    assert naive_copy_violation(c) == ("misplaced", 0, 0)
