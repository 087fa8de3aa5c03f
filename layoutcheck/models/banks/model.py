"""Shared-memory bank model: exact wavefront counts of one warp-wide instruction given its per-lane byte addresses.

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

``breakdown`` evaluates the definition lane by lane, one counted group (phase or merged group) at a time, and
``wavefronts`` is its sum (the reference; so the explanation and the count cannot disagree); ``wavefronts_batch`` is
the vectorised count tested against it. The model knows addresses only: access patterns over layouts are in
``layoutcheck.models.banks.access``, the claims about them in ``layoutcheck.properties.banks``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutcheck.errors import LayoutError
from layoutcheck.hw.banks import BANKS, AccessKind, access_kind, bank_of_word, word

_CHUNK = 1 << 12
"""Instructions per vectorised block of ``wavefronts_batch`` (bounds its temporaries to a few tens of MB)."""


def _check_shape(kind: AccessKind, addrs: Any) -> np.ndarray:
    """(n, 32) addresses; an instruction given only its ``kind.address_lanes`` addresses (ldmatrix ``.x1``: 8) gets
    the other lanes as inactive (-1), since the hardware ignores them."""
    a = np.asarray(addrs, dtype=np.int64)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim == 2 and a.shape[1] == kind.address_lanes < 32:
        a = np.concatenate([a, np.full((a.shape[0], 32 - a.shape[1]), -1, dtype=np.int64)], axis=1)
    if a.ndim != 2 or a.shape[1] != 32:
        lanes = f"32 (or the {kind.address_lanes} that carry addresses)" if kind.address_lanes < 32 else "32"
        raise LayoutError(f"{kind}: expected {lanes} per-lane byte addresses per instruction, found shape {a.shape}")
    return a


def first_misaligned(kind: str | AccessKind, addrs: Any) -> tuple[int, int, int] | None:
    """``(instruction, lane, address)`` of the first active lane whose address is not a multiple of the access size,
    or ``None``. A misaligned vector access faults on the GPU (PTX ISA: ld/st addresses are naturally aligned).

    >>> first_misaligned("lds64", [8 * l + (4 if l == 3 else 0) for l in range(32)])
    (0, 3, 28)
    """
    k = access_kind(kind)
    a = _check_shape(k, addrs)
    if k.bytes <= 1:
        return None
    act = a[:, : k.address_lanes]
    bad = ((act & (k.bytes - 1)) != 0) & (act >= 0)
    if not bad.any():
        return None
    i, lane = map(int, np.argwhere(bad)[0])
    return i, lane, int(act[i, lane])


def _check_aligned(kind: AccessKind, a: np.ndarray) -> None:
    """Every ACTIVE lane's address is a multiple of the access size (a power of two)."""
    bad = first_misaligned(kind, a)
    if bad is not None:
        raise LayoutError(f"{kind}: lane {bad[1]} address {bad[2]} is not {kind.bytes}-byte aligned")


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
    u >>= kind.unit_bytes.bit_length() - 1
    return u, kind.bank_groups


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


def _counts(kind: AccessKind, a: np.ndarray, m: np.ndarray | None = None) -> np.ndarray:
    """Wavefronts per instruction of aligned addresses ``a``; ``m``: their ``_merged`` flags, if already known."""
    units, groups = _units(kind, a)
    m = _merged(kind, a) if m is None else m
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
    return _ideal(k, a, _merged(k, a))


