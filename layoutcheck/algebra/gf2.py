"""Linear algebra over GF(2) on bit vectors held in Python ints: echelon form, rank, kernel, spans.

A vector is an int (bit ``b`` = coordinate ``b``); a matrix is a tuple of column vectors. Gaussian elimination by
leading bit keeps a basis ``lead -> (vector, combination)``, where ``combination`` says which input columns were
XORed to make it (a mask over column indices); a column that reduces to 0 gives a *kernel* vector -- the mask of
columns whose XOR is 0. Worked example: columns ``(1, 2, 3)``: 1 and 2 are independent, ``3 ^ 1 ^ 2 == 0`` so the
kernel is ``(0b111,)`` and the rank 2.

Used by the linear engine (layouts as GF(2)-affine maps, ``layoutcheck.engines.linear``) and by the bank model's
rank argument (``layoutcheck.models.banks.gf2``): one elimination for both.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Echelon:
    """Gaussian elimination of the columns: ``basis[lead] = (vector, domain mask)``; ``kernel`` in increasing order."""

    basis: dict[int, tuple[int, int]]
    kernel: tuple[int, ...]

    @property
    def rank(self) -> int:
        return len(self.basis)


def echelon(cols: Iterable[int]) -> Echelon:
    """Echelon form of the columns ``cols`` (ints as bit vectors).

    Post: each kernel vector's highest bit is its own column index, so ``kernel[0]`` is the smallest non-zero
    kernel element (any other has a higher leading bit); ``rank + len(kernel) == len(cols)``.

    >>> e = echelon((1, 2, 3))
    >>> e.rank, e.kernel
    (2, (7,))
    """
    basis: dict[int, tuple[int, int]] = {}
    kernel: list[int] = []
    for b, c in enumerate(cols):
        v, m = c, 1 << b
        while v:
            h = v.bit_length() - 1
            if h not in basis:
                basis[h] = (v, m)
                break
            bv, bm = basis[h]
            v, m = v ^ bv, m ^ bm
        if v == 0:
            kernel.append(m)
    return Echelon(basis, tuple(kernel))


def rank(cols: Iterable[int]) -> int:
    """Rank over GF(2) of the bit vectors ``cols``.

    >>> rank([2, 4, 8, 16, 32]), rank([2, 4, 8, 16, 0])
    (5, 4)
    """
    return echelon(cols).rank


def span_prefix(vectors: tuple[int, ...], count: int) -> list[int]:
    """``count`` distinct elements of ``span(vectors)`` (vectors independent), starting at 0, sorted.

    >>> span_prefix((1, 4), 3)
    [0, 1, 4]
    """
    out = [0]
    for v in vectors:
        out += [x ^ v for x in out]
        if len(out) >= count:
            break
    return sorted(out[:count])


def inverse(cols: Sequence[int], n: int) -> list[int] | None:
    """For ``n`` columns forming an invertible ``n x n`` matrix ``M`` (column ``j`` = ``M e_j``), the columns of
    ``M^-1``; ``None`` if singular. Gauss-Jordan on ``[M | I]`` stored row-wise.

    >>> inverse([1, 3], 2), inverse([1, 1], 2)
    ([1, 3], None)
    """
    rows = [sum(((cols[j] >> r) & 1) << j for j in range(n)) | (1 << (n + r)) for r in range(n)]
    for c in range(n):
        piv = next((r for r in range(c, n) if rows[r] >> c & 1), None)
        if piv is None:
            return None
        rows[c], rows[piv] = rows[piv], rows[c]
        for r in range(n):
            if r != c and rows[r] >> c & 1:
                rows[r] ^= rows[c]
    inv_rows = [row >> n for row in rows]  # row r of M^-1
    return [sum(((inv_rows[r] >> j) & 1) << r for r in range(n)) for j in range(n)]
