"""CuTe's ``Swizzle<B,M,S>`` and the composed (swizzled) layout ``Sw o offset o L``.

``Swizzle<B,M,S>`` XORs ``B`` bits of an offset into ``B`` lower bits::

    mask_hi = ((1<<B)-1) << (M + max(0,S))      # the "yyy" bits read
    f(x)    = x ^ ((x & mask_hi) >> S)           # S > 0: shift right; S < 0: shift left

Pre: ``B >= 0``, ``M >= 0``, ``|S| >= B`` (the read and written bit ranges do not overlap), so ``f`` is an
involution (``f(f(x)) == x``) and a bijection on every aligned block of ``2**(M+B+max(0,S))``.
Worked example, ``Sw<3,4,3>`` on byte offsets (the 128-byte TMA/GMMA swizzle): byte 144 = 0b00_1001_0000 is row 1,
16-byte chunk 1; row bit 7 flips chunk bit 4, so ``f(144) == 128`` (row 1's chunk 1 is stored in chunk 0).

``ComposedLayout(swizzle, offset, layout)`` evaluates ``swizzle(offset + layout(c))`` and prints as CuTe prints it:
``Sw<3,4,3> o 0 o (8,64):(64,1)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from layoutcheck.algebra.inttuple import flatten
from layoutcheck.algebra.layout import Layout, evaluate, offset_bounds, offset_dtype, size
from layoutcheck.display import render
from layoutcheck.errors import LayoutError


@dataclass(frozen=True, slots=True)
class Swizzle:
    """``Swizzle<B,M,S>``: ``x ^ ((x & yyy_msk) >> S)``; callable on ints, NumPy arrays and expression trees.

    ``__call__`` is the one definition of the formula: on a ``layoutcheck.expr.ir`` tree its operators build the
    tree (``layoutcheck.expr.lower.swizzle_ast``), which the Z3, SymPy, NumPy and C interpreters then read.
    """

    bits: int
    base: int
    shift: int

    def __post_init__(self) -> None:
        b, m, s = self.bits, self.base, self.shift
        if not all(isinstance(v, int) for v in (b, m, s)):
            raise LayoutError(f"Swizzle<B,M,S> takes ints, found <{b},{m},{s}>")
        if b < 0 or m < 0:
            raise LayoutError(f"Swizzle<{b},{m},{s}>: B and M must be >= 0")
        if abs(s) < b:
            raise LayoutError(f"Swizzle<{b},{m},{s}>: |S| must be >= B or the XOR overlaps its own source bits")

    @property
    def yyy_mask(self) -> int:
        return ((1 << self.bits) - 1) << (self.base + max(0, self.shift))

    @property
    def zzz_mask(self) -> int:
        return ((1 << self.bits) - 1) << (self.base - min(0, self.shift))

    @property
    def period(self) -> int:
        """The pattern repeats every ``period = 2**(B+M+|S|)``: ``f(x + period) == f(x) + period``."""
        return 1 << (self.bits + self.base + abs(self.shift))

    def __call__(self, x: Any) -> Any:
        hi = x & self.yyy_mask
        moved = hi >> self.shift if self.shift >= 0 else hi << -self.shift
        return x ^ moved

    def apply_inplace(self, x: np.ndarray, scratch: np.ndarray | None = None) -> np.ndarray:
        """``self(x)`` written over ``x`` (an integer array), using ``scratch`` (same shape) or one temporary.

        Pre: ``x``'s dtype holds ``yyy_mask`` and ``zzz_mask``. Post: returns ``x``, now ``f(x_old)``.
        """
        import numpy as np  # NumPy loads on first evaluation, not with the algebra

        if self.bits == 0:
            return x
        tmp = np.bitwise_and(x, x.dtype.type(self.yyy_mask), out=scratch)
        if self.shift >= 0:
            np.right_shift(tmp, self.shift, out=tmp)
        else:
            np.left_shift(tmp, -self.shift, out=tmp)
        np.bitwise_xor(x, tmp, out=x)
        return x

    def is_identity(self) -> bool:
        return self.bits == 0

    def __str__(self) -> str:
        return f"Sw<{self.bits},{self.base},{self.shift}>"

    def __repr__(self) -> str:
        return f"Swizzle({self.bits},{self.base},{self.shift})"


def recast_swizzle(sw: Swizzle, old_bits: int, new_bits: int) -> Swizzle:
    """``sw`` on offsets in ``old_bits``-wide units, read on ``new_bits``-wide units (CuTe's ``upcast`` / ``downcast``
    of a swizzle by the width ratio): ``Swizzle<B, M + log2(old_bits) - log2(new_bits), S>``.

    Pre: both widths are powers of two; the new ``M >= 0`` (``LayoutError`` otherwise).
    Post: ``sw(x // old_bits) * old_bits == result(x // new_bits) * new_bits`` for every bit offset ``x`` that is a
    multiple of both widths.

    >>> str(recast_swizzle(Swizzle(3, 4, 3), 8, 16)), str(recast_swizzle(Swizzle(3, 3, 3), 16, 8))
    ('Sw<3,3,3>', 'Sw<3,4,3>')
    """
    return Swizzle(sw.bits, sw.base + old_bits.bit_length() - new_bits.bit_length(), sw.shift)


@dataclass(frozen=True, slots=True)
class ComposedLayout:
    """``swizzle o offset o layout``: ``c -> swizzle(offset + layout(c))``."""

    swizzle: Swizzle
    offset: int
    layout: Layout

    def __post_init__(self) -> None:
        if not isinstance(self.swizzle, Swizzle):
            raise LayoutError(f"a composed layout needs a Swizzle, found {self.swizzle!r}")
        if not isinstance(self.offset, int) or isinstance(self.offset, bool) or self.offset < 0:
            raise LayoutError(f"a composed layout's offset must be a non-negative int, found {self.offset!r}")
        if not isinstance(self.layout, Layout):
            raise LayoutError(f"a swizzle composes with a Layout, found {self.layout!r}")

    @property
    def shape(self) -> Any:
        return self.layout.shape

    def __call__(self, *args: Any) -> Any:
        return self.swizzle(self.offset + self.layout(*args))

    def offsets(self, dtype: Any = None) -> np.ndarray:
        """``self(i)`` for every ``i``, as one array; ``dtype=None`` picks ``int32`` when every value fits."""
        lay = self.layout
        flat = flatten(lay.shape), flatten(lay.stride)
        if dtype is None:
            dtype = offset_dtype(*self.bounds())
        out = evaluate(*flat, dtype)
        if self.offset:
            out += dtype(self.offset)
        return self.swizzle.apply_inplace(out)

    def bounds(self) -> tuple[int, int]:
        """A ``(lo, hi)`` holding every value, and every intermediate of ``offsets()``: the swizzle only rewrites the
        zzz bits (``y & ~zzz <= f(y) <= y | zzz``) and reads the yyy bits."""
        lo, hi = offset_bounds(flatten(self.layout.shape), flatten(self.layout.stride))
        sw = self.swizzle
        pad = sw.zzz_mask | sw.yyy_mask
        return lo + self.offset - pad, hi + self.offset + pad

    def __len__(self) -> int:
        return len(self.layout)

    def __str__(self) -> str:
        return f"{self.swizzle} o {self.offset} o {self.layout}"

    def __repr__(self) -> str:
        return f"ComposedLayout({self})"

    def _repr_svg_(self) -> str | None:
        """Jupyter: the grid ``layoutcheck show`` draws (see ``Layout._repr_svg_``)."""
        return render(self, "svg")


Subject = Layout | ComposedLayout
"""What a layout property speaks about: a plain layout, or a swizzled (composed) one."""


def inner(x: Subject) -> Layout:
    """The plain layout of ``x`` (the layout under the swizzle of a composed layout)."""
    return x.layout if isinstance(x, ComposedLayout) else x


SHARED_OFFSETS_MAX = 1 << 16
"""The largest subject whose offsets ``shared_offsets`` keeps (a tile of shared memory; 512 KiB as int64)."""


def shared_offsets(x: Subject, dtype: Any = None) -> np.ndarray:
    """``x.offsets(dtype)`` as a read-only array, computed once per (subject, dtype) for subjects of at most
    ``SHARED_OFFSETS_MAX`` points: a config's claims and the models behind them read the same layout's offsets many
    times. Larger subjects are evaluated on every call (still read-only).

    Pre: ``x`` a ``Layout`` or ``ComposedLayout``. Post: ``shared_offsets(x, d)[i] == x(i)`` for ``0 <= i < size``.

    >>> shared_offsets(Layout((2, 2), (2, 1))).tolist()
    [0, 2, 1, 3]
    """
    if composed_size(x) > SHARED_OFFSETS_MAX:
        out = x.offsets(dtype)
        out.setflags(write=False)
        return out
    return _shared_offsets(x, dtype)


@lru_cache(maxsize=32, typed=True)  # at most 16 MiB kept
def _shared_offsets(x: Subject, dtype: Any) -> np.ndarray:
    out = x.offsets(dtype)
    out.setflags(write=False)
    return out


def composed_size(x: Layout | ComposedLayout) -> int:
    return size(x.layout if isinstance(x, ComposedLayout) else x)


def make_composed_layout(swizzle: Swizzle, layout: Layout, offset: int = 0) -> ComposedLayout:
    """``swizzle o offset o layout`` (CuTe's ``make_composed_layout``), arguments checked."""
    return ComposedLayout(swizzle, offset, layout)
