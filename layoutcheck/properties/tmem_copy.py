"""``tmem_copy_image``: one ``tcgen05.cp`` puts every element of its shared-memory rows where the kernel believes.

A ``tcgen05.cp`` of shape ``.RxBb`` (``hw.tcgen05.TMEM_COPY_SHAPES``) reads ``R`` rows of ``B`` bits through one
matrix descriptor and writes source row ``r``, bit ``b`` to TMEM lane ``lane(r, j)`` for each of its multicast
copies ``j`` (``.warpx4``: four, ``.warpx2``: two), at bit ``b`` of the columns from the issued column. The kernel
states what it believes as a CuTe layout ``image``: ``(row, element[, copy]) -> lane + 128 * slot``, from the column
its consumer reads (``read_column``: the MMA's scale-factor address; default the copy's column), with ``slot``
the ``bits``-bit element column (``column * 32/bits + element within the 32-bit cell``; for 32-bit elements the
TMEM column itself). For the scale factors of a block-scaled MMA (8-bit ``ue8m0`` / ``ue4m3``) the image of
``.32x128b.warpx4`` is ``(32,16,4):(1,128,32)``: row ``r``'s 16 bytes in lanes ``r``, ``32 + r``, ``64 + r``,
``96 + r``, four per 32-bit column.

The claim, decided exhaustively over the shape's elements (the model: ``models.tmem.copy_cells``):

- ``outside``: the copy writes past TMEM's 512 columns;
- ``misplaced``: a source element ``(row, element)`` is written to other slots than the image names (a missing
  copy, another lane or column);
- ``uncopied``: the image names an element (a row or element index) the shape does not copy.

The witness is the first broken rule at the smallest element (colex ``row + R * element``); the re-check
recomputes that element's slots.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.errors import LayoutError
from layoutcheck.hw.tcgen05 import TMEM, tmem_copy_shape
from layoutcheck.models.tmem import copy_address, copy_cells
from layoutcheck.properties.base import Decision, Property
from layoutcheck.witness_tmem import TmemCopyElement


@dataclass(frozen=True, eq=False)
class TmemCopyImage(Property):
    """One ``tcgen05.cp`` of ``shape`` at TMEM ``column`` writes every ``bits``-bit source element exactly to the
    slots ``image`` names (module docstring)."""

    shape: str
    bits: int
    column: int
    image: Layout
    read_column: int | None = None
    name: ClassVar[str] = "tmem_copy_image"

    def __post_init__(self) -> None:
        tmem_copy_shape(self.shape)
        if not isinstance(self.image, Layout) or len(self.image) not in (2, 3):
            raise LayoutError(f"a tcgen05.cp image is a layout (row, element[, copy]) -> lane + 128 * slot, found "
                              f"{self.image}")
        for c in (self.column, self.origin):
            if not 0 <= c < TMEM.columns:
                raise LayoutError(f"TMEM column {c} is outside 0..{TMEM.columns - 1}")
        copy_cells(self.shape, self.bits, self.column)  # the element width is checked there

    @property
    def origin(self) -> int:
        """The TMEM column the image starts at: the consumer's address (``read_column``), by default the copy's."""
        return self.column if self.read_column is None else self.read_column

    def subjects(self) -> tuple[Any, ...]:
        return (self.image,)

    def subject(self) -> str:
        s = tmem_copy_shape(self.shape)
        return (f"tcgen05.cp{s.ptx} ({s.cutlass}) at column {self.column}, {self.bits}-bit elements -> {self.image} "
                f"from column {self.origin}")

    def domain_size(self) -> int:
        s = tmem_copy_shape(self.shape)
        return s.rows * (s.row_bits // self.bits) * s.copies

    def _written(self) -> tuple[dict[tuple[int, int], list[int]], int, int]:
        c = copy_cells(self.shape, self.bits, self.column)
        addr = copy_address(c["lane"], c["column"], c["sub"], self.bits)
        out: dict[tuple[int, int], list[int]] = {}
        for r, e, a in zip(c["row"].tolist(), c["element"].tolist(), np.asarray(addr).tolist(), strict=True):
            out.setdefault((r, e), []).append(int(a))
        s = tmem_copy_shape(self.shape)
        return out, s.rows, s.row_bits // self.bits

    def _declared(self) -> dict[tuple[int, int], list[int]]:
        img = self.image
        rows, elems = size(img[0]), size(img[1])
        copies = size(img[2]) if len(img) == 3 else 1
        offs = img.offsets(np.int64).reshape(copies, elems, rows) + int(copy_address(0, self.origin, 0, self.bits))
        return {(r, e): [int(x) for x in offs[:, e, r]] for r in range(rows) for e in range(elems)}

    def _limit(self) -> int:
        return int(copy_address(0, TMEM.columns, 0, self.bits))

    def _violations(self) -> list[TmemCopyElement]:
        got, rows, _ = self._written()
        want = self._declared()
        out = []
        limit = self._limit()
        for (r, e), cells in got.items():
            w = want.get((r, e), [])
            if max(cells) >= limit:
                out.append(TmemCopyElement(rule="outside", row=r, element=e, written=sorted(cells), declared=sorted(w)))
            elif sorted(cells) != sorted(w):
                out.append(TmemCopyElement(rule="misplaced", row=r, element=e, written=sorted(cells),
                                           declared=sorted(w)))
        for (r, e), w in want.items():
            if (r, e) not in got:
                out.append(TmemCopyElement(rule="uncopied", row=r, element=e, written=[], declared=sorted(w)))
        order = {"outside": 0, "misplaced": 1, "uncopied": 2}
        return sorted(out, key=lambda v: (order[v.rule], v.row + max(rows, size(self.image[0])) * v.element))

    def exhaustive(self) -> Decision:
        bad = self._violations()
        stats = {"elements": self.domain_size()}
        return Decision(True, None, stats) if not bad else Decision(False, bad[0], stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        """Recompute the element's slots from the shape and from the image."""
        got, _, _ = self._written()
        cells = sorted(got.get((w["row"], w["element"]), []))
        declared = sorted(self._declared().get((w["row"], w["element"]), []))
        if w["rule"] == "outside":
            return bool(cells) and max(cells) >= self._limit()
        if w["rule"] == "misplaced":
            return bool(cells) and cells != declared and cells == w["written"]
        return not cells and bool(declared)

    def _slots(self, cells: list[int]) -> str:
        per = TMEM.cell_bits // self.bits
        def one(a: int) -> str:
            lane, slot = a % TMEM.lanes, a // TMEM.lanes
            sub = f", {'byte' if self.bits == 8 else 'half'} {slot % per}" if per > 1 else ""
            return f"(lane {lane}, column {slot // per}{sub})"
        shown = ", ".join(one(a) for a in cells[:4])
        return shown + (f" and {len(cells) - 4} more" if len(cells) > 4 else "") if cells else "nowhere"

    def explain(self, w: dict[str, Any]) -> str:
        s = tmem_copy_shape(self.shape)
        what = f"source row {w['row']}, element {w['element']} of tcgen05.cp{s.ptx}"
        if w["rule"] == "outside":
            return f"{what} at column {self.column} is written to {self._slots(w['written'])}, past TMEM's " \
                   f"{TMEM.columns} columns"
        if w["rule"] == "uncopied":
            return (f"the image puts row {w['row']}, element {w['element']} at {self._slots(w['declared'])}, but "
                    f"tcgen05.cp{s.ptx} copies {s.rows} rows of {s.row_bits // self.bits} elements")
        return f"{what} is written to {self._slots(w['written'])}; the image puts it at {self._slots(w['declared'])}"


def tmem_copy_image(shape: str, bits: int, column: int, image: Layout,
                    read_column: int | None = None) -> TmemCopyImage:
    """Claim: one ``tcgen05.cp`` of ``shape`` at ``column`` writes each ``bits``-bit element where ``image`` says
    (``image`` relative to ``read_column``, the column the consumer reads from; default ``column``).

    >>> tmem_copy_image("4x32dp128bit", 8, 0, Layout((32, 16, 4), (1, 128, 32))).exhaustive().holds
    True
    >>> tmem_copy_image("128dp128bit", 8, 0, Layout((32, 16, 4), (1, 128, 32))).exhaustive().holds
    False
    """
    return TmemCopyImage(shape, bits, column, image, read_column)


__all__ = ["TmemCopyImage", "tmem_copy_image"]
