"""What a spec file may say and what a loaded one is made of.

The schema: the format version, for each ``kind`` its keys, required keys and supported properties (``KINDS``), each
property's parameters (``PROPERTY_PARAMS``); which function builds each kind's properties is the typed registry of
``layoutcheck.spec.bind`` (``BINDERS``, ``PROPERTIES``). The values: ``Spec`` holds ``Config``s, each
with its parsed key values, the line of every key, and its ``PropertyRequest``s. ``specs/README.md`` is the
user-facing description of the same tables.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from layoutcheck.errors import SpecError

FORMAT_VERSION = 1
TOP_LEVEL_KEYS = ("format", "description", "expect", "config")
# a file's expected verdict: "refuted" marks it broken on purpose (skipped by default like specs/broken/)
EXPECTATIONS = ("proven", "refuted")

KINDS: dict[str, dict[str, Any]] = {
    # kind -> allowed keys (besides name/kind/description/properties), the keys it requires, the properties it
    # supports; each kind is declared here once (``tests/spec/test_registry.py`` checks it against the binders)
    "layout": {"keys": {"layout", "other", "codomain", "dtype", "lhs", "rhs"},
               "required": {"layout"},
               "properties": {"injective", "surjective", "bijective", "equivalent", "in_bounds", "vectorizable",
                              "exact_cover",  # Triton layouts only
                              "composes"}},  # composition's contract R(i) == lhs(rhs(i)) (bug zoo, issue #20)
    "tv": {"keys": {"tv", "tile", "memory", "other", "dtype"},
           "required": {"tv", "tile"},
           "properties": {"exact_cover", "injective", "surjective", "bijective", "equivalent", "in_bounds",
                          "vectorizable"}},
    "tiled_mma": {"keys": {"atom", "atom_layout", "permutation", "tile", "operand", "other"},
                  "required": {"atom", "tile"},
                  "properties": {"exact_cover", "injective", "in_bounds", "equivalent"}},
    "smem": {"keys": {"layout", "atom", "tile", "dtype", "access", "access_tv", "access_expr", "access_ranges"},
             "required": {"dtype"},
             "properties": {"conflict_free", "wavefront_count", "injective", "bijective", "in_bounds"}},
    "tma": {"keys": {"box", "dtype", "swizzle", "global_shape", "global_strides", "interleave", "smem_layout",
                     "major", "tile", "modes",
                     "base_address"},  # the tile buffer's offset from a 1024-byte boundary (tilelang#2379)
            "required": {"box", "dtype"},
            "properties": {"tma_compatible"}},
    "wgmma": {"keys": {"dtype", "major", "tile", "swizzle", "smem_layout", "block_mn", "base_address", "descriptor",
                       "wgmma_swizzle", "box", "global_shape", "global_strides", "modes", "interleave",
                       "wgmma_layout",  # the layout a kernel builds its descriptors from (tilelang#2964)
                       "written_by"},  # who wrote the stage: tma (absolute address bits) or threads, issue #25
              "required": {"dtype", "major"},
              "properties": {"gmma_addresses", "gmma_fields", "tma_wgmma"}},
    # ragged problems (issue #15): every problem size / tile grid in a range
    "residue": {"keys": {"tile", "sizes", "count", "predicate", "tv"},
                "required": {"tile", "sizes"},
                "properties": {"residue_cover", "tile_partition"}},
    "scheduler": {"keys": {"scheduler", "grids", "log", "group", "ctas", "drop_partial_group", "splits", "count",
                           "cluster", "max_swizzle", "swizzle_size", "raster", "device_raster", "round_to_cluster",
                           "tile_m", "tile_n", "total", "problems", "tile", "host_count", "device_tiles"},
                  "required": {"scheduler", "grids"},
                  "properties": {"schedule_bijection"}},
    # Blackwell (tcgen05), issue #17: binders in layoutcheck.spec.bind_tcgen05
    "umma_smem": {"keys": {"layout", "dtype", "major", "base_address", "descriptor", "written_by"},
                  "required": {"layout", "dtype", "major"}, "properties": {"umma_describes"}},
    "umma_instr": {"keys": {"a_dtype", "b_dtype", "c_dtype", "scale_dtype", "mma_m", "mma_n", "a_major", "b_major",
                            "cta_group"},
                   "required": {"a_dtype", "b_dtype", "c_dtype", "mma_m", "mma_n"},
                   "properties": {"descriptor_fields"}},
    "descriptor_format": {"keys": {"fields", "bits"}, "required": {"fields"}, "properties": {"descriptor_fields"}},
    "tmem": {"keys": {"mma_m", "mma_n", "cta_group", "data_path", "atom", "warps", "rows", "columns", "allocation"},
             "required": set(),
             "properties": {"tmem_exact_cover", "tmem_subpartition", "tmem_allocation", "tmem_packed_injective"}},
    "block_scale": {"keys": {"operand", "mma_m", "mma_n", "k", "vec", "cta_group", "scale_extent"},
                    "required": {"operand", "mma_m", "mma_n", "k", "vec"}, "properties": {"scale_ownership"}},
    # whole-kernel data paths (issue #20): binder in layoutcheck.spec.bind_datapath
    "datapath": {"keys": {"atom", "atom_layout", "permutation", "tile", "dtype", "A", "B", "C"},
                 "required": {"tile", "dtype"}, "properties": {"datapath"}},
    # block-scaled scale factors (issue #27): binder in layoutcheck.spec.bind_block_scale
    "scale_factors": {"keys": {"mn", "k", "vec", "producer", "consumer", "operand", "scale_layout", "tile", "grids",
                               "scheduler", "log", "group", "ctas", "drop_partial_group", "reads"},
                      "required": {"k", "vec"}, "properties": {"scale_agreement", "scale_follows_tile"}},
    # multi-stage pipelines (issue #27): stage buffers and mbarrier phases per k-block
    "pipeline": {"keys": {"stages", "k_blocks", "stage_bytes", "smem_bytes", "base_address", "align", "stage",
                          "consumer_phase", "producer_phase"},
                 "required": {"stages", "k_blocks", "stage_bytes"}, "properties": {"pipeline_protocol"}},
    # TMA multicast in a cluster (issue #27): which CTA's TMA writes which rows into which CTAs
    "multicast": {"keys": {"cluster", "operand", "extent", "slice_start", "slice_rows", "mask", "needs"},
                  "required": {"cluster", "operand", "extent"}, "properties": {"multicast_cover"}},
}
COMMON_KEYS = {"name", "kind", "description", "properties"}
NAME_PUNCTUATION = "_.+-"
MAX_NAME = 100


def config_name_error(name: Any) -> str | None:
    """Why ``name`` cannot name a config, or ``None``: 1 to 100 characters, each a Unicode letter or digit (``größe``,
    ``行列``), a combining mark after one, or one of ``_.+-``; no spaces, controls or invisible format characters.

    >>> config_name_error("größe_ü"), config_name_error("a b")
    (None, "expected a config name of Unicode letters, digits and '_.+-', found 'a b' (' ' at position 2)")
    """
    if not isinstance(name, str) or not name:
        found = repr(name) if isinstance(name, str) else f"a TOML {_toml_type(name)}"
        return f"expected a config name of Unicode letters, digits and '{NAME_PUNCTUATION}', found {found}"
    if len(name) > MAX_NAME:
        return f"expected a config name of at most {MAX_NAME} characters, found {len(name)}"
    for i, ch in enumerate(name):
        mark = i > 0 and unicodedata.category(ch).startswith("M")
        if not (ch.isalnum() or ch in NAME_PUNCTUATION or mark):
            return (f"expected a config name of Unicode letters, digits and '{NAME_PUNCTUATION}', found {name!r} "
                    f"({ch!r} at position {i + 1})")
    return None


def _toml_type(v: Any) -> str:
    names = {bool: "boolean", int: "integer", float: "float", list: "array", dict: "table", type(None): "nothing"}
    return names.get(type(v), type(v).__name__)

PROPERTY_PARAMS: dict[str, set[str]] = {
    # property -> the parameters a request may give it; each property is declared here once
    "injective": set(), "surjective": {"codomain"}, "bijective": {"codomain"}, "equivalent": {"other"},
    "in_bounds": {"bound"}, "exact_cover": {"operand", "replication"}, "vectorizable": {"width"},
    "conflict_free": {"access"}, "wavefront_count": {"access", "n", "max"},
    "tma_compatible": set(),
    "gmma_addresses": set(), "gmma_fields": set(), "tma_wgmma": set(),
    "residue_cover": set(), "schedule_bijection": set(), "tile_partition": set(),
    "umma_describes": set(), "descriptor_fields": set(), "tmem_exact_cover": set(), "tmem_subpartition": set(),
    "tmem_allocation": set(), "tmem_packed_injective": set(), "scale_ownership": set(),
    "composes": {"lhs", "rhs"},
    "datapath": {"operand"},
    "scale_agreement": set(), "scale_follows_tile": set(),
    "pipeline_protocol": set(), "multicast_cover": set(),
}
ALL_PROPERTIES = sorted(PROPERTY_PARAMS)


@dataclass(frozen=True, slots=True)
class PropertyRequest:
    """One entry of a config's ``properties`` list: a property name and its parameters."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    line: int = 0

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)

    @property
    def label(self) -> str:
        """``vectorizable(width=8)``: the name with its parameters, as tables and reports print it.

        >>> PropertyRequest("wavefront_count", (("access", "ldsm_x4"), ("n", 4))).label
        'wavefront_count(access=ldsm_x4, n=4)'
        """
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(f'{k}={_show(v)}' for k, v in self.params)})"


