"""Claims about index formulas (``layoutcheck.expr.formula``): injective, surjective, bijective and in_bounds of a
layout written as an expression over named coordinates, decided on the expression itself.

Definitions (``F`` a formula over coordinates with extents ``n_0, n_1, ...``, first fastest; ``N = prod n_k``)::

    injective(F)        F(i) == F(j)  =>  i == j                   for flat indices i, j in [0, N)
    surjective(F, n)    F maps into [0, n) and every y in [0, n) is some F(i)      (n defaults to N)
    bijective(F, n)     both (so N == n)
    in_bounds(F, e)     0 <= F(i) < e for every i

These are the CuTe claims of ``layoutcheck.properties.layout`` with the formula in the layout's place, so the witness
formats are the same (``collision`` ``i < j``, ``out`` ``i``, ``missing`` ``y``, ``count``), explained in the formula's
own coordinates: ``(j=8, i=1) -> 72``. Worked example: the padded layout ``i*72 + j`` over ``{ j = 64, i = 8 }`` is
injective and in bounds of 576, not bijective (offsets 64..71 of each row are padding: ``missing`` 64).

The exhaustive engine evaluates the formula through the expression IR's NumPy interpreter at every point (non-power-of
-two ``%`` and ``/``, rotations and paddings included); past its memory budget the z3 engine decides ``injective`` and
``in_bounds`` on the same expression (``layoutcheck.engines.z3``), with the same first witness.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.errors import LayoutError
from layoutcheck.expr.formula import IndexFormula
from layoutcheck.properties.base import Decision, Property, first_out_of_range, smallest_collision
from layoutcheck.witness_maps import Collision, Count, Missing, OutOfRange, Owners, SameThread


def _show(f: IndexFormula, i: int) -> str:
    return f"{f.show(i)} -> {f(i)}"


class _OnFormula(Property):
    __slots__ = ()
    bytes_per_point: ClassVar[int] = 24  # the offsets and the sort of a collision search

    def subjects(self) -> tuple[Any, ...]:
        return (self.f,)  # type: ignore[attr-defined]

    def subject(self) -> str:
        return str(self.f)  # type: ignore[attr-defined]

    def domain_size(self) -> int:
        return self.f.size  # type: ignore[attr-defined]

    def _recheck(self, w: dict[str, Any], bound: int | None) -> bool:
        f: IndexFormula = self.f  # type: ignore[attr-defined]
        kind, n = w["kind"], f.size
        if kind == "collision":
            return 0 <= w["i"] < w["j"] < n and f(w["i"]) == f(w["j"])
        if kind == "out":
            return bound is not None and 0 <= w["i"] < n and not 0 <= f(w["i"]) < bound
        if kind == "count":
            return w["size"] == n and w["codomain"] == bound and n != bound
        if kind == "missing":
            return bound is not None and 0 <= w["y"] < bound and not bool((f.offsets() == w["y"]).any())
        return False

    def explain(self, w: dict[str, Any]) -> str:
        f: IndexFormula = self.f  # type: ignore[attr-defined]
        kind = w["kind"]
        if kind == "collision":
            return f"{_show(f, w['i'])} and {_show(f, w['j'])} collide (flat indices {w['i']} and {w['j']})"
        if kind == "out":
            return f"{_show(f, w['i'])} is outside [0,{w.get('bound', self._bound())})"
        if kind == "count":
            return f"size {w['size']} != codomain size {w['codomain']}"
        return f"offset {w['y']} in [0,{self._bound()}) is never hit"

    def _bound(self) -> int | None:
        return getattr(self, "extent", None) or getattr(self, "codomain", None)


@dataclass(frozen=True, slots=True)
class FormulaInjective(_OnFormula):
    """``F(i) == F(j) => i == j``."""

    f: IndexFormula
    name: ClassVar[str] = "injective"

    def exhaustive(self) -> Decision:
        pair = smallest_collision(self.f.offsets())
        return Decision(True) if pair is None else Decision(False, Collision(pair[0], pair[1]))

    def recheck(self, w: dict[str, Any]) -> bool:
        return w["kind"] == "collision" and self._recheck(w, None)


@dataclass(frozen=True, slots=True)
class FormulaInBounds(_OnFormula):
    """``0 <= F(i) < extent`` for every ``i``."""

    f: IndexFormula
    extent: int
    name: ClassVar[str] = "in_bounds"

    def __post_init__(self) -> None:
        _positive(self.extent, "in_bounds extent")

    def subject(self) -> str:
        return f"{self.f}, {self.extent}"

    def exhaustive(self) -> Decision:
        i = first_out_of_range(self.f.offsets(), self.extent)
        return Decision(True) if i is None else Decision(False, OutOfRange(i))

    def recheck(self, w: dict[str, Any]) -> bool:
        return w["kind"] == "out" and self._recheck(w, self.extent)


@dataclass(frozen=True, slots=True)
class FormulaOnto(_OnFormula):
    """``F`` maps into ``[0, n)`` and hits every ``y`` in it (``need_injective``: each once); ``n`` defaults to the
    formula's size."""

    f: IndexFormula
    codomain: int | None = None
    name: ClassVar[str] = "onto"
    need_injective: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "codomain", self.f.size if self.codomain is None else self.codomain)
        _positive(self.codomain, f"{self.name} codomain")

    def subject(self) -> str:
        return f"{self.f}, {self.codomain}"

    def exhaustive(self) -> Decision:
        m, n = self.f.size, self.codomain
        assert n is not None
        if m < n or (self.need_injective and m != n):
            return Decision(False, Count(m, n))
        offs = self.f.offsets()
        i = first_out_of_range(offs, n)
        if i is not None:
            return Decision(False, OutOfRange(i))
        if self.need_injective:
            pair = smallest_collision(offs)
            if pair is not None:
                return Decision(False, Collision(pair[0], pair[1]))
        hit = np.zeros(n, dtype=bool)
        hit[offs] = True
        missing = np.flatnonzero(~hit)
        return Decision(True) if missing.size == 0 else Decision(False, Missing(int(missing[0])))

    def recheck(self, w: dict[str, Any]) -> bool:
        return self._recheck(w, self.codomain)


