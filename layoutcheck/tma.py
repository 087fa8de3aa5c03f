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
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .errors import LayoutError
from .hw.smem import gmma_smem_atom
from .hw.tma import DTYPES, EXTENDED_SWIZZLES, INTERLEAVES, LIMITS, OOB_FILLS, SWIZZLES, TmaDtype, TmaSwizzle
from .inttuple import is_int
from .layout import Layout, size
from .properties import Decision, Property, Subject, as_subject, inner
from .result import Counterexample, Result, Verdict
from .swizzle import ComposedLayout, Swizzle
from .tiling import tile_to_shape

# -- names and shapes -----------------------------------------------------------------------------------------


def tma_dtype(name: str) -> TmaDtype:
    """The ``CUtensorMapDataType`` record for ``name`` ("float16", "bfloat16", ...); ``LayoutError`` if unknown."""
    if name not in DTYPES:
        raise LayoutError(f"unknown TMA dtype {name!r}: expected one of {', '.join(DTYPES)}")
    return DTYPES[name]


def tma_swizzle(name: str) -> TmaSwizzle:
    """The ``CUtensorMapSwizzle`` record for "none", "32B", "64B" or "128B"."""
    if name in EXTENDED_SWIZZLES:
        raise LayoutError(f"swizzle {name!r} (CUDA 12.8+, sm_100) is outside the model: use none, 32B, 64B or 128B")
    if name not in SWIZZLES:
        raise LayoutError(f"unknown swizzle {name!r}: expected one of {', '.join(SWIZZLES)}")
    return SWIZZLES[name]


def _ints(values: Any, what: str) -> tuple[int, ...]:
    if isinstance(values, (int, np.integer)):
        values = (values,)
    try:
        out = tuple(int(v) for v in values if is_int(v) or isinstance(v, np.integer)) if values is not None else ()
    except TypeError:
        raise LayoutError(f"{what} must be a sequence of ints, found {values!r}") from None
    if len(out) != len(values):
        raise LayoutError(f"{what} must hold ints, found {values!r}")
    if any(v < 0 for v in out):
        raise LayoutError(f"{what} must be non-negative (the driver takes unsigned ints), found {out}")
    return out


def _check_name(name: str, table: dict[str, int], what: str) -> None:
    if name not in table:
        raise LayoutError(f"unknown {what} {name!r}: expected one of {', '.join(table)}")


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
            raise LayoutError(f"global_strides has {len(strides)} entries; rank {r} needs {max(r - 1, 0)} (dims 1..)")
        if len(box) != r or len(es) != r:
            raise LayoutError(f"box_dims {box} and element_strides {es} need {r} entries, one per global dim")
        if not isinstance(self.global_address, (int, np.integer)) or self.global_address < 0:
            raise LayoutError(f"global_address must be a non-negative int, found {self.global_address!r}")
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
    if all(x >= 1 for x in b.box_dims) and b.box_bytes >= L.box_bytes_bound:  # measured, not in the text
        out.append(f"boxDim: the box holds {b.box_bytes} B of data, must be < {L.box_bytes_bound} B (measured)")
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
    rows = Layout(counts[1:]).offsets().reshape((1, *counts[1:]), order="F") if len(counts) > 1 else 0
    return j0 * box.esize + rows * box.row_pitch


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


# -- compatibility with a consumer layout ---------------------------------------------------------------------


def _split(layout: Subject) -> tuple[Swizzle, int, Layout]:
    if isinstance(layout, ComposedLayout):
        return layout.swizzle, layout.offset, layout.layout
    return Swizzle(0, 0, 0), 0, layout


