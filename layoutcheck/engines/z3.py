"""The z3 engine: layouts lowered to the expression IR, as bit-vector terms; PROVEN when the negation is ``unsat``.

Encoding of ``x(i)`` for ``i`` a ``W``-bit vector with ``i < size``: ``layoutcheck.expr.lower.index_ast`` builds the
layout's closed form (coordinates ``(i // prefix_m) % s_m``, the offset ``sum c_m * d_m``, then the swizzle's own
formula ``y ^ ((y & yyy) >> S)``), and ``layoutcheck.expr.z3.to_z3`` interprets it through one table from operation
to term (two's complement, so negative strides are exact). ``W`` is computed from the layout so nothing overflows:
enough bits for ``size``, for every partial sum of ``|c_m * d_m|``, for the offset and for the swizzle's masks, plus
a sign bit and a margin.

Every query runs in a fresh ``z3.Context`` with a deterministic ``rlimit`` *and* a wall-clock timeout, through one
choke point (``_solve``) that maps ``unknown`` to UNKNOWN with ``reason_unknown()``: a timeout never proves.
A ``sat`` model is decoded into a witness and minimised lexicographically by binary search (each step under the
same limits; if a step is not decided the witness found so far is reported, still re-checked by evaluation).

TileLang maps with no CuTe or linear form (``T.max``/``T.min``/``T.if_then_else``/comparisons: the claims of
``properties.tilelang``) are encoded on their own expressions, one variable per input coordinate; ``W`` comes from
interval arithmetic over every sub-expression (``expr.z3.width_of``). Minimising the coordinates slowest first gives
the smallest flat (colexicographic) index, so the witness is the one the exhaustive engine reports first, in its
format: ``out`` at the first point with a coordinate past its extent, ``collision`` at the smallest pair ``i < j``.
A ``bijective`` claim with fewer points than slots, in bounds and injective, misses a slot; which one first needs a
quantifier, so it is UNKNOWN here (the exhaustive engine names it).
"""

from __future__ import annotations

import time
from math import prod
from typing import TYPE_CHECKING, Any

from layoutcheck.algebra.layout import flat_modes
from layoutcheck.algebra.swizzle import ComposedLayout, Subject, inner
from layoutcheck.engines.base import HandlerEngine, Limits, register_engine
from layoutcheck.expr.ir import Expr, add, band, const, div, mul, var
from layoutcheck.expr.lower import index_ast, swizzle_ast
from layoutcheck.expr.z3 import to_z3, width_of
from layoutcheck.properties.banks import ConflictFreeAtEveryBase
from layoutcheck.properties.base import Decision, Property, Undecided, subject_size
from layoutcheck.properties.equivalence import MapEquivalent, domain, map_size, scalar_expr
from layoutcheck.properties.layout import Equivalent, InBounds, Injective, Onto, Surjective
from layoutcheck.properties.tv import ExactCover, Vectorizable
from layoutcheck.witness_banks import Base
from layoutcheck.witness_maps import Collision, Differ, OutOfRange, Owners, Vector

if TYPE_CHECKING:  # the TileLang claims load with their importers, only when a TileLang file is read
    from layoutcheck.importers.tilelang import TileLang
    from layoutcheck.properties.tilelang import TileLangBijective, TileLangInBounds, TileLangInjective

DEFAULT_RLIMIT = 50_000_000
"""z3 resource units per query (deterministic across machines, unlike the wall clock)."""


def width_for(*subjects: Subject, extra: int = 0) -> int:
    """Bits so that indices, offsets, partial sums and swizzle masks of ``subjects`` never overflow (signed)."""
    need = extra.bit_length()
    for x in subjects:
        lay = inner(x)
        total = sum((s - 1) * abs(d) for s, d in flat_modes(lay))
        need = max(need, subject_size(x).bit_length(), total.bit_length())
        if isinstance(x, ComposedLayout):
            sw = x.swizzle
            need = max(need, (total + abs(x.offset)).bit_length(), sw.yyy_mask.bit_length(), sw.zzz_mask.bit_length())
    return need + 2


