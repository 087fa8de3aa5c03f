"""CuTe printouts -> layoutcheck values: what ``print(layout)``, ``print_layout``, ``print(tiled_mma)`` and the CuTe
DSL print, read back into ``Layout`` / ``ComposedLayout`` values.

Accepted forms (all through ``layoutcheck.algebra.notation``'s one parser, which reads static ints ``_8``,
swizzles ``Sw<3,4,3>`` and the DSL's ``S<3,4,3>``, and ScaledBasis strides ``1@0``)::

    (_8,_4):(_4,_1)                                   C++ print(layout)
    Sw<3,4,3> o _0 o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))     C++ print of a swizzled (composed) layout
    S<3,4,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))   CuTe DSL print / IR string
    (64,128):(1@1,1@0)                                basis strides (TMA coordinate layouts): the codomain is
                                                      read colexicographically, its shape kept in ``codomain``
    ((4, 8):(8, 1))                                   Mojo's layout string (one extra pair of parentheses)
    print_layout(...) tables                          the header line is the layout; every cell is re-checked
    print(tiled_mma)                                  ``Key: layout`` lines (ThrLayoutVMNK, LayoutA_TV, ...)

A CuTe DSL ``Layout`` object (or anything whose ``str`` is one of the above) is accepted by ``from_cute`` directly;
the DSL itself is never imported. Malformed text raises ``ParseError`` naming the offending character.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.notation import parse_notation
from layoutcheck.algebra.swizzle import ComposedLayout, Subject, inner
from layoutcheck.errors import LayoutError, ParseError


@dataclass(frozen=True, slots=True)
class CuteImport:
    """What a printout held: ``kind`` (``layout``, ``print_layout``, ``tiled_mma``), the main ``layout``, every
    named layout (``layouts``, for a tiled MMA), and the codomain shape of a ScaledBasis layout."""

    kind: str
    layout: Subject | None
    layouts: dict[str, Any] = field(default_factory=dict)
    codomain: tuple[int, ...] | None = None


def parse_cute_layout(text: str) -> tuple[Subject, tuple[int, ...] | None]:
    """One layout in CuTe notation (C++, DSL or Mojo spelling) and its ScaledBasis codomain, if any.

    >>> str(parse_cute_layout("S<3,4,3> o 0 o (8,64):(64,1)")[0])
    'Sw<3,4,3> o 0 o (8,64):(64,1)'
    >>> parse_cute_layout("(64,128):(1@1,1@0)")
    (Layout((64,128):(128,1)), (128, 64))
    """
    value, codomain = parse_notation(text.strip())
    while isinstance(value, tuple) and len(value) == 1 and isinstance(value[0], (Layout, ComposedLayout)):
        value = value[0]  # Mojo prints ((4, 8):(8, 1))
    if isinstance(value, tuple) and not isinstance(value, Layout):
        value = Layout(value)
    if isinstance(value, int):
        value = Layout(value)
    if not isinstance(value, (Layout, ComposedLayout)):
        raise ParseError(text, 0, "expected a layout shape:stride")
    return value, codomain


_TABLE_ROW = re.compile(r"^\s*(\d+)\s*\|(.*)\|\s*$")


def parse_print_layout(text: str) -> CuteImport:
    """A ``print_layout`` table: the first line is the layout; each cell must equal ``layout(row, col)``."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    layout, _ = parse_cute_layout(lines[0])
    lay = inner(layout)
    shape = lay.shape if isinstance(lay.shape, tuple) else (lay.shape, 1)
    if len(shape) != 2:
        raise LayoutError(f"print_layout: the table's layout {layout} is not rank 2")
    rows_n, cols_n = size(shape[0]), size(shape[1])
    for k, ln in enumerate(lines[1:], start=2):
        m = _TABLE_ROW.match(ln)
        if m is None:
            continue
        r = int(m.group(1))
        cells = [c.strip() for c in m.group(2).split("|")]
        if r >= rows_n or len(cells) != cols_n:
            raise LayoutError(f"print_layout: line {k} has row {r} with {len(cells)} cells; {layout} has {rows_n} "
                              f"rows of {cols_n}")
        for c, cell in enumerate(cells):
            if not re.fullmatch(r"-?\d+", cell):
                raise LayoutError(f"print_layout: line {k}: cell ({r},{c}) is {cell!r}, not an integer")
            want = layout(r + rows_n * c)
            if int(cell) != want:
                raise LayoutError(f"print_layout: cell ({r},{c}) reads {cell}, but {layout} gives {want}")
    return CuteImport("print_layout", layout)


