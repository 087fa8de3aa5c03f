"""Z3 handlers for claims over *all* problem sizes in a range (``properties.residue``): residue tiles and schedulers.

The sizes (``M``, ``N``... or the grid ``GM x GN``) are Z3 integers bounded by the range; the index math is the
models' own: given expression variables they build ``layoutcheck.expr`` trees, which ``expr.z3.to_z3_int`` turns into
Z3 integer terms, so the formula proven is the one the exhaustive engine and the code generator evaluate. Each
claim is split into quantifier-free queries whose negations must be ``unsat``:

* ``residue_cover``: (1) the tile-local TV layout is a bijection onto the tile (size-independent: NumPy over one
  tile; ``tile_partition``). Where it is not, the per-mode lemma fails and nothing below applies: UNKNOWN naming the
  broken precondition (the exhaustive engine decides such a map by enumerating every size) -- except under CuTe's
  own recipe (``ceil_div`` and a predicate), where ``ResidueCover.slot_decision`` decides any map exactly in one
  pass over the tile. Then (2) the accesses of a size are, per mode, ``0 .. tiles*b - 1`` once each, so a size
  breaks the claim iff one of its modes does on its own (``ResidueCover.first_failing`` proves it): one query over
  the sizes alone, "some mode fails" (``tiling.mode_fails``), linear (``div`` by constants). A failing size's
  smallest broken coordinate follows from the same lemma (``ResidueCover.smallest_break``).
* ``schedule_bijection``: no unmasked launch index lands outside the grid; no two land on one tile; and every tile
  is computed: where the scheduler counts its unmasked indices in closed form (``visits``), by that count equalling
  ``GM*GN`` (pigeonhole), else through its own inverse ``index(m, n)``, the only launch index that can compute
  ``(m, n)`` (``TileScheduler.index`` proves it per kind; the semantics suite checks it against every launch index):
  a tile it does not compute is missing. Where the count finds the grid, the same query at that one grid names its
  smallest missing tile (a count that finds none there: UNKNOWN). ``outside`` and ``duplicate`` witnesses carry the
  launch indices; every witness is re-checked point-wise, never by enumerating a grid. ``grouped`` and
  ``split_k`` are asked over their linear launch index (``TileScheduler.linearize``, one-to-one by Euclid): the same
  statements with fewer unknowns (``split_k``'s become linear). Products of the grid sizes and quotients by them
  make the rest nonlinear; bounded ranges keep them decidable in practice, and a timeout is UNKNOWN.
* ``schedule_bijection`` over problem lists (grouped GEMM): per list length, "outside" and per problem "missing"
  (``_list_outside``, ``_list_missing``); where the device walks exactly each problem's tile grid (the default
  ``device_tiles``), one query per length instead, "the host launches fewer than the tiles walked"
  (``_list_short``: its docstring proves both ask for the same lists).

A ``sat`` model is minimised lexicographically (sizes first), so the counterexample is the smallest failing size.
Every query runs under the wall-clock timeout and the deterministic ``rlimit``, in a fresh context -- or, for a claim
whose formulas divide by no unknown, in one context shared by its queries, each between ``push`` and ``pop``
(``_first``: most of a small query's time is making the context and the solver).
"""

from __future__ import annotations

import time
from typing import Any

from layoutcheck.engines.base import Limits
from layoutcheck.engines.z3 import DEFAULT_RLIMIT, Z3, solve
from layoutcheck.expr.ir import Expr, Pred, Size, Var, any_of, creation_order, ite, lnot, lt, var
from layoutcheck.expr.z3 import to_z3_ints, z3_int_alu
from layoutcheck.models.schedulers import TileScheduler
from layoutcheck.properties.base import Decision, Undecided
from layoutcheck.properties.residue import ProblemListBijection, ResidueCover, ScheduleBijection, TilePartition
from layoutcheck.witness import from_json

_FREE = 1 << 64
"""Upper bound of an expression variable whose range is only known symbolically (nothing simplifies by it)."""


