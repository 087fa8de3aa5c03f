"""The CuTe layout: a function from coordinates to offsets, given by a nested ``shape`` and ``stride``.

A layout ``(s0,s1,...):(d0,d1,...)`` maps the coordinate ``(c0,c1,...)`` (``0 <= ci < si``) to ``sum(ci*di)``. A flat
index ``i`` is first turned into a coordinate colexicographically (first mode fastest), so ``(4,2):(2,1)`` maps
``i = 0..7`` to ``0 2 4 6 1 3 5 7``. Modes may nest: ``(4,(2,2)):(1,(4,8))`` has rank 2, depth 2 and size 16.

``Layout`` is a frozen, hashable value. Two evaluations, both colexicographic:

* strict, ``L(i)`` / ``L(c)``: an index outside ``[0, size)`` or a coordinate outside its mode is a ``LayoutError``
  (a guard for users: reading past a layout is almost always a bug);
* extended, ``extended(L, i)``: what CuTe computes. The last leaf of each mode takes any remainder of the index
  (C++ ``idx2crd``), so the layout's last mode runs on: ``extended((3,(2,4)):(2,(1,6)), 100) == 99``. The algebra
  (composition, complement, the divides and products) uses this semantics wherever CuTe does -- e.g. a tile that
  does not divide the layout runs past its end -- and states it in each ``Post:``.

``Layout(shape, stride)`` is the one validating, canonicalising constructor (user-facing). The algebra derives its
results from layouts that are already valid and builds them with the unchecked ``_make`` / ``_concat``, so no
operation pays for re-validation (``tests/unit/test_algebra_cases.py`` checks both give the same values).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from math import gcd
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from layoutcheck.algebra.inttuple import (
    Coord,
    IntTuple,
    crd2idx,
    flatten,
    has_none,
    idx2crd,
    is_int,
    is_tuple,
    prefix_product,
    product,
    slice_,
)
from layoutcheck.algebra.inttuple import depth as tuple_depth
from layoutcheck.algebra.inttuple import rank as tuple_rank
from layoutcheck.display import render
from layoutcheck.errors import LayoutError, ShapeStrideMismatch


def format_inttuple(t: IntTuple) -> str:
    """CuTe notation of a nested tuple: ``(4,(2,2))``; an int prints bare."""
    if type(t) is tuple:  # is_tuple, inlined: every layout and claim printed runs through here
        return "(" + ",".join([format_inttuple(m) for m in t]) + ")"
    return str(t)


def _validate(s: Any, d: Any, shape: Any, stride: Any) -> None:
    """One pass: leaves are ints, shape leaves positive, shape and stride congruent. Messages built only on error."""
    if type(s) is tuple:
        if type(d) is not tuple or len(s) != len(d):
            raise ShapeStrideMismatch(f"shape {_show(shape)} and stride {_show(stride)} differ in rank or nesting")
        for a, b in zip(s, d, strict=True):
            _validate(a, b, shape, stride)
        return
    if type(d) is tuple:
        raise ShapeStrideMismatch(f"shape {_show(shape)} and stride {_show(stride)} differ in rank or nesting")
    if not is_int(s):
        raise LayoutError(f"shape {_show(shape)} must hold ints, found {s!r}")
    if not is_int(d):
        raise LayoutError(f"stride {_show(stride)} must hold ints, found {d!r}")
    if s <= 0:
        raise LayoutError(f"shape entries must be positive, found {s} in shape {_show(shape)}")


def _plain(t: Any) -> bool:
    """Only Python ints and tuples (nothing to normalise)."""
    if type(t) is tuple:
        return all(type(m) is int or _plain(m) for m in t)
    return type(t) is int


def _normalize(t: Any) -> IntTuple:
    """Lists become tuples; numpy ints become ints."""
    if type(t) is int:
        return t
    if isinstance(t, (tuple, list)):
        return tuple(_normalize(m) for m in t)
    np = sys.modules.get("numpy")  # NumPy ints exist only once NumPy is imported; the algebra does not import it
    if np is not None and isinstance(t, np.integer):
        return int(t)
    return t


def _plain_valid(s: Any, d: Any) -> bool:
    """True when ``s:d`` are congruent Python-int tuples with positive shape leaves (nothing to normalise or report).

    The fast check of user-facing construction; anything else takes the normalising, error-reporting path.
    (Indexing ``d`` is measurably faster than ``zip`` here, and this runs on every ``Layout(shape, stride)``.)
    """
    if type(s) is not tuple or type(d) is not tuple or len(s) != len(d):
        return type(s) is int and type(d) is int and s > 0
    for i in range(len(s)):
        a, b = s[i], d[i]
        if type(a) is int:
            if type(b) is not int or a <= 0:
                return False
        elif not _plain_valid(a, b):
            return False
    return True


@dataclass(frozen=True, slots=True, init=False)
class Layout:
    """``shape:stride``. Build with ``make_layout``; ``Layout(shape)`` gets the column-major (colex) stride."""

    shape: IntTuple
    stride: IntTuple = None  # type: ignore[assignment]

    def __init__(self, shape: IntTuple, stride: IntTuple = None) -> None:  # type: ignore[assignment]
        """Validate and canonicalise (lists -> tuples, NumPy ints -> ints, default colex stride) in one place."""
        if stride is None or not _plain_valid(shape, stride):
            shape, stride = _canonical(shape, stride)
        _SET_SHAPE(self, shape)
        _SET_STRIDE(self, stride)

    @staticmethod
    def _make(shape: IntTuple, stride: IntTuple) -> Layout:
        """Internal constructor for values the algebra derived from valid layouts (no re-validation)."""
        return _make(shape, stride)

    # -- notation -----------------------------------------------------------------------------------------------
    def __str__(self) -> str:
        return f"{format_inttuple(self.shape)}:{format_inttuple(self.stride)}"

    def __repr__(self) -> str:
        return f"Layout({self})"

    def _repr_svg_(self) -> str | None:
        """Jupyter: the grid ``layoutcheck show`` draws (``None``, so the text, above rank 2 or 4096 cells), from the
        renderer ``layoutcheck.notebook`` registers in ``layoutcheck.display``."""
        return render(self, "svg")

    # -- structure ----------------------------------------------------------------------------------------------
    def __len__(self) -> int:
        shape = self.shape
        return len(shape) if type(shape) is tuple else 1

    def __iter__(self) -> Iterator[Layout]:
        shape, stride = self.shape, self.stride
        if type(shape) is not tuple:
            return iter((self,))
        return map(_make, shape, stride)

    def __getitem__(self, i: int) -> Layout:
        """Mode ``i`` (CuTe's ``get<i>`` / ``layout<i>``)."""
        if type(self.shape) is not tuple:
            if i in (0, -1):
                return self
            raise LayoutError(f"mode {i} out of range for rank-1 layout {self}")
        try:
            return _make(self.shape[i], self.stride[i])
        except IndexError:
            raise LayoutError(f"mode {i} out of range for rank-{len(self)} layout {self}") from None

    # -- evaluation ---------------------------------------------------------------------------------------------
    def __call__(self, *args: Coord) -> Any:
        """``L(i)`` for a flat index, ``L(c0, c1)`` or ``L((c0, c1))`` for a coordinate; ``None`` slices a mode."""
        crd: Coord = args[0] if len(args) == 1 else tuple(args)
        if type(crd) is int:  # the hot path: a flat index, unfolded colexicographically over the leaves
            shape, stride = self.shape, self.stride
            if type(shape) is not tuple:
                if 0 <= crd < shape:
                    return crd * stride
            else:
                shape, stride = flatten(shape), flatten(stride)
                if 0 <= crd < product(shape):
                    off = 0
                    for s, d in zip(shape, stride):  # noqa: B905 -- congruent by construction
                        crd, c = divmod(crd, s)
                        off += c * d
                    return off
            _check_coord(crd, self.shape, self)  # raises: out of range
        if has_none(crd):
            return slice_and_offset(crd, self)[0]
        off = _crd_offset(crd, self.shape, self.stride)
        if off is None:
            _check_coord(crd, self.shape, self)  # raises, naming the bad part
        return off

    def offsets(self, dtype: Any = None, xp: Any = None) -> Any:
        """``L(i)`` for every ``i`` in ``[0, size)``, as one array (vectorised, no Python loop per element).

        ``dtype=None`` picks ``int32`` when every offset fits it, else ``int64`` (pass ``np.int64`` before arithmetic
        that may grow the values); ``xp`` is the array module (NumPy by default, or CuPy for the GPU-side oracle).
        """
        return evaluate(flatten(self.shape), flatten(self.stride), dtype, xp)

    def coords(self) -> Iterator[IntTuple]:
        for i in range(size(self)):
            yield idx2crd(i, self.shape)


_SET_SHAPE = Layout.shape.__set__  # the slots' own setters: frozen for users, writable by the constructors
_SET_STRIDE = Layout.stride.__set__
_new = object.__new__


def _make(shape: IntTuple, stride: IntTuple) -> Layout:
    """``Layout(shape, stride)`` without validation, for values derived from valid layouts (the algebra's results)."""
    obj = _new(Layout)
    _SET_SHAPE(obj, shape)
    _SET_STRIDE(obj, stride)
    return obj


def _concat(modes: Sequence[Layout]) -> Layout:
    """``make_layout(*modes)`` for layouts, unchecked: the layout whose i-th mode is ``modes[i]`` (rank ``len``)."""
    return _make(tuple([m.shape for m in modes]), tuple([m.stride for m in modes]))


def _canonical(shape: Any, stride: Any) -> tuple[IntTuple, IntTuple]:
    """The checked ``(shape, stride)`` of ``Layout(shape, stride)``; raises ``LayoutError`` naming the bad part."""
    if stride is None and type(shape) is int and shape > 0:  # ``Layout(n)`` is ``n:1``
        return shape, 1
    if type(shape) is int and type(stride) is int:  # a rank-1 int mode
        if shape <= 0:
            raise LayoutError(f"shape entries must be positive, found {shape}")
        return shape, stride
    if stride is None:
        shape = _normalize(shape)
        stride = prefix_product(shape) if _plain(shape) else shape
    elif not (_plain(shape) and _plain(stride)):
        shape, stride = _normalize(shape), _normalize(stride)
    _validate(shape, stride, shape, stride)
    return shape, stride


def _show(t: Any) -> str:
    try:
        return format_inttuple(t)
    except Exception:
        return repr(t)


def _check_coord(crd: Coord, shape: IntTuple, layout: Layout) -> None:
    if is_int(crd):
        n = product(shape)
        if not 0 <= crd < n:
            raise LayoutError(f"coordinate {crd} out of range [0,{n}) of mode {format_inttuple(shape)} in {layout}")
        return
    if not is_tuple(crd):
        raise LayoutError(f"coordinate {crd!r} is neither an int nor a tuple (layout {layout})")
    if not is_tuple(shape) or len(crd) != len(shape):
        raise LayoutError(
            f"coordinate {format_inttuple(crd)} does not match the rank of shape {format_inttuple(shape)} in {layout}"
        )
    for c, s in zip(crd, shape, strict=True):
        _check_coord(c, s, layout)


def _crd_offset(crd: Any, shape: IntTuple, stride: IntTuple) -> int | None:
    """``crd2idx`` of a checked coordinate in one pass; ``None`` if ``crd`` is not a valid coordinate of ``shape``."""
    if type(crd) is tuple:
        if type(shape) is not tuple or len(crd) != len(shape):
            return None
        off = 0
        for c, s, d in zip(crd, shape, stride):  # noqa: B905 -- lengths checked above
            if type(c) is int and type(s) is int:
                if not 0 <= c < s:
                    return None
                off += c * d
            else:
                o = _crd_offset(c, s, d)
                if o is None:
                    return None
                off += o
        return off
    if not is_int(crd) or not 0 <= crd < product(shape):
        return None
    return crd2idx(crd, shape, stride)


INT32_MAX = (1 << 31) - 1


def offset_bounds(shape: tuple[int, ...], stride: tuple[int, ...]) -> tuple[int, int]:
    """Exact ``(min, max)`` offset of the flat layout ``shape:stride``.

    >>> offset_bounds((4, 2), (2, -1))
    (-1, 6)
    """
    lo = hi = 0
    for s, d in zip(shape, stride):  # noqa: B905 -- congruent by construction
        if d > 0:
            hi += (s - 1) * d
        else:
            lo += (s - 1) * d
    return lo, hi


def offset_dtype(lo: int, hi: int) -> Any:
    """``int32`` when every value in ``[lo, hi]`` fits it, else ``int64`` (the dtype ``offsets()`` picks)."""
    import numpy as np  # NumPy loads on first evaluation, not with the algebra
    return np.int32 if lo >= -INT32_MAX - 1 and hi <= INT32_MAX else np.int64


def _merged_modes(shape: tuple[int, ...], stride: tuple[int, ...]) -> list[tuple[int, int]]:
    """The flat modes of size > 1, adjacent ones merged when contiguous (``d1 == s0 * d0``): the same function."""
    out: list[tuple[int, int]] = []
    for s, d in zip(shape, stride):  # noqa: B905 -- congruent by construction
        if s == 1:
            continue
        if out and d == out[-1][0] * out[-1][1]:
            out[-1] = (out[-1][0] * s, out[-1][1])
        else:
            out.append((s, d))
    return out


def extended(layout: Layout, *args: IntTuple) -> int:
    """CuTe's evaluation, unbounded past the domain: ``L(i)`` where each mode's last leaf takes any remainder.

    Pre: the index (or every coordinate entry) is a non-negative int; a tuple coordinate matches the shape's
    profile down to the depth it is given at.
    Post: equals ``L(*args)`` inside the domain; outside it, the value C++ ``layout(i)`` (``crd2idx``) returns.

    >>> extended(Layout((3,(2,4)),(2,(1,6))), 100)
    99
    """
    crd: IntTuple = args[0] if len(args) == 1 else tuple(args)
    _check_extended_coord(crd, layout.shape, layout)
    return crd2idx(crd, layout.shape, layout.stride)


def _check_extended_coord(crd: Any, shape: IntTuple, layout: Layout) -> None:
    if is_int(crd):
        if crd < 0:
            raise LayoutError(f"coordinate {crd} is negative (layout {layout})")
        return
    if not is_tuple(crd) or not is_tuple(shape) or len(crd) != len(shape):
        raise LayoutError(
            f"coordinate {crd!r} does not match the profile of shape {format_inttuple(shape)} in {layout}"
        )
    for c, s in zip(crd, shape, strict=True):
        _check_extended_coord(c, s, layout)


def extended_offsets(layout: Layout, n: int) -> np.ndarray:
    """``extended(L, i)`` for every ``i`` in ``[0, n)``, vectorised (``n`` may exceed ``size(L)``).

    >>> extended_offsets(Layout((2,2),(1,4)), 6).tolist()
    [0, 1, 4, 5, 8, 9]
    """
    import numpy as np  # NumPy loads on first evaluation, not with the algebra

    shape, stride = flatten(layout.shape), flatten(layout.stride)
    idx = np.arange(n, dtype=np.int64)
    out = np.zeros(n, dtype=np.int64)
    for s, d in zip(shape[:-1], stride[:-1], strict=True):  # the last leaf alone takes the remainder
        out += (idx % s) * d
        idx //= s
    return out + idx * stride[-1]


def _fill(out: Any, modes: Sequence[tuple[int, int]], dtype: Any, xp: Any) -> Any:
    """Write the offsets of the flat layout ``modes`` (fastest first) into ``out`` (``len(out) == size``).

    Mode 0 is one ``arange``; mode ``k`` then copies the ``m`` offsets built so far ``s_k - 1`` times, each shifted
    by ``j * d_k``: every element is written once, in order, into the one buffer. A short run copied very often (a
    small fast mode under a huge slow one) is first widened by a factor of the slow mode, so no step is a long loop
    over a few elements.
    """
    if not modes:
        out[:] = 0
        return out
    s0, d0 = modes[0]
    if d0:
        out[:s0] = xp.arange(0, s0 * d0, d0, dtype=dtype)
    else:
        out[:s0] = 0
    m = s0
    pending = list(modes[1:])
    while pending:
        s, d = pending.pop(0)
        if m < 256 and m * s > 1 << 16:  # a short run copied very often: widen it first, (a*b):d == (a,b):(d,a*d)
            f = next((f for f in range(min(s - 1, 4096 // m), 1, -1) if s % f == 0), 1)
            if f > 1:
                pending.insert(0, (s // f, d * f))
                s = f
        step = xp.arange(d, s * d, d, dtype=dtype) if d else xp.zeros(s - 1, dtype=dtype)
        xp.add(out[None, :m], step[:, None], out=out[m:m * s].reshape(s - 1, m))
        m *= s
    return out


def evaluate(shape: tuple[int, ...], stride: tuple[int, ...], dtype: Any = None, xp: Any = None) -> Any:
    """Offsets of the flat layout ``shape:stride`` over its whole domain, colexicographically.

    Each element is written once: a large layout as the outer sum of a cache-sized row (its fastest modes) and the
    rows' starts (NumPy: a few threads, each a block of rows), a small one fastest mode first into one buffer.
    ``dtype=None`` picks ``int32`` when every offset fits, else ``int64``. ``xp`` is the array module (NumPy, or
    CuPy to build it on the GPU).

    >>> evaluate((4, 2), (2, 1)).tolist()
    [0, 2, 4, 6, 1, 3, 5, 7]
    """
    if dtype is None:
        dtype = offset_dtype(*offset_bounds(shape, stride))
    if xp is None:
        import numpy as xp  # NumPy loads on first evaluation, not with the algebra
    modes = _merged_modes(shape, stride)
    n = product(shape)
    if n > _ROW << 2:  # large: one outer sum of a cache-sized row and the rows' starts, each element written once
        inner, outer = _split_rows(modes, _ROW)
        base = _fill(xp.empty(product(tuple(s for s, _ in inner)), dtype=dtype), inner, dtype, xp)
        if len(base) * 16 >= _ROW:  # a row worth streaming (else the modes do not split well: fill them in turn)
            starts = _fill(xp.empty(n // len(base), dtype=dtype), outer, dtype, xp)
            out = xp.empty(n, dtype=dtype)
            _outer_sum(starts, base, out.reshape(len(starts), len(base)), xp)
            return out
    if len(modes) == 1 and modes[0][1]:  # one strided run: arange writes it in place
        s0, d0 = modes[0]
        return xp.arange(0, s0 * d0, d0, dtype=dtype)
    return _fill(xp.empty(n, dtype=dtype), modes, dtype, xp)


def _outer_sum(starts: Any, base: Any, out: Any, xp: Any) -> None:
    """``out[r, :] = starts[r] + base`` for every row; a large NumPy result is written by a few threads at once, each
    a contiguous block of rows (the ufunc releases the GIL; plain threads, started per call, so a process forked
    later inherits no pool)."""
    import os
    import threading

    parts = 1
    if out.size >= _THREADED and xp.__name__ == "numpy":
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        parts = max(1, min(_THREADS, cores, len(starts)))
    if parts == 1:
        xp.add(starts[:, None], base[None, :], out=out)
        return
    cut = [len(starts) * i // parts for i in range(parts + 1)]
    threads = [threading.Thread(target=xp.add, args=(starts[a:b, None], base[None, :]), kwargs={"out": out[a:b]})
               for a, b in pairwise(cut[1:])]
    for t in threads:
        t.start()
    xp.add(starts[:cut[1], None], base[None, :], out=out[:cut[1]])
    for t in threads:
        t.join()


_THREADED = 1 << 21
"""Elements from which ``offsets()`` writes its result with several threads (below, starting them costs more)."""
_THREADS = 4
"""At most this many threads write one result (the memory's bandwidth, not the cores, bounds it beyond)."""
_ROW = 1 << 14
"""Elements of the row ``evaluate`` adds to every row start for a large layout: small enough to stay in the L1/L2
cache while the result streams to memory (a NumPy ``arange`` or a fill pass over a large array reads back what it
wrote; the outer sum only writes)."""


def evaluate_chunks(shape: tuple[int, ...], stride: tuple[int, ...], chunk: int = 1 << 16, dtype: Any = None,
                    align: int = 1) -> Iterator[tuple[int, np.ndarray]]:
    """``(start, offsets[start:start + len])`` pieces of ``evaluate(shape, stride)``, in index order, of about
    ``chunk`` elements each, so a caller scans the domain in ``O(chunk)`` memory.

    Pre: ``chunk >= 1``; ``align`` divides ``size``. Post: the pieces concatenated equal ``evaluate(shape, stride,
    dtype)``; every ``start`` and length is a multiple of ``align``. Each piece is a view of one reused buffer: it
    is valid until the next one is drawn.

    >>> [(i, a.tolist()[:3]) for i, a in evaluate_chunks((16, 4), (4, 1), chunk=16)]
    [(0, [0, 4, 8]), (16, [1, 5, 9]), (32, [2, 6, 10]), (48, [3, 7, 11])]
    >>> [(i, a.tolist()) for i, a in evaluate_chunks((4, 2), (2, 1), chunk=4)]  # small: one piece
    [(0, [0, 2, 4, 6, 1, 3, 5, 7])]
    """
    import numpy as np  # NumPy loads on first evaluation, not with the algebra

    if dtype is None:
        dtype = offset_dtype(*offset_bounds(shape, stride))
    modes = _merged_modes(shape, stride)
    n = product(shape)
    inner, outer = _split_rows(modes, chunk)
    p = product(tuple(s for s, _ in inner))
    q = align // gcd(p, align)  # rows per piece must be a multiple of q for pieces to be multiples of align
    k = max(q, chunk // p // q * q)
    if n <= 2 * chunk or p < 16 or k * p > 16 * chunk:  # small, or no row structure worth streaming: one piece
        yield 0, _fill(np.empty(n, dtype=dtype), modes, dtype, np)
        return
    rows_n = n // p
    base = _fill(np.empty(p, dtype=dtype), inner, dtype, np)
    rows = _fill(np.empty(rows_n, dtype=dtype), outer, dtype, np)
    buf = np.empty((k, p), dtype=dtype)
    for r in range(0, rows_n, k):
        part = buf[:min(k, rows_n - r)]
        np.add(rows[r:r + k, None], base[None, :], out=part)
        yield r * p, part.reshape(-1)


def _split_rows(modes: list[tuple[int, int]], chunk: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Split ``modes`` into a fastest part of at most ``chunk`` elements (a row) and the rest (one offset per row);
    a mode too large for the row is cut at its largest factor that fits (``(a*b):d == (a,b):(d,a*d)``)."""
    p, i = 1, 0
    while i < len(modes) and p * modes[i][0] <= chunk:
        p *= modes[i][0]
        i += 1
    inner, outer = list(modes[:i]), list(modes[i:])
    if outer and p * 2 <= chunk:  # the next mode is too large for the row: take its largest factor that fits
        s, d = outer[0]
        f = next((f for f in range(chunk // p, 1, -1) if s % f == 0), 1)
        if f > 1:
            inner.append((f, d))
            outer[0] = (s // f, d * f)
    return inner, outer


# -- construction and queries (CuTe free functions) -----------------------------------------------------------
def make_layout(*args: Any, stride: IntTuple | None = None) -> Layout:
    """``make_layout(shape)``, ``make_layout(shape, stride)`` or ``make_layout(L0, L1, ...)`` (concatenate modes).

    >>> str(make_layout((4, 2)))
    '(4,2):(1,4)'
    >>> str(make_layout(Layout(4, 2), Layout(3, 8)))
    '(4,3):(2,8)'
    """
    if len(args) == 1 and not isinstance(args[0], (Layout, int, tuple, list)) and isinstance(args[0], Iterable):
        args = tuple(args[0])
    if args and all(isinstance(a, Layout) for a in args):
        if stride is not None:
            raise LayoutError("make_layout(layouts...) takes no stride")
        if len(args) == 1:
            return Layout._make((args[0].shape,), (args[0].stride,))
        return Layout._make(tuple(a.shape for a in args), tuple(a.stride for a in args))
    if len(args) == 0:
        return Layout((), ())
    if len(args) == 2 and stride is None:
        return Layout(args[0], args[1])
    if len(args) == 1:
        return Layout(args[0], stride)
    raise LayoutError("make_layout takes (shape), (shape, stride) or layouts")


def as_layout(x: Layout | int | tuple) -> Layout:
    """An int ``n`` is the layout ``n:1``; a tuple is a shape with the default stride."""
    if isinstance(x, Layout):
        return x
    if is_int(x) or is_tuple(x):
        return Layout(x)
    raise LayoutError(f"expected a layout or a shape, found {x!r}")


def _domain(x: Any) -> Any:
    """The layout whose domain ``x`` has: a composed layout ``Sw o offset o L`` (``layoutcheck.algebra.swizzle``) has
    ``L``'s, as CuTe defines ``shape``/``size``/``rank``/``depth``/``cosize`` of a ``ComposedLayout<A,O,B>`` by its
    ``layout_b()`` (``cute/layout_composed.hpp``); anything else is itself."""
    if isinstance(x, Layout):
        return x
    inner = getattr(x, "layout", None)
    return inner if isinstance(inner, Layout) and hasattr(x, "swizzle") else x


def size(x: Layout | IntTuple, mode: int | None = None) -> int:
    """The number of points of the domain of ``x`` (a layout, a composed layout or a shape), or of its mode ``mode``.

    >>> size(Layout((8, 64), (64, 1))), size((2, (3, 4)), 1)
    (512, 12)
    """
    x = _domain(x)
    shape = x.shape if isinstance(x, Layout) else x
    if mode is not None:
        r = len(shape) if is_tuple(shape) else 1
        if not is_int(mode) or not -r <= mode < r:
            raise LayoutError(f"size: mode {mode!r} out of range for rank {r}")
        shape = shape[mode] if is_tuple(shape) else shape
    return product(shape)


def cosize(layout: Layout) -> int:
    """One past the largest offset (``sum((s-1)*|d|) + 1``): the smallest codomain ``[0, n)`` holding the image
    when all strides are non-negative. A composed layout's is its inner layout's, as CuTe defines it (the swizzle
    and offset are not counted: ``cute/layout_composed.hpp``)."""
    layout = _domain(layout)
    n = 1
    for s, d in _leaf_modes(layout):
        n += (s - 1) * abs(d)
    return n


def rank(x: Layout | IntTuple) -> int:
    x = _domain(x)
    return tuple_rank(x.shape if isinstance(x, Layout) else x)


def depth(x: Layout | IntTuple) -> int:
    x = _domain(x)
    return tuple_depth(x.shape if isinstance(x, Layout) else x)


def shape(x: Layout) -> IntTuple:
    return _domain(x).shape


def stride(x: Layout) -> IntTuple:
    return x.stride


def slice_and_offset(crd: Coord, layout: Layout) -> tuple[Layout, int]:
    """CuTe's ``slice_and_offset``: the layout of the ``None`` modes and the offset of the fixed ones."""
    from layoutcheck.algebra.inttuple import replace_none

    if is_tuple(crd) and (not is_tuple(layout.shape) or len(crd) != len(layout.shape)):
        raise LayoutError(f"coordinate rank {len(crd)} does not match layout {layout}")
    _check_coord(replace_none(crd), layout.shape, layout)
    shp, strd = slice_(crd, layout.shape), slice_(crd, layout.stride)
    if len(shp) == 1:
        shp, strd = shp[0], strd[0]
    return Layout(shp, strd), crd2idx(replace_none(crd), layout.shape, layout.stride)


def flat_modes(layout: Layout) -> list[tuple[int, int]]:
    """``(shape, stride)`` of every leaf mode, in order."""
    return _leaf_modes(layout)


def _leaf_modes(layout: Layout) -> list[tuple[int, int]]:
    """``(shape, stride)`` of every leaf mode, in order (the algebra's hot path: one walk over both tuples)."""
    shape = layout.shape
    if type(shape) is not tuple:
        return [(shape, layout.stride)]
    out: list[tuple[int, int]] = []
    _walk_leaves(shape, layout.stride, out)
    return out


def _walk_leaves(shape: tuple, stride: tuple, out: list[tuple[int, int]]) -> None:
    # shape and stride are congruent by construction; ``strict=`` would cost ~0.3 us a call (keyword parsing)
    for s, d in zip(shape, stride):  # noqa: B905
        if type(s) is tuple:
            _walk_leaves(s, d, out)
        else:
            out.append((s, d))


def append(layout: Layout, mode: Layout | None = None, n: int | None = None) -> Layout:
    """CuTe's ``append<N>``: pad ``layout`` with ``mode`` (default ``1:0``) up to rank ``n`` (default rank+1)."""
    mode = mode or Layout(1, 0)
    modes = list(layout) if is_tuple(layout.shape) else [layout]
    target = n if n is not None else len(modes) + 1
    while len(modes) < target:
        modes.append(mode)
    return make_layout(*modes)
