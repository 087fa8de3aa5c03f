"""``schedule_bijection`` of CUTLASS's SM90 stream-K scheduler at the CTA counts of real GPUs (132, 114, 78 SMs and
more), against ``test_sem_stream_k``'s naive transliteration of the host and device code (sharing no code with
``layoutcheck.properties``, ``.models`` or ``.engines``). ``test_sem_stream_k`` draws 1..24 CTAs; the closed-form
screen the claim decides by (``StreamKCover.exact``) is exercised here where its arithmetic is largest: up to four
waves of tiles and 90 k-tiles per tile, every decomposition, split counts 1..9, groups 1..8, alignment 1 or 2, and
the wrong variants. Authority and oracle: ``tests/semantics/test_sem_stream_k.py``.
"""

from __future__ import annotations

from hypothesis import event, given, settings
from hypothesis import strategies as st

from layoutcheck import Verdict, prove
from layoutcheck.models.stream_k import StreamKScheduler
from layoutcheck.properties.residue import schedule_bijection
from tests.semantics.test_sem_stream_k import naive_first


@st.composite
def wide_stream_k(draw):
    ctas = draw(st.sampled_from([132, 114, 78, 129, 100, 64, 33, 7]))
    mode = draw(st.sampled_from(["heuristic", "stream_k", "data_parallel", "split_k"]))
    splits = draw(st.integers(1, 9)) if mode in ("heuristic", "split_k") and draw(st.booleans()) else 1
    broken = draw(st.sampled_from(["none", "none", "big_units", "end_adjust", "final_waits_first"]))
    red = "final_waits_first" if broken == "final_waits_first" else draw(
        st.sampled_from(["deterministic", "nondeterministic"]))
    s = StreamKScheduler(ctas, draw(st.integers(1, 8)), mode, splits, draw(st.sampled_from([1, 2])),
                         big_units=broken != "big_units", end_adjust=broken != "end_adjust", reduction=red)
    lo, k_lo = draw(st.integers(1, 4 * ctas + 2)), draw(st.integers(1, 90))
    return schedule_bijection(s, ((lo, lo + draw(st.integers(0, 2))), (k_lo, k_lo + draw(st.integers(0, 3)))))


@settings(max_examples=60, deadline=None)
@given(wide_stream_k())
def test_stream_k_at_gpu_sizes_is_cutlass(prop) -> None:
    first = naive_first(prop)
    want = Verdict.PROVEN if first is None else Verdict.REFUTED
    event(want.name)
    r = prove(prop, timeout=120)
    assert r.status is want, (r, first)
    if first is not None:
        assert tuple(r.counterexample.data["grid"]) == first
