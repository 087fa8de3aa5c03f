"""Shared-memory bank model: exact wavefront counts of one warp-wide instruction, access patterns, conflict proofs.

Definitions (facts and sources in ``layoutcheck.hw.banks``). A byte address ``a`` lies in the 4-byte *word*
``a // 4`` and the *bank* ``(a // 4) % 32``. An instruction's address-supplying lanes are cut into *phases* of
``phase_lanes`` consecutive lanes (32 for 8/16/32-bit ld/st, 16 for 64-bit, 8 for 128-bit, one 8x16 B matrix of 8
row addresses for ldmatrix/stmatrix). Each lane touches the ``words`` consecutive words of its access. Then::

    wavefronts(phase) = max over banks b of |{distinct words in bank b touched by the phase}|   (identical words
                        broadcast / merge; 0 for a phase with no active lane)
    wavefronts(instr) = sum over phases
    merging (64/128-bit LOADS only): if addr[l] == addr[l ^ x] for every lane l, for x = 1 or for x = 2, the
                        phases merge into groups of 32 (LDS.64) or 16 (LDS.128) lanes, each costing
                        max over banks of distinct words of the whole group

Merging is what the hardware showed (``docs/banks.md``): over 3768 random and structured 64/128-bit load patterns on
an H100 this rule matched every one (an all-lanes-same-address LDS.64 costs 1, LDS.128 2). Stores, ldmatrix and
stmatrix never merge (a uniform ``stsm``/``ldsm.x4`` costs 4, a uniform ``sts64`` 2). ``ideal`` is the same count
with no bank conflict (1 per non-empty phase, or 1 per merged group), so
``wavefronts - ideal`` is the number of extra wavefronts caused by bank conflicts.

Worked table (32-bit elements, ``lds32``): lane ``l`` at byte ``4*l*s``: s=1 -> 1, s=2 -> 2, s=32 -> 32, all at 0
-> 1. ``lds128`` lane ``l`` at ``16*l``: 4 phases x 1 = 4; at ``128*l``: 4 phases x 8 = 32.

An *access pattern* (``Access``) is a warp's sequence of instructions of one kind, given as the element indices
(into the domain of a shared-memory layout, colexicographic) that each lane touches in each instruction; a
``Layout``/``ComposedLayout`` in elements of ``elem_bits`` turns them into byte addresses. ``analyze`` runs every
instruction; ``conflict_free`` and ``wavefront_count`` are properties decided by the proof engines (exhaustive over
all instructions; a GF(2) rank argument for XOR-linear address maps, see ``gf2_wavefronts``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .errors import LayoutError
from .hw.banks import BANK_BYTES, BANKS, AccessKind, access_kind
from .inttuple import product
from .layout import Layout, size
from .properties import Decision, Property, Subject, as_subject, inner

_WORD_SHIFT = 40  # sort key = bank << 40 | word (words < 2**40)
_CHUNK = 1 << 15


# ------------------------------------------------------------------------------------------------------ the model
def _lane_words(kind: AccessKind, addrs: np.ndarray, group: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(n, groups, group*words) word indices and the active mask; groups of ``group`` lanes (default: phases)."""
    a = addrs[:, : kind.address_lanes]
    active = a >= 0
    w = (np.where(active, a, 0) // BANK_BYTES)[:, :, None] + np.arange(kind.words)
    act = np.broadcast_to(active[:, :, None], w.shape)
    n, p = a.shape[0], kind.address_lanes // (group or kind.phase_lanes)
    return w.reshape(n, p, -1), act.reshape(n, p, -1)


def _check_addrs(kind: AccessKind, addrs: Any) -> np.ndarray:
    a = np.asarray(addrs, dtype=np.int64)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or a.shape[1] != 32:
        raise LayoutError(f"{kind}: expected 32 per-lane byte addresses per instruction, found shape {a.shape}")
    act = a[:, : kind.address_lanes]
    align = kind.bytes
    bad = np.flatnonzero(((act % align) != 0).any(axis=1) & (act >= 0).all(axis=1)) if align > 1 else []
    if len(bad):
        lane = int(np.flatnonzero(act[bad[0]] % align)[0])
        raise LayoutError(f"{kind}: lane {lane} address {int(act[bad[0], lane])} is not {align}-byte aligned")
    return a


def _phase_counts(kind: AccessKind, addrs: np.ndarray, group: int = 0) -> np.ndarray:
    """(n, phases, 32): distinct words per bank per phase (or per group of ``group`` lanes)."""
    w, act = _lane_words(kind, addrs, group)
    n, p, _ = w.shape
    shift = 26 if int(w.max(initial=0)) < (1 << 26) else _WORD_SHIFT  # int32 keys sort twice as fast
    key = np.where(act, ((w % BANKS) << shift) | w, -1).astype(np.int32 if shift == 26 else np.int64)
    key.sort(axis=-1)
    new = np.empty_like(key, dtype=bool)
    new[..., 0] = key[..., 0] >= 0
    new[..., 1:] = (key[..., 1:] != key[..., :-1]) & (key[..., 1:] >= 0)
    bank = np.where(key >= 0, key >> shift, 0)
    slot = (np.arange(n * p).reshape(n, p, 1) * BANKS + bank)[new]
    return np.bincount(slot, minlength=n * p * BANKS).reshape(n, p, BANKS)


def _merged(kind: AccessKind, addrs: np.ndarray) -> np.ndarray:
    """(n,): the phases merge: ``addr[l] == addr[l ^ x]`` for every lane, one x of ``merge_lane_xor``, all active."""
    out = np.zeros(addrs.shape[0], dtype=bool)
    lanes = np.arange(32)
    for x in kind.merge_lane_xor:
        out |= (addrs == addrs[:, lanes ^ x]).all(axis=1)
    return out & (addrs >= 0).all(axis=1)


def _counts(kind: AccessKind, a: np.ndarray) -> np.ndarray:
    out = _phase_counts(kind, a).max(axis=-1).sum(axis=-1)
    m = _merged(kind, a)
    if m.any():
        out[m] = _phase_counts(kind, a[m], kind.merge_group_lanes).max(axis=-1).sum(axis=-1)
    return out


def wavefronts_batch(kind: str | AccessKind, addrs: Any) -> np.ndarray:
    """Wavefronts of each of ``n`` warp-instructions given as ``addrs[n, 32]`` byte addresses (-1: inactive lane).

    >>> wavefronts_batch("lds32", [[4 * l for l in range(32)], [8 * l for l in range(32)]]).tolist()
    [1, 2]
    """
    k = access_kind(kind)
    a = _check_addrs(k, addrs)
    out = np.empty(a.shape[0], dtype=np.int64)
    for s in range(0, a.shape[0], _CHUNK):
        part = a[s: s + _CHUNK]
        out[s: s + _CHUNK] = _counts(k, part)
    return out


def ideal_batch(kind: str | AccessKind, addrs: Any) -> np.ndarray:
    """Wavefronts each instruction would need with no bank conflict: 1 per phase with an active lane (1 if uniform)."""
    k = access_kind(kind)
    a = _check_addrs(k, addrs)
    act = (a[:, : k.address_lanes] >= 0).reshape(a.shape[0], k.phases, k.phase_lanes).any(axis=-1).sum(axis=-1)
    return np.where(_merged(k, a), max(1, k.address_lanes // (k.merge_group_lanes or 32)), act)


def wavefronts(kind: str | AccessKind, byte_addrs: Any) -> int:
    """Wavefronts of one warp-wide instruction given its 32 per-lane byte addresses.

    Pre: addresses aligned to the access size; lanes beyond ``kind.address_lanes`` (ldmatrix ``.x1/.x2``) ignored.
    Post: the count the hardware reports in ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}``.

    >>> wavefronts("lds128", [128 * l for l in range(32)])
    32
    """
    return int(wavefronts_batch(kind, byte_addrs)[0])


def ideal(kind: str | AccessKind, byte_addrs: Any) -> int:
    """Conflict-free wavefronts of the same instruction: ``wavefronts - ideal`` extra wavefronts are conflicts.

    >>> ideal("lds64", [8 * l for l in range(32)])
    2
    """
    return int(ideal_batch(kind, byte_addrs)[0])


@dataclass(frozen=True, slots=True)
class PhaseReport:
    """One phase of one instruction: its lanes, wavefronts, and the worst bank with its distinct words and lanes."""

    phase: int
    lanes: tuple[int, ...]
    wavefronts: int
    bank: int
    words: tuple[int, ...]
    bank_lanes: tuple[int, ...]

    def __str__(self) -> str:
        return (f"phase {self.phase} (lanes {self.lanes[0]}-{self.lanes[-1]}): {self.wavefronts} wavefront(s); "
                f"bank {self.bank} holds {len(self.words)} distinct words {list(self.words)} (byte "
                f"{[4 * w for w in self.words]}) from lanes {list(self.bank_lanes)}")


def breakdown(kind: str | AccessKind, byte_addrs: Any) -> list[PhaseReport]:
    """Per phase: which lanes, how many wavefronts, and the bank whose distinct words collide most.

    >>> str(breakdown("lds32", [8 * l for l in range(32)])[0]).split(";")[0]
    'phase 0 (lanes 0-31): 2 wavefront(s)'
    """
    k = access_kind(kind)
    a = _check_addrs(k, byte_addrs)[0]
    counts = _phase_counts(k, a[None])[0]
    out = []
    for p in range(k.phases):
        lanes = tuple(range(p * k.phase_lanes, (p + 1) * k.phase_lanes))
        bank = int(np.argmax(counts[p]))
        words: set[int] = set()
        blanes = []
        for lane in lanes:
            if a[lane] < 0:
                continue
            ws = [a[lane] // BANK_BYTES + j for j in range(k.words)]
            hit = [int(w) for w in ws if w % BANKS == bank]
            if hit:
                words.update(hit)
                blanes.append(lane)
        out.append(PhaseReport(p, lanes, int(counts[p].max()), bank, tuple(sorted(words)), tuple(blanes)))
    return out


# ------------------------------------------------------------------------------------------------ access patterns
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

    def __str__(self) -> str:
        return self.name or f"{self.kind} x{self.instructions}"


def elems_per_address(kind: AccessKind, elem_bits: int) -> int:
    """Elements covered by one lane address: ``kind.bytes * 8 / elem_bits`` (1 for a sub-element access)."""
    return max(1, kind.bytes * 8 // elem_bits)


def byte_addresses(smem: Subject, access: Access) -> np.ndarray:
    """(instructions, 32) byte addresses; raises if a lane's vector is not contiguous in memory or out of range.

    >>> acc = Access("lds32", np.arange(32)[None, :], 32)
    >>> byte_addresses(Layout(32, 2), acc)[0, :3].tolist()
    [0, 8, 16]
    """
    smem = as_subject(smem, "shared-memory layout")
    e = access.elems
    n = size(inner(smem))
    active = e >= 0
    if (e >= n).any():
        i, lane, j = map(int, np.argwhere(e >= n)[0])
        raise LayoutError(f"access {access}: instruction {i} lane {lane} touches element {e[i, lane, j]} outside "
                          f"the layout {smem} of size {n}")
    offs = smem.offsets()[np.where(active, e, 0)]
    step = (offs[:, :, 1:] - offs[:, :, :1]) != np.arange(1, e.shape[2])
    if (step & active[:, :, 1:]).any():
        i, lane, _ = map(int, np.argwhere(step & active[:, :, 1:])[0])
        raise LayoutError(f"access {access}: instruction {i} lane {lane}: elements {e[i, lane].tolist()} map to "
                          f"offsets {offs[i, lane].tolist()} in {smem}, not one contiguous vector")
    nbytes = access.elem_bits // 8 if access.elem_bits >= 8 else 1
    addr = offs[:, :, 0] * nbytes
    return np.where(active[:, :, 0], addr, -1)


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
    tree = parse_expr(expr)
    names = list(ranges)
    n = int(product(tuple(ranges.values()))) if names else 1

    def fn(i: np.ndarray, lane: np.ndarray) -> np.ndarray:
        env = {"lane": lane}
        rest = i
        for nm in names:
            env[nm] = rest % ranges[nm]
            rest = rest // ranges[nm]
        return eval_expr(tree, env)

    return access_from_fn(kind, fn, n, elem_bits, name or expr)


# ------------------------------------------------------------------------------- a small safe expression language
_BINARY: dict[str, tuple[int, Callable[[Any, Any], Any]]] = {
    "|": (1, np.bitwise_or), "^": (2, np.bitwise_xor), "&": (3, np.bitwise_and),
    "<<": (4, np.left_shift), ">>": (4, np.right_shift), "+": (5, np.add), "-": (5, np.subtract),
    "*": (6, np.multiply), "//": (6, np.floor_divide), "/": (6, np.floor_divide), "%": (6, np.mod),
}
_TOKENS = ("<<", ">>", "//", "+", "-", "*", "/", "%", "^", "&", "|", "~", "(", ")")


def _tokenize(text: str) -> list[tuple[str, int]]:
    from .errors import ParseError

    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c.isdigit():
            j = i
            while j < len(text) and (text[j].isalnum()):
                j += 1
            try:
                int(text[i:j], 0)
            except ValueError:
                raise ParseError(text, i, "bad integer") from None
            out.append((text[i:j], i))
            i = j
        elif c.isalpha() or c == "_":
            j = i
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1
            out.append((text[i:j], i))
            i = j
        else:
            tok = next((t for t in _TOKENS if text.startswith(t, i)), None)
            if tok is None:
                raise ParseError(text, i, f"unexpected character {c!r}")
            out.append((tok, i))
            i += len(tok)
    return out


def parse_expr(text: str) -> Any:
    """Parse an integer expression (Python precedence) into a tree of tuples; names are variables.

    >>> parse_expr("r ^ ((lane >> 3) & 3)")
    ('^', ('var', 'r'), ('&', ('>>', ('var', 'lane'), ('int', 3)), ('int', 3)))
    """
    from .errors import ParseError

    toks = _tokenize(text)
    pos = 0

    def peek() -> str | None:
        return toks[pos][0] if pos < len(toks) else None

    def where() -> int:
        return toks[pos][1] if pos < len(toks) else len(text)

    def unary() -> Any:
        nonlocal pos
        t = peek()
        if t is None:
            raise ParseError(text, where(), "expression ends early")
        pos += 1
        if t in ("-", "~", "+"):
            return ("neg" if t == "-" else "inv" if t == "~" else "pos", unary())
        if t == "(":
            e = binary(0)
            if peek() != ")":
                raise ParseError(text, where(), "expected ')'")
            pos += 1
            return e
        if t[0].isdigit():
            return ("int", int(t, 0))
        if t[0].isalpha() or t[0] == "_":
            return ("var", t)
        raise ParseError(text, toks[pos - 1][1], f"unexpected {t!r}")

    def binary(min_prec: int) -> Any:
        nonlocal pos
        left = unary()
        while (t := peek()) in _BINARY and _BINARY[t][0] > min_prec:
            pos += 1
            left = (t, left, binary(_BINARY[t][0]))
        return left

    tree = binary(0)
    if pos != len(toks):
        raise ParseError(text, where(), f"unexpected {peek()!r}")
    return tree


def eval_expr(tree: Any, env: Mapping[str, Any]) -> Any:
    """Evaluate a ``parse_expr`` tree on ints or NumPy int arrays.

    >>> int(eval_expr(parse_expr("(5 ^ (lane >> 3)) & 3"), {"lane": 9}))
    0
    """
    op = tree[0]
    if op == "int":
        return tree[1]
    if op == "var":
        if tree[1] not in env:
            raise LayoutError(f"expression uses unknown variable {tree[1]!r}; known: {', '.join(env)}")
        return env[tree[1]]
    if op in ("neg", "inv", "pos"):
        v = eval_expr(tree[1], env)
        return -v if op == "neg" else ~v if op == "inv" else v
    return _BINARY[op][1](eval_expr(tree[1], env), eval_expr(tree[2], env))


# ----------------------------------------------------------------------------------- canonical 2-D tile accesses
def _flat(m: Any, n: Any, rows: int) -> Any:
    """Colexicographic flat index of coordinate (m, n) in a (rows, cols) domain."""
    return m + rows * n


def _contiguous_mode(smem: Subject, elem_bits: int) -> tuple[int, int, int]:
    """(rows, cols, mode) of a rank-2 layout and which mode is contiguous in memory (offset step 1)."""
    lay = inner(smem)
    if len(lay) != 2:
        raise LayoutError(f"a canonical access needs a rank-2 (rows, cols) layout, found {smem}")
    rows, cols = size(lay[0]), size(lay[1])
    f = smem.offsets().reshape(cols, rows).T
    if rows > 1 and f[1, 0] - f[0, 0] == 1:
        return rows, cols, 0
    if cols > 1 and f[0, 1] - f[0, 0] == 1:
        return rows, cols, 1
    raise LayoutError(f"neither mode of {smem} is contiguous in memory (no stride-1 mode)")


def matrix_access(smem: Subject, kind: str | AccessKind, elem_bits: int) -> Access:
    """ldmatrix/stmatrix over every 8x16 B subtile of a rank-2 layout: 8 rows of 16 B along the contiguous mode.

    Matrices are taken in order (contiguous-mode chunk fastest), ``kind.matrices`` per instruction.

    >>> matrix_access(Layout((8, 64), (64, 1)), "ldsm_x4", 16).instructions
    2
    """
    k = access_kind(kind)
    if not k.is_matrix:
        raise LayoutError(f"matrix_access needs an ldmatrix/stmatrix kind, found {k}")
    rows, cols, mode = _contiguous_mode(as_subject(smem), elem_bits)
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
    rows, cols, mode = _contiguous_mode(as_subject(smem), elem_bits)
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


def default_access(smem: Subject, kind: str | AccessKind, elem_bits: int) -> Access:
    """``matrix_access`` for ldmatrix/stmatrix kinds, ``vector_access`` otherwise."""
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


# -------------------------------------------------------------------------------------------------- properties
def _as_access(smem: Subject, access: Access | str | AccessKind, elem_bits: int | None) -> Access:
    if isinstance(access, Access):
        return access
    if elem_bits is None:
        raise LayoutError(f"access {access!r} given by kind needs the element width (dtype_bits)")
    return default_access(smem, access, elem_bits)


def _instruction_report(prop: Any, i: int) -> dict[str, Any]:
    addrs = byte_addresses(prop.smem, prop.access)[i]
    rep = max(breakdown(prop.access.kind, addrs), key=lambda p: p.wavefronts)
    return {"kind": "conflict", "instruction": i, "phase": rep.phase, "bank": rep.bank, "words": list(rep.words),
            "lanes": list(rep.bank_lanes), "wavefronts": int(wavefronts(prop.access.kind, addrs)),
            "ideal": int(ideal(prop.access.kind, addrs))}


@dataclass(frozen=True, slots=True)
class ConflictFree(Property):
    """Every instruction of ``access`` on ``smem`` needs exactly its ideal wavefronts (no bank conflict)."""

    smem: Subject
    access: Access
    name: ClassVar[str] = "conflict_free"
    bytes_per_point: ClassVar[int] = 256

    def __post_init__(self) -> None:
        object.__setattr__(self, "smem", as_subject(self.smem, "shared-memory layout"))
        byte_addresses(self.smem, self.access)  # validates vectors and bounds at construction

    def subjects(self) -> tuple[Subject, ...]:
        return (self.smem,)

    def subject(self) -> str:
        return f"{self.smem}, {self.access}"

    def domain_size(self) -> int:
        return self.access.instructions * 32

    def exhaustive(self) -> Decision:
        an = analyze(self.smem, self.access)
        stats = {"instructions": an.instructions, "wavefronts": an.wavefronts, "ideal": an.ideal}
        if an.conflicts == 0:
            return Decision(True, None, stats)
        bad = int(np.flatnonzero(an.per_instruction > ideal_batch(self.access.kind,
                                                                  byte_addresses(self.smem, self.access)))[0])
        return Decision(False, _instruction_report(self, bad), stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        rep = _instruction_report(self, w["instruction"])
        return rep["wavefronts"] > rep["ideal"] and len(rep["words"]) > 1

    def explain(self, w: dict[str, Any]) -> str:
        k = self.access.kind
        return (f"instruction {w['instruction']}, phase {w['phase']}: lanes {w['lanes']} hit bank {w['bank']} with "
                f"{len(w['words'])} distinct words {w['words']} -> {w['wavefronts']} wavefronts (ideal {w['ideal']}, "
                f"{k})")


@dataclass(frozen=True, slots=True)
class WavefrontCount(Property):
    """The access needs exactly ``n`` wavefronts in total (or at most ``max``)."""

    smem: Subject
    access: Access
    n: int | None = None
    max: int | None = None
    name: ClassVar[str] = "wavefront_count"
    bytes_per_point: ClassVar[int] = 256

    def __post_init__(self) -> None:
        object.__setattr__(self, "smem", as_subject(self.smem, "shared-memory layout"))
        if (self.n is None) == (self.max is None):
            raise LayoutError("wavefront_count needs exactly one of n (exact total) or max (upper bound)")
        byte_addresses(self.smem, self.access)

    def subjects(self) -> tuple[Subject, ...]:
        return (self.smem,)

    def subject(self) -> str:
        bound = f"== {self.n}" if self.n is not None else f"<= {self.max}"
        return f"{self.smem}, {self.access}, {bound}"

    def domain_size(self) -> int:
        return self.access.instructions * 32

    def _total(self) -> int:
        return int(wavefronts_batch(self.access.kind, byte_addresses(self.smem, self.access)).sum())

    def _holds(self, t: int) -> bool:
        return t == self.n if self.n is not None else t <= (self.max or 0)

    def exhaustive(self) -> Decision:
        t = self._total()
        return Decision(True, None, {"wavefronts": t}) if self._holds(t) else Decision(False, {"kind": "count",
                                                                                                 "wavefronts": t})

    def recheck(self, w: dict[str, Any]) -> bool:
        return w["wavefronts"] == self._total() and not self._holds(w["wavefronts"])

    def explain(self, w: dict[str, Any]) -> str:
        want = f"exactly {self.n}" if self.n is not None else f"at most {self.max}"
        return f"{self.access} needs {w['wavefronts']} wavefronts, not {want}"


def conflict_free(smem: Any, access: Access | str | AccessKind, dtype_bits: int | None = None) -> ConflictFree:
    """The claim that ``access`` (an ``Access``, or a kind name for the canonical tile access) has no bank conflict.

    >>> from layoutcheck.prove import prove
    >>> prove(conflict_free(Layout((8, 64), (64, 1)), "ldsm_x4", 16)).status.value
    'REFUTED'
    """
    smem = as_subject(smem, "shared-memory layout")
    return ConflictFree(smem, _as_access(smem, access, dtype_bits))


def wavefront_count(smem: Any, access: Access | str | AccessKind, n: int | None = None, dtype_bits: int | None = None,
                    max: int | None = None) -> WavefrontCount:
    """The claim that ``access`` needs exactly ``n`` (or at most ``max``) wavefronts in total."""
    smem = as_subject(smem, "shared-memory layout")
    return WavefrontCount(smem, _as_access(smem, access, dtype_bits), n, max)


# ------------------------------------------------------------------------------------------- the GF(2) argument
def _gf2_rank(cols: list[int]) -> int:
    basis: list[int] = []
    for c in cols:
        for b in basis:
            c = min(c, c ^ b)
        if c:
            basis.append(c)
    return len(basis)


def gf2_wavefronts(kind: str | AccessKind, addrs: np.ndarray) -> int | None:
    """Per-phase wavefronts by the GF(2) argument, or ``None`` when the word map is not affine in the lane bits.

    If the word index ``W(x)`` (x = the phase's lane bits plus the word-in-vector bits) is affine over GF(2), the
    words of a phase are ``W(0) ^ span(M)`` and the banks their low 5 bits; every bank then holds the same number
    of distinct words, ``2**(rank M - rank(M mod 32))``; conflict-free <=> the two ranks are equal.
    Pre: ``addrs`` (instructions, 32), full phases, no inactive lane.
    """
    k = access_kind(kind)
    w, _ = _lane_words(k, np.asarray(addrs, dtype=np.int64))
    m = w.shape[-1]
    if m & (m - 1):
        return None
    bits = m.bit_length() - 1
    # column b = W(e_b) ^ W(0) over the flattened (lane, word) index; lanes are bits above the word bits
    order = np.arange(m)
    cols = w[..., [1 << b for b in range(bits)]] ^ w[..., :1]
    xor = np.zeros_like(w)
    for b in range(bits):
        xor ^= np.where((order >> b) & 1, cols[..., b: b + 1], 0)
    if ((w[..., :1] ^ xor) != w).any():
        return None
    worst = 0
    for c in cols.reshape(-1, bits):
        c = [int(x) for x in c]
        worst = max(worst, 1 << (_gf2_rank(c) - _gf2_rank([x % BANKS for x in c])))
    return worst


def _register_linear() -> None:
    try:
        from .engines.linear import LINEAR
    except ImportError:  # pragma: no cover - the engines package is optional at import time
        return
    from .properties import Undecided

    @LINEAR.handles(ConflictFree)
    def _conflict_free_gf2(prop: ConflictFree, limits: Any) -> Decision | Undecided:
        addrs = byte_addresses(prop.smem, prop.access)
        k = prop.access.kind
        if (addrs[:, : k.address_lanes] < 0).any():
            return Undecided("unsupported: inactive lanes")
        uni = _merged(k, addrs)
        per = gf2_wavefronts(k, addrs[~uni]) if (~uni).any() else 1
        if per is None:
            return Undecided("unsupported: the word address is not GF(2)-affine in the lane bits")
        stats = {"wavefronts_per_phase": per, "instructions": prop.access.instructions}
        if per == 1:
            return Decision(True, None, stats)
        bad = int(np.flatnonzero(~uni)[0])
        for i in range(bad, prop.access.instructions):
            rep = _instruction_report(prop, i)
            if rep["wavefronts"] > rep["ideal"]:
                return Decision(False, rep, stats)
        return Undecided("internal: GF(2) rank found a conflict the model did not")  # pragma: no cover


_register_linear()
