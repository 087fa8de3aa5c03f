"""#28 items 5 and 6 on silicon: every instantiated REFUTED configuration does on the GPU exactly what its
counterexample says (ownership maps, wgmma read-outs, bank wavefronts under ncu), and the ``vectors --format h``
device copies are read in a kernel."""

from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.gpu


def test_refuted_ownership_and_readout_rows_are_confirmed(tmp_path) -> None:
    from layoutcheck.gpu.refuted import DEFAULT_PATHS, results

    def no_ncu(patterns, out):  # the bank rows are the next test's
        raise RuntimeError("skipped here")

    doc = results(list(DEFAULT_PATHS), "this GPU", measure=no_ncu, out=tmp_path)
    run = [r for r in doc["rows"] if r["experiment"] and r["experiment"] != "bank probe under ncu"]
    assert len(run) >= 12
    bad = [r for r in run if r["gpu"] != "confirmed"]
    assert not bad, bad


def test_refuted_bank_rows_are_confirmed_by_ncu(tmp_path) -> None:
    if not (shutil.which("ncu") and shutil.which("nvcc") and shutil.which("cuobjdump")):
        pytest.skip("needs ncu, nvcc and cuobjdump")
    from layoutcheck.gpu.refuted import DEFAULT_PATHS, results

    doc = results([p for p in DEFAULT_PATHS if p.endswith("broken")], "this GPU", out=tmp_path)
    banks = [r for r in doc["rows"] if r["experiment"] == "bank probe under ncu"]
    assert len(banks) >= 5
    bad = [r for r in banks if r["gpu"] != "confirmed"]
    assert not bad, bad


def test_vectors_device_copies_on_the_gpu() -> None:
    from layoutcheck.codegen.vectors_case import vectors_device_case
    from layoutcheck.gpu.runner import run_case

    row = run_case(vectors_device_case(), repeats=0)
    assert row.ok, row