class _IntQuery:
    """A fresh context, solver and limits; integer variables with bounds; minimisation; one ``solve`` choke point.

    Variables live twice: as ``expr`` variables (``Var``, with an upper bound the simplifiers may use) that the
    models build their trees over, and as Z3 ``Int`` terms (``env``) those trees are read into (``z``)."""

    def __init__(self, limits: Limits, deadline: float) -> None:
        import z3

        self.z3, self.ctx = z3, z3.Context()
        self.solver = z3.Solver(ctx=self.ctx)
        self.solver.set("rlimit", limits.rlimit if limits.rlimit is not None else DEFAULT_RLIMIT)
        self.deadline = deadline
        self.env: dict[str, Any] = {}
        self.memo: dict[Expr, Any] = {}
        self.checks = 0

    def var(self, name: str, lo: Size, hi_excl: Size, upper: int = _FREE) -> Var:
        """A variable ``lo <= name < hi_excl`` (bounds may be trees); ``upper`` bounds it for the simplifiers."""
        v = self.z3.Int(name, ctx=self.ctx)
        self.env[name] = v
        self.solver.add(v >= self.z(lo), v < self.z(hi_excl))
        return Var(name, upper)

    def release(self) -> None:
        """Drop this query's terms now, so its context is freed before the next query's is used (Z3's search
        depends on its memory state: a query's time should not depend on when the previous one is collected)."""
        self.env.clear()
        self.memo.clear()

    def z(self, e: Size | Pred) -> Any:
        """The Z3 term of an expression tree (or plain int / bool) over this query's variables."""
        return self.zs((e,))[0]

    def zs(self, trees: tuple[Size | Pred, ...]) -> list[Any]:
        """The Z3 terms of what one model call returned, built at once in the order the model built them."""
        return to_z3_ints(trees, self.env, self.ctx, self.memo)

    def solve(self) -> tuple[str, Any]:
        self.checks += 1
        return solve(self.z3, self.solver, self.deadline)

    def minimise(self, model: Any, variables: list[Any]) -> list[int]:
        """Lexicographically smallest values of ``variables`` (trees or terms; binary search per variable, under the
        limits)."""
        variables = [self.z(v) for v in variables]
        val = [model.eval(v, model_completion=True).as_long() for v in variables]
        for k, v in enumerate(variables):
            lo, hi = 0, val[k]
            while lo < hi:
                mid = (lo + hi) // 2
                self.solver.push()
                self.solver.add(v <= mid)
                status, m = self.solve()
                self.solver.pop()
                if status == "sat":
                    val = [m.eval(w, model_completion=True).as_long() for w in variables]
                    hi = val[k]
                elif status == "unsat":
                    lo = mid + 1
                else:
                    return val
            val[k] = hi
            self.solver.add(v == hi)
        return val


def _first(queries: list[Any], limits: Limits, share: bool = False) -> Decision | Undecided:
    """Run the queries (each returns ``None`` when unsat, a witness dict, or an ``Undecided``); the smallest
    witness by problem size wins; any undecided query makes the whole claim undecided unless a witness exists.

    Each query runs in a fresh context, or with ``share`` all in one, each between ``push`` and ``pop``: making a
    context and a solver, and reading the common terms (the sizes, their bounds), is most of a small query's time.
    Only for claims without a quotient by an unknown (``_quotients``): there Z3's nonlinear search depends on what
    its context saw before, so each query of such a claim gets a context of its own."""
    deadline = time.monotonic() + limits.timeout
    found: list[dict[str, Any]] = []
    undecided: list[str] = []
    checks = 0
    shared = _IntQuery(limits, deadline) if share else None
    for build in queries:
        q = shared if shared is not None else _IntQuery(limits, deadline)
        if shared is not None:
            q.solver.push()
        try:
            out = build(q)
        finally:
            if shared is not None:
                q.solver.pop()
            else:
                q.release()
        checks += q.checks
        q.checks = 0
        del q  # the context goes before the next is made (making one costs more while another is alive)
        if isinstance(out, Undecided):
            undecided.append(out.reason)
        elif out is not None:
            found.append(out)
    if shared is not None:
        shared.release()
    stats = {"checks": checks, "queries": len(queries)}
    if found:
        key = "sizes" if "sizes" in found[0] else "grid"
        return Decision(False, min(found, key=lambda w: (w[key], w.get("coord", w.get("tile")))), stats)
    if undecided:
        return Undecided("; ".join(undecided), stats)
    return Decision(True, None, stats)


