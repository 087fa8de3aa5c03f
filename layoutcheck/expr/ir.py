"""The one integer-expression IR of layoutcheck: a tree of frozen nodes, each with a known bound.

Everything that computes an index reads this tree: layouts, swizzles and TV maps lower to it once
(``layoutcheck.expr.lower``); user expressions parse into it (``layoutcheck.expr.parse``); and interpreters give it a
meaning -- NumPy arrays (``expr.numpy``), Z3 bit-vectors (``expr.z3``), SymPy (``expr.sympy``), C source
(``expr.c``). Each interpreter is one table from an operation name to a function, applied by ``fold``.

Nodes and their operation names (``e.op``, operands ``e.operands``: sub-trees, or ints for constant arguments)::

    Const(v)     "const"   v                      Var(name, upper)  "var"  0 <= name < upper
    Sum(terms)   "add"     t0 + t1 + ...          Mul(x, k)  "mul"  x * k         Div(x, k)  "div"  floor(x / k)
    Mod(x, k)    "mod"     x mod k (floor)        Xor(a, b)  "xor"  a ^ b         And(x, m)  "and"  x & m
    Shr(x, k)    "shr"     x >> k                 Shl(x, k)  "shl"  x << k
    Op(name, srcs)          any of the above with tree operands, and "sub", "or", "neg", "not" (user text only)

Size arithmetic (ragged problems: ``models.residue``, ``models.schedulers``) adds general operations built by
``ceil_div minimum maximum lt ite all_of any_of lnot``: "ceil_div", "min", "max" (integers) and the predicates
"lt" (a < b), "ite" (c ? a : b), "land" / "lor" (all / any of one or more predicates), "lnot". Those functions
take ints as well as trees: on ints they compute the value (``ceil_div(1000, 128) == 8``, ``lt(3, 5) is True``), on
a tree they build the node, so one formula is evaluated for one size and proven for all of them. Predicates of
constants fold away (``all_of(True, p) == p``): no Boolean constant ever sits in a tree.

Every node carries ``bound``: when ``nonneg`` (no negative value possible) its value lies in ``[0, bound)``.
A tree is ``nonneg`` unless it holds a negative stride (``index_ast(..., signed=True)``) or a ``sub``/``neg``/
``not``; the simplifying constructors below use ``bound`` only on ``nonneg`` operands, so they are exact for every
integer value. Worked example: ``mod(add(mul(var("i", 4), 8), var("j", 8)), 8)`` is ``j`` (``8*i`` is a multiple
of 8 and ``j < 8``); ``div`` of the same sum by 8 is ``i``.

The simplifying constructors (``add mul div mod xor band shr shl``) fold constants and use bounds and multiples:
``x % s`` disappears when ``x < s``; ``x // k`` is 0 when ``x < k``; nested divisions merge; a sum splits at a
modulus ``k`` into multiples of ``k`` and a remainder ``< k``. Python's operators on nodes call them, so the
swizzle formula ``x ^ ((x & yyy) >> S)`` of ``algebra.swizzle.Swizzle`` builds a tree when ``x`` is one.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, TypeVar

from layoutcheck.errors import LayoutError

T = TypeVar("T")
E = TypeVar("E", bound=type)


# -- the expression tree --------------------------------------------------------------------------------------------
_SEQ = itertools.count()


def _hashed_once(cls: E) -> E:
    """A node class whose hash is computed once per node: the dataclass's hash of a node hashes its operands, so
    every lookup of a node (``fold``'s memo, sets of sub-trees) walked its whole sub-tree again -- a quarter of the
    time of checking the scheduler specs (issue #29). The value is the dataclass's own (equal nodes, equal hashes);
    it is kept in the node's ``hashed`` slot, which copies and pickles leave empty (a string's hash differs between
    processes)."""
    value_hash = cls.__hash__
    names = [f.name for f in fields(cls)]

    def __hash__(self: Expr) -> int:
        h = self.hashed
        if h is None:
            h = value_hash(self)
            object.__setattr__(self, "hashed", h)
        return h

    def __getstate__(self: Expr) -> list[Any]:
        return [None if n == "hashed" else getattr(self, n) for n in names]

    cls.__hash__ = __hash__  # type: ignore[method-assign,assignment]
    cls.__getstate__ = __getstate__  # type: ignore[attr-defined]
    return cls


@_hashed_once
@dataclass(frozen=True, slots=True)
class Expr:
    """Base of the expression nodes; ``bound`` is an exclusive upper bound of the value (meaningful when
    ``nonneg``); ``op`` names the operation, ``operands`` are its arguments (trees or ints); ``seq`` numbers the
    nodes in the order they were built (not part of the value: ``creation_order``)."""

    seq: int = field(default_factory=lambda: next(_SEQ), compare=False, repr=False, kw_only=True)
    hashed: int | None = field(default=None, init=False, compare=False, repr=False)
    op: ClassVar[str] = ""

    @property
    def bound(self) -> int:  # pragma: no cover - every node overrides
        raise NotImplementedError

    @property
    def operands(self) -> tuple[Any, ...]:  # pragma: no cover - every node overrides
        raise NotImplementedError

    @property
    def nonneg(self) -> bool:
        """No value of the node can be negative."""
        return all(o.nonneg if isinstance(o, Expr) else o >= 0 for o in self.operands)

    # Python's operators build trees through the simplifying constructors (ints on either side become constants)
    def __add__(self, o: Expr | int) -> Expr:
        return add(self, _lift(o))

    __radd__ = __add__

    def __mul__(self, k: Expr | int) -> Expr:
        if isinstance(k, Const):
            k = k.value
        if isinstance(k, int):
            return mul(self, k)
        return mul(k, self.value) if isinstance(self, Const) else Op.make("mul", self, k)

    def __rmul__(self, k: int) -> Expr:
        out = self.__mul__(k)
        return replace(out, lead=True) if isinstance(out, Mul) else out

    def __sub__(self, o: Expr | int) -> Expr:
        return Op.make("sub", self, o)

    def __rsub__(self, o: Expr | int) -> Expr:
        return Op.make("sub", o, self)

    def __floordiv__(self, k: Expr | int) -> Expr:
        return div(self, k)

    def __rfloordiv__(self, o: int) -> Expr:
        return div(_lift(o), self)

    def __mod__(self, k: Expr | int) -> Expr:
        return mod(self, k)

    def __rmod__(self, o: int) -> Expr:
        return mod(_lift(o), self)

    def __xor__(self, o: Expr | int) -> Expr:
        return xor(self, _lift(o))

    __rxor__ = __xor__

    def __and__(self, mask: int) -> Expr:
        return band(self, mask)

    def __rshift__(self, k: int) -> Expr:
        return shr(self, k)

    def __lshift__(self, k: int) -> Expr:
        return shl(self, k)


@_hashed_once
@dataclass(frozen=True, slots=True)
class Const(Expr):
    """An integer constant."""

    value: int
    op: ClassVar[str] = "const"

    @property
    def bound(self) -> int:
        return self.value + 1

    @property
    def operands(self) -> tuple[Any, ...]:
        return (self.value,)


@_hashed_once
@dataclass(frozen=True, slots=True)
class Var(Expr):
    """A variable ``0 <= name < upper``."""

    name: str
    upper: int
    op: ClassVar[str] = "var"

    @property
    def bound(self) -> int:
        return self.upper

    @property
    def operands(self) -> tuple[Any, ...]:
        return (self.name, self.upper)

    @property
    def nonneg(self) -> bool:
        return True


@_hashed_once
@dataclass(frozen=True, slots=True)
class Sum(Expr):
    """``terms[0] + terms[1] + ...``."""

    terms: tuple[Expr, ...]
    op: ClassVar[str] = "add"

    @property
    def bound(self) -> int:
        return sum(t.bound - 1 for t in self.terms) + 1

    @property
    def operands(self) -> tuple[Any, ...]:
        return self.terms


@_hashed_once
@dataclass(frozen=True, slots=True)
class Mul(Expr):
    """``x * k``; ``lead``: written ``k * x`` (operands in that order; not part of the value or of equality)."""

    x: Expr
    k: int
    lead: bool = field(default=False, compare=False, repr=False)
    op: ClassVar[str] = "mul"

    @property
    def bound(self) -> int:
        return (self.x.bound - 1) * self.k + 1

    @property
    def operands(self) -> tuple[Any, ...]:
        return (self.k, self.x) if self.lead else (self.x, self.k)


@_hashed_once
@dataclass(frozen=True, slots=True)
class Div(Expr):
    """Floor division by a positive constant."""

    x: Expr
    k: int
    op: ClassVar[str] = "div"

    @property
    def bound(self) -> int:
        return (self.x.bound - 1) // self.k + 1

    @property
    def operands(self) -> tuple[Any, ...]:
        return (self.x, self.k)


@_hashed_once
@dataclass(frozen=True, slots=True)
class Mod(Expr):
    """Floor modulus by a positive constant: always in ``[0, k)``."""

    x: Expr
    k: int
    op: ClassVar[str] = "mod"

    @property
    def bound(self) -> int:
        return min(self.x.bound, self.k) if self.x.nonneg else self.k

    @property
    def operands(self) -> tuple[Any, ...]:
        return (self.x, self.k)

    @property
    def nonneg(self) -> bool:
        return self.k > 0


@_hashed_once
@dataclass(frozen=True, slots=True)
class Xor(Expr):
    """Bitwise ``a ^ b``."""

    a: Expr
    b: Expr
    op: ClassVar[str] = "xor"

    @property
    def bound(self) -> int:
        return 1 << (max(self.a.bound, self.b.bound) - 1).bit_length()

    @property
    def operands(self) -> tuple[Any, ...]:
        return (self.a, self.b)


@_hashed_once
@dataclass(frozen=True, slots=True)
class And(Expr):
    """Bitwise ``x & mask``."""

    x: Expr
    mask: int
    op: ClassVar[str] = "and"

    @property
    def bound(self) -> int:
        return min(self.x.bound, self.mask + 1) if self.x.nonneg else self.mask + 1

    @property
    def operands(self) -> tuple[Any, ...]:
        return (self.x, self.mask)

    @property
    def nonneg(self) -> bool:
        return self.mask >= 0


@_hashed_once
@dataclass(frozen=True, slots=True)
class Shr(Expr):
    """``x >> k``."""

    x: Expr
    k: int
    op: ClassVar[str] = "shr"

    @property
    def bound(self) -> int:
        return ((self.x.bound - 1) >> self.k) + 1

    @property
    def operands(self) -> tuple[Any, ...]:
        return (self.x, self.k)


@_hashed_once
@dataclass(frozen=True, slots=True)
class Shl(Expr):
    """``x << k``."""

    x: Expr
    k: int
    op: ClassVar[str] = "shl"

    @property
    def bound(self) -> int:
        return ((self.x.bound - 1) << self.k) + 1

    @property
    def operands(self) -> tuple[Any, ...]:
        return (self.x, self.k)


def _bits_bound(*bounds: int) -> int:
    return 1 << (max(bounds) - 1).bit_length()


_OP_BOUND: dict[str, Callable[..., int]] = {
    "add": lambda *b: sum(x - 1 for x in b) + 1, "mul": lambda a, b: (a - 1) * (b - 1) + 1,
    "div": lambda a, b: a, "mod": lambda a, b: max(1, min(a, b - 1)), "and": min, "xor": _bits_bound,
    "or": _bits_bound, "shr": lambda a, b: a, "shl": lambda a, b: ((a - 1) << (b - 1)) + 1,
    "sub": lambda a, b: a, "neg": lambda a: 1, "not": lambda a: 1,
    "ceil_div": lambda a, b: a, "min": min, "max": max, "lt": lambda a, b: 2, "ite": lambda c, a, b: max(a, b),
    "land": lambda *b: 2, "lor": lambda *b: 2, "lnot": lambda a: 2,
}
"""An upper bound of each general operation from its operands' bounds (valid when the node is ``nonneg``)."""


@_hashed_once
@dataclass(frozen=True, slots=True)
class Op(Expr):
    """A general operation ``name`` of tree operands: what user text writes beyond the simplified forms above
    (``a * b`` of two variables, ``a - b``, ``a | b``, ``~a`` ...). Never built by lowering a layout."""

    name: str
    srcs: tuple[Expr, ...]

    @staticmethod
    def make(name: str, *srcs: Any) -> Op:
        if name not in _OP_BOUND:
            raise LayoutError(f"unknown expression operation {name!r} (known: {', '.join(_OP_BOUND)})")
        return Op(name, tuple(_lift(s) for s in srcs))

    @property
    def op(self) -> str:  # type: ignore[override]
        return self.name

    @property
    def bound(self) -> int:
        return _OP_BOUND[self.name](*(s.bound for s in self.srcs))

    @property
    def operands(self) -> tuple[Any, ...]:
        return self.srcs

    @property
    def nonneg(self) -> bool:
        if self.name in ("sub", "neg", "not"):
            return False
        return all(s.nonneg for s in self.srcs) or (self.name == "and" and self.srcs[1].nonneg)


# -- traversal: one bottom-up fold for every interpreter ---------------------------------------------------------
def fold(e: Expr, alu: Mapping[str, Callable[..., T]], lift: Callable[[int], Any] = lambda k: k,
         key: Callable[[Expr], str] = lambda x: x.op, memo: dict[Expr, Any] | None = None) -> T:
    """Interpret ``e`` bottom-up: ``alu[key(node)](*operands)`` with sub-trees already interpreted and int operands
    passed through ``lift`` (``alu["var"]`` receives ``(name, upper)``, ``alu["const"]`` the int); ``key`` (default
    ``node.op``) lets a back end pick a variant per node (Z3: unsigned or floor division by ``nonneg``); ``memo``
    (node -> value) may be shared between calls with the same tables, so common sub-trees are built once.

    Pre: ``alu`` has every operation of ``e``. Post: the interpreter's value of ``e``.

    >>> fold(add(var("i", 4), const(3)), {"var": lambda n, u: 2, "const": lambda v: v, "add": lambda *t: sum(t)})
    5
    """
    memo = {} if memo is None else memo

    def go(x: Expr) -> Any:
        if x in memo:
            return memo[x]
        k = key(x)
        if k not in alu:
            raise LayoutError(f"operation {k!r} has no meaning in this interpreter")
        if x.op in ("const", "var"):
            out = alu[k](*x.operands)
        else:
            out = alu[k](*(go(o) if isinstance(o, Expr) else lift(o) for o in x.operands))
        memo[x] = out
        return out

    return go(e)


def nodes(e: Expr) -> list[Expr]:
    """Every node of ``e``, parents before children (depth first)."""
    out = [e]
    for o in e.operands:
        if isinstance(o, Expr):
            out.extend(nodes(o))
    return out


def creation_order(*roots: Expr) -> list[Expr]:
    """Every distinct node of ``roots`` once, in the order the nodes were built (children before parents): an
    interpreter that builds terms in this order replays the formula's own order of evaluation (Z3's search, and so
    its time, depends on the order its terms were created).

    >>> i = var("i", 4)
    >>> [n.op for n in creation_order(add(mul(i, 8), i // 2))]
    ['var', 'mul', 'div', 'add']
    """
    seen: dict[int, Expr] = {}
    todo = list(roots)
    while todo:
        x = todo.pop()
        if id(x) not in seen:
            seen[id(x)] = x
            todo.extend(o for o in x.operands if isinstance(o, Expr))
    return sorted(seen.values(), key=lambda n: n.seq)


def variables(e: Expr) -> dict[str, int]:
    """Every variable of ``e`` with its upper bound.

    >>> variables(add(var("t", 32), mul(var("v", 4), 32)))
    {'t': 32, 'v': 4}
    """
    return {n.name: n.upper for n in nodes(e) if isinstance(n, Var)}


def all_nonneg(e: Expr) -> bool:
    """Every node of ``e`` is ``nonneg`` (what unsigned back ends -- C, ``UDiv`` -- need)."""
    return all(n.nonneg for n in nodes(e))


# -- simplifying constructors ------------------------------------------------------------------------------------------
def _lift(v: Expr | int) -> Expr:
    if isinstance(v, Expr):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return Const(v)
    raise LayoutError(f"an expression operand must be a tree or an int, found {v!r}")


def const(v: int) -> Const:
    if v < 0:
        raise LayoutError(f"closed forms take non-negative values only, found constant {v}")
    return Const(v)


def var(name: str, upper: int) -> Var:
    """``0 <= name < upper``.

    >>> var("t", 32).bound
    32
    """
    if upper < 1:
        raise LayoutError(f"variable {name} needs a positive upper bound, found {upper}")
    return Var(name, upper)


def add(*xs: Expr) -> Expr:
    """Flattened sum; constants folded, zeros dropped."""
    terms: list[Expr] = []
    c = 0
    for x in xs:
        for t in (x.terms if isinstance(x, Sum) else (x,)):
            if isinstance(t, Const):
                c += t.value
            else:
                terms.append(t)
    if c:
        terms.append(Const(c))
    if not terms:
        return Const(0)
    return terms[0] if len(terms) == 1 else Sum(tuple(terms))


def mul(x: Expr, k: int, signed: bool = False) -> Expr:
    """``x * k``; a negative ``k`` only with ``signed`` (the tree is then not ``nonneg``)."""
    if k < 0 and not signed:
        raise LayoutError(f"closed forms take non-negative strides only, found stride {k}")
    if k == 0 or x == Const(0):
        return Const(0)
    if k == 1:
        return x
    if isinstance(x, Const):
        return Const(x.value * k)
    if isinstance(x, Mul):
        return mul(x.x, x.k * k, signed)
    if isinstance(x, Sum):
        return add(*(mul(t, k, signed) for t in x.terms))
    return Mul(x, k)


def _hi_lo(t: Expr, k: int) -> tuple[Expr, Expr]:
    """``t == k*hi + lo`` with ``lo`` as small as the term's structure allows."""
    if isinstance(t, Const):
        return Const(t.value // k), Const(t.value % k)
    x, a = (t.x, t.k) if isinstance(t, Mul) else (t, 1)
    if a % k == 0:
        return mul(x, a // k), Const(0)
    if k % a == 0:
        return div(x, k // a), mul(mod(x, k // a), a)
    return Const(0), t


def _split(x: Expr, k: int) -> tuple[Expr, Expr] | None:
    """``x == k*hi + lo`` with ``0 <= lo < k`` (so ``x // k == hi`` and ``x % k == lo``), or None."""
    parts = [_hi_lo(t, k) for t in (x.terms if isinstance(x, Sum) else (x,))]
    lo = add(*(p[1] for p in parts))
    if not lo.nonneg or lo.bound > k:
        return None
    return add(*(p[0] for p in parts)), lo


def _divisor(name: str, x: Expr, k: Expr | int) -> Expr | int:
    """A constant divisor as an int; a tree divisor gives the general operation ``name`` (nothing to simplify)."""
    k = k.value if isinstance(k, Const) else k
    return Op.make(name, x, k) if isinstance(k, Expr) else k


def div(x: Expr, k: Expr | int) -> Expr:
    """``x // k`` (floor), simplified with bounds and multiples (a tree ``k``: the general ``div``).

    >>> div(mul(var("i", 4), 8), 4)
    Mul(x=Var(name='i', upper=4), k=2)
    """
    k = _divisor("div", x, k)
    if isinstance(k, Expr):
        return k
    if k <= 0:
        raise LayoutError(f"division by non-positive constant {k}")
    if k == 1:
        return x
    if x.nonneg and x.bound <= k:
        return Const(0)
    if isinstance(x, Const):
        return Const(x.value // k)
    if isinstance(x, Div):
        return div(x.x, x.k * k)
    if isinstance(x, Mul) and x.k > 0:
        if x.k % k == 0:
            return mul(x.x, x.k // k)
        if k % x.k == 0:
            return div(x.x, k // x.k)
    if isinstance(x, Mod) and x.k % k == 0:  # (y % (k*b)) // k == (y // k) % b
        return mod(div(x.x, k), x.k // k)
    if isinstance(x, Sum) and x.nonneg and (hl := _split(x, k)) is not None:
        return hl[0]
    return Div(x, k)


def mod(x: Expr, k: Expr | int) -> Expr:
    """``x % k`` (floor), simplified with bounds and multiples (a tree ``k``: the general ``mod``).

    >>> mod(add(mul(var("i", 4), 8), var("j", 8)), 8)
    Var(name='j', upper=8)
    """
    k = _divisor("mod", x, k)
    if isinstance(k, Expr):
        return k
    if k <= 0:
        raise LayoutError(f"modulus by non-positive constant {k}")
    if k == 1:
        return Const(0)
    if x.nonneg and x.bound <= k:
        return x
    if isinstance(x, Const):
        return Const(x.value % k)
    if isinstance(x, Mod) and x.k % k == 0:
        return mod(x.x, k)
    if isinstance(x, Mul) and x.k > 0:
        if x.k % k == 0:
            return Const(0)
        if k % x.k == 0:  # (y*a) % (a*b) == (y % b) * a
            return mul(mod(x.x, k // x.k), x.k)
    if isinstance(x, Sum) and x.nonneg:
        if (hl := _split(x, k)) is not None:
            return hl[1]
        kept = [t for t in x.terms if not (isinstance(t, (Mul, Const)) and _hi_lo(t, k)[1] == Const(0))]
        if len(kept) < len(x.terms):
            return mod(add(*kept), k)
    return Mod(x, k)


def xor(a: Expr, b: Expr) -> Expr:
    if a == Const(0):
        return b
    if b == Const(0):
        return a
    if isinstance(a, Const) and isinstance(b, Const):
        return Const(a.value ^ b.value)
    return Xor(a, b)


def band(x: Expr, mask: int) -> Expr:
    """``x & mask``; a low contiguous mask is ``x % 2**b``."""
    if mask < 0:
        raise LayoutError(f"bit mask must be non-negative, found {mask}")
    if mask == 0:
        return Const(0)
    if isinstance(x, Const):
        return Const(x.value & mask)
    if mask & (mask + 1) == 0:
        return mod(x, mask + 1)
    if x.nonneg and x.bound <= (mask & -mask):  # every bit of x is below the mask
        return Const(0)
    return And(x, mask)


def shr(x: Expr, k: int) -> Expr:
    return div(x, 1 << k) if k >= 0 else shl(x, -k)


def shl(x: Expr, k: int) -> Expr:
    return mul(x, 1 << k) if k >= 0 else shr(x, -k)


# -- size arithmetic and predicates: on ints a value, on trees a node ---------------------------------------------
Size = Expr | int
"""A problem size, tile count or index: a plain int (one size) or a tree (every size)."""
Pred = Expr | bool
"""A predicate: a plain bool (one size) or a tree of ``lt`` / ``land`` / ``lor`` / ``lnot`` / ``ite`` nodes."""


def _trees(*xs: Any) -> bool:
    """Some operand is a tree other than a constant (constants compute, as ints do)."""
    return any(isinstance(x, Expr) and not isinstance(x, Const) for x in xs)


def _value(x: Any) -> Any:
    return x.value if isinstance(x, Const) else x


def ceil_div(a: Size, b: Size) -> Size:
    """``ceil(a / b)`` for ``a >= 0``, ``b > 0`` (CuTe's ``ceil_div``).

    >>> ceil_div(1000, 128), ceil_div(var("M", 2048), 128).op
    (8, 'ceil_div')
    """
    if not _trees(a, b):
        return (_value(a) + _value(b) - 1) // _value(b)
    return Op.make("ceil_div", a, b)


def minimum(a: Size, b: Size) -> Size:
    """``min(a, b)``."""
    return min(_value(a), _value(b)) if not _trees(a, b) else Op.make("min", a, b)


def maximum(a: Size, b: Size) -> Size:
    """``max(a, b)``."""
    return max(_value(a), _value(b)) if not _trees(a, b) else Op.make("max", a, b)


def lt(a: Size, b: Size) -> Pred:
    """``a < b``.

    >>> lt(3, 5), lt(var("m", 8), 5).op
    (True, 'lt')
    """
    return bool(_value(a) < _value(b)) if not _trees(a, b) else Op.make("lt", a, b)


def ite(c: Pred, a: Size, b: Size) -> Size:
    """``a`` where ``c`` holds, else ``b`` (a constant condition picks its branch)."""
    if not isinstance(c, Expr):
        return a if c else b
    return Op.make("ite", c, a, b)


def all_of(*cs: Pred) -> Pred:
    """Every predicate holds (``True`` for none); constants fold away.

    >>> all_of(), all_of(True, lt(var("m", 8), 5)).op, all_of(False, lt(var("m", 8), 5))
    (True, 'lt', False)
    """
    return _connective("land", cs, True)


def any_of(*cs: Pred) -> Pred:
    """Some predicate holds (``False`` for none); constants fold away."""
    return _connective("lor", cs, False)


def _connective(name: str, cs: tuple[Pred, ...], unit: bool) -> Pred:
    if any(not isinstance(c, Expr) and bool(c) != unit for c in cs):
        return not unit
    trees = tuple(c for c in cs if isinstance(c, Expr))
    if not trees:
        return unit
    return trees[0] if len(trees) == 1 else Op.make(name, *trees)


def lnot(c: Pred) -> Pred:
    """The predicate does not hold."""
    return not c if not isinstance(c, Expr) else Op.make("lnot", c)
