"""TileLang printouts -> layoutcheck values: what ``repr`` of a TileLang ``Layout`` / ``Fragment`` prints (its C++
``DebugOutput``, ``src/layout/layout.cc``; read, not copied), read back and made provable.

The two forms (TileLang since mid-2025; arrays may print as ``(..)`` or ``[..]``)::

    Layout((64, 64) -> (1, 8, 512), transform: (_i, _j) -> (0, _i // 8, _i % 8 * 64 + (_j // 32 + _i % 8 // 4)
        % 2 * 32 + ... + _j % 8))
    Fragment((16, 16) -> (8,), replicate: 2, thread: 64, forward_thread: _rep * 32 + _i % 8 * 4 + _j // 4,
        forward_index: (_i // 8 * 4 + _j % 4,)[, thread_range: I.Range(0, 128)])

A **Layout** maps a logical coordinate ``(_i, _j, ...)`` of its input shape to a physical coordinate whose extents
are the output shape; TileLang stores it at the row-major linear index of that coordinate
(``GetLinearizedForwardIndex``). A **Fragment** maps a logical coordinate and a replica ``_rep < replicate`` to a
thread ``forward_thread < thread`` and a local register index (``forward_index``, row-major over its output shape).
Index expressions are TIR (``//``, ``%`` floor; ``T.bitwise_xor(a, b)`` ...), parsed into layoutcheck's expression
IR by ``layoutcheck.expr.parse`` (dialect ``tir``); a Fragment's variables are TileLang's placeholders ``_i, _j, _k,
...`` (one per input dimension) and ``_rep``.

Conventions (CuTe's): the input domain is read colexicographically, ``_i`` fastest -- the input coordinate
``(i, j)`` of a ``(M, N)`` layout is CuTe's coordinate ``(i, j)`` of shape ``(M, N)``, flat index ``i + M*j``; a
Fragment's domain has one more mode, ``_rep`` (when ``replicate > 1``). Its *slot* is ``thread + T * register``
(CuTe's ``(T, V)`` order). So:

    forward(L)           (i, j, ...) -> row-major offset                     a CuTe layout, e.g. (64,64):(64,1)
    forward(F)           (i, j, ..., rep) -> thread + T * register           bijective <=> every slot holds one copy
    tv_layout(F)         (thread, register) -> i + M*j                       CuTe's TV layout of the tile
    tv_linear(F)         register, lane, warp -> (dim0, dim1, ...)           Triton's linear-layout view
    shared_linear(L)     offset -> (dim0, dim1, ...)                          the same for a shared layout

Each is a CuTe ``Layout`` or ``Sw<B,M,S> o 0 o Layout`` where one has the same map (every point re-checked), else
a ``LinearLayout`` where the map is GF(2)-linear (powers of two), else ``LayoutError`` naming why
(``layoutcheck.importers.fit``). Lowered TIR (``layout_map`` attributes) is read by
``layoutcheck.importers.tilelang_tir`` into the same printouts. Worked example:
TileLang's 128-byte swizzle of a 64x64 f16 buffer (above) is ``Sw<3,3,3> o 0 o (64,64):(64,1)``, CuTe's
``SW128`` K-major atom tiled down the rows; ``make_gemm_fragment_8x8()`` (``thread = _i * 4 + _j // 2``,
``register = _j % 2``) has the TV layout ``((4,8),2):((16,1),8)``: thread ``t`` holds row ``t // 4``, columns
``2*(t % 4) + v`` -- the mma.sync accumulator fragment of an 8x8 tile.

Before mid-2025 TileLang printed one line, ``Layout Shape: [64, 64] -> [1, 8, 512] -> [index, ...]`` and ``Fragment
Shape: [16, 16] -> [8] -> replicate: 1 -> thread: 32 -> forward_thread: E -> forward_index: [..] -> thread_range:
r``; it is read into the same values.

TileLang prints ``thread: pos_inf`` when its analyzer finds no bound of ``forward_thread`` (e.g. a
``T.if_then_else``); the thread count is then 1 + the largest thread the expression reaches (as for lowered TIR).

Errors: malformed text raises ``ParseError`` naming the offending token and its column; a symbolic extent, an
unknown variable or an unsupported TIR call likewise. A fragment whose slots collide has no TV layout
(``LayoutError`` naming both coordinates); ``forward(F)`` still exists, so ``bijective`` refutes it with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np

from layoutcheck.algebra.linear_layout import LinearLayout
from layoutcheck.errors import LayoutError, ParseError
from layoutcheck.expr.ir import Expr, variables
from layoutcheck.expr.numpy import offsets_of
from layoutcheck.expr.parse import as_number, parse
from layoutcheck.expr.tir import tir_expr
from layoutcheck.importers.fit import fit, linear_from_table

MAX_POINTS = 1 << 22
"""The largest domain (input points x replicas) whose map is tabulated."""

LANES = 32
"""Threads per warp (for ``tv_linear``'s ``lane`` / ``warp`` split)."""


@dataclass(frozen=True, slots=True, repr=False)
class TileLangLayout:
    """A TileLang ``Layout``: ``forward_index`` (one expression per output dimension) over ``variables`` (one per
    input dimension, extents ``input_shape``); ``output_shape`` as TileLang printed it."""

    input_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    variables: tuple[str, ...]
    forward_index: tuple[Expr, ...]

    @property
    def domain(self) -> tuple[tuple[str, int], ...]:
        """``(variable, extent)`` pairs, first fastest (CuTe's colexicographic order)."""
        return tuple(zip(self.variables, self.input_shape, strict=True))

    def __repr__(self) -> str:
        return printout(self)


@dataclass(frozen=True, slots=True, repr=False)
class TileLangFragment:
    """A TileLang ``Fragment``: element ``(_i, _j, ...)``'s copy ``_rep < replicate`` lives in thread
    ``forward_thread`` (``< thread``) at register ``forward_index`` (row-major over ``output_shape``)."""

    input_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    replicate: int
    thread: int
    forward_thread: Expr
    forward_index: tuple[Expr, ...]
    thread_range: tuple[int, int] | None = None

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(placeholder(k) for k in range(len(self.input_shape)))

    @property
    def domain(self) -> tuple[tuple[str, int], ...]:
        """``(variable, extent)`` pairs of the elements and, when ``replicate > 1`` (or an expression names it),
        ``_rep``; first fastest."""
        used = any("_rep" in variables(e) for e in (self.forward_thread, *self.forward_index))
        rep = (("_rep", self.replicate),) if self.replicate > 1 or used else ()
        return tuple(zip(self.variables, self.input_shape, strict=True)) + rep

    @property
    def registers(self) -> int:
        """Registers per thread: the product of the output shape."""
        return prod(self.output_shape)

    def __repr__(self) -> str:
        return printout(self)


TileLang = TileLangLayout | TileLangFragment


def placeholder(k: int) -> str:
    """TileLang's name of input dimension ``k``: ``_i``, ``_j``, ``_k``, ... (``InputPlaceholder``)."""
    return "_" + chr(ord("i") + k)


# -- reading the printout -------------------------------------------------------------------------------------------
_HEAD = re.compile(r"\s*(Layout|Fragment)\s*\(")
_OPEN = {"(": ")", "[": "]"}


def _close(text: str, i: int) -> int:
    """Index of the bracket closing the one at ``text[i]``."""
    stack = []
    for j in range(i, len(text)):
        c = text[j]
        if c in _OPEN:
            stack.append(_OPEN[c])
        elif c in ")]":
            if not stack or stack.pop() != c:
                raise ParseError(text, j, f"unbalanced {c!r}")
            if not stack:
                return j
    raise ParseError(text, i, f"{text[i]!r} is never closed")


def _split(text: str, lo: int, hi: int, sep: str = ",") -> list[tuple[int, int]]:
    """``[lo, hi)`` split at its top-level ``sep``, as ``(start, end)`` spans, whitespace trimmed."""
    parts, depth, start, j = [], 0, lo, lo
    while j < hi:
        c = text[j]
        if c in _OPEN:
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0 and text.startswith(sep, j):
            parts.append((start, j))
            start = j + len(sep)
            j += len(sep) - 1
        j += 1
    parts.append((start, hi))
    out = []
    for a, b in parts:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        out.append((a, b))
    return out


def _items(text: str, a: int, b: int, what: str) -> list[tuple[int, int]]:
    """The entries of a bracketed list ``(x, y,)`` / ``[x, y]`` spanning exactly ``[a, b)``."""
    if a >= b or text[a] not in _OPEN:
        raise ParseError(text, a, f"expected a bracketed {what}")
    end = _close(text, a)
    if end != b - 1:
        raise ParseError(text, end + 1, f"unexpected text after the {what}")
    parts = _split(text, a + 1, end)
    if parts and parts[-1][0] == parts[-1][1]:  # a trailing comma: (4096,)
        parts = parts[:-1]
    for s, e in parts:
        if s == e:
            raise ParseError(text, s, f"empty entry in the {what}")
    return parts


def _int(text: str, a: int, b: int, what: str) -> int:
    tok = text[a:b]
    m = re.fullmatch(r"(?:T\.int(?:32|64)\()?(\d+)\)?", tok)
    if m is None:
        raise ParseError(text, a, f"{what} must be a static integer, found {tok!r}")
    return int(m.group(1))


def _shape(text: str, a: int, b: int, what: str) -> tuple[int, ...]:
    out = tuple(_int(text, s, e, f"an extent of the {what}") for s, e in _items(text, a, b, what))
    for (s, _), n in zip(_items(text, a, b, what), out, strict=True):
        if n < 1:
            raise ParseError(text, s, f"an extent of the {what} must be positive, found {n}")
    return out


def _arrow(text: str, a: int, b: int, what: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """``X -> Y`` within ``[a, b)`` at the top level, as the spans of X and Y."""
    depth = 0
    for j in range(a, b - 1):
        c = text[j]
        depth += c in _OPEN
        depth -= c in ")]"
        if depth == 0 and text.startswith("->", j):
            lhs, rhs = _split(text, a, j)[0], _split(text, j + 2, b)[0]
            return lhs, rhs
    raise ParseError(text, a, f"expected '->' in the {what}")


def _expr(text: str, a: int, b: int, variables: dict[str, int]) -> Expr:
    item = text[a:b]
    try:
        return as_number(parse(item, variables, dialect="tir"))
    except ParseError as e:
        raise ParseError(text, a + e.pos, e.what) from None
    except LayoutError as e:
        m = re.search(r"unknown variable '([^']+)'", str(e))
        if m is None:
            raise ParseError(text, a, str(e)) from None
        pos = a + re.search(rf"(?<![\w.]){re.escape(m.group(1))}(?!\w)", item).start()
        raise ParseError(text, pos, f"expression uses unknown variable {m.group(1)!r} (known: "
                                    f"{', '.join(variables)})") from None


def _field(text: str, span: tuple[int, int], key: str) -> tuple[int, int]:
    """The value span of ``key: value``."""
    a, b = span
    if not text.startswith(key, a) or not text[a + len(key):b].lstrip().startswith(":"):
        found = text[a:b].split(":")[0].strip() or text[a:b]
        raise ParseError(text, a, f"expected '{key}:', found {found!r}")
    a = text.index(":", a + len(key)) + 1
    while a < b and text[a].isspace():
        a += 1
    if a == b:
        raise ParseError(text, a, f"'{key}:' has no value")
    return a, b


def parse_tilelang(text: str) -> TileLang:
    """One ``Layout(...)`` or ``Fragment(...)`` printout (TileLang's ``repr``), read into its value.

    Pre: none (malformed text raises ``ParseError`` naming the token). Post: the expressions evaluate as TileLang's.

    >>> x = parse_tilelang("Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8 + _j,))")
    >>> x.input_shape, x.output_shape, x.variables
    ((4, 8), (32,), ('_i', '_j'))
    """
    legacy = _LEGACY.match(text)
    if legacy is not None:
        return _legacy(text, legacy.group(1), legacy.end())
    m = _HEAD.match(text)
    if m is None:
        start = len(text) - len(text.lstrip())
        raise ParseError(text, start, "expected a TileLang 'Layout(' or 'Fragment(' printout, found "
                                      f"{text[start:start + 12]!r}")
    kind, open_at = m.group(1), m.end() - 1
    end = _close(text, open_at)
    if text[end + 1:].strip():
        raise ParseError(text, end + 1 + len(text[end + 1:]) - len(text[end + 1:].lstrip()),
                         f"unexpected text after the {kind} printout")
    parts = _split(text, open_at + 1, end)
    (ia, ib), (oa, ob) = _arrow(text, *parts[0], "shapes")
    in_shape, out_shape = _shape(text, ia, ib, "input shape"), _shape(text, oa, ob, "output shape")
    if kind == "Layout":
        if len(parts) != 2:
            raise ParseError(text, parts[min(len(parts) - 1, 2)][0], "a Layout printout has two fields: shapes and "
                                                                     f"'transform:', found {len(parts)}")
        (va, vb), (fa, fb) = _arrow(text, *_field(text, parts[1], "transform"), "transform")
        names = []
        for s, e in _items(text, va, vb, "variable list"):
            if not re.fullmatch(r"[A-Za-z_]\w*", text[s:e]):
                raise ParseError(text, s, f"expected a variable name, found {text[s:e]!r}")
            names.append(text[s:e])
        if len(names) != len(in_shape):
            raise ParseError(text, va, f"{len(names)} variables for a {len(in_shape)}-dimensional input shape")
        env = dict(zip(names, in_shape, strict=True))
        index = tuple(_expr(text, s, e, env) for s, e in _items(text, fa, fb, "forward index"))
        if len(index) != len(out_shape):
            raise ParseError(text, fa, f"{len(index)} index expressions for a {len(out_shape)}-dimensional output")
        return TileLangLayout(in_shape, out_shape, tuple(names), index)
    return _fragment(text, parts, in_shape, out_shape)


_FRAGMENT_KEYS = ("replicate", "thread", "forward_thread", "forward_index")
_LEGACY = re.compile(r"\s*(Layout|Fragment) Shape:")


def _legacy(text: str, kind: str, start: int) -> TileLang:
    """TileLang before mid-2025: ``Layout Shape: S -> O -> [index]`` / ``Fragment Shape: S -> O -> replicate: R ->
    thread: T -> forward_thread: E -> forward_index: [index] -> thread_range: r`` (placeholders ``_i, _j, ...``)."""
    parts = _split(text, start, len(text.rstrip()), sep="->")
    if len(parts) < 3:
        raise ParseError(text, parts[-1][1], f"a {kind} Shape printout has at least three '->'-separated fields")
    in_shape, out_shape = _shape(text, *parts[0], "input shape"), _shape(text, *parts[1], "output shape")
    if kind == "Layout":
        if len(parts) != 3:
            raise ParseError(text, parts[3][0], "unexpected text after the layout's forward index")
        env = {placeholder(k): n for k, n in enumerate(in_shape)}
        index = tuple(_expr(text, a, b, env) for a, b in _items(text, *parts[2], "forward index"))
        if len(index) != len(out_shape):
            raise ParseError(text, parts[2][0], f"{len(index)} index expressions for a {len(out_shape)}-dimensional "
                                                "output")
        return TileLangLayout(in_shape, out_shape, tuple(env), index)
    return _fragment(text, [(parts[0][0], parts[1][1]), *parts[2:]], in_shape, out_shape)


def _fragment(text: str, parts: list[tuple[int, int]], in_shape: tuple[int, ...],
              out_shape: tuple[int, ...]) -> TileLangFragment:
    if len(parts) not in (5, 6):
        raise ParseError(text, parts[-1][0], "a Fragment printout has the fields shapes, replicate, thread, "
                                             "forward_thread, forward_index[, thread_range]")
    spans = [_field(text, p, k) for p, k in zip(parts[1:5], _FRAGMENT_KEYS, strict=True)]
    rep = _int(text, *spans[0], "replicate")
    unbounded = text[slice(*spans[1])] == "pos_inf"  # TileLang's analyzer found no bound (an if_then_else thread)
    threads = 1 if unbounded else _int(text, *spans[1], "thread")
    if rep < 1 or threads < 1:
        raise ParseError(text, spans[0][0] if rep < 1 else spans[1][0], "replicate and thread must be positive")
    env = {placeholder(k): n for k, n in enumerate(in_shape)} | {"_rep": rep}
    thread = _expr(text, *spans[2], env)
    if unbounded:
        _points(tuple(env.items()))
        threads = max(int(offsets_of(thread, tuple(env.items())).max()) + 1, 1)
    index = tuple(_expr(text, s, e, env) for s, e in _items(text, *spans[3], "forward index"))
    if len(index) != len(out_shape):
        raise ParseError(text, spans[3][0], f"{len(index)} index expressions for a {len(out_shape)}-dimensional "
                                            "output")
    rng = None
    if len(parts) == 6:
        a, b = _field(text, parts[5], "thread_range")
        rng = _thread_range(text, a, b)
    return TileLangFragment(in_shape, out_shape, rep, threads, thread, index, rng)


_RANGE = re.compile(r"(?:I\.|T\.)?Range\(\s*(\d+)\s*,\s*(\d+)\s*\)|\[\s*(\d+)\s*,\s*(\d+)\s*\)")
_RANGE_EXT = re.compile(r"range\(\s*min\s*=\s*(\d+)\s*,\s*ext\s*=\s*(\d+)\s*\)")


def _thread_range(text: str, a: int, b: int) -> tuple[int, int] | None:
    """``I.Range(0, 128)`` / ``[0, 128)`` / ``range(min=0, ext=128)`` as ``(begin, end)``; unset -> ``None``."""
    tok = text[a:b]
    if tok in ("(nullptr)", "None", "nullptr"):
        return None
    m = _RANGE.fullmatch(tok)
    if m is not None:
        lo, hi = (int(g) for g in m.groups() if g is not None)
        return lo, hi
    m = _RANGE_EXT.fullmatch(tok)
    if m is not None:
        return int(m.group(1)), int(m.group(1)) + int(m.group(2))
    raise ParseError(text, a, f"expected thread_range I.Range(begin, end), found {tok!r}")


def tvm_tuple(xs: list[Any]) -> str:
    """A TVM-printed tuple: ``(a, b)``, ``(a,)``."""
    return "(" + ", ".join(map(str, xs)) + ("," if len(xs) == 1 else "") + ")"


def printout(x: TileLang) -> str:
    """``x`` in TileLang's ``repr`` form (expressions fully parenthesised): ``parse_tilelang`` reads it back.

    >>> print(printout(parse_tilelang("Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8 + _j,))")))
    Layout((4, 8) -> (32,), transform: (_i, _j) -> (((_i * 8) + _j),))
    """
    index = tvm_tuple([tir_expr(e) for e in x.forward_index])
    if isinstance(x, TileLangLayout):
        return (f"Layout({tvm_tuple(list(x.input_shape))} -> {tvm_tuple(list(x.output_shape))}, transform: "
                f"{tvm_tuple(list(x.variables))} -> {index})")
    rng = "" if x.thread_range is None else f", thread_range: I.Range({x.thread_range[0]}, {x.thread_range[1]})"
    shapes = f"{tvm_tuple(list(x.input_shape))} -> {tvm_tuple(list(x.output_shape))}"
    return (f"Fragment({shapes}, replicate: {x.replicate}, thread: {x.thread}, forward_thread: "
            f"{tir_expr(x.forward_thread)}, forward_index: {index}{rng})")


PRINTOUT = re.compile(r"\b(?:Layout|Fragment)\(\s*[(\[]|\b(?:Layout|Fragment) Shape:")
"""Where a TileLang printout starts (``Layout((``, ``Fragment([``, or the older ``Layout Shape:``)."""


def find_printouts(text: str) -> list[tuple[int, str]]:
    """Every ``Layout(...)`` / ``Fragment(...)`` printout (and the older one-line ``... Shape: ...`` form) in a log
    or file, as ``(line number, printout)``, in order; one whose parentheses never close is kept up to the end of its
    line (it does not read, and whoever reads it says so: never dropped)."""
    out = []
    for m in PRINTOUT.finditer(text):
        if m.group(0).endswith("Shape:"):
            end = text.find("\n", m.start())
            body = text[m.start():len(text) if end < 0 else end].rstrip()
        else:
            try:
                body = text[m.start():_close(text, text.index("(", m.start())) + 1]
            except ParseError:  # never closed (a truncated log): kept to its line, so reading it names the fault
                end = text.find("\n", m.start())
                out.append((text.count("\n", 0, m.start()) + 1, text[m.start():len(text) if end < 0 else end]))
                continue
        if "transform:" in body or "forward_thread:" in body or body.startswith("Layout Shape:"):
            out.append((text.count("\n", 0, m.start()) + 1, body))
    return out


def from_tilelang(x: Any) -> TileLang:
    """A TileLang printout (or a TileLang ``Layout`` / ``Fragment`` object, read through its ``repr``) as a value.

    >>> from_tilelang("Fragment((8, 8) -> (2,), replicate: 1, thread: 32, forward_thread: _i * 4 + _j // 2, "
    ...               "forward_index: (_j % 2,))").thread
    32
    """
    return parse_tilelang(x if isinstance(x, str) else repr(x))


# -- tables ---------------------------------------------------------------------------------------------------------
def _points(domain: tuple[tuple[str, int], ...]) -> int:
    n = prod(u for _, u in domain)
    if n > MAX_POINTS:
        raise LayoutError(f"the TileLang map has {n} points, more than layoutcheck tabulates ({MAX_POINTS})")
    return n


def _row_major(x: TileLang, coords: list[np.ndarray], shape: tuple[int, ...], what: str) -> np.ndarray:
    """The row-major linear index of output coordinates (TileLang's ``GetLinearizedForwardIndex``)."""
    flat = np.zeros_like(coords[0])
    for k, (c, n) in enumerate(zip(coords, shape, strict=True)):
        if c.size and (c.min() < 0 or c.max() >= n):
            bad = int(np.flatnonzero((c < 0) | (c >= n))[0])
            which = f"{what} coordinate {k}" if len(shape) > 1 else what
            raise LayoutError(f"{which} of {_coord(x, bad)} is {int(c[bad])}, outside its printed extent {n}")
        flat = flat * n + c
    return flat


def forward_offsets(x: TileLang) -> np.ndarray:
    """The forward map at every point of ``x.domain`` (colexicographic): a Layout's row-major offset, a Fragment's
    slot ``thread + T * register``.

    >>> forward_offsets(parse_tilelang("Layout((2, 3) -> (3, 2), transform: (_i, _j) -> (_j, _i))")).tolist()
    [0, 1, 2, 3, 4, 5]
    """
    _points(x.domain)
    coords = [offsets_of(e, x.domain) for e in x.forward_index]
    if isinstance(x, TileLangLayout):
        return _row_major(x, coords, x.output_shape, "the layout's output")
    reg = _row_major(x, coords, x.output_shape, "the register") if coords else np.zeros(1, np.int64)
    thread = offsets_of(x.forward_thread, x.domain)
    _row_major(x, [thread], (x.thread,), "the thread")  # a thread past T would alias another slot
    return thread + x.thread * reg


def _collision(slots: np.ndarray) -> tuple[int, int] | None:
    """The smallest ``i`` whose slot repeats, and the next ``j > i`` with that slot; ``None`` when all differ."""
    values, first, counts = np.unique(slots, return_index=True, return_counts=True)
    if not (counts > 1).any():
        return None
    k = int(np.argmin(np.where(counts > 1, first, slots.size)))
    i = int(first[k])
    return i, int(np.flatnonzero(slots == values[k])[1])


def tv_table(f: TileLangFragment) -> np.ndarray:
    """``table[thread + T * register]`` = the tile index ``i + M*j + ...`` that slot holds.

    Pre: every slot holds exactly one element copy (else ``LayoutError`` naming two copies in one slot or an empty
    slot; a thread or register beyond its printed extent is a ``LayoutError`` of ``forward_offsets``).
    Post: ``forward`` and this table are inverse (the replica dropped).
    """
    slots = forward_offsets(f)  # threads and registers checked within their extents
    t_n = f.thread
    pair = _collision(slots)
    if pair is not None:
        s = int(slots[pair[0]])
        raise LayoutError(f"fragment: elements {_coord(f, pair[0])} and {_coord(f, pair[1])} are both in thread "
                          f"{s % t_n}, register {s // t_n}: one slot, two elements")
    table = np.full(t_n * f.registers, -1, dtype=np.int64)
    table[slots] = np.arange(slots.size) % prod(f.input_shape)
    if (table < 0).any():
        s = int(np.flatnonzero(table < 0)[0])
        raise LayoutError(f"fragment: thread {s % t_n}, register {s // t_n} holds no element ({slots.size} copies "
                          f"for {table.size} slots)")
    return table


def _coord(x: TileLang, i: int) -> str:
    """Flat domain index ``i`` as ``(_i=3, _j=5)``."""
    parts = []
    for name, n in x.domain:
        parts.append(f"{name}={i % n}")
        i //= n
    return "(" + ", ".join(parts) + ")"


def slots(x: TileLang) -> int:
    """How many output slots the printout declares -- a Layout's ``prod(output_shape)`` offsets, a Fragment's
    ``thread x registers`` -- the one definition of a printout's extent (``forward``, ``as_subject`` and the claims
    of ``layoutcheck.properties.tilelang`` read it).

    >>> slots(parse_tilelang("Layout((4, 8) -> (64,), transform: (_i, _j) -> (_i * 8 + _j,))"))
    64
    """
    return prod(x.output_shape) * (x.thread if isinstance(x, TileLangFragment) else 1)


def points(x: TileLang) -> int:
    """How many points the map's domain has: input elements x replicas (``_rep``)."""
    return prod(n for _, n in x.domain)


def forward(x: TileLang) -> Any:
    """The forward map as a CuTe layout (or ``LinearLayout``): a Layout's ``(i, j, ...) -> offset``, a Fragment's
    ``(i, j, ..., rep) -> thread + T * register``.

    >>> str(forward(parse_tilelang("Layout((8, 8) -> (8, 8), transform: (_i, _j) -> (_i, T.bitwise_xor(_j, _i)))")))
    'Sw<3,0,3> o 0 o (8,8):(8,1)'
    """
    offs = forward_offsets(x)
    return fit(offs, list(x.domain), [("offset", max(slots(x), int(offs.max()) + 1))])


def tv_layout(f: TileLangFragment) -> Any:
    """CuTe's TV layout of a fragment: ``(thread, register) -> i + M*j + ...`` (the tile index, colexicographic).

    >>> frag = parse_tilelang("Fragment((8, 8) -> (2,), replicate: 1, thread: 32, forward_thread: _i * 4 + _j // 2,"
    ...                       " forward_index: (_j % 2,))")
    >>> str(tv_layout(frag))
    '((4,8),2):((16,1),8)'
    """
    return fit(tv_table(f), [("thread", f.thread), ("register", f.registers)], [("tile", prod(f.input_shape))])


def tv_linear(f: TileLangFragment) -> LinearLayout:
    """Triton's view of a fragment: ``register, lane, warp -> (dim0, dim1, ...)`` (``dim0`` is ``_i``); replicas are
    zero bases (a broadcast). Pre: power-of-two extents and a GF(2)-linear map (else ``LayoutError``)."""
    if f.thread & (f.thread - 1):
        raise LayoutError(f"fragment {f.input_shape}: {f.thread} threads is not a power of two (no lane/warp bits)")
    lanes = min(f.thread, LANES)
    ins = [("register", f.registers), ("lane", lanes), ("warp", f.thread // lanes)]
    table = tv_table(f)
    order = np.arange(table.size)
    perm = (order // f.registers) + f.thread * (order % f.registers)  # register fastest, then thread
    ll = linear_from_table(table[perm], ins, [(f"dim{k}", n) for k, n in enumerate(f.input_shape)])
    if ll is None:
        raise LayoutError(f"fragment {f.input_shape}: its (register, lane, warp) map is not GF(2)-linear (or an "
                          "extent is not a power of two)")
    return ll


def shared_linear(x: TileLangLayout) -> LinearLayout:
    """A shared-memory layout in Triton's form: ``offset -> (dim0, dim1, ...)`` (``dim0`` is ``_i``), the inverse of
    the forward map; with ``tv_linear`` of a fragment it is what ``LinearConflictFree`` reads.

    Pre: power-of-two extents, GF(2)-linear and bijective (else ``LayoutError``).

    >>> sw = parse_tilelang("Layout((8, 8) -> (8, 8), transform: (_i, _j) -> (_i, T.bitwise_xor(_j, _i)))")
    >>> shared_linear(sw).bases["offset"][:4]
    [[0, 1], [0, 2], [0, 4], [1, 1]]
    """
    ins = [(f"dim{k}", n) for k, n in enumerate(x.input_shape)]
    ll = linear_from_table(forward_offsets(x), ins, [("offset", prod(x.output_shape))])
    if ll is None:
        raise LayoutError(f"layout {x.input_shape}: its map is not GF(2)-linear (or an extent is not a power of two)")
    return ll.invert()


def as_subject(x: TileLang, key: str = "layout") -> Any:
    """The spec value of a TileLang printout: ``tv_layout`` under the key ``tv`` (a Fragment), else ``forward``
    where it says all the printout says; else ``x`` itself, whose claims ``layoutcheck.properties.tilelang`` decides
    on its own expressions against the printed extents: where ``forward`` has no CuTe or linear form (a
    ``T.if_then_else`` map, a coordinate past its printed extent), and where the printed extents hold more slots
    than the map has points (a CuTe layout knows only its own size, so ``bijective`` would be proven onto it)."""
    if key == "tv":
        if not isinstance(x, TileLangFragment):
            raise LayoutError("a 'tv' value needs a TileLang Fragment printout, found a Layout")
        return tv_layout(x)
    try:
        value = forward(x)
    except LayoutError:
        _points(x.domain)  # too large to tabulate stays an error
        return x
    return value if points(x) == slots(x) else x


__all__ = [
    "PRINTOUT",
    "TileLang",
    "TileLangFragment",
    "TileLangLayout",
    "as_subject",
    "find_printouts",
    "forward",
    "forward_offsets",
    "from_tilelang",
    "parse_tilelang",
    "placeholder",
    "points",
    "printout",
    "shared_linear",
    "slots",
    "tv_layout",
    "tv_linear",
    "tv_table",
    "tvm_tuple",
]
