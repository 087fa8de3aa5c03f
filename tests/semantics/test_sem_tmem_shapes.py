"""Semantics of ``tmem_exact_cover`` / ``tmem_subpartition`` for every tcgen05.ld shape, not only ``.32x32b``
(``test_sem_tmem.py`` draws ``SM100_TMEM_LOAD_32dp32b*`` alone), against a naive oracle sharing no code with
``layoutcheck.properties``, ``.models`` or ``.engines``.

Authority: PTX ISA 9.7.16.8 ``tcgen05.ld`` shapes and CUTLASS ``copy_traits_sm100.hpp``'s TMEM ops. A warp ``w``
reaches the 32 lanes of sub-partition ``w % 4``; one ``.LxBb`` load at lane offset ``r`` (inside the sub-partition)
and column ``c`` with ``.num = xN`` reads lanes ``32*(w%4) + r .. + L-1`` and, per lane, ``B * N`` bits of consecutive
32-bit columns from ``c`` (``.16x32bx2``: two 32-bit halves, the second right after the first, as CUTLASS issues
it: ``2N`` columns); with ``.pack::16b`` (CUTLASS's ``_16b`` ops) each column gives a 16-bit half, so the row takes
twice the columns. The accumulator's cells per data path (A-G) are ``test_sem_tmem.accumulator_cells``. The default
``rows`` is ``[0, 16]`` for the 16-lane shapes on a 128-row path (else ``[0]``) and the default ``columns`` every
load width over the columns the path uses.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.semantics.naive_common import spec_rows, verdict_event
from tests.semantics.test_sem_tmem import accumulator_cells
from tests.strategies_sem_tmem import ROWS, used_columns

SHAPES = {"32dp32b": (32, 32, 128), "16dp64b": (16, 64, 128), "16dp128b": (16, 128, 64), "16dp256b": (16, 256, 32),
          "16dp32b": (16, 64, 128)}
"""CUTLASS family -> (lanes, bits per lane per repetition, largest .num)."""


@st.composite
def loads(draw) -> dict:
    fam = draw(st.sampled_from(sorted(SHAPES)))
    _, bits, top = SHAPES[fam]
    packed = draw(st.booleans())
    reps = draw(st.sampled_from([r for r in (1, 2, 4, 8) if r <= top]))
    dp = draw(st.sampled_from(sorted(ROWS)))
    n = draw(st.sampled_from([16, 32, 64, 128]))
    width = bits * reps // (16 if packed else 32)
    c = {"family": fam, "packed": packed, "reps": reps, "dp": dp, "n": n, "width": width,
         "warps": [0, 1, 2, 3], "rows": None, "columns": None}
    how = draw(st.sampled_from(["default", "default", "rows", "warps", "columns"]))
    if how == "rows":
        c["rows"] = draw(st.sampled_from([[0], [0, 16], [16], [0, 8], [0, 16, 8]]))
    elif how == "warps":
        c["warps"] = draw(st.sampled_from([[0, 1], [0, 1, 2, 3, 4], [4, 5, 6, 7], [0, 2, 1, 3]]))
    elif how == "columns":
        step = draw(st.sampled_from([width, width, max(1, width // 2), 2 * width]))
        c["columns"] = list(range(0, used_columns(dp, n), step))
    return c


def atom(c: dict) -> str:
    return f"SM100_TMEM_LOAD_{c['family']}{c['reps']}x{'_16b' if c['packed'] else ''}"


def naive_cells(c: dict) -> Counter:
    lanes = SHAPES[c["family"]][0]
    rows = c["rows"] if c["rows"] is not None else ([0, 16] if lanes == 16 and ROWS[c["dp"]] == 128 else [0])
    cols = c["columns"] if c["columns"] is not None else list(range(0, used_columns(c["dp"], c["n"]), c["width"]))
    got: Counter = Counter()
    for w in c["warps"]:
        for r in rows:
            for c0 in cols:
                for lane in range(lanes):
                    for j in range(c["width"]):
                        got[(32 * (w % 4) + r + lane, c0 + j)] += 1
    return got


def naive_cover(c: dict) -> bool:
    acc, got = accumulator_cells(c["dp"], c["n"]), naive_cells(c)
    return set(got) <= acc and all(got[x] == 1 for x in acc)


def naive_subpartition(c: dict) -> bool:
    """Warp ``w`` touches only lanes ``32*(w%4) .. 32*(w%4) + 31``."""
    return all(lane // 32 == w % 4 for w in c["warps"] for lane, _ in naive_cells(dict(c, warps=[w])))


def _spec(c: dict, prop: str) -> str:
    extra = "".join(f"{k} = {c[k]}\n" for k in ("rows", "columns") if c[k] is not None)
    return (f'[[config]]\nname = "c"\nkind = "tmem"\ndata_path = "{c["dp"]}"\nmma_n = {c["n"]}\natom = "{atom(c)}"\n'
            f'warps = {c["warps"]}\n{extra}properties = ["{prop}"]\n')


def _readable(c: dict) -> bool:
    return all(0 <= lane < 128 and 0 <= col < 512 for lane, col in naive_cells(c))


@settings(max_examples=120, deadline=None)
@given(loads())
def test_exact_cover_for_every_load_shape(c: dict) -> None:
    row = spec_rows(_spec(c, "tmem_exact_cover"), ("auto",))["auto"]
    if not _readable(c):
        assert row.status in ("REFUTED", "ERROR"), (c, row.status, row.reason)
        return
    want = "PROVEN" if naive_cover(c) else "REFUTED"
    verdict_event(want)
    assert row.status == want, (c, atom(c), row.status, row.reason, row.counterexample)


@settings(max_examples=60, deadline=None)
@given(loads())
def test_subpartition_for_every_load_shape(c: dict) -> None:
    row = spec_rows(_spec(c, "tmem_subpartition"), ("auto",))["auto"]
    if not _readable(c):
        return
    want = "PROVEN" if naive_subpartition(c) else "REFUTED"
    verdict_event(want)
    assert row.status == want, (c, atom(c), row.status, row.reason, row.counterexample)


def test_a_packed_load_reads_two_columns_per_register() -> None:
    """The reproducer: ``SM100_TMEM_LOAD_32dp32b1x_16b`` issued at every column of a 16-column accumulator reads
    each column twice (a register packs the low halves of columns c and c+1) and column 16 past it: it was PROVEN
    (each register counted as its first column only), and the right epilogue (every second column) REFUTED."""
    base = {"family": "32dp32b", "packed": True, "reps": 1, "dp": "D", "n": 16, "width": 2, "warps": [0, 1, 2, 3],
            "rows": None}
    every = dict(base, columns=list(range(16)))
    assert not naive_cover(every)
    row = spec_rows(_spec(every, "tmem_exact_cover"), ("auto",))["auto"]
    assert row.status == "REFUTED" and "column 16), which is not part of the accumulator" in row.counterexample
    right = dict(base, columns=None)
    assert naive_cover(right)
    assert spec_rows(_spec(right, "tmem_exact_cover"), ("auto",))["auto"].status == "PROVEN"


_C = ('[[config]]\nname = "c"\nkind = "datapath"\ntile = [128, 128, 64]\ndtype = "f16"\n'
      'properties = [{{ name = "datapath", operand = "C" }}]\n\n[config.C]\ndtype = "f16"\ntmem_atom = "{atom}"\n'
      'data_path = "D"\nswizzle = "128B"\nwrite = "UniversalCopy<uint128_t>"\nstore = "tma"\nbox = [64, 128]\n')


def test_a_packed_epilogue_data_path() -> None:
    """The data path's registers of a packed load: thread ``t`` of warp ``w`` holds accumulator row ``32w + t``,
    columns ``c, c+1, ...`` as consecutive 16-bit values (register ``j`` = columns ``c+2j``, ``c+2j+1``), so 16-byte
    stores of 8 values each write 8 consecutive columns: PROVEN. It was REFUTED ("value 1 (accumulator (m,n) =
    (0,2))": a register counted as one value, of its first column); the unpacked load with the same stores is the
    twin (one value per register, 32 values per 32 columns)."""
    for atom in ("SM100_TMEM_LOAD_32dp32b32x_16b", "SM100_TMEM_LOAD_32dp32b32x", "SM100_TMEM_LOAD_32dp32b16x_16b"):
        row = spec_rows(_C.format(atom=atom), ("auto",))["auto"]
        assert row.status == "PROVEN", (atom, row.status, row.reason, row.counterexample)
