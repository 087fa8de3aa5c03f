"""Text -> the expression IR: user index expressions (``access_expr``) and, in the ``c`` dialect, generated C.

Grammar: ints (decimal, ``0x``, ``0o``, ``0b``; in the ``c`` dialect an optional ``u`` suffix), names (variables),
unary ``- ~ +``, binary ``| ^ & << >> + - * // / %`` with Python's precedence -- which is also C's for these
operators: ``|`` < ``^`` < ``&`` < shifts < ``+ -`` < ``* / // %`` -- and parentheses. ``/`` is floor division
(C's ``/`` on unsigned values); the ``c`` dialect has no ``//``. Nothing is ever ``eval``-ed. In the ``python``
dialect (what users write) a ``/`` or ``%`` with an operand that may be negative is a ``LayoutError``: C truncates
there and Python floors, so the text has two meanings (``_floor_is_c``); ``//`` is always floor.

The ``tir`` dialect reads TVM/TileLang's printed index expressions (``_j // 8``, ``_i % 8``) and their calls:
``T.bitwise_xor/and/or(a, b)``, ``T.bitwise_not(a)``, ``T.shift_left/right(a, b)``, ``T.floordiv/floormod(a, b)``,
``T.truncdiv/truncmod(a, b)`` (equal to floor on the non-negative operands they must have here),
``T.int32(k)`` / ``T.int64(k)``, ``T.max/min(a, b)``, ``T.if_then_else(c, a, b)`` / ``T.Select(c, a, b)``, the
comparisons ``< <= == != > >=`` and ``and or not`` (Python's precedence: ``or`` < ``and`` < ``not`` < comparisons <
``|``; a chain ``a < b < c`` is refused). They map onto the IR's size operations "min", "max", "ite" and predicates
"lt", "land", "lor", "lnot": ``a <= b`` is ``lnot(lt(b, a))``, ``a == b`` is ``land(lnot(lt(a, b)), lnot(lt(b,
a)))``, ``a != b`` is ``lor(lt(a, b), lt(b, a))`` (exact on all integers). A predicate used as a number is ``ite(p,
1, 0)`` and a number used as a condition is ``x != 0`` (TIR's casts). Any other call is a ``ParseError`` naming it.

The tree is built node for node as written (no simplification): ``x * 4`` is ``Mul(x, 4)``, ``x & 3`` is
``And(x, 3)``, an operation of two non-constant operands (``r * s``, ``a - b``, ``a | b``) an ``Op``, so every
interpreter of ``layoutcheck.expr`` reads user text too. A malformed text raises ``ParseError`` with the position;
a name outside ``variables`` (when given) raises ``LayoutError`` naming it and the known ones.
"""

from __future__ import annotations

from collections.abc import Mapping

from layoutcheck.errors import LayoutError, ParseError
from layoutcheck.expr.ir import And, Const, Div, Expr, Mod, Mul, Op, Shl, Shr, Var, Xor, add, all_nonneg

_PRECEDENCE = {"or": -2, "and": -1, "<": 0, "<=": 0, "==": 0, "!=": 0, ">": 0, ">=": 0,
               "|": 1, "^": 2, "&": 3, "<<": 4, ">>": 4, "+": 5, "-": 5, "*": 6, "//": 6, "/": 6, "%": 6}
_SYMBOLS = ("<<", ">>", "//", "<=", ">=", "==", "!=", "<", ">", "+", "-", "*", "/", "%", "^", "&", "|", "~", "(",
            ")", ",")
_TIR_ONLY = frozenset({",", "<=", ">=", "==", "!=", "<", ">"})
"""Tokens only the ``tir`` dialect has (calls' commas, comparisons); ``and or not`` are words there too."""
_LOGIC_WORDS = frozenset({"and", "or", "not"})
PREDICATES = frozenset({"lt", "land", "lor", "lnot"})
"""IR operations whose value is a truth value, not a number."""
_TIR_CALLS = {"T.bitwise_xor": "^", "T.bitwise_and": "&", "T.bitwise_or": "|", "T.shift_left": "<<",
              "T.shift_right": ">>", "T.floordiv": "//", "T.floormod": "%", "T.truncdiv": "//", "T.truncmod": "%"}
"""TIR calls of two operands -> the operator they compute (``T.trunc*`` only on non-negative operands)."""
UNBOUNDED = 1 << 64
"""Upper bound of a variable whose range the text does not give."""


def _number(text: str, i: int, c_dialect: bool) -> tuple[str, int]:
    j = i
    while j < len(text) and text[j].isalnum():
        j += 1
    lit = text[i:j]
    if c_dialect and lit[-1:] in ("u", "U"):
        lit = lit[:-1]
    try:
        int(lit, 0)
    except ValueError:
        raise ParseError(text, i, "bad integer") from None
    return lit, j


