"""Tests written for the mutants of ``layoutcheck/models`` that the suite let live (docs/soundness.md, "Mutation
score"); each is named after the law it checks."""

from __future__ import annotations

import dataclasses

import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.errors import LayoutcheckError
from layoutcheck.models.umma import decode_umma_descriptor, umma_descriptor


def test_decoding_a_umma_descriptor_with_a_base_offset_alone_is_not_modelled() -> None:
    """A descriptor whose base offset is non-zero (LBO mode 0) is outside what the decoder models: it must refuse it
    (fail closed), not decode it as if the offset were 0 -- either field alone is enough."""
    d = umma_descriptor(Layout(((8, 8), (8, 2)), ((8, 64), (1, 512))), "f16", "K")
    assert str(decode_umma_descriptor(d, "f16", "K", (64, 16)).layout) == "((8,8),(8,2)):((8,64),(1,512))"
    with pytest.raises(LayoutcheckError, match="not modelled"):
        decode_umma_descriptor(dataclasses.replace(d, base_offset=1), "f16", "K", (64, 16))


def test_a_persistent_scheduler_refuses_a_negative_swizzle_size() -> None:
    from layoutcheck.models.schedulers import TileScheduler

    with pytest.raises(LayoutcheckError):
        TileScheduler("persistent", ctas=4, swizzle_size=-1)


def test_a_thread_copy_whose_tv_reaches_index_minus_one_maps_outside_the_tile() -> None:
    """A thread copy's ``tv`` maps (thread, value) to a tile index in ``[0, n)``: a negative stride that reaches
    index -1 (threads 0 and 1 at indices 0 and -1) is outside the tile -- a LayoutError, not an index NumPy would
    wrap around to the tile's last element."""
    from layoutcheck.errors import LayoutError
    from layoutcheck.models.datapath_hops import _thread_copy_hop
    from layoutcheck.models.datapath_values import ThreadCopy

    tv = Layout((2, 1), (-1, 0))
    assert [tv(i) for i in range(2)] == [0, -1]
    flat = Layout((4,), (1,))
    with pytest.raises(LayoutError, match="outside"):
        _thread_copy_hop(ThreadCopy("UniversalCopy<uint32_t>", tv, flat), flat, 32, 4, True)
    fine = Layout((2, 1), (1, 0))
    assert _thread_copy_hop(ThreadCopy("UniversalCopy<uint32_t>", fine, flat), flat, 32, 4, True) is not None


@pytest.mark.parametrize("shape", [(1, 16, 1), (2, 31, 2), (1, 32, 1, 1)])
def test_a_bank_access_needs_32_lanes_per_instruction(shape: tuple[int, ...]) -> None:
    """``Access.elems`` is ``(instructions, 32 lanes, v)`` (or ``(instructions, 32)``): a rank-3 array with a lane
    count other than 32, or a rank-4 one, is refused -- either fault alone is enough."""
    import numpy as np

    from layoutcheck.errors import LayoutError
    from layoutcheck.models.banks.access import Access

    assert Access("lds32", np.zeros((1, 32, 1), dtype=np.int64), 32).elems.shape == (1, 32, 1)
    assert Access("lds32", np.zeros((3, 32), dtype=np.int64), 32).elems.shape == (3, 32, 1)
    with pytest.raises(LayoutError, match="shape"):
        Access("lds32", np.zeros(shape, dtype=np.int64), 32)


def test_persistent_swizzle_size_follows_cutlass_get_log_swizzle_size() -> None:
    """CUTLASS's ``get_log_swizzle_size``: 8 if ``max_swizzle >= 8`` and ``min(GM, GN) >= 6``, else 4 if ``>= 4``
    and ``>= 3``, else 2 if ``>= 2`` and ``>= 2``, else 1 -- the bounds are inclusive (``max_swizzle = 2`` on a 2x2
    grid swizzles by 2)."""
    from layoutcheck.models.schedulers import TileScheduler

    def size_of(max_swizzle: int, gm: int, gn: int) -> int:
        return TileScheduler("persistent", ctas=4, max_swizzle=max_swizzle)._persistent(gm, gn)["S"]

    assert size_of(2, 2, 2) == 2 and size_of(2, 1, 8) == 1 and size_of(1, 8, 8) == 1
    assert size_of(4, 3, 3) == 4 and size_of(4, 2, 9) == 2 and size_of(8, 6, 6) == 8 and size_of(8, 5, 9) == 4