def solve(z3: Any, solver: Any, deadline: float) -> tuple[str, Any]:
    """The choke point of every z3 query (bit-vector or integer): ``('sat', model)``, ``('unsat', None)`` or
    ``('unknown', reason)``; the time left to ``deadline`` is the solver's timeout, and ``unknown`` (timeout, rlimit,
    incompleteness) is never turned into a proof."""
    left = deadline - time.monotonic()
    if left <= 0:
        return "unknown", "timeout"
    solver.set("timeout", max(1, int(left * 1000)))
    r = solver.check()
    if r == z3.sat:
        return "sat", solver.model()
    if r == z3.unsat:
        return "unsat", None
    reason = solver.reason_unknown()
    if time.monotonic() >= deadline:
        reason = f"timeout ({reason})"
    return "unknown", f"solver unknown: {reason}"


class _Query:
    """One fresh z3 context and solver with the limits applied; builds layout terms in it."""

    def __init__(self, width: int, limits: Limits) -> None:
        import z3

        self.z3, self.width, self.limits = z3, width, limits
        self.ctx = z3.Context()
        self.solver = z3.SolverFor("QF_BV", ctx=self.ctx)
        self.solver.set("rlimit", limits.rlimit if limits.rlimit is not None else DEFAULT_RLIMIT)
        self.deadline = time.monotonic() + limits.timeout
        self.checks = 0
        self.env: dict[str, Any] = {}
        self.bounds: dict[str, int] = {}
        self.memo: dict[Expr, Any] = {}

    def var(self, name: str, below: int) -> Any:
        """A fresh variable ``0 <= name < below`` (also known to ``term`` and ``evaluate`` by its name)."""
        v = self.z3.BitVec(name, self.width, ctx=self.ctx)
        self.solver.add(self.z3.ULT(v, self.const(below)))
        self.env[name], self.bounds[name] = v, below
        return v

    def const(self, n: int) -> Any:
        return self.z3.BitVecVal(n, self.width, ctx=self.ctx)

    def term(self, e: Expr) -> Any:
        """The term of an IR expression over this query's variables."""
        return to_z3(e, self.env, self.width, self.ctx, self.memo)

    def evaluate(self, x: Subject, at: Expr | str) -> Any:
        """The term ``x(at)`` (signed, ``width`` bits); ``at`` is a variable name or an IR index expression."""
        e = at if isinstance(at, Expr) else var(at, self.bounds[at])
        return self.term(index_ast(x, e, signed=True))

    def solve(self) -> tuple[str, Any]:
        """Every ``check()`` of this query, through the engine's one choke point (``solve``)."""
        self.checks += 1
        return solve(self.z3, self.solver, self.deadline)

    def value(self, model: Any, v: Any) -> int:
        return model.eval(v, model_completion=True).as_long()

    def minimise(self, model: Any, variables: list[Any]) -> dict[str, int]:
        """Lexicographically smallest assignment of ``variables`` (in order), by binary search per variable."""
        z3, s = self.z3, self.solver
        vals = [self.value(model, v) for v in variables]
        for k, v in enumerate(variables):
            lo, hi = 0, vals[k]
            while lo < hi:
                mid = (lo + hi) // 2
                s.push()
                s.add(z3.ULE(v, self.const(mid)))
                status, m = self.solve()
                s.pop()
                if status == "sat":
                    hi = self.value(m, v)
                    vals = [self.value(m, w) for w in variables]
                elif status == "unsat":
                    lo = mid + 1
                else:
                    return {str(w): val for w, val in zip(variables, vals, strict=True)}
            vals[k] = hi
            s.add(v == self.const(hi))
        return {str(w): val for w, val in zip(variables, vals, strict=True)}


def _decide(q: _Query, variables: list[Any], witness: Any, stats: dict[str, Any]) -> Decision | Undecided:
    """Run the negated property already asserted in ``q``: ``unsat`` -> holds; ``sat`` -> minimised witness."""
    status, model = q.solve()
    stats = {**stats, "width": q.width}
    if status == "unsat":
        return Decision(True, None, {**stats, "checks": q.checks})
    if status == "unknown":
        return Undecided(model, {**stats, "checks": q.checks})
    vals = q.minimise(model, variables)
    return Decision(False, witness(vals), {**stats, "checks": q.checks})