def _tokenize(text: str, c_dialect: bool, tir: bool = False) -> list[tuple[str, int]]:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c.isdigit():
            lit, j = _number(text, i, c_dialect)
            out.append((lit, i))
            i = j
        elif c.isalpha() or c == "_":
            j = i
            while j < len(text) and (text[j].isalnum() or text[j] == "_" or (tir and text[j] == ".")):
                j += 1
            out.append((text[i:j], i))
            i = j
        else:
            tok = next((t for t in _SYMBOLS if text.startswith(t, i) and not (c_dialect and t == "//")
                        and (tir or t not in _TIR_ONLY)), None)
            if tok is None:
                raise ParseError(text, i, f"unexpected character {c!r}")
            out.append((tok, i))
            i += len(tok)
    return out


def as_pred(x: Expr) -> Expr:
    """``x`` as a condition: a predicate as it is, a number ``x != 0`` (TIR's cast to bool)."""
    return x if x.op in PREDICATES else Op.make("lor", Op.make("lt", x, 0), Op.make("lt", 0, x))


def as_number(x: Expr) -> Expr:
    """``x`` as a number: a predicate ``ite(p, 1, 0)`` (TIR's cast of a bool), a number as it is."""
    return Op.make("ite", x, 1, 0) if x.op in PREDICATES else x


def _compare(op: str, a: Expr, b: Expr) -> Expr:
    """``a op b`` for the six comparisons, from ``lt`` / ``lnot`` / ``land`` / ``lor`` (exact on all integers)."""
    a, b = as_number(a), as_number(b)
    if op == "<":
        return Op.make("lt", a, b)
    if op == ">":
        return Op.make("lt", b, a)
    if op == "<=":
        return Op.make("lnot", Op.make("lt", b, a))
    if op == ">=":
        return Op.make("lnot", Op.make("lt", a, b))
    if op == "==":
        return Op.make("land", Op.make("lnot", Op.make("lt", a, b)), Op.make("lnot", Op.make("lt", b, a)))
    return Op.make("lor", Op.make("lt", a, b), Op.make("lt", b, a))  # !=


_EXACT_POINTS = 1 << 20
"""The most points over which an operand's least value is computed exactly when its interval reaches below 0."""


def _least(x: Expr) -> int | None:
    """The least value ``x`` takes over its variables' ranges: from interval arithmetic when that bound is not
    negative, else by evaluating ``x`` at every point (``None``: too many points, or a division by zero inside)."""
    from layoutcheck.expr.ir import nodes
    from layoutcheck.expr.numpy import offsets_of
    from layoutcheck.expr.z3 import value_range

    lo = value_range(x, defined=True)[0]
    if lo >= 0:
        return lo
    uppers = {n.name: n.upper for n in nodes(x) if isinstance(n, Var)}
    points = 1
    for u in uppers.values():
        points *= u
    if points > _EXACT_POINTS:
        return None
    try:
        return int(offsets_of(x, tuple(uppers.items())).min())
    except ZeroDivisionError:
        return None


def _floor_is_c(text: str, at: int, op: str, a: Expr, b: Expr) -> None:
    """Refuse ``a / b`` or ``a % b`` where an operand may be negative: C's ``/`` and ``%`` truncate toward zero,
    Python's floor, so the text would have two meanings (``(i - 3) % 8`` over ``i < 8`` is a bijection onto
    ``[0, 8)`` in Python, not in C). ``//`` is Python's floor division and always means it."""
    for what, x in (("left operand", a), ("right operand", b)):
        least = _least(x)
        if least is None or least < 0:
            how = f"takes negative values (as low as {least})" if least is not None else "may take negative values"
            raise LayoutError(f"{text!r}: the {what} of {op!r} at column {at + 1} {how}, where C's {op!r} truncates "
                              f"toward zero and Python's floors; write '//' for floor division (and x - k*(x // k) "
                              f"for its remainder), or keep the operands non-negative")


def _binary(op: str, a: Expr, b: Expr) -> Expr:
    """The node of ``a op b``, as written: a constant right operand gives the IR's constant-argument node."""
    if op in ("and", "or"):
        return Op.make("l" + op, as_pred(a), as_pred(b))
    if _PRECEDENCE[op] == 0:
        return _compare(op, a, b)
    a, b = as_number(a), as_number(b)
    k = b.value if isinstance(b, Const) else None
    if op == "+":
        return add(a, b)
    if op == "^":
        return Xor(a, b)
    if op in ("*", "&") and k is None and isinstance(a, Const):
        a, b, k = b, a, a.value
    if k is not None and op in ("//", "/", "%") and k == 0:
        raise LayoutError(f"expression divides by the constant 0: {a} {op} 0")
    node = {"*": Mul, "&": And, "//": Div, "/": Div, "%": Mod, "<<": Shl, ">>": Shr}.get(op)
    if node is not None and k is not None:
        return node(a, k)
    name = {"*": "mul", "&": "and", "//": "div", "/": "div", "%": "mod", "<<": "shl", ">>": "shr", "|": "or",
            "-": "sub"}[op]
    return Op.make(name, a, b)


