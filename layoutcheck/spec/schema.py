"""What a spec file may say and what a loaded one is made of.

The schema: the format version, for each ``kind`` its keys, required keys and supported properties (``KINDS``), each
property's parameters (``PROPERTY_PARAMS``) and the layoutcheck modules a property or kind needs (``PROPERTY_MODULE``,
``KIND_MODULE``; a missing one is ``ModuleMissing``, reported UNKNOWN). The values: ``Spec`` holds ``Config``s, each
with its parsed key values, the line of every key, and its ``PropertyRequest``s. ``specs/README.md`` is the
user-facing description of the same tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from layoutcheck.errors import LayoutcheckError, SpecError

FORMAT_VERSION = 1

KINDS: dict[str, dict[str, Any]] = {
    # kind -> allowed keys (besides name/kind/description/properties) and the properties it supports
    "layout": {"keys": {"layout", "other", "codomain", "dtype"},
               "required": {"layout"},
               "properties": {"injective", "surjective", "bijective", "equivalent", "in_bounds", "vectorizable"}},
    "tv": {"keys": {"tv", "tile", "memory", "other", "dtype"},
           "required": {"tv", "tile"},
           "properties": {"exact_cover", "injective", "surjective", "bijective", "equivalent", "in_bounds",
                          "vectorizable"}},
    "tiled_mma": {"keys": {"atom", "atom_layout", "permutation", "tile", "operand"},
                  "required": {"atom", "tile"},
                  "properties": {"exact_cover", "injective", "in_bounds"}},
    "smem": {"keys": {"layout", "atom", "tile", "dtype", "access", "access_tv", "access_expr", "access_ranges"},
             "required": {"dtype"},
             "properties": {"conflict_free", "wavefront_count", "injective", "bijective", "in_bounds"}},
    "tma": {"keys": {"box", "dtype", "swizzle", "global_shape", "global_strides", "interleave", "smem_layout",
                     "major", "tile", "modes"},
            "required": {"box", "dtype"},
            "properties": {"tma_compatible"}},
    # ragged problems (issue #15): every problem size / tile grid in a range
    "residue": {"keys": {"tile", "sizes", "count", "predicate", "tv"},
                "required": {"tile", "sizes"},
                "properties": {"residue_cover"}},
    "scheduler": {"keys": {"scheduler", "grids", "log", "group", "ctas", "drop_partial_group", "splits", "count"},
                  "required": {"scheduler", "grids"},
                  "properties": {"schedule_bijection"}},
}
COMMON_KEYS = {"name", "kind", "description", "properties"}
PROPERTY_PARAMS: dict[str, set[str]] = {
    "injective": set(), "surjective": {"codomain"}, "bijective": {"codomain"}, "equivalent": {"other"},
    "in_bounds": {"bound"}, "exact_cover": {"operand", "replication"}, "vectorizable": {"width"},
    "conflict_free": {"access"}, "wavefront_count": {"access", "n", "max"},
    "tma_compatible": set(), "residue_cover": set(), "schedule_bijection": set(),
}
ALL_PROPERTIES = sorted(PROPERTY_PARAMS)

# which module each property needs (for "property X needs module Y" messages)
PROPERTY_MODULE: dict[str, str] = {name: "layoutcheck.properties.layout" for name in PROPERTY_PARAMS} | {
    "exact_cover": "layoutcheck.properties.tv", "vectorizable": "layoutcheck.properties.tv",
    "conflict_free": "layoutcheck.properties.banks", "wavefront_count": "layoutcheck.properties.banks",
    "tma_compatible": "layoutcheck.properties.tma", "residue_cover": "layoutcheck.properties.residue",
    "schedule_bijection": "layoutcheck.properties.residue"}
KIND_MODULE: dict[str, tuple[str, ...]] = {
    "tiled_mma": ("layoutcheck.models.tiled_mma", "layoutcheck.hw.mma"),
    "smem": ("layoutcheck.models.banks.access",),
    "tma": ("layoutcheck.models.tma",),
    "residue": ("layoutcheck.models.residue",),
    "scheduler": ("layoutcheck.models.schedulers",),
}


class ModuleMissing(LayoutcheckError):
    """A property needs a layoutcheck module that is not installed in this build; the check reports UNKNOWN."""


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
        return dict(self.values).get(key, default)

    def line_of(self, key: str) -> int:
        """The line of ``key`` in the file (the ``[[config]]`` header line when the key is not written)."""
        return dict(self.key_lines).get(key, self.line)

    def error(self, key: str, message: str) -> SpecError:
        """``SpecError("file:line: config 'c': key 'k': message")`` for a bad value of ``key``."""
        return SpecError(f"{self.file}:{self.line_of(key)}: config {self.name!r}: key {key!r}: {message}")


@dataclass(frozen=True, slots=True)
class Spec:
    """One loaded spec file: its format version, its configs in file order and its description."""

    file: str
    format: int
    configs: tuple[Config, ...]
    description: str = ""


def _show(v: Any) -> str:
    if isinstance(v, tuple):
        return "(" + ",".join(_show(x) for x in v) + ")"
    return str(v)

