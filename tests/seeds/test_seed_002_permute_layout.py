"""Seed 002 (``002_9651174c84b3eb6b.txt``): a warp ``permute_layout`` (4x32 fp32 transpose, 2 pipeline stages).

Only the layout parts are checked here: the source/destination layouts, extents, ``P`` (elements per lane), and that
the generated two-phase register program (XOR on the iteration index) moves every element to the destination
layout's offset of the same logical coordinate -- for the chosen ``shift = 3, mask = 3`` and for every other
candidate ``k``. Whether each phase is bank-conflict-free (the reason for the choice of ``k``) is a bank claim:
``tests/models/test_banks.py`` (bank engineer).
"""

from __future__ import annotations

import pytest

from layoutcheck import Layout, composition, right_inverse, size

PIPE, BLK, LANES = 2, 128, 32
SHAPE = (PIPE, 1, 4, 32)
PRE = Layout(SHAPE, (BLK, 128, 32, 1))  # source: the 4x32 block row-major
POST = Layout(SHAPE, (BLK, 128, 1, 4))  # destination: 4 <-> 32 transposed


def test_layouts_are_bijections_onto_the_buffer() -> None:
    for lay in (PRE, POST):
        assert sorted(lay.offsets().tolist()) == list(range(PIPE * BLK))


def test_extents_and_p() -> None:
    """Region per stage is (1,4,32); equal extents; P = prod(extent) / 32 = 4 registers per lane."""
    extent = SHAPE[1:]
    assert size(Layout(extent)) // LANES == 4


def test_transpose_permutation() -> None:
    """composition(POST, right_inverse(PRE)) maps each source offset to the destination offset of the same
    logical element: (32,4,2):(4,1,128), i.e. A[s*128 + 32*i + j] -> B[s*128 + i + 4*j]."""
    perm = composition(POST, right_inverse(PRE))
    assert str(perm) == "(32,4,2):(4,1,128)"
    for s in range(PIPE):
        for i in range(4):
            for j in range(32):
                assert perm(s * 128 + 32 * i + j) == s * 128 + i + 4 * j


def run_generated_program(shift: int, mask: int) -> dict[int, int]:
    """The seed's generated TIR, phase 1 then phase 2: returns {source offset: destination offset}."""
    moved: dict[int, int] = {}
    for s in range(PIPE):
        for tx in range(LANES):
            regs = {}
            for r in range(4):  # phase 1: regs[r] = A[s*128 + (r ^ ((tx >> 3) & 3)) % 4 * 32 + tx]
                regs[r] = s * 128 + (r ^ ((tx >> shift) & mask)) % 4 * 32 + tx
            for r in range(4):  # phase 2: B[s*128 + tx*4 + (r ^ ((tx >> 3) & 3)) % 4] = regs[r]
                dst = s * 128 + tx * 4 + (r ^ ((tx >> shift) & mask)) % 4
                assert dst not in moved.values()
                moved[regs[r]] = dst
    return moved


@pytest.mark.parametrize("k", [0, 1, 2])
def test_generated_program_transposes(k: int) -> None:
    """For every XOR width k (mask 2^k - 1; k=2 is the seed's mask 3) the program is a correct transpose: each
    lane's 4 registers hold its column's 4 rows once, and every element lands at POST of its coordinate."""
    perm = composition(POST, right_inverse(PRE))
    moved = run_generated_program(shift=3, mask=(1 << k) - 1)
    assert sorted(moved) == list(range(PIPE * BLK))
    assert all(perm(src) == dst for src, dst in moved.items())


def test_decompose_iteration_index() -> None:
    """idx = decompose(lane + j*32, extent (4,32)) is row-major: (j, lane) -- each lane owns column tx."""
    for lane in range(LANES):
        for j in range(4):
            assert divmod(lane + j * 32, 32) == (j, lane)
            assert PRE(0, 0, j, lane) == 32 * j + lane and POST(0, 0, j, lane) == j + 4 * lane
