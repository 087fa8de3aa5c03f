"""The property protocol: what a claim about layouts must provide so that every engine can decide it.

A *property* is a frozen value naming a claim about one or more *subjects* -- ``Layout``s or ``ComposedLayout``s
(swizzled), each seen as a function from a flat index ``i`` in ``[0, size)`` to an offset. An engine
(``layoutcheck.engines``) answers a ``Decision`` (the claim holds over the whole domain, or a witness shows it does
not) or ``Undecided`` (with a reason); ``prove(prop)`` turns that into PROVEN / REFUTED / UNKNOWN. The layout
properties themselves live in the modules of ``layoutcheck.properties`` (``layout``, ``tv``, ``banks``, ``tma``).

The protocol (for engineers adding properties in their own modules)
-------------------------------------------------------------------
Subclass ``Property`` as a frozen dataclass and implement:

- ``name`` (class attribute) and ``subject()`` -> text in CuTe notation; ``describe()`` has a default;
- ``subjects()`` -> the layouts the claim is about (engines use it to test their preconditions);
- ``domain_size()`` -> how many points the exhaustive engine evaluates (it refuses above its memory budget);
- ``exhaustive()`` -> ``Decision``: decide the claim over the whole finite domain with NumPy. On failure return
  ``Decision(False, witness)`` with ``witness`` a record of ``layoutcheck.witness`` (``Collision(i, j)``,
  ``OutOfRange(i)``, ...; a plug-in claim may hand back a small dict of plain ints, reported untyped);
- ``recheck(witness)`` -> ``True`` iff evaluating the subjects confirms the witness violates the claim (every
  engine's witness goes through it before it is reported), and ``explain(witness)`` -> one line in CuTe coordinates.

Validate inputs in ``__post_init__`` (raise ``LayoutError``). Other engines (linear, z3, sympy) learn a property
through ``Engine.handles(PropertyType)`` (see ``layoutcheck.engines.base``); without a handler they decline, and
``prove(..., engine="auto")`` falls through to the exhaustive engine. Example::

    @dataclass(frozen=True, slots=True)
    class EvenOffsets(Property):
        layout: Layout
        name: ClassVar[str] = "even_offsets"

        def subjects(self): return (self.layout,)
        def subject(self): return str(self.layout)
        def domain_size(self): return size(self.layout)
        def exhaustive(self):
            odd = np.flatnonzero(self.layout.offsets() % 2)
            return Decision(True) if odd.size == 0 else Decision(False, {"i": int(odd[0])}, {"odd": int(odd.size)})
        def recheck(self, w): return self.layout(w["i"]) % 2 == 1
        def explain(self, w): return f"L{at(self.layout, w['i'])} = {self.layout(w['i'])} is odd"

    prove(EvenOffsets(Layout((4, 2), (2, 1))))          # REFUTED: L(4) = (0,1) -> 1 is odd
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.inttuple import flatten, idx2crd
from layoutcheck.algebra.layout import format_inttuple, size
from layoutcheck.algebra.notation import as_subject
from layoutcheck.algebra.swizzle import ComposedLayout, Subject, inner
from layoutcheck.witness_maps import Collision


# -- decisions ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Decision:
    """An engine's decision: ``holds`` over the whole domain, or not with a ``witness`` (plain ints)."""

    holds: bool
    witness: Mapping[str, Any] | None = None
    stats: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Undecided:
    """An engine could not decide: ``reason`` says why (timeout, solver unknown, too large, unsupported)."""

    reason: str
    stats: dict[str, Any] = field(default_factory=dict)


# -- helpers shared by properties -----------------------------------------------------------------------------
def subject_size(x: Subject) -> int:
    return size(inner(x))


def at(x: Subject, i: int) -> str:
    """``(crd) -> offset`` text for flat index ``i`` of ``x``, in CuTe coordinates."""
    crd = format_inttuple(idx2crd(i, inner(x).shape))
    return f"{crd if crd.startswith('(') else f'({crd})'} -> {x(i)}"


