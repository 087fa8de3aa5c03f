"""Hypothesis strategies for the pipeline semantics suite: stage counts (powers of two and not), K loop lengths,
stage sizes and alignments at and off the boundaries, and the formulas kernels write -- right, off by one stage, a
power-of-two mask on any stage count, a phase that starts on the wrong parity, a counter's bit."""

from __future__ import annotations

from hypothesis import strategies as st

STAGE = ["kb % S", "kb % {S}", "kb & ({S} - 1)", "(kb + 1) % S", "kb % ({S} - 1 + 1)", "kb % {Sm1}", "kb % {Sp1}",
         "(kb * 3) % S", "kb / 2 % S", "0"]
CONSUMER = ["(kb / S) % 2", "(kb / S) & 1", "(kb / {Sm1}) % 2", "(kb / S + 1) % 2", "((kb / S) & 1) ^ 1",
            "(kb / {Sp1}) % 2", "0", "kb % 2"]
PRODUCER = ["(kb / S + 1) % 2", "((kb / S) & 1) ^ 1", "(kb / S) % 2", "(kb / {Sm1} + 1) % 2", "1", "(kb + S) / S % 2"]


def _fill(f: str, s: int) -> str:
    return f.format(S=s, Sm1=max(1, s - 1), Sp1=s + 1)


@st.composite
def pipelines(draw) -> dict:
    s = draw(st.integers(1, 9))
    stage_bytes = draw(st.sampled_from([128, 512, 1024, 1536, 16384, 24576, 25088, 32768]))
    align = draw(st.sampled_from([16, 128, 1024]))
    base = draw(st.sampled_from([0, 0, 128, 1024, 512]))
    slack = draw(st.sampled_from([0, 0, 0, -stage_bytes, stage_bytes, -1]))
    return {"stages": s, "k_blocks": draw(st.integers(1, 48)), "stage_bytes": stage_bytes, "align": align,
            "base_address": base, "smem_bytes": max(1, base + s * stage_bytes + slack),
            "stage": _fill(draw(st.sampled_from(STAGE)), s),
            "consumer_phase": _fill(draw(st.sampled_from(CONSUMER)), s),
            "producer_phase": _fill(draw(st.sampled_from(PRODUCER)), s)}
