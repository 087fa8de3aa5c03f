"""Hypothesis strategies that *build* pairs of layouts for the semantics of ``equivalent`` and of index formulas
(``tests/semantics/test_sem_equivalence.py``): formulas that differ at exactly one point, in one constant, in one
extent (a size mismatch) or in the order of their coordinates; CuTe layouts (swizzled or not) next to a formula a
kernel would write for them, with one stride changed; Triton linear layouts with one basis changed, two swapped or one
moved to another input dimension. Formulas use non-power-of-two extents, ``/`` and ``%`` by any constant, XOR,
masks, shifts and subtraction. Nothing here reads ``layoutcheck``: layouts are plain data and text.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

NAMES = ("i", "j", "k")


@dataclass(frozen=True)
class FormulaPair:
    """Two formulas, each ``(text, coords)`` with coords ``[(name, extent), ...]`` first fastest; ``how`` says how
    B was made from A."""

    a: tuple[str, list[tuple[str, int]]]
    b: tuple[str, list[tuple[str, int]]]
    how: str


@st.composite
def coords(draw: st.DrawFn, max_rank: int = 3, max_extent: int = 12) -> list[tuple[str, int]]:
    """1 to ``max_rank`` named coordinates with extents in ``[1, max_extent]`` (powers of two or not)."""
    rank = draw(st.integers(1, max_rank))
    return [(NAMES[k], draw(st.integers(1, max_extent))) for k in range(rank)]


@st.composite
def expressions(draw: st.DrawFn, names: list[str], depth: int = 3) -> str:
    """An integer expression over ``names`` in the formula syntax: ``//`` (floor) and the floor remainder written out
    (``a - k*(a // k)``), as the operands may be negative (where C's ``/`` and ``%`` are refused)."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()):
            return draw(st.sampled_from(names))
        return str(draw(st.integers(0, 9)))
    op = draw(st.sampled_from(["+", "*", "/", "%", "^", "&", ">>", "+", "*", "-"]))
    a = draw(expressions(names, depth - 1))
    if op == "/":
        return f"({a} // {draw(st.integers(1, 9))})"
    if op == "%":
        k = draw(st.integers(1, 9))
        return f"({a} - {k} * ({a} // {k}))"
    if op == ">>":
        return f"({a} >> {draw(st.integers(0, 3))})"
    if op == "&":
        return f"({a} & {draw(st.integers(0, 15))})"
    if op == "-":
        return f"({a} - {draw(st.integers(0, 5))})"
    b = draw(expressions(names, depth - 1))
    if op == "*" and draw(st.booleans()):
        b = str(draw(st.integers(0, 9)))
    return f"({a} {op} {b})"


def indicator(cs: list[tuple[str, int]], point: list[int]) -> str:
    """A formula that is 1 at ``point`` and 0 elsewhere in the domain: per coordinate, ``d = (c + n - p) % n`` is 0
    only at ``c == p``, and ``1 - (d + n - 1) / n`` is 1 exactly there."""
    parts = []
    for (name, n), p in zip(cs, point, strict=True):
        parts.append(f"(1 - (((({name} + {n - p}) % {n}) + {n - 1}) / {n}))" if n > 1 else "1")
    return " * ".join(parts)


@st.composite
def formula_pairs(draw: st.DrawFn) -> FormulaPair:
    """A formula and a second one: the same, different at one point, one constant changed, one extent changed, or
    its coordinates listed in another order."""
    cs = draw(coords())
    names = [n for n, _ in cs]
    text = draw(expressions(names))
    how = draw(st.sampled_from(["same", "point", "point", "constant", "size", "order"]))
    if how == "point":
        point = [draw(st.integers(0, n - 1)) for _, n in cs]
        k = draw(st.sampled_from([1, -1, 3, 64]))
        return FormulaPair((text, cs), (f"{text} + {k} * {indicator(cs, point)}", cs), how)
    if how == "constant":
        digits = [i for i, ch in enumerate(text) if ch.isdigit()]
        if not digits:
            return FormulaPair((text, cs), (text, cs), "same")
        at = draw(st.sampled_from(digits))
        new = str((int(text[at]) + draw(st.integers(1, 8))) % 10 or 1)  # never 0: a divisor stays non-zero
        return FormulaPair((text, cs), (text[:at] + new + text[at + 1:], cs), how)
    if how == "size":
        k = draw(st.integers(0, len(cs) - 1))
        bigger = [(n, e + draw(st.integers(1, 3)) if i == k else e) for i, (n, e) in enumerate(cs)]
        return FormulaPair((text, cs), (text, bigger), how)
    if how == "order" and len(cs) > 1:
        return FormulaPair((text, cs), (text, list(reversed(cs))), how)
    return FormulaPair((text, cs), (text, cs), "same")


@dataclass(frozen=True)
class CuteFormula:
    """A CuTe layout (flat ``shape``, ``stride``, optional swizzle ``(B, M, S)``) and a formula a kernel writes for
    it, over one coordinate per mode (``c0`` fastest); ``changed`` is the mode whose stride the formula got wrong."""

    shape: tuple[int, ...]
    stride: tuple[int, ...]
    swizzle: tuple[int, int, int] | None
    text: str
    coords: list[tuple[str, int]]
    changed: int | None


@st.composite
def cute_and_formula(draw: st.DrawFn) -> CuteFormula:
    """A CuTe layout of 1-3 modes (non-power-of-two extents, stride 0, overlapping strides), maybe swizzled, and
    the formula ``sum c_k * d_k`` through the swizzle's XOR, written as text; one stride maybe changed."""
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 8)) for _ in range(rank))
    stride = tuple(draw(st.integers(0, 24)) for _ in range(rank))
    swz = None
    if draw(st.booleans()):
        b = draw(st.integers(1, 3))
        swz = (b, draw(st.integers(0, 3)), draw(st.integers(b, 5)))
    changed = draw(st.one_of(st.none(), st.integers(0, rank - 1)))
    fstride = [d + (draw(st.integers(1, 4)) if k == changed else 0) for k, d in enumerate(stride)]
    y = " + ".join(f"c{k}*{d}" for k, d in enumerate(fstride))
    if swz is not None:
        b, m, s = swz
        mask = ((1 << b) - 1) << (m + s)
        y = f"({y}) ^ ((({y}) & {mask}) >> {s})"
    return CuteFormula(shape, stride, swz, y, [(f"c{k}", n) for k, n in enumerate(shape)], changed)