def offset_range(x: Subject) -> tuple[int, int]:
    """Exact ``(min, max)`` of a plain layout's offsets; for a swizzled one a range the image certainly reaches."""
    lay = inner(x)
    lo = sum((s - 1) * d for s, d in zip(flatten(lay.shape), flatten(lay.stride), strict=True) if d < 0)
    hi = sum((s - 1) * d for s, d in zip(flatten(lay.shape), flatten(lay.stride), strict=True) if d > 0)
    if isinstance(x, ComposedLayout):  # the swizzle only rewrites the zzz bits: f(y) >= y & ~zzz
        lo, hi = lo + x.offset, (hi + x.offset) & ~x.swizzle.zzz_mask
    return lo, hi


def smallest_collision(offs: np.ndarray) -> tuple[int, int] | None:
    """The lexicographically smallest ``(i, j)``, ``i < j``, with ``offs[i] == offs[j]``; ``None`` if injective."""
    if offs.size < 2:
        return None
    lo, hi = int(offs.min()), int(offs.max())
    if hi - lo <= 4 * offs.size:  # dense image: counting beats sorting
        counts = np.bincount(offs - lo)
        dup = np.flatnonzero(counts[offs - lo] > 1)
    else:
        order = np.argsort(offs, kind="stable")
        srt = offs[order]
        eq = np.flatnonzero(srt[1:] == srt[:-1])
        dup = np.sort(np.concatenate([order[eq], order[eq + 1]])) if eq.size else eq
    if dup.size == 0:
        return None
    i = int(dup[0])  # the smallest duplicated index is the first occurrence of its offset
    j = i + 1 + int(np.flatnonzero(offs[i + 1:] == offs[i])[0])
    return i, j


def first_out_of_range(offs: np.ndarray, extent: int) -> int | None:
    if offs.size == 0 or (int(offs.min()) >= 0 and int(offs.max()) < extent):
        return None
    bad = np.flatnonzero((offs < 0) | (offs >= extent))
    return int(bad[0]) if bad.size else None


# -- the property base ----------------------------------------------------------------------------------------
class Property:
    """Base of every claim; subclasses are frozen dataclasses (see the module docstring for the protocol)."""

    __slots__ = ()
    name: ClassVar[str] = "property"
    bytes_per_point: ClassVar[int] = 32
    """Peak bytes the exhaustive decision needs per domain point (offsets, counts or sort permutation)."""

    def subjects(self) -> tuple[Subject, ...]:
        raise NotImplementedError

    def subject(self) -> str:
        return ", ".join(str(s) for s in self.subjects())

    def describe(self) -> str:
        return f"{self.name}({self.subject()})"

    def __str__(self) -> str:
        return self.describe()

    def domain_size(self) -> int:
        return max(subject_size(s) for s in self.subjects())

    def exhaustive(self) -> Decision:
        raise NotImplementedError

    def refutation(self) -> Decision | None:
        """A refutation found without deciding the claim (a misaligned vector faults before any bank is counted),
        which every engine that handles the property reports first; ``None`` when there is none."""
        return None

    def recheck(self, witness: dict[str, Any]) -> bool:
        raise NotImplementedError

    def explain(self, witness: dict[str, Any]) -> str:
        raise NotImplementedError


# -- witnesses shared by properties: a colliding pair, an offset out of range ------------------------------------
def pair_witness(i: int, j: int) -> dict[str, Any]:
    """The ``collision`` witness: indices ``i < j`` with one offset."""
    return Collision(i, j)


def recheck_pair(x: Subject, w: dict[str, Any]) -> bool:
    """``True`` iff the ``collision`` witness ``w`` holds for ``x``: ``0 <= i < j < size`` and ``x(i) == x(j)``."""
    n = subject_size(x)
    i, j = w["i"], w["j"]
    return 0 <= i < j < n and x(i) == x(j)


def explain_pair(x: Subject, w: dict[str, Any]) -> str:
    """The ``collision`` witness ``w`` in CuTe coordinates."""
    return f"indices {w['i']} and {w['j']} collide: {at(x, w['i'])} and {at(x, w['j'])}"


def recheck_out(x: Subject, w: dict[str, Any], extent: int) -> bool:
    """``True`` iff the ``out`` witness ``w`` holds: index ``i`` of ``x`` maps outside ``[0, extent)``."""
    i = w["i"]
    return 0 <= i < subject_size(x) and not 0 <= x(i) < extent


__all__ = [
    "Decision", "Property", "Subject", "Undecided", "as_subject", "at", "explain_pair", "first_out_of_range", "inner",
    "offset_range", "pair_witness", "recheck_out", "recheck_pair", "smallest_collision", "subject_size",
]