def _quotients(*trees: Size | Pred) -> bool:
    """Whether some tree divides by an unknown (``//``, ``%`` or ``ceil_div`` by a tree: nonlinear, and solved by a
    search whose path, and so its time, follows everything the context saw before)."""
    return any(n.op in ("div", "mod", "ceil_div") and isinstance(n.operands[1], Expr) and n.operands[1].op != "const"
               for t in trees if isinstance(t, Expr) for n in creation_order(t))


# -- residue_cover ------------------------------------------------------------------------------------------------
@Z3.handles(ResidueCover)
def _residue_cover(prop: ResidueCover, limits: Limits) -> Decision | Undecided:
    why = prop.tiling.unmodelled()
    if why is not None:
        return Undecided(f"not modelled: {why}")
    broken = prop.tiling.partition()
    if broken is not None and prop.tiling.count == "ceil_div" and prop.tiling.predicate != "none":
        return prop.slot_decision()  # exact for any tv map under CuTe's recipe (its proof), no solver needed
    if broken is not None:  # the per-mode lemma does not hold; its failure is no counterexample (module docstring)
        return Undecided(f"not decided symbolically: the per-mode decision needs the tv layout to partition the tile "
                         f"(tile_partition: {TilePartition(prop.tiling).explain(broken)}); a tv map that does not is "
                         f"decided by enumerating every size (the exhaustive engine)")
    return _first([lambda q: _mode_fails(prop, q)], limits)


def _sizes(prop: ResidueCover, q: _IntQuery) -> list[Var]:
    return [q.var(k, lo, hi + 1, hi + 1) for k, (lo, hi) in zip(prop.tiling.dims, prop.sizes, strict=True)]


def _mode_fails(prop: ResidueCover, q: _IntQuery) -> dict[str, Any] | Undecided | None:
    """A size of the box where some mode fails on its own (``tiling.mode_fails``): with ``tv`` a bijection onto the
    tile, exactly the sizes with an element owned by no performed access or a performed access out of bounds
    (``ResidueCover.first_failing``). The smallest such size, then its smallest broken coordinate
    (``ResidueCover.smallest_break``): the lexicographically smallest (size, coordinate) that breaks the claim."""
    t = prop.tiling
    sizes = _sizes(prop, q)
    q.solver.add(q.z(any_of(*(t.mode_fails(s, d) for d, s in enumerate(sizes)))))
    status, model = q.solve()
    if status == "unsat":
        return None
    if status == "unknown":
        return Undecided(model)
    return prop.smallest_break(tuple(q.minimise(model, sizes)))


