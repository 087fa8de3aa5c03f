"""The claim that a TMA box loads a tile into exactly a given shared-memory layout (``tma_compatible``).

The model of what the TMA unit does (``TmaBox``, the byte swizzle, the smem image) is ``layoutcheck.models.tma``;
this module only states and checks the claim against it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.notation import as_subject
from layoutcheck.algebra.swizzle import ComposedLayout, Subject, Swizzle, inner, shared_offsets
from layoutcheck.errors import LayoutError
from layoutcheck.hw.tma import LIMITS
from layoutcheck.models.tma import TmaBox, byte_swizzle, mma_smem_layout, tile_image, tma_dtype
from layoutcheck.properties.base import Decision, Property
from layoutcheck.witness_descriptors import Descriptor, Divide, Dst, Place


def _split(layout: Subject) -> tuple[Swizzle, int, Layout]:
    if isinstance(layout, ComposedLayout):
        return layout.swizzle, layout.offset, layout.layout
    return Swizzle(0, 0, 0), 0, layout


@dataclass(frozen=True, slots=True)
class TmaCompatible(Property):
    """``tma_compatible(box, layout, modes)``: the descriptor is legal and the box images tile ``layout`` exactly.

    ``layout`` maps tile coordinates (element units, one mode per box dim) to element offsets in a tile buffer that
    starts ``base_address`` bytes past a 1024-byte boundary (default 0: aligned); ``modes[i]`` is the box dim of
    layout mode ``i`` (default ``0, 1, ...``; a K-major ``(M,K)`` operand has ``modes=(1, 0)``: K is the contiguous
    dim 0). The TMA swizzles absolute shared-memory addresses, the layout is read relative to the buffer: a buffer
    not aligned to the swizzle pattern (``base_address`` not a multiple of it) puts elements elsewhere
    (tile-ai/tilelang#2379).
    """

    box: TmaBox
    layout: Subject
    modes: tuple[int, ...] | None = None
    base_address: int = 0
    name: ClassVar[str] = "tma_compatible"
    bytes_per_point: ClassVar[int] = 96

    def __post_init__(self) -> None:
        lay = as_subject(self.layout, "smem layout")
        object.__setattr__(self, "layout", lay)
        r = len(inner(lay))
        modes = tuple(range(r)) if self.modes is None else tuple(self.modes)
        if sorted(modes) != list(range(self.box.rank)) or r != self.box.rank:
            raise LayoutError(f"modes {modes} must map the {r} modes of {lay} onto box dims 0..{self.box.rank - 1}")
        object.__setattr__(self, "modes", modes)
        if any(e != 1 for e in self.box.element_strides):
            raise LayoutError(f"tma_compatible needs element strides 1, found {self.box.element_strides}")
        if self.box.interleave != "none":  # the smem image (PTX ISA 5.5.6) of an interleaved box is not modelled
            raise LayoutError(f"tma_compatible models the smem image of interleave none, not {self.box.interleave}")
        if not isinstance(self.base_address, int) or self.base_address < 0:
            raise LayoutError(f"base_address must be a non-negative byte address, found {self.base_address!r}")
        # a descriptor the driver rejects, or a box that does not tile the layout, is REFUTED (``refutation``)

    def _split_mode(self) -> tuple[int, int, int, int] | None:
        """``(mode, box dim, box elements, mode size)`` of the first layout mode the box does not divide."""
        for i, d in enumerate(self.modes):
            ext, n = size(inner(self.layout)[i]), self.box.counts[d]
            if ext % n:
                return i, d, n, ext
        return None

    def refutation(self) -> Decision | None:
        bad = self.box.violations()
        if bad:
            return Decision(False, Descriptor(0), {"violations": len(bad)})
        split = self._split_mode()
        if split is not None:
            i, d, n, ext = split
            return Decision(False, Divide(i, d, n, ext))
        return None

    def subjects(self) -> tuple[Subject, ...]:
        return (self.layout,)

    def subject(self) -> str:
        return f"{self.box}, {self.layout}"

    @property
    def tile(self) -> tuple[int, ...]:
        return tuple(size(m) for m in inner(self.layout))

    def boxes(self) -> int:
        """How many loads (TMA instructions) cover the tile."""
        return math.prod(t // self.box.counts[d] for t, d in zip(self.tile, self.modes, strict=True))

    # -- the two sides, vectorised over the tile (flat colex index over the layout's modes) -------------------
    def _sides(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        swz, off, lay = _split(self.layout)
        actual, dst = tile_image(self.box, self.layout, self.modes, self.base_address)  # the one TMA image model
        expected = self.box.esize * swz(off + shared_offsets(lay, np.int64))
        return actual, expected, dst

    def exhaustive(self) -> Decision:
        early = self.refutation()
        if early is not None:
            return early
        actual, expected, dst = self._sides()
        stats = {"elements": int(actual.size), "boxes": self.boxes()}
        mis = np.flatnonzero(dst % LIMITS.smem_dst_align)
        if mis.size:
            return Decision(False, Dst(int(mis[0])), stats)
        wrong = np.flatnonzero(actual != expected)
        if wrong.size:
            return Decision(False, Place(i=int(wrong[0])), {**stats, "misplaced": int(wrong.size)})
        return Decision(True, None, stats)

    # -- scalar re-evaluation of one element, independent of the vectorised path ------------------------------
    def _element(self, i: int) -> dict[str, Any]:
        swz, off, lay = _split(self.layout)
        tile, es = self.tile, self.box.esize
        crd = [int(c) for c in np.unravel_index(i, tile, order="F")]
        n = [self.box.counts[d] for d in self.modes]
        origin = [c - c % k for c, k in zip(crd, n, strict=True)]
        flat = lambda c: int(np.ravel_multi_index(c, tile, order="F"))  # noqa: E731
        dst = self.base_address + es * (off + lay(flat(origin)))
        j = [0] * len(tile)
        for m, d in enumerate(self.modes):
            j[d] = crd[m] - origin[m]
        lin = es * j[0] + self.box.row_pitch * (Layout(self.box.counts[1:])(tuple(j[1:])) if len(j) > 1 else 0)
        return {"crd": tuple(crd), "origin": tuple(origin), "j": tuple(j), "dst": dst,
                "actual": int(byte_swizzle(self.box.swizzle)(dst + lin)) - self.base_address,
                "expected": es * int(swz(off + lay(i)))}

    def recheck(self, w: dict[str, Any]) -> bool:
        if w["kind"] == "descriptor":
            return bool(self.box.violations())
        if w["kind"] == "divide":
            return size(inner(self.layout)[w["mode"]]) % self.box.counts[w["dim"]] != 0
        e = self._element(w["i"])
        if w["kind"] == "dst":
            return e["dst"] % LIMITS.smem_dst_align != 0
        return e["actual"] != e["expected"]

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "divide":
            n, ext, last = w["n"], w["extent"], w["extent"] // w["n"] * w["n"]
            return (f"box dim {w['dim']} loads {n} elements but layout mode {w['mode']} has {ext}: the box at "
                    f"coordinate {last} of that mode covers {last}..{last + n - 1}, past the tile's last element "
                    f"{ext - 1} (the boxes cannot tile the layout exactly)")
        if w["kind"] == "descriptor":
            bad = self.box.violations()
            return f"the driver rejects the descriptor: {bad[w['violation']]}" + (
                f" (+{len(bad) - 1} more)" if len(bad) > 1 else "")
        e = self._element(w["i"])
        crd = ",".join(map(str, e["crd"]))
        if w["kind"] == "dst":
            return (f"the box at tile origin ({','.join(map(str, e['origin']))}) starts at smem byte {e['dst']}, "
                    f"not {LIMITS.smem_dst_align}-byte aligned (cp.async.bulk.tensor destination)")
        where = "" if not self.base_address else \
            f" (bytes from the buffer, which starts {self.base_address} B past a 1024 B boundary)"
        return (f"tile element ({crd}) [box at ({','.join(map(str, e['origin']))}), box element "
                f"({','.join(map(str, e['j']))})]: TMA puts it at smem byte {e['actual']}, the layout expects byte "
                f"{e['expected']}{where}")


def tma_compatible(box: TmaBox, smem_layout: Any, modes: Sequence[int] | None = None,
                   base_address: int = 0) -> TmaCompatible:
    """The claim that ``box`` loads the tile into exactly ``smem_layout`` in a buffer ``base_address`` bytes past a
    1024-byte boundary (decide it with ``prove``).

    >>> from layoutcheck.hw.smem import gmma_smem_atom
    >>> a = gmma_smem_atom("K", "SW128", 16).composed
    >>> from layoutcheck.engines.prove import prove
    >>> str(prove(tma_compatible(TmaBox("float16", (64, 8), (128,), (64, 8), swizzle="128B"), a, (1, 0))).status)
    'PROVEN'
    """
    return TmaCompatible(box, smem_layout, None if modes is None else tuple(modes), base_address)


# -- MMA operand layouts and box planning ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoxPlan:
    """The largest legal box that loads ``layout`` exactly, and how many loads cover the tile."""

    box: TmaBox
    layout: ComposedLayout
    modes: tuple[int, ...]
    count: int
    candidates: int  # boxes examined
    legal: int  # of which the driver accepts
    compatible: int = field(default=0)  # of which are also compatible

    @property
    def box_bytes_shape(self) -> tuple[int, int]:
        """``(rows, inner bytes)`` as the seed writes boxes (``64x128 B``)."""
        return self.box.box_dims[1], self.box.box_dims[0] * self.box.esize

    def __str__(self) -> str:
        rows, w = self.box_bytes_shape
        return f"{self.count} box(es) of {rows}x{w} B ({self.box})"


def _divisors(n: int, cap: int) -> list[int]:
    return [d for d in range(1, min(n, cap) + 1) if n % d == 0]


def plan_boxes(major: str, swizzle: str, dtype: str, tile: tuple[int, int], order: str = "col") -> BoxPlan:
    """The largest (most elements; then widest) legal box compatible with ``mma_smem_layout(...)``.

    The global tensor is the tile itself, dense (its row pitch in bytes as the stride). Post: ``count`` loads of
    ``box`` reproduce the layout element by element (``tma_compatible`` PROVEN).

    >>> str(plan_boxes("K", "128B", "float16", (64, 128)))[:21]
    '2 box(es) of 64x128 B'
    """
    lay = mma_smem_layout(major, swizzle, dtype, tile, order)
    mn, k = tile
    dims, modes = ((k, mn), (1, 0)) if major.upper() == "K" else ((mn, k), (0, 1))
    strides = (dims[0] * tma_dtype(dtype).bytes,)
    best: tuple[tuple[int, int], TmaBox, TmaCompatible] | None = None
    n_cand = n_legal = n_ok = 0
    for b1 in _divisors(dims[1], LIMITS.max_box_dim):
        for b0 in _divisors(dims[0], LIMITS.max_box_dim):
            n_cand += 1
            box = TmaBox(dtype, dims, strides, (b0, b1), swizzle=swizzle)
            if box.violations():
                continue
            n_legal += 1
            prop = TmaCompatible(box, lay, modes)
            if not prop.exhaustive().holds:
                continue
            n_ok += 1
            if best is None or (b0 * b1, b0) > best[0]:
                best = ((b0 * b1, b0), box, prop)
    if best is None:
        raise LayoutError(f"no legal TMA box loads {lay} (tile {tile}, swizzle {swizzle})")
    return BoxPlan(best[1], lay, modes, best[2].boxes(), n_cand, n_legal, n_ok)
