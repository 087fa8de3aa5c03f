"""Search for the cheapest swizzle that makes a write pattern and a read pattern both bank-conflict-free.

Two families:
- ``Swizzle<B,M,S>`` composed with a plain smem layout (``search_swizzle``), ordered by ``B`` (fewer XOR-ed bits is
  cheaper), then ``M``, then ``S``; each candidate is decided exactly by the bank model over every instruction.
- the warp ``permute_layout`` register-index XOR ``j = r ^ ((lane >> shift) & (2**k - 1))`` (``search_xor_k``),
  k = 0, 1, ..., log2(P): the smallest k whose two phases are both conflict-free.

"No candidate works" is itself a decided answer: every member of the finite family was checked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.models.banks.access import Access, analyze


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The chosen candidate (``None``: none in the family works) and every candidate's (write, read) wavefronts."""

    choice: object | None
    tried: tuple[tuple[object, int, int], ...]

    @property
    def found(self) -> bool:
        return self.choice is not None


def search_swizzle(layout: Layout, write: Access, read: Access, max_bits: int = 5, max_base: int = 4,
                   max_shift: int = 7) -> SearchResult:
    """Cheapest ``Sw<B,M,S> o layout`` with both accesses conflict-free (``Sw<0,..>`` = no swizzle first).

    >>> from layoutcheck.models.banks.access import column_access, row_access
    >>> str(search_swizzle(Layout((32, 32), (32, 1)), row_access(32, 32, 32), column_access(32, 32, 32)).choice)
    'Sw<5,0,5>'
    """
    tried = []
    cands = [Swizzle(0, 0, 0)] + [Swizzle(b, m, s) for b in range(1, max_bits + 1) for m in range(max_base + 1)
                                  for s in range(b, max_shift + 1)]
    for sw in cands:
        smem = ComposedLayout(sw, 0, layout)
        w, r = analyze(smem, write), analyze(smem, read)
        tried.append((sw, w.wavefronts, r.wavefronts))
        if w.conflicts == 0 and r.conflicts == 0:
            return SearchResult(sw, tuple(tried))
    return SearchResult(None, tuple(tried))


def search_xor_k(make: Callable[[int], tuple[Layout, Access, Access]], max_k: int) -> SearchResult:
    """Smallest k in ``0..max_k`` whose (smem, read, write) from ``make(k)`` are both conflict-free."""
    tried = []
    for k in range(max_k + 1):
        smem, rd, wr = make(k)
        a, b = analyze(smem, rd), analyze(smem, wr)
        tried.append((k, a.wavefronts, b.wavefronts))
        if a.conflicts == 0 and b.conflicts == 0:
            return SearchResult(k, tuple(tried))
    return SearchResult(None, tuple(tried))
