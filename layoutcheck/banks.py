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
from .hw.smem import SWIZZLE_SPAN_BYTES, SmemAtom, gmma_smem_atom
from .inttuple import product
from .layout import Layout, size
from .properties import Decision, Property, Subject, Undecided, as_subject, inner
from .swizzle import ComposedLayout, Swizzle

_CHUNK = 1 << 12
"""Instructions per vectorised block of ``wavefronts_batch`` (bounds its temporaries to a few tens of MB)."""


# ------------------------------------------------------------------------------------------------------ the model
def _lane_words(kind: AccessKind, addrs: np.ndarray, group: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(n, groups, group*words) word indices and the active mask; groups of ``group`` lanes (default: phases)."""
    a = addrs[:, : kind.address_lanes]
    active = a >= 0
    w = (np.where(active, a, 0) // BANK_BYTES)[:, :, None] + np.arange(kind.words)
    act = np.broadcast_to(active[:, :, None], w.shape)
    n, p = a.shape[0], kind.address_lanes // (group or kind.phase_lanes)
    return w.reshape(n, p, -1), act.reshape(n, p, -1)


def _check_shape(kind: AccessKind, addrs: Any) -> np.ndarray:
    a = np.asarray(addrs, dtype=np.int64)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or a.shape[1] != 32:
        raise LayoutError(f"{kind}: expected 32 per-lane byte addresses per instruction, found shape {a.shape}")
    return a


def _check_aligned(kind: AccessKind, a: np.ndarray) -> None:
    """Every ACTIVE lane's address is a multiple of the access size (a power of two)."""
    if kind.bytes > 1:
        act = a[:, : kind.address_lanes]
        bad = ((act & (kind.bytes - 1)) != 0) & (act >= 0)
        if bad.any():
            i, lane = map(int, np.argwhere(bad)[0])
            raise LayoutError(f"{kind}: lane {lane} address {int(act[i, lane])} is not {kind.bytes}-byte aligned")


def _check_addrs(kind: AccessKind, addrs: Any) -> np.ndarray:
    a = _check_shape(kind, addrs)
    _check_aligned(kind, a)
    return a


def _max_distinct(units: np.ndarray, blocks: int, groups: int) -> np.ndarray:
    """(n, blocks): per block of consecutive lanes, max over g of the distinct units ``u >= 0``, ``u % groups == g``.

    One sort per instruction of the key ``block | u % groups | u // groups`` (high to low bits; an inactive lane,
    ``u == -1``, gets its block's all-ones key and is never counted); then ``distinct`` flags (key != previous key),
    a running count of them restarted at every (block, group) segment start, and its maximum per block (blocks keep
    their ``lanes / blocks`` positions after the sort because the block is the key's top field).
    Pre: ``units`` int32 or int64, ``>= -1``; ``groups`` a power of two; ``blocks`` divides ``units.shape[1]``.
    """
    n, lanes = units.shape
    gb, pb = groups.bit_length() - 1, (blocks - 1).bit_length()
    hi = int(units.max(initial=0))
    dt, top = (np.int32, 31 - pb) if hi < 1 << 28 else (np.int64, 63 - pb)
    if (hi >> gb) >= (1 << (top - gb)) - 1:
        raise LayoutError(f"shared-memory address unit {hi} is too large for the bank model (at most 2**50 bytes)")
    u = units.astype(dt, copy=False)
    ones = dt((1 << top) - 1)
    key = u & (groups - 1)
    key <<= top - gb
    key |= u >> gb  # -1 >> gb == -1: all ones
    key &= ones
    key |= (np.arange(lanes, dtype=dt) // (lanes // blocks)) << top
    key.sort(axis=-1)
    f = key.ravel()
    new = np.empty(f.shape, dtype=bool)  # a distinct key (a new word of its bank)
    np.not_equal(f[1:], f[:-1], out=new[1:])
    new[::lanes] = True
    inactive = bool((u < 0).any())
    if inactive:
        new &= (f & ones) != ones
    seg = f >> (top - gb)
    start = np.empty(f.shape, dtype=bool)  # first key of a (block, bank group) segment
    np.not_equal(seg[1:], seg[:-1], out=start[1:])
    start[::lanes] = True
    run = np.cumsum(new, dtype=np.int32)
    base = run * start  # run at each segment start, then carried forward (run is nondecreasing)
    width = lanes // blocks
    if width > 16:
        np.maximum.accumulate(base, out=base)
    else:  # a segment is at most `width` long: log2(width) doubling steps beat the serial accumulate
        k = 1
        while k < width:
            np.maximum(base[k:], base[:-k], out=base[k:])
            k *= 2
    run -= base  # distinct keys of the segment so far, minus one (a segment starts with a distinct key)
    per = run.reshape(n * blocks, width)
    if width > 16:
        best = per.max(axis=1)
    else:  # a short inner axis reduces slowly: take the maximum column by column
        best = per[:, 0].copy()
        for j in range(1, width):
            np.maximum(best, per[:, j], out=best)
    best += 1
    if inactive:  # a block without any active lane needs no wavefront (its inactive run counted 1 above)
        best *= (units.reshape(n * blocks, width) >= 0).any(axis=1)
    return best.reshape(n, blocks)


def _units(kind: AccessKind, addrs: np.ndarray) -> tuple[np.ndarray, int]:
    """Per lane the index of its aligned ``max(bytes, 4)``-byte unit (-1: inactive) and the number of bank groups.

    An aligned unit of ``words`` words covers banks ``(u % groups) * words + j``, so per bank the distinct words are
    exactly the distinct units of its group: counting units per group is counting words per bank.
    """
    a = addrs[:, : kind.address_lanes]
    if int(a.max(initial=0)) < 1 << 31:
        a = a.astype(np.int32)
    u = np.maximum(a, -1)
    u >>= max(kind.bytes, BANK_BYTES).bit_length() - 1
    return u, BANKS // kind.words


def _merged(kind: AccessKind, addrs: np.ndarray) -> np.ndarray:
    """(n,): the phases merge: ``addr[l] == addr[l ^ x]`` for every lane, one x of ``merge_lane_xor``, all active."""
    n = addrs.shape[0]
    out = np.zeros(n, dtype=bool)
    if not kind.merge_lane_xor:
        return out
    first = np.zeros(n, dtype=bool)  # necessary condition at lane 0, cheap to test on every instruction
    for x in kind.merge_lane_xor:
        first |= addrs[:, 0] == addrs[:, x]
    cand = np.flatnonzero(first & (addrs[:, 0] >= 0))
    if not len(cand):
        return out
    a = addrs[cand]
    ok = np.zeros(len(cand), dtype=bool)
    for x in kind.merge_lane_xor:
        if x & (x - 1) == 0:  # lanes l, l ^ x are the two halves of a (32 / 2x, 2, x) reshape
            v = a.reshape(len(cand), 32 // (2 * x), 2, x)
            ok |= (v[:, :, 0] == v[:, :, 1]).all(axis=(1, 2))
        else:
            ok |= (a == a[:, np.arange(32) ^ x]).all(axis=1)
    out[cand] = ok & (a >= 0).all(axis=1)
    return out


def _counts(kind: AccessKind, a: np.ndarray) -> np.ndarray:
    units, groups = _units(kind, a)
    m = _merged(kind, a)
    parts = [(~m, kind.phases), (m, kind.address_lanes // (kind.merge_group_lanes or kind.address_lanes))]
    out = np.empty(a.shape[0], dtype=np.int64)
    for rows, blocks in parts:
        if rows.all():
            return _max_distinct(units, blocks, groups).sum(axis=-1, dtype=np.int64)
        if rows.any():
            out[rows] = _max_distinct(units[rows], blocks, groups).sum(axis=-1)
    return out


def wavefronts_batch(kind: str | AccessKind, addrs: Any) -> np.ndarray:
    """Wavefronts of each of ``n`` warp-instructions given as ``addrs[n, 32]`` byte addresses (-1: inactive lane).

    Post: ``wavefronts_batch(k, a)[i] == wavefronts(k, a[i])`` (vectorised; about 2 M instructions/s on one core).

    >>> wavefronts_batch("lds32", [[4 * l for l in range(32)], [8 * l for l in range(32)]]).tolist()
    [1, 2]
    """
    k = access_kind(kind)
    a = _check_shape(k, addrs)
    out = np.empty(a.shape[0], dtype=np.int64)
    for s in range(0, a.shape[0], _CHUNK):
        part = a[s: s + _CHUNK]
        _check_aligned(k, part)
        out[s: s + _CHUNK] = _counts(k, part)
    return out


def ideal_batch(kind: str | AccessKind, addrs: Any) -> np.ndarray:
    """Wavefronts each instruction would need with no bank conflict: 1 per phase with an active lane (1 if uniform)."""
    k = access_kind(kind)
    a = _check_addrs(k, addrs)
    act = (a[:, : k.address_lanes] >= 0).reshape(a.shape[0], k.phases, k.phase_lanes).any(axis=-1).sum(axis=-1)
    return np.where(_merged(k, a), max(1, k.address_lanes // (k.merge_group_lanes or 32)), act)


def _bank_words(kind: AccessKind, a: np.ndarray, lanes: range) -> dict[int, dict[int, list[int]]]:
    """The definition, one lane at a time: bank -> word -> the lanes of ``lanes`` that touch it (active lanes)."""
    out: dict[int, dict[int, list[int]]] = {}
    for lane in lanes:
        if a[lane] < 0:
            continue
        for j in range(kind.words):
            w = int(a[lane]) // BANK_BYTES + j
            out.setdefault(w % BANKS, {}).setdefault(w, []).append(lane)
    return out


def wavefronts(kind: str | AccessKind, byte_addrs: Any) -> int:
    """Wavefronts of one warp-wide instruction given its 32 per-lane byte addresses.

    Evaluated straight from the definition (per phase or merged group: a dict of bank -> distinct words), so it is
    the reference that ``wavefronts_batch`` is tested against.
    Pre: addresses aligned to the access size; lanes beyond ``kind.address_lanes`` (ldmatrix ``.x1/.x2``) ignored.
    Post: the count the hardware reports in ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}``.

    >>> wavefronts("lds128", [128 * l for l in range(32)])
    32
    """
    k = access_kind(kind)
    a = _check_addrs(k, byte_addrs)
    step = k.merge_group_lanes if bool(_merged(k, a[:1])[0]) else k.phase_lanes
    return sum(max((len(ws) for ws in _bank_words(k, a[0], range(s, s + step)).values()), default=0)
               for s in range(0, k.address_lanes, step))


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
    """Per phase: which lanes, how many wavefronts, and the bank whose distinct words collide most (lowest such bank).

    >>> str(breakdown("lds32", [8 * l for l in range(32)])[0]).split(";")[0]
    'phase 0 (lanes 0-31): 2 wavefront(s)'
    """
    k = access_kind(kind)
    a = _check_addrs(k, byte_addrs)[0]
    out = []
    for p in range(k.phases):
        lanes = range(p * k.phase_lanes, (p + 1) * k.phase_lanes)
        banks = _bank_words(k, a, lanes)
        worst = max((len(ws) for ws in banks.values()), default=0)
        bank = min((b for b, ws in banks.items() if len(ws) == worst), default=0)
        ws = banks.get(bank, {})
        hit = sorted({lane for ls in ws.values() for lane in ls})
        out.append(PhaseReport(p, tuple(lanes), worst, bank, tuple(sorted(ws)), tuple(hit)))
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

    >>> from layoutcheck.proving import prove
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


# ------------------------------------------------------------------------------- every base: stages, k-tiles
@dataclass(frozen=True, slots=True)
class ConflictFreeAtEveryBase(Property):
    """``access`` on ``smem`` is conflict-free at every base ``period * s`` (elements, ``0 <= s < bases``), the base
    added BEFORE the swizzle, as the hardware swizzles absolute smem addresses: stages, k-tiles and warps whose tiles
    sit at multiples of ``period`` in one buffer.

    Pre (checked; it keeps each lane's vector contiguous and aligned at every base, so one address per lane is
    exact): each lane's elements are consecutive pre-swizzle offsets starting at a multiple of the vector length
    ``v``; ``v`` divides ``2**M`` of ``Sw<B,M,S>``; ``period`` is a multiple of ``max(v, 2**M)``.
    """

    smem: Subject
    access: Access
    period: int
    bases: int
    name: ClassVar[str] = "conflict_free_at_every_base"
    bytes_per_point: ClassVar[int] = 256

    def __post_init__(self) -> None:
        object.__setattr__(self, "smem", as_subject(self.smem, "shared-memory layout"))
        byte_addresses(self.smem, self.access)
        e, v = self.access.elems, self.access.elems.shape[2]
        pre = self._pre_swizzle()
        m = v if self._swizzle().is_identity() else 1 << self._swizzle().base
        act = e[:, :, 0] >= 0
        steps = inner(self.smem).offsets()[np.where(e >= 0, e, 0)] - inner(self.smem).offsets()[np.where(
            e >= 0, e, 0)][:, :, :1]
        if ((steps != np.arange(v)) & act[:, :, None]).any() or ((pre % v != 0) & act).any() or m % v:
            raise LayoutError(f"{self.subject()}: each lane's {v} elements must be consecutive, {v}-aligned offsets "
                              f"before the swizzle, and {v} must divide 2**M = {m}")
        if self.bases < 1 or self.period <= 0 or self.period % max(v, m):
            raise LayoutError(f"{self.subject()}: period must be a positive multiple of {max(v, m)} elements and "
                              f"bases >= 1, found period {self.period}, bases {self.bases}")

    def _swizzle(self) -> Swizzle:
        return self.smem.swizzle if isinstance(self.smem, ComposedLayout) else Swizzle(0, 0, 0)

    def _pre_swizzle(self) -> np.ndarray:
        """(instructions, 32) pre-swizzle element offset of each lane's first element (-1: inactive)."""
        e = self.access.elems[:, :, 0]
        off = self.smem.offset if isinstance(self.smem, ComposedLayout) else 0
        return np.where(e >= 0, inner(self.smem).offsets()[np.where(e >= 0, e, 0)] + off, -1)

    def at(self, s: int) -> ConflictFree:
        """The concrete claim at base ``period * s``."""
        return ConflictFree(ComposedLayout(self._swizzle(), (self.smem.offset if isinstance(self.smem, ComposedLayout)
                                                             else 0) + self.period * s, inner(self.smem)), self.access)

    def subjects(self) -> tuple[Subject, ...]:
        return (self.smem,)

    def subject(self) -> str:
        return f"{self.smem}, {self.access}, base = {self.period}*s for s < {self.bases}"

    def domain_size(self) -> int:
        return self.bases * self.access.instructions * 32

    def exhaustive(self) -> Decision:
        pre, k = self._pre_swizzle(), self.access.kind
        eb = max(1, self.access.elem_bits // 8)
        s = np.arange(self.bases, dtype=np.int64)[:, None, None]
        addrs = np.where(pre >= 0, self._swizzle()(pre + self.period * s) * eb, -1).reshape(-1, 32)
        bad = np.flatnonzero(wavefronts_batch(k, addrs) > ideal_batch(k, addrs))
        if not len(bad):
            return Decision(True, None, {"bases": self.bases, "instructions": self.access.instructions})
        return Decision(False, {"kind": "base", "s": int(bad[0]) // self.access.instructions})

    def recheck(self, w: dict[str, Any]) -> bool:
        return 0 <= w["s"] < self.bases and not self.at(w["s"]).exhaustive().holds

    def explain(self, w: dict[str, Any]) -> str:
        c = self.at(w["s"])
        d = c.exhaustive()
        return f"at base {self.period}*{w['s']} = {self.period * w['s']} elements: " + c.explain(d.witness or {})

    def conflict_pairs(self) -> list[tuple[int, int]]:
        """The distinct pairs of pre-swizzle offsets of two address lanes of one phase (what can conflict)."""
        k, pre = self.access.kind, self._pre_swizzle()[:, : self.access.kind.address_lanes]
        ph = pre.reshape(-1, k.phase_lanes)
        i, j = np.triu_indices(k.phase_lanes, 1)
        pairs = np.stack([ph[:, i], ph[:, j]], axis=-1).reshape(-1, 2)
        pairs = pairs[(pairs >= 0).all(axis=1)]
        return sorted({(int(a), int(b)) for a, b in pairs if a != b})


def conflict_free_at_every_base(smem: Any, access: Access | str | AccessKind, period: int, bases: int,
                                dtype_bits: int | None = None) -> ConflictFreeAtEveryBase:
    """The claim that ``access`` is conflict-free on ``smem`` shifted by ``period * s`` (elements, before the
    swizzle) for every ``s < bases``; the z3 engine decides it with ``s`` symbolic.

    >>> from layoutcheck.proving import prove
    >>> from layoutcheck.swizzle import Swizzle
    >>> sw = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1)))  # Sw<3,4,3> on bytes, 8x128 B bf16
    >>> prove(conflict_free_at_every_base(sw, "ldsm_x4", 512, 1 << 12, 16), engine="z3").status.value
    'PROVEN'
    """
    smem = as_subject(smem, "shared-memory layout")
    return ConflictFreeAtEveryBase(smem, _as_access(smem, access, dtype_bits), period, bases)


def _z3_every_base(prop: ConflictFreeAtEveryBase, limits: Any) -> Decision | Undecided:
    """``exists s < bases, a pair of lanes of one phase: same bank group, different unit`` must be ``unsat``."""
    from .engines.z3_engine import _decide, _Query

    k = prop.access.kind
    if k.merge_lane_xor:
        return Undecided(f"unsupported: {k} phases may merge (measured rule), not encoded")
    sw, eb = prop._swizzle(), max(1, prop.access.elem_bits // 8)
    ub, groups = max(k.bytes, BANK_BYTES), BANKS // k.words
    pairs = prop.conflict_pairs()
    if not pairs:
        return Decision(True, None, {"pairs": 0})
    top = prop.period * prop.bases + max(max(p) for p in pairs) + 1
    width = max(top.bit_length(), sw.yyy_mask.bit_length(), sw.zzz_mask.bit_length()) + eb.bit_length() + 3
    q = _Query(width, limits)
    z3, s = q.z3, q.var("s", prop.bases)
    x = s * q.const(prop.period)

    def unit(o: int) -> Any:
        y = x + q.const(o)
        hi = y & q.const(sw.yyy_mask)
        y = y ^ (z3.LShR(hi, sw.shift) if sw.shift >= 0 else hi << -sw.shift)
        return z3.UDiv(y * q.const(eb), q.const(ub))

    units = {o: unit(o) for o in {o for p in pairs for o in p}}
    g = q.const(groups - 1)
    q.solver.add(z3.Or([z3.And(units[a] & g == units[b] & g, units[a] != units[b]) for a, b in pairs]))
    return _decide(q, [s], lambda v: {"kind": "base", "s": v["s"]}, {"pairs": len(pairs)})


def _register_z3() -> None:
    try:
        from .engines import load_builtin

        load_builtin()  # the built-in engines in their ``auto`` order first (importing z3_engine alone would
        from .engines.z3_engine import Z3  # register z3 ahead of the exhaustive engine)
    except ImportError:  # pragma: no cover - the engines package is optional at import time
        return
    Z3.handles(ConflictFreeAtEveryBase)(_z3_every_base)


# ------------------------------------------------------------- seed 003 section 5: which atom, and GMEM runs
_SELECTOR_ORDER = ("SW128", "SW64", "SW32", "INTER")
"""Largest first, as CUTLASS tries them: ``include/cutlass/gemm/collective/builders/sm90_common.inl``
(``ss_smem_selector``) and ``sm100_common.inl`` (``sm100_smem_selector``, the same rule for 8/16-bit and K-major;
its MN-major 32-bit case, ``Layout_MN_SW128_32B_Atom`` only, is an SM100 atom not modelled here)."""

SECTOR_BYTES = 32
"""Global memory is moved in 32-byte sectors (CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory")."""

LINE_BYTES = 128
"""An L1 cache line (same guide; Nsight "Memory Statistics - Global"): 4 sectors."""


def choose_smem_atom(major: str, dtype_bits: int, contiguous_extent_elems: int) -> SmemAtom:
    """The GMMA smem atom CUTLASS's builders pick: the largest one whose width DIVIDES the tile's contiguous extent.

    Pre: ``contiguous_extent_elems`` (BLK_K for K-major, BLK_MN for MN-major, in elements) is a positive multiple of
    8 (CUTLASS ``static_assert``) and of the INTER atom's width (16 bytes).
    Post: ``contiguous_extent_elems % width == 0`` for the result's contiguous width, and no larger mode divides.

    >>> choose_smem_atom("K", 16, 96).mode  # 192 bytes: 128 does not divide 192, 64 does
    'SW64'
    """
    if contiguous_extent_elems <= 0 or contiguous_extent_elems % 8:
        raise LayoutError(f"contiguous extent {contiguous_extent_elems} elements: CUTLASS's smem selector needs a "
                          "positive multiple of 8")
    for mode in _SELECTOR_ORDER:
        atom = gmma_smem_atom(major, mode, dtype_bits)
        if contiguous_extent_elems % _contiguous_width(atom) == 0:
            return atom
    raise LayoutError(f"contiguous extent {contiguous_extent_elems} {dtype_bits}-bit elements is not a multiple of "
                      f"the {SWIZZLE_SPAN_BYTES['INTER']}-byte INTER atom width ({_contiguous_width(atom)} elements)")


def _contiguous_width(atom: SmemAtom) -> int:
    """Elements of the atom along its contiguous mode (K for K-major, MN for MN-major)."""
    rows, cols = atom.layout.shape
    return cols if atom.major == "K" else rows


@dataclass(frozen=True, slots=True)
class GmemRuns:
    """What GMEM a warp reads to fill ``warp_bytes`` consecutive smem bytes of a swizzled atom (one ``st.shared``
    per lane, conflict-free), every such copy of the atom: contiguous GMEM runs (bytes), 32-byte sectors and
    128-byte lines per copy. GMEM is the same tile unswizzled (same major-ness, rows ``pitch`` bytes apart, rows and
    the tile 128-byte aligned, ``pitch`` > atom width so rows are not adjacent)."""

    atom: SmemAtom
    warp_bytes: int
    runs: tuple[int, ...]
    sectors: int
    lines: int

    @property
    def request_bytes(self) -> int:
        """The seed's "GMEM request size": the shortest contiguous GMEM run behind one warp copy."""
        return min(self.runs)

    @property
    def sector_efficiency(self) -> float:
        """Useful bytes / bytes of the 32-byte sectors the warp copy touches (1.0: no sector partly wasted)."""
        return self.warp_bytes / (self.sectors * SECTOR_BYTES)


def gmem_runs(atom: SmemAtom, warp_bytes: int = 128, pitch_bytes: int = 1 << 16) -> GmemRuns:
    """GMEM runs, sectors and lines behind each warp copy of ``warp_bytes`` consecutive bytes of ``atom``'s smem.

    Computed from the layout: smem offset -> (row, contiguous coordinate) by inverting ``atom.composed``, then GMEM
    byte ``row * pitch + coordinate * e``. Pre: ``warp_bytes`` divides the atom's bytes; ``pitch_bytes`` a multiple
    of 128 larger than the atom width.

    >>> gmem_runs(choose_smem_atom("K", 16, 32), 128).request_bytes  # K = 64 bytes of bf16: SW64, 64-byte runs
    64
    """
    e = atom.dtype_bits // 8
    n = size(atom.layout)
    if warp_bytes <= 0 or (n * e) % warp_bytes or warp_bytes % e:
        raise LayoutError(f"{atom.name}: a warp copy of {warp_bytes} bytes does not tile the {n * e}-byte atom")
    if pitch_bytes % LINE_BYTES or pitch_bytes <= atom.span_bytes:
        raise LayoutError(f"GMEM pitch {pitch_bytes} bytes: expected a multiple of {LINE_BYTES} larger than the "
                          f"{atom.span_bytes}-byte atom row")
    rows, _ = atom.layout.shape
    idx = np.argsort(atom.composed.offsets())  # smem element offset -> domain index (the atom is a bijection)
    r, c = idx % rows, idx // rows
    line, pos = (r, c) if atom.major == "K" else (c, r)
    gaddr = (line * pitch_bytes + pos * e).reshape(-1, warp_bytes // e)
    runs: list[int] = []
    sectors = lines = 0
    for g in np.sort(gaddr, axis=1):
        breaks = np.flatnonzero(np.diff(g) != e)
        runs += (np.diff(np.r_[-1, breaks, len(g) - 1]) * e).tolist()
        sectors = max(sectors, len(np.unique(g // SECTOR_BYTES)))
        lines = max(lines, len(np.unique(g // LINE_BYTES)))
    return GmemRuns(atom, warp_bytes, tuple(sorted(set(runs))), sectors, lines)


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
_register_z3()
