"""TMA boxes: which descriptors the driver accepts, where a tiled TMA load puts each element, and which boxes fill an
MMA shared-memory layout.

Conventions are the driver's (``cuTensorMapEncodeTiled``): dimensions innermost first, ``global_strides`` in *bytes*
for dimensions 1..rank-1 (dimension 0 is contiguous), box sizes and element strides in elements.

The shared-memory image of one tiled load (interleave none). A box of ``box_dims`` with ``element_strides`` ``e``
loads ``n_d = ceil(box_dims[d] / e[d])`` elements along dimension ``d`` (``e[0]`` is ignored: ``n_0 = box_dims[0]``).
Box element ``j = (j0, j1, ...)`` reads the global element at ``coords + j * e`` and is written at::

    lin(j)  = esize * (j0 + n0*(j1 + n1*(j2 + ...)))        box rows laid down contiguously, innermost first
    byte(j) = Sw(dst + lin(j)) - dst                         Sw = Swizzle<B,4,3> on the shared-memory *address*

with ``B = 0, 1, 2, 3`` for swizzle none / 32B / 64B / 128B: the 16-byte chunk bits 4..6 XOR the 128-byte line bits
7..9, so the pattern repeats every 256 / 512 / 1024 bytes (PTX ISA 5.5.7: "base offset = (dstMem / 128) % 8" for
128B). The model assumes what CuTe assumes: the tile buffer starts at a 1024-byte-aligned shared-memory address, and
each box's ``dst`` is 128-byte aligned. Out-of-bounds box elements are filled with zeros (``oob_fill="none"``) or the
OOB-NaN (``oob_fill="nan"``, floating-point types). Worked example, fp16 box 64x8 (128 B rows), swizzle 128B::

    j = (8, 1): lin = 2*(8 + 64*1) = 144 = 0b00_1001_0000 -> line 1, chunk 1 -> chunk 1^1 = 0 -> byte 128

``tma_compatible(box, layout)`` claims: the descriptor is legal and, issuing one box per box-sized block of the tile
with ``dst`` = the byte offset (unswizzled) of the block's first element in ``layout``, every tile element lands
where ``layout`` (an MMA operand layout, say ``Sw<3,3,3> o 0 o ...``) expects it. ``plan_boxes`` searches every
legal box for the largest compatible one (seed 003, section 9).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from layoutcheck.algebra.inttuple import is_int
from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle, shared_offsets
from layoutcheck.algebra.tiling import tile_to_shape
from layoutcheck.errors import LayoutError, blame
from layoutcheck.hw.smem import gmma_smem_atom
from layoutcheck.hw.swizzle_modes import swizzle_mode
from layoutcheck.hw.tma import DTYPES, EXTENDED_SWIZZLES, INTERLEAVES, LIMITS, OOB_FILLS, SWIZZLES, TmaDtype, TmaSwizzle

# -- names and shapes -----------------------------------------------------------------------------------------


def tma_dtype(name: str) -> TmaDtype:
    """The ``CUtensorMapDataType`` record for ``name`` ("float16", "bfloat16", ...); ``LayoutError`` if unknown."""
    if name not in DTYPES:
        raise LayoutError(f"unknown TMA dtype {name!r}: expected one of {', '.join(DTYPES)}", key="dtype")
    return DTYPES[name]


def tma_swizzle(name: str) -> TmaSwizzle:
    """The ``CUtensorMapSwizzle`` record for "none", "32B", "64B" or "128B"."""
    if name in EXTENDED_SWIZZLES:
        raise LayoutError(f"swizzle {name!r} (CUDA 12.8+, sm_100) is outside the model: use none, 32B, 64B or 128B",
                          key="swizzle")
    if name not in SWIZZLES:
        raise LayoutError(f"unknown swizzle {name!r}: expected one of {', '.join(SWIZZLES)}", key="swizzle")
    return SWIZZLES[name]


def _ints(values: Any, what: str) -> tuple[int, ...]:
    if isinstance(values, (int, np.integer)):
        values = (values,)
    try:
        out = tuple(int(v) for v in values if is_int(v) or isinstance(v, np.integer)) if values is not None else ()
    except TypeError:
        raise LayoutError(f"{what} must be a sequence of ints, found {values!r}", key=what) from None
    if len(out) != len(values):
        raise LayoutError(f"{what} must hold ints, found {values!r}", key=what)
    if any(v < 0 for v in out):
        raise LayoutError(f"{what} must be non-negative (the driver takes unsigned ints), found {out}", key=what)
    return out


def _check_name(name: str, table: dict[str, int], what: str) -> None:
    if name not in table:
        raise LayoutError(f"unknown {what} {name!r}: expected one of {', '.join(table)}", key=what)


# -- the descriptor -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TmaBox:
    """The arguments of ``cuTensorMapEncodeTiled`` that decide legality and the shared-memory image.

    Malformed values (unknown names, wrong counts, negative or non-int sizes) raise ``LayoutError``; values the
    driver would reject (a box of 300, a misaligned stride) are kept and reported by ``violations()``.
    """

    dtype: str
    global_dims: tuple[int, ...]
    global_strides: tuple[int, ...]
    box_dims: tuple[int, ...]
    element_strides: tuple[int, ...] | None = None
    interleave: str = "none"
    swizzle: str = "none"
    global_address: int = 0
    oob_fill: str = "none"

    def __post_init__(self) -> None:
        tma_dtype(self.dtype)
        tma_swizzle(self.swizzle)
        _check_name(self.interleave, INTERLEAVES, "interleave")
        _check_name(self.oob_fill, OOB_FILLS, "oob_fill")
        dims = _ints(self.global_dims, "global_dims")
        strides = _ints(self.global_strides, "global_strides")
        box = _ints(self.box_dims, "box_dims")
        es = (1,) * len(dims) if self.element_strides is None else _ints(self.element_strides, "element_strides")
        r = len(dims)
        if len(strides) != max(r - 1, 0):
            raise LayoutError(f"global_strides has {len(strides)} entries; rank {r} needs {max(r - 1, 0)} (dims 1..)",
                              key="global_strides")
        if len(box) != r or len(es) != r:
            raise LayoutError(f"box_dims {box} and element_strides {es} need {r} entries, one per global dim",
                              key="box_dims")
        if not isinstance(self.global_address, (int, np.integer)) or self.global_address < 0:
            raise LayoutError(f"global_address must be a non-negative int, found {self.global_address!r}",
                              key="global_address")
        for name, val in (("global_dims", dims), ("global_strides", strides), ("box_dims", box),
                          ("element_strides", es), ("global_address", int(self.global_address))):
            object.__setattr__(self, name, val)

    @property
    def rank(self) -> int:
        return len(self.global_dims)

    @property
    def esize(self) -> int:
        """Bytes per element."""
        return DTYPES[self.dtype].bytes

    @property
    def counts(self) -> tuple[int, ...]:
        """Elements loaded along each dim: ``ceil(box/e)`` (dim 0 ignores its element stride without interleave)."""
        return box_counts(self.box_dims, self.element_strides, self.interleave)

    @property
    def box_bytes(self) -> int:
        """Bytes of data one load delivers (the ``complete_tx`` byte count)."""
        return self.esize * math.prod(self.counts)

    @property
    def row_pitch(self) -> int:
        """Shared-memory bytes per box row: the inner extent, padded up to the swizzle span when narrower."""
        inner_bytes = self.counts[0] * self.esize
        return max(inner_bytes, SWIZZLES[self.swizzle].span_bytes)

    @property
    def smem_bytes(self) -> int:
        """Shared-memory footprint of one load: ``row_pitch`` times the number of rows (gaps stay untouched)."""
        return self.row_pitch * math.prod(self.counts[1:])

    def violations(self) -> list[str]:
        return encode_check(self.dtype, self.global_dims, self.global_strides, self.box_dims, self.element_strides,
                            self.interleave, self.swizzle, self.global_address, self.oob_fill)

    def __str__(self) -> str:
        es = "" if all(e == 1 for e in self.element_strides) else f" estride {self.element_strides}"
        return (f"TMA {self.dtype} box {'x'.join(map(str, self.box_dims))}{es} of global "
                f"{'x'.join(map(str, self.global_dims))} strides {self.global_strides} B, swizzle {self.swizzle}"
                + ("" if self.interleave == "none" else f", interleave {self.interleave}"))


def box_counts(box_dims: Sequence[int], element_strides: Sequence[int] | None = None,
               interleave: str = "none") -> tuple[int, ...]:
    """Elements a box loads along each dim.

    Post: ``n_d = ceil(box_dims[d] / element_strides[d])``; ``n_0 = box_dims[0]`` when interleave is none.

    >>> box_counts((64, 16, 5), (1, 2, 2))
    (64, 8, 3)
    """
    es = (1,) * len(box_dims) if element_strides is None else tuple(element_strides)
    return tuple(b if (d == 0 and interleave == "none") else -(-b // max(e, 1))
                 for d, (b, e) in enumerate(zip(box_dims, es, strict=True)))


def encode_check(dtype: str, global_dims: Sequence[int], global_strides: Sequence[int], box_dims: Sequence[int],
                 element_strides: Sequence[int] | None = None, interleave: str = "none", swizzle: str = "none",
                 global_address: int = 0, oob_fill: str = "none") -> list[str]:
    """The ``cuTensorMapEncodeTiled`` requirements these arguments violate, one line each naming the parameter.

    Pre: names known (``LayoutError`` otherwise), counts consistent, values non-negative.
    Post: ``[]`` iff the model says the driver accepts (CUDA 13.0 driver on sm_90; docs/tma.md has the probe).

    >>> encode_check("float16", (64, 64), (128,), (128, 8), swizzle="128B")
    ['boxDim[0]: inner box extent 256 B exceeds the 128B swizzle span (128 B)']
    """
    if global_dims is None or (not isinstance(global_dims, (int, np.integer)) and len(global_dims) == 0):
        return ["tensorRank: 0, must be 1..5"]
    b = TmaBox(dtype, tuple(_ints(global_dims, "global_dims")), tuple(_ints(global_strides, "global_strides")),
               tuple(_ints(box_dims, "box_dims")),
               None if element_strides is None else tuple(_ints(element_strides, "element_strides")),
               interleave, swizzle, global_address, oob_fill)
    return _violations(b)


def _violations(b: TmaBox) -> list[str]:
    L, out, es = LIMITS, [], b.esize
    inter32 = b.interleave == "32B"
    if not 1 <= b.rank <= L.max_rank:
        out.append(f"tensorRank: {b.rank}, must be 1..{L.max_rank}")
    if b.interleave != "none" and b.rank < L.min_rank_interleaved:
        out.append(f"tensorRank: {b.rank}, interleave {b.interleave} needs rank >= {L.min_rank_interleaved}")
    align = L.global_address_align_interleave32 if inter32 else L.global_address_align
    if b.global_address % align:
        out.append(f"globalAddress: {b.global_address:#x} is not {align}-byte aligned")
    for d, g in enumerate(b.global_dims):
        if not 1 <= g <= L.max_global_dim:
            out.append(f"globalDim[{d}]: {g}, must be 1..2^32")
    mult = L.global_stride_multiple_interleave32 if inter32 else L.global_stride_multiple
    for d, s in enumerate(b.global_strides):
        if s % mult:
            out.append(f"globalStrides[{d}]: {s} B is not a multiple of {mult} B (strides are in bytes)")
        if s >= L.global_stride_bound:
            out.append(f"globalStrides[{d}]: {s} B, must be < 2^40")
    for d, x in enumerate(b.box_dims):
        if not 1 <= x <= L.max_box_dim:
            out.append(f"boxDim[{d}]: {x}, must be 1..{L.max_box_dim}")
    inner_bytes = b.box_dims[0] * es if b.box_dims else 0
    if inner_bytes % L.box_inner_bytes_multiple:  # the text says "when interleave is none"; measured: always
        out.append(f"boxDim[0]: inner box extent {inner_bytes} B is not a multiple of {L.box_inner_bytes_multiple} B")
    sw = SWIZZLES[b.swizzle]
    if b.interleave == "none" and sw.span_bytes and inner_bytes > sw.span_bytes:
        out.append(f"boxDim[0]: inner box extent {inner_bytes} B exceeds the {sw.name} swizzle span "
                   f"({sw.span_bytes} B)")
    for d, e in enumerate(b.element_strides):
        if not 1 <= e <= L.max_element_stride:
            out.append(f"elementStrides[{d}]: {e}, must be 1..{L.max_element_stride}")
    if all(x >= 1 for x in b.box_dims) and all(e >= 1 for e in b.element_strides):  # measured, not in the text
        limit_bytes = es * math.prod(x // e for x, e in zip(b.box_dims, b.element_strides, strict=True))
        if limit_bytes > L.box_bytes_max:
            out.append(f"boxDim: the box holds {limit_bytes} B of data (esize x prod(floor(boxDim / elementStrides))), "
                       f"must be at most {L.box_bytes_max} B = 228 KiB (measured)")
    if b.oob_fill == "nan" and not DTYPES[b.dtype].is_float:
        out.append(f"oobFill: NaN fill needs a floating-point dtype, found {b.dtype}")
    return out


# -- the shared-memory image ----------------------------------------------------------------------------------


def byte_swizzle(swizzle: str) -> Swizzle:
    """``Swizzle<B,4,3>`` on shared-memory byte addresses for a TMA swizzle mode (PTX ISA 5.5.7).

    >>> str(byte_swizzle("128B")), byte_swizzle("128B")(144)
    ('Sw<3,4,3>', 128)
    """
    return Swizzle(tma_swizzle(swizzle).bits, 4, 3)


def box_smem_offsets(box: TmaBox, dst: int = 0) -> np.ndarray:
    """Byte offset from ``dst`` of every box element, as an array of shape ``box.counts`` (axis d = dim d).

    Pre: interleave none; ``dst`` = the destination's offset from a 1024-byte-aligned shared-memory address.
    Post: ``out[j] = Sw(dst + esize*j0 + row_pitch*colex(j1.., counts[1:])) - dst``; distinct, element-aligned and
    inside ``[0, smem_bytes)`` when ``dst`` is aligned to the swizzle repeat.

    >>> int(box_smem_offsets(TmaBox("float16", (64, 64), (128,), (64, 8), swizzle="128B"))[8, 1])
    128
    """
    if box.interleave != "none":
        raise LayoutError(f"the smem image is modelled for interleave none, not {box.interleave}")
    return byte_swizzle(box.swizzle)(_linear(box) + dst) - dst


def _linear(box: TmaBox) -> np.ndarray:
    """Unswizzled byte offset of every box element (shape ``counts``): rows ``row_pitch`` apart."""
    counts = box.counts
    j0 = np.arange(counts[0]).reshape((-1,) + (1,) * (len(counts) - 1))
    rows = Layout(counts[1:]).offsets(np.int64).reshape((1, *counts[1:]), order="F") if len(counts) > 1 else 0
    return j0 * box.esize + rows * box.row_pitch


def tile_image(box: TmaBox, layout: Any, modes: Sequence[int], base_address: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(actual, dst)``: the smem byte (from the buffer start) every tile element lands at when one box is issued per
    box-sized block of ``layout``'s tile, and that box's ``dst`` (flat colex over the layout's modes, ``mn + MN*k``).

    ``layout`` maps tile coordinates (one mode per box dim, ``modes[i]`` = the box dim of mode ``i``) to element
    offsets in a buffer ``base_address`` bytes past a 1024-byte boundary; each box's ``dst`` is the byte address
    (from that boundary) of its block's first element, unswizzled (``base + offset + L(origin)``), as CuTe's TMA
    partition issues it. A TMA store reads the same bytes. Pre: the box counts divide the modes. Post: ``actual[i] =
    Sw_box(dst[i] + lin(j)) - base_address`` for element ``i`` at box element ``j`` (module docstring).

    >>> from layoutcheck.hw.smem import gmma_smem_atom
    >>> a = gmma_smem_atom("K", "SW128", 16).composed
    >>> act, dst = tile_image(TmaBox("float16", (64, 8), (128,), (64, 8), swizzle="128B"), a, (1, 0))
    >>> int(act[1 + 8 * 8]), int(dst.max())  # element (mn=1, k=8): row 1 (byte 128), chunk 1 ^ 1 = 0
    (128, 0)
    """
    if box.interleave != "none":
        raise LayoutError(f"the smem image is modelled for interleave none, not {box.interleave}")
    if isinstance(layout, ComposedLayout):
        off, lay = layout.offset, layout.layout
    else:
        off, lay = 0, layout
    tile, es = tuple(size(m) for m in lay), box.esize
    plain = shared_offsets(lay, np.int64).reshape(tile, order="F")
    # one open grid per mode when the modes are a permutation of the box dims (broadcasting gives the same values
    # as the dense grid, without the rank x tile index arrays)
    crd = np.indices(tile, sparse=sorted(modes) == list(range(len(tile))))
    n = [box.counts[d] for d in modes]
    origin = tuple(crd[i] - crd[i] % n[i] for i in range(len(tile)))
    dst = base_address + es * (off + plain[origin])
    j: list[Any] = [None] * len(tile)
    for i, d in enumerate(modes):
        j[d] = crd[i] % n[i]
    actual = byte_swizzle(box.swizzle)(dst + _linear(box)[tuple(j)]) - base_address
    return actual.ravel(order="F"), dst.ravel(order="F")


