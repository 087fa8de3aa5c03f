"""``equivalent(A, B)`` between any two layout values: the claim that two layouts are the same function.

A valid cover can still be the wrong map (a compiler's slice of an MMA layout with one basis misplaced): every
element owned once, but by the wrong thread. Only "these two layouts are the same function" catches it, so the claim
is stated between any two of the forms a user writes:

=================================  ===========================================  ===================================
value                              domain (first fastest)                       value at a point
=================================  ===========================================  ===================================
CuTe ``Layout`` / ``ComposedLayout``  its shape, colexicographic (CuTe's)         the offset ``L(i)``
Triton ``LinearLayout``             its input dimensions (``register``, ``lane``,  the flat output, ``dim0`` fastest
                                    ``warp``, ``block``: Triton's ``flattenIns``)  (``m + M*n``: CuTe's tile index)
TileLang map (no CuTe form)         ``(_i, _j, ..., _rep)``                       the row-major offset (a Layout) or
                                                                                 ``thread + T*register`` (a Fragment)
index formula (``IndexFormula``)    its coordinates, as declared                  the formula's value
=================================  ===========================================  ===================================

Definition::

    equivalent(A, B)   size(A) == size(B), and A(i) == B(i) for every flat index i in [0, size)

where a flat index enumerates each side's domain first coordinate fastest. Two Triton layouts are compared on their
own named dimensions (B's input dimensions put in A's order; a dimension one side lacks has size 1 there): their
input dimensions, and their output shapes, must agree or the claim is refuted with the ``domain`` / ``codomain``
witness (a register is not a lane). A Triton layout
compared with any *other* form is read in CuTe's TV order: ``(thread, value)`` with ``thread = lane + 32*warp (+
block above)`` and ``value = register`` -- the order of a CuTe TV layout ``(T, V) -> m + M*n``.

Witnesses: ``size`` (the first index only one side has), ``domain`` / ``codomain`` (two Triton layouts over different
dimensions), ``differ`` (the smallest flat index where the values differ), each named in both sides' own coordinates
(CuTe's colexicographic coordinate, Triton's ``register=.., lane=..``, TileLang's ``_i=..``, the formula's names).
Worked example: ``(4,8):(8,1)`` against the formula ``r*8 + c`` over ``{ r = 4, c = 8 }`` holds; against ``r*8 +
(c ^ r)`` it fails first at index 4, ``A(0,1) -> 8`` but ``B(r=0, c=1) -> 9``.

Decided by the exhaustive engine (both sides streamed in chunks, nothing held per point), by the linear engine where
both sides are GF(2)-linear (equal iff equal columns; the first difference is ``2**j`` for the lowest differing
column ``j``), and by the z3 engine over the expression IR (one variable per coordinate of each side, tied to one
flat index, which is minimised) for domains past the memory budget.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from math import prod
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.linear_layout import LinearLayout
from layoutcheck.algebra.notation import as_subject
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.errors import LayoutError
from layoutcheck.expr.formula import IndexFormula
from layoutcheck.expr.ir import Expr, add, band, const, mul, shr, var, xor
from layoutcheck.expr.lower import index_ast
from layoutcheck.expr.numpy import evaluate
from layoutcheck.properties.base import Decision, Property, at, subject_size
from layoutcheck.properties.scan import CHUNK, chunks, zip_streams
from layoutcheck.witness_maps import CodomainMismatch, Differ, DomainMismatch, SizeMismatch

TV_ORDER = ("lane", "warp", "block", "register")
"""A Triton layout's input dimensions in CuTe's ``(thread, value)`` order (when compared with another form)."""


# -- the view: one domain and one value per point, for every form ----------------------------------------------------
def is_tilelang(x: Any) -> bool:
    return hasattr(x, "forward_index")


def in_tv_order(ll: LinearLayout) -> LinearLayout:
    """``ll`` with its input dimensions in CuTe's TV order (``TV_ORDER``; other names after, as they were)."""
    if "lane" not in ll.in_dims and "register" not in ll.in_dims:  # a shared layout (offset, block): as it is
        return ll
    names = [n for n in TV_ORDER if n in ll.in_dims] + [n for n in ll.in_dims if n not in TV_ORDER]
    return ll.transpose_ins(names)


def domain(x: Any) -> tuple[tuple[str, int], ...]:
    """``(name, extent)`` of each coordinate of ``x``'s domain, first fastest (a CuTe layout: one flat index ``i``)."""
    if isinstance(x, LinearLayout):
        return tuple((n, x.in_dim_size(n)) for n in x.in_dims)
    if isinstance(x, IndexFormula):
        return x.coords
    if is_tilelang(x):
        return tuple(x.domain)
    return (("i", subject_size(x)),)


