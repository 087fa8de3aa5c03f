"""The TMA box-size limit against its measurement on an H100 (driver 580.159.04; issue 14).

``tma_box_limit_h100.json`` is the output of ``layoutcheck.gpu.probes.tma.probe_box_limit``: a scan of every rank-3
box of 192..264 KiB per element size (the largest accepted and smallest rejected data bytes), the largest extent the
driver accepts per dim and element stride, and the edge configurations with the driver's answer. The model
(``encode_check``) must give the driver's answer on every recorded configuration and reproduce every scan.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from layoutcheck.hw.tma import DTYPES, LIMITS
from layoutcheck.models.tma import encode_check

DATA = json.loads((Path(__file__).with_name("tma_box_limit_h100.json")).read_text())


def _accepts(cfg: dict) -> bool:
    return not encode_check(cfg["dtype"], cfg["global_dims"], cfg["global_strides"], cfg["box_dims"],
                            cfg.get("element_strides"))


@pytest.mark.parametrize("rec", [r for r in DATA if r["kind"] == "encode"], ids=lambda r: str(r["config"]["box_dims"]))
def test_model_gives_the_drivers_answer(rec):
    assert _accepts(rec["config"]) == rec["driver_accepts"], rec


@pytest.mark.parametrize("rec", [r for r in DATA if r["kind"] == "box_limit"], ids=lambda r: r["dtype"])
def test_box_limit_is_228_KiB_for_every_element_size(rec):
    assert rec["monotone"] and rec["max_accepted_bytes"] == LIMITS.box_bytes_max < rec["min_rejected_bytes"]


@pytest.mark.parametrize("rec", [r for r in DATA if r["kind"] == "estride_limit"],
                         ids=lambda r: f"dim{r['dim']}-e{r['element_stride']}")
def test_element_strides_enter_the_limit_as_floor_over_every_dim(rec):
    e = DTYPES[rec["dtype"]].bytes
    d, st, others = rec["dim"], rec["element_stride"], rec["others"]

    def model_ok(x: int) -> bool:
        box = list(others)
        box[d] = x
        es = [1, 1, 1]
        es[d] = st
        return not encode_check(rec["dtype"], (256, 256, 256), (256 * e, 65536 * e), tuple(box), tuple(es))

    step = 16 // e if d == 0 else 1
    best = max((x for x in range(step, 257, step) if model_ok(x)), default=0)
    assert best == rec["max_accepted_extent"]
    assert e * math.prod(o for i, o in enumerate(others) if i != d) * (best // st) <= LIMITS.box_bytes_max


def test_the_issues_two_boxes():
    rej = encode_check("float16", (256, 256, 256), (512, 131072), (32, 256, 15))
    assert rej and "245760 B" in rej[0]
    assert encode_check("float16", (256, 256, 256), (512, 131072), (64, 256, 14), (1, 1, 2)) == []