@dataclass(frozen=True, slots=True)
class TmaCompatible(Property):
    """``tma_compatible(box, layout, modes)``: the descriptor is legal and the box images tile ``layout`` exactly.

    ``layout`` maps tile coordinates (element units, one mode per box dim) to element offsets in a tile buffer that
    starts 1024-byte aligned; ``modes[i]`` is the box dim of layout mode ``i`` (default ``0, 1, ...``; a K-major
    ``(M,K)`` operand has ``modes=(1, 0)``: K is the contiguous dim 0).
    """

    box: TmaBox
    layout: Subject
    modes: tuple[int, ...] | None = None
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
        for i, d in enumerate(modes):
            ext, n = size(inner(lay)[i]), self.box.counts[d]
            if ext % n:
                raise LayoutError(f"box dim {d} of {n} elements does not divide layout mode {i} of size {ext}")

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
        tile, es = self.tile, self.box.esize
        plain = lay.offsets().reshape(tile, order="F")
        crd = np.indices(tile)
        n = [self.box.counts[d] for d in self.modes]
        origin = tuple(crd[i] - crd[i] % n[i] for i in range(len(tile)))
        dst = es * (off + plain[origin])
        j = [None] * len(tile)
        for i, d in enumerate(self.modes):
            j[d] = crd[i] % n[i]
        lin = _linear(self.box)[tuple(j)]
        actual = byte_swizzle(self.box.swizzle)(dst + lin)
        expected = es * swz(off + plain)
        return actual.ravel(order="F"), expected.ravel(order="F"), dst.ravel(order="F")

    def exhaustive(self) -> Decision:
        bad = self.box.violations()
        if bad:
            return Decision(False, {"kind": "descriptor", "violation": 0}, {"violations": len(bad)})
        actual, expected, dst = self._sides()
        stats = {"elements": int(actual.size), "boxes": self.boxes()}
        mis = np.flatnonzero(dst % LIMITS.smem_dst_align)
        if mis.size:
            return Decision(False, {"kind": "dst", "i": int(mis[0])}, stats)
        wrong = np.flatnonzero(actual != expected)
        if wrong.size:
            return Decision(False, {"kind": "place", "i": int(wrong[0])}, {**stats, "misplaced": int(wrong.size)})
        return Decision(True, None, stats)

    # -- scalar re-evaluation of one element, independent of the vectorised path ------------------------------
    def _element(self, i: int) -> dict[str, Any]:
        swz, off, lay = _split(self.layout)
        tile, es = self.tile, self.box.esize
        crd = [int(c) for c in np.unravel_index(i, tile, order="F")]
        n = [self.box.counts[d] for d in self.modes]
        origin = [c - c % k for c, k in zip(crd, n, strict=True)]
        flat = lambda c: int(np.ravel_multi_index(c, tile, order="F"))  # noqa: E731
        dst = es * (off + lay(flat(origin)))
        j = [0] * len(tile)
        for m, d in enumerate(self.modes):
            j[d] = crd[m] - origin[m]
        lin = es * j[0] + self.box.row_pitch * (Layout(self.box.counts[1:])(tuple(j[1:])) if len(j) > 1 else 0)
        return {"crd": tuple(crd), "origin": tuple(origin), "j": tuple(j), "dst": dst,
                "actual": int(byte_swizzle(self.box.swizzle)(dst + lin)), "expected": es * int(swz(off + lay(i)))}

    def recheck(self, w: dict[str, Any]) -> bool:
        if w["kind"] == "descriptor":
            return bool(self.box.violations())
        e = self._element(w["i"])
        if w["kind"] == "dst":
            return e["dst"] % LIMITS.smem_dst_align != 0
        return e["actual"] != e["expected"]

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "descriptor":
            bad = self.box.violations()
            return f"the driver rejects the descriptor: {bad[w['violation']]}" + (
                f" (+{len(bad) - 1} more)" if len(bad) > 1 else "")
        e = self._element(w["i"])
        crd = ",".join(map(str, e["crd"]))
        if w["kind"] == "dst":
            return (f"the box at tile origin ({','.join(map(str, e['origin']))}) starts at smem byte {e['dst']}, "
                    f"not {LIMITS.smem_dst_align}-byte aligned (cp.async.bulk.tensor destination)")
        return (f"tile element ({crd}) [box at ({','.join(map(str, e['origin']))}), box element "
                f"({','.join(map(str, e['j']))})]: TMA puts it at smem byte {e['actual']}, the layout expects byte "
                f"{e['expected']}")

    def decide(self) -> Result:
        """Decide exhaustively here (no engine): PROVEN, or REFUTED with the re-checked first witness."""
        import time

        t0 = time.perf_counter()
        d = self.exhaustive()
        dt = time.perf_counter() - t0
        if d.holds:
            return Result(self, Verdict.PROVEN, "exhaustive", dt, stats=d.stats)
        assert d.witness is not None and self.recheck(d.witness), "tma_compatible witness failed its recheck"
        cx = Counterexample(self.explain(d.witness), d.witness)
        return Result(self, Verdict.REFUTED, "exhaustive", dt, cx, stats=d.stats)


def tma_compatible(box: TmaBox, smem_layout: Any, modes: Sequence[int] | None = None) -> TmaCompatible:
    """The claim that ``box`` loads the tile into exactly ``smem_layout`` (decide with ``.decide()`` or ``prove``).

    >>> from layoutcheck.hw.smem import gmma_smem_atom
    >>> a = gmma_smem_atom("K", "SW128", 16).composed
    >>> str(tma_compatible(TmaBox("float16", (64, 8), (128,), (64, 8), swizzle="128B"), a, (1, 0)).decide().status)
    'PROVEN'
    """
    return TmaCompatible(box, smem_layout, None if modes is None else tuple(modes))


# -- MMA operand layouts and box planning ---------------------------------------------------------------------

_MODE_OF = {"none": "INTER", "32B": "SW32", "64B": "SW64", "128B": "SW128"}


def mma_smem_layout(major: str, swizzle: str, dtype: str, tile: tuple[int, int], order: str = "col") -> ComposedLayout:
    """The GMMA operand layout of a ``(MN, K)`` tile: ``gmma_smem_atom`` tiled by ``tile_to_shape``.

    ``order="col"`` stacks atoms along MN first (CuTe's default ``Step<_1,_2>``, the seed's column-major stacking);
    ``order="row"`` along K first. Pre: the atom divides ``tile``.

    >>> str(mma_smem_layout("K", "128B", "float16", (64, 128)))
    'Sw<3,3,3> o 0 o (64,(64,2)):(64,(1,4096))'
    """
    if order not in ("col", "row"):
        raise LayoutError(f"atom order {order!r}: expected 'col' (MN first) or 'row' (K first)")
    atom = gmma_smem_atom(major, _MODE_OF[tma_swizzle(swizzle).name], 8 * tma_dtype(dtype).bytes)
    lay = tile_to_shape(atom.layout, tile, (0, 1) if order == "col" else (1, 0))
    return ComposedLayout(atom.element_swizzle, 0, lay)


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


__all__ = [
    "BoxPlan", "TmaBox", "TmaCompatible", "box_counts", "box_smem_offsets", "byte_swizzle", "encode_check",
    "mma_smem_layout", "plan_boxes", "simulate_load", "tma_compatible", "tma_dtype", "tma_swizzle",
]
