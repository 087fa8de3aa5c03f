"""Semantics of the tensor-memory claims ``tmem_allocation``, ``tmem_subpartition`` and ``tmem_exact_cover``.

Authority: PTX ISA 9.7.16 (tcgen05). Tensor memory is 128 lanes x 512 columns of 32-bit cells. ``tcgen05.alloc``
(9.7.16.7.1): the number of columns is a power of 2, at least 32 and at most 512; all allocations share the 512
columns. Access restrictions (9.7.16.2.2 / 9.7.16.8.3): warp ``w`` of a warpgroup may access only lanes
``32*(w%4) .. 32*(w%4)+31``. ``tcgen05.ld.32x32b.x<r>`` (9.7.16.8.3, matrix fragments): thread ``t`` of the warp
reads lane ``lane_base + t``, registers ``0..r-1`` from columns ``col_base .. col_base + r - 1``. Data-path layouts
(9.7.16.10.5): A/D row m on lane m; F (M=64) rows 16 per sub-partition, lane ``32*(m//16) + m%16``; B/E (64 rows)
columns ``[N/2, N)`` on lanes ``64 + m``; G (32 rows) column quarter ``q`` on lanes ``32q + m``.

The oracles are plain Python sets and counters; they share no code with ``layoutcheck.properties``, ``.models`` or
``.engines`` and reach the claims only through ``check_property`` on a spec's text. Only ``32x32b`` loads are
generated (the other shapes' fragments are not restated here).
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given

from tests.semantics.naive_common import spec_rows, verdict_event
from tests.strategies_sem_tmem import ROWS, Epilogue, allocations, epilogues, used_columns


def naive_allocation(cols: tuple[int, ...]) -> bool:
    return all(32 <= c <= 512 and c & (c - 1) == 0 for c in cols) and sum(cols) <= 512


def accumulator_cells(dp: str, n: int) -> set[tuple[int, int]]:
    """(lane, column) of every accumulator element (m, n) of data path ``dp``."""
    out = set()
    for m in range(ROWS[dp]):
        for c in range(n):
            if dp in ("A", "D"):
                out.add((m, c))
            elif dp == "F":
                out.add((32 * (m // 16) + m % 16, c))
            elif dp in ("B", "E"):
                half = n // 2
                out.add((m + 64 * (c // half), c % half))
            else:  # G
                q = n // 4
                out.add((m + 32 * (c // q), c % q))
    return out


def loaded_cells(e: Epilogue) -> Counter:
    cells: Counter = Counter()
    for w in e.warps:
        for r in e.rows:
            for c in e.columns:
                for t in range(32):
                    for v in range(e.reps):
                        cells[(32 * (w % 4) + r + t, c + v)] += 1
    return cells


def naive_exact_cover(e: Epilogue) -> bool:
    acc, got = accumulator_cells(e.data_path, e.n), loaded_cells(e)
    return set(got) <= acc and all(got[x] == 1 for x in acc)


def naive_subpartition(e: Epilogue) -> bool:
    return all(32 * (w % 4) <= 32 * (w % 4) + r + t < 32 * (w % 4) + 32 for w in e.warps for r in e.rows
               for t in range(32))


def spec(e: Epilogue, prop: str) -> str:
    return (f'[[config]]\nname = "c"\nkind = "tmem"\ndata_path = "{e.data_path}"\nmma_n = {e.n}\n'
            f'atom = "{e.atom}"\nwarps = {list(e.warps)}\nrows = {list(e.rows)}\ncolumns = {list(e.columns)}\n'
            f'properties = ["{prop}"]\n')


def readable(e: Epilogue) -> bool:
    """The spec names TMEM addresses inside 128 x 512 (else the loads cannot be stated: an ERROR row)."""
    return all(0 <= 32 * (w % 4) + r < 128 for w in e.warps for r in e.rows) and all(0 <= c < 512 for c in e.columns)


def agree_or_error(rows: dict, want: bool | None, what: object) -> None:
    if want is None:
        assert all(r.status == "ERROR" for r in rows.values()), (what, {k: r.status for k, r in rows.items()})
        return
    status = "PROVEN" if want else "REFUTED"
    verdict_event(status)
    assert rows["auto"].status == status, (what, rows["auto"].status, rows["auto"].reason)
    for k, r in rows.items():
        assert r.status in (status, "UNKNOWN"), (what, k, r.status, r.reason)


@given(allocations())
def test_tmem_allocation_agrees_with_tcgen05_alloc(cols: tuple[int, ...]) -> None:
    body = f'[[config]]\nname = "c"\nkind = "tmem"\nallocation = {list(cols)}\nproperties = ["tmem_allocation"]\n'
    # the spec schema reads column counts as positive ints: 0 is an ERROR row (a value it cannot read)
    agree_or_error(spec_rows(body), naive_allocation(cols) if min(cols) > 0 else None, cols)


@given(epilogues())
def test_tmem_exact_cover_agrees_with_the_naive_cover(e: Epilogue) -> None:
    agree_or_error(spec_rows(spec(e, "tmem_exact_cover")), naive_exact_cover(e) if readable(e) else None, e)


@given(epilogues())
def test_tmem_subpartition_agrees_with_the_lane_rule(e: Epilogue) -> None:
    agree_or_error(spec_rows(spec(e, "tmem_subpartition")), naive_subpartition(e) if readable(e) else None, e)


def test_every_allocation_boundary() -> None:
    for c in (16, 31, 32, 33, 63, 64, 65, 256, 511, 512, 513):
        test_tmem_allocation_agrees_with_tcgen05_alloc.hypothesis.inner_test((c,))
    test_tmem_allocation_agrees_with_tcgen05_alloc.hypothesis.inner_test((256, 256))
    test_tmem_allocation_agrees_with_tcgen05_alloc.hypothesis.inner_test((256, 256, 32))


def test_broken_variant_is_refuted() -> None:
    """Deliberately broken (tvm#20068's shape): the M=64 data path F read with 32-lane loads -- lanes 16-31 of every
    sub-partition are outside the accumulator: refuted; the M=128 path D with the same loads is proven."""
    good = Epilogue("D", 32, 8, (0, 1, 2, 3), (0,), tuple(range(0, used_columns("D", 32), 8)))
    bad = Epilogue("F", 32, 8, (0, 1, 2, 3), (0,), good.columns)
    assert naive_exact_cover(good) and not naive_exact_cover(bad)
    agree_or_error(spec_rows(spec(good, "tmem_exact_cover")), True, good)
    agree_or_error(spec_rows(spec(bad, "tmem_exact_cover")), False, bad)