def _ideal(k: AccessKind, a: np.ndarray, merged: np.ndarray) -> np.ndarray:
    act = (a[:, : k.address_lanes] >= 0).reshape(a.shape[0], k.phases, k.phase_lanes).any(axis=-1).sum(axis=-1)
    return np.where(merged, max(1, k.address_lanes // (k.merge_group_lanes or 32)), act)


def wavefronts_and_ideal(kind: str | AccessKind, addrs: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(wavefronts_batch(kind, addrs), ideal_batch(kind, addrs))`` with one shape and alignment check and one
    merge test per block (what a claim over a few instructions pays per call, not their count).

    >>> [x.tolist() for x in wavefronts_and_ideal("lds64", [[8 * l for l in range(32)], [0] * 32])]
    [[2, 1], [2, 1]]
    """
    k = access_kind(kind)
    a = _check_shape(k, addrs)
    got = np.empty(a.shape[0], dtype=np.int64)
    best = np.empty(a.shape[0], dtype=np.int64)
    for s in range(0, a.shape[0], _CHUNK):
        part = a[s: s + _CHUNK]
        _check_aligned(k, part)
        m = _merged(k, part)
        got[s: s + _CHUNK] = _counts(k, part, m)
        best[s: s + _CHUNK] = _ideal(k, part, m)
    return got, best


def _bank_words(kind: AccessKind, a: np.ndarray, lanes: range) -> dict[int, dict[int, list[int]]]:
    """The definition, one lane at a time: bank -> word -> the lanes of ``lanes`` that touch it (active lanes)."""
    out: dict[int, dict[int, list[int]]] = {}
    for lane in lanes:
        if a[lane] < 0:
            continue
        for j in range(kind.words):
            w = word(int(a[lane])) + j
            out.setdefault(bank_of_word(w), {}).setdefault(w, []).append(lane)
    return out


def wavefronts(kind: str | AccessKind, byte_addrs: Any) -> int:
    """Wavefronts of one warp-wide instruction given its 32 per-lane byte addresses: the sum of its ``breakdown``.

    Per phase or merged group, the most distinct words in one bank (``breakdown``, itself tested against the
    lane-by-lane ``breakdown_reference``), so it is the reference that ``wavefronts_batch`` is tested against.
    Pre: addresses aligned to the access size; lanes beyond ``kind.address_lanes`` (ldmatrix ``.x1/.x2``) ignored.
    Post: the count the hardware reports in ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}``.

    >>> wavefronts("lds128", [128 * l for l in range(32)])
    32
    """
    return sum(p.wavefronts for p in breakdown(kind, byte_addrs))


def _groups(kind: AccessKind, a: np.ndarray) -> list[list[range]]:
    """Per instruction, the lane groups that are counted together: its phases, or its merged groups."""
    merged = _merged(kind, a)
    steps = [kind.merge_group_lanes if m else kind.phase_lanes for m in merged.tolist()]
    return [[range(s, s + step) for s in range(0, kind.address_lanes, step)] for step in steps]


def conflict_lanes(kind: str | AccessKind, byte_addrs: Any) -> np.ndarray:
    """(n, 32) bool: the lane touches a bank that holds more than one distinct word of its phase -- or of its merged
    group when the phases merge, the rule ``wavefronts`` counts by.

    Post: instruction ``i`` has a flagged lane iff ``wavefronts > ideal`` (every counted group ideally costs 1).

    >>> conflict_lanes("lds32", [8 * l for l in range(32)])[0, [0, 16]].tolist()
    [True, True]
    """
    k = access_kind(kind)
    a = _check_addrs(k, byte_addrs)
    out = np.zeros(a.shape, dtype=bool)
    for i, groups in enumerate(_groups(k, a)):
        for g in groups:
            for words in _bank_words(k, a[i], g).values():
                if len(words) > 1:
                    out[i, [lane for lanes in words.values() for lane in lanes]] = True
    return out


def ideal(kind: str | AccessKind, byte_addrs: Any) -> int:
    """Conflict-free wavefronts of the same instruction: ``wavefronts - ideal`` extra wavefronts are conflicts.

    >>> ideal("lds64", [8 * l for l in range(32)])
    2
    """
    return int(ideal_batch(kind, byte_addrs)[0])


class WavefrontExcess:
    """What a traffic record with ``wavefronts`` and ``ideal`` (either ``None`` when not counted) derives from them:
    ``excess``, the conflict wavefronts beyond the ideal (a mixin of the records of ``properties.ptx_smem`` and
    ``properties.ttgir_smem``)."""

    __slots__ = ()
    wavefronts: int | None
    ideal: int | None

    @property
    def excess(self) -> int | None:
        return None if self.wavefronts is None or self.ideal is None else self.wavefronts - self.ideal


@dataclass(frozen=True, slots=True)
class PhaseReport:
    """One counted lane group of one instruction -- a phase, or a merged group when the phases merge (module
    docstring) --: its lanes, wavefronts, and the worst bank with its distinct words and lanes."""

    phase: int
    lanes: tuple[int, ...]
    wavefronts: int
    bank: int
    words: tuple[int, ...]
    bank_lanes: tuple[int, ...]
    merged: bool = False

    @property
    def label(self) -> str:
        """``phase 1 (lanes 16-31)``, or ``merged group 0 (lanes 0-31)`` where the phases merged."""
        what = "merged group" if self.merged else "phase"
        return f"{what} {self.phase} (lanes {self.lanes[0]}-{self.lanes[-1]})"

    def __str__(self) -> str:
        return (f"{self.label}: {self.wavefronts} wavefront(s); bank {self.bank} holds {len(self.words)} distinct "
                f"words {list(self.words)} (byte {[4 * w for w in self.words]}) from lanes {list(self.bank_lanes)}")


def breakdown(kind: str | AccessKind, byte_addrs: Any) -> list[PhaseReport]:
    """Per counted lane group -- each phase, or each merged group when the phases merge, exactly the groups
    ``wavefronts`` sums over --: which lanes, how many wavefronts, and the bank whose distinct words collide most
    (lowest such bank).

    Post: ``sum(p.wavefronts for p in breakdown(k, a)) == wavefronts(k, a)``.

    >>> str(breakdown("lds32", [8 * l for l in range(32)])[0]).split(";")[0]
    'phase 0 (lanes 0-31): 2 wavefront(s)'
    >>> str(breakdown("lds64", [0] * 32)[0]).split(";")[0]
    'merged group 0 (lanes 0-31): 1 wavefront(s)'
    """
    k = access_kind(kind)
    a = _check_addrs(k, byte_addrs)[:1]
    merged = bool(_merged(k, a)[0])
    row = a[0]
    out = []
    for p, lanes in enumerate(_groups(k, a)[0]):
        lane = np.arange(lanes.start, lanes.stop)
        lane = lane[row[lane] >= 0]  # the active lanes
        words = (word(row[lane])[:, None] + np.arange(k.words)).ravel()  # every word each lane touches
        distinct = np.unique(words)  # sorted
        per_bank = np.bincount(bank_of_word(distinct), minlength=BANKS)
        worst = int(per_bank.max())
        bank = int(per_bank.argmax())  # the lowest bank with the most distinct words (0 when no lane is active)
        ws = distinct[bank_of_word(distinct) == bank] if worst else distinct[:0]
        hit = np.unique(np.repeat(lane, k.words)[bank_of_word(words) == bank]) if worst else lane[:0]
        out.append(PhaseReport(p, tuple(lanes), worst, bank, tuple(ws.tolist()), tuple(hit.tolist()), merged))
    return out


def breakdown_reference(kind: str | AccessKind, byte_addrs: Any) -> list[PhaseReport]:
    """``breakdown`` from the definition, one lane at a time (a dict of bank -> word -> lanes): the reference the
    vectorised ``breakdown`` is tested against (issue #29: the dicts were a third of a Triton bank claim's time)."""
    k = access_kind(kind)
    a = _check_addrs(k, byte_addrs)[:1]
    merged = bool(_merged(k, a)[0])
    out = []
    for p, lanes in enumerate(_groups(k, a)[0]):
        banks = _bank_words(k, a[0], lanes)
        worst = max((len(ws) for ws in banks.values()), default=0)
        bank = min((b for b, ws in banks.items() if len(ws) == worst), default=0)
        ws = banks.get(bank, {})
        hit = sorted({lane for ls in ws.values() for lane in ls})
        out.append(PhaseReport(p, tuple(lanes), worst, bank, tuple(sorted(ws)), tuple(hit), merged))
    return out
