"""The ownership TV map of a bound config: which (thread, value) owns which element of its tile (issue #26).

One function, ``owner_map(cfg)``, for every consumer of a config's ownership: the ownership vectors
(``report.vectors``), the ownership kernels of ``layoutcheck gpu`` (``codegen.spec_cases``) and the kernels of
refuted partitions (``codegen.refuted_cases``). Which kinds have one, and which function builds it, is the registry's
``KindSpec.owner_map`` (``spec.schema.KINDS``); the functions are ``OWNER_MAPS`` here:

    tv_owner_map         the config's ``tv`` over its ``tile``, offsets under its ``memory`` (default: the index)
    tiled_mma_owner_map  the tiled MMA's ``operand`` partition (default ``C``) of its CTA tile: ``TiledMMA.tv_layout``
                         over the column-major tile, values ordered as ``partition_C``

A map is ``(thread, value) -> column-major tile index`` (``row + ROWS*col``), the TV layout's own colex order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from layoutcheck.algebra.layout import Layout
from layoutcheck.errors import SpecError
from layoutcheck.models.tiled_mma import TiledMMA
from layoutcheck.spec.schema import KINDS, Config


@dataclass(frozen=True, slots=True)
class OwnerMap:
    """A config's ownership over ``tile``: the TV map ``tv``, the ``memory`` layout of its offsets (``None``: the
    tile index), and, for a tiled MMA, the MMA and ``operand`` whose partition the map is (``mma`` ``None``
    otherwise). The map may be any TV subject the config allows (a ``Layout``, a swizzled one, an index formula)."""

    tile: tuple[int, ...]
    given: Any = None
    """The config's own TV map (``None`` for a tiled MMA: its partition is built on use, ``tv``)."""
    memory: Any = None
    mma: TiledMMA | None = None
    operand: str = "C"

    @property
    def tv(self) -> Any:
        """``(thread, value) -> row + ROWS*col``: the config's map, or ``TiledMMA.tv_layout(operand, tile)``."""
        if self.mma is None:
            return self.given
        return self.mma.tv_layout(self.operand, Layout(self.tile))


def tv_owner_map(cfg: Config, operand: str = "C") -> OwnerMap:
    """The ``tv`` map of a TV config over its ``tile`` (``operand`` does not apply)."""
    return OwnerMap(tuple(cfg.get("tile")), cfg.get("tv"), cfg.get("memory"))


def tiled_mma_owner_map(cfg: Config, operand: str = "C") -> OwnerMap:
    """The ``operand`` partition of a tiled-MMA config's CTA tile (``spec.bind.mma_cta_tile``)."""
    from layoutcheck.spec.bind import mma_cta_tile, tiled_mma

    mma = tiled_mma(cfg)
    tile = mma_cta_tile(cfg, mma, operand)
    return OwnerMap(tile, None, None, mma, operand)


OWNER_MAPS: dict[str, Callable[[Config, str], OwnerMap]] = {f.__name__: f for f in (tv_owner_map,
                                                                                    tiled_mma_owner_map)}
"""``KindSpec.owner_map`` name -> its function (``tests/spec/test_ownership.py``: every registry name is here)."""

OWNED_KINDS: tuple[str, ...] = tuple(k.name for k in KINDS.values() if k.owner_map)
"""The kinds whose configs have an ownership TV map, in registry order."""


def has_owner_map(cfg: Config) -> bool:
    """Whether ``cfg``'s kind has an ownership TV map."""
    return cfg.kind in OWNED_KINDS


def owner_map(cfg: Config, operand: str = "C") -> OwnerMap:
    """The ownership TV map of ``cfg`` (``operand``: which tiled-MMA operand; ignored by TV configs).

    Pre: ``has_owner_map(cfg)`` (else ``SpecError`` naming the kinds that have one). A bad key raises the binder's
    ``SpecError`` naming it.
    """
    if not has_owner_map(cfg):
        raise SpecError(f"{cfg.file}:{cfg.line}: config {cfg.name!r} is kind {cfg.kind!r}; an ownership map needs "
                        f"kind {' or '.join(repr(k) for k in OWNED_KINDS)}", file=cfg.file, line=cfg.line)
    return OWNER_MAPS[KINDS[cfg.kind].owner_map](cfg, operand)