def text(x: Any) -> str:
    """``x`` on one line (a Triton layout as its named bases)."""
    if isinstance(x, LinearLayout):
        ins = ", ".join(f"{n}={x.bases[n]}" for n in x.in_dims)
        outs = ", ".join(f"{n}={m}" for n, m in x.out_dims)
        return f"LinearLayout({ins} -> {outs})"
    return " ".join(str(x).split())


def map_size(x: Any) -> int:
    return prod(n for _, n in domain(x))


def _coords(x: Any, i: int) -> dict[str, int]:
    out = {}
    for name, n in domain(x):
        out[name] = i % n
        i //= n
    return out


def show(x: Any, i: int) -> str:
    """Flat index ``i`` of ``x`` in ``x``'s own coordinates, with its value: ``(0,1) -> 8``, ``(register=1,
    lane=4, warp=0) -> 37``, ``(r=0, c=1) -> 9``."""
    if isinstance(x, (Layout, ComposedLayout)):
        return at(x, i)
    return "(" + ", ".join(f"{k}={v}" for k, v in _coords(x, i).items()) + f") -> {value_at(x, i)}"


def _tilelang_scalar(x: Any, outs: list[Any]) -> Any:
    """TileLang's scalar of output coordinates: a Layout's row-major offset, a Fragment's ``thread + T*register``."""
    flat: Any = 0
    for c, n in zip(outs[1:] if hasattr(x, "forward_thread") else outs, x.output_shape, strict=True):
        flat = flat * n + c
    return outs[0] + x.thread * flat if hasattr(x, "forward_thread") else flat


def _tilelang_outputs(x: Any) -> list[Expr]:
    return ([x.forward_thread] if hasattr(x, "forward_thread") else []) + list(x.forward_index)


def value_at(x: Any, i: int) -> int:
    """``x`` at flat index ``i``, evaluated at that one point (the re-check's own path, not the streamed one)."""
    if not 0 <= i < map_size(x):
        raise LayoutError(f"index {i} outside the domain [0, {map_size(x)}) of {x}")
    if isinstance(x, LinearLayout):
        return x.flatten_out(x.apply(x.unflatten_in(i)))
    if isinstance(x, IndexFormula):
        return x(i)
    if is_tilelang(x):
        env = _coords(x, i)
        return int(_tilelang_scalar(x, [int(evaluate(e, env)) for e in _tilelang_outputs(x)]))
    return int(x(i))


def values(x: Any, idx: np.ndarray) -> np.ndarray:
    """``x`` at the flat indices ``idx`` (vectorised; int64)."""
    if isinstance(x, LinearLayout):
        out = np.zeros(idx.shape, dtype=np.int64)
        for b, col in enumerate(x.columns()):
            out ^= ((idx >> b) & 1) * col
        return out
    if isinstance(x, IndexFormula):
        return x.at(idx)
    env: dict[str, Any] = {}
    rest = idx
    for name, n in domain(x):
        env[name], rest = rest % n, rest // n
    outs = [np.broadcast_to(np.asarray(evaluate(e, env), dtype=np.int64), idx.shape) for e in _tilelang_outputs(x)]
    return np.asarray(_tilelang_scalar(x, outs), dtype=np.int64)


def stream(x: Any, chunk: int = CHUNK) -> Iterator[tuple[int, np.ndarray]]:
    """``(start, values)`` over ``[0, size)`` in order, one chunk at a time."""
    if isinstance(x, (Layout, ComposedLayout)):
        yield from chunks(x, chunk)
        return
    n = map_size(x)
    for start in range(0, n, chunk):
        yield start, values(x, np.arange(start, min(n, start + chunk), dtype=np.int64))


def scalar_expr(x: Any) -> Expr:
    """``x``'s value as one IR tree over its coordinates, each a variable named as in ``domain(x)`` (a CuTe layout:
    its flat index ``i``)."""
    env = {name: var(name, n) for name, n in domain(x)}
    if isinstance(x, LinearLayout):
        out: Expr = const(0)
        cols = iter(x.columns())
        for name in x.in_dims:
            for b in range(x.in_dim_bits(name)):
                col = next(cols)
                if col:
                    out = xor(out, mul(band(shr(env[name], b), 1), col))
        return out
    if isinstance(x, IndexFormula):
        return x.expr
    if is_tilelang(x):
        outs = _tilelang_outputs(x)
        flat: Expr = const(0)
        for c, n in zip(outs[1:] if hasattr(x, "forward_thread") else outs, x.output_shape, strict=True):
            flat = add(mul(flat, n), c)
        return add(outs[0], mul(flat, x.thread)) if hasattr(x, "forward_thread") else flat
    return index_ast(x, env["i"], signed=True)


