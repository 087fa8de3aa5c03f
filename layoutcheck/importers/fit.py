"""Tables -> layouts: the CuTe layout (plain or ``Sw<B,M,S>``-swizzled), else the linear layout, that has a given
table of offsets -- how an importer turns a map it can only evaluate (TileLang's index expressions) into a value the
engines prove.

Definitions. A *table* ``offs`` lists ``f(x)`` for every point ``x`` of a domain of named input dimensions
``ins = [(name, extent), ...]``, read colexicographically (the first dimension fastest, as CuTe's flat index). The
result ``R`` has ``R(i) == offs[i]`` for every ``i`` (each candidate is checked at every point), with one mode per
input dimension:

- power-of-two extents and a GF(2)-linear table (``offs[i]`` the XOR of the columns ``offs[2**b]`` of the set bits
  ``b`` of ``i``): its ``LinearLayout`` (``outs`` names the output), turned into a CuTe layout by
  ``linear_layout.to_cute`` where one exists (bit-disjoint columns, possibly after an XOR swizzle), else kept;
- otherwise a per-mode *affine* fit: mode ``d`` of extent ``n`` is split greedily into the fewest sub-modes
  ``(n1, n2, ...)`` (each dividing what is left) on which ``f`` is linear, e.g. ``f(i) = (i // 2) * 8`` over 8 is
  ``(2,4):(0,8)``; and, when that fails, the same fit of ``Sw(offs)`` for each swizzle ``Sw<B,M,S>`` (an involution,
  so ``Sw o L`` has the table when ``L`` has ``Sw(offs)``), smallest ``B``, then ``S``, then ``M``.

Worked example: the table ``0 3 1 4 2 5`` over ``a:2, b:3`` is not a power of two; the affine fit gives
``(2,3):(3,1)``. Edge cases: ``offs[0] != 0`` has no CuTe layout without an offset (``LayoutError``); a size-1
dimension is a size-1 mode; a map neither CuTe nor linear is a ``LayoutError`` naming the domain.
"""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.linear_layout import LinearLayout, to_cute
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.errors import LayoutError


def _pow2(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


def linear_from_table(offs: np.ndarray, ins: list[tuple[str, int]], outs: list[tuple[str, int]]) -> LinearLayout | None:
    """The linear layout with this table (flat input: first dimension lowest; flat output colexicographic), or
    ``None`` when the table is not GF(2)-linear (or a size is not a power of two)."""
    if prod(n for _, n in ins) != offs.size:
        raise LayoutError(f"a table of {offs.size} offsets for input dimensions {dict(ins)}")
    if not all(_pow2(n) for _, n in ins + outs) or offs[0] != 0 or offs.min() < 0:
        return None
    if int(offs.max()) >= prod(n for _, n in outs):
        return None  # beyond the output: its coordinates would wrap
    bits = offs.size.bit_length() - 1
    cols = [int(offs[1 << b]) for b in range(bits)]
    xor = np.zeros(offs.size, dtype=np.int64)
    idx = np.arange(offs.size)
    for b, c in enumerate(cols):
        xor ^= np.where(idx >> b & 1, c, 0)
    if not np.array_equal(xor, offs):
        return None
    bases, k = {}, 0
    for name, n in ins:
        bs = []
        for _ in range(n.bit_length() - 1):
            c, coord = cols[k], []
            for _, m in outs:
                coord.append(c % m)
                c //= m
            bs.append(coord)
            k += 1
        bases[name] = bs
    return LinearLayout.make(bases, dict(outs))


def _affine(offs: np.ndarray, modes: tuple[int, ...]) -> Layout | None:
    """The plain CuTe layout over ``modes`` (each split into the fewest sub-modes) with this table, or ``None``."""
    if offs[0] != 0:
        return None
    shape: list[Any] = []
    stride: list[Any] = []
    step = 1
    for n in modes:
        g = offs[np.arange(n) * step]
        sub_s, sub_d, done = [], [], 1
        while done < n:
            d = int(g[done])
            for k in sorted((k for k in range(2, n // done + 1) if (n // done) % k == 0), reverse=True):
                c = np.arange(done * k)
                model = np.zeros(c.size, dtype=np.int64)
                rest = c
                for s_, d_ in zip([*sub_s, k], [*sub_d, d], strict=True):
                    model += (rest % s_) * d_
                    rest = rest // s_
                if np.array_equal(model, g[:done * k]):
                    sub_s.append(k)
                    sub_d.append(d)
                    done *= k
                    break
            else:
                return None
        shape.append(n if len(sub_s) <= 1 else tuple(sub_s))
        stride.append((sub_d[0] if sub_d else 0) if len(sub_s) <= 1 else tuple(sub_d))
        step *= n
    lay = Layout(shape[0], stride[0]) if len(shape) == 1 else Layout(tuple(shape), tuple(stride))
    return lay if np.array_equal(lay.offsets(), offs) else None


def _swizzled_affine(offs: np.ndarray, modes: tuple[int, ...]) -> ComposedLayout | None:
    """``Sw<B,M,S> o 0 o L`` with ``L`` plain and this table (a swizzle is an involution, so ``L = Sw(table)``), for
    domains that are not powers of two (e.g. 48 rows of a 128-byte swizzle); smallest ``B``, then ``S``, then ``M``."""
    top = max(int(offs.max()), 1).bit_length()
    for b in range(1, 6):
        for s in range(b, top):
            for m in range(0, top - s - b + 1):
                sw = Swizzle(b, m, s)
                lay = _affine(sw(offs), modes)
                if lay is not None:
                    return ComposedLayout(sw, 0, lay)
    return None


def fit(offs: np.ndarray, ins: list[tuple[str, int]], outs: list[tuple[str, int]]) -> Any:
    """A CuTe layout (plain or ``Sw<B,M,S>``-swizzled, one mode per input dimension) with exactly this table, else a
    ``LinearLayout``, else ``LayoutError``. Power-of-two domains go through the GF(2) columns (``to_cute``), others
    through a per-mode affine fit, under a searched swizzle when the plain fit fails.

    >>> str(fit(np.array([0, 3, 1, 4, 2, 5]), [("a", 2), ("b", 3)], [("offset", 6)]))
    '(2,3):(3,1)'
    """
    ll = linear_from_table(offs, ins, outs)
    if ll is not None:
        try:
            got = to_cute(ll)
        except LayoutError:
            return ll
        if isinstance(got, Layout) and len(ins) == 1 and isinstance(got.shape, tuple) and len(got.shape) == 1:
            got = Layout(got.shape[0], got.stride[0])
        return got
    modes = tuple(n for _, n in ins)
    lay = _affine(offs, modes)
    if lay is None:
        lay = _swizzled_affine(offs, modes)
    if lay is None:
        raise LayoutError(f"no CuTe layout (plain or Sw<B,M,S>-swizzled) and no linear layout has this map over "
                          f"{dict(ins)}; offsets begin {offs[:8].tolist()}")
    return lay


__all__ = ["fit", "linear_from_table"]