_BY_NAME: dict[str, Any] = {}
"""Handlers of properties whose modules ``check`` need not load (``module.Class`` -> handler): a property of such a
module exists only once its module is imported, so the handler imports it lazily and the engine stays light."""


def _handles_named(qualname: str) -> Any:
    def register(fn: Any) -> Any:
        _BY_NAME[qualname] = fn
        return fn

    return register


class Z3Engine(HandlerEngine):
    def handler(self, prop: Property) -> Any:
        return super().handler(prop) or _BY_NAME.get(f"{type(prop).__module__}.{type(prop).__qualname__}")

    def precondition(self, prop: Property) -> str | None:
        if isinstance(prop, Surjective) and subject_size(prop.layout) > prop.codomain:
            return "unsupported: a surjection from a larger domain needs counting (quantifiers); not encoded"
        if isinstance(prop, ExactCover) and (prop.replication != 1 or not prop.sizes_match):
            return "unsupported: replicated exact cover, or size(tv) != size(tile), needs counting owners; not encoded"
        try:
            import z3  # noqa: F401
        except ImportError:
            return "unsupported: z3-solver is not installed"
        return None


Z3 = register_engine(Z3Engine("z3"))


def _injective_query(x: Subject, limits: Limits) -> Decision | Undecided:
    n = subject_size(x)
    q = _Query(width_for(x), limits)
    i, j = q.var("i", n), q.var("j", n)
    q.solver.add(q.z3.ULT(i, j), q.evaluate(x, "i") == q.evaluate(x, "j"))
    return _decide(q, [i, j], lambda v: Collision(v["i"], v["j"]), {})


def _out_query(x: Subject, extent: int, limits: Limits) -> Decision | Undecided:
    q = _Query(width_for(x, extra=extent), limits)
    i = q.var("i", subject_size(x))
    y = q.evaluate(x, "i")
    q.solver.add(q.z3.Or(y < q.const(0), y >= q.const(extent)))
    return _decide(q, [i], lambda v: OutOfRange(v["i"]), {})


@Z3.handles(Injective)
def _injective(prop: Injective, limits: Limits) -> Decision | Undecided:
    return _injective_query(prop.layout, limits)


@Z3.handles(InBounds)
def _in_bounds(prop: InBounds, limits: Limits) -> Decision | Undecided:
    return _out_query(prop.layout, prop.extent, limits)


def _in_range_and_injective(x: Subject, n: int, limits: Limits) -> Decision | Undecided:
    t0 = time.monotonic()
    first = _out_query(x, n, limits)
    if not (isinstance(first, Decision) and first.holds):
        return first
    left = Limits(limits.timeout - (time.monotonic() - t0), limits.memory_budget, limits.rlimit)
    return _injective_query(x, left) if left.timeout > 0 else Undecided("timeout")


@Z3.handles(Onto)
def _onto(prop: Onto, limits: Limits) -> Decision | Undecided:
    count = prop.count_witness()
    if count is not None:
        return Decision(False, count)
    return _in_range_and_injective(prop.layout, prop.codomain, limits)  # size == n: onto iff injective into [0, n)


@Z3.handles(ExactCover)
def _exact_cover(prop: ExactCover, limits: Limits) -> Decision | Undecided:
    # replication 1 and size(tv) == size(tile): a partition iff tv is a bijection onto the tile's indices
    out = _in_range_and_injective(prop.tv, prop.tile_size, limits)
    if isinstance(out, Decision) and not out.holds and out.witness and out.witness["kind"] == "collision":
        y = prop.tv(out.witness["i"])
        return Decision(False, Owners(y, [out.witness["i"], out.witness["j"]], 2, at_least=True), out.stats)
    return out


@Z3.handles(Equivalent)
def _equivalent(prop: Equivalent, limits: Limits) -> Decision | Undecided:
    sw = prop.size_witness()
    if sw is not None:  # sizes alone refute it
        return Decision(False, sw)
    q = _Query(width_for(prop.a, prop.b), limits)
    i = q.var("i", subject_size(prop.a))
    q.solver.add(q.evaluate(prop.a, "i") != q.evaluate(prop.b, "i"))
    return _decide(q, [i], lambda v: Differ(v["i"]), {})


