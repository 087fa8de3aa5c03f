"""Witness records of descriptor claims: TMA boxes (``properties.tma``), wgmma / UMMA descriptors (``properties.gmma``,
``properties.descriptors``: ``writer`` and ``block`` lead), descriptor formats' fields, and a Triton dot's wgmma
descriptors against its ``nvmma_shared`` layout (``properties.nvmma``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from layoutcheck.witness_record import Witness


# -- TMA boxes (properties.tma) ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class Descriptor(Witness):
    """The tensor map breaks a driver rule (``violation``: its index among ``TmaBox.violations()``, when named)."""

    violation: int | None = None
    kind: ClassVar[str] = "descriptor"


@dataclass(frozen=True, slots=True, eq=False)
class Divide(Witness):
    """Box mode ``mode`` (tensor dimension ``dim``) of ``n`` elements does not divide the tile's ``extent``."""

    mode: int
    dim: int
    n: int
    extent: int
    kind: ClassVar[str] = "divide"


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Place(Witness):
    """Element ``i`` (of block ``block``) lands at another address than the layout keeps it at; ``writer`` names
    who stored the stage (``gmma_addresses``: ``tma`` or ``threads``)."""

    writer: str | None = None
    block: int | None = None
    i: int
    kind: ClassVar[str] = "place"
    LEAD: ClassVar[tuple[str, ...]] = ("writer",)


@dataclass(frozen=True, slots=True, eq=False)
class Dst(Witness):
    """Box ``i``'s shared-memory destination is not aligned as TMA requires."""

    i: int
    kind: ClassVar[str] = "dst"


# -- wgmma / UMMA descriptors (properties.gmma, properties.descriptors): ``writer`` (and ``block``) lead ----------
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class _DescriptorWitness(Witness):
    """A descriptor-family witness: ``writer`` names who stored the stage (``tma`` or ``threads``) when the claim
    depends on it; ``block`` the K block whose descriptor fails."""

    writer: str | None = None
    block: int | None = None
    LEAD: ClassVar[tuple[str, ...]] = ("writer",)


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Canonical(_DescriptorWitness):
    """The stage is not one of the canonical GMMA / UMMA operand forms (no descriptor describes it)."""

    kind: ClassVar[str] = "canonical"


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class BaseOffset(_DescriptorWitness):
    """The descriptor's base-offset field disagrees with where the stage's swizzle pattern starts."""

    kind: ClassVar[str] = "base_offset"


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class LayoutType(_DescriptorWitness):
    """The descriptor's layout type is not the stage's swizzle mode."""

    kind: ClassVar[str] = "layout_type"


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Major(_DescriptorWitness):
    """The stage is not the declared major-ness (``i``: the first chunk that breaks it, when known)."""

    i: int | None = None
    kind: ClassVar[str] = "major"
    LEAD: ClassVar[tuple[str, ...]] = ("writer", "block")


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Align(_DescriptorWitness):
    """Block ``block``'s start address is not aligned as the descriptor requires."""

    kind: ClassVar[str] = "align"


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Range(_DescriptorWitness):
    """Block ``block``'s descriptor field leaves its range (``GmmaDescriptor.violations``: ``range``)."""

    kind: ClassVar[str] = "range"


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class FieldOverflow(_DescriptorWitness):
    """Block ``block``'s descriptor cannot be encoded (a field overflows)."""

    kind: ClassVar[str] = "field"


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Word(_DescriptorWitness):
    """The descriptor word's ``field`` breaks the format (a fixed bit, an undefined code, a reserved bit)."""

    field: str
    kind: ClassVar[str] = "word"


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Mma(_DescriptorWitness):
    """The instruction descriptor names no MMA the hardware has."""

    kind: ClassVar[str] = "mma"


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Shape(_DescriptorWitness):
    """The instruction descriptor's M / N fields are not the claimed shape."""

    kind: ClassVar[str] = "shape"


@dataclass(frozen=True, slots=True, eq=False)
class FieldOutside(Witness):
    """Field ``f`` of a descriptor format leaves its word."""

    f: int
    kind: ClassVar[str] = "outside"


@dataclass(frozen=True, slots=True, eq=False)
class FieldFit(Witness):
    """Field ``f`` cannot hold ``value``."""

    f: int
    value: int
    kind: ClassVar[str] = "fit"


@dataclass(frozen=True, slots=True, eq=False)
class FieldOverlap(Witness):
    """Field ``field`` encodes the distinct ``values`` to one word."""

    values_: list[int]
    field: str
    kind: ClassVar[str] = "overlap"
    JSON_NAMES: ClassVar[dict[str, str]] = {"values_": "values"}


# -- a Triton dot's wgmma descriptors against its nvmma_shared layout (properties.nvmma) ------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class DescriptorPair(Witness):
    """Reads ``a`` (operand A) and ``b`` (operand B) of one wgmma take different K blocks."""

    a: int
    b: int
    kind: ClassVar[str] = "pair"


@dataclass(frozen=True, slots=True, eq=False)
class DescriptorDecode(Witness):
    """Read ``read``'s descriptor has no canonical layout in the model (``message``): not modelled."""

    read: int
    message: str
    kind: ClassVar[str] = "decode"


@dataclass(frozen=True, slots=True, eq=False)
class DescriptorOrigin(Witness):
    """Read ``read``'s first element is no element of its operand at a block boundary."""

    read: int
    kind: ClassVar[str] = "origin"


@dataclass(frozen=True, slots=True, eq=False)
class DescriptorElement(Witness):
    """Element ``(i, j)`` of read ``read``'s block is read from a byte that holds another element."""

    read: int
    i: int
    j: int
    kind: ClassVar[str] = "element"


@dataclass(frozen=True, slots=True, eq=False)
class DescriptorCover(Witness):
    """Block ``(mn, k)`` of ``operand`` is read by no wgmma of execution ``execution`` of the dot."""

    operand: int
    execution: int
    mn: int
    k: int
    kind: ClassVar[str] = "cover"
