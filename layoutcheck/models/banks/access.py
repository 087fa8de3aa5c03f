"""Access patterns: which shared-memory elements each lane of a warp touches, instruction by instruction.

An *access pattern* (``Access``) is a warp's sequence of instructions of one kind, given as the element indices
(into the domain of a shared-memory layout, colexicographic) that each lane touches in each instruction; a
``Layout``/``ComposedLayout`` in elements of ``elem_bits`` turns them into byte addresses (``byte_addresses``), which
the bank model (``layoutcheck.models.banks.model``) counts; ``analyze`` runs every instruction.

Builders: from a vectorised function of (instruction, lane) (``access_from_fn``), a TV layout (``access_from_tv``),
an index expression (``access_from_expr``, ``layoutcheck.expr.parse``), or the canonical accesses of a rank-2 tile
(``matrix_access`` for ldmatrix/stmatrix, ``vector_access`` for ld/st, ``row_access``, ``column_access``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from layoutcheck.algebra.inttuple import product
from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.notation import as_subject
from layoutcheck.algebra.swizzle import Subject, inner, shared_offsets
from layoutcheck.errors import LayoutError
from layoutcheck.expr.formula import IndexFormula
from layoutcheck.expr.numpy import evaluate
from layoutcheck.expr.parse import parse
from layoutcheck.hw.banks import AccessKind, access_kind
from layoutcheck.memo import memoised
from layoutcheck.models.banks.model import PhaseReport, breakdown, ideal_batch, wavefronts_batch


@dataclass(frozen=True, slots=True)
class Access:
    """A warp's instructions of one kind: ``elems[i, lane, j]`` = the j-th element (flat index into the smem layout's
    domain) that ``lane`` touches in instruction ``i`` (-1: the lane supplies no address).

    ``j`` runs over the elements of one lane's vector (ld/st) or one 16-byte row (ldmatrix/stmatrix); they must be
    consecutive in memory under the layout.
    """

    kind: AccessKind
    elems: np.ndarray = field(compare=False, hash=False)
    elem_bits: int
    name: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", access_kind(self.kind))
        e = np.asarray(self.elems, dtype=np.int64)
        if e.ndim == 2:
            e = e[:, :, None]
        if e.ndim != 3 or e.shape[1] != 32:
            raise LayoutError(f"access {self.name or self.kind}: elems must have shape (instructions, 32, v), "
                              f"found {e.shape}")
        if self.elem_bits not in (8, 16, 32, 64, 128):
            raise LayoutError(f"access {self.name or self.kind}: element width {self.elem_bits} bits not supported")
        object.__setattr__(self, "elems", e)

    @property
    def instructions(self) -> int:
        return int(self.elems.shape[0])

    @property
    def elem_bytes(self) -> int:
        """Bytes per element offset: ``elem_bits / 8`` (elements narrower than a byte address bytes: 1)."""
        return max(1, self.elem_bits // 8)

    def __str__(self) -> str:
        return self.name or f"{self.kind} x{self.instructions}"


def elems_per_address(kind: AccessKind, elem_bits: int) -> int:
    """Elements covered by one lane address: ``kind.bytes * 8 / elem_bits`` (1 for a sub-element access)."""
    return max(1, kind.bytes * 8 // elem_bits)


def element_offsets(smem: Subject, access: Access) -> np.ndarray:
    """(instructions, 32, v) offset (in elements) of every element each lane touches (-1: inactive); raises if an
    element lies outside the layout's domain.

    >>> element_offsets(Layout(32, 2), Access("lds32", np.arange(32)[None, :], 32))[0, :3, 0].tolist()
    [0, 2, 4]
    """
    smem = as_smem(smem)
    e = access.elems
    n = smem_size(smem)
    if (e >= n).any():
        i, lane, j = map(int, np.argwhere(e >= n)[0])
        raise LayoutError(f"access {access}: instruction {i} lane {lane} touches element {e[i, lane, j]} outside "
                          f"the layout {smem} of size {n}")
    active = e >= 0
    return np.where(active, smem_offsets(smem)[np.where(active, e, 0)], -1)


def as_smem(x: Any) -> Any:
    """A shared-memory layout: a ``Layout`` / ``ComposedLayout`` (or CuTe text), or an index formula
    (``layoutcheck.expr.formula``: evaluated through the expression IR's NumPy interpreter)."""
    return x if isinstance(x, IndexFormula) else as_subject(x, "shared-memory layout")


def smem_size(x: Any) -> int:
    """How many elements the layout's domain has."""
    return x.size if isinstance(x, IndexFormula) else size(inner(x))


def smem_modes(x: Any) -> tuple[int, ...]:
    """The extent of each top-level mode (a formula: of each coordinate), first fastest."""
    if isinstance(x, IndexFormula):
        return x.shape
    shape = inner(x).shape
    return tuple(size(Layout(m)) for m in shape) if isinstance(shape, tuple) else (shape,)


def smem_offsets(x: Any) -> np.ndarray:
    """The element offset of every point of the layout's domain (read-only)."""
    if isinstance(x, IndexFormula):
        out = x.offsets()
        out.setflags(write=False)
        return out
    return shared_offsets(x)


def first_split(offsets: np.ndarray) -> tuple[int, int] | None:
    """``(instruction, lane)`` of the first active lane whose elements are not consecutive offsets: the hardware reads
    one address's ``bytes`` contiguous bytes (a lane's vector; an ldmatrix/stmatrix row of 16 bytes), so a split
    vector reads or writes other elements than the access names. ``None`` when every vector is contiguous.

    >>> first_split(np.array([[[0, 1], [4, 6]] + [[-1, -1]] * 30]))
    (0, 1)
    """
    if offsets.shape[2] < 2:
        return None
    step = (offsets[:, :, 1:] - offsets[:, :, :1]) != np.arange(1, offsets.shape[2])
    bad = step.any(axis=2) & (offsets[:, :, 0] >= 0)
    if not bad.any():
        return None
    i, lane = map(int, np.argwhere(bad)[0])
    return i, lane


def lane_addresses(smem: Subject, access: Access) -> np.ndarray:
    """(instructions, 32) byte address of each lane's first element (-1: inactive): the address the lane supplies.

    >>> lane_addresses(Layout(32, 2), Access("lds32", np.arange(32)[None, :], 32))[0, :3].tolist()
    [0, 8, 16]
    """
    offs = element_offsets(smem, access)
    return np.where(offs[:, :, 0] >= 0, offs[:, :, 0] * access.elem_bytes, -1)


def byte_addresses(smem: Subject, access: Access) -> np.ndarray:
    """(instructions, 32) byte addresses; raises if a lane's vector is not contiguous in memory or out of range.

    >>> acc = Access("lds32", np.arange(32)[None, :], 32)
    >>> byte_addresses(Layout(32, 2), acc)[0, :3].tolist()
    [0, 8, 16]
    """
    offs = element_offsets(smem, access)
    bad = first_split(offs)
    if bad is not None:
        i, lane = bad
        raise LayoutError(f"access {access}: instruction {i} lane {lane}: elements {access.elems[i, lane].tolist()} "
                          f"map to offsets {offs[i, lane].tolist()} in {smem}, not one contiguous vector")
    return np.where(offs[:, :, 0] >= 0, offs[:, :, 0] * access.elem_bytes, -1)


@dataclass(frozen=True, slots=True)
class BankAnalysis:
    """Every instruction of an access on a layout: totals, the worst instruction and its per-phase breakdown."""

    kind: AccessKind
    instructions: int
    wavefronts: int
    ideal: int
    per_instruction: np.ndarray = field(compare=False, hash=False)
    worst: int
    worst_phases: tuple[PhaseReport, ...]

    @property
    def conflicts(self) -> int:
        return self.wavefronts - self.ideal

    @property
    def max_wavefronts(self) -> int:
        return int(self.per_instruction.max()) if self.instructions else 0

    def __str__(self) -> str:
        head = (f"{self.kind}: {self.instructions} instructions, {self.wavefronts} wavefronts (ideal {self.ideal}, "
                f"{self.conflicts} from conflicts); worst instruction {self.worst}: {self.max_wavefronts}")
        return "\n  ".join([head, *(str(p) for p in self.worst_phases if p.wavefronts > 1)])


def analyze(smem: Subject, access: Access) -> BankAnalysis:
    """Run the bank model on every instruction of ``access`` over ``smem``.

    >>> str(analyze(Layout((32, 32), (32, 1)), column_access(32, 32, 32))).split(";")[0]
    'lds32: 32 instructions, 1024 wavefronts (ideal 32, 992 from conflicts)'
    """
    addrs = byte_addresses(smem, access)
    per = wavefronts_batch(access.kind, addrs)
    idl = ideal_batch(access.kind, addrs)
    worst = int(np.argmax(per - idl)) if per.size else 0
    phases = tuple(breakdown(access.kind, addrs[worst])) if per.size else ()
    return BankAnalysis(access.kind, access.instructions, int(per.sum()), int(idl.sum()), per, worst, phases)


# --------------------------------------------------------------------------------------- building access patterns
def access_from_fn(kind: str | AccessKind, fn: Callable[[np.ndarray, np.ndarray], np.ndarray], instructions: int,
                   elem_bits: int, name: str = "") -> Access:
    """``fn(instr, lane) -> first element index`` (vectorised); the lane's vector continues at index + 1, + 2, ...

    >>> access_from_fn("lds32", lambda i, l: 32 * i + l, 4, 32).elems.shape
    (4, 32, 1)
    """
    k = access_kind(kind)
    i, lane = np.meshgrid(np.arange(instructions), np.arange(32), indexing="ij")
    first = np.asarray(fn(i, lane), dtype=np.int64)
    v = elems_per_address(k, elem_bits)
    elems = first[:, :, None] + np.arange(v)
    if k.address_lanes < 32:
        elems[:, k.address_lanes:, :] = -1
    return Access(k, elems, elem_bits, name)


def access_from_tv(kind: str | AccessKind, tv: Layout, elem_bits: int, name: str = "") -> Access:
    """A TV layout ``(32 lanes, V values) -> element index``: instruction ``i`` moves values ``[i*v, (i+1)*v)``.

    >>> access_from_tv("lds64", Layout((32, 4), (4, 1)), 32).instructions
    2
    """
    k = access_kind(kind)
    if size(tv[0]) != 32:
        raise LayoutError(f"access_from_tv: mode 0 of {tv} must be the 32 lanes of a warp, found {size(tv[0])}")
    v = elems_per_address(k, elem_bits)
    nval = size(tv) // 32
    if nval % v:
        raise LayoutError(f"access_from_tv: {nval} values per lane are not a multiple of the {v}-element {k}")
    offs = tv.offsets().reshape(nval, 32).T  # colex: lane fastest
    elems = offs.reshape(32, nval // v, v).transpose(1, 0, 2)
    return Access(k, np.ascontiguousarray(elems), elem_bits, name)


def access_from_expr(kind: str | AccessKind, expr: str, elem_bits: int, ranges: Mapping[str, int],
                     name: str = "") -> Access:
    """An element-index expression in ``lane`` and instruction variables (``ranges``: name -> extent, first fastest).

    Pre: ``expr`` uses ints, names, ``+ - * // % ^ & | << >> ~`` and parentheses (parsed, never ``eval``-ed).

    >>> a = access_from_expr("lds32", "s*128 + (r ^ ((lane >> 3) & 3)) % 4 * 32 + lane", 32, {"r": 4, "s": 2})
    >>> a.instructions, int(a.elems[1, 8, 0])
    (8, 8)
    """
    names = list(ranges)
    tree = parse(expr, {"lane": 32, **ranges})
    n = int(product(tuple(ranges.values()))) if names else 1

    def fn(i: np.ndarray, lane: np.ndarray) -> np.ndarray:
        env = {"lane": lane}
        rest = i
        for nm in names:
            env[nm] = rest % ranges[nm]
            rest = rest // ranges[nm]
        return evaluate(tree, env)

    return access_from_fn(kind, fn, n, elem_bits, name or expr)


# ----------------------------------------------------------------------------------- canonical 2-D tile accesses
def _flat(m: Any, n: Any, rows: int) -> Any:
    """Colexicographic flat index of coordinate (m, n) in a (rows, cols) domain."""
    return m + rows * n


def _contiguous_mode(smem: Subject, elem_bits: int) -> tuple[int, int, int]:
    """(rows, cols, mode) of a rank-2 layout and which mode is contiguous in memory (offset step 1 at the origin);
    without one, the mode with the smallest step."""
    modes = smem_modes(smem)
    if len(modes) != 2:
        raise LayoutError(f"a canonical access needs a rank-2 (rows, cols) layout, found {smem}")
    rows, cols = modes
    f = smem_offsets(smem).reshape(cols, rows).T
    if rows > 1 and f[1, 0] - f[0, 0] == 1:
        return rows, cols, 0
    if cols > 1 and f[0, 1] - f[0, 0] == 1:
        return rows, cols, 1
    # no mode steps by one element: the vectors run along the mode that steps least (mode 0 on a tie), so an access
    # of more than one element per address is split at its first vector (the claims refute it there)
    steps = [abs(int(f[1, 0] - f[0, 0])) if rows > 1 else None, abs(int(f[0, 1] - f[0, 0])) if cols > 1 else None]
    if steps == [None, None]:
        raise LayoutError(f"a canonical access needs a mode of more than one element, found {smem}")
    return rows, cols, min((s, m) for m, s in enumerate(steps) if s is not None)[1]


def matrix_access(smem: Subject, kind: str | AccessKind, elem_bits: int) -> Access:
    """ldmatrix/stmatrix over every 8x16 B subtile of a rank-2 layout: 8 rows of 16 B along the contiguous mode.

    Matrices are taken in order (contiguous-mode chunk fastest), ``kind.matrices`` per instruction.

    >>> matrix_access(Layout((8, 64), (64, 1)), "ldsm_x4", 16).instructions
    2
    """
    k = access_kind(kind)
    if not k.is_matrix:
        raise LayoutError(f"matrix_access needs an ldmatrix/stmatrix kind, found {k}")
    rows, cols, mode = _contiguous_mode(as_smem(smem), elem_bits)
    v = 128 // elem_bits
    along, across = (rows, cols) if mode == 0 else (cols, rows)
    if along % v or across % 8:
        raise LayoutError(f"{smem}: a {along}x{across} tile is not a whole number of 8x16 B matrices of "
                          f"{elem_bits}-bit elements")
    mats = (along // v) * (across // 8)
    if mats % k.matrices:
        raise LayoutError(f"{smem}: {mats} 8x16 B matrices are not a multiple of {k.matrices} for {k}")
    mat = np.arange(mats)
    chunk, band = mat % (along // v), mat // (along // v)
    r = np.arange(8)
    a0 = chunk[:, None] * v + 0 * r  # contiguous-mode start
    a1 = band[:, None] * 8 + r       # other-mode coordinate of each row
    m, n = (a0, a1) if mode == 0 else (a1, a0)
    first = _flat(m, n, rows)  # (mats, 8)
    jstep = 1 if mode == 0 else rows
    elems = first.reshape(mats // k.matrices, k.address_lanes)[:, :, None] + jstep * np.arange(v)
    full = -np.ones((elems.shape[0], 32, v), dtype=np.int64)
    full[:, : k.address_lanes] = elems
    return Access(k, full, elem_bits, f"{k} over 8x16B subtiles")


def vector_access(smem: Subject, kind: str | AccessKind, elem_bits: int) -> Access:
    """ld/st of ``kind.bytes`` per lane over a rank-2 layout: lanes take consecutive vectors along the contiguous
    mode, then the next row (a coalesced tile copy; ``st.shared`` of a GMEM->SMEM copy).

    >>> vector_access(Layout((8, 64), (64, 1)), "sts128", 16).instructions
    2
    """
    k = access_kind(kind)
    rows, cols, mode = _contiguous_mode(as_smem(smem), elem_bits)
    v = elems_per_address(k, elem_bits)
    along, across = (rows, cols) if mode == 0 else (cols, rows)
    if along % v or (along // v * across) % 32:
        raise LayoutError(f"{smem}: {along}x{across} {elem_bits}-bit elements do not split into warps of "
                          f"{k.bytes}-byte vectors")
    vec = np.arange(along // v * across)
    a0, a1 = (vec % (along // v)) * v, vec // (along // v)
    m, n = (a0, a1) if mode == 0 else (a1, a0)
    jstep = 1 if mode == 0 else rows
    elems = _flat(m, n, rows)[:, None] + jstep * np.arange(v)
    return Access(k, elems.reshape(-1, 32, v), elem_bits, f"{k} row-major vectors")


@memoised(32)
def default_access(smem: Subject, kind: str | AccessKind, elem_bits: int) -> Access:
    """``matrix_access`` for ldmatrix/stmatrix kinds, ``vector_access`` otherwise (once per layout, kind and width:
    a config's claims share it; ``elems`` is read-only)."""
    acc = _default_access(smem, kind, elem_bits)
    acc.elems.setflags(write=False)
    return acc


def _default_access(smem: Subject, kind: str | AccessKind, elem_bits: int) -> Access:
    k = access_kind(kind)
    return matrix_access(smem, k, elem_bits) if k.is_matrix else vector_access(smem, k, elem_bits)


def row_access(rows: int, cols: int, elem_bits: int, kind: str = "lds32") -> Access:
    """Instruction ``i`` reads row ``i`` of a (rows, cols) tile, lane ``l`` column ``l`` (cols == 32 * vector)."""
    k = access_kind(kind)
    v = elems_per_address(k, elem_bits)
    if cols != 32 * v:
        raise LayoutError(f"row_access: {cols} columns are not 32 lanes x {v} elements")
    return access_from_fn(k, lambda i, l: _flat(i, l * v, rows), rows, elem_bits, f"rows of {rows}x{cols}")


def column_access(rows: int, cols: int, elem_bits: int, kind: str = "lds32") -> Access:
    """Instruction ``i`` reads column ``i`` of a (rows, cols) tile, lane ``l`` row ``l`` (rows == 32).

    Only single-element kinds make sense here (a column is not contiguous in a row-major tile).
    """
    if rows != 32:
        raise LayoutError(f"column_access: {rows} rows are not the 32 lanes of a warp")
    return access_from_fn(kind, lambda i, l: _flat(l, i, rows), cols, elem_bits, f"columns of {rows}x{cols}")