# -- schedule_bijection -------------------------------------------------------------------------------------------
@Z3.handles(ScheduleBijection)
def _schedule_bijection(prop: ScheduleBijection, limits: Limits) -> Decision | Undecided:
    """Into the grid and injective, then onto: by counting where the scheduler has a closed-form count of its
    unmasked indices (pigeonhole), else through its inverse ``index(m, n)``. A scheduler with a linear launch index
    (``TileScheduler.linearize``) is asked over it: the same statements with fewer unknowns."""
    unread = _unread_ops(_formulas(prop))
    if unread:  # an ``expr`` scheduler's bit operation: Z3's integers have none (the exhaustive engine reads it)
        return Undecided(f"not modelled: the z3 engine of sizes reads no {', '.join(unread)} operation")
    if prop.scheduler.kind == "persistent":
        return _persistent(prop, limits)
    onto = _count if prop.scheduler.visits(1, 1) is not None else _unreached
    out = _first([lambda q: _outside(prop, q), lambda q: _duplicate(prop, q), lambda q: onto(prop, q)], limits,
                 share=not _quotients(*_formulas(prop)))
    if isinstance(out, Decision) and not out.holds and out.witness and out.witness["kind"] == "missing" and \
            onto is _count:  # the count says some tile of this (smallest) grid is missed: name the smallest one
        gm, gn = out.witness["grid"]
        if not prop.scheduler.has_index():  # no inverse to ask: that one grid, enumerated (``violation``)
            w = prop.violation(gm, gn)
            return Decision(False, w, out.stats) if w is not None else Undecided(
                f"inconclusive: the count of unmasked launch indices differs at grid {gm}x{gn}, yet every tile is "
                "computed once", out.stats)
        found = _first([lambda q: _unreached(prop, q, (gm, gn))], limits)
        if isinstance(found, Undecided) or found.holds:  # the inverse map is wrong, not the scheduler
            return Undecided(f"inconclusive: the scheduler's index(m, n) is not its inverse at grid {gm}x{gn}",
                             out.stats)
        return Decision(False, found.witness, out.stats)
    return out


def _persistent(prop: ScheduleBijection, limits: Limits) -> Decision | Undecided:
    """A persistent scheduler, case by case of the host's choices (``TileScheduler.persistent_cases``: swizzle size
    and raster orders fixed, each over its region of grids), each by two queries over one linear work index:
    ``index(tile(t)) == t`` for every unmasked ``t`` (a left inverse: injective; its tiles lie in the grid by the
    mask), and ``tile(index(m, n)) == (m, n)`` with ``index(m, n)`` a walked index for every tile (onto). A grid
    where the left inverse fails is enumerated (``violation``): a real fault there is the witness, else UNKNOWN."""
    gm0, gn0 = var("GM", _FREE), var("GN", _FREE)
    queries = []
    for k in range(len(prop.scheduler.persistent_cases(gm0, gn0))):
        queries += [lambda q, k=k: _left_inverse(prop, q, k), lambda q, k=k: _case_unreached(prop, q, k)]
    out = _first(queries, limits)
    if isinstance(out, Decision) and not out.holds and out.witness["kind"] == "not_inverse":
        gm, gn = out.witness["grid"]
        w = prop.violation(gm, gn)
        return Decision(False, w, out.stats) if w is not None else Undecided(
            f"inconclusive: index(tile(t)) != t at grid {gm}x{gn}, yet every tile is computed once there", out.stats)
    return out


def _case(prop: ScheduleBijection, q: _IntQuery, k: int) -> tuple[TileScheduler, Var, Var]:
    gm, gn = _grid(prop, q)
    s, region = prop.scheduler.persistent_cases(gm, gn)[k]
    q.solver.add(q.z(region))
    return s, gm, gn


def _left_inverse(prop: ScheduleBijection, q: _IntQuery, k: int) -> dict[str, Any] | Undecided | None:
    s, gm, gn = _case(prop, q, k)
    t = q.var("t", 0, s.total(gm, gn))
    m, n, valid = s.linear_tile((t,), gm, gn)
    back = s.linear_index(m, n, gm, gn)
    mv, nv = q.z3.Int("m", ctx=q.ctx), q.z3.Int("n", ctx=q.ctx)
    q.solver.add(q.z(valid), mv == q.z(m), nv == q.z(n), q.z(back) != q.z(t))
    return _grid_witness(q, [gm, gn, mv, nv], "not_inverse")


