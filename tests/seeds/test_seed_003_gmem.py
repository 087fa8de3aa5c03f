"""Seed 003 (``003_5d80ed5705a2c364.txt``) section 5: GMEM request size per swizzle mode, and "choose the largest
swizzle atom", checked with ``layoutcheck.models.banks.choose_smem_atom`` / ``gmem_runs`` (findings in docs/banks.md,
"Seed findings").

Authorities: CUTLASS ``include/cutlass/gemm/collective/builders/sm90_common.inl`` (``ss_smem_selector``) and
``sm100_common.inl`` (``sm100_smem_selector``): the largest atom whose width DIVIDES BLK_K (K-major) / BLK_MN
(MN-major); CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory": 32-byte sectors, 128-byte lines.
"""

from __future__ import annotations

import pytest

from layoutcheck.errors import LayoutError
from layoutcheck.hw.smem import gmma_smem_atom
from layoutcheck.models.smem_atoms import choose_smem_atom, gmem_runs

MODES = {"INTER": 16, "SW32": 32, "SW64": 64, "SW128": 128}


@pytest.mark.parametrize("major", ["K", "MN"])
@pytest.mark.parametrize("bits", [8, 16, 32])
@pytest.mark.parametrize(("mode", "width"), MODES.items())
def test_request_size_per_mode(major: str, bits: int, mode: str, width: int) -> None:
    """Seed: a warp's conflict-free 4 B/lane store of 128 contiguous smem bytes reads GMEM in runs of 16 / 32 / 64 /
    128 B for none / 32B / 64B / 128B -- right, for both majors and every element width (computed from the layout)."""
    g = gmem_runs(gmma_smem_atom(major, mode, bits), 128)
    assert g.runs == (width,) and g.request_bytes == width


@pytest.mark.parametrize(("mode", "sectors", "lines", "efficiency"),
                         [("INTER", 8, 8, 0.5), ("SW32", 4, 4, 1.0), ("SW64", 4, 2, 1.0), ("SW128", 4, 1, 1.0)])
def test_what_a_longer_run_buys(mode: str, sectors: int, lines: int, efficiency: float) -> None:
    """Seed: "GPU has 128B cacheline size, so reading contiguous 128B best utilizes the GMEM bandwidth". Only partly:
    GMEM moves 32-byte sectors, so 16 B runs waste half of every sector but 32 / 64 / 128 B runs move exactly the
    128 useful bytes; the larger atom only cuts the 128-byte lines per warp copy (4 -> 2 -> 1)."""
    g = gmem_runs(gmma_smem_atom("K", mode, 16), 128)
    assert (g.sectors, g.lines, g.sector_efficiency) == (sectors, lines, efficiency)


@pytest.mark.parametrize("major", ["K", "MN"])
@pytest.mark.parametrize(("extent_bytes", "mode"), [(16, "INTER"), (32, "SW32"), (64, "SW64"), (128, "SW128"),
                                                    (256, "SW128"), (1024, "SW128")])
def test_seed_table_cases_agree(major: str, extent_bytes: int, mode: str) -> None:
    """The seed's eight listed cases (K-major and MN-major, 16/32/64/>=128 B) agree with CUTLASS for these sizes."""
    assert choose_smem_atom(major, 16, extent_bytes // 2).mode == mode


def seed_rule(extent_bytes: int) -> str:
    """Seed: "use the largest possible swizzle atom that can fit the tile"; "K >= 128B -> swizzle 128B"."""
    return next(m for m, w in reversed(MODES.items()) if extent_bytes >= w)


@pytest.mark.parametrize("major", ["K", "MN"])
@pytest.mark.parametrize(("extent_bytes", "right"), [(192, "SW64"), (160, "SW32"), (96, "SW32"), (48, "INTER"),
                                                     (80, "INTER"), (320, "SW64")])
def test_seed_rule_wrong_when_the_atom_does_not_divide(major: str, extent_bytes: int, right: str) -> None:
    """Counterexamples: the atom must DIVIDE the contiguous extent, not fit in it. K = 192 B (96 bf16): the seed
    says SW128, CUTLASS picks SW64 (128 B atoms would leave half an atom). The smaller atom also shortens the run."""
    atom = choose_smem_atom(major, 16, extent_bytes // 2)
    assert atom.mode == right != seed_rule(extent_bytes)
    assert (extent_bytes // 2) % (atom.span_bytes // 2) == 0
    assert gmem_runs(atom).request_bytes == MODES[right] < MODES[seed_rule(extent_bytes)]


def test_extent_below_the_smallest_atom_is_an_error() -> None:
    """8 fp8 elements = 8 B: no atom (INTER is 16 B wide); CUTLASS's selector fails its static_assert too."""
    with pytest.raises(LayoutError, match="INTER atom width"):
        choose_smem_atom("K", 8, 8)
    with pytest.raises(LayoutError, match="multiple of 8"):
        choose_smem_atom("K", 16, 12)
