"""Semantics of ``multicast_cover``, from the PTX ISA (``cp.async.bulk.tensor ... .multicast::cluster``: the
operation writes the same data at the same shared-memory offset of every CTA whose bit is set in ``ctaMask``, bit
``r`` naming the CTA of ``%cluster_ctarank`` ``r``) and from what a CTA needs: every row of its own tile, once.

The naive side walks every issuing CTA's slice row by row and every bit of its mask, with the formulas evaluated by
Python itself (``/`` as floor division), and collects for each destination CTA and row the issuers that wrote it."""

from __future__ import annotations

from hypothesis import given

from tests.semantics.naive_common import agree, spec_rows
from tests.strategies_sem_multicast import multicasts


def ev(formula: str, env: dict) -> int:
    return int(eval(formula.replace("/", "//"), {"__builtins__": {}}, env))


def naive_first_violation(p: dict) -> tuple[str, int, int] | None:
    cm, cn = p["cluster"]
    n, extent = cm * cn, p["extent"]

    def env(rank: int) -> dict:
        return {"x": rank % cm, "y": rank // cm, "CM": cm, "CN": cn, "MN": extent,
                "row_mask": sum(1 << (j * cm) for j in range(cn)), "column_mask": (1 << cm) - 1}

    needs = [ev(p["needs"], env(r)) for r in range(n)]
    bad, got = [], {}
    for c in range(n):
        start, rows, mask = (ev(p[k], env(c)) for k in ("slice_start", "slice_rows", "mask"))
        dests = [-1] if mask < 0 else [d for d in range(mask.bit_length()) if mask >> d & 1]
        for d in dests:
            for r in range(start, start + max(0, rows)):
                if not (0 <= d < n and 0 <= r < extent):
                    bad.append((0, d, r, "outside"))
                elif needs[c] != needs[d]:
                    bad.append((1, d, r, "foreign"))
                else:
                    got.setdefault((d, r), []).append(c)
    for d in range(n):
        for r in range(extent):
            k = len(got.get((d, r), []))
            if k != 1:
                bad.append((2, d, r, "missing" if k == 0 else "twice"))
    if not bad:
        return None
    _, d, r, rule = min(bad)
    return rule, d, r


def _spec(p: dict) -> str:
    body = "\n".join(f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v}" for k, v in p.items())
    return f'[[config]]\nname = "m"\nkind = "multicast"\n{body}\nproperties = ["multicast_cover"]\n'


@given(multicasts())
def test_multicast_cover_equals_the_naive_walk_of_every_tma(p) -> None:
    want = naive_first_violation(p)
    rows = spec_rows(_spec(p))
    agree(rows, want is None, f"multicast {p}")
    r = rows["auto"]
    if r.status == "REFUTED":
        w = r.counterexample_data
        assert (w["rule"], w["dest"], w["row"]) == want, (w, want)


def test_the_a_mask_along_the_wrong_axis_sends_another_m_block() -> None:
    p = {"cluster": [2, 2], "operand": "A", "extent": 128, "slice_start": "y * (MN / CN)", "slice_rows": "MN / CN",
         "mask": "row_mask << y", "needs": "x"}
    assert naive_first_violation(p) == ("foreign", 0, 0)
    assert spec_rows(_spec(p))["auto"].status == "REFUTED"
