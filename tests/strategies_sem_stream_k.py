"""Hypothesis strategies for the semantics suite of the stream-K scheduler (``tests/semantics/test_sem_stream_k.py``).
They *build* adversarial inputs, named after what they guarantee:

- ``stream_k_schedulers``: ``schedule_bijection`` of a CUTLASS SM90 stream-K scheduler over a small box of problems
  (``tiles`` around one to three waves of 1..24 CTAs, ``k_tiles`` across ``min_iters_per_sk_unit_ = 8`` and a few
  tiles' worth): every decomposition mode, split counts 1..5, 1..8 groups, k-tile start alignment 1 or 2; and the
  wrong variants (their boxes nearer the small problems where they fail): no big units, the start of a unit moved to
  a tile boundary but not its neighbour's end, the fixup's final split waiting only for the first peer
  (NVIDIA/cutlass#2027); both reduction modes otherwise.
"""

from __future__ import annotations

from hypothesis import strategies as st

from layoutcheck.models.stream_k import StreamKScheduler
from layoutcheck.properties.residue import schedule_bijection


@st.composite
def stream_k_schedulers(draw):
    ctas = draw(st.integers(1, 24))
    mode = draw(st.sampled_from(["heuristic", "heuristic", "stream_k", "stream_k", "data_parallel", "split_k"]))
    splits = draw(st.integers(1, 5)) if mode in ("heuristic", "split_k") and draw(st.booleans()) else 1
    broken = draw(st.sampled_from(["none", "none", "big_units", "end_adjust", "final_waits_first"]))
    reduction = "final_waits_first" if broken == "final_waits_first" else draw(
        st.sampled_from(["deterministic", "nondeterministic"]))
    s = StreamKScheduler(ctas, draw(st.integers(1, 8)), mode, splits, draw(st.sampled_from([1, 2])),
                         big_units=broken != "big_units", end_adjust=broken != "end_adjust", reduction=reduction)
    lo = draw(st.integers(1, 3 * ctas + 2)) if broken == "none" else draw(st.integers(1, 2 * ctas + 1))
    k_lo = draw(st.integers(1, 30)) if broken == "none" else draw(st.integers(9, 20))
    return schedule_bijection(s, ((lo, lo + draw(st.integers(0, 6))), (k_lo, k_lo + draw(st.integers(0, 12)))))
