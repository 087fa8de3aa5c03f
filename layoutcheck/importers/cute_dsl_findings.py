"""What a compiled CuTe DSL kernel builds -> spec configs of the existing kinds, each at its Python line.

``kernel_findings(capture)`` reads the traced module (``importers.cute_dsl_ir``) and the DSL's own TiledMMA and
TiledCopy TV layouts (``importers.cute_dsl_kernel``'s records) and states, for each thing the kernel builds, the
config of an existing spec kind that ``check`` decides (``spec_text``); rows come back at the source
(``at_source``):

    ==================  ======================================================================================
    what the kernel     config
    builds
    ==================  ======================================================================================
    a shared-memory     ``layout`` ``injective`` (its swizzle included; a swizzle the DSL keeps on the pointer
    tensor (the root    acts on byte addresses, as CuTe's ``swizzle_ptr`` does: ``S<B,M,S>`` on ``2^k``-byte
    view of an          elements is ``S<B,M-k,S>`` on element offsets); ``in_bounds`` of its struct field
    allocation)         (``smem.struct_fields``) or of the allocation from its offset on
    a TiledMMA          ``tv`` ``exact_cover`` of the tiled TV layouts of A (M x K), B (N x K), C (M x N): C owned
                        once, A and B each the same number of times (the threads of the other mode replicate them)
    a TiledCopy         ``tv`` ``exact_cover`` of ``layout_copy_tv`` and of the DSL's src / dst TV layouts over
                        ``tiler_mn``, each element the same number of times
    a TMA atom          ``tma`` ``tma_compatible``: the box (``tma_gbasis``), the swizzle mode, the shared-memory
                        layout the DSL built it from regrouped by global mode (``by_global_mode``), the global
                        tensor (when static)
    ==================  ======================================================================================

Each row is at the Python line the IR ``loc`` names (a TiledMMA or TiledCopy: the line of its constructor's call).
Whatever is not modelled (a dynamic layout, a sub-byte pointer swizzle, a TMA tile map that is not one unit-stride
basis per leaf, a TiledMMA whose TV layouts could not be read) is a ``Finding``
with a ``gap``: an UNKNOWN row naming it, never dropped.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from layoutcheck.errors import LayoutcheckError
from layoutcheck.hw.dtypes import mlir_dtype
from layoutcheck.hw.swizzle_modes import mode_of_bits
from layoutcheck.importers.cute import from_cute
from layoutcheck.importers.cute_dsl_ir import Op, operations, split_top
from layoutcheck.importers.cute_dsl_kernel import Capture, TiledCopyRecord, TiledMmaRecord, same_file
from layoutcheck.importers.triton_kernel import source_lines


# -- what the kernel builds -------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the kernel builds, as a spec config (``kind``, ``keys``, ``properties``) at its Python line, or a
    ``gap``: what is not modelled (an UNKNOWN row)."""

    what: str
    subject: str
    file: str
    line: int
    kind: str = ""
    keys: tuple[tuple[str, Any], ...] = ()
    properties: tuple[Any, ...] = ()
    gap: str | None = None

    @property
    def name(self) -> str:
        """How rows name it: ``FILE.py:LINE what subject``."""
        return f"{os.path.basename(self.file)}:{self.line} {self.what} {self.subject}"


def kernel_findings(cap: Capture) -> list[Finding]:
    """Every shared-memory tensor, TiledMMA, TiledCopy and TMA atom of the traced module, in source order (each
    distinct one once, at its first line); a module that builds none of them is one gap (nothing checked is no
    proof)."""
    ops = operations(cap.ir)
    src = source_lines(cap.ir)

    def where(line: int) -> tuple[str, int]:  # a location in another file (the DSL's own) is no line of the kernel
        s = src.get(line)
        return (s[0], s[1]) if s is not None and same_file(s[0], cap.file) else (cap.file, 0)

    found = [*_smem_findings(ops, where), *_tma_findings(ops, where), *_copy_findings(cap, ops, where),
             *_mma_findings(cap, ops, where)]
    if not found:
        found.append(Finding("kernel", "(no shared-memory tensor, TiledMMA, TiledCopy or TMA atom)", cap.file, 0,
                             gap="nothing checked: the traced module builds no layout layoutcheck reads"))
    unique = list({(f.name, json.dumps(f.properties), f.gap): f for f in found}.values())
    return sorted(unique, key=lambda f: (f.line, f.what))


