"""Conflict-freedom at every base ``period * s`` (s symbolic): the z3 engine agrees with the exhaustive one, never
claims PROVEN on a resource limit, and declines what it does not encode."""

from __future__ import annotations

import pytest

from layoutcheck import Layout, Swizzle
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.engines.prove import prove
from layoutcheck.errors import LayoutError
from layoutcheck.properties.banks import conflict_free_at_every_base
from layoutcheck.result import Verdict

pytest.importorskip("z3")

TILE = Layout((8, 64), (64, 1))  # 8 rows x 128 B of bf16, K-major
SW128 = ComposedLayout(Swizzle(3, 3, 3), 0, TILE)  # Sw<3,4,3> on bytes = Sw<3,3,3> on bf16 elements


def test_sw128_ldmatrix_x4_conflict_free_for_every_1024B_base() -> None:
    """Sw<3,4,3>-swizzled 8x128 B tiles read by ldmatrix.x4: conflict-free at every base 1024*s, s < 2**20."""
    res = prove(conflict_free_at_every_base(SW128, "ldsm_x4", 512, 1 << 20, 16), engine="z3")
    assert res.status is Verdict.PROVEN, res


@pytest.mark.slow
def test_every_stage_of_a_64_row_band_buffer() -> None:
    """A 64x128 B bf16 stage (8 warps' 8-row bands, 8 KiB): ldmatrix and 16 B row stores at every stage s < 2**16."""
    stage = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((64, 64), (64, 1)))
    for kind in ("ldsm_x4", "sts128", "stsm_x4"):
        assert prove(conflict_free_at_every_base(stage, kind, 64 * 64, 1 << 16, 16), engine="z3").proven


@pytest.mark.parametrize("bits", [1, 2, 3])
@pytest.mark.parametrize("period", [8, 16, 64, 512])
@pytest.mark.parametrize("kind", ["ldsm_x4", "sts128", "stsm_x4", "lds32"])
def test_z3_agrees_with_exhaustive(bits: int, period: int, kind: str) -> None:
    prop = conflict_free_at_every_base(ComposedLayout(Swizzle(bits, 3, 3), 0, TILE), kind, period, 16, 16)
    ex, z = prove(prop, engine="exhaustive"), prove(prop, engine="z3")
    assert ex.status is z.status and ex.status is not Verdict.UNKNOWN
    if ex.status is Verdict.REFUTED:  # both report the smallest base
        assert ex.counterexample.data["s"] == z.counterexample.data["s"]


def test_base_alignment_matters_for_row_stores() -> None:
    """Sw<3,3,3>: ldmatrix stays conflict-free at 16-byte bases, 16 B row stores do not (s = 1: base 16 B)."""
    assert prove(conflict_free_at_every_base(SW128, "ldsm_x4", 8, 1 << 12, 16), engine="z3").proven
    res = prove(conflict_free_at_every_base(SW128, "sts128", 8, 1 << 12, 16), engine="z3")
    assert res.status is Verdict.REFUTED and res.counterexample.data["s"] == 1
    assert "at base 8*1" in res.counterexample.text and "wavefronts" in res.counterexample.text


def test_plain_rows_refuted_at_the_first_base() -> None:
    res = prove(conflict_free_at_every_base(TILE, "ldsm_x4", 512, 1 << 10, 16), engine="z3")
    assert res.status is Verdict.REFUTED and res.counterexample.data["s"] == 0


def test_resource_limit_is_unknown_never_proven() -> None:
    res = prove(conflict_free_at_every_base(SW128, "ldsm_x4", 512, 1 << 20, 16), engine="z3", rlimit=1)
    assert res.status is Verdict.UNKNOWN and res.reason


def test_merging_loads_are_declined_by_z3_and_decided_exhaustively() -> None:
    prop = conflict_free_at_every_base(SW128, "lds64", 512, 8, 16)
    assert prove(prop, engine="z3").status is Verdict.UNKNOWN
    assert prove(prop, engine="exhaustive").status is not Verdict.UNKNOWN


def test_bad_period_is_an_error() -> None:
    with pytest.raises(LayoutError, match="period must be a positive multiple of 8"):
        conflict_free_at_every_base(SW128, "ldsm_x4", 4, 8, 16)
