"""layoutcheck: prove properties of GPU data layouts and check the proofs on the GPU.

The algebra (``Layout``, ``composition``, ``logical_divide``, ...) is imported eagerly (it needs only NumPy); the
hardware tables, properties and engines load on first use so that ``import layoutcheck`` and the CLI start fast and
never import z3, SymPy or CuPy until a proof needs them.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .algebra import coalesce, complement, composition, filter, filter_zeros, left_inverse, right_inverse
from .errors import (
    CompositionError,
    LayoutcheckError,
    LayoutError,
    NotDivisibleError,
    ParseError,
    ShapeStrideMismatch,
    SpecError,
)
from .layout import Layout, cosize, depth, make_layout, rank, size, slice_and_offset
from .notation import parse_layout, parse_swizzle
from .swizzle import ComposedLayout, Swizzle, make_composed_layout
from .tiling import (
    blocked_product,
    downcast,
    flat_divide,
    flat_product,
    logical_divide,
    logical_product,
    make_ordered_layout,
    max_common_layout,
    max_common_vector,
    raked_product,
    tile_to_shape,
    tiled_divide,
    tiled_product,
    upcast,
    zipped_divide,
    zipped_product,
)
from .tv import make_layout_tv

__version__ = "0.1.0"

# name -> module that defines it; loaded on first attribute access (PEP 562)
_LAZY = {
    "mma_atom": "layoutcheck.hw.mma",
    "copy_atom": "layoutcheck.hw.copy",
    "ownership": "layoutcheck.tiled_mma",
    "Ownership": "layoutcheck.tiled_mma",
    "ThrMMA": "layoutcheck.tiled_mma",
    "partition_transactions": "layoutcheck.transactions",
    "gmma_smem_atom": "layoutcheck.hw.smem",
    "make_tiled_mma": "layoutcheck.tiled_mma",
    "TiledMMA": "layoutcheck.tiled_mma",
    "Tensor": "layoutcheck.tiled_mma",
    "prove": "layoutcheck.proving",
    "Verdict": "layoutcheck.result",
    "Result": "layoutcheck.result",
    "injective": "layoutcheck.properties",
    "surjective": "layoutcheck.properties",
    "bijective": "layoutcheck.properties",
    "equivalent": "layoutcheck.properties",
    "in_bounds": "layoutcheck.properties",
    "exact_cover": "layoutcheck.properties",
    "vectorizable": "layoutcheck.properties",
    "conflict_free": "layoutcheck.banks",
    "wavefront_count": "layoutcheck.banks",
    "wavefronts": "layoutcheck.banks",
    "tma_compatible": "layoutcheck.tma",
    "encode_check": "layoutcheck.tma",
    "search_swizzle": "layoutcheck.swizzle_search",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'layoutcheck' has no attribute {name!r}")


__all__ = [
    "ComposedLayout", "CompositionError", "Layout", "LayoutError", "LayoutcheckError", "NotDivisibleError",
    "ParseError", "ShapeStrideMismatch", "SpecError", "Swizzle", "blocked_product", "coalesce", "complement",
    "composition", "cosize", "depth", "downcast", "filter", "filter_zeros", "flat_divide", "flat_product",
    "left_inverse", "logical_divide", "logical_product", "make_composed_layout", "make_layout", "make_layout_tv",
    "make_ordered_layout", "max_common_layout", "max_common_vector", "parse_layout", "parse_swizzle",
    "raked_product", "rank", "right_inverse", "size", "slice_and_offset", "tile_to_shape", "tiled_divide",
    "tiled_product", "upcast", "zipped_divide", "zipped_product", *_LAZY,
]
