"""What a TileLang layout implies: claims about a ``Layout`` / ``Fragment`` printout decided on its own index
expressions (``layoutcheck.importers.tilelang``), whether or not a CuTe or linear layout has the same map.

Definitions (``x`` a TileLang value, its domain the input coordinates ``(_i, _j, ...)`` and, for a Fragment, the
replica ``_rep``; colexicographic, ``_i`` fastest)::

    tl_in_bounds(x)     every output coordinate lies in its printed extent: a Layout's ``forward_index[k]`` in
                        ``[0, output_shape[k])``; a Fragment's ``forward_thread`` in ``[0, thread)`` and each
                        register coordinate in ``[0, output_shape[k])``
    tl_injective(L)     two input coordinates never share an output coordinate (a Layout)
    tl_bijective(x)     in bounds, injective, and as many points as the printed output has: a Layout onto
                        ``prod(output_shape)`` offsets, a Fragment's (element, replica) pairs onto its
                        ``thread x registers`` slots (every slot one element copy)

A printout is TileLang's own record of a layout: its output extents are what TileLang allocates and indexes with
(``GetLinearizedForwardIndex`` is row-major over them), so a coordinate past its extent is a wrong layout -- REFUTED
with the first such input coordinate -- not an unreadable one. Worked example: TileLang 0.1.15 prints
``T.Layout([64, 40], lambda i, j: [T.if_then_else(j < 32, i*32 + j, 2048 + i*8 + (j - 32))])`` as ``(64, 40) ->
(64,)``; ``tl_in_bounds`` is refuted at ``(_i=2, _j=0) -> 64`` and ``tl_injective`` is proven.

``tilelang_claims(text)`` lists these claims for every layout of a log or of lowered TIR (what ``layoutcheck check
FILE`` proves for such a file, as it does for a ``.ttgir`` module). Every claim is decided by the exhaustive engine
on the expression IR's NumPy interpreter (``domain_size`` points) and, past its memory budget, by the Z3 engine on
the same expressions (``layoutcheck.engines.z3``: the same first witness; a ``bijective`` with fewer points than
slots whose only fault is a missed slot stays UNKNOWN there); each witness is re-evaluated at its one point before it
is reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Any, ClassVar

import numpy as np

from layoutcheck.errors import LayoutError
from layoutcheck.expr.numpy import evaluate, offsets_of
from layoutcheck.importers.tilelang import TileLang, TileLangFragment, parse_tilelang, points, printout, slots
from layoutcheck.importers.tilelang_tir import tilelang_records
from layoutcheck.properties.base import Decision, Property
from layoutcheck.properties.ttgir import Claim
from layoutcheck.witness_maps import Collision, OutOfRange, SlotMissing


def output_dims(x: TileLang) -> list[tuple[str, Any, int]]:
    """``(name, expression, extent)`` of every output coordinate: a Fragment's thread first, then its registers
    (the coordinates ``in_bounds`` bounds and ``injective`` compares)."""
    index = [(f"output coordinate {k}", e, n) for k, (e, n) in enumerate(zip(x.forward_index, x.output_shape,
                                                                           strict=True))]
    if isinstance(x, TileLangFragment):
        return [("thread", x.forward_thread, x.thread), *[(f"register coordinate {k}", e, n) for k, (_, e, n)
                                                            in enumerate(index)]]
    return index


def out_witness(x: TileLang, i: int) -> dict[str, Any] | None:
    """The ``out`` witness of domain point ``i`` (its first output coordinate past its extent, evaluated at that one
    point), or ``None`` when every coordinate there is in bounds."""
    for k, (c, (_, _, n)) in enumerate(zip(_at(x, i), output_dims(x), strict=True)):
        if not 0 <= c < n:
            return OutOfRange(i, dim=k, value=c, extent=n)
    return None


def _point(x: TileLang, i: int) -> dict[str, int]:
    """Flat domain index ``i`` as ``{"_i": 3, "_j": 5, ...}``."""
    env = {}
    for name, n in x.domain:
        env[name] = i % n
        i //= n
    return env


def _show(x: TileLang, i: int) -> str:
    return "(" + ", ".join(f"{k}={v}" for k, v in _point(x, i).items()) + ")"


def _at(x: TileLang, i: int) -> tuple[int, ...]:
    """The output coordinates of domain point ``i``, evaluated at that one point (the re-check's own path)."""
    env = _point(x, i)
    return tuple(int(evaluate(e, env)) for _, e, _ in output_dims(x))


def _table(x: TileLang) -> np.ndarray:
    """Output coordinates at every domain point: shape ``(points, dims)``."""
    return np.stack([offsets_of(e, x.domain) for _, e, _ in output_dims(x)], axis=1)


def _outside(x: TileLang, table: np.ndarray) -> dict[str, Any] | None:
    """The first domain point with a coordinate past its extent, as an ``out`` witness."""
    ext = np.array([n for _, _, n in output_dims(x)], dtype=np.int64)
    bad = (table < 0) | (table >= ext)
    if not bad.any():
        return None
    return out_witness(x, int(np.flatnonzero(bad.any(axis=1))[0]))


def _collision(table: np.ndarray) -> dict[str, Any] | None:
    """The smallest ``i`` whose coordinates repeat and the next ``j`` with them, as a ``collision`` witness."""
    _, first, inverse, counts = np.unique(table, axis=0, return_index=True, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    if not (counts > 1).any():
        return None
    g = int(np.argmin(np.where(counts > 1, first, table.shape[0])))
    i = int(first[g])
    return Collision(i, int(np.flatnonzero(inverse == g)[1]))


class _OnTileLang(Property):
    __slots__ = ()

    def subjects(self) -> tuple[Any, ...]:
        return (self.x,)  # type: ignore[attr-defined]

    def subject(self) -> str:
        return printout(self.x)  # type: ignore[attr-defined]

    def domain_size(self) -> int:
        return prod(n for _, n in self.x.domain)  # type: ignore[attr-defined]

    def _recheck(self, w: dict[str, Any]) -> bool:
        x: TileLang = self.x  # type: ignore[attr-defined]
        n = self.domain_size()
        if w["kind"] == "out":
            if not 0 <= w["i"] < n:
                return False
            got = _at(x, w["i"])[w["dim"]]
            return got == w["value"] and not 0 <= got < output_dims(x)[w["dim"]][2]
        if w["kind"] == "collision":
            return 0 <= w["i"] < w["j"] < n and _at(x, w["i"]) == _at(x, w["j"])
        if w["kind"] == "missing":
            slot = tuple(w["slot"])
            ext = [m for _, _, m in output_dims(x)]
            return (all(0 <= c < m for c, m in zip(slot, ext, strict=True))
                    and not (_table(x) == np.array(slot)).all(axis=1).any())
        return False

    def explain(self, w: dict[str, Any]) -> str:
        x: TileLang = self.x  # type: ignore[attr-defined]
        if w["kind"] == "out":
            name = output_dims(x)[w["dim"]][0]
            return (f"{_show(x, w['i'])} -> {name} = {w['value']}, outside its printed extent {w['extent']}")
        if w["kind"] == "collision":
            return f"{_show(x, w['i'])} and {_show(x, w['j'])} both map to {_slot(x, _at(x, w['i']))}"
        return f"no input point maps to {_slot(x, tuple(w['slot']))} ({w['points']} points for {w['slots']} slots)"


def _slot(x: TileLang, coords: tuple[int, ...]) -> str:
    """Output coordinates as text: ``thread 5, register 2`` for a Fragment, ``(3, 7)`` for a Layout."""
    if isinstance(x, TileLangFragment):
        regs = coords[1:]
        reg = regs[0] if len(regs) == 1 else "(" + ", ".join(map(str, regs)) + ")"
        return f"thread {coords[0]}, register {reg}"
    return "(" + ", ".join(map(str, coords)) + ("," if len(coords) == 1 else "") + ")"


def _missing(x: TileLang, table: np.ndarray) -> dict[str, Any] | None:
    """The first output slot (first coordinate fastest) no point reaches, as a ``missing`` witness; ``table`` in
    bounds."""
    ext = [n for _, _, n in output_dims(x)]
    flat = np.zeros(table.shape[0], dtype=np.int64)
    for k in reversed(range(len(ext))):
        flat = flat * ext[k] + table[:, k]
    hit = np.zeros(prod(ext), dtype=bool)
    hit[flat] = True
    if hit.all():
        return None
    y, slot = int(np.flatnonzero(~hit)[0]), []
    for m in ext:
        slot.append(y % m)
        y //= m
    return SlotMissing(slot, int(table.shape[0]), prod(ext))


@dataclass(frozen=True, slots=True)
class TileLangInBounds(_OnTileLang):
    """Every output coordinate of a TileLang layout lies within its printed extent."""

    x: TileLang
    name: ClassVar[str] = "in_bounds"

    def exhaustive(self) -> Decision:
        w = _outside(self.x, _table(self.x))
        return Decision(True) if w is None else Decision(False, w)

    def recheck(self, w: dict[str, Any]) -> bool:
        return w["kind"] == "out" and self._recheck(w)


@dataclass(frozen=True, slots=True)
class TileLangInjective(_OnTileLang):
    """Distinct input points of a TileLang layout have distinct output coordinates."""

    x: TileLang
    name: ClassVar[str] = "injective"

    def exhaustive(self) -> Decision:
        w = _collision(_table(self.x))
        return Decision(True) if w is None else Decision(False, w)

    def recheck(self, w: dict[str, Any]) -> bool:
        return w["kind"] == "collision" and self._recheck(w)


@dataclass(frozen=True, slots=True)
class TileLangBijective(_OnTileLang):
    """In bounds and injective onto exactly the printed output (a Fragment: every thread x register slot holds one
    element copy)."""

    x: TileLang
    name: ClassVar[str] = "bijective"

    def exhaustive(self) -> Decision:
        table = _table(self.x)
        w = _outside(self.x, table) or _collision(table) or _missing(self.x, table)
        return Decision(True) if w is None else Decision(False, w)

    def recheck(self, w: dict[str, Any]) -> bool:
        return self._recheck(w)


def tilelang_properties(x: TileLang) -> list[Property]:
    """The claims TileLang relies on for one layout: ``in_bounds``, then ``bijective`` where the printout has as many
    slots as points, else ``injective`` (a tail fragment may leave registers empty; two copies in one register, or
    two elements at one offset, are never right).

    >>> [p.name for p in tilelang_properties(parse_tilelang("Layout((4, 8) -> (32,), transform: (_i, _j) -> "
    ...                                                     "(_i * 8 + _j,))"))]
    ['in_bounds', 'bijective']
    """
    return [TileLangInBounds(x), TileLangBijective(x) if points(x) == slots(x) else TileLangInjective(x)]


def tilelang_property(name: str, x: TileLang) -> Property:
    """The TileLang claim called ``name`` (``in_bounds``, ``injective``, ``bijective``) about ``x``."""
    table = {c.name: c for c in (TileLangInBounds, TileLangInjective, TileLangBijective)}
    if name not in table:
        raise LayoutError(f"property {name!r} is not defined for a TileLang map without a CuTe or linear form (use "
                          f"one of {', '.join(table)})")
    return table[name](x)


def tilelang_claims(text: str) -> list[Claim]:
    """Every claim a file of TileLang printouts (a log) or of lowered TIR (``layout_map`` with its metadata)
    implies, in file order; ``subject`` names the record (its ``# name:`` comment or its buffer).

    Pre: the text holds at least one printout (else ``ParseError`` naming what it found). Post: per layout, its
    ``tilelang_properties``. A printout that does not read (a truncated log line included) raises ``ParseError``:
    unreadable input is an ERROR, never a silently shorter list.
    """
    out = []
    for stem, what, body in tilelang_records(text):
        if what.startswith("layout_map:"):  # lowered TIR: the line of the buffer's first layout_map entry
            at = text.find(f"{stem}: metadata[")
            line = text.count("\n", 0, at) + 1 if at >= 0 else 0
        else:
            line = int(stem.removeprefix("line"))
        out += [Claim(line, what, p) for p in tilelang_properties(parse_tilelang(body))]
    return out


__all__ = ["TileLangBijective", "TileLangInBounds", "TileLangInjective", "out_witness", "output_dims", "slots",
           "tilelang_claims", "tilelang_properties", "tilelang_property"]