def _case_unreached(prop: ScheduleBijection, q: _IntQuery, k: int) -> dict[str, Any] | Undecided | None:
    s, gm, gn = _case(prop, q, k)
    m, n = q.var("m", 0, gm, gm.upper), q.var("n", 0, gn, gn.upper)
    t = s.linear_index(m, n, gm, gn)
    tm, tn, valid = s.linear_tile((t,), gm, gn)
    z3 = q.z3
    q.solver.add(z3.Not(z3.And(q.z(lnot(lt(t, 0))), q.z(valid), q.z(tm) == q.z(m), q.z(tn) == q.z(n))))
    return _grid_witness(q, [gm, gn, m, n], "missing")


# -- schedule_bijection over problem lists (grouped GEMM) ----------------------------------------------------------
@Z3.handles(ProblemListBijection)
def _problem_lists(prop: ProblemListBijection, limits: Limits) -> Decision | Undecided:
    """Per list length ``P`` (unrolled: ``M_p``, ``N_p`` unknowns in their ranges), two queries: a launched index the
    device maps into a problem but outside its tile grid (``outside``), and per problem ``k`` a tile whose only
    possible index (``ProblemListScheduler.index``) is not launched or maps elsewhere (``missing``). No tile is
    computed twice by construction: the device's problem walks are disjoint ranges of ``t`` and ``local -> (local %
    GM, local // GM)`` is one-to-one (Euclid); the exhaustive engine and the semantics suite check it."""
    s = prop.scheduler
    sizes = (var("M", _FREE), var("N", _FREE))
    unread = _unread_ops((s.walked(sizes), s.host_total((sizes,))))
    if unread:
        return Undecided(f"not modelled: the z3 engine of sizes reads no {', '.join(unread)} operation")
    queries = []
    if _walks_its_grid(s):  # the device walks exactly each grid: one query per list length (``_list_short``)
        for n_problems in range(prop.problems[0], prop.problems[1] + 1):
            queries.append(lambda q, n_problems=n_problems: _list_short(prop, q, n_problems))
        free = tuple((var(f"M{k}", _FREE), var(f"N{k}", _FREE)) for k in range(prop.problems[1]))
        out = _first(queries, limits, share=not _quotients(*(s.walked(z) for z in free), s.host_total(free)))
    else:
        for n_problems in range(prop.problems[0], prop.problems[1] + 1):
            queries.append(lambda q, n_problems=n_problems: _list_outside(prop, q, n_problems))
            queries += [lambda q, n_problems=n_problems, k=k: _list_missing(prop, q, n_problems, k)
                        for k in range(n_problems)]
        out = _first(queries, limits)
    if isinstance(out, Decision) and out.witness is not None:  # the grid only ranked the lists
        return Decision(out.holds, from_json({k: v for k, v in out.witness.items() if k != "grid"}), out.stats)
    return out


def _walks_its_grid(s: Any) -> bool:
    """Whether the device gives each problem exactly its tile count: ``device_tiles`` is the default
    ``ceil_div(M, TM) * ceil_div(N, TN)`` (the same tree once parsed), which equals ``gm * gn`` of ``grid`` for every
    ``M, N >= 0`` (floor division; the ranges start at 1)."""
    from layoutcheck.models.schedulers import ProblemListScheduler

    size = (var("M", _FREE), var("N", _FREE))
    return bool(s.walked(size) == ProblemListScheduler(s.block, s.ctas, s.host_count).walked(size))


def _list_short(prop: ProblemListBijection, q: _IntQuery, n_problems: int) -> dict[str, Any] | Undecided | None:
    """A list of ``n_problems`` whose host launches fewer than ``S`` work indices, ``S = sum_k gm_k * gn_k > 0`` the
    tiles walked, for a scheduler that walks exactly each grid (``_walks_its_grid``). Exactly the failing lists:
    the walks are the consecutive disjoint ranges ``[start_k, start_k + gm_k*gn_k)``, so a launched index ``t < S``
    lies in one, at local index ``l < gm_k*gn_k``, whose tile ``(l % gm_k, l // gm_k)`` is inside the grid (never
    ``outside``); ``t -> (k, l) -> tile`` is one-to-one (never twice); and tile ``(m, n)`` of problem ``k`` has the
    index ``start_k + m + gm_k*n < S``, launched iff it is below the host's count: some tile is missing iff the
    largest index, ``S - 1``, is not launched. So the smallest such list is the smallest failing list of the general
    queries (``_list_outside``, ``_list_missing``), and its witness is ``violation``'s, as theirs."""
    s = prop.scheduler
    sizes = _list_sizes(prop, q, n_problems)
    walked: Size = 0
    for z in sizes:
        walked = walked + s.walked(z)
    total, host = q.zs((walked, s.host_total(sizes)))
    q.solver.add(total > host, total > 0)
    return _list_witness(prop, q, "short", sizes, [])


