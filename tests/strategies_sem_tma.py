"""Hypothesis strategies that *build* TMA box cases for the semantics oracle of ``tma_compatible``
(``tests/semantics/test_sem_tma.py``).

A case is a box (element size, swizzle, box dims), a shared-memory layout over the tile (one mode per box dim, in the
order ``modes``) and a buffer base address. ``tma_cases`` starts from the layout the TMA unit itself writes (boxes of
``row pitch x rows`` laid down one after the other, the element swizzle that matches the byte swizzle) and then
breaks it on purpose: a stride +1, a stride 0, a negative stride, two strides swapped, the swizzle-span padding
dropped, the swizzle one bit off, a base address off the swizzle repeat, a tile the box does not divide, modes
permuted. ``limit_boxes`` puts every ``cuTensorMapEncodeTiled`` limit the claim can meet at its value and one past it
(``tensorRank`` 5/6, ``boxDim`` 256/257, inner bytes, swizzle span, the 228 KiB box).
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

ESIZE = {"u8": 1, "f16": 2, "f32": 4, "f64": 8}
SPAN = {"none": 0, "32B": 32, "64B": 64, "128B": 128}
SW_BITS = {"none": 0, "32B": 1, "64B": 2, "128B": 3}


@dataclass(frozen=True)
class TmaCase:
    dtype: str
    swizzle: str
    box: tuple[int, ...]  # box dims, innermost first
    modes: tuple[int, ...]  # box dim of each layout mode
    shape: tuple  # per layout mode: (box count, boxes) or an int
    stride: tuple
    layout_swizzle: tuple[int, int, int] | None
    base_address: int = 0
    how: str = "natural"

    @property
    def esize(self) -> int:
        return ESIZE[self.dtype]


def element_swizzle(swizzle: str, esize: int) -> tuple[int, int, int] | None:
    """The element-unit ``Sw<B,M,3>`` equal to the byte ``Sw<B,4,3>`` of the TMA swizzle mode (``M = 4 - log2 e``)."""
    if swizzle == "none":
        return None
    return SW_BITS[swizzle], 4 - esize.bit_length() + 1, 3


def natural(dtype: str, swizzle: str, box: tuple[int, ...], boxes: tuple[int, ...],
            modes: tuple[int, ...]) -> TmaCase:
    """The layout the TMA unit writes when one box is issued per block: box element ``j`` at
    ``j0 + P*(j1 + n1*j2)`` (``P`` the row pitch in elements: the inner extent, padded to the swizzle span), block
    ``b`` at ``b * footprint`` in colex order over the dims."""
    es = ESIZE[dtype]
    pitch = max(box[0] * es, SPAN[swizzle]) // es
    inner = [1]
    for d in range(1, len(box)):
        inner.append(pitch if d == 1 else inner[-1] * box[d - 1])
    foot = pitch
    for b in box[1:]:
        foot *= b
    block = [foot]
    for d in range(1, len(box)):
        block.append(block[-1] * boxes[d - 1])
    shape = tuple((box[d], boxes[d]) for d in modes)
    stride = tuple((inner[d], block[d]) for d in modes)
    return TmaCase(dtype, swizzle, box, modes, shape, stride, element_swizzle(swizzle, es))


def _leaves(case: TmaCase) -> list[tuple[int, int]]:
    return [(i, k) for i in range(len(case.shape)) for k in range(2)]


def _set_stride(case: TmaCase, at: tuple[int, int], value: int) -> tuple:
    out = [list(m) for m in case.stride]
    out[at[0]][at[1]] = value
    return tuple(tuple(m) for m in out)


@st.composite
def tma_cases(draw: st.DrawFn) -> TmaCase:
    """A natural TMA case, or one broken in one of the ways listed in the module docstring."""
    dtype = draw(st.sampled_from(sorted(ESIZE)))
    es = ESIZE[dtype]
    swizzle = draw(st.sampled_from(sorted(SPAN)))
    rank = draw(st.integers(1, 3))
    inner_bytes = draw(st.sampled_from([16, 32, 48, 64, 128] + ([SPAN[swizzle] + 16] if SPAN[swizzle] else [])))
    b0 = max(1, inner_bytes // es + draw(st.sampled_from([0, 0, 0, 0, 1, -1])))
    box = (b0, *(draw(st.sampled_from([1, 2, 3, 4, 8])) for _ in range(rank - 1)))
    boxes = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    modes = tuple(range(rank)) if draw(st.booleans()) or rank == 1 else tuple(draw(st.permutations(range(rank))))
    case = natural(dtype, swizzle, box, boxes, modes)
    how = draw(st.sampled_from(["natural", "natural", "stride+1", "stride0", "negative", "swap", "unpadded",
                                "swizzle", "base", "ragged"]))
    leaves = _leaves(case)
    if how == "stride+1":
        at = draw(st.sampled_from(leaves))
        case = TmaCase(**{**case.__dict__, "stride": _set_stride(case, at, case.stride[at[0]][at[1]] + 1)})
    elif how == "stride0":
        at = draw(st.sampled_from(leaves))
        case = TmaCase(**{**case.__dict__, "stride": _set_stride(case, at, 0)})
    elif how == "negative":
        at = draw(st.sampled_from(leaves))
        case = TmaCase(**{**case.__dict__, "stride": _set_stride(case, at, -case.stride[at[0]][at[1]])})
    elif how == "swap" and len(leaves) > 1:
        a, b = draw(st.lists(st.sampled_from(leaves), min_size=2, max_size=2, unique=True))
        s = _set_stride(case, a, case.stride[b[0]][b[1]])
        s = _set_stride(TmaCase(**{**case.__dict__, "stride": s}), b, case.stride[a[0]][a[1]])
        case = TmaCase(**{**case.__dict__, "stride": s})
    elif how == "unpadded":
        case = natural(dtype, "none", box, boxes, modes)
        case = TmaCase(**{**case.__dict__, "swizzle": swizzle, "layout_swizzle": element_swizzle(swizzle, es)})
    elif how == "swizzle":
        bits = draw(st.integers(0, 3))
        case = TmaCase(**{**case.__dict__, "layout_swizzle": None if bits == 0 else (bits, 4 - es.bit_length() + 1, 3)})
    elif how == "base":
        case = TmaCase(**{**case.__dict__, "base_address": draw(st.sampled_from([16, 128, 256, 512, 1024, 2048]))})
    elif how == "ragged":
        i = draw(st.integers(0, rank - 1))
        shape = list(case.shape)
        shape[i] = (shape[i][0] + draw(st.sampled_from([1, -1])) or 2, shape[i][1])
        case = TmaCase(**{**case.__dict__, "shape": tuple(shape)})
    return TmaCase(**{**case.__dict__, "how": how})


@st.composite
def limit_boxes(draw: st.DrawFn) -> TmaCase:
    """A natural 2-D case (one box) with one driver limit at its value or one past it: ``boxDim[1]`` 256 / 257,
    inner bytes a multiple of 16 or not, the swizzle span exactly or one 16-byte chunk over, the 228 KiB box."""
    which = draw(st.sampled_from(["box_dim", "inner16", "span", "bytes", "rank"]))
    over = draw(st.booleans())
    if which == "box_dim":
        dtype, swizzle, box = "u8", "none", (16, 257 if over else 256)
    elif which == "inner16":
        dtype = draw(st.sampled_from(["u8", "f16"]))
        es = ESIZE[dtype]
        box = ((16 + (es if over else 0)) // es, 2)  # 16 B, or 17 B / 18 B
        swizzle = "none"
    elif which == "span":
        swizzle = draw(st.sampled_from(["32B", "64B", "128B"]))
        dtype = draw(st.sampled_from(["u8", "f16", "f32"]))
        box = ((SPAN[swizzle] + (16 if over else 0)) // ESIZE[dtype], 2)
    elif which == "bytes":  # 233472 B = 228 KiB: f64 rows of 2048 B, 114 rows fill it exactly
        dtype, swizzle, box = "f64", "none", (256, 115 if over else 114)
    else:  # tensorRank 5, or 6: 128-byte rows, one box
        dtype, swizzle, box = "u8", "none", (128,) + (1,) * (5 if over else 4)
    rank = len(box)
    return TmaCase(**{**natural(dtype, swizzle, box, (1,) * rank, tuple(range(rank))).__dict__,
                      "how": f"limit {which} over={over}"})