def parse(text: str, variables: Mapping[str, int] | None = None, dialect: str = "python") -> Expr:
    """Parse an integer expression into the IR; names are variables (``0 <= name < variables[name]``).

    Pre: ``dialect`` is ``"python"``, ``"c"`` or ``"tir"``. Post: ``evaluate(parse(t), env)`` is Python's value of ``t``
    (``//`` and ``/`` floor) for every ``env``.

    >>> from layoutcheck.expr.numpy import evaluate
    >>> e = parse("r ^ ((lane >> 3) & 3)", {"r": 4, "lane": 32})
    >>> e.op, int(evaluate(e, {"r": 1, "lane": 9}))
    ('xor', 0)
    """
    c_dialect = dialect == "c"
    toks = _tokenize(text, c_dialect, dialect == "tir")
    pos = 0

    def peek() -> str | None:
        return toks[pos][0] if pos < len(toks) else None

    def where() -> int:
        return toks[pos][1] if pos < len(toks) else len(text)

    def name(t: str) -> Expr:
        if variables is None:
            return Var(t, UNBOUNDED)
        if t not in variables:
            raise LayoutError(f"expression uses unknown variable {t!r}; known: {', '.join(variables) or '(none)'}")
        return Var(t, variables[t])

    def unary() -> Expr:
        nonlocal pos
        t = peek()
        if t is None:
            raise ParseError(text, where(), "expression ends early")
        pos += 1
        if t in ("-", "~", "+"):
            x = as_number(unary())
            return x if t == "+" else Op.make("neg" if t == "-" else "not", x)
        if t == "not" and dialect == "tir":
            return Op.make("lnot", as_pred(binary(_PRECEDENCE["and"])))
        if t == "(":
            e = binary(-10)
            if peek() != ")":
                raise ParseError(text, where(), "expected ')'")
            pos += 1
            return e
        if t[0].isdigit():
            return Const(int(t, 0))
        if "." in t or (dialect == "tir" and peek() == "("):
            return call(t, toks[pos - 1][1])
        if t in _LOGIC_WORDS and dialect == "tir":
            raise ParseError(text, toks[pos - 1][1], f"unexpected {t!r}")
        if t[0].isalpha() or t[0] == "_":
            return name(t)
        raise ParseError(text, toks[pos - 1][1], f"unexpected {t!r}")

    def call(fn: str, at: int) -> Expr:
        nonlocal pos
        if peek() != "(":
            raise ParseError(text, at, f"unexpected {fn!r}")
        pos += 1
        args = [binary(-10)]
        while peek() == ",":
            pos += 1
            args.append(binary(-10))
        if peek() != ")":
            raise ParseError(text, where(), f"expected ')' closing {fn}(")
        pos += 1
        if fn in ("T.int32", "T.int64") and len(args) == 1 and isinstance(args[0], Const):
            return args[0]
        if fn == "T.bitwise_not" and len(args) == 1:
            return Op.make("not", args[0])
        if fn in ("T.max", "T.min") and len(args) == 2:
            return Op.make(fn[2:], *map(as_number, args))
        if fn in ("T.if_then_else", "T.Select") and len(args) == 3:
            return Op.make("ite", as_pred(args[0]), as_number(args[1]), as_number(args[2]))
        if fn in _TIR_CALLS and len(args) == 2:
            args = [as_number(a) for a in args]
            if fn.startswith("T.trunc") and not all(all_nonneg(a) for a in args):
                raise LayoutError(f"{fn}({args[0]}, {args[1]}) truncates a possibly negative operand; only its "
                                  f"non-negative (floor) meaning is supported")
            return _binary(_TIR_CALLS[fn], args[0], args[1])
        raise ParseError(text, at, f"unsupported call {fn}() with {len(args)} argument(s)")

    def binary(min_prec: int) -> Expr:
        nonlocal pos
        left = unary()
        while (t := peek()) in _PRECEDENCE and _PRECEDENCE[t] > min_prec and (dialect == "tir" or t not in
                                                                               _LOGIC_WORDS):
            at = where()
            pos += 1
            right = binary(_PRECEDENCE[t])
            if t in ("/", "%") and dialect == "python":
                _floor_is_c(text, at, t, as_number(left), as_number(right))
            left = _binary(t, left, right)
            if _PRECEDENCE[t] == 0 and peek() in _PRECEDENCE and _PRECEDENCE[peek()] == 0:
                raise ParseError(text, at, "a chained comparison (a < b < c): write it with 'and'")
        return left

    tree = binary(-10)
    if pos != len(toks):
        raise ParseError(text, where(), f"unexpected {peek()!r}")
    return tree
