"""Reading CuTe notation: layouts ``(4,(2,2)):(1,(4,8))``, swizzles ``Sw<3,4,3> o 0 o (8,64):(64,1)``, and the
small expression language of ``layoutcheck calc`` (``logical_divide((128,128):(128,1), ((16,4):(4,1),None))``).

Grammar (spaces anywhere; ``_8`` is CuTe's static 8 and reads as 8; ``_`` or ``None`` is CuTe's ``_``)::

    expr     := call | swizzled | term
    call     := NAME '(' [expr (',' expr)*] ')'
    swizzled := swizzle 'o' [INT 'o'] term            # Sw<B,M,S> o offset o layout
    swizzle  := ('Sw' | 'Swizzle' | 'S') '<' INT ',' INT ',' INT '>'      # 'S' as the CuTe DSL prints it
    term     := group [':' group]                      # a layout when ':' follows
    group    := INT | INT '@' INT | '_' | 'None' | '(' expr (',' expr)* ')'   # d@k: a ScaledBasis stride

Writing is ``str(x)`` on each value. Every error is a ``ParseError`` pointing at the bad character, except text
nested deeper than ``MAX_NESTING`` parentheses or calls: one short ``LayoutError`` ("nesting deeper than 64 at column
N") that does not echo the text, which may be megabytes long.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from layoutcheck.algebra.inttuple import flatten, is_int, is_tuple, unflatten
from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout, Subject, Swizzle
from layoutcheck.errors import LayoutError, ParseError

_TOKEN = re.compile(r"\s*(?:(?P<basis>-?_?\d+@_?\d+)|(?P<int>-?_?\d+)|"
                    r"(?P<name>[A-Za-z][A-Za-z0-9_]*)|(?P<punct>[():,<>_])|(?P<bad>\S))")


MAX_NESTING = 64
"""Parentheses and calls nest at most this deep (CuTe's hierarchical layouts nest a few levels; the algebra recurses
along the nesting, so a deeper text is refused while it is read, before anything recurses on it)."""


class _Parser:
    def __init__(self, text: str, functions: dict[str, Callable[..., Any]] | None = None) -> None:
        self.codomain: tuple[int, ...] | None = None
        self.depth = 0
        self.text = text
        self.pos = 0
        self.functions = functions or {}
        self._scanned: tuple[int, tuple[str, str, int], int] = (-1, ("end", "", 0), 0)  # (pos, token, its end)

    # -- tokens ---------------------------------------------------------------------------------------------------
    def _scan(self) -> tuple[tuple[str, str, int], int]:
        """The token at ``pos`` and the position after it (scanned once per position: the grammar peeks often)."""
        at, tok, end = self._scanned
        if at != self.pos:
            m = _TOKEN.match(self.text, self.pos)  # every alternative takes a character: no match <=> only blanks
            if m is None:
                tok, end = ("end", "", len(self.text.rstrip())), self.pos
            else:
                kind = m.lastgroup or "bad"
                tok, end = (kind, m.group(kind), m.start(kind)), m.end()
            self._scanned = (self.pos, tok, end)
        return tok, end

    def _peek(self) -> tuple[str, str, int]:
        return self._scan()[0]

    def _next(self) -> tuple[str, str, int]:
        tok, end = self._scan()
        self.pos = end
        return tok

    def _fail(self, what: str, pos: int | None = None) -> ParseError:
        return ParseError(self.text, self.pos if pos is None else pos, what)

    def _enter(self, pos: int) -> None:
        """One level deeper (a '(' or a call); refused past ``MAX_NESTING``, in one line without the text."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise LayoutError(f"nesting deeper than {MAX_NESTING} at column {pos + 1} (of {len(self.text)} characters)")

    def _expect(self, value: str) -> None:
        kind, val, pos = self._next()
        if val != value:
            found = "end of text" if kind == "end" else repr(val)
            raise self._fail(f"expected {value!r}, found {found}", pos)

    # -- grammar --------------------------------------------------------------------------------------------------
    def parse_all(self) -> Any:
        value = self.expr()
        kind, val, pos = self._peek()
        if kind != "end":
            raise self._fail(f"unexpected {val!r} after a complete expression", pos)
        return value

    def expr(self) -> Any:
        kind, val, pos = self._peek()
        if kind == "name" and val in ("Sw", "Swizzle", "S"):
            return self.swizzled()
        if kind == "name" and val != "None":
            save = self.pos
            self._next()
            is_call = self._peek()[1] == "("
            self.pos = save
            if not is_call:
                raise self._fail(f"unexpected name {val!r} (expected an integer, a tuple or a function call)", pos)
            return self.call()
        return self.term()

    def call(self) -> Any:
        _, name, pos = self._next()
        if not self.functions:
            raise self._fail(f"expected an integer, found {name!r}", pos)
        if name not in self.functions:
            from difflib import get_close_matches

            near = get_close_matches(name, list(self.functions), n=3)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise self._fail(f"unknown function {name!r}{hint}", pos)
        self._expect("(")
        self._enter(pos)
        args: list[Any] = []
        if self._peek()[1] != ")":
            args.append(self.expr())
            while self._peek()[1] == ",":
                self._next()
                args.append(self.expr())
        self._expect(")")
        self.depth -= 1
        try:
            return self.functions[name](*args)
        except LayoutError as e:
            raise LayoutError(f"{name}: {e}") from None
        except TypeError as e:
            raise self._fail(f"bad arguments to {name}: {e}", pos) from None

    def swizzle(self) -> Swizzle:
        self._next()
        self._expect("<")
        nums = [self.integer()]
        for _ in range(2):
            self._expect(",")
            nums.append(self.integer())
        self._expect(">")
        return Swizzle(*nums)

    def swizzled(self) -> Any:
        sw = self.swizzle()
        kind, val, pos = self._peek()
        if val != "o":
            return sw
        self._next()
        offset = 0
        save = self.pos
        kind, val, pos = self._peek()
        if kind == "int":
            self._next()
            if self._peek()[1] == "o":
                self._next()
                offset = _to_int(val)
            else:
                self.pos = save
        layout = self.term()
        if not isinstance(layout, Layout):
            raise self._fail("a swizzle composes with a layout shape:stride", pos)
        return ComposedLayout(sw, offset, layout)

    def integer(self) -> int:
        kind, val, pos = self._next()
        if kind != "int":
            raise self._fail(f"expected an integer, found {val!r}" if kind != "end" else "expected an integer", pos)
        return _to_int(val)

    def group(self) -> Any:
        kind, val, pos = self._next()
        if kind == "int":
            return _to_int(val)
        if kind == "basis":  # CuTe's ScaledBasis d@k: d times the unit vector of codomain mode k
            d, k = val.split("@")
            return Basis(_to_int(d), _to_int(k))
        if val in ("_", "None"):
            return None
        if val == "(":
            self._enter(pos)
            items = [self.expr()]
            while self._peek()[1] == ",":
                self._next()
                items.append(self.expr())
            self._expect(")")
            self.depth -= 1
            return tuple(items)
        if kind == "end":
            raise self._fail("unexpected end of text", pos)
        raise self._fail(f"unexpected {val!r}", pos)

    def term(self) -> Any:
        start = self._peek()[2]
        shape = self.group()
        if self._peek()[1] != ":":
            return shape
        self._next()
        stride_pos = self._peek()[2]
        stride = self.group()
        if _has_basis(stride):
            if not _is_inttuple(shape):
                raise self._fail("shape must be a nested tuple of integers", start)
            try:
                stride, self.codomain = basis_strides(shape, stride)
            except (LayoutError, ValueError, TypeError) as e:  # e.g. a shape and stride of different profiles
                raise self._fail(f"ScaledBasis strides do not fit the shape: {e}", stride_pos) from None
        for what, value, pos in (("shape", shape, start), ("stride", stride, stride_pos)):
            if not _is_inttuple(value):
                raise self._fail(f"{what} must be a nested tuple of integers", pos)
        try:
            return Layout(shape, stride)
        except LayoutError as e:
            raise self._fail(str(e), start) from None