def simulate_load(box: TmaBox, gmem: np.ndarray, coords: Sequence[int], dst: int = 0,
                  nan_bytes: bytes | None = None, untouched: int = 0) -> np.ndarray:
    """The ``box.smem_bytes`` bytes from ``dst`` after one tiled TMA load from ``gmem`` (gaps hold ``untouched``).

    Pre: ``gmem`` is a uint8 array holding the tensor at byte 0 (``box.global_address`` is ignored), interleave none.
    Post: element ``j`` of the box holds the global element at ``coords + j*element_strides``, or the fill pattern
    (zeros; ``nan_bytes`` for ``oob_fill="nan"``) when that coordinate is outside ``global_dims`` in any dim.
    """
    es, counts, r = box.esize, box.counts, box.rank
    if len(coords) != r:
        raise LayoutError(f"coords {tuple(coords)} need {r} entries")
    grids = np.meshgrid(*[np.arange(n) for n in counts], indexing="ij")
    strides = (es, *box.global_strides)
    steps = (1, *box.element_strides[1:])
    inside = np.ones(counts, dtype=bool)
    addr = np.zeros(counts, dtype=np.int64)
    for d in range(r):
        g = coords[d] + grids[d] * steps[d]
        inside &= (g >= 0) & (g < box.global_dims[d])
        addr += np.where(inside, g, 0) * strides[d]
    fill = np.frombuffer(nan_bytes if box.oob_fill == "nan" and nan_bytes else bytes(es), dtype=np.uint8)
    src = np.where(inside[..., None], gmem[addr[..., None] + np.arange(es)], fill)
    out = np.full(box.smem_bytes, untouched, dtype=np.uint8)
    pos = box_smem_offsets(box, dst)
    out[pos[..., None] + np.arange(es)] = src
    return out


