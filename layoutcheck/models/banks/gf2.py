"""Wavefronts by the GF(2) argument: for an XOR-linear word map, bank conflicts are a difference of two ranks.

If the word index ``W(x)`` of a phase (``x`` = the phase's lane bits plus the word-in-vector bits) is affine over
GF(2), ``W(x) = W(0) ^ M x``, the phase touches the words ``W(0) ^ span(M)`` and their banks are the low 5 bits.
Every bank then holds the same number of distinct words, ``2**(rank M - rank(M mod 32))``; the phase is
conflict-free iff the two ranks are equal (ranks by ``layoutcheck.algebra.gf2``). Worked example: ``lds32`` with
lane ``l`` at byte ``8*l`` has columns ``M = (2, 4, 8, 16, 32)``, rank 5, and ``M mod 32 = (2, 4, 8, 16, 0)``,
rank 4: 2 words per bank, 2 wavefronts.

The count agrees with ``layoutcheck.models.banks.model.wavefronts`` on phases and on merged groups
(``tests/models/test_banks.py``); the linear engine's ``conflict_free`` handler (``layoutcheck.engines.linear``)
uses it.
"""

from __future__ import annotations

import numpy as np

from layoutcheck.algebra.gf2 import rank
from layoutcheck.hw.banks import AccessKind, access_kind, bank_of_word, word


def _lane_words(kind: AccessKind, addrs: np.ndarray, group: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(n, groups, group*words) word indices and the active mask; groups of ``group`` lanes (default: phases)."""
    a = addrs[:, : kind.address_lanes]
    active = a >= 0
    w = word(np.where(active, a, 0))[:, :, None] + np.arange(kind.words)
    act = np.broadcast_to(active[:, :, None], w.shape)
    n, p = a.shape[0], kind.address_lanes // (group or kind.phase_lanes)
    return w.reshape(n, p, -1), act.reshape(n, p, -1)


def gf2_wavefronts(kind: str | AccessKind, addrs: np.ndarray, group: int = 0) -> int | None:
    """Worst wavefronts of one lane group (a phase; ``group`` lanes, e.g. a merged group) by the GF(2) argument, or
    ``None`` when the word map is not affine in the lane bits.

    If the word index ``W(x)`` (x = the group's lane bits plus the word-in-vector bits) is affine over GF(2), the
    words of a group are ``W(0) ^ span(M)`` and the banks their low 5 bits; every bank then holds the same number
    of distinct words, ``2**(rank M - rank(M mod 32))``; conflict-free <=> the two ranks are equal. Lanes that
    share an address (merged phases: ``addr[l] == addr[l ^ x]``) are a zero column and change no rank.
    Pre: ``addrs`` (instructions, 32), full groups, no inactive lane.
    """
    k = access_kind(kind)
    w, _ = _lane_words(k, np.asarray(addrs, dtype=np.int64), group)
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
    for c in set(map(tuple, cols.reshape(-1, bits).tolist())):  # each distinct column set once: same set, same ranks
        worst = max(worst, 1 << (rank(c) - rank([bank_of_word(x) for x in c])))
    return worst