@Z3.handles(Vectorizable)
def _vectorizable(prop: Vectorizable, limits: Limits) -> Decision | Undecided:
    nt, w = prop.threads, prop.vector
    groups = subject_size(prop.layout) // (nt * w)
    q = _Query(width_for(prop.layout, extra=subject_size(prop.layout)), limits)
    z3 = q.z3
    t, g = q.var("t", nt), q.var("g", groups)
    q.var("j", w)
    first = add(var("t", nt), mul(var("g", groups), nt * w))
    base, elem = q.evaluate(prop.layout, first), q.evaluate(prop.layout, add(first, mul(var("j", w), nt)))
    j = q.env["j"]
    q.solver.add(z3.Or(elem != base + j, z3.SRem(base, q.const(w)) != q.const(0)))
    return _decide(q, [t, g], lambda v: Vector(v["t"], v["g"]), {})


# -- shared-memory banks: conflict-freedom at every base address, with the base symbolic ----------------------
@Z3.handles(ConflictFreeAtEveryBase)
def _z3_every_base(prop: ConflictFreeAtEveryBase, limits: Any) -> Decision | Undecided:
    """``exists s < bases, a pair of lanes of one phase: same bank group, different unit`` must be ``unsat``."""
    k = prop.access.kind
    if k.merge_lane_xor:
        return Undecided(f"unsupported: {k} phases may merge (measured rule), not encoded")
    sw, eb = prop._swizzle(), prop.access.elem_bytes
    ub, groups = k.unit_bytes, k.bank_groups
    pairs = prop.conflict_pairs()
    if not pairs:
        return Decision(True, None, {"pairs": 0})
    top = prop.period * prop.bases + max(max(p) for p in pairs) + 1
    width = max(top.bit_length(), sw.yyy_mask.bit_length(), sw.zzz_mask.bit_length()) + eb.bit_length() + 3
    q = _Query(width, limits)
    z3, s = q.z3, q.var("s", prop.bases)
    base = mul(var("s", prop.bases), prop.period)

    def unit(o: int) -> tuple[Any, Any]:  # (unit, bank group) of pre-swizzle element offset base + o
        u = div(mul(swizzle_ast(sw, add(base, const(o))), eb), ub)
        return q.term(u), q.term(band(u, groups - 1))

    units = {o: unit(o) for o in {o for p in pairs for o in p}}
    q.solver.add(z3.Or([z3.And(units[a][1] == units[b][1], units[a][0] != units[b][0]) for a, b in pairs]))
    return _decide(q, [s], lambda v: Base(v["s"]), {"pairs": len(pairs)})


# -- TileLang maps on their own expressions (T.max / T.min / T.if_then_else / comparisons) -------------------------
# The domain is one variable per input coordinate (``_i``, ``_j``, ..., ``_rep``), each below its extent; the flat
# index is colexicographic (``_i`` fastest), so minimising the coordinates slowest first yields the smallest flat
# index: the point the exhaustive engine reports first, in its witness format.
def _tl_query(x: TileLang, limits: Limits, copies: tuple[str, ...]) -> tuple[_Query, list[dict[str, Any]]]:
    """A query over ``len(copies)`` copies of ``x``'s domain (variable ``name + copy`` each), wide enough for every
    sub-expression, the flat index and the extents; per copy, the environment ``name -> variable``."""
    from layoutcheck.properties.tilelang import output_dims

    dims = output_dims(x)
    top = max([prod(n for _, n in x.domain), *(n for _, _, n in dims)])
    q = _Query(width_of(*(e for _, e, _ in dims), extra=top), limits)
    return q, [{name: q.var(name + c, n) for name, n in x.domain} for c in copies]


def _tl_outputs(q: _Query, x: TileLang, env: dict[str, Any]) -> list[Any]:
    """The terms of ``x``'s output coordinates (``output_dims``) over ``env``."""
    from layoutcheck.properties.tilelang import output_dims

    memo: dict[Expr, Any] = {}
    return [to_z3(e, env, q.width, q.ctx, memo) for _, e, _ in output_dims(x)]


def _tl_flat(q: _Query, x: TileLang, env: dict[str, Any]) -> Any:
    """The colexicographic flat index term of ``env``'s point (``_i`` fastest)."""
    out, stride = q.const(0), 1
    for name, n in x.domain:
        out, stride = out + env[name] * q.const(stride), stride * n
    return out


