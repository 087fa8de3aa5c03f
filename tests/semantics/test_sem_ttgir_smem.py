"""Semantics of the shared-memory rows of ``layoutcheck triton``: ``cvt_path`` (which ``convert_layout`` Triton
lowers through shared memory) and ``copy_traffic`` (the wavefronts of a ``local_load`` / ``local_store``), against
naive oracles written from the authorities and sharing no code with ``layoutcheck.properties`` / ``.models``.

Authorities: Triton's ``minimalCvtLayout`` / ``cvtNeedsSharedMemory`` (``lib/Analysis/Utility.cpp``: the conversion
quotients ``block``, then ``warp``, then ``lane``; what cannot be quotiented is exchanged), read as: a dimension
needs no exchange iff each of its holders in the destination needs only elements the same holder has in the
source. Triton's ``lowerLdStShared`` / ``largestVectorisation`` (``lib/Conversion/TritonGPUToLLVM/Utility.cpp``):
broadcast registers dropped, the widest ``v <= 128 bits`` whose ``v`` consecutive offsets are register bits that
every other bit leaves aligned, the other register bits numbering the instructions. The CUDA Programming Guide's
banks (32 banks of 4-byte words; 64-bit accesses per half-warp, 128-bit per quarter-warp; lanes reading one word
share it) and ``docs/banks.md``'s measured merge rule, as in ``test_sem_banks.py``.

The layouts are read by ``layoutcheck.importers.triton`` (reading input is allowed); everything after -- inverting
the shared layout, the vector, the addresses, the wavefronts -- is computed here point by point.
"""

from __future__ import annotations

from hypothesis import given, settings

from layoutcheck.importers.triton import from_triton
from layoutcheck.properties.linear import LinearConflictFree
from layoutcheck.properties.ttgir import cvt_path
from layoutcheck.properties.ttgir_smem import copy_traffic
from tests.strategies_sem_ttgir_smem import conversions, copies

BANKS, WORD = 32, 4


def _holders(ll, level: str) -> dict[tuple, set]:
    """holder (its block, warp and, for ``lane``, lane) -> the set of tensor coordinates it holds."""
    sizes = {n: 1 << len(bs) for n, bs in ll.in_bases}
    out: dict[tuple, set] = {}
    for w in range(sizes.get("warp", 1)):
        for ln in range(sizes.get("lane", 1)):
            key = (w,) if level == "warp" else (w, ln)
            for r in range(sizes.get("register", 1)):
                out.setdefault(key, set()).add(ll.apply({"register": r, "lane": ln, "warp": w}))
    return out


def naive_path(src, dst) -> str:
    for level in ("warp", "lane"):
        s, d = _holders(src, level), _holders(dst, level)
        if any(not d[k] <= s.get(k, set()) for k in d):
            return "shared" if level == "warp" else "lanes"
    return "registers"


@settings(max_examples=25)
@given(conversions())
def test_cvt_path_equals_the_naive_holder_sets(case):
    shape, a, b = case
    assert cvt_path(from_triton(a, list(shape)), from_triton(b, list(shape))) == naive_path(
        from_triton(a, list(shape)), from_triton(b, list(shape)))


def _cost(nbytes: int, op: str, addrs: list[int]) -> tuple[int, int]:
    per_phase = {8: 16, 16: 8}.get(nbytes, 32)
    merged = any(all(addrs[ln] == addrs[ln ^ x] for ln in range(32)) for x in (1, 2))
    if op == "ld" and nbytes > WORD and merged:
        per_phase = {8: 32, 16: 16}[nbytes]
    total = ideal = 0
    for g in range(0, 32, per_phase):
        banks: dict[int, set[int]] = {}
        for ln in range(g, g + per_phase):
            a = addrs[ln]
            for w in range(a // WORD, (a + nbytes - 1) // WORD + 1):
                banks.setdefault(w % BANKS, set()).add(w)
        total += max(len(ws) for ws in banks.values())
        ideal += 1
    return total, ideal


def naive_traffic(reg, shared, bits: int, op: str) -> tuple[str, int, int, int]:
    """(instruction, instructions, wavefronts, ideal) of the copy over every warp of the CTA."""
    sizes = {n: 1 << len(bs) for n, bs in reg.in_bases}
    inv = {shared.apply({"offset": o}): o for o in range(1 << len(dict(shared.in_bases)["offset"]))}

    def off(r: int, ln: int, w: int) -> int:
        return inv[reg.apply({"register": r, "lane": ln, "warp": w})]

    o0 = off(0, 0, 0)
    rbits = [off(1 << j, 0, 0) ^ o0 for j in range(len(dict(reg.in_bases).get("register", [])))]
    others = [off(0, 1 << j, 0) ^ o0 for j in range(5)] + [off(0, 0, 1 << j) ^ o0 for j in
                                                           range(len(dict(reg.in_bases).get("warp", [])))]
    live = [j for j, b in enumerate(rbits) if b]
    v, chosen = 128 // bits, []
    while v > 1:
        k = v.bit_length() - 1
        picks = [next((j for j in live if rbits[j] == 1 << i), None) for i in range(k)]
        rest = [rbits[j] for j in live if j not in picks]
        if None not in picks and all(x % v == 0 for x in rest + others):
            chosen = picks
            break
        v //= 2
    loop = [j for j in live if j not in chosen]
    nbytes = v * bits // 8
    total = ideal = count = 0
    for w in range(sizes.get("warp", 1)):
        for i in range(1 << len(loop)):
            r = sum(1 << loop[t] for t in range(len(loop)) if i >> t & 1)
            addrs = [off(r, ln, w) * (bits // 8) for ln in range(32)]
            t_, i_ = _cost(nbytes, op, addrs)
            total, ideal, count = total + t_, ideal + i_, count + 1
    return f"{'lds' if op == 'ld' else 'sts'}{v * bits}", count, total, ideal


@settings(max_examples=12)
@given(copies())
def test_copy_traffic_equals_the_naive_wavefronts(case):
    shape, bits, reg_text, smem_text = case
    reg, smem = from_triton(reg_text, list(shape)), from_triton(smem_text, list(shape))
    for op in ("ld", "st"):
        t = copy_traffic(0, "", LinearConflictFree(reg, smem, bits, op))
        assert (t.instruction, t.instructions, t.wavefronts, t.ideal) == naive_traffic(reg, smem, bits, op)


def test_an_unaligned_register_run_is_no_vector():
    """Two registers at consecutive offsets on even rows but swapped on odd rows (the swizzle flips offset bit 0):
    no lane's pair is one aligned 64-bit vector, so Triton stores element by element (``sts32``); the in-order rule
    alone (registers 0, 1 at offsets 0, 1) would claim ``sts64`` and address misaligned vectors."""
    reg = from_triton("#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], "
                      "order = [1, 0]}>", [128, 2])
    smem = from_triton("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 2, order = [1, 0]}>", [128, 2])
    assert naive_traffic(reg, smem, 32, "st")[0] == "sts32"  # the swizzle flips offset bit 0 on odd rows
    assert copy_traffic(0, "", LinearConflictFree(reg, smem, 32, "st")).instruction == "sts32"
    assert LinearConflictFree(reg, smem, 32, "st").vec() == 1
