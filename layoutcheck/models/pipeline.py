"""A multi-stage shared-memory pipeline's bookkeeping: which stage buffer each k-block uses and which mbarrier phase
parity the consumer and the producer wait on.

A mainloop of ``S`` stages cycles k-blocks ``kb = 0, 1, ...`` through ``S`` shared-memory buffers, each guarded by a
*full* barrier (the producer's TMA / cp.async completes one phase per fill) and an *empty* barrier (the consumer's
release completes one phase per use), as CUTLASS's ``PipelineTmaAsync`` / ``PipelineState`` and Triton's pipeliner
do. A kernel writes three formulas of ``kb`` (``stage``, ``consumer_phase``, ``producer_phase``; ``S`` may appear as a
name); what they must equal follows from the mbarrier semantics alone (PTX ISA, "mbarrier.test_wait /
try_wait": ``.parity`` waits for the completion of the phase of that parity; on a fresh barrier the phase of parity 1
counts as completed, so a wait on parity 1 passes at once):

- the ``j``-th use of a stage (``j`` = the earlier k-blocks on the same stage) is its ``j``-th fill: the consumer
  must wait on parity ``j % 2`` (parity ``(j+1) % 2`` passes on the previous phase and reads the buffer before the
  data lands, or, for ``j = 0``, at once);
- the producer refilling it must wait for the consumer's release of use ``j - 1``: parity ``(j - 1) % 2 =
  (j + 1) % 2`` (for ``j = 0`` parity 1, which passes on a fresh barrier; parity 0 would wait for a release that
  never comes: a deadlock);
- the buffer ``base + stage * stage_bytes`` lies in the allocation and is aligned (TMA: 128 bytes; a swizzled
  wgmma / UMMA operand: its pattern, 1024 bytes for 128B).

Assumed (stated, not checked): each barrier completes exactly one phase per fill / per release (its arrival count
and transaction bytes are right) and every k-block is filled and consumed exactly once, in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from layoutcheck.errors import LayoutError
from layoutcheck.expr.ir import Expr
from layoutcheck.expr.numpy import evaluate
from layoutcheck.expr.parse import parse

FORMULAS = ("stage", "consumer_phase", "producer_phase")
"""The three formulas of ``kb`` a pipeline spec may give (defaults: CUTLASS's ``PipelineState``)."""


def default_formula(name: str, stages: int) -> str:
    """CUTLASS's ``PipelineState`` in closed form: stage ``kb % S``, consumer phase ``(kb / S) % 2`` (the consumer
    state starts at phase 0), producer phase ``(kb / S + 1) % 2`` (``make_producer_start_state``: phase 1)."""
    return {"stage": f"kb % {stages}", "consumer_phase": f"(kb / {stages}) % 2",
            "producer_phase": f"(kb / {stages} + 1) % 2"}[name]


@dataclass(frozen=True)
class Pipeline:
    """``stages`` buffers of ``stage_bytes`` from byte ``base`` of a ``smem_bytes`` allocation, each aligned to
    ``align``; ``k_blocks`` the longest K loop (in k-blocks) the claim covers; the three formulas of ``kb``."""

    stages: int
    k_blocks: int
    stage_bytes: int
    smem_bytes: int
    base: int = 0
    align: int = 128
    stage: str = ""
    consumer_phase: str = ""
    producer_phase: str = ""

    def __post_init__(self) -> None:
        for name in ("stages", "k_blocks", "stage_bytes", "smem_bytes", "align"):
            if getattr(self, name) < 1:
                raise LayoutError(f"pipeline: {name} must be positive, found {getattr(self, name)}", key=name)
        if self.align & (self.align - 1):
            raise LayoutError(f"pipeline: align must be a power of two, found {self.align}", key="align")
        for name in FORMULAS:
            if not getattr(self, name):
                object.__setattr__(self, name, default_formula(name, self.stages))
            self.formula(name)  # parse now: a bad formula is the spec's error, not a verdict

    def formula(self, name: str) -> Expr:
        try:
            return parse(getattr(self, name), {"kb": self.k_blocks, "S": self.stages + 1})
        except LayoutError as e:
            raise LayoutError(f"pipeline: {name} = {getattr(self, name)!r}: {e}", key=name) from None

    def values(self, name: str, kb: np.ndarray) -> np.ndarray:
        """The formula ``name`` at every ``kb`` (``S`` = ``stages``)."""
        out = evaluate(self.formula(name), {"kb": kb, "S": np.full_like(kb, self.stages)})
        return np.broadcast_to(np.asarray(out, dtype=np.int64), kb.shape)

    @cached_property
    def table(self) -> dict[str, np.ndarray]:
        """Every k-block's stage, phases, buffer address and earlier uses of its stage (``uses``)."""
        kb = np.arange(self.k_blocks, dtype=np.int64)
        stage = self.values("stage", kb)
        return {"kb": kb, "stage": stage, "consumer_phase": self.values("consumer_phase", kb),
                "producer_phase": self.values("producer_phase", kb), "address": self.base + stage * self.stage_bytes,
                "uses": earlier_uses(stage)}


def earlier_uses(stage: np.ndarray) -> np.ndarray:
    """``uses[kb]`` = how many k-blocks before ``kb`` used the same stage (a stable counting sort)."""
    order = np.argsort(stage, kind="stable")
    s = stage[order]
    start = np.r_[0, np.flatnonzero(s[1:] != s[:-1]) + 1]
    rank = np.arange(s.size) - np.repeat(start, np.diff(np.r_[start, s.size]))
    out = np.empty_like(rank)
    out[order] = rank
    return out


__all__ = ["FORMULAS", "Pipeline", "default_formula", "earlier_uses"]
