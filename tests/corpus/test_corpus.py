"""The CUTLASS corpus (``corpus/``): the generator restates CUTLASS's choices, and a sample of its checks is PROVEN.

The whole corpus runs with ``layoutcheck check corpus/ -j 2`` (under a minute); here a fixed sample of every file keeps
CI to a few seconds, and the generator's selection logic is pinned to facts read in CUTLASS's headers.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from layoutcheck.check import check_property
from layoutcheck.spec.load import collect, load_spec

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
RESTATED = [str(CORPUS / "sm80"), str(CORPUS / "sm90")]  # corpus/generated/ is the generator's (test_generator.py)


def _generator():
    spec = importlib.util.spec_from_file_location("corpus_generate", CORPUS / "generate.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["corpus_generate"] = mod
    spec.loader.exec_module(mod)
    return mod


gen = _generator()


@pytest.mark.parametrize(("major", "bits", "mn", "k", "swizzle_b"), [
    ("K", 16, 128, 64, 3),   # 64 f16 = 128 B: Layout_K_SW128_Atom
    ("K", 16, 128, 32, 2),   # 32 f16 = 64 B: SW64
    ("K", 32, 128, 32, 3),   # 32 tf32 = 128 B
    ("K", 8, 128, 64, 2),    # 64 e4m3 = 64 B
    ("K", 16, 128, 8, 0),    # 8 f16 = 16 B: INTER
    ("MN", 16, 64, 64, 3),   # MN extent 64 f16 = 128 B
    ("MN", 16, 32, 64, 2),
])
def test_ss_smem_selector_picks_the_widest_atom_dividing_the_extent(major, bits, mn, k, swizzle_b) -> None:
    assert gen.ss_smem_selector(major, bits, mn, k) == swizzle_b


def test_gmma_atoms_are_the_upcast_bit_atoms() -> None:
    assert gen.gmma_atom("K", 16, 3) == ("Sw<3,3,3> o (8,64):(64,1)", 64)
    assert gen.gmma_atom("MN", 16, 1) == ("Sw<1,3,3> o (16,8):(1,16)", 16)
    assert gen.gmma_atom("K", 8, 3) == ("Sw<3,4,3> o (8,128):(128,1)", 128)
    assert gen.gmma_atom("K", 32, 0) == ("(8,4):(4,1)", 4)


def test_stage_count_and_epilogue_tile() -> None:
    # 128x128x64 f16: 32 KiB per stage + 16 B barriers; 232448 B minus a 128x32 f16 double-buffered D carve-out
    assert gen.stage_count(16, 16, 128, 128, 64, 128 * 32 * 2 * 2) == 6
    assert gen.epilogue_tile(128, 256, "cooperative", 16) == (128, 32)
    assert gen.epilogue_tile(64, 128, "ws", 16) == (64, 32)


def test_majors_follow_gmma_ss_tag_to_major() -> None:
    assert gen.sm90_majors("tf32") == gen.sm90_majors("e4m3") == gen.sm90_majors("s8") == [("K", "K")]
    assert ("MN", "MN") in gen.sm90_majors("bf16")


def test_generated_corpus_is_current() -> None:
    """Every check the generator produces is in corpus/ under its name (regenerate with corpus/generate.py)."""
    names = {c.name for f in collect(RESTATED) for c in load_spec(f).configs}
    wanted = {ch.name for c in gen.all_configurations() for ch in c.checks}
    assert wanted == names


def _sample(every: int = 12) -> list[tuple[str, int, int]]:
    jobs = []
    for f in collect(RESTATED):
        for ci, cfg in enumerate(load_spec(f).configs):
            if ci % every == 0:
                jobs += [(f, ci, pi) for pi in range(len(cfg.properties))]
    return jobs


@pytest.mark.parametrize("job", _sample(), ids=lambda j: f"{Path(j[0]).stem}:{j[1]}:{j[2]}")
def test_sampled_corpus_check_is_proven(job) -> None:
    cfg = load_spec(job[0]).configs[job[1]]
    row = check_property(cfg, cfg.properties[job[2]], "auto", 10.0)
    assert row.status == "PROVEN", (row.config, row.property, row.counterexample, row.reason)


def test_conflicted_reads_are_the_documented_ones() -> None:
    conflicted = {c.name for f in collect(RESTATED) for c in load_spec(f).configs
                  if any(p.name == "wavefront_count" for p in c.properties)}
    assert conflicted and all(n.startswith(("sm80_f64_", "sm80_tf32_AMN", "sm80_tf32_BMN")) for n in conflicted)
    assert all(n.endswith("_read") for n in conflicted)
