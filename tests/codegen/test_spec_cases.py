"""Spec configs become ownership kernels only after their exact cover is PROVEN (CPU side of ``layoutcheck gpu``)."""

from __future__ import annotations

from layoutcheck.codegen.spec_cases import spec_cases
from layoutcheck.gpu.runner import main


def test_bundled_specs_instantiate_their_tv_and_tiled_mma_configs() -> None:
    cases, skipped = spec_cases(["specs"])
    assert len(cases) >= 10
    assert len({c.name for c in cases}) == len(cases)
    assert all("{{" not in c.source and "__global__" in c.source for c in cases)
    assert any("simt_128x128_R4" in c.config for c in cases)
    assert all(s.reason.endswith("has no ownership kernel") for s in skipped)


def test_refuted_configs_are_not_instantiated() -> None:
    cases, skipped = spec_cases(["specs/broken/missed_element.toml"])
    assert not cases
    assert skipped and all("REFUTED" in s.reason or "no ownership kernel" in s.reason for s in skipped)


def test_cli_lists_spec_kernels(capsys) -> None:
    assert main(["specs/seed000_permutation.toml", "--list"]) == 0
    out = capsys.readouterr().out
    assert out.count("ownership") >= 5
