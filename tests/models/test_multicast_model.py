"""``models.multicast.Multicast``: CUTLASS's SM90 default split writes every row of every CTA once."""

from __future__ import annotations

from collections import Counter

import pytest

from layoutcheck.errors import LayoutError
from layoutcheck.models.multicast import FORMULAS, Multicast, default_formula


@pytest.mark.parametrize("cluster", [(1, 1), (2, 1), (1, 2), (2, 2), (4, 2), (2, 4), (4, 4)])
@pytest.mark.parametrize("operand", ["A", "B"])
def test_the_default_split_writes_each_row_of_each_cta_once(cluster: tuple[int, int], operand: str) -> None:
    m = Multicast(cluster, operand, 128)
    writes = Counter((d, r) for d, r, _ in m.writes())
    assert writes == Counter({(d, r): 1 for d in range(m.ctas) for r in range(128)})


def test_defaults_fill_the_formulas() -> None:
    m = Multicast((2, 2), "A", 64)
    assert all(getattr(m, f) == default_formula(f, "A") for f in FORMULAS)
    assert m.per_cta["slice_rows"].tolist() == [32, 32, 32, 32]


def test_a_mask_missing_a_cta_leaves_its_rows_unwritten() -> None:
    m = Multicast((2, 2), "A", 64, mask="1 << x")  # only CTA x of row 0, not the whole row
    dests = {d for d, _, _ in m.writes()}
    assert dests == {0, 1}


@pytest.mark.parametrize(("kwargs", "key"), [
    ({"cluster": (4, 8)}, "cluster"), ({"operand": "C"}, "operand"), ({"extent": 0}, "extent"),
    ({"mask": "zz"}, "mask"), ({"needs": "x +"}, "needs"),
])
def test_a_bad_value_names_its_parameter(kwargs: dict, key: str) -> None:
    args = {"cluster": (2, 2), "operand": "A", "extent": 128} | kwargs
    with pytest.raises(LayoutError) as info:
        Multicast(**args)
    assert info.value.key == key