def _list_sizes(prop: ProblemListBijection, q: _IntQuery, n_problems: int) -> tuple[tuple[Var, Var], ...]:
    (a, b), (c, d) = prop.sizes
    return tuple((q.var(f"M{k}", a, b + 1, b + 1), q.var(f"N{k}", c, d + 1, d + 1)) for k in range(n_problems))


def _list_witness(prop: ProblemListBijection, q: _IntQuery, kind: str, sizes: tuple[tuple[Var, Var], ...],
                  rest: list[Any]) -> dict[str, Any] | Undecided | None:
    """The smallest problem list (then the rest) of a sat query, as ``ProblemListBijection.violation`` names it."""
    status, model = q.solve()
    if status == "unsat":
        return None
    if status == "unknown":
        return Undecided(model)
    flat = q.minimise(model, [v for z in sizes for v in z] + rest)
    lst = tuple((flat[2 * k], flat[2 * k + 1]) for k in range(len(sizes)))
    w = prop.violation(lst)  # that one list, enumerated: the fault the point-wise re-check accepts
    if w is None:
        return Undecided(f"inconclusive: the {kind} query's problem list {list(lst)} has no fault")
    return {**w, "grid": [len(lst), *flat[:2 * len(lst)]]}


def _list_outside(prop: ProblemListBijection, q: _IntQuery, n_problems: int) -> dict[str, Any] | Undecided | None:
    s, z3 = prop.scheduler, q.z3
    sizes = _list_sizes(prop, q, n_problems)
    walked: Size = 0
    for z in sizes:
        walked = walked + s.walked(z)
    t = q.var("t", 0, ite(lt(walked, s.host_total(sizes)), s.host_total(sizes), walked))
    p, m, n, valid = s.tile(t, sizes)
    zp, zm, zn = q.zs((p, m, n))
    off = [z3.And(zp == k, z3.Not(z3.And(zm >= 0, zm < q.z(s.grid(z)[0]), zn >= 0, zn < q.z(s.grid(z)[1]))))
           for k, z in enumerate(sizes)]
    q.solver.add(q.z(valid), z3.Or(*off))
    return _list_witness(prop, q, "outside", sizes, [])


def _list_missing(prop: ProblemListBijection, q: _IntQuery, n_problems: int,
                  k: int) -> dict[str, Any] | Undecided | None:
    s, z3 = prop.scheduler, q.z3
    sizes = _list_sizes(prop, q, n_problems)
    gm, gn = s.grid(sizes[k])
    m, n = q.var("m", 0, gm), q.var("n", 0, gn)
    t = s.index(k, m, n, sizes)
    p, tm, tn, valid = s.tile(t, sizes)
    q.solver.add(z3.Not(z3.And(q.z(valid), q.z(p) == k, q.z(tm) == q.z(m), q.z(tn) == q.z(n))))
    return _list_witness(prop, q, "missing", sizes, [m, n])


def _unread_ops(formulas: tuple[Size | Pred, ...]) -> list[str]:
    """Operations of ``formulas`` that Z3's integer interpreter (``expr.z3.z3_int_alu``) has no meaning for."""
    import z3

    known = set(z3_int_alu(z3)) | {"const", "var"}
    trees = [f for f in formulas if isinstance(f, Expr)]
    return sorted({x.op for x in creation_order(*trees)} - known)


