"""Shared-memory banks: the public face of the bank model, its access patterns and its properties.

Everything is importable from here (``from layoutcheck.banks import conflict_free, wavefronts``); each concept lives in
its own module, imported one way (each line imports only the lines above it, and none imports this module)::

    bank_model.py       wavefronts of one warp-wide instruction from its 32 byte addresses: phases, merging,
                        ``wavefronts``, ``wavefronts_batch``, ``ideal``, ``breakdown`` (the definition and its essay)
    bank_gf2.py         the same count by GF(2) rank for XOR-linear word maps: ``gf2_wavefronts``
    index_expr.py       a safe integer expression language: ``parse_expr``, ``eval_expr``
    bank_access.py      access patterns over a layout: ``Access``, ``byte_addresses``, ``analyze``, the builders
    bank_properties.py  ``conflict_free``, ``wavefront_count``, ``conflict_free_at_every_base`` and their linear
                        (GF(2)) and z3 handlers, registered when it is imported
    smem_atoms.py       which GMMA smem atom a tile gets, and the GMEM runs behind it: ``choose_smem_atom``,
                        ``gmem_runs`` (seed 003 section 5; needs none of the above)

Hardware facts (access kinds, 32 banks of 4 bytes) are data in ``layoutcheck.hw.banks``; findings and measurements
in ``docs/banks.md``. Importing this module imports neither z3 nor SymPy (engines import them when they first run).

>>> wavefronts("lds32", [8 * l for l in range(32)])
2
"""

from __future__ import annotations

from .bank_access import (
    Access,
    BankAnalysis,
    access_from_expr,
    access_from_fn,
    access_from_tv,
    analyze,
    byte_addresses,
    column_access,
    default_access,
    elems_per_address,
    matrix_access,
    row_access,
    vector_access,
)
from .bank_gf2 import gf2_wavefronts
from .bank_model import PhaseReport, breakdown, ideal, ideal_batch, wavefronts, wavefronts_batch
from .bank_properties import (
    ConflictFree,
    ConflictFreeAtEveryBase,
    WavefrontCount,
    conflict_free,
    conflict_free_at_every_base,
    wavefront_count,
)
from .errors import LayoutError
from .hw.banks import BANK_BYTES, BANKS, AccessKind, access_kind
from .hw.smem import SWIZZLE_SPAN_BYTES, SmemAtom, gmma_smem_atom
from .index_expr import eval_expr, parse_expr
from .inttuple import product
from .layout import Layout, size
from .properties import Decision, Property, Subject, Undecided, as_subject, inner
from .smem_atoms import LINE_BYTES, SECTOR_BYTES, GmemRuns, choose_smem_atom, gmem_runs
from .swizzle import ComposedLayout, Swizzle

__all__ = [
    "LINE_BYTES", "SECTOR_BYTES", "Access", "BankAnalysis", "ConflictFree", "ConflictFreeAtEveryBase", "GmemRuns",
    "PhaseReport", "WavefrontCount", "access_from_expr", "access_from_fn", "access_from_tv", "analyze", "breakdown",
    "byte_addresses", "choose_smem_atom", "column_access", "conflict_free", "conflict_free_at_every_base",
    "default_access", "elems_per_address", "eval_expr", "gf2_wavefronts", "gmem_runs", "ideal", "ideal_batch",
    "matrix_access", "parse_expr", "row_access", "vector_access", "wavefront_count", "wavefronts", "wavefronts_batch",
]
__all__ += [  # imported here before the split and still reached as ``banks.X`` (``spec.py``: ``banks.access_kind``)
    "BANKS", "BANK_BYTES", "SWIZZLE_SPAN_BYTES", "AccessKind", "ComposedLayout", "Decision", "Layout", "LayoutError",
    "Property", "SmemAtom", "Subject", "Swizzle", "Undecided", "access_kind", "as_subject", "gmma_smem_atom", "inner",
    "product", "size",
]
