"""The shared-memory traffic of a TTGIR module, operation by operation: what ``layoutcheck triton`` prints next to
its rows, and what the Nsight Compute section compares with the hardware's wavefront counters.

For every ``ttg.local_load`` / ``ttg.local_store`` / ``ttg.local_alloc`` (from registers) the copy is counted as
Triton's ``lowerLdStShared`` emits it: broadcast registers dropped, ld/st.shared vectors of the width
``largestVectorisation`` picks (``triton_vector``), the remaining register bases enumerating the instructions, for
*every* warp of the CTA: by linearity warp ``w`` accesses ``offset(r, l, 0) XOR offset(0, 0, w)``, one constant per
warp, which a swizzle may move to other banks. ``wavefronts`` is the sum over the warps' instructions of the bank
model's wavefronts (``layoutcheck.models.banks.model``), ``ideal`` the same sum without conflicts: what one execution
of the operation costs one CTA.

A copy of an MMA register layout (``#ttg.dot_op``, ``#ttg.nvidia_mma``), which Triton lowers with ldmatrix /
stmatrix where it can, a ``convert_layout`` through shared memory, and a copy the bank model does not cover, have
``wavefronts = None`` and a ``reason`` (never a guessed number).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutcheck.hw.banks import access_kind
from layoutcheck.importers.triton import parse_attr, parse_ttgir
from layoutcheck.models.banks.model import WavefrontExcess, ideal_batch, wavefronts_batch
from layoutcheck.properties.linear import LinearConflictFree, one_cta
from layoutcheck.properties.ttgir import NotModelled, convert_claims, copies, scratch_claims, unmodelled_claims


@dataclass(frozen=True, slots=True)
class Traffic(WavefrontExcess):
    """One operation's shared-memory traffic per execution per CTA (``wavefronts`` ``None``: not modelled)."""

    line: int
    subject: str
    instruction: str = ""
    instructions: int = 0
    wavefronts: int | None = None
    ideal: int | None = None
    reason: str = ""


def _offset_bases(prop: LinearConflictFree) -> dict[str, list[int]]:
    """Each input basis of the register layout as a shared offset (elements) of one CTA: ``inv(reg(basis))``."""
    inv = one_cta(prop.shared).invert()
    reg = prop.reg.transpose_outs(inv.in_dims).with_in_dims(["register", "lane", "warp", "block"])
    to_off = reg.compose(inv)
    return {name: [b[0] for b in bs] for name, bs in to_off.in_bases if name != "block"}


def triton_vector(bases: dict[str, list[int]], elem_bits: int) -> tuple[int, list[int]]:
    """Triton's ld/st.shared vector (``largestVectorisation``, ``lib/Conversion/TritonGPUToLLVM/Utility.cpp``) and
    the register bases left to enumerate instructions.

    Broadcast registers (zero bases) are dropped first (``actionRemoveBroadcastedRegs``); the vector is the largest
    ``v = 2^k <= 128 / elem_bits`` such that the register -> offset map divides on the left by ``identity(v)`` up
    to a permutation of registers (``regPermForDivide``): some register basis is offset ``2^j`` for each ``j < k``,
    and every other basis (register, lane, warp) leaves the low ``k`` offset bits zero.
    """
    regs = [b for b in bases.get("register", []) if b]
    others = bases.get("lane", []) + bases.get("warp", [])
    v = max(1, 128 // elem_bits)
    while v > 1:
        k = v.bit_length() - 1
        picked = [next((i for i, b in enumerate(regs) if b == 1 << j), None) for j in range(k)]
        if None not in picked:
            rest = [b for i, b in enumerate(regs) if i not in picked]
            if all(b & (v - 1) == 0 for b in rest + others):
                return v, rest
        v //= 2
    return 1, regs


def _span(bases: list[int]) -> np.ndarray:
    out = np.zeros(1, dtype=np.int64)
    for b in bases:
        out = np.concatenate([out, out ^ b])
    return out


def copy_traffic(line: int, subject: str, prop: LinearConflictFree) -> Traffic:
    """The wavefronts of one register <-> shared copy as Triton lowers it (``triton_vector``), over every warp."""
    bases = _offset_bases(prop)
    if len(bases.get("lane", [])) != 5:
        return Traffic(line, subject, reason="not modelled: the bank model needs 32 lanes")
    v, rest = triton_vector(bases, prop.elem_bits)
    k = access_kind(f"{'lds' if prop.op == 'ld' else 'sts'}{v * prop.elem_bits}")
    lanes = _span(bases["lane"])  # lane l's offset, lane 0 first
    per_instruction = _span(rest)[:, None] ^ lanes[None, :]
    got = best = 0
    warps = _span(bases.get("warp", []))
    for w in warps:
        addrs = (per_instruction ^ w) * (prop.elem_bits // 8)
        got += int(wavefronts_batch(k, addrs).sum())
        best += int(ideal_batch(k, addrs).sum())
    return Traffic(line, subject, k.name, per_instruction.shape[0] * warps.size, got, best)


_MATRIX_ENCODINGS = ("ttg.dot_op", "ttg.nvidia_mma")
_MATRIX_REASON = ("not modelled: Triton lowers a copy of an MMA register layout with ldmatrix/stmatrix where the "
                  "layouts allow it (lowerLdStMatrix), else with ld/st.shared")


def smem_traffic(text: str) -> list[Traffic]:
    """Every shared-memory data movement of a TTGIR module in line order, with its wavefronts where modelled."""
    aliases = parse_ttgir(text).aliases
    out = []
    for c in copies(text) + convert_claims(text) + scratch_claims(text) + unmodelled_claims(text):
        reg = c.subject.split(" ", 1)[1].split(" <-> ")[0] if " <-> " in c.subject else ""
        if isinstance(c.prop, LinearConflictFree) and parse_attr(reg, aliases).kind in _MATRIX_ENCODINGS:
            out.append(Traffic(c.line, c.subject, reason=_MATRIX_REASON))
        elif isinstance(c.prop, LinearConflictFree):
            out.append(copy_traffic(c.line, c.subject, c.prop))
        else:
            reason = c.prop.what if isinstance(c.prop, NotModelled) else "not modelled"
            out.append(Traffic(c.line, c.subject, reason=f"not modelled: {reason}"))
    return sorted(out, key=lambda t: t.line)


__all__ = ["Traffic", "copy_traffic", "smem_traffic", "triton_vector"]