def _formulas(prop: ScheduleBijection) -> tuple[Size | Pred, ...]:
    """Every formula the claim's queries read, over free variables: launch bounds, the tile of a launch index, and
    the count or the inverse (and the tile of the inverse)."""
    s, gm, gn = prop.scheduler, var("GM", _FREE), var("GN", _FREE)
    bounds = _bounds(s, gm, gn)
    idx = tuple(var(f"i{k}", _FREE) for k in range(len(bounds)))
    if s.visits(1, 1) is not None:
        onto: tuple[Size | Pred, ...] = (s.visits(gm, gn),)
    else:
        inv = s.index(var("m", _FREE), var("n", _FREE), gm, gn)
        onto = (*inv, *s.launch_bounds(gm, gn), *s.tile(inv, gm, gn))
    return (*bounds, *_tile(s, idx, gm, gn), *onto)


def _count(prop: ScheduleBijection, q: _IntQuery) -> dict[str, Any] | Undecided | None:
    """A grid where the number of unmasked launch indices differs from the number of tiles."""
    gm, gn = _grid(prop, q)
    q.solver.add(q.z(prop.scheduler.visits(gm, gn)) != q.z(gm * gn))
    zero = q.z3.IntVal(0, ctx=q.ctx)
    return _grid_witness(q, [gm, gn, zero, zero], "missing")


def _grid(prop: ScheduleBijection, q: _IntQuery) -> tuple[Var, Var]:
    (a, b), (c, d) = prop.grids
    return q.var("GM", a, b + 1, b + 1), q.var("GN", c, d + 1, d + 1)


def _bounds(s: TileScheduler, gm: Var, gn: Var) -> tuple[Size, ...]:
    """Exclusive bounds of a launch index: of the linear one where the scheduler has one (``linear_bounds``)."""
    linear = s.linear_bounds(gm, gn)
    return linear if linear is not None else s.launch_bounds(gm, gn)


def _tile(s: TileScheduler, idx: tuple[Var, ...], gm: Var, gn: Var) -> tuple[Size, Size, Pred]:
    """``(m, n, valid)`` of a launch index as ``_bounds`` bounds it."""
    return s.tile(idx, gm, gn) if s.linear_bounds(gm, gn) is None else s.linear_tile(idx, gm, gn)


def _launch(prop: ScheduleBijection, q: _IntQuery, gm: Var, gn: Var, tag: str) -> tuple[Var, ...]:
    """One launch index as variables ``tag0, tag1, ...`` (a one-dimensional linear index: ``tag``)."""
    bounds = _bounds(prop.scheduler, gm, gn)
    q.zs(bounds)
    one = len(bounds) == 1 and prop.scheduler.linear_bounds(gm, gn) is not None
    return tuple(q.var(tag if one else f"{tag}{k}", 0, b) for k, b in enumerate(bounds))


def _outside(prop: ScheduleBijection, q: _IntQuery) -> dict[str, Any] | Undecided | None:
    gm, gn = _grid(prop, q)
    idx = _launch(prop, q, gm, gn, "i")
    m, n, valid = q.zs(_tile(prop.scheduler, idx, gm, gn))
    mv, nv = q.z3.Int("m", ctx=q.ctx), q.z3.Int("n", ctx=q.ctx)
    q.solver.add(valid, mv == m, nv == n, q.z3.Or(m < 0, m >= q.z(gm), n < 0, n >= q.z(gn)))
    return _grid_witness(q, [gm, gn, mv, nv], "outside", prop.scheduler, (idx,))


