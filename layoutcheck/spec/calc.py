"""The function table of ``layoutcheck calc`` and of layout expressions in spec files.

An expression such as ``logical_divide(128:128, (16,4):(4,1))`` is evaluated by ``notation.evaluate_expression``
against this table: the public algebra functions of ``layoutcheck`` by their CuTe names, plus ``shape``, ``stride``,
``get`` (a mode by index path), ``layout`` (the constructor) and ``make_composed_layout(Sw<B,M,S>, layout[, offset])``.

Functions whose first argument is a layout read an int ``n`` as the layout ``n:1`` and a shape as its column-major
layout, as CuTe does; they take plain layouts only (the algebra acts on the layout, a swizzle is composed afterwards).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from layoutcheck.algebra.inttuple import is_int
from layoutcheck.algebra.layout import Layout, as_layout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.errors import LayoutError

CALC_FUNCTIONS = (
    "make_layout", "size", "cosize", "rank", "depth", "coalesce", "filter", "filter_zeros", "composition",
    "complement", "right_inverse", "left_inverse", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
    "logical_product", "zipped_product", "tiled_product", "flat_product", "blocked_product", "raked_product",
    "make_layout_tv", "upcast", "downcast", "max_common_vector", "max_common_layout", "tile_to_shape",
    "make_ordered_layout", "make_composed_layout",
)


_LAYOUT_FIRST = ("coalesce", "filter", "filter_zeros", "composition", "right_inverse", "left_inverse", "logical_divide",
                 "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "zipped_product", "tiled_product",
                 "flat_product", "blocked_product", "raked_product", "upcast", "downcast", "max_common_vector",
                 "max_common_layout", "tile_to_shape")


def _layout_first(fn: Any) -> Any:
    def call(first: Any = None, *rest: Any) -> Any:
        if first is None:
            raise TypeError(f"{fn.__name__}() needs a layout as its first argument")
        if any(isinstance(a, ComposedLayout) for a in (first, *rest)):
            raise LayoutError(f"{fn.__name__} takes plain layouts, found a swizzled layout (the algebra acts on the "
                              f"layout; compose the swizzle afterwards with make_composed_layout)")
        if fn.__name__ in ("max_common_vector", "max_common_layout", "blocked_product", "raked_product"):
            rest = tuple(r if isinstance(r, Layout) else as_layout(r) for r in rest)
        return fn(first if isinstance(first, Layout) else as_layout(first), *rest)

    call.__name__ = fn.__name__
    return call


def calc_functions() -> dict[str, Any]:
    """The function table of ``layoutcheck calc``: the public algebra functions, plus ``shape``/``stride``/``get``.

    Post: every name of ``CALC_FUNCTIONS`` and ``shape``, ``stride``, ``get``, ``layout`` maps to a callable (a fresh
    dict over one table built on first use: a spec evaluates one expression per layout value).

    >>> calc_functions()["coalesce"](Layout((2, 4), (1, 2)))
    Layout(8:1)
    """
    return dict(_table())


@cache
def _table() -> dict[str, Any]:
    from layoutcheck.algebra import layout, notation, ops, swizzle, tiling, tv

    modules = (layout, ops, tiling, swizzle, tv, notation)
    table: dict[str, Any] = {name: next(getattr(m, name) for m in modules if hasattr(m, name))
                             for name in CALC_FUNCTIONS}
    for name in _LAYOUT_FIRST:  # CuTe reads an int n as the layout n:1 and a shape as its column-major layout
        table[name] = _layout_first(table[name])

    def get(layout: Any, *modes: int) -> Any:
        out = as_layout(layout)
        for i in modes:
            out = out[i]
        return out

    def make_composed_layout(swizzle: Any, layout: Any, offset: int = 0) -> ComposedLayout:
        if not isinstance(swizzle, Swizzle) or not isinstance(layout, Layout) or not is_int(offset):
            raise LayoutError("make_composed_layout takes (Sw<B,M,S>, layout[, offset])")
        return ComposedLayout(swizzle, offset, layout)

    def domain_first(fn: Any) -> Any:  # size/cosize/rank/depth/shape: a composed layout's are its inner layout's
        return lambda x, *rest: fn(x if isinstance(x, (Layout, ComposedLayout)) else as_layout(x), *rest)

    for name in ("cosize", "rank", "depth"):
        table[name] = domain_first(table[name])
    table.update(make_composed_layout=make_composed_layout, shape=domain_first(layout.shape),
                 stride=lambda l: as_layout(l).stride, get=get, layout=lambda *a: Layout(*a))
    return table