_MEMREF = re.compile(r'^!cute\.memref<(?P<dt>\w+), smem(?:, align<\d+>)?(?:, (?P<sw>S<\d+,\d+,\d+>))?, '
                     r'"(?P<layout>[^"]+)">$')
_FIELDS = re.compile(r'smem\.struct_fields = \[(?P<fields>[^\]]*)\]')


@dataclass(frozen=True, slots=True)
class Buffer:
    """The bytes a tensor starts at: its allocation (``cute.memref.alloca``), the byte offset in it (``None``
    when not static), and the struct field there (``smem.struct_fields = ["name:bytes:offset", ...]``)."""

    alloca: Op
    offset: int | None

    def extent(self) -> tuple[str, int] | None:
        """``(what, bytes)`` the view may use: its struct field, else the allocation from ``offset`` on."""
        total = _alloca_bytes(self.alloca)
        if self.offset is None or total is None:
            return None
        m = _FIELDS.search(self.alloca.text)
        if m is None:
            return "allocation", total - self.offset
        for name, size, off in re.findall(r'"([^":]*):(\d+):(\d+)"', m.group("fields")):
            if int(off) == self.offset:
                return f"field {name}", int(size)
        return None


def _smem_findings(ops: list[Op], where: Callable[[int], tuple[str, int]]) -> Iterator[Finding]:
    """Every shared-memory tensor the kernel builds: a ``cute.make_view`` into shared memory whose layout is its own
    (``own_layout``), or a typed allocation. Partitions, slices and regroupings of a tensor (their layouts read off
    it with ``cute.get_layout``) are read through it; an allocation no tensor is built on is raw memory (barriers,
    a TMEM address), which holds no layout."""
    defs = {r: op for op in ops for r in op.results}
    for op in ops:
        if op.name == "cute.memref.alloca" and ", smem" in op.type and _alloca_bytes(op) is None:
            file, line = where(op.line)
            yield _smem_tensor(op, Buffer(op, 0), file, line)
        if op.name != "cute.make_view" or ", smem" not in op.type or len(op.operands) < 2:
            continue
        if own_layout(op.operands[1], defs):
            file, line = where(op.line)
            yield _smem_tensor(op, _buffer(op.operands[0], defs), file, line)


def _smem_tensor(op: Op, buf: Buffer | None, file: str, line: int) -> Finding:
    m = _MEMREF.match(op.type)
    if m is None:
        return Finding("smem", op.type, file, line, gap=f"not modelled: shared-memory tensor type {op.type}")
    return _smem_finding(m, buf, file, line)


_LAYOUT_TYPES = ("!cute.layout<", "!cute.composed_layout<")


def own_layout(value: str, defs: dict[str, Op]) -> bool:
    """Whether the layout ``value`` is built by the kernel (from shapes, strides, swizzles, a kernel argument) rather
    than read off a tensor (``cute.get_layout``, through any layout operations on the way)."""
    for _ in range(64):
        op = defs.get(value)
        if op is None:  # a function argument: a layout the host passed in
            return True
        if op.name == "cute.get_layout":
            return False
        nxt = [v for v in op.operands if v in defs and defs[v].type.startswith(_LAYOUT_TYPES)]
        if not nxt:
            return True
        value = nxt[0]
    return True


def _buffer(value: str, defs: dict[str, Op]) -> Buffer | None:
    """Where the pointer ``value`` points: back through pointer operations (``add_offset`` adds its static offset;
    ``recast_iter`` keeps it; any other makes it unknown) and the iterators of other tensors (a view's pointer; a
    slice or partition moves it by an amount not read here) to the allocation; ``None`` when the chain ends
    elsewhere (a block argument: a pointer carried by a loop)."""
    offset: int | None = 0
    for _ in range(64):
        op = defs.get(value)
        if op is None:
            return None
        if op.name == "cute.memref.alloca":
            return Buffer(op, offset)
        if op.name in ("cute.get_iter", "cute.make_view") and op.operands:
            value = op.operands[0]
            continue
        if op.type.startswith("!cute.ptr<") and op.operands:
            offset = _add_offset(op, offset) if op.name == "cute.add_offset" else (
                offset if op.name == "cute.recast_iter" else None)
            value = op.operands[0]
            continue
        src = [v for v in op.operands if v in defs and defs[v].type.startswith("!cute.memref<")]
        if not op.type.startswith("!cute.memref<") or not src:
            return None
        offset, value = None, src[0]
    return None


