"""layoutcheck: prove properties of GPU data layouts and check the proofs on the GPU.

The algebra (``Layout``, ``composition``, ``logical_divide``, ...) is imported eagerly (it needs only NumPy); the
hardware tables, properties and engines load on first use so that ``import layoutcheck`` and the CLI start fast and
never import z3, SymPy or CuPy until a proof needs them.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from layoutcheck.algebra.layout import Layout, cosize, depth, make_layout, rank, size, slice_and_offset
from layoutcheck.algebra.notation import parse_layout, parse_swizzle
from layoutcheck.algebra.ops import coalesce, complement, composition, filter, filter_zeros, left_inverse, right_inverse
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle, make_composed_layout
from layoutcheck.algebra.tiling import (
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
from layoutcheck.algebra.tv import make_layout_tv
from layoutcheck.errors import (
    CompositionError,
    LayoutcheckError,
    LayoutError,
    NotDivisibleError,
    ParseError,
    ShapeStrideMismatch,
    SpecError,
)
from layoutcheck.version import __version__ as __version__

# name -> module that defines it; loaded on first attribute access (PEP 562)
_LAZY = {
    "mma_atom": "layoutcheck.hw.mma",
    "copy_atom": "layoutcheck.hw.copy",
    "ownership": "layoutcheck.models.tiled_mma",
    "Ownership": "layoutcheck.models.tiled_mma",
    "ThrMMA": "layoutcheck.models.tiled_mma",
    "partition_transactions": "layoutcheck.models.transactions",
    "gmma_smem_atom": "layoutcheck.hw.smem",
    "make_tiled_mma": "layoutcheck.models.tiled_mma",
    "TiledMMA": "layoutcheck.models.tiled_mma",
    "Tensor": "layoutcheck.models.tiled_mma",
    "prove": "layoutcheck.engines.prove",
    "Verdict": "layoutcheck.result",
    "Result": "layoutcheck.result",
    "injective": "layoutcheck.properties.layout",
    "surjective": "layoutcheck.properties.layout",
    "bijective": "layoutcheck.properties.layout",
    "equivalent": "layoutcheck.properties.layout",
    "in_bounds": "layoutcheck.properties.layout",
    "exact_cover": "layoutcheck.properties.tv",
    "vectorizable": "layoutcheck.properties.tv",
    "conflict_free": "layoutcheck.properties.banks",
    "wavefront_count": "layoutcheck.properties.banks",
    "wavefronts": "layoutcheck.models.banks.model",
    "tma_compatible": "layoutcheck.properties.tma",
    "encode_check": "layoutcheck.models.tma",
    "search_swizzle": "layoutcheck.models.banks.search",
    "extended": "layoutcheck.algebra.layout",
    "extended_offsets": "layoutcheck.algebra.layout",
    "ResidueTiling": "layoutcheck.models.residue",
    "TileScheduler": "layoutcheck.models.schedulers",
    "residue_cover": "layoutcheck.properties.residue",
    "schedule_bijection": "layoutcheck.properties.residue",
    "LinearLayout": "layoutcheck.algebra.linear_layout",
    "from_triton": "layoutcheck.importers.triton",
    "from_cute": "layoutcheck.importers.cute",
    # Blackwell (tcgen05), issue #17
    "umma_descriptor": "layoutcheck.models.umma",
    "decode_umma_descriptor": "layoutcheck.models.umma",
    "umma_instr_descriptor": "layoutcheck.models.umma",
    "decode_instr_descriptor": "layoutcheck.models.umma",
    "accumulator_layout": "layoutcheck.models.tmem",
    "epilogue_loads": "layoutcheck.models.tmem",
    "tmem_exact_cover": "layoutcheck.properties.tmem",
    "tmem_subpartition": "layoutcheck.properties.tmem",
    "scale_ownership": "layoutcheck.properties.tmem",
    # Hopper (wgmma), issue #16
    "GmmaDescriptor": "layoutcheck.models.gmma",
    "gmma_descriptor": "layoutcheck.models.gmma",
    "decode_gmma_descriptor": "layoutcheck.models.gmma",
    "gmma_addresses": "layoutcheck.properties.gmma",
    "gmma_fields": "layoutcheck.properties.gmma",
    "tma_wgmma": "layoutcheck.properties.gmma",
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
