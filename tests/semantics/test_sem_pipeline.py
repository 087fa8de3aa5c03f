"""Semantics of ``pipeline_protocol``, from the PTX ISA's mbarrier (``mbarrier.test_wait`` / ``try_wait`` with
``.parity``: a barrier is always in some phase; a wait on parity ``P`` returns true iff ``P`` differs from the parity
of the barrier's *current* (incomplete) phase, i.e. the phase of parity ``P`` before it has completed) and from what
a stage buffer is: ``base + stage * stage_bytes`` inside the allocation, aligned.

The naive side plays each k-block's two waits against the barrier's state in the two moments that matter: the fill
(or release) it depends on has happened -- the wait must pass -- and has not -- the wait must block (else the
consumer reads a buffer still being filled, or the producer refills one still being read; a first-use producer
wait that cannot pass on a fresh barrier is a deadlock). Counters are kept per stage by walking the k-blocks one by
one; the formulas are evaluated by Python's own ``eval`` of their text with ``/`` as floor division."""

from __future__ import annotations

from hypothesis import given

from tests.semantics.naive_common import agree, spec_rows
from tests.strategies_sem_pipeline import pipelines


def value(formula: str, kb: int, s: int) -> int:
    return int(eval(formula.replace("/", "//"), {"__builtins__": {}}, {"kb": kb, "S": s}))


def passes(parity: int, completed_phases: int) -> bool:
    """PTX ISA: the wait on ``parity`` passes iff it is not the parity of the current phase (number
    ``completed_phases``, incomplete)."""
    return parity % 2 != completed_phases % 2


def naive_first_failure(p: dict) -> tuple[int, str] | None:
    s, fills = p["stages"], {}
    for kb in range(p["k_blocks"]):
        st = value(p["stage"], kb, s)
        if not 0 <= st < s:
            return kb, "stage"
        addr = p["base_address"] + st * p["stage_bytes"]
        if addr < 0 or addr + p["stage_bytes"] > p["smem_bytes"]:
            return kb, "bounds"
        if addr % p["align"]:
            return kb, "align"
        j = fills.get(st, 0)  # earlier uses of this stage: fills done = releases done = j before this use
        c = value(p["consumer_phase"], kb, s)
        if not passes(c, j + 1) or passes(c, j):  # after fill j (j+1 phases complete) pass; before it, block
            return kb, "consumer_phase"
        q = value(p["producer_phase"], kb, s)
        if not passes(q, j) or (j > 0 and passes(q, j - 1)):  # after release j-1 pass; before it, block
            return kb, "producer_phase"
        fills[st] = j + 1
    return None


def _spec(p: dict) -> str:
    lines = [f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v}" for k, v in p.items()]
    return '[[config]]\nname = "p"\nkind = "pipeline"\n' + "\n".join(lines) + '\nproperties = ["pipeline_protocol"]\n'


@given(pipelines())
def test_pipeline_protocol_equals_the_mbarrier_semantics(p) -> None:
    want = naive_first_failure(p)
    rows = spec_rows(_spec(p))
    agree(rows, want is None, f"pipeline {p}")
    for r in rows.values():
        if r.status == "REFUTED":
            w = r.counterexample_data
            assert (w["kb"], w["rule"]) == want, (w, want)


def test_a_producer_starting_on_parity_0_is_a_deadlock_at_k_block_0() -> None:
    p = {"stages": 4, "k_blocks": 8, "stage_bytes": 1024, "align": 128, "base_address": 0, "smem_bytes": 4096,
         "stage": "kb % S", "consumer_phase": "(kb / S) % 2", "producer_phase": "(kb / S) % 2"}
    assert naive_first_failure(p) == (0, "producer_phase")
    rows = spec_rows(_spec(p))
    assert rows["auto"].status == "REFUTED" and "deadlock" in rows["auto"].counterexample