def mma_smem_layout(major: str, swizzle: str, dtype: str, tile: tuple[int, int], order: str = "col") -> ComposedLayout:
    """The GMMA operand layout of a ``(MN, K)`` tile: ``gmma_smem_atom`` tiled by ``tile_to_shape``.

    ``order="col"`` stacks atoms along MN first (CuTe's default ``Step<_1,_2>``, the seed's column-major stacking);
    ``order="row"`` along K first. Pre: the atom divides ``tile``.

    >>> str(mma_smem_layout("K", "128B", "float16", (64, 128)))
    'Sw<3,3,3> o 0 o (64,(64,2)):(64,(1,4096))'
    """
    if not (all(type(x) is str for x in (major, swizzle, dtype, order)) and type(tile) is tuple
            and all(type(t) is int for t in tile)):
        return _stage_layout(major, swizzle, dtype, tile, order)  # other values: validated (and refused) every time
    return _cached_stage_layout(major, swizzle, dtype, tile, order)


@lru_cache(maxsize=32)
def _cached_stage_layout(major: str, swizzle: str, dtype: str, tile: tuple[int, int], order: str) -> ComposedLayout:
    """``mma_smem_layout`` once per arguments: a config's claims and its data path tile the same stage."""
    return _stage_layout(major, swizzle, dtype, tile, order)


def _stage_layout(major: str, swizzle: str, dtype: str, tile: Any, order: str) -> ComposedLayout:
    if order not in ("col", "row"):
        raise LayoutError(f"atom order {order!r}: expected 'col' (MN first) or 'row' (K first)", key="order")
    with blame("swizzle"):
        mode = swizzle_mode(tma_swizzle(swizzle).name).gmma
    atom = gmma_smem_atom(major, mode, 8 * tma_dtype(dtype).bytes)
    with blame("tile"):
        lay = tile_to_shape(atom.layout, tile, (0, 1) if order == "col" else (1, 0))
    return ComposedLayout(atom.element_swizzle, 0, lay)


__all__ = [
    "TmaBox", "box_counts", "box_smem_offsets", "byte_swizzle", "encode_check",
    "mma_smem_layout", "simulate_load", "tile_image", "tma_dtype", "tma_swizzle",
]
