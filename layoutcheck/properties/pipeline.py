"""``pipeline_protocol``: a multi-stage pipeline's stage and mbarrier-phase bookkeeping is right for every K loop up
to ``k_blocks`` k-blocks (``layoutcheck.models.pipeline`` says what "right" is and what is assumed).

For each k-block ``kb`` in order, the first rule it breaks is the witness (so the smallest K loop that goes wrong is
``kb + 1`` k-blocks):

- ``stage``: the stage is outside ``0 .. S-1``;
- ``bounds`` / ``align``: its buffer ``base + stage * stage_bytes`` leaves the allocation or is not aligned;
- ``consumer_phase``: the consumer waits on a parity other than ``uses % 2`` (``uses``: earlier k-blocks on that
  stage) -- it reads the buffer before the fill lands;
- ``producer_phase``: the producer waits on a parity other than ``(uses + 1) % 2`` -- on a first use it deadlocks
  (parity 0 waits for a release that never comes), on a reuse it overwrites the buffer the consumer still reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.models.pipeline import Pipeline
from layoutcheck.properties.base import Decision, Property
from layoutcheck.witness_paths import PipelineStep

RULES = ("stage", "bounds", "align", "consumer_phase", "producer_phase")


@dataclass(frozen=True, eq=False)
class PipelineProtocol(Property):
    """Every k-block ``kb < k_blocks`` of ``pipeline`` uses an in-range, in-bounds, aligned stage buffer and waits
    on the mbarrier parities its stage's history demands (module docstring)."""

    pipeline: Pipeline
    name: ClassVar[str] = "pipeline_protocol"

    def subjects(self) -> tuple[Any, ...]:
        return ()

    def subject(self) -> str:
        p = self.pipeline
        return (f"{p.stages} stages x {p.stage_bytes} B from byte {p.base} of {p.smem_bytes} B, K loops up to "
                f"{p.k_blocks} k-blocks; stage = {p.stage}, consumer_phase = {p.consumer_phase}, producer_phase = "
                f"{p.producer_phase}")

    def domain_size(self) -> int:
        return self.pipeline.k_blocks

    def _broken(self) -> dict[str, np.ndarray]:
        p, t = self.pipeline, self.pipeline.table
        inside = (t["stage"] >= 0) & (t["stage"] < p.stages)
        return {"stage": ~inside,
                "bounds": inside & ((t["address"] < 0) | (t["address"] + p.stage_bytes > p.smem_bytes)),
                "align": inside & (t["address"] % p.align != 0),
                "consumer_phase": t["consumer_phase"] != t["uses"] % 2,
                "producer_phase": t["producer_phase"] != (t["uses"] + 1) % 2}

    def exhaustive(self) -> Decision:
        broken = self._broken()
        stats = {"k_blocks": self.pipeline.k_blocks}
        first = [(int(np.flatnonzero(broken[r])[0]), i) for i, r in enumerate(RULES) if broken[r].any()]
        if not first:
            return Decision(True, None, stats)
        kb, i = min(first)
        return Decision(False, self._witness(kb, RULES[i]), stats)

    def _witness(self, kb: int, rule: str) -> PipelineStep:
        t = self.pipeline.table
        return PipelineStep(rule=rule, kb=kb, stage=int(t["stage"][kb]), uses=int(t["uses"][kb]),
                            consumer_phase=int(t["consumer_phase"][kb]),
                            producer_phase=int(t["producer_phase"][kb]), address=int(t["address"][kb]))

    def recheck(self, w: dict[str, Any]) -> bool:
        """Re-evaluate the formulas at ``kb`` alone and count the earlier uses of its stage one by one."""
        p, kb = self.pipeline, int(w["kb"])
        at = np.array([kb], dtype=np.int64)
        stage = int(p.values("stage", at)[0])
        earlier = p.values("stage", np.arange(kb, dtype=np.int64)) if kb else np.zeros(0, dtype=np.int64)
        uses = int((earlier == stage).sum())
        address = p.base + stage * p.stage_bytes
        rule = w["rule"]
        if rule == "stage":
            return not 0 <= stage < p.stages
        if rule == "bounds":
            return address < 0 or address + p.stage_bytes > p.smem_bytes
        if rule == "align":
            return address % p.align != 0
        if rule == "consumer_phase":
            return int(p.values("consumer_phase", at)[0]) != uses % 2
        return int(p.values("producer_phase", at)[0]) != (uses + 1) % 2

    def explain(self, w: dict[str, Any]) -> str:
        p = self.pipeline
        kb, s, j = w["kb"], w["stage"], w["uses"]
        at = f"k-block {kb} (any K loop of {kb + 1} or more k-blocks)"
        use = f"use {j + 1} of stage {s}"
        rule = w["rule"]
        if rule == "stage":
            return f"{at}: stage = {p.stage} gives {s}, outside 0..{p.stages - 1}"
        if rule == "bounds":
            return (f"{at}: stage {s}'s buffer is bytes {w['address']}..{w['address'] + p.stage_bytes - 1}, outside "
                    f"the {p.smem_bytes}-byte allocation")
        if rule == "align":
            return f"{at}: stage {s}'s buffer starts at byte {w['address']}, not a multiple of {p.align}"
        if rule == "consumer_phase":
            return (f"{at}, {use}: the consumer waits on parity {w['consumer_phase']}, the fill completes phase "
                    f"parity {j % 2}: the wait passes on the earlier phase and reads the buffer before the data lands")
        if j == 0:
            return (f"{at}, the first use of stage {s}: the producer waits on parity {w['producer_phase']} of a fresh "
                    "empty barrier, a release that never comes (deadlock); a first use waits on parity 1")
        return (f"{at}, {use}: the producer waits on parity {w['producer_phase']}, the consumer's release of use {j} "
                f"completes parity {(j + 1) % 2}: it refills the buffer the consumer may still be reading")


def pipeline_protocol(pipeline: Pipeline) -> PipelineProtocol:
    """The ``pipeline_protocol`` claim of ``pipeline``."""
    return PipelineProtocol(pipeline)


__all__ = ["RULES", "PipelineProtocol", "pipeline_protocol"]
