"""Jupyter pictures of layoutcheck's values: the renderers behind their ``_repr_svg_`` / ``_repr_html_`` hooks.

``register()`` (called by ``layoutcheck/__init__.py``) puts ``svg`` and ``html`` into ``layoutcheck.display``; each
imports the report layer (``report.show``, ``report.html``) only when a notebook asks, so ``import layoutcheck``
stays free of NumPy. The pictures are the ones ``layoutcheck show`` and the HTML report draw.
"""

from __future__ import annotations

from typing import Any

from layoutcheck.display import register as register_renderer


def svg(value: Any) -> str | None:
    """A ``Layout`` / ``ComposedLayout``: the grid ``show`` draws; a ``TiledMMA``: its C TV layout over the M x N
    tile; ``None`` (the text) above rank 2, past ``NOTEBOOK_CELLS`` cells, or for another value."""
    from layoutcheck.algebra.layout import Layout
    from layoutcheck.algebra.swizzle import ComposedLayout
    from layoutcheck.models.tiled_mma import TiledMMA
    from layoutcheck.report.show import notebook_svg

    if isinstance(value, TiledMMA):
        return notebook_svg(value.tv_layout_C, value.tile_size_mnk[:2])
    if isinstance(value, Layout | ComposedLayout):
        return notebook_svg(value)
    return None


def html(value: Any) -> str | None:
    """An ``MmaAtom`` / ``TiledMMA``: the TV layouts of A (M x K), B (N x K) and C (M x N), as CuTe's ``print_svg``
    draws them; a ``Result``: its verdict and counterexample picture (the HTML report's); else ``None``."""
    from layoutcheck.hw.mma_atom import MmaAtom
    from layoutcheck.models.tiled_mma import TiledMMA
    from layoutcheck.report.show import mma_parts, tv_layouts_html
    from layoutcheck.result import Result

    if isinstance(value, Result):
        from layoutcheck.report.html import result_html

        return result_html(value)
    if isinstance(value, MmaAtom):
        return tv_layouts_html(str(value.name), mma_parts(value.tv_layout_A, value.tv_layout_B, value.tv_layout_C,
                                                          *value.shape_mnk))
    if isinstance(value, TiledMMA):
        return tv_layouts_html(str(value), mma_parts(value.tv_layout_A, value.tv_layout_B, value.tv_layout_C,
                                                     *value.tile_size_mnk))
    return None


def register() -> None:
    """Fill ``layoutcheck.display`` with ``svg`` and ``html`` (idempotent)."""
    register_renderer("svg", svg)
    register_renderer("html", html)
