"""The bug zoo (``specs/zoo/``): every public bug reproduced as a spec keeps its verdict.

``NAME.toml`` declares ``expect = "refuted"`` and must be REFUTED with a re-checked counterexample; its pair
``NAME_fixed.toml`` must be PROVEN. Files named ``*_notabug.toml`` record reports that are not layout bugs (PROVEN).
Every file cites its report as ``owner/repo#N`` in its description. The default ``layoutcheck check specs/`` skips the
refuted files, so the bundled gate stays green.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from layoutcheck.check import check_property
from layoutcheck.spec.load import collect, declares_refuted, load_spec

ZOO = Path(__file__).resolve().parents[2] / "specs" / "zoo"
CITATION = re.compile(r"\b[\w.-]+/[\w.-]+#\d+\b")
FILES = sorted(ZOO.glob("*.toml"))
BUGS = [f for f in FILES if declares_refuted(str(f))]


def _rows(path: Path) -> list:
    spec = load_spec(str(path))
    return [check_property(cfg, req, "auto", 10.0) for cfg in spec.configs for req in cfg.properties]


def test_zoo_is_populated() -> None:
    assert len(BUGS) >= 20, [f.name for f in FILES]


# what layoutcheck prints for a few bugs: the counterexample names the element, in CuTe coordinates, and the law
COUNTEREXAMPLES = {
    "cutlass_3177": "index 2: R(0,1) -> 3 but B(2) -> 6 and A(6) = A(2,1,0) -> 7",
    "cutlass_2955": "index 5: R(2,1) -> 7 but B(2,1) -> 7 and A(7) = A(1,1) -> 8",
    "tilelang_2537": "tile element (0,96) is owned 0 times (expected 1): nobody",
    "tvm_20068": "accumulator (0,0) at TMEM (lane 0, column 0) is loaded 2 times",
    "triton_6220": "element (mn=64, k=0) of block 0 (GmmaDescriptor(start=0x0, LBO=0, SBO=1024, base_offset=0, "
                   "SW128)): the layout puts it at byte 8192, the wgmma reads byte 0",
    "tilelang_2964": "element (mn=0, k=64) of block 4 (GmmaDescriptor(start=0x4000, LBO=16, SBO=1024, base_offset=0, "
                     "SW128)): the layout puts it at byte 24576, the wgmma reads byte 16384",
    "fuser_4771": "element (mn=128, k=0) of block 1 (a 96-wide block starting inside a swizzle atom)",
    "triton_4492": "index 16: A(lane=16, warp=0, block=0, register=0) -> 0 but B(lane=16, warp=0, register=0) -> 4",
}


@pytest.mark.parametrize("stem", sorted(COUNTEREXAMPLES))
def test_counterexample_text(stem: str) -> None:
    texts = [r.counterexample for r in _rows(ZOO / f"{stem}.toml") if r.status == "REFUTED"]
    assert any(t.startswith(COUNTEREXAMPLES[stem]) for t in texts), texts


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_zoo_spec_cites_its_report(path: Path) -> None:
    spec = load_spec(str(path))
    assert CITATION.search(spec.description), f"{path.name}: description must cite owner/repo#N"
    assert CITATION.search(path.read_text().splitlines()[0]), f"{path.name}: first comment line must cite it"


@pytest.mark.parametrize("path", BUGS, ids=lambda p: p.stem)
def test_bug_is_refuted_with_a_counterexample(path: Path) -> None:
    rows = _rows(path)
    refuted = [r for r in rows if r.status == "REFUTED"]
    assert refuted, [(r.property, r.status, r.reason) for r in rows]
    assert all(r.status != "UNKNOWN" for r in rows), [(r.property, r.reason) for r in rows]
    assert all(r.counterexample for r in refuted)


@pytest.mark.parametrize("path", BUGS, ids=lambda p: p.stem)
def test_bug_has_a_proven_fix(path: Path) -> None:
    fixed = path.with_name(f"{path.stem}_fixed.toml")
    assert fixed.is_file(), f"{path.name} has no {fixed.name}"
    assert not declares_refuted(str(fixed))
    rows = _rows(fixed)
    assert rows and all(r.status == "PROVEN" for r in rows), [(r.property, r.status, r.counterexample) for r in rows]


@pytest.mark.parametrize("path", [f for f in FILES if f.stem.endswith("_notabug")], ids=lambda p: p.stem)
def test_not_a_bug_is_proven(path: Path) -> None:
    assert all(r.status == "PROVEN" for r in _rows(path))


def test_default_collection_skips_the_refuted_files() -> None:
    default = {Path(f).resolve() for f in collect([str(ZOO)])}
    everything = {Path(f).resolve() for f in collect([str(ZOO)], include_broken=True)}
    assert default == {f for f in FILES if f not in BUGS}
    assert everything == set(FILES)
    assert {Path(f).resolve() for f in collect([str(BUGS[0])])} == {BUGS[0]}  # named explicitly: checked


def test_expect_key_is_validated(tmp_path: Path) -> None:
    from layoutcheck.errors import SpecError

    bad = tmp_path / "x.toml"
    bad.write_text('format = 1\nexpect = "refutd"\n[[config]]\nname = "a"\nkind = "layout"\nlayout = "4:1"\n'
                   'properties = ["injective"]\n')
    with pytest.raises(SpecError, match="key 'expect'"):
        load_spec(str(bad))


def test_the_whole_zoo_is_quick() -> None:
    """``layoutcheck check --include-broken specs/zoo/`` stays well under 5 s (CPU time: robust to a busy machine)."""
    import time

    from layoutcheck.check import check_paths

    t0 = time.process_time()
    rows = check_paths([str(ZOO)], "auto", 10.0, 1, True)
    assert time.process_time() - t0 < 5.0
    assert {r.status for r in rows} == {"PROVEN", "REFUTED"}