def _tl_slowest_first(x: TileLang, env: dict[str, Any]) -> list[Any]:
    return [env[name] for name, _ in reversed(x.domain)]


def _tl_index(x: TileLang, vals: dict[str, int], copy: str) -> int:
    """The flat index of a minimised model's point (the inverse of ``properties.tilelang``'s ``_point``)."""
    i, stride = 0, 1
    for name, n in x.domain:
        i, stride = i + vals[name + copy] * stride, stride * n
    return i


def _tl_guarded(build: Any, x: TileLang, limits: Limits) -> Decision | Undecided:
    """``build(x, limits)``, with an expression Z3 cannot encode (a divisor that may be 0, a type clash) UNKNOWN."""
    import z3

    try:
        return build(x, limits)
    except (ValueError, z3.Z3Exception) as exc:
        return Undecided(f"unsupported: this TileLang expression has no bit-vector encoding ({exc})")


def _tl_outside(x: TileLang, limits: Limits) -> Decision | Undecided:
    """``exists p: some output coordinate of p outside [0, extent)`` must be ``unsat``; else the first such ``p``."""
    from layoutcheck.properties.tilelang import out_witness, output_dims

    q, (env,) = _tl_query(x, limits, ("",))
    ys = _tl_outputs(q, x, env)
    q.solver.add(q.z3.Or([q.z3.Or(y < q.const(0), y >= q.const(n)) for y, (_, _, n) in zip(ys, output_dims(x),
                                                                                          strict=True)]))
    return _decide(q, _tl_slowest_first(x, env), lambda v: out_witness(x, _tl_index(x, v, "")), {})


def _tl_collision(x: TileLang, limits: Limits) -> Decision | Undecided:
    """``exists p < p': outputs(p) == outputs(p')`` must be ``unsat``; else the smallest ``(p, p')`` (flat)."""
    q, (a, b) = _tl_query(x, limits, ("@i", "@j"))
    ya, yb = _tl_outputs(q, x, a), _tl_outputs(q, x, b)
    q.solver.add(_tl_flat(q, x, a) < _tl_flat(q, x, b), *(u == w for u, w in zip(ya, yb, strict=True)))
    return _decide(q, _tl_slowest_first(x, a) + _tl_slowest_first(x, b),
                   lambda v: Collision(_tl_index(x, v, "@i"), _tl_index(x, v, "@j")), {})


def _tl_bijective(x: TileLang, limits: Limits) -> Decision | Undecided:
    """In bounds, then injective (the exhaustive engine's order of witnesses); with as many points as slots that is
    a bijection; with fewer, the first slot no point reaches needs a quantifier (not encoded: UNKNOWN)."""
    from layoutcheck.importers.tilelang import slots

    t0 = time.monotonic()
    first = _tl_outside(x, limits)
    if not (isinstance(first, Decision) and first.holds):
        return first
    left = Limits(limits.timeout - (time.monotonic() - t0), limits.memory_budget, limits.rlimit)
    if left.timeout <= 0:
        return Undecided("timeout")
    second = _tl_collision(x, left)
    if not (isinstance(second, Decision) and second.holds):
        return second
    points, n = prod(n for _, n in x.domain), slots(x)
    if points < n:  # in bounds and injective: some slot is missed, but which one first is a counting question
        return Undecided(f"unsupported: {points} points for {n} slots miss a slot; finding the first needs a "
                         "quantifier (not encoded)")
    return Decision(True, None, {"checks": first.stats.get("checks", 0) + second.stats.get("checks", 0),
                                 "width": second.stats.get("width")})


@_handles_named("layoutcheck.properties.tilelang.TileLangInBounds")
def _tilelang_in_bounds(prop: TileLangInBounds, limits: Limits) -> Decision | Undecided:
    return _tl_guarded(_tl_outside, prop.x, limits)


@_handles_named("layoutcheck.properties.tilelang.TileLangInjective")
def _tilelang_injective(prop: TileLangInjective, limits: Limits) -> Decision | Undecided:
    return _tl_guarded(_tl_collision, prop.x, limits)