@dataclass(frozen=True, slots=True)
class Config:
    """One ``[[config]]``: its kind, validated values (layouts already parsed) and property requests."""

    name: str
    kind: str
    file: str
    line: int
    values: tuple[tuple[str, Any], ...]
    properties: tuple[PropertyRequest, ...]
    key_lines: tuple[tuple[str, int], ...] = ()
    description: str = ""

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` (the last one written, as ``dict(values)`` would keep), else ``default``."""
        for k, v in reversed(self.values):
            if k == key:
                return v
        return default

    def line_of(self, key: str) -> int:
        """The line of ``key`` in the file (the ``[[config]]`` header line when the key is not written)."""
        return dict(self.key_lines).get(key, self.line)

    def error(self, key: str, message: str) -> SpecError:
        """``SpecError("file:line: config 'c': key 'k': message")`` for a bad value of ``key`` (with ``file``,
        ``line``, ``key`` set)."""
        line = self.line_of(key)
        return SpecError(f"{self.file}:{line}: config {self.name!r}: key {key!r}: {message}", file=self.file,
                         line=line, key=key)


@dataclass(frozen=True, slots=True)
class Spec:
    """One loaded spec file: its format version, its configs in file order and its description."""

    file: str
    format: int
    configs: tuple[Config, ...]
    description: str = ""
    errors: tuple[SpecError, ...] = ()
    """The configs that did not load (``parse_spec(strict=False)``), in file order; ``configs`` holds the rest."""
    expect: str = "proven"


def _show(v: Any) -> str:
    if isinstance(v, tuple):
        return "(" + ",".join(_show(x) for x in v) + ")"
    return str(v)