class Basis(NamedTuple):
    """CuTe's ``ScaledBasis``: ``value@mode`` is ``value`` times the unit vector of codomain mode ``mode``."""

    value: int
    mode: int


def basis_strides(shape: Any, stride: Any) -> tuple[Any, tuple[int, ...]]:
    """Integer strides for a layout with ``ScaledBasis`` strides, and its codomain shape: the codomain's extent in
    mode ``k`` is ``1 + sum (s-1)*d`` over the modes of stride ``d@k`` (plain ints count as ``@0``), and ``d@k``
    becomes ``d * prod(extent[:k])`` (the codomain read colexicographically, as CuTe's coordinates).

    >>> basis_strides((64, 128), (Basis(1, 1), Basis(1, 0)))
    ((128, 1), (128, 64))
    """
    pairs = list(zip(flatten(shape), flatten(stride), strict=True))
    as_b = [(s, d if isinstance(d, Basis) else Basis(d, 0)) for s, d in pairs]
    if any(b.value < 0 for _, b in as_b):
        raise LayoutError("a ScaledBasis stride must be non-negative")
    modes = 1 + max(b.mode for _, b in as_b)
    ext = [1 + sum((s - 1) * b.value for s, b in as_b if b.mode == k) for k in range(modes)]
    base = [1] * modes
    for k in range(1, modes):
        base[k] = base[k - 1] * ext[k - 1]
    flat = [b.value * base[b.mode] for _, b in as_b]
    return unflatten(tuple(flat), stride), tuple(ext)