@_handles_named("layoutcheck.properties.tilelang.TileLangBijective")
def _tilelang_bijective(prop: TileLangBijective, limits: Limits) -> Decision | Undecided:
    return _tl_guarded(_tl_bijective, prop.x, limits)


# -- equivalent between any two layout forms (properties.equivalence): one variable per coordinate of each side, both
# tied to one flat index ``@i``, which is minimised (so the witness is the exhaustive engine's first).
@Z3.handles(MapEquivalent)
def _map_equivalent(prop: MapEquivalent, limits: Limits) -> Decision | Undecided:
    import z3

    w = prop.structure_witness()
    if w is not None:  # sizes (or two Triton layouts' named dimensions) alone refute it
        return Decision(False, w)
    n = map_size(prop.a)
    exprs = (scalar_expr(prop.a), scalar_expr(prop.b))
    try:
        q = _Query(width_of(*exprs, extra=n), limits)
        i = q.var("@i", n)
        terms = []
        for side, x, e in (("a.", prop.a, exprs[0]), ("b.", prop.b, exprs[1])):
            env = {name: q.var(side + name, m) for name, m in domain(x)}
            flat, stride = q.const(0), 1
            for name, m in domain(x):
                flat, stride = flat + env[name] * q.const(stride), stride * m
            q.solver.add(flat == i)
            terms.append(to_z3(e, env, q.width, q.ctx, {}))
    except (ValueError, z3.Z3Exception) as exc:
        return Undecided(f"unsupported: this expression has no bit-vector encoding ({exc})")
    q.solver.add(terms[0] != terms[1])
    return _decide(q, [i], lambda v: Differ(v["@i"]), {})


# -- index formulas (properties.formula): one variable per coordinate (``IndexFormula.domain``, first fastest), the
# formula's own expression as the one output; witnesses minimised slowest coordinate first, as the TileLang queries.
def _formula_query(f: Any, limits: Limits, copies: tuple[str, ...], extent: int) -> tuple[_Query, list[dict[str, Any]]]:
    q = _Query(width_of(f.expr, extra=max(f.size, extent)), limits)
    return q, [{name: q.var(name + c, n) for name, n in f.domain} for c in copies]


def _formula_collision(f: Any, limits: Limits) -> Decision | Undecided:
    """``exists p < p': F(p) == F(p')`` must be ``unsat``; else the smallest ``(p, p')`` (flat)."""
    q, (a, b) = _formula_query(f, limits, ("@i", "@j"), f.size)
    q.solver.add(_tl_flat(q, f, a) < _tl_flat(q, f, b), to_z3(f.expr, a, q.width, q.ctx, {}) ==
                 to_z3(f.expr, b, q.width, q.ctx, {}))
    return _decide(q, _tl_slowest_first(f, a) + _tl_slowest_first(f, b),
                   lambda v: Collision(_tl_index(f, v, "@i"), _tl_index(f, v, "@j")), {})


def _formula_outside(f: Any, extent: int, limits: Limits) -> Decision | Undecided:
    """``exists p: F(p) outside [0, extent)`` must be ``unsat``; else the first such ``p``."""
    q, (env,) = _formula_query(f, limits, ("",), extent)
    y = to_z3(f.expr, env, q.width, q.ctx, {})
    q.solver.add(q.z3.Or(y < q.const(0), y >= q.const(extent)))
    return _decide(q, _tl_slowest_first(f, env), lambda v: OutOfRange(_tl_index(f, v, "")), {})


def _formula_guarded(build: Any, *args: Any) -> Decision | Undecided:
    import z3

    try:
        return build(*args)
    except (ValueError, z3.Z3Exception) as exc:
        return Undecided(f"unsupported: this formula has no bit-vector encoding ({exc})")


@_handles_named("layoutcheck.properties.formula.FormulaInjective")
def _formula_injective(prop: Any, limits: Limits) -> Decision | Undecided:
    return _formula_guarded(_formula_collision, prop.f, limits)


@_handles_named("layoutcheck.properties.formula.FormulaInBounds")
def _formula_in_bounds(prop: Any, limits: Limits) -> Decision | Undecided:
    return _formula_guarded(_formula_outside, prop.f, prop.extent, limits)