def _add_offset(op: Op, offset: int | None) -> int | None:
    """``offset`` plus the static offset of ``cute.add_offset`` in bytes (elements of its pointer type)."""
    m = re.search(r'\(!cute\.ptr<(\w+),.*?!cute\.int_tuple<"(-?\d+)">\)', op.text)
    bits = element_bits(m.group(1)) if m else None
    if offset is None or m is None or not bits or bits % 8:
        return None
    return offset + int(m.group(2)) * bits // 8


def element_bits(dtype: str) -> int | None:
    """Bits of an MLIR element type (``f16`` 16, ``f8E4M3FN`` 8, ``i32`` 32); ``None`` when it names none."""
    m = re.match(r"^(?:[a-z]+?)(\d+)", dtype)
    return int(m.group(1)) if m else None


def _smem_finding(m: re.Match[str], buf: Buffer | None, file: str, line: int) -> Finding:
    dt, sw, text = m.group("dt"), m.group("sw"), m.group("layout")
    subject = f"{dt} {sw + ' (pointer) o ' if sw else ''}{text}"
    if "?" in text:
        return Finding("smem", subject, file, line, gap=f"not modelled: dynamic shared-memory layout {text}")
    bits = element_bits(dt)
    if sw is not None:
        if " o " in text:
            return Finding("smem", subject, file, line, gap="not modelled: a swizzled pointer under a composed layout")
        elem = element_swizzle(sw, bits)
        if elem is None:
            return Finding("smem", subject, file, line, gap=f"not modelled: the byte swizzle {sw} of a {bits}-bit "
                                                            "element type in element units")
        text = f"{elem} o 0 o {text}"
    try:
        lay = from_cute(text).layout
    except LayoutcheckError as e:
        return Finding("smem", subject, file, line, gap=f"not modelled: cannot read the layout {text}: {e}")
    props: list[Any] = ["injective"]
    extent = None if buf is None else buf.extent()
    if extent is not None and bits and bits % 8 == 0:
        what, nbytes = extent
        subject += f" in {what} ({nbytes} B)"
        props.append({"name": "in_bounds", "bound": nbytes // (bits // 8)})
    else:  # a dynamic offset, or one inside a struct field: injective only, and the row says so
        subject += " (its buffer's extent not read: no in_bounds)"
    return Finding("smem", subject, file, line, "layout", (("layout", str(lay)),), tuple(props))


def element_swizzle(sw: str, bits: int | None) -> str | None:
    """A pointer (byte-address) swizzle ``S<B,M,S>`` as the swizzle of element offsets: ``S<B,M-k,S>`` for
    ``2^k``-byte elements; ``None`` when the elements are not whole bytes or ``M < k`` (bits inside an element)."""
    b, m, s = (int(x) for x in re.findall(r"\d+", sw))
    if not bits or bits % 8 or (bits // 8) & (bits // 8 - 1):
        return None
    k = int(math.log2(bits // 8))
    return None if m < k else f"S<{b},{m - k},{s}>"


def _alloca_bytes(op: Op) -> int | None:
    m = re.match(r'^!cute\.memref<i8, smem(?:, align<\d+>)?, "(\d+):1">$', op.type)
    return int(m.group(1)) if m else None


_TMA_OP = re.compile(r"^cute_nvgpu\.atom\.make_non_exec_tiled_tma_(?P<dir>load|store|reduce)$")
_GBASIS = re.compile(r'tma_gbasis = <"(?P<basis>[^"]+)">')


def _tma_findings(ops: list[Op], where: Callable[[int], tuple[str, int]]) -> Iterator[Finding]:
    """Every ``make_non_exec_tiled_tma_*``: the TMA unit's box (from ``tma_gbasis``) against the shared-memory layout
    the atom was built from."""
    table_ops = [op for op in ops if op.name.startswith("cute_nvgpu.atom.make_non_exec")]
    for op in table_ops:
        file, line = where(op.line)
        if _TMA_OP.match(op.name) is None:
            yield Finding("tma", op.name, file, line, gap=f"not modelled: TMA atom {op.name} (im2col, gather/scatter)")
            continue
        yield _tma_finding(op, file, line)


def _tma_finding(op: Op, file: str, line: int) -> Finding:
    sig = op.text.rsplit(" : ", 1)[-1]
    ins, _, outs = sig.partition("->")
    args = split_top(ins.strip()[1:-1]) if ins.strip().startswith("(") else []
    basis = _GBASIS.search(outs)
    if len(args) < 3 or basis is None:
        return Finding("tma", op.name, file, line, gap=f"not modelled: TMA atom signature {sig.strip()[:120]}")
    gmem, smem, vmap = args[0], _quoted(args[1]), _quoted(args[2])
    subject = f"{_quoted(gmem) or gmem} -> {smem}"
    try:
        keys = _tma_keys(gmem, args[1], smem, vmap, basis.group("basis"))
    except (LayoutcheckError, ValueError) as e:
        return Finding("tma", subject, file, line, gap=f"not modelled: {e}")
    return Finding("tma", subject, file, line, "tma", keys, ("tma_compatible",))


def _quoted(t: str) -> str:
    m = re.search(r'"([^"]+)"', t)
    return m.group(1) if m else ""


def _unit_bases(text: str, what: str) -> list[tuple[int, int]]:
    """``(e0,e1,...):(1@k0,1@k1,...)`` -> ``[(e0, k0), ...]``: one unit-stride basis per flat mode."""
    shape, _, stride = text.partition(":")
    extents = [int(x) for x in re.findall(r"\d+", shape)]
    bases = re.findall(r"(\d+)@(\d+)", stride)
    if shape.count("(") > 1 or len(bases) != len(extents) or any(s != "1" for s, _ in bases):
        raise ValueError(f"{what} {text} is not one unit-stride basis per mode")
    return [(e, int(k)) for e, (_, k) in zip(extents, bases, strict=True)]


def _tma_keys(gmem: str, smem_type: str, smem: str, vmap: str, basis: str) -> tuple[tuple[str, Any], ...]:
    """The ``tma`` config of one TMA atom: box dim ``i`` is ``tma_gbasis`` mode ``i`` (extent ``e_i`` along global
    mode ``k_i``); the CTA tile map (``cta_v_map``, the smem layout's coordinates -> global coordinates) says which
    part of the smem layout runs along which global mode (``by_global_mode``), one smem mode per box dim."""
    g = re.match(r'^!cute\.memref<(?P<dt>\w+), gmem(?:, align<\d+>)?, "(?P<layout>[^"]+)">$', gmem)
    if g is None or not smem:
        raise ValueError(f"TMA operands {gmem} and {smem_type}")
    dt = g.group("dt")
    dtype, bits = mlir_dtype(dt), element_bits(dt)
    if dtype is None or not bits or bits % 8:
        raise ValueError(f"TMA of element type {dt}")
    box = _unit_bases(basis, "the TMA basis")  # box dim i: extent along global mode k_i
    sw, text = "none", smem
    if " o " in smem:
        m = re.match(r"^S<(\d+),(\d+),(\d+)> o 0 o (.+)$", smem)
        if m is None or (int(m.group(2)), int(m.group(3))) != (4, 3) or int(m.group(1)) not in range(4):
            raise ValueError(f"the TMA swizzle of {smem} (the TMA unit swizzles bytes as S<B,4,3>)")
        sw = mode_of_bits(int(m.group(1))).name  # the TMA's Swizzle<B,4,3> on bytes
        elem = element_swizzle(f"S<{m.group(1)},4,3>", bits)
        if elem is None:
            raise ValueError(f"the byte swizzle of {smem} on {bits}-bit elements")
        text = f"{elem} o 0 o {m.group(4)}" if m.group(1) != "0" else m.group(4)
    lay = from_cute(text).layout
    inner = getattr(lay, "layout", lay)
    dims = by_global_mode(inner, vmap)
    box_of_mode = {k: i for i, (_, k) in enumerate(box)}
    if sorted(box_of_mode) != sorted(dims):
        raise ValueError(f"the TMA basis {basis} and the CTA tile map {vmap} name different global modes")
    from layoutcheck.algebra.layout import Layout
    from layoutcheck.algebra.swizzle import ComposedLayout

    order = sorted(dims)
    regrouped = Layout(tuple(dims[k].shape for k in order), tuple(dims[k].stride for k in order))
    smem_layout = ComposedLayout(lay.swizzle, lay.offset, regrouped) if hasattr(lay, "swizzle") else regrouped
    keys: list[tuple[str, Any]] = [("dtype", dtype), ("swizzle", sw), ("box", [e for e, _ in box]),
                                        ("smem_layout", str(smem_layout)), ("modes", [box_of_mode[k] for k in order])]
    gl = re.sub(r"\{[^}]*\}", "", g.group("layout"))  # a dynamic extent's annotation: ?{div=16} -> ?
    gshape, _, gstride = gl.partition(":")
    ext, strides = re.findall(r"[\d?]+", gshape), re.findall(r"[\d?]+", gstride)
    if gshape.count("(") <= 1 and len(ext) == len(strides) and all(k < len(ext) for _, k in box):
        if strides[box[0][1]] not in ("1", "?"):
            raise ValueError(f"box dim 0 runs along global mode {box[0][1]} of {gl}, whose stride is not 1")
        if "?" not in gl:  # a dynamic global tensor: the box and its image are checked on a packed one
            keys.append(("global_shape", [int(ext[k]) for _, k in box]))
            keys.append(("global_strides", [int(strides[k]) * bits // 8 for _, k in box[1:]]))
    return tuple(keys)


def _nested(text: str) -> Any:
    """``"((128,16),1,4)"`` -> ``(('128', '16'), '1', '4')``: a CuTe tuple as nested tuples of its leaves."""
    tokens = re.findall(r"\(|\)|[^(),\s]+", text)
    pos = 0

    def one() -> Any:
        nonlocal pos
        tok = tokens[pos]
        pos += 1
        if tok != "(":
            return tok
        out = []
        while tokens[pos] != ")":
            out.append(one())
        pos += 1
        return tuple(out)

    got = one()
    if pos != len(tokens):
        raise ValueError(f"cannot read the CuTe tuple {text}")
    return got


def by_global_mode(smem: Any, vmap: str) -> dict[int, Any]:
    """Global mode ``k`` -> the part of ``smem`` whose coordinates run along it, as one layout mode: ``vmap``'s
    leaves (``s@k``, or ``0`` on an extent-1 mode) each take the smem sub-layout at the same place; the leaves of one
    global mode, ordered by ``s``, must tile its range (``s`` = the product of the extents before it)."""
    from layoutcheck.algebra.layout import Layout, size

    vshape_text, _, vstride_text = vmap.partition(":")
    vshape, vstride = _nested(vshape_text), _nested(vstride_text)
    leaves: dict[int, list[tuple[int, Any]]] = {}

    def walk(sub: Any, shp: Any, std: Any) -> None:
        if isinstance(std, tuple):
            if not isinstance(shp, tuple) or len(shp) != len(std) or len(sub.shape) != len(std):
                raise ValueError(f"the CTA tile map {vmap} does not follow the smem layout {smem}")
            for i in range(len(std)):
                walk(Layout(sub.shape[i], sub.stride[i]), shp[i], std[i])
            return
        m = re.fullmatch(r"(\d+)@(\d+)", std)
        if m is None:
            if std == "0" and size(sub) == 1:
                return
            raise ValueError(f"the CTA tile map {vmap} has a stride {std} that is not one global mode")
        if size(sub) != int(shp):
            raise ValueError(f"the CTA tile map {vmap} does not follow the smem layout {smem}")
        leaves.setdefault(int(m.group(2)), []).append((int(m.group(1)), sub))

    walk(smem, vshape, vstride)
    out = {}
    for k, parts in leaves.items():
        parts.sort(key=lambda p: p[0])
        expect = 1
        for s, sub in parts:
            if s != expect:
                raise ValueError(f"the CTA tile map {vmap} does not tile global mode {k} (stride {s}, expected "
                                 f"{expect})")
            expect *= size(sub)
        subs = [sub for _, sub in parts]
        out[k] = subs[0] if len(subs) == 1 else Layout(tuple(x.shape for x in subs), tuple(x.stride for x in subs))
    return out


_TILED_COPY = re.compile(r'!cute\.tiled_copy<(?P<atom>.*?), layout_copy_tv = <"(?P<tv>[^"]+)">, '
                         r'tiler_mn = <"\[(?P<tiler>[^"]+)\]">>')


def _copy_findings(cap: Capture, ops: list[Op], where: Callable[[int], tuple[str, int]]) -> Iterator[Finding]:
    """Every distinct TiledCopy type, at the first operation that yields it: its ``layout_copy_tv``, and the source
    and destination TV layouts the DSL gave for it (a TiledCopy no constructor call explains is checked on its
    ``layout_copy_tv`` alone, and a gap says so)."""
    records = {r.type: r for r in cap.copies}
    seen: set[str] = set()
    for op in ops:
        for m in _TILED_COPY.finditer(op.type):
            if m.group(0) in seen:
                continue
            seen.add(m.group(0))
            r = records.get(m.group(0))
            file, line = (r.file, r.line) if r is not None and r.line else where(op.line)
            found = _copy_finding(m, file, line)
            yield found
            if found.gap is None:
                yield from _copy_side_findings(r, found, dict(found.keys)["tile"])


def _copy_side_findings(r: TiledCopyRecord | None, base: Finding, tile: list[int]) -> Iterator[Finding]:
    atom = base.subject.split(" ((")[0].split(" (")[0]
    if r is None or r.error is not None:
        why = "no TiledCopy constructor call was seen" if r is None else f"the DSL gave none ({r.error})"
        yield Finding("tiled_copy", f"{atom} src/dst", base.file, base.line,
                      gap=f"not modelled: the source and destination TV layouts ({why})")
        return
    for side, tv in r.tv:
        subject = f"{atom} {side} {tv} on {tile[0]}x{tile[1]}" if len(tile) == 2 else f"{atom} {side} {tv}"
        try:
            lay = from_cute(tv).layout
        except LayoutcheckError as e:
            yield Finding("tiled_copy", subject, base.file, base.line, gap=f"not modelled: cannot read {tv}: {e}")
            continue
        yield Finding("tiled_copy", subject, base.file, base.line, "tv", (("tv", str(lay)), ("tile", tile)),
                      (_uniform_cover(lay, tile),))


def _copy_finding(m: re.Match[str], file: str, line: int) -> Finding:
    atom = re.sub(r"^!cute_nvgpu\.atom\.", "", m.group("atom"))
    tv, tiler = m.group("tv"), m.group("tiler").split(";")
    subject = f"{atom} {tv} on [{';'.join(tiler)}]"
    if "?" in tv or "?" in m.group("tiler"):
        return Finding("tiled_copy", subject, file, line, gap=f"not modelled: dynamic TiledCopy {tv}")
    try:
        tile = [_size(t) for t in tiler]
        lay = from_cute(tv).layout
    except (LayoutcheckError, ValueError) as e:
        return Finding("tiled_copy", subject, file, line, gap=f"not modelled: TiledCopy {tv} on {tiler}: {e}")
    return Finding("tiled_copy", subject, file, line, "tv", (("tv", str(lay)), ("tile", tile)),
                   (_uniform_cover(lay, tile),))


def _uniform_cover(tv: Any, tile: Sequence[int]) -> dict[str, Any]:
    """``exact_cover`` with each tile element owned ``|T x V| / |tile|`` times (by distinct threads): a map whose
    size the tile does not divide cannot own every element equally often, and is refuted with replication 1."""
    from layoutcheck.algebra.layout import size

    n, k = size(tv), math.prod(tile)
    return {"name": "exact_cover", "replication": n // k if n % k == 0 and n >= k else 1}


def _size(text: str) -> int:
    """The size of one tiler mode: an extent ``64`` or a layout ``(8,8):(1,16)``, ``32:1``."""
    shape = text.split(":")[0] if ":" in text else text
    if "_" in shape:
        raise ValueError(f"tiler mode {text} has no extent")
    return math.prod(int(x) for x in re.findall(r"\d+", shape))


_OPERAND_TILE = {"A": (0, 2), "B": (1, 2), "C": (0, 1)}
_TILED_MMA = re.compile(r"!cute\.tiled_mma<.*?permutation_MNK = <\"[^\"]*\">>")


def _mma_findings(cap: Capture, ops: list[Op], where: Callable[[int], tuple[str, int]]) -> Iterator[Finding]:
    """Each TiledMMA the DSL built (one record per ``make_tiled_mma`` call): the tiled TV layout of every operand
    over its tile; a TiledMMA type of the module no record explains is a gap (built without the hooked call)."""
    recorded = {r.type for r in cap.mmas}
    first = {t: op.line for op in reversed(ops) for t in _TILED_MMA.findall(op.type)}
    for r in cap.mmas:  # built outside the kernel's file (a helper module): the IR's location of its first use
        file, line = (r.file, r.line) if r.line or r.type not in first else where(first[r.type])
        yield from _mma_record_findings(dataclasses.replace(r, file=file, line=line))
    seen: set[str] = set()
    for op in ops:
        for t in _TILED_MMA.findall(op.type):
            if t in recorded or t in seen:
                continue
            seen.add(t)
            file, line = where(op.line)
            yield Finding("tiled_mma", t, file, line, gap="not modelled: a TiledMMA built without make_tiled_mma "
                                                          "(its TV layouts were not read)")


def _mma_record_findings(r: TiledMmaRecord) -> Iterator[Finding]:
    atom = re.sub(r"^!cute\.tiled_mma<!cute_nvgpu\.", "", r.type).split(",")[0].strip()
    if r.error is not None or r.tile_mnk is None:
        yield Finding("tiled_mma", atom, r.file, r.line, gap=f"not modelled: the DSL gave no TV layouts ({r.error})")
        return
    for operand, tv in r.tv:
        i, j = _OPERAND_TILE[operand]
        tile = [r.tile_mnk[i], r.tile_mnk[j]]
        subject = f"{atom} {operand} {tv} on {tile[0]}x{tile[1]}"
        if "?" in tv:
            yield Finding("tiled_mma", subject, r.file, r.line, gap=f"not modelled: dynamic TV layout {tv}")
            continue
        try:
            lay = from_cute(tv).layout
        except LayoutcheckError as e:
            yield Finding("tiled_mma", subject, r.file, r.line, gap=f"not modelled: cannot read {tv}: {e}")
            continue
        prop = {"name": "exact_cover", "replication": 1} if operand == "C" else _uniform_cover(lay, tile)
        yield Finding("tiled_mma", subject, r.file, r.line, "tv", (("tv", str(lay)), ("tile", tile)), (prop,))


# -- the spec, and rows back at the source ----------------------------------------------------------------------------
def spec_text(found: Sequence[Finding]) -> str:
    """The TOML spec of every finding that is a config (gaps are not configs: ``gaps``)."""
    out = ["# written by layoutcheck cute-dsl: the layouts a CuTe DSL kernel builds", "format = 1", ""]
    for i, f in enumerate(found):
        if f.gap is not None:
            continue
        out += ["[[config]]", f"name = {_toml(config_name(i, f))}", f"description = {_toml(f.name)}",
                f"kind = {_toml(f.kind)}"]
        out += [f"{k} = {_toml(v)}" for k, v in f.keys]
        out += [f"properties = [{', '.join(_toml(p) for p in f.properties)}]", ""]
    return "\n".join(out)


def config_name(index: int, f: Finding) -> str:
    """The spec's name of finding ``index`` (a config name is a short identifier; rows are renamed back)."""
    return f"{f.what}.L{f.line}.{index}"


def _toml(v: Any) -> str:
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml(x)}" for k, x in v.items()) + " }"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return json.dumps(str(v))


def gaps(found: Sequence[Finding]) -> list[Finding]:
    """The findings that are not modelled (each an UNKNOWN row)."""
    return [f for f in found if f.gap is not None]


def at_source(rows: Sequence[Any], found: Sequence[Finding]) -> list[Any]:
    """The rows of ``spec_text(found)`` with ``file``/``line`` set to the kernel's source of their config."""
    by_name = {config_name(i, f): f for i, f in enumerate(found)}
    out = []
    for r in rows:
        f = by_name.get(r.config)
        out.append(r if f is None else dataclasses.replace(r, file=f.file, line=f.line, config=f.name))
    return out


__all__ = ["Buffer", "Finding", "at_source", "by_global_mode", "config_name", "element_bits", "element_swizzle", "gaps",
           "kernel_findings", "spec_text"]