# -- the claim ------------------------------------------------------------------------------------------------------
def as_value(x: Any, what: str) -> Any:
    """A layout value of any form (CuTe text is parsed); anything else is a ``LayoutError`` naming the forms."""
    if isinstance(x, (LinearLayout, IndexFormula)) or is_tilelang(x):
        return x
    try:
        return as_subject(x, what)
    except LayoutError:
        raise LayoutError(f"{what} must be a CuTe layout, a Triton LinearLayout, a TileLang map or an index formula, "
                          f"found {type(x).__name__} {x!r}") from None


@dataclass(frozen=True, slots=True)
class MapEquivalent(Property):
    """``size(A) == size(B)`` and ``A(i) == B(i)`` for every flat index ``i``, for any two layout forms."""

    a: Any
    b: Any
    name: ClassVar[str] = "equivalent"
    bytes_per_point: ClassVar[int] = 1  # chunk by chunk: no per-point storage

    def __post_init__(self) -> None:
        a, b = as_value(self.a, "equivalent: A"), as_value(self.b, "equivalent: B")
        if isinstance(a, LinearLayout) and isinstance(b, LinearLayout):  # one set of names (a missing one: size 1)
            a = a.with_in_dims([*a.in_dims, *(n for n in b.in_dims if n not in a.in_dims)])
            b = b.with_in_dims(a.in_dims)
        else:
            a = in_tv_order(a) if isinstance(a, LinearLayout) else a
            b = in_tv_order(b) if isinstance(b, LinearLayout) else b
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)

    def subjects(self) -> tuple[Any, ...]:
        return (self.a, self.b)

    def subject(self) -> str:
        return f"{text(self.a)}, {text(self.b)}"

    def domain_size(self) -> int:
        return max(map_size(self.a), map_size(self.b))

    def structure_witness(self) -> dict[str, Any] | None:
        """The witness sizes or named dimensions alone give: ``size`` (one side has more points), ``domain`` /
        ``codomain`` (two Triton layouts over different input dimensions / output shapes); ``None`` otherwise."""
        na, nb = map_size(self.a), map_size(self.b)
        if na != nb:
            return SizeMismatch(min(na, nb), na, nb)
        a, b = self.a, self.b
        if isinstance(a, LinearLayout) and isinstance(b, LinearLayout):
            if domain(a) != domain(b):
                return DomainMismatch([list(d) for d in domain(a)], [list(d) for d in domain(b)])
            if a.out_dims != b.out_dims:
                return CodomainMismatch([list(d) for d in a.out_dims], [list(d) for d in b.out_dims])
        return None

    def refutation(self) -> Decision | None:
        w = self.structure_witness()
        return None if w is None else Decision(False, w)

    def exhaustive(self) -> Decision:
        w = self.structure_witness()
        if w is not None:
            return Decision(False, w)
        first, differing = None, 0
        for start, a, b in zip_streams(stream(self.a), stream(self.b)):
            diff = np.flatnonzero(a != b)
            differing += diff.size
            first = start + int(diff[0]) if first is None and diff.size else first
        stats = {"differing": differing}
        return Decision(True, None, stats) if first is None else Decision(False, Differ(first), stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        if w["kind"] != "differ":
            return w == self.structure_witness()
        i = w["i"]
        return (self.structure_witness() is None and 0 <= i < map_size(self.a)
                and value_at(self.a, i) != value_at(self.b, i))

    def explain(self, w: dict[str, Any]) -> str:
        kind = w["kind"]
        if kind == "size":
            side, x = ("A", self.a) if w["size_a"] > w["size_b"] else ("B", self.b)
            return (f"sizes differ: size(A) = {w['size_a']}, size(B) = {w['size_b']}; index {w['i']} exists only in "
                    f"{side}: {side}{show(x, w['i'])}")
        if kind in ("domain", "codomain"):
            what = "input dimensions" if kind == "domain" else "output dimensions"

            def text(d: list[list[Any]]) -> str:
                return "(" + ", ".join(f"{n}={s}" for n, s in d) + ")"

            return f"{what} differ: A has {text(w['a'])}, B has {text(w['b'])}"
        i = w["i"]
        return f"index {i}: A{show(self.a, i)} but B{show(self.b, i)}"


def map_equivalent(a: Any, b: Any) -> MapEquivalent:
    """Claim: ``a`` and ``b`` (any layout forms) are the same function of the flat index.

    >>> from layoutcheck.expr.formula import parse_formula
    >>> from layoutcheck.engines.prove import prove
    >>> prove(map_equivalent(Layout((8, 4), (1, 8)), parse_formula("r*8 + c", {"c": 8, "r": 4}))).status.value
    'PROVEN'
    """
    return MapEquivalent(a, b)


__all__ = ["TV_ORDER", "MapEquivalent", "as_value", "domain", "in_tv_order", "map_equivalent",
           "map_size", "scalar_expr", "show", "stream", "text", "value_at", "values"]
