"""Naive oracle for a parameter the key-sensitivity audit found dropped (tests/spec/test_key_sensitivity.py): a tiled
MMA's ``in_bounds`` reads its ``bound``.

The C partition of a tiled MMA whose threads cover an ``M x N`` tile (each element once) reaches every tile index
``m + M*n`` in ``[0, M*N)``: ``in_bounds(bound=b)`` holds exactly when ``b >= M*N``. The oracle is that one
inequality, sharing no code with the binder or the engines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutcheck.check import check_paths

SIMT = """format = 1

[[config]]
name = "simt"
kind = "tiled_mma"
atom = "UniversalFMA"
atom_layout = [{tm}, {tn}, 1]
tile = [{m}, {n}, 1]
properties = [{{ name = "in_bounds", bound = {b} }}]
"""


def _naive(m: int, n: int, b: int) -> str:
    return "PROVEN" if b >= m * n else "REFUTED"


@pytest.mark.parametrize(("tm", "tn", "m", "n"), [(16, 16, 128, 128), (8, 4, 32, 16), (2, 2, 4, 6)])
@pytest.mark.parametrize("fraction", [0.5, 1.0, 1.5])
def test_tiled_mma_in_bounds_reads_its_bound(tmp_path: Path, tm: int, tn: int, m: int, n: int,
                                             fraction: float) -> None:
    b = max(1, int(m * n * fraction) - (1 if fraction == 1.0 else 0))
    for bound in (b, m * n):
        f = tmp_path / f"simt_{bound}.toml"
        f.write_text(SIMT.format(tm=tm, tn=tn, m=m, n=n, b=bound))
        (row,) = check_paths([str(f)])
        assert row.status == _naive(m, n, bound), (m, n, bound, row.reason, row.counterexample)
