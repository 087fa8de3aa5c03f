"""Witness records of tensor-memory claims: loads and allocations (``properties.tmem``), block scaling
(``properties.block_scale``) and ``tcgen05.cp`` images (``properties.tmem_copy``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from layoutcheck.witness_record import Witness


# -- tensor memory (properties.tmem) ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class TmemOutside(Witness):
    """Load ``load`` gives ``thread`` the ``element`` outside the tile."""

    load: int
    thread: int
    element: int
    kind: ClassVar[str] = "outside"


@dataclass(frozen=True, slots=True, eq=False)
class TmemLane(Witness):
    """Load ``load`` has ``thread`` touch TMEM ``lane``, outside its warp's sub-partition (kind-less, as printed)."""

    load: int
    thread: int
    lane: int


@dataclass(frozen=True, slots=True, eq=False)
class TmemMissed(Witness):
    """TMEM cell ``i`` is read ``count`` (0) times."""

    i: int
    count: int
    kind: ClassVar[str] = "missed"


@dataclass(frozen=True, slots=True, eq=False)
class TmemTwice(Witness):
    """TMEM cell ``i`` is read ``count`` (> 1) times."""

    i: int
    count: int
    kind: ClassVar[str] = "twice"


@dataclass(frozen=True, slots=True, eq=False)
class AllocationSize(Witness):
    """Allocation ``i`` asks for a column count tcgen05.alloc refuses."""

    i: int
    kind: ClassVar[str] = "size"


@dataclass(frozen=True, slots=True, eq=False)
class AllocationTotal(Witness):
    """Allocations ``0..i`` ask for more columns than tensor memory has."""

    i: int
    kind: ClassVar[str] = "total"


@dataclass(frozen=True, slots=True, eq=False)
class ScaleVector(Witness):
    """Scale element ``(m, k)`` differs from the first of its ``vec``-wide group."""

    m: int
    k: int
    kind: ClassVar[str] = "vector"


@dataclass(frozen=True, slots=True, eq=False)
class ScaleShared(Witness):
    """Scale groups ``(m, k)`` and ``(m2, k2)`` share one TMEM cell."""

    m: int
    k: int
    m2: int
    k2: int
    kind: ClassVar[str] = "shared"


# -- block scaling (properties.block_scale): kind-less, as the reports always printed them ------------------------
@dataclass(frozen=True, slots=True, eq=False)
class ScaleMismatch(Witness):
    """The producer and consumer of the scale factors disagree on scale ``(m, k)``."""

    m: int
    k: int


@dataclass(frozen=True, slots=True, eq=False)
class ScaleTile(Witness):
    """On grid ``gm`` x ``gn``, launch ``idx`` computes tile ``own`` but reads the scales of tile ``read``; they
    differ at scale row ``r``, K block ``kb``."""

    gm: int
    gn: int
    idx: list[int]
    own: int
    read: int
    r: int
    kb: int


# -- tcgen05.cp (properties.tmem_copy) -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class TmemCopyElement(Witness):
    """Source element ``(row, element)`` of a tcgen05.cp breaks ``rule`` (``outside``: a cell past TMEM's 512
    columns; ``misplaced``: the cells it is ``written`` to differ from the ones the ``declared`` image names;
    ``uncopied``: the declared image names an element the shape does not copy): TMEM slot addresses
    ``lane + 128 * (column * 32/bits + slot)``."""

    rule: str
    row: int
    element: int
    written: list[int]
    declared: list[int]
    kind: ClassVar[str] = "tmem_copy"
