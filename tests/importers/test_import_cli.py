"""One way in: spec values { triton = ..., shape = ... } / { cute = ... }, `layoutcheck import`, and
`layoutcheck check FILE.ttgir`."""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutcheck.cli import main

DATA = Path(__file__).parents[1] / "data" / "ttgir"
BLOCKED = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"
SPEC = f'''format = 1
[[config]]
name = "blocked"
kind = "layout"
layout = {{ triton = "{BLOCKED}", shape = [128, 64] }}
properties = ["exact_cover", "surjective"]
[[config]]
name = "swizzled"
kind = "layout"
layout = {{ triton = "#ttg.swizzled_shared<{{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}}>", shape = [64,64] }}
properties = ["bijective"]
[[config]]
name = "cute"
kind = "layout"
layout = {{ cute = "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)" }}
properties = ["bijective"]
'''


def test_spec_values_from_triton_and_cute(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text(SPEC)
    assert main(["check", str(f), "-q"]) == 0
    assert "4 checks: 4 proven" in capsys.readouterr().out


def test_a_broadcast_layout_is_not_injective_but_covers(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text(SPEC.replace('shape = [128, 64]', 'shape = [16, 16]').replace('"exact_cover", "surjective"',
                                                                                 '"exact_cover", "injective"'))
    assert main(["check", str(f), "-q"]) == 1
    out = capsys.readouterr().out
    assert "REFUTED" in out and "both map to" in out


@pytest.mark.parametrize(("value", "msg"), [
    ('{ triton = "#ttg.blocked<{order = [0]}>" }', "needs the tensor 'shape'"),
    ('{ triton = "#ttg.blocked<{order = [0]}", shape = [4] }', "expected '>', found end of text"),
    ('{ cute = "(8,4):(4,1)", extra = 1 }', "unknown key 'extra'"),
    ('{ nothing = 1 }', "needs 'triton'"),
])
def test_bad_imported_values_are_spec_errors(tmp_path, capsys, value, msg):
    f = tmp_path / "s.toml"
    f.write_text(f'format = 1\n[[config]]\nname = "x"\nkind = "layout"\nlayout = {value}\nproperties = ["injective"]\n')
    assert main(["check", str(f), "-q"]) == 2
    err = capsys.readouterr().err
    assert msg in err and "s.toml:5" in err


def test_import_ttgir_round_trips_through_check(tmp_path, capsys):
    src = DATA / "attention_fp16_128x64x64_w4_sm90.ttgir"
    out = tmp_path / "att.toml"
    assert main(["import", str(src), "-o", str(out)]) == 0
    text = out.read_text()
    assert "#ttg.nvidia_mma<{versionMajor = 3" in text and "#mma" not in text  # aliases inlined
    assert main(["check", str(out), "-q"]) == 0
    assert "refuted" in capsys.readouterr().out


def test_import_cute_tiled_mma(tmp_path, capsys):
    src = tmp_path / "mma.txt"
    src.write_text("TiledMMA\n  ThrLayoutVMNK: (_32,_1,_1,_1):(_1,_0,_0,_0)\n  Shape_MNK: (_16,_8,_16)\n"
                   "  LayoutA_TV: ((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))\n"
                   "  LayoutB_TV: ((_4,_8),(_2,_2)):((_16,_1),(_8,_64))\n"
                   "  LayoutC_TV: ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))\n")
    out = tmp_path / "mma.toml"
    assert main(["import", str(src), "-o", str(out)]) == 0
    assert main(["check", str(out), "-q"]) == 0
    assert "3 checks: 3 proven" in capsys.readouterr().out


def test_check_ttgir_file(capsys):
    f = DATA / "matmul_fp32_64x64x16_w4_sm80.ttgir"
    assert main(["check", str(f), "-q"]) == 0  # every layout claim Triton relies on holds
    assert main(["check", str(f), "--banks", "-q"]) == 1  # the tf32 A-operand load has a 2-way bank conflict
    assert "lanes [0, 16] hit bank 0" in capsys.readouterr().out
