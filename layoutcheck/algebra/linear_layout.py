"""Linear layouts: Triton's ``LinearLayout`` as a frozen value -- a GF(2)-linear map between named bit-vector spaces.

Definitions. A *linear layout* ``L`` has named *input dimensions* (Triton's ``register``, ``lane``, ``warp``,
``block`` for a tensor held in registers; ``offset`` and ``block`` for one in shared memory), each of size
``2**k``, and named *output dimensions* (``dim0``, ``dim1``, ... in tensor-dimension order), each of a power-of-two
size. Input dimension ``d`` has ``k`` *bases*: ``bases[d][j]`` is the output coordinate tuple of the input
``d = 2**j`` (all other inputs 0). ``L`` is linear over GF(2)::

    L(d0 = x0, d1 = x1, ...) = XOR over inputs d, over set bits j of x_d, of bases[d][j]     (coordinate-wise)

A zero basis is a *broadcast*: flipping that bit does not move the element (two registers, lanes or warps hold the
same element). Worked example: ``#ttg.blocked<{sizePerThread=[1,2], threadsPerWarp=[4,8], warpsPerCTA=[1,1],
order=[1,0]}>`` on a ``4x16`` tensor::

    register: (0,1)                    register 1 -> column 1
    lane:     (0,2) (0,4) (0,8) (1,0) (2,0)     lane 9 = 0b01001 -> (0,2) ^ (1,0) = (1,2)
    warp:     (none)                    out dims dim0 (size 4), dim1 (size 16)

*Flat* views (used by the engines and by CuTe conversion): the flat input index puts the first input dimension in
the lowest bits (Triton's ``flattenIns``); the flat output is colexicographic, ``dim0`` fastest (``flattenOuts``,
and CuTe's coordinate order), so each basis becomes one integer *column* and ``L_flat(i) = XOR of columns of i``.

Operations (Triton's names): ``compose`` (``A.compose(B)`` is ``B o A``), ``invert`` (a bijection's inverse),
``*`` (the product: the right factor's bases land above the left factor's output in every shared output dimension),
``transpose_ins`` / ``transpose_outs``; ``to_cute`` / ``linear_from_cute`` convert to and from a CuTe layout of the flat
views where one exists (the columns bit-disjoint, possibly after an XOR swizzle ``Sw<B,M,S>``).

Edge cases: an input dimension of size 1 has no bases; an output dimension of size 1 is kept (its coordinate is
always 0); ``L`` need be neither injective nor surjective (the properties in ``layoutcheck.properties.linear``
decide that).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce

import numpy as np

from layoutcheck.algebra.gf2 import inverse as gf2_inverse
from layoutcheck.algebra.inttuple import idx2crd
from layoutcheck.algebra.layout import Layout, flat_modes
from layoutcheck.algebra.swizzle import ComposedLayout, Subject, Swizzle, inner
from layoutcheck.errors import LayoutError

Basis = tuple[int, ...]


def _log2(n: int, what: str) -> int:
    if not isinstance(n, int) or n < 1 or n & (n - 1):
        raise LayoutError(f"{what} must be a power of two, found {n!r}")
    return n.bit_length() - 1


@dataclass(frozen=True, slots=True)
class LinearLayout:
    """A GF(2)-linear map from named input dimensions (``in_bases``: name -> bases) to named output dimensions
    (``out_dims``: name -> power-of-two size), as Triton's ``LinearLayout``.

    >>> ll = LinearLayout.make({"lane": [[0, 1], [1, 0]]}, {"dim0": 2, "dim1": 2})
    >>> ll.apply({"lane": 3})
    (1, 1)
    """

    in_bases: tuple[tuple[str, tuple[Basis, ...]], ...]
    out_dims: tuple[tuple[str, int], ...]

    def __post_init__(self) -> None:
        names = [n for n, _ in self.in_bases]
        if len(set(names)) != len(names):
            raise LayoutError(f"linear layout: repeated input dimension in {names}")
        outs = [n for n, _ in self.out_dims]
        if len(set(outs)) != len(outs):
            raise LayoutError(f"linear layout: repeated output dimension in {outs}")
        for name, size in self.out_dims:
            _log2(size, f"linear layout: size of output dimension {name!r}")
        for name, bases in self.in_bases:
            for j, b in enumerate(bases):
                if len(b) != len(self.out_dims):
                    raise LayoutError(f"linear layout: basis {name}[{j}] = {list(b)} has {len(b)} coordinates, "
                                      f"expected one per output dimension {outs}")
                for v, (o, size) in zip(b, self.out_dims, strict=True):
                    if not isinstance(v, int) or not 0 <= v < size:
                        raise LayoutError(f"linear layout: basis {name}[{j}] = {list(b)} is outside output dimension "
                                          f"{o!r} of size {size}")

    # -- construction ---------------------------------------------------------------------------------------------
    @staticmethod
    def make(bases: Mapping[str, Sequence[Sequence[int]]], out_dims: Mapping[str, int] | Sequence[str]
             ) -> LinearLayout:
        """From ``{in_dim: [[coord per out dim], ...]}`` and ``{out_dim: size}`` (or out dim names: each size the
        smallest power of two above every basis, as Triton's constructor without sizes).

        >>> LinearLayout.make({"offset": [[0, 1], [1, 1]]}, ["dim0", "dim1"]).out_dims
        (('dim0', 2), ('dim1', 2))
        """
        ib = tuple((str(n), tuple(tuple(int(v) for v in b) for b in bs)) for n, bs in bases.items())
        if isinstance(out_dims, Mapping):
            od = tuple((str(n), int(s)) for n, s in out_dims.items())
        else:
            names = list(out_dims)
            hi = [max((b[k] for _, bs in ib for b in bs), default=0) for k in range(len(names))]
            od = tuple((n, 1 << int(h).bit_length()) for n, h in zip(names, hi, strict=True))
        return LinearLayout(ib, od)

    @staticmethod
    def empty() -> LinearLayout:
        """The layout with no dimensions (the unit of ``*``)."""
        return LinearLayout((), ())

    @staticmethod
    def identity_1d(size: int, in_dim: str, out_dim: str) -> LinearLayout:
        """``x -> x`` from ``in_dim`` (size ``size``) onto ``out_dim``.

        >>> LinearLayout.identity_1d(4, "lane", "dim0").bases
        {'lane': [[1], [2]]}
        """
        k = _log2(size, "identity_1d size")
        return LinearLayout(((in_dim, tuple((1 << j,) for j in range(k))),), ((out_dim, size),))

    @staticmethod
    def zeros_1d(size: int, in_dim: str, out_dim: str, out_size: int = 1) -> LinearLayout:
        """``x -> 0``: ``size`` inputs all broadcast onto coordinate 0 of ``out_dim``.

        >>> LinearLayout.zeros_1d(4, "warp", "dim1").bases
        {'warp': [[0], [0]]}
        """
        k = _log2(size, "zeros_1d size")
        return LinearLayout(((in_dim, tuple((0,) for _ in range(k))),), ((out_dim, out_size),))

    # -- shape ----------------------------------------------------------------------------------------------------
    @property
    def bases(self) -> dict[str, list[list[int]]]:
        """``{in_dim: [[coord per out dim] per basis]}``, Triton's ``getBases()`` (a fresh copy)."""
        return {n: [list(b) for b in bs] for n, bs in self.in_bases}

    @property
    def in_dims(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.in_bases)

    @property
    def out_names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.out_dims)

    @property
    def out_shape(self) -> tuple[int, ...]:
        return tuple(s for _, s in self.out_dims)

    def in_dim_size(self, name: str) -> int:
        """``2**(number of bases)`` of ``name``, 1 for a dimension the layout does not have."""
        return 1 << len(dict(self.in_bases).get(name, ()))

    def in_dim_bits(self, name: str) -> int:
        return len(dict(self.in_bases).get(name, ()))

    def out_dim_size(self, name: str) -> int:
        sizes = dict(self.out_dims)
        if name not in sizes:
            raise LayoutError(f"linear layout has no output dimension {name!r} (has {list(sizes)})")
        return sizes[name]

    @property
    def in_size(self) -> int:
        """Number of inputs: the product of the input dimensions' sizes."""
        return 1 << self.in_bits

    @property
    def in_bits(self) -> int:
        return sum(len(bs) for _, bs in self.in_bases)

    @property
    def out_size(self) -> int:
        return reduce(lambda a, b: a * b, self.out_shape, 1)

    @property
    def out_bits(self) -> int:
        return self.out_size.bit_length() - 1

    # -- evaluation -----------------------------------------------------------------------------------------------
    def apply(self, ins: Mapping[str, int]) -> tuple[int, ...]:
        """The output coordinates of the input ``ins`` (missing dimensions are 0).

        Pre: each ``ins[d]`` in ``[0, in_dim_size(d))``. Post: the XOR of ``bases[d][j]`` over set bits ``j``.

        >>> LinearLayout.make({"lane": [[0, 2], [1, 0]]}, {"dim0": 2, "dim1": 4}).apply({"lane": 3})
        (1, 2)
        """
        bases = dict(self.in_bases)
        for d, x in ins.items():
            if d not in bases:
                raise LayoutError(f"linear layout has no input dimension {d!r} (has {list(bases)})")
            if not 0 <= x < 1 << len(bases[d]):
                raise LayoutError(f"input {d}={x} is outside [0, {1 << len(bases[d])})")
        out = [0] * len(self.out_dims)
        for d, x in ins.items():
            for j, b in enumerate(bases[d]):
                if x >> j & 1:
                    out = [o ^ v for o, v in zip(out, b, strict=True)]
        return tuple(out)

    def __call__(self, **ins: int) -> tuple[int, ...]:
        return self.apply(ins)

    def columns(self) -> tuple[int, ...]:
        """One integer per input bit (the flat input order): the flat, colexicographic output of that basis."""
        shifts = _shifts(self.out_shape)
        return tuple(sum(v << s for v, s in zip(b, shifts, strict=True)) for _, bs in self.in_bases for b in bs)

    def unflatten_in(self, i: int) -> dict[str, int]:
        """Flat input index -> ``{in_dim: value}`` (first input dimension in the lowest bits)."""
        out: dict[str, int] = {}
        for name, bs in self.in_bases:
            out[name] = i & ((1 << len(bs)) - 1)
            i >>= len(bs)
        return out

    def unflatten_out(self, y: int) -> tuple[int, ...]:
        """Flat output -> coordinates (``dim0`` fastest: colex, ``idx2crd``). Pre: ``0 <= y < out_size``."""
        return tuple(idx2crd(y, tuple(self.out_shape)))

    def flatten_out(self, coords: Sequence[int]) -> int:
        return sum(c << s for c, s in zip(coords, _shifts(self.out_shape), strict=True))

    def offsets(self) -> np.ndarray:
        """``L_flat(i)`` for every flat input ``i`` (int64), built by doubling: ``out[i + 2**b] = out[i] ^ col_b``."""
        out = np.zeros(1, dtype=np.int64)
        for c in self.columns():
            out = np.concatenate([out, out ^ c])
        return out

    def zero_bases(self) -> tuple[tuple[str, int], ...]:
        """``(in_dim, j)`` of every zero basis: the broadcast bits."""
        return tuple((n, j) for n, bs in self.in_bases for j, b in enumerate(bs) if not any(b))

    # -- algebra --------------------------------------------------------------------------------------------------
    def compose(self, outer: LinearLayout) -> LinearLayout:
        """``outer o self`` (Triton's ``self.compose(outer)``): ``self``'s outputs feed ``outer``'s inputs by name.

        Pre: every output dimension of ``self`` is an input dimension of ``outer`` of at least its size.
        Post: ``R(x) == outer(self(x))``.

        >>> a = LinearLayout.identity_1d(4, "lane", "dim0")
        >>> b = LinearLayout.make({"dim0": [[0, 1], [1, 0]]}, {"x": 2, "y": 2})
        >>> a.compose(b).bases
        {'lane': [[0, 1], [1, 0]]}
        """
        for name, size in self.out_dims:
            if outer.in_dim_size(name) < size:
                raise LayoutError(f"compose: output dimension {name!r} (size {size}) needs an input dimension of "
                                  f"that size in the outer layout (has {outer.in_dim_size(name)})")
        bases = {n: [outer.apply(dict(zip(self.out_names, b, strict=True))) for b in bs] for n, bs in self.in_bases}
        return LinearLayout.make(bases, dict(outer.out_dims))

    def __mul__(self, other: LinearLayout) -> LinearLayout:
        """The product (Triton's ``operator*``): input and output dimensions united (``self``'s first); in a shared
        output dimension ``other``'s coordinates are scaled by ``self``'s size there, and sizes multiply.

        >>> (LinearLayout.identity_1d(2, "register", "dim0") * LinearLayout.identity_1d(4, "lane", "dim0")).bases
        {'register': [[1]], 'lane': [[2], [4]]}
        """
        outs = dict(self.out_dims)
        for n, s in other.out_dims:
            outs[n] = outs.get(n, 1) * s
        names = list(outs)
        scale_a = dict(self.out_dims)

        def lift(ll: LinearLayout, b: Basis, scale: Mapping[str, int]) -> tuple[int, ...]:
            vals = dict(zip(ll.out_names, b, strict=True))
            return tuple(vals.get(n, 0) * scale.get(n, 1) for n in names)

        bases: dict[str, list[tuple[int, ...]]] = {}
        for n, bs in self.in_bases:
            bases.setdefault(n, []).extend(lift(self, b, {}) for b in bs)
        for n, bs in other.in_bases:
            bases.setdefault(n, []).extend(lift(other, b, scale_a) for b in bs)
        return LinearLayout(tuple((n, tuple(bs)) for n, bs in bases.items()), tuple(outs.items()))

    def transpose_outs(self, order: Sequence[str]) -> LinearLayout:
        """The same map with output dimensions listed in ``order`` (a permutation of ``out_names``)."""
        if sorted(order) != sorted(self.out_names):
            raise LayoutError(f"transpose_outs: {list(order)} is not a permutation of {list(self.out_names)}")
        idx = [self.out_names.index(n) for n in order]
        return LinearLayout(tuple((n, tuple(tuple(b[k] for k in idx) for b in bs)) for n, bs in self.in_bases),
                            tuple(self.out_dims[k] for k in idx))

    def transpose_ins(self, order: Sequence[str]) -> LinearLayout:
        """The same map with input dimensions listed in ``order`` (a permutation of ``in_dims``)."""
        if sorted(order) != sorted(self.in_dims):
            raise LayoutError(f"transpose_ins: {list(order)} is not a permutation of {list(self.in_dims)}")
        bases = dict(self.in_bases)
        return LinearLayout(tuple((n, bases[n]) for n in order), self.out_dims)

    def with_in_dims(self, names: Iterable[str]) -> LinearLayout:
        """The layout with every input dimension of ``names`` present (missing ones of size 1), in that order first."""
        bases = dict(self.in_bases)
        names = list(names)
        order = names + [n for n in self.in_dims if n not in names]
        return LinearLayout(tuple((n, bases.get(n, ())) for n in order), self.out_dims)

    def invert(self) -> LinearLayout:
        """The inverse of a bijection: output dimensions become inputs (bases per output bit) and vice versa.

        Pre: ``L`` injective and ``in_size == out_size``. Post: ``L.compose(L.invert())`` is the identity.

        >>> LinearLayout.make({"lane": [[0, 1], [1, 0]]}, {"dim0": 2, "dim1": 2}).invert().bases
        {'dim0': [[2]], 'dim1': [[1]]}
        """
        cols, n = self.columns(), self.out_bits
        if self.in_bits != n:
            raise LayoutError(f"invert: {self.in_size} inputs onto {self.out_size} outputs is not a bijection")
        inv = gf2_inverse(cols, n)
        if inv is None:
            raise LayoutError("invert: the layout is not injective (its bases are linearly dependent)")
        sizes = [(name, 1 << len(bs)) for name, bs in self.in_bases]
        shifts = _shifts(tuple(s for _, s in sizes))
        bases = {}
        k = 0
        for name, size in self.out_dims:
            bs = []
            for _ in range(size.bit_length() - 1):
                x = inv[k]
                bs.append(tuple((x >> sh) & (s - 1) for sh, (_, s) in zip(shifts, sizes, strict=True)))
                k += 1
            bases[name] = bs
        return LinearLayout(tuple((nm, tuple(bs)) for nm, bs in bases.items()), tuple(sizes))

    def __str__(self) -> str:
        lines = []
        for n, bs in self.in_bases:
            lines += [f" - {n}={1 << j} -> ({', '.join(map(str, b))})" for j, b in enumerate(bs)]
        outs = ", ".join(f"{n} (size {s})" for n, s in self.out_dims)
        return "\n".join([*lines, f"where out dims are: [{outs}]"])