_KEY = re.compile(r"^\s*([A-Za-z_][\w]*)\s*:\s*(.+?)\s*$")


def parse_tiled_mma(text: str) -> CuteImport:
    """``print(tiled_mma)``: every ``Key: value`` line whose value is a layout (ThrLayoutVMNK, ThrID, LayoutA_TV,
    LayoutB_TV, LayoutC_TV) or a tuple (PermutationMNK, Shape_MNK)."""
    out: dict[str, Any] = {}
    for ln in text.splitlines():
        m = _KEY.match(ln)
        if not m:
            continue
        key, val = m.groups()
        try:
            out[key] = parse_cute_layout(val)[0] if ":" in val else parse_notation(val)[0]
        except ParseError as e:
            raise ParseError(e.text, e.pos, f"{key}: {e.what}") from None
    if "LayoutC_TV" not in out:
        raise LayoutError("print(tiled_mma): no LayoutC_TV line found")
    return CuteImport("tiled_mma", out["LayoutC_TV"], out)


def from_cute(x: Any) -> CuteImport:
    """Read any CuTe printout (see the module docstring), or a CuTe DSL ``Layout`` object via its ``str``.

    >>> from_cute("(_8,_4):(_4,_1)").layout
    Layout((8,4):(4,1))
    """
    text = x if isinstance(x, str) else str(x)
    if "LayoutC_TV" in text or "ThrLayoutVMNK" in text:
        return parse_tiled_mma(text)
    if "+-" in text and "|" in text:
        return parse_print_layout(text)
    layout, codomain = parse_cute_layout(text)
    return CuteImport("layout", layout, {}, codomain)


def _mojo_tuple(t: Any) -> str:
    return "(" + ", ".join(_mojo_tuple(m) for m in t) + ")" if isinstance(t, tuple) else str(t)


def mojo_str(layout: Layout) -> str:
    """The layout as Mojo's ``print(layout)`` writes it: CuTe notation in one extra pair of parentheses, with a
    space after every comma.

    Post: ``parse_cute_layout(mojo_str(L))[0] == L``.

    >>> mojo_str(Layout((2, 8), (4, 8)))
    '((2, 8):(4, 8))'
    """
    return f"({_mojo_tuple(layout.shape)}:{_mojo_tuple(layout.stride)})"


def table(layout: Subject) -> str:
    """A ``print_layout``-style table of a rank-2 layout (used to round-trip the format in tests)."""
    lay = inner(layout)
    m, n = (lay.shape if isinstance(lay.shape, tuple) else (lay.shape, 1))
    m, n = size(m), size(n)
    w = max(len(str(layout(i))) for i in range(m * n)) + 1
    bar = "    +" + "+".join("-" * (w + 1) for _ in range(n)) + "+"
    lines = [str(layout), "     " + " ".join(f"{c:>{w}}" for c in range(n)), bar]
    for r in range(m):
        lines.append(f"{r:>3} |" + "|".join(f"{layout(r + m * c):>{w}} " for c in range(n)) + "|")
        lines.append(bar)
    return "\n".join(lines)


__all__ = ["CuteImport", "from_cute", "mojo_str", "parse_cute_layout", "parse_print_layout", "parse_tiled_mma", "table"]
