"""Real CuTe printouts (tests/data/cute: CUTLASS 4.7 C++ host program, CuTe DSL 4.8.1) read back exactly."""

from __future__ import annotations

from pathlib import Path

from layoutcheck.algebra.layout import Layout
from layoutcheck.cli import main
from layoutcheck.hw.mma import mma_atom
from layoutcheck.importers.cute import from_cute

DATA = Path(__file__).parents[1] / "data" / "cute"


def blocks() -> list[str]:
    return [b.strip("\n") for b in (DATA / "cpp_print.txt").read_text().split("@@") if b.strip()]


def test_cpp_printouts():
    b = blocks()
    assert from_cute(b[0]).layout == Layout((8, (4, 2)), (2, (16, 1)))
    assert str(from_cute(b[1]).layout) == "Sw<3,4,3> o 0 o (8,64):(64,1)"
    table = from_cute(b[2])
    assert table.kind == "print_layout" and table.layout == Layout((4, 3), (3, 1))
    mma = from_cute(b[3])
    atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN")
    assert mma.kind == "tiled_mma" and mma.layouts["ThrLayoutVMNK"] == Layout((32, 2, 2, 1), (1, 32, 64, 0))
    assert mma.layouts["LayoutC_TV"] == atom.tv_layout_C and mma.layouts["LayoutA_TV"] == atom.tv_layout_A
    assert from_cute(b[4]).layout == Layout((8, 4), (4, 1))


def test_dsl_printouts():
    lines = (DATA / "dsl_print.txt").read_text().splitlines()
    got = [from_cute(ln) for ln in lines]
    assert got[0].layout == Layout((8, (4, 2)), (2, (16, 1)))
    assert str(got[1].layout) == "Sw<3,4,3> o 0 o (8,64):(64,1)"
    assert got[2].layout == Layout((64, 128), (1, 64)) and got[2].codomain == (64, 128)
    assert got[3].layout == Layout((64, 128), (128, 1)) and got[3].codomain == (128, 64)


def test_tiled_mma_printout_becomes_a_passing_spec(tmp_path, capsys):
    src = tmp_path / "mma.txt"
    src.write_text(blocks()[3])
    out = tmp_path / "mma.toml"
    assert main(["import", str(src), "-o", str(out)]) == 0
    assert main(["check", str(out), "-q"]) == 0
    assert "3 checks: 3 proven" in capsys.readouterr().out
