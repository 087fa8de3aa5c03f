"""Hypothesis strategies that *build* tensor-memory cases for the semantics oracles of ``tmem_allocation``,
``tmem_subpartition`` and ``tmem_exact_cover`` (``tests/semantics/test_sem_tmem.py``).

``allocations``: lists of column counts around every boundary of ``tcgen05.alloc`` (0, 1, 31/32/33, powers of two
+-1, 512/513, 1024) and totals around 512. ``epilogues``: a data path (A, B, D, E, F, G) over ``N`` columns read with
``32x32b`` loads (``SM100_TMEM_LOAD_32dp32b<r>x``), starting from the epilogue that covers it and then broken: a
warp dropped or repeated, warps 4-7 (the same sub-partitions again), a row offset, a column start dropped,
repeated or moved by one, a start past the accumulator.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

ALLOC_VALUES = [0, 1, 16, 31, 32, 33, 48, 63, 64, 65, 96, 127, 128, 129, 255, 256, 257, 384, 511, 512, 513, 1024]
ROWS = {"A": 128, "D": 128, "B": 64, "E": 64, "F": 64, "G": 32}


@dataclass(frozen=True)
class Epilogue:
    data_path: str
    n: int
    reps: int  # 32-bit registers per thread of one 32x32b load: columns it spans
    warps: tuple[int, ...]
    rows: tuple[int, ...]
    columns: tuple[int, ...]
    how: str = "natural"

    @property
    def atom(self) -> str:
        return f"SM100_TMEM_LOAD_32dp32b{self.reps}x"


def allocations() -> st.SearchStrategy[tuple[int, ...]]:
    """Boundary values, or legal sizes whose total lands below, at or above 512."""
    legal = st.lists(st.sampled_from([32, 64, 128, 256, 512]), min_size=1, max_size=4)
    return st.one_of(st.lists(st.sampled_from(ALLOC_VALUES), min_size=1, max_size=4), legal).map(tuple)


def used_columns(dp: str, n: int) -> int:
    return {"A": n, "D": n, "F": n, "B": n // 2, "E": n // 2, "G": n // 4}[dp]


@st.composite
def epilogues(draw: st.DrawFn) -> Epilogue:
    dp = draw(st.sampled_from(sorted(ROWS)))
    n = draw(st.sampled_from([8, 16, 32, 64, 128]))
    reps = draw(st.sampled_from([1, 2, 4, 8, 16]))
    used = used_columns(dp, n)
    cols = list(range(0, used, reps))
    warps, rows = [0, 1, 2, 3], [0]
    how = draw(st.sampled_from(["natural", "natural", "drop_warp", "repeat_warp", "warps4-7", "row16", "drop_col",
                                "repeat_col", "shift_col", "extra_col"]))
    if how == "drop_warp":
        warps.remove(draw(st.sampled_from(warps)))
    elif how == "repeat_warp":
        warps.append(draw(st.sampled_from(warps)))
    elif how == "warps4-7":
        warps = draw(st.sampled_from([[4, 5, 6, 7], [0, 1, 6, 7], [0, 1, 2, 3, 4]]))
    elif how == "row16":
        rows = draw(st.sampled_from([[16], [0, 16], [1]]))
    elif how == "drop_col" and len(cols) > 1:
        cols.remove(draw(st.sampled_from(cols)))
    elif how == "repeat_col":
        cols.append(draw(st.sampled_from(cols)))
    elif how == "shift_col":
        i = draw(st.integers(0, len(cols) - 1))
        cols[i] += draw(st.sampled_from([1, -1])) if cols[i] else 1
    elif how == "extra_col":
        cols.append(used)
    return Epilogue(dp, n, reps, tuple(warps), tuple(rows), tuple(cols), how)
