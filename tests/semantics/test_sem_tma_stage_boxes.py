"""Semantics of a data path's TMA stage (``datapath``, ``load = "tma"``) when the box does not tile the stage, and of
the one ``cta_group`` a config's MMA has, against naive oracles that share no code with ``layoutcheck.properties``,
``.models`` or ``.engines`` (they read the spec's numbers only).

Authorities. PTX ISA 9.7.9.25 ``cp.async.bulk.tensor`` and the CUDA driver API ``cuTensorMapEncodeTiled``: one tiled
TMA load writes its *whole* box into shared memory from its destination -- ``boxDim[0] * ... * elementSize`` bytes
-- filling the elements outside the global tensor with zeros (a TMA store reads the whole box); so a box that runs
past the stage along a mode (a box larger than the stage, or one whose size does not divide it, the last box
overrunning) writes bytes past the stage buffer, whatever the global tensor's extent. CUTLASS's SM90 / SM100
mainloops issue ``ceil``-many boxes per mode from the stage's origin. The canonical K-major stage (GMMA / UMMA atoms
of ``W`` bytes per row, stacked MN-first) is filled exactly by boxes ``[W / e, b]`` with ``b`` dividing MN.
cta_group: PTX ISA tcgen05 ``.cta_group::2`` is a property of the MMA instruction: it reads A *and* B from both
CTAs of the pair and writes the accumulator into both, so a config whose tables disagree on it is not a kernel.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.semantics.naive_common import spec_rows, verdict_event

SPAN = {"32B": 32, "64B": 64, "128B": 128}
BYTES = {"e4m3": 1, "f16": 2, "tf32": 4}


@st.composite
def stage_boxes(draw) -> dict:
    """A K-major operand stage ``(MN, K)`` of GMMA atoms and a TMA box that tiles it, overruns it, or neither."""
    dtype = draw(st.sampled_from(sorted(BYTES)))
    sw = draw(st.sampled_from(sorted(SPAN)))
    w = SPAN[sw] // BYTES[dtype]  # elements of one swizzle row
    pair = draw(st.booleans())
    mn = draw(st.sampled_from([64, 128]))  # one CTA's rows (the pair's tile is twice that)
    k = w * draw(st.sampled_from([1, 2]))
    b0 = draw(st.sampled_from([w, w, k, max(1, w // 2), 2 * w, w + w // 2]))
    b1 = draw(st.sampled_from([mn, mn, mn // 2, 8, 96, 2 * mn, min(256, 3 * mn // 2)]))
    return {"dtype": dtype, "swizzle": sw, "w": w, "pair": pair, "mn": mn, "k": k, "box": [b0, b1]}


def naive_overruns(c: dict) -> bool:
    """Some box of the ones issued over the stage writes past it: along K or MN, the last box ends past the stage."""
    (b0, b1), k, mn = c["box"], c["k"], c["mn"]
    return -(-k // b0) * b0 != k or -(-mn // b1) * b1 != mn


def naive_canonical(c: dict) -> bool:
    """The box is one swizzle row wide and divides MN: the boxes fill the MN-first stacked atoms exactly."""
    (b0, b1), mn = c["box"], c["mn"]
    return b0 == c["w"] and mn % b1 == 0 and b1 <= 256


def _spec(c: dict) -> str:
    rows = 2 * c["mn"] if c["pair"] else c["mn"]
    group = "cta_group = 2\n" if c["pair"] else ""
    return (f'[[config]]\nname = "s"\nkind = "datapath"\ntile = [{rows}, 128, {c["k"]}]\ndtype = "{c["dtype"]}"\n'
            f'properties = [{{ name = "datapath", operand = "A" }}]\n\n[config.A]\n{group}major = "K"\n'
            f'swizzle = "{c["swizzle"]}"\nbox = {c["box"]}\nread = "umma"\n')


def _agrees(c, row) -> None:
    """The naive rules: a box that overruns its stage is REFUTED (or refused); one that tiles it canonically PROVEN."""
    if naive_overruns(c):
        verdict_event("REFUTED")
        assert row.status in ("REFUTED", "ERROR"), (c, row.status, row.reason)
    elif naive_canonical(c):
        verdict_event("PROVEN")
        assert row.status == "PROVEN", (c, row.status, row.reason, row.counterexample)


@settings(max_examples=60, deadline=None)
@given(stage_boxes())
def test_a_box_past_the_stage_is_never_proven(c) -> None:
    """A box that overruns the stage is REFUTED (or refused); a box that tiles it canonically is PROVEN."""
    _agrees(c, spec_rows(_spec(c), ("auto",))["auto"])


def test_a_256_row_box_into_a_128_row_stage() -> None:
    """The reproducer: one 64x256 box per 128x64 stage wrote 16 KB past the stage and was PROVEN (the tile's own
    elements all landed right; the box's other half was not looked at)."""
    for pair in (False, True):
        c = {"dtype": "f16", "swizzle": "128B", "w": 64, "pair": pair, "mn": 128, "k": 64, "box": [64, 256]}
        assert naive_overruns(c)
        row = spec_rows(_spec(c), ("auto",))["auto"]
        assert row.status == "REFUTED", row
        assert "32768-byte access at smem byte 0, which leaves the 16384-byte stage buffer" in row.counterexample


_SM90 = ('[[config]]\nname = "s"\nkind = "datapath"\natom = "SM90_64x128x16_F32F16F16_SS"\natom_layout = [2, 1, 1]\n'
         'tile = [128, 128, 64]\ndtype = "f16"\nproperties = [{{ name = "datapath", operand = "{op}" }}]\n\n'
         '[config.A]\nmajor = "K"\nswizzle = "128B"\nbox = {a_box}\nread = "wgmma"\n\n'
         '[config.C]\ndtype = "f16"\nswizzle = "128B"\nwrite = "SM90_U32x4_STSM_N"\nstore = "tma"\nbox = {c_box}\n')


def test_sm90_load_and_store_boxes_past_the_stage() -> None:
    """The same for a wgmma mainloop and a TMA-store epilogue (a store box past its stage reads bytes past it and
    writes them to global memory outside the C tile)."""
    good = {"a_box": [64, 128], "c_box": [64, 128]}
    for op, bad in (("A", {"a_box": [64, 256]}), ("A", {"a_box": [64, 96]}), ("C", {"c_box": [64, 256]})):
        assert spec_rows(_SM90.format(op=op, **good), ("auto",))["auto"].status == "PROVEN"
        row = spec_rows(_SM90.format(op=op, **{**good, **bad}), ("auto",))["auto"]
        assert row.status == "REFUTED" and "stage buffer" in row.counterexample, (op, bad, row)


_MIXED = ('[[config]]\nname = "s"\nkind = "datapath"\ntile = [256, 256, 64]\ndtype = "f16"\n'
          'properties = [{op}]\n\n[config.A]\ncta_group = 2\nmajor = "K"\nswizzle = "128B"\nbox = [64, 128]\n'
          'read = "umma"\n\n[config.B]\n{b_group}major = "K"\nswizzle = "128B"\nbox = [64, {b_rows}]\nread = "umma"\n')


def test_one_mma_has_one_cta_group() -> None:
    """A cta_group::2 A with a cta_group::1 B (each CTA holding all 256 rows of B) was PROVEN: the MMA reads B's
    rows 128.. from CTA 1, which holds rows 0.. of B. The tables must agree; either operand checked alone too."""
    for op in ('"datapath"', '{ name = "datapath", operand = "A" }', '{ name = "datapath", operand = "B" }'):
        row = spec_rows(_MIXED.format(op=op, b_group="", b_rows=256), ("auto",))["auto"]
        assert row.status == "ERROR" and "cta_group" in row.reason and "'B'" in row.reason, (op, row)
    row = spec_rows(_MIXED.format(op='"datapath"', b_group="cta_group = 2\n", b_rows=128), ("auto",))["auto"]
    assert row.status == "PROVEN", row


def _wgmma_spec(c: dict) -> str:
    return (f'[[config]]\nname = "s"\nkind = "wgmma"\ndtype = "{c["dtype"]}"\nmajor = "K"\nswizzle = "{c["swizzle"]}"\n'
            f'tile = [{c["mn"]}, {c["k"]}]\nbox = {c["box"]}\nproperties = ["tma_wgmma"]\n')


@settings(max_examples=60, deadline=None)
@given(stage_boxes())
def test_tma_wgmma_box_past_the_stage_is_never_proven(c) -> None:
    """``tma_wgmma`` (the wgmma kind's TMA boxes against its descriptors): the same two rules. It compared only the
    tile's own elements, so a 96-row box over a 128-row stage (the second box writing rows 128..191) was PROVEN."""
    _agrees(c, spec_rows(_wgmma_spec(c), ("auto",))["auto"])


def test_tma_wgmma_reproducers() -> None:
    for box, at in (([64, 256], "covers 0..255"), ([64, 96], "covers 96..191")):
        c = {"dtype": "f16", "swizzle": "128B", "w": 64, "pair": False, "mn": 128, "k": 64, "box": box}
        row = spec_rows(_wgmma_spec(c), ("auto",))["auto"]
        assert row.status == "REFUTED" and at in row.counterexample, row


def test_peer_keys_only_in_a_pair() -> None:
    """``peer_rows`` on a cta_group::1 path was ignored (PROVEN of the one-CTA path the user did not mean): the
    user forgot ``cta_group = 2``. Now an ERROR naming the key."""
    body = ('[[config]]\nname = "s"\nkind = "datapath"\ntile = [128, 128, 64]\ndtype = "f16"\n'
            'properties = [{ name = "datapath", operand = "A" }]\n\n[config.A]\nmajor = "K"\nswizzle = "128B"\n'
            'box = [64, 128]\nread = "umma"\n')
    assert spec_rows(body, ("auto",))["auto"].status == "PROVEN"
    for key in ('peer_rows = [0, 0]', 'peer_cta = [0, 1]'):
        row = spec_rows(body + key + "\n", ("auto",))["auto"]
        assert row.status == "ERROR" and key.split()[0] in row.reason, row
