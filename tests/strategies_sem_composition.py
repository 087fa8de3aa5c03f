"""Hypothesis strategies that *build* CuTe layouts for the semantics oracles of ``composes``, ``equivalent``,
``vectorizable``, the swizzle claims and ``scale_ownership``.

``layouts`` draws nested shapes (depth up to 2) with strides that break the usual preconditions on purpose: stride 0
(replication), negative strides, strides that make modes overlap, size-1 modes; ``nonneg_layouts`` the same with
non-negative strides (``composes`` needs ``B`` to stay in ``A``'s domain). ``same_function`` builds a second
encoding of a layout's function (a mode split in two, a size-1 mode inserted, strides of size-1 modes changed) and
``almost`` a layout one stride or one extent away.
"""

from __future__ import annotations

from hypothesis import strategies as st

from tests.semantics.naive_common import flat, prod


@st.composite
def shapes(draw: st.DrawFn, max_leaves: int = 4, max_size: int = 256) -> tuple:
    n = draw(st.integers(1, max_leaves))
    leaves = [draw(st.sampled_from([1, 2, 2, 3, 4, 4, 8])) for _ in range(n)]
    while prod(leaves) > max_size:
        leaves[leaves.index(max(leaves))] //= 2
    out: list = []
    i = 0
    while i < len(leaves):
        k = draw(st.integers(1, 2)) if i + 1 < len(leaves) else 1
        out.append(leaves[i] if k == 1 else tuple(leaves[i:i + k]))
        i += k
    return tuple(out)


def _restride(shape: tuple, strides: list[int]) -> tuple:
    it = iter(strides)
    return tuple(next(it) if isinstance(m, int) else tuple(next(it) for _ in m) for m in shape)


@st.composite
def layouts(draw: st.DrawFn, signed: bool = True, max_leaves: int = 4, max_size: int = 256) -> tuple[tuple, tuple]:
    """``(shape, stride)``: compact, or with stride 0 / negative / overlapping / random strides."""
    shape = draw(shapes(max_leaves, max_size))
    leaves = flat(shape)
    how = draw(st.sampled_from(["compact", "compact", "permuted", "zero", "negative", "random", "overlap"]))
    strides, acc = [], 1
    for n in leaves:
        strides.append(acc)
        acc *= n
    if how == "permuted":
        strides = draw(st.permutations(strides))
    elif how == "zero":
        strides[draw(st.integers(0, len(strides) - 1))] = 0
    elif how == "negative" and signed:
        i = draw(st.integers(0, len(strides) - 1))
        strides[i] = -strides[i]
    elif how == "random":
        strides = [draw(st.integers(-8 if signed else 0, 40)) for _ in leaves]
    elif how == "overlap" and len(strides) > 1:
        strides[-1] = max(1, strides[-1] // 2)
    return shape, _restride(shape, strides)


def nonneg_layouts(max_leaves: int = 4, max_size: int = 256) -> st.SearchStrategy[tuple[tuple, tuple]]:
    return layouts(signed=False, max_leaves=max_leaves, max_size=max_size)


@st.composite
def same_function(draw: st.DrawFn, lay: tuple[tuple, tuple]) -> tuple[tuple, tuple]:
    """Another encoding of ``lay``'s function: its flat leaves, a leaf split in two, a size-1 leaf added (any stride),
    or size-1 leaves restrided."""
    shape, stride = (list(flat(lay[0])), list(flat(lay[1])))
    how = draw(st.sampled_from(["flat", "split", "unit", "restride"]))
    if how == "split":
        cand = [i for i, n in enumerate(shape) if n % 2 == 0 and n > 2]
        if cand:
            i = draw(st.sampled_from(cand))
            shape[i:i + 1] = [2, shape[i] // 2]
            stride[i:i + 1] = [stride[i], 2 * stride[i]]
    elif how == "unit":
        i = draw(st.integers(0, len(shape)))
        shape.insert(i, 1)
        stride.insert(i, draw(st.integers(-5, 50)))
    elif how == "restride":
        stride = [draw(st.integers(-5, 50)) if n == 1 else d for n, d in zip(shape, stride, strict=True)]
    return tuple(shape), tuple(stride)


@st.composite
def almost(draw: st.DrawFn, lay: tuple[tuple, tuple]) -> tuple[tuple, tuple]:
    """``lay`` with one leaf's stride moved by one, or one extent doubled (a size mismatch)."""
    shape, stride = list(flat(lay[0])), list(flat(lay[1]))
    i = draw(st.integers(0, len(shape) - 1))
    if draw(st.booleans()):
        stride[i] += draw(st.sampled_from([1, -1]))
    else:
        shape[i] *= 2
    return tuple(shape), tuple(stride)