def _duplicate(prop: ScheduleBijection, q: _IntQuery) -> dict[str, Any] | Undecided | None:
    """Two distinct launch indices on one tile. Over a linear index (one-to-one from the launch indices, so the
    same statement) the pair is ordered, ``a < b`` lexicographically: the pair is unordered, so that loses nothing,
    and the witness minimises the same ``(GM, GN, m, n)`` over the same set of failing points."""
    gm, gn = _grid(prop, q)
    linear = prop.scheduler.linear_bounds(gm, gn) is not None
    a, b = _launch(prop, q, gm, gn, "ta" if linear else "i"), _launch(prop, q, gm, gn, "tb" if linear else "j")
    ma, na, va = q.zs(_tile(prop.scheduler, a, gm, gn))
    mb, nb, vb = q.zs(_tile(prop.scheduler, b, gm, gn))
    mv, nv = q.z3.Int("m", ctx=q.ctx), q.z3.Int("n", ctx=q.ctx)
    za, zb = q.zs(a), q.zs(b)
    if not linear:
        distinct = q.z3.Or(*(x != y for x, y in zip(za, zb, strict=True)))
    else:
        distinct = za[-1] < zb[-1]  # a < b lexicographically, built from the last coordinate up
        for x, y in zip(za[-2::-1], zb[-2::-1], strict=True):
            distinct = q.z3.Or(x < y, q.z3.And(x == y, distinct))
    q.solver.add(va, vb, distinct, ma == mb, na == nb, mv == ma, nv == na)
    return _grid_witness(q, [gm, gn, mv, nv], "duplicate", prop.scheduler, (a, b))


def _unreached(prop: ScheduleBijection, q: _IntQuery,
               grid: tuple[int, int] | None = None) -> dict[str, Any] | Undecided | None:
    """A tile its only possible preimage ``index(m, n)`` does not compute (``TileScheduler.index``): a missing tile;
    over the box of grids, or at one ``grid``."""
    if grid is None:
        gm, gn = _grid(prop, q)
    else:
        gm, gn = q.var("GM", grid[0], grid[0] + 1, grid[0] + 1), q.var("GN", grid[1], grid[1] + 1, grid[1] + 1)
    m, n = q.var("m", 0, gm, gm.upper), q.var("n", 0, gn, gn.upper)
    s, z3 = prop.scheduler, q.z3
    idx = s.index(m, n, gm, gn)
    zi = q.zs(idx)
    zb = q.zs(s.launch_bounds(gm, gn))
    tm, tn, valid = q.zs(s.tile(idx, gm, gn))
    inside = z3.And(*(z3.And(q.z(i >= 0), q.z(i < b)) for i, b in zip(zi, zb, strict=True)))  # ints fold: q.z
    q.solver.add(z3.Not(z3.And(inside, valid, tm == q.z(m), tn == q.z(n))))
    return _grid_witness(q, [gm, gn, m, n], "missing")


def _grid_witness(q: _IntQuery, variables: list[Any], kind: str, s: TileScheduler | None = None,
                  launches: tuple[tuple[Var, ...], ...] = ()) -> dict[str, Any] | Undecided | None:
    """The smallest ``(GM, GN, m, n)`` of a sat query, and the launch indices ``launches`` there (``index``,
    ``other``: what the point-wise re-check evaluates), read from one more model with those values fixed."""
    status, model = q.solve()
    if status == "unsat":
        return None
    if status == "unknown":
        return Undecided(model)
    gm, gn, m, n = q.minimise(model, variables)
    count = {"duplicate": {"count": 2}, "missing": {"count": 0}}.get(kind, {})
    w: dict[str, Any] = {"kind": kind, "grid": [gm, gn], "tile": [m, n], **count}
    if launches:
        status, model = q.solve()  # minimise fixed the values: any model of them names the launch indices
        if status != "sat":
            return Undecided(f"the {kind} query lost its model after minimising ({status})")
        linear = s is not None and s.linear_bounds(1, 1) is not None
        for key, launch in zip(("index", "other"), launches, strict=False):
            vals = tuple(model.eval(q.z(v), model_completion=True).as_long() for v in launch)
            w[key] = list(s.delinearize(vals, gm, gn) if linear else vals)
    return w if kind == "not_inverse" else from_json(w)  # not_inverse: a screen, re-decided by ``prop.violation``