def _shifts(shape: Sequence[int]) -> tuple[int, ...]:
    out, acc = [], 0
    for s in shape:
        out.append(acc)
        acc += s.bit_length() - 1
    return tuple(out)


# -- CuTe <-> linear ---------------------------------------------------------------------------------------------
def gf2_columns(x: Subject) -> tuple[tuple[int, ...], int] | str:
    """``(columns, constant)`` of a CuTe layout (or swizzled layout) that is affine over GF(2) on its index bits,
    or the reason it is not. The flat index's bit ``b`` contributes ``columns[b]``; size-1 modes contribute none.

    Pre: none. Post: for every ``i``, ``x(i) == const ^ XOR of columns[b] over set bits b of i`` when columns are
    returned (no carries: the plain layout's columns are pairwise bit-disjoint).

    >>> gf2_columns(Layout((4, 2), (2, 1)))
    ((2, 4, 1), 0)
    """
    cols: list[int] = []
    seen = 0
    for s, d in flat_modes(inner(x)):
        if s == 1:
            continue
        if s & (s - 1):
            return f"not linear: mode {s}:{d} of {x} has a size that is not a power of two"
        if d < 0:
            return f"not linear: mode {s}:{d} of {x} has a negative stride"
        for j in range(s.bit_length() - 1):
            c = d << j
            if c & seen:
                return f"not linear: mode {s}:{d} of {x} carries into bits used by other modes ({c} & {seen} != 0)"
            seen |= c
            cols.append(c)
    if not isinstance(x, ComposedLayout):
        return tuple(cols), 0
    if x.offset < 0 or x.offset & seen:
        return f"not linear: offset {x.offset} of {x} overlaps the layout's bits ({seen}), so + carries"
    sw = x.swizzle
    return tuple(sw(c) for c in cols), sw(x.offset)


