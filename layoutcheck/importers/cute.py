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
    print(tiled_mma)                                  ``Key: layout`` lines (ThrLayoutVMNK, LayoutA_TV, ...); the
                                                      DSL's ``Thr Layout VMNK:``, ``TV Layout A:``, ... likewise
    Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)   C++ swizzled smem layout (GMMA atoms, tile_to_shape)
    Sw<3,4,3>_smem_ptr[16b](0x7f..c00) o L            C++ print(tensor) over a swizzle pointer
    smem_ptr[16b](0x7f..c00) o L, gmem_ptr[32b](..) o L   C++ print(tensor): the pointer, then the layout
    tensor<ptr<f16, smem, align<1024>, S<3,4,3>> o L>  CuTe DSL print(tensor) (a swizzle on the pointer)

Pointers (``cute/pointer_flagged.hpp``, ``pointer_swizzle.hpp``, ``pointer.hpp``). ``smem_ptr[16b](unset)`` is
``smem_ptr_flag_bits<16>``: ``Int<0>`` standing in for a shared-memory pointer of 16-bit elements that is not there
yet; ``make_tensor(ptr, Sw o flag o L)`` moves the swizzle *into the pointer* (``swizzle_ptr``), where it acts on
the pointer's **byte address**: element ``c`` is at byte ``Sw(base + (bits/8)*L(c))``. ``smem_ptr[16b](0x...)`` is
a real pointer (its address printed); ``Sw<3,4,3>_smem_ptr[16b](0x...)`` is a swizzle pointer at that address.
layoutcheck holds element offsets, so a byte swizzle is read in elements (``byte_swizzle_in_elements``): with
``2**k``-byte elements each XOR pair (zzz bit ``z`` ^= yyy bit ``y``) of byte bits becomes the pair ``(z-k, y-k)``
of element bits; a pair entirely below bit ``k`` never fires on element-aligned addresses and is dropped; a pair
with ``z < k <= y`` would move an element off its alignment, so the swizzle has no element form (a ``LayoutError``
naming the pair). With ``M >= k`` this is ``Sw<B,M-k,S>`` (CuTe's ``upcast``; sub-byte elements: ``downcast``).
For an unset pointer the base is taken aligned to the swizzle's period, as CuTe's own
``as_position_independent_swizzle_layout`` does; for a printed address the base's low bits become the composed
layout's element offset (``Sw o offset o L``: offsets from the aligned address at or below the pointer); a DSL
pointer must declare an alignment that covers the swizzle.

A CuTe DSL ``Layout`` object (or anything whose ``str`` is one of the above) is accepted by ``from_cute`` directly;
the DSL itself is never imported. Malformed text raises ``ParseError`` naming the offending character.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.notation import parse_notation, parse_swizzle
from layoutcheck.algebra.swizzle import ComposedLayout, Subject, Swizzle, inner, recast_swizzle
from layoutcheck.errors import LayoutError, ParseError


@dataclass(frozen=True, slots=True)
class CuteImport:
    """What a printout held: ``kind`` (``layout``, ``print_layout``, ``tiled_mma``), the main ``layout``, every
    named layout (``layouts``, for a tiled MMA), and the codomain shape of a ScaledBasis layout."""

    kind: str
    layout: Subject | None
    layouts: dict[str, Any] = field(default_factory=dict)
    codomain: tuple[int, ...] | None = None
    note: str = ""
    """How a pointer in the printout was read (e.g. a byte swizzle recast to element offsets); empty otherwise."""


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


def _xor_pairs(sw: Swizzle) -> list[tuple[int, int]]:
    """The (zzz bit, yyy bit) pairs of ``sw``: bit ``z`` of the result is ``x_z ^ x_y``."""
    zz, yy = sw.base - min(0, sw.shift), sw.base + max(0, sw.shift)
    return [(zz + i, yy + i) for i in range(sw.bits)]


def byte_swizzle_in_elements(sw: Swizzle, bits: int) -> Swizzle:
    """``sw`` acting on byte addresses, read on element offsets of ``bits``-bit elements.

    Pre: ``bits`` a power of two (else ``LayoutError``); no XOR pair of ``sw`` reads a bit at or above
    ``k = log2(bits/8)`` into a bit below it (else ``LayoutError`` naming the pair: the swizzle would move an
    element off its alignment).
    Post: ``sw(e * bits // 8) == result(e) * bits // 8`` for every element offset ``e`` (bits >= 8; for sub-byte
    elements the byte address ``e * bits // 8`` keeps the index within its byte).

    >>> str(byte_swizzle_in_elements(Swizzle(3, 4, 3), 16)), str(byte_swizzle_in_elements(Swizzle(3, 4, 3), 4))
    ('Sw<3,3,3>', 'Sw<3,5,3>')
    >>> str(byte_swizzle_in_elements(Swizzle(2, 4, -3), 256))  # byte bit 7 ^= bit 4 never fires on 32-byte steps
    'Sw<1,0,-3>'
    """
    if bits < 1 or bits & (bits - 1):
        raise LayoutError(f"{sw} acts on byte addresses; a {bits}-bit element is not a power-of-two number of bits, "
                          "so element offsets are not byte addresses scaled by a power of two: no element form")
    k = bits.bit_length() - 4  # log2(bits / 8), negative for sub-byte elements
    pairs = _xor_pairs(sw)
    bad = [(z, y) for z, y in pairs if z < k <= y]
    if bad:
        z, y = bad[0]
        raise LayoutError(f"{sw} on byte addresses XORs byte bit {y} into byte bit {z}, inside a {bits // 8}-byte "
                          f"element: element-aligned addresses would become unaligned, so it has no element form")
    kept = [(z - k, y - k) for z, y in pairs if z >= k and y >= k]
    if not kept:
        return Swizzle(0, 0, sw.shift)
    if len(kept) == len(pairs):
        return recast_swizzle(sw, 8, bits)
    return Swizzle(len(kept), min(min(p) for p in kept), sw.shift)


def _top_bit(sw: Swizzle) -> int:
    """One past the highest byte bit ``sw`` reads or writes: it maps each aligned block of ``2**top`` onto itself."""
    return max((max(p) + 1 for p in _xor_pairs(sw)), default=0)


_SW = r"(?:Sw|S)<-?\d+,-?\d+,-?\d+>"
_C_PTR = r"(?P<space>[grst]mem_)?ptr\[(?P<bits>\d+)b\]\((?P<addr>unset|0x[0-9a-fA-F]+|\(nil\)|nil|0)\)"
_FLAGGED = re.compile(rf"\s*(?P<sw>{_SW})\s+o\s+smem_ptr\[(?P<bits>\d+)b\]\(unset\)\s+o\s+(?P<rest>.*)", re.S)
_SWIZZLE_PTR = re.compile(rf"\s*(?P<sw>{_SW})_{_C_PTR}\s+o\s+(?P<rest>.*)", re.S)
_PLAIN_PTR = re.compile(rf"\s*(?:{_C_PTR}|tmem_\[\d+b\]\(0x[0-9a-fA-F]+\.[0-9a-fA-F]+\))\s+o\s+(?P<rest>.*)", re.S)
_DSL_TENSOR = re.compile(r"\s*tensor<ptr<(?P<dtype>[\w.]+),\s*(?P<space>\w+)(?:,\s*align<(?P<align>\d+)>)?"
                         rf"(?:,\s*(?P<sw>{_SW}))?>\s+o\s+(?P<rest>.*)>\s*", re.S)


def _dtype_bits(name: str) -> int:
    """The width of a CuTe DSL element type as it prints (``f16``, ``bf16``, ``tf32``, ``i8``, ``f8E4M3FN``)."""
    if name == "tf32":
        return 32
    m = re.match(r"[a-zA-Z]+?(\d+)", name)
    if m is None:
        raise LayoutError(f"CuTe DSL pointer: element type {name!r} has no width in its name")
    return int(m.group(1))


def _swizzled(sw_text: str, bits: int, rest: str, base: int, why: str) -> CuteImport:
    """``rest`` (element offsets) under the byte swizzle ``sw_text`` of a pointer at byte ``base``."""
    sw = parse_swizzle(sw_text)
    layout, _ = parse_cute_layout(rest)
    if not isinstance(layout, Layout):
        raise LayoutError(f"a swizzle pointer over a composed layout ({layout}) is not modelled")
    esw = byte_swizzle_in_elements(sw, bits)
    lo = base % (1 << _top_bit(sw))
    if (lo * 8) % bits:
        raise LayoutError(f"the pointer's byte address {base:#x} is not aligned to its {bits}-bit elements")
    out = ComposedLayout(esw, lo * 8 // bits, layout)
    note = (f"{sw} on the byte addresses of {bits}-bit elements read as {esw} on element offsets ({why}"
            + (f"; offset {lo * 8 // bits} elements from the {1 << _top_bit(sw)}-byte aligned address)" if lo else ")"))
    return CuteImport("layout", out, {}, None, note)


def parse_pointer_form(text: str) -> CuteImport | None:
    """A printout that names a pointer (see the module docstring), read into element offsets; ``None`` if ``text``
    names none.

    >>> str(parse_pointer_form("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)").layout)
    'Sw<3,3,3> o 0 o (8,64):(64,1)'
    """
    if "sparse" in text and "_ptr[" in text:
        raise LayoutError("a sparse shared-memory pointer (smem_sparse<S>_ptr) is not modelled: its element offsets "
                          "count compressed elements")
    m = _FLAGGED.fullmatch(text)
    if m:
        return _swizzled(m["sw"], int(m["bits"]), m["rest"], 0, "an unset smem pointer, taken aligned to the "
                         "swizzle's period as CuTe's as_position_independent_swizzle_layout does")
    m = _SWIZZLE_PTR.fullmatch(text)
    if m:
        addr = 0 if m["addr"] in ("unset", "(nil)", "nil") else int(m["addr"], 16)
        return _swizzled(m["sw"], int(m["bits"]), m["rest"], addr, f"a swizzle pointer at {m['addr']}")
    m = _DSL_TENSOR.fullmatch(text)
    if m and m["sw"]:
        sw, align = parse_swizzle(m["sw"]), int(m["align"] or 1)
        if align % (1 << _top_bit(sw)):
            raise LayoutError(f"tensor pointer aligned to {align} bytes under {sw}, which reads byte bits up to "
                              f"{_top_bit(sw) - 1}: the swizzle depends on the unknown low address bits (needs "
                              f"align<{1 << _top_bit(sw)}>)")
        return _swizzled(m["sw"], _dtype_bits(m["dtype"]), m["rest"], 0, f"a pointer aligned to {align} bytes")
    m = m or _PLAIN_PTR.fullmatch(text)
    if m:  # a plain pointer: the layout is already in element offsets
        layout, codomain = parse_cute_layout(m["rest"])
        return CuteImport("layout", layout, {}, codomain, "the tensor's pointer dropped; its layout read as printed")
    return None


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


_KEY = re.compile(r"^\s*([A-Za-z_][\w ]*?)\s*:\s*(.+?)\s*$")
_DSL_KEYS = {"Thr Layout VMNK": "ThrLayoutVMNK", "Permutation MNK": "PermutationMNK", "Shape MNK": "Shape_MNK",
             "TV Layout A": "LayoutA_TV", "TV Layout B": "LayoutB_TV", "TV Layout C": "LayoutC_TV"}
"""The CuTe DSL's ``print(tiled_mma)`` keys -> the C++ ones (``Thr Layout VMNK: (32,2,2,1):(1,32,64,0)``)."""


def parse_tiled_mma(text: str) -> CuteImport:
    """``print(tiled_mma)``: every ``Key: value`` line whose value is a layout (ThrLayoutVMNK, ThrID, LayoutA_TV,
    LayoutB_TV, LayoutC_TV) or a tuple (PermutationMNK, Shape_MNK)."""
    out: dict[str, Any] = {}
    for ln in text.splitlines():
        m = _KEY.match(ln)
        if not m:
            continue
        key, val = m.groups()
        key = _DSL_KEYS.get(key, key)
        try:  # a tuple of tilers (PermutationMNK) may hold layouts: read as a tuple, not as one layout
            tuple_valued = key in ("PermutationMNK", "Shape_MNK") or ":" not in val
            out[key] = parse_notation(val)[0] if tuple_valued else parse_cute_layout(val)[0]
        except ParseError as e:
            raise ParseError(e.text, e.pos, f"{key}: {e.what}") from None
    if "LayoutC_TV" not in out:
        raise LayoutError("print(tiled_mma): no LayoutC_TV line found")
    return CuteImport("tiled_mma", out["LayoutC_TV"], out)


@dataclass(frozen=True, slots=True)
class TiledMmaConfig:
    """What ``make_tiled_mma(atom, atom_layout, permutation)`` call a ``print(tiled_mma)`` shows: the atom (CuTe
    prints its layouts, not its name: ``same_layouts`` lists every atom with exactly those layouts, ``atom`` is the
    first), the atom layout read from ``ThrLayoutVMNK`` (``[M, N, K]``, column-major), the ``PermutationMNK``
    entries (an int, a ``Layout`` tiler, or ``None`` for CuTe's ``_``) and the tiled MMA's tile ``(M, N, K)``."""

    atom: str
    same_layouts: tuple[str, ...]
    atom_layout: tuple[int, int, int]
    permutation: tuple[Any, Any, Any]
    tile: tuple[int, int, int]
    smem_operands: tuple[str, ...] = ()
    """Operands the atom reads from shared memory (every thread's TV row is the whole operand tile: stride-0
    threads, as CuTe writes SM90 ``_SS`` / ``_RS`` atoms): not register partitions."""


def _same_map(a: Any, b: Any) -> bool:
    """Two TV layouts with the same thread count and the same offset at every (thread, value)."""
    if not (isinstance(a, Layout) and isinstance(b, Layout)) or size(a) != size(b):
        return False
    ta = size(a.shape[0]) if isinstance(a.shape, tuple) else size(a.shape)
    tb = size(b.shape[0]) if isinstance(b.shape, tuple) else size(b.shape)
    return ta == tb and a.offsets().tolist() == b.offsets().tolist()


_ATOM_SHAPE = re.compile(r"_(\d+)x(\d+)x(\d+)_")


def _atoms_with(layouts: dict[str, Any]) -> list[str]:
    """Every MMA atom of ``layoutcheck.hw`` whose shape, ThrID and A/B/C TV layouts are those printed."""
    from layoutcheck.hw.mma import mma_atom, mma_atom_names

    shape = layouts.get("Shape_MNK")
    out = []
    for name in mma_atom_names():
        m = _ATOM_SHAPE.search(name)
        if m and tuple(map(int, m.groups())) != shape:  # built only when the shape fits (912 wgmma atoms)
            continue
        atom = mma_atom(name)
        if atom.shape_mnk == shape and _same_map(atom.thr_id, layouts.get("ThrID")) and all(
                _same_map(getattr(atom, f"tv_layout_{op}"), layouts.get(f"Layout{op}_TV")) for op in "ABC"):
            out.append(name)
    return out


def tiled_mma_config(got: CuteImport) -> TiledMmaConfig:
    """The ``make_tiled_mma`` arguments a ``print(tiled_mma)`` shows (``TiledMmaConfig``), re-checked: the tiled
    MMA built from them has the printed ``ThrLayoutVMNK`` at every thread.

    Pre: ``got.kind == "tiled_mma"``. Raises ``LayoutError`` naming what does not fit a spec: no known atom with
    the printed layouts, a ``ThrLayoutVMNK`` that is not its atoms laid out column-major, a permutation that is not
    three entries.
    """
    from layoutcheck.models.tiled_mma import make_tiled_mma

    lay = got.layouts
    names = _atoms_with(lay)
    if not names:
        raise LayoutError(f"print(tiled_mma): no MMA atom layoutcheck knows has Shape_MNK {lay.get('Shape_MNK')}, "
                          f"ThrID {lay.get('ThrID')} and these LayoutA/B/C_TV")
    vmnk = lay.get("ThrLayoutVMNK")
    if not isinstance(vmnk, Layout) or not isinstance(vmnk.shape, tuple) or len(vmnk.shape) != 4:
        raise LayoutError(f"print(tiled_mma): ThrLayoutVMNK {vmnk} is not a rank-4 (V,M,N,K) layout")
    if vmnk.offsets().tolist() != list(range(size(vmnk))) or size(vmnk.shape[0]) != size(lay["ThrID"]):
        raise LayoutError(f"print(tiled_mma): ThrLayoutVMNK {vmnk} does not lay its atoms out column-major (a spec's "
                          f"atom_layout = [M, N, K] does)")
    atom_layout = tuple(size(m) for m in vmnk.shape[1:])
    perm = lay.get("PermutationMNK", (None, None, None))
    if not isinstance(perm, tuple) or isinstance(perm, Layout) or len(perm) != 3:
        raise LayoutError(f"print(tiled_mma): PermutationMNK {perm} is not three entries (M, N, K)")
    perm = tuple(p.shape if isinstance(p, Layout) and p.stride == 1 else p for p in perm)  # the DSL's 32:1 is 32
    tiled = make_tiled_mma(names[0], atom_layout, perm)
    if tiled.thr_layout_vmnk.offsets().tolist() != vmnk.offsets().tolist():
        raise LayoutError(f"print(tiled_mma): make_tiled_mma({names[0]}, {atom_layout}) has ThrLayoutVMNK "
                          f"{tiled.thr_layout_vmnk}, the printout {vmnk}")
    smem = tuple(op for op in "AB" if _threads_share_everything(lay[f"Layout{op}_TV"]))
    return TiledMmaConfig(names[0], tuple(names), atom_layout, perm, tiled.tile_size_mnk,  # type: ignore[arg-type]
                          smem)


def _threads_share_everything(tv: Layout) -> bool:
    """Every thread of the TV layout holds the same offsets (its thread modes have stride 0, or it has one thread)."""
    if not isinstance(tv.shape, tuple) or len(tv.shape) != 2:
        return False
    thr = Layout(tv.shape[0], tv.stride[0])
    return size(thr) > 1 and not any(thr.offsets().tolist())


def from_cute(x: Any) -> CuteImport:
    """Read any CuTe printout (see the module docstring), or a CuTe DSL ``Layout`` object via its ``str``.

    >>> from_cute("(_8,_4):(_4,_1)").layout
    Layout((8,4):(4,1))
    """
    text = x if isinstance(x, str) else str(x)
    if any(k in text for k in ("LayoutC_TV", "ThrLayoutVMNK", "TV Layout C", "Thr Layout VMNK")):
        return parse_tiled_mma(text)
    if "+-" in text and "|" in text:
        return parse_print_layout(text)
    pointed = parse_pointer_form(text)
    if pointed is not None:
        return pointed
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


__all__ = ["CuteImport", "TiledMmaConfig", "byte_swizzle_in_elements", "from_cute", "mojo_str", "parse_cute_layout",
           "parse_pointer_form", "parse_print_layout", "parse_tiled_mma", "table", "tiled_mma_config"]
