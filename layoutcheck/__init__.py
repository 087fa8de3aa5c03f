"""layoutcheck: prove properties of GPU data layouts and check the proofs on the GPU.

Every public name loads on first use (PEP 562): ``import layoutcheck`` and ``layoutcheck --help`` import neither
NumPy nor z3, SymPy or CuPy; ``layoutcheck.Layout`` imports the algebra (and NumPy) when first touched.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from layoutcheck.errors import (
    CompositionError,
    LayoutcheckError,
    LayoutError,
    NotDivisibleError,
    ParseError,
    ShapeStrideMismatch,
    SpecError,
)
from layoutcheck.notebook import register as _register_notebook_pictures
from layoutcheck.version import __version__ as __version__

_register_notebook_pictures()  # the values' _repr_svg_ / _repr_html_ look their pictures up (layoutcheck.display)

# name -> module that defines it; loaded on first attribute access (PEP 562)
_LAZY = {
    "Layout": "layoutcheck.algebra.layout",
    "cosize": "layoutcheck.algebra.layout",
    "depth": "layoutcheck.algebra.layout",
    "make_layout": "layoutcheck.algebra.layout",
    "rank": "layoutcheck.algebra.layout",
    "size": "layoutcheck.algebra.layout",
    "slice_and_offset": "layoutcheck.algebra.layout",
    "parse_layout": "layoutcheck.algebra.notation",
    "parse_swizzle": "layoutcheck.algebra.notation",
    "coalesce": "layoutcheck.algebra.ops",
    "complement": "layoutcheck.algebra.ops",
    "composition": "layoutcheck.algebra.ops",
    "filter": "layoutcheck.algebra.ops",
    "filter_zeros": "layoutcheck.algebra.ops",
    "left_inverse": "layoutcheck.algebra.ops",
    "right_inverse": "layoutcheck.algebra.ops",
    "ComposedLayout": "layoutcheck.algebra.swizzle",
    "Swizzle": "layoutcheck.algebra.swizzle",
    "make_composed_layout": "layoutcheck.algebra.swizzle",
    "blocked_product": "layoutcheck.algebra.tiling",
    "downcast": "layoutcheck.algebra.tiling",
    "flat_divide": "layoutcheck.algebra.tiling",
    "flat_product": "layoutcheck.algebra.tiling",
    "logical_divide": "layoutcheck.algebra.tiling",
    "logical_product": "layoutcheck.algebra.tiling",
    "make_ordered_layout": "layoutcheck.algebra.tiling",
    "max_common_layout": "layoutcheck.algebra.tiling",
    "max_common_vector": "layoutcheck.algebra.tiling",
    "raked_product": "layoutcheck.algebra.tiling",
    "tile_to_shape": "layoutcheck.algebra.tiling",
    "tiled_divide": "layoutcheck.algebra.tiling",
    "tiled_product": "layoutcheck.algebra.tiling",
    "upcast": "layoutcheck.algebra.tiling",
    "zipped_divide": "layoutcheck.algebra.tiling",
    "zipped_product": "layoutcheck.algebra.tiling",
    "make_layout_tv": "layoutcheck.algebra.tv",
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
    "from_tilelang": "layoutcheck.importers.tilelang",
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
    # whole-kernel data paths, issue #20
    "OperandPath": "layoutcheck.models.datapath_values",
    "EpiloguePath": "layoutcheck.models.datapath_values",
    "datapath": "layoutcheck.properties.datapath",
    # the layouts users write, issue #27: index formulas, equivalence between any two forms
    "parse_formula": "layoutcheck.expr.formula",
    "IndexFormula": "layoutcheck.expr.formula",
    "formula_property": "layoutcheck.properties.formula",
    "map_equivalent": "layoutcheck.properties.equivalence",
    # notebooks, issue #30: lc.picture(tv, (16, 8)) draws a TV layout over its tile in Jupyter
    "picture": "layoutcheck.report.show",
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