def _has_basis(x: Any) -> bool:
    if isinstance(x, Basis):
        return True
    return is_tuple(x) and any(_has_basis(m) for m in x)


def _to_int(tok: str) -> int:
    try:
        return int(tok.replace("_", ""))
    except ValueError:  # more digits than Python converts (sys.get_int_max_str_digits, 4300 by default)
        raise LayoutError(f"integer of {len(tok)} digits is too large (layouts take integers up to 2**63)") from None


def _is_inttuple(x: Any) -> bool:
    if is_tuple(x):
        return len(x) > 0 and all(_is_inttuple(m) for m in x)
    return is_int(x)


def parse_layout(text: str) -> Layout | ComposedLayout:
    """Read a layout or a swizzled layout in CuTe notation.

    >>> str(parse_layout("(4, (2,2)) : (1,(4,8))"))
    '(4,(2,2)):(1,(4,8))'
    >>> str(parse_layout("Sw<3,4,3> o (8,64):(64,1)"))
    'Sw<3,4,3> o 0 o (8,64):(64,1)'
    """
    if not isinstance(text, str):
        raise LayoutError(f"parse_layout takes text, found {type(text).__name__}")
    value = _Parser(text).parse_all()
    if _is_inttuple(value) and not isinstance(value, Layout):
        value = Layout(value)  # a bare shape: default (column-major) stride
    if not isinstance(value, (Layout, ComposedLayout)):
        raise ParseError(text, 0, "expected a layout shape:stride")
    return value


def parse_notation(text: str) -> tuple[Any, tuple[int, ...] | None]:
    """Any CuTe-notation value (int, tuple, layout, swizzle, composed layout) and, for a layout with ScaledBasis
    strides, its codomain shape (else ``None``).

    >>> parse_notation("(4,8):(1@1,1@0)")
    (Layout((4,8):(8,1)), (8, 4))
    """
    p = _Parser(text)
    value = p.parse_all()
    return value, p.codomain


def parse_swizzle(text: str) -> Swizzle:
    value = _Parser(text).parse_all()
    if not isinstance(value, Swizzle):
        raise ParseError(text, 0, "expected Sw<B,M,S>")
    return value


def as_subject(x: Any, what: str = "subject") -> Subject:
    """A ``Layout`` / ``ComposedLayout``, or CuTe notation text parsed into one."""
    if isinstance(x, (Layout, ComposedLayout)):
        return x
    if isinstance(x, str):
        return as_subject(parse_layout(x), what)
    raise LayoutError(f"{what} must be a Layout or ComposedLayout, found {type(x).__name__} {x!r}")


def evaluate_expression(text: str, functions: dict[str, Callable[..., Any]]) -> Any:
    """Evaluate a calc expression with the given function table."""
    return _Parser(text, functions).parse_all()
