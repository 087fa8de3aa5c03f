"""The shared-memory traffic of a TTGIR module, operation by operation: what ``layoutcheck triton`` prints next to
its rows, and what the Nsight Compute section compares with the hardware's wavefront counters.

For every ``ttg.local_load`` / ``ttg.local_store`` / ``ttg.local_alloc`` (from registers) the copy is the one
``layoutcheck.properties.ttgir.copies`` models (``LinearConflictFree``: ld/st.shared vectors of the widest register
run contiguous in shared memory, at most 128 bits, the vector Triton's ``lowerLdStShared`` picks when it uses no
ldmatrix/stmatrix); here it is counted for *every* warp of the CTA, not only warp 0: by linearity, warp ``w`` reads
``offset(r, l, 0) XOR offset(0, 0, w)``, so its addresses are warp 0's XORed with one constant per warp, which a
swizzle may map to other banks. ``wavefronts`` is the sum over the warps' instructions of the bank model's
wavefronts (``layoutcheck.models.banks.model``), ``ideal`` the same sum without conflicts: the numbers one
execution of the operation costs one CTA.

A ``convert_layout`` through shared memory, and a copy the bank model does not cover, has ``wavefronts = None`` and a
``reason`` (never a guessed number).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutcheck.models.banks.model import ideal_batch, wavefronts_batch
from layoutcheck.properties.linear import LinearConflictFree, one_cta
from layoutcheck.properties.ttgir import NotModelled, convert_claims, copies


@dataclass(frozen=True, slots=True)
class Traffic:
    """One operation's shared-memory traffic per execution per CTA (``wavefronts`` ``None``: not modelled)."""

    line: int
    subject: str
    instruction: str = ""
    instructions: int = 0
    wavefronts: int | None = None
    ideal: int | None = None
    reason: str = ""

    @property
    def excess(self) -> int | None:
        return None if self.wavefronts is None or self.ideal is None else self.wavefronts - self.ideal


def warp_offsets(prop: LinearConflictFree) -> np.ndarray:
    """The shared offset (elements) every warp adds to warp 0's: ``inv(reg(warp = w))`` for each warp ``w``."""
    inv = one_cta(prop.shared).invert()
    reg = prop.reg.transpose_outs(inv.in_dims).with_in_dims(["register", "lane", "warp", "block"])
    to_off = reg.compose(inv)
    warps = to_off.in_dim_size("warp") if "warp" in to_off.in_dims else 1
    return np.array([to_off.apply({"warp": w})[0] for w in range(warps)], dtype=np.int64)


def copy_traffic(line: int, subject: str, prop: LinearConflictFree) -> Traffic:
    """The wavefronts of one register <-> shared copy over every warp of the CTA."""
    base = prop.addresses()  # (instructions, 32) byte addresses of warp 0
    k = prop.kind()
    eb = prop.elem_bits // 8
    got = best = 0
    for off in warp_offsets(prop):
        addrs = ((base // eb) ^ off) * eb
        got += int(wavefronts_batch(k, addrs).sum())
        best += int(ideal_batch(k, addrs).sum())
    n = base.shape[0] * len(warp_offsets(prop))
    return Traffic(line, subject, k.name, n, got, best)


def smem_traffic(text: str) -> list[Traffic]:
    """Every shared-memory data movement of a TTGIR module in line order, with its wavefronts where modelled."""
    out = []
    for c in copies(text) + convert_claims(text):
        if isinstance(c.prop, LinearConflictFree):
            out.append(copy_traffic(c.line, c.subject, c.prop))
        else:
            reason = c.prop.what if isinstance(c.prop, NotModelled) else "not modelled"
            out.append(Traffic(c.line, c.subject, reason=f"not modelled: {reason}"))
    return sorted(out, key=lambda t: t.line)


__all__ = ["Traffic", "copy_traffic", "smem_traffic", "warp_offsets"]
