"""The TMA model against the driver and a real TMA load (needs CuPy, libcuda and an sm_90 GPU)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu


def test_tma_probe_agrees_with_driver_and_hardware(tmp_path):
    from layoutcheck.gpu.probes import tma as tma_probe

    recs = tma_probe.run(tmp_path)
    s = recs[-1]
    assert s["encode_in_model"] >= 100
    assert s["encode_disagreements"] == 0, [r["config"] for r in recs if r["kind"] == "encode" and r["agree"] is False]
    assert s["load_errors"] == 0 and s["load_timeouts"] == 0
    assert s["loads_run"] >= 4 * 10
    assert s["load_mismatched_elements"] == 0 and s["load_outside_writes"] == 0