def linear_from_cute(x: Subject, in_dims: Mapping[str, int], out_shape: Mapping[str, int]) -> LinearLayout:
    """The linear layout of a CuTe layout whose flat index splits into ``in_dims`` (first lowest) and whose offset
    is the colexicographic index of ``out_shape``.

    Pre: ``x`` GF(2)-linear with constant 0 (power-of-two modes, bit-disjoint strides, XOR swizzles allowed);
    ``prod(in_dims) == size(x)``; every offset below ``prod(out_shape)``.
    Post: ``R.apply(unflatten_in(i)) == unflatten_out(x(i))`` for every ``i``.

    >>> linear_from_cute(Layout((4, 8), (8, 1)), {"lane": 32}, {"dim0": 8, "dim1": 4}).bases
    {'lane': [[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]]}
    """
    got = gf2_columns(x)
    if isinstance(got, str):
        raise LayoutError(f"linear_from_cute: {got}")
    cols, const = got
    if const:
        raise LayoutError(f"linear_from_cute: {x} maps 0 to {const}, a linear layout maps 0 to 0")
    need = sum(_log2(s, f"linear_from_cute: size of input dimension {n!r}") for n, s in in_dims.items())
    if need != len(cols):
        raise LayoutError(f"linear_from_cute: the input dimensions {dict(in_dims)} have {1 << need} points, {x} has "
                          f"{1 << len(cols)}")
    shape = tuple(out_shape.values())
    shifts = _shifts(shape)
    total = sum(s.bit_length() - 1 for s in shape)
    bases, k = {}, 0
    for name, size in in_dims.items():
        bs = []
        for _ in range(size.bit_length() - 1):
            c = cols[k]
            if c >> total:
                raise LayoutError(f"linear_from_cute: {x} reaches offset {c}, outside the output shape "
                                  f"{dict(out_shape)}")
            bs.append(tuple((c >> sh) & (s - 1) for sh, s in zip(shifts, shape, strict=True)))
            k += 1
        bases[name] = tuple(bs)
    return LinearLayout(tuple(bases.items()), tuple(out_shape.items()))