@dataclass(frozen=True)
class LinearPair:
    """Two Triton linear layouts as bases (``{dim: [[out coords], ...]}``) over one output shape."""

    a: dict[str, list[list[int]]]
    b: dict[str, list[list[int]]]
    out: tuple[int, int]
    how: str


@st.composite
def linear_pairs(draw: st.DrawFn) -> LinearPair:
    """A register/lane/warp linear layout onto a 2-D power-of-two shape, and the same with one basis changed, two
    bases swapped, or one basis moved from one input dimension to another (same size, other dimensions)."""
    out = (1 << draw(st.integers(0, 4)), 1 << draw(st.integers(0, 4)))
    bits = {"register": draw(st.integers(0, 2)), "lane": draw(st.integers(0, 5)), "warp": draw(st.integers(0, 2))}

    def basis() -> list[int]:
        return [draw(st.integers(0, out[0] - 1)), draw(st.integers(0, out[1] - 1))]

    a = {d: [basis() for _ in range(n)] for d, n in bits.items()}
    flat = [(d, j) for d in a for j in range(len(a[d]))]
    how = draw(st.sampled_from(["same", "change", "swap", "move"]))
    b = {d: [list(v) for v in vs] for d, vs in a.items()}
    if how == "change" and flat:
        d, j = draw(st.sampled_from(flat))
        b[d][j] = basis()
    elif how == "swap" and len(flat) > 1:
        (d1, j1), (d2, j2) = draw(st.lists(st.sampled_from(flat), min_size=2, max_size=2, unique=True))
        b[d1][j1], b[d2][j2] = b[d2][j2], b[d1][j1]
    elif how == "move" and flat:
        d, j = draw(st.sampled_from(flat))
        other = draw(st.sampled_from([x for x in b if x != d]))
        b[other].append(b[d].pop(j))
    else:
        how = "same" if how != "change" else how
    return LinearPair(a, b, out, how)


__all__ = ["CuteFormula", "FormulaPair", "LinearPair", "coords", "cute_and_formula", "expressions", "formula_pairs",
           "indicator", "linear_pairs"]