@dataclass(frozen=True, slots=True)
class FormulaSurjective(FormulaOnto):
    """``F`` maps into and onto ``[0, n)``."""

    name: ClassVar[str] = "surjective"


@dataclass(frozen=True, slots=True)
class FormulaBijective(FormulaOnto):
    """``F`` is a bijection ``[0, N) -> [0, n)``."""

    name: ClassVar[str] = "bijective"
    need_injective: ClassVar[bool] = True


def _positive(n: Any, what: str) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise LayoutError(f"{what} must be a positive int, found {n!r}")


@dataclass(frozen=True, slots=True)
class FormulaExactCover(_OnFormula):
    """A TV map written as a formula of ``(thread, value)`` (its two coordinates, thread first) covers a tile of
    ``tile_size`` elements exactly: every element is the image of exactly ``replication`` pairs, of distinct threads,
    and no pair maps outside ``[0, tile_size)``. The claim of ``properties.tv.ExactCover`` with the formula in the
    TV layout's place (an owner is a ``(t, v)`` pair)."""

    f: IndexFormula
    tile_size: int
    replication: int = 1
    name: ClassVar[str] = "exact_cover"

    def __post_init__(self) -> None:
        if len(self.f.coords) != 2:
            raise LayoutError(f"exact_cover: a TV formula has two coordinates (thread, value), found "
                              f"{', '.join(n for n, _ in self.f.coords)}")
        _positive(self.tile_size, "exact_cover tile size")
        _positive(self.replication, "exact_cover replication")

    def subject(self) -> str:
        k = f", x{self.replication}" if self.replication > 1 else ""
        return f"{self.f} on a tile of {self.tile_size}{k}"

    def _owners(self) -> tuple[np.ndarray, np.ndarray]:
        offs = self.f.offsets()
        threads = np.arange(offs.size) % self.f.coords[0][1]
        return offs, threads

    def exhaustive(self) -> Decision:
        offs, threads = self._owners()
        i = first_out_of_range(offs, self.tile_size)
        if i is not None:
            return Decision(False, OutOfRange(i))
        counts = np.bincount(offs, minlength=self.tile_size)
        bad = np.flatnonzero(counts != self.replication)
        if bad.size:
            e = int(bad[0])
            owners = np.flatnonzero(offs == e).tolist()  # flat (t, v) indices: owner ids t + T*v
            return Decision(False, Owners(e, owners, len(owners)))
        if self.replication > 1:  # owners of one element on distinct threads
            key = offs * self.f.coords[0][1] + threads
            order = np.argsort(key, kind="stable")
            same = np.flatnonzero(key[order][1:] == key[order][:-1])
            if same.size:
                i, j = sorted((int(order[same[0]]), int(order[same[0] + 1])))
                return Decision(False, SameThread(i, j))
        return Decision(True)

    def recheck(self, w: dict[str, Any]) -> bool:
        f, n, t_n = self.f, self.f.size, self.f.coords[0][1]
        if w["kind"] == "out":
            return self._recheck(w, self.tile_size)
        if w["kind"] == "same_thread":
            i, j = w["i"], w["j"]
            return 0 <= i < j < n and f(i) == f(j) and i % t_n == j % t_n
        owners = [i for i in range(n) if f(i) == w["y"]]
        return owners == list(w["owners"]) and len(owners) != self.replication

    def explain(self, w: dict[str, Any]) -> str:
        f = self.f
        if w["kind"] == "out":
            return f"{_show(f, w['i'])} is outside the tile [0,{self.tile_size})"
        if w["kind"] == "same_thread":
            return (f"{_show(f, w['i'])} and {_show(f, w['j'])}: one thread owns tile element {f(w['i'])} twice "
                    f"(its {self.replication} owners must be distinct threads)")
        who = ", ".join(f.show(i) for i in w["owners"]) or "no (thread, value)"
        return (f"tile element {w['y']} is owned by {len(w['owners'])} (thread, value) pairs, not "
                f"{self.replication}: {who}")


def formula_property(name: str, f: IndexFormula, bound: int | None = None, tile_size: int | None = None,
                     replication: int | None = None) -> Property:
    """The claim called ``name`` about the formula ``f`` (``bound``: the codomain or in_bounds extent; ``tile_size``
    and ``replication``: a TV formula's ``exact_cover``)."""
    if name == FormulaExactCover.name:
        if tile_size is None:
            raise LayoutError("property 'exact_cover' of a formula needs a TV map (kind 'tv' with 'tile')")
        return FormulaExactCover(f, tile_size, replication or 1)
    claim = {c.name: c for c in (FormulaInjective, FormulaInBounds, FormulaSurjective, FormulaBijective)}.get(name)
    if claim is FormulaInjective:
        return FormulaInjective(f)
    if claim is FormulaInBounds and bound is None:
        raise LayoutError("property 'in_bounds' of a formula needs a 'bound' (or the config's 'codomain')")
    if claim is not None:
        return claim(f, bound)
    raise LayoutError(f"property {name!r} is not defined for an index formula (use injective, surjective, "
                      "bijective, in_bounds, equivalent; conflict_free and wavefront_count under kind 'smem')")


__all__ = ["FormulaBijective", "FormulaExactCover", "FormulaInBounds", "FormulaInjective", "FormulaOnto",
           "FormulaSurjective", "formula_property"]