def _disjoint(cols: Sequence[int]) -> bool:
    seen = 0
    for c in cols:
        if c & seen:
            return False
        seen |= c
    return True


def _plain_layout(ll: LinearLayout, cols: Sequence[int]) -> Layout:
    """One mode per input dimension, each a coalesced tuple of power-of-two modes (bits in order)."""
    modes_s: list[tuple[int, ...] | int] = []
    modes_d: list[tuple[int, ...] | int] = []
    k = 0
    for _, bs in ll.in_bases:
        shape, stride = [], []
        for c in cols[k:k + len(bs)]:
            if shape and (stride[-1] * shape[-1] == c if stride[-1] else c == 0):  # merges with the mode below
                shape[-1] *= 2
            else:
                shape.append(2)
                stride.append(c)
        k += len(bs)
        if not shape:
            shape, stride = [1], [0]
        modes_s.append(shape[0] if len(shape) == 1 else tuple(shape))
        modes_d.append(stride[0] if len(stride) == 1 else tuple(stride))
    if len(modes_s) == 1:
        return Layout(modes_s[0], modes_d[0])
    return Layout(tuple(modes_s), tuple(modes_d))


def to_cute(ll: LinearLayout, max_swizzle_bits: int = 16) -> Subject:
    """A CuTe layout with the same flat map (flat input -> colexicographic output), one mode per input dimension;
    ``Sw<B,M,S> o 0 o L`` when the columns are bit-disjoint only after an XOR swizzle.

    Pre: such a layout exists (else ``LayoutError`` naming why). Post: ``R(i) == L_flat(i)`` for every ``i``.

    >>> str(to_cute(LinearLayout.make({"register": [[1, 0]], "lane": [[0, 1], [2, 0]]}, {"dim0": 4, "dim1": 2})))
    '(2,(2,2)):(1,(4,2))'
    """
    cols = ll.columns()
    if _disjoint(cols):
        return _plain_layout(ll, cols)
    for b in range(1, 6):
        for s in (*range(b, max_swizzle_bits), *range(-b, -max_swizzle_bits, -1)):
            for m in range(0, max_swizzle_bits - abs(s) - b + 1):
                sw = Swizzle(b, m, s)
                pre = [sw(c) for c in cols]
                if _disjoint(pre):
                    out = ComposedLayout(sw, 0, _plain_layout(ll, pre))
                    assert (out.offsets() == ll.offsets()).all()  # a swizzle is GF(2)-linear: columns suffice
                    return out
    raise LayoutError(f"to_cute: no CuTe layout (plain or Sw<B,M,S>-swizzled) has the columns {list(cols)} of\n{ll}")


__all__ = ["LinearLayout", "gf2_columns", "linear_from_cute", "to_cute"]
