"""``print(tiled_mma)`` imports as a ``tiled_mma`` config: the atom with the printed layouts, ``atom_layout`` from
``ThrLayoutVMNK`` and the ``PermutationMNK`` tilers. Inputs: real printouts of CUTLASS's headers compiled with g++
(tests/data/cute/cpp_tiled_mma.cpp, each block headed by the make_tiled_mma call that printed it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.cli import main
from layoutcheck.errors import LayoutError
from layoutcheck.importers.cute import from_cute, tiled_mma_config
from layoutcheck.models.tiled_mma import make_tiled_mma
from layoutcheck.spec.imported import spec_from_cute

DATA = Path(__file__).parents[1] / "data" / "cute"


def _blocks() -> list[tuple[str, str]]:
    out = []
    for b in (DATA / "cpp_tiled_mma.txt").read_text().split("@@"):
        if b.strip():
            head, body = b.strip("\n").split("\n", 1)
            out.append((head, body))
    return out


# (atom layout, permutation as printed, tile) per block; None: no tiled_mma config (atoms not column-major)
EXPECTED = [((2, 2, 1), ("32", "32", "16"), (32, 32, 16)),
            ((2, 2, 1), ("32", "(8,2,2):(1,16,8)", "16"), (32, 32, 16)),
            ((4, 1, 1), ("None", "None", "None"), (64, 8, 8)),
            None,
            ((2, 2, 1), ("(16,2):(2,1)", "16", "16"), (32, 16, 16)),
            ((2, 1, 1), ("None", "None", "None"), (128, 64, 16)),
            ((16, 8, 1), ("None", "None", "None"), (16, 8, 1))]


def test_every_printout_reads_back_as_its_make_tiled_mma_call():
    blocks = _blocks()
    assert len(blocks) == len(EXPECTED)
    for (head, body), want in zip(blocks, EXPECTED, strict=True):
        got = from_cute(body)
        if want is None:
            with pytest.raises(LayoutError, match="does not lay its atoms out column-major"):
                tiled_mma_config(got)
            continue
        c = tiled_mma_config(got)
        assert (c.atom_layout, tuple(map(str, c.permutation)), c.tile) == want, head
        called = head.split("(", 1)[1].split("{}", 1)[0].split("<")[0]  # the atom named in the C++ call
        assert called in c.same_layouts, head
        # the tiled MMA built from the import has the printed layouts, thread by thread
        t = make_tiled_mma(c.atom, c.atom_layout, c.permutation)
        assert t.thr_layout_vmnk.offsets().tolist() == got.layouts["ThrLayoutVMNK"].offsets().tolist()


def test_sm90_ss_operands_are_not_register_partitions():
    c = tiled_mma_config(from_cute(_blocks()[5][1]))
    assert c.smem_operands == ("A", "B")
    assert c.atom.startswith("SM90_64x64x16_") and c.atom.endswith("_SS")


def test_imported_specs_pass(tmp_path):
    for i, (_, body) in enumerate(_blocks()):
        src = tmp_path / f"mma{i}.txt"
        src.write_text(body + "\n")
        spec = tmp_path / f"mma{i}.toml"
        assert main(["import", str(src), "-o", str(spec)]) == 0
        text = spec.read_text()
        assert ('kind = "tiled_mma"' in text) == (EXPECTED[i] is not None)
        assert main(["check", str(spec), "-q"]) == 0, text
        assert main(["check", str(src), "-q"]) == 0  # the printout itself, on check's CuTe road


def test_permutation_and_atom_layout_reach_the_spec():
    text = spec_from_cute(_blocks()[1][1])
    assert 'atom_layout = [2, 2, 1]' in text and 'permutation = [32, "(8,2,2):(1,16,8)", 16]' in text
    assert "tile = [32, 32, 16]" in text


def _broken(body: str, line_key: str, new_value: str) -> str:
    return "\n".join(f"  {line_key}: {new_value}" if ln.strip().startswith(line_key + ":") else ln
                     for ln in body.splitlines())


def test_broken_printouts_are_refuted(tmp_path):
    body = _blocks()[0][1]
    cases = {  # a permutation whose modes collide; a C layout that covers one element twice
        "perm": _broken(body, "PermutationMNK", "((_16,_2):(_1,_8),_16,_16)"),
        "c": _broken(body, "LayoutC_TV", "((_4,_8),(_2,_2)):((_32,_1),(_16,_16))"),
    }
    for name, text in cases.items():
        src = tmp_path / f"{name}.txt"
        src.write_text(text + "\n")
        out = tmp_path / f"{name}.json"
        assert main(["check", str(src), "-q", "--json", str(out)]) == 1, name
        rows = json.loads(out.read_text())["results"]
        assert any(r["status"] == "REFUTED" for r in rows), name
    assert "no MMA atom layoutcheck knows" in spec_from_cute(cases["c"])


def test_thr_layout_is_read_as_a_function():
    got = from_cute(_blocks()[0][1])
    assert got.layouts["ThrLayoutVMNK"] == Layout((32, 2, 2, 1), (1, 32, 64, 0))


def test_dsl_printouts():
    """The CuTe DSL spells the keys apart (``Thr Layout VMNK``, ``TV Layout A``) and prints tilers as ``32:1``."""
    blocks = [b for b in (DATA / "dsl_tiled_mma.txt").read_text().split("@@") if b.strip()]
    with_perm, without = (tiled_mma_config(from_cute(b)) for b in blocks)
    assert (with_perm.atom_layout, with_perm.permutation, with_perm.tile) == ((2, 2, 1), (32, 32, 16), (32, 32, 16))
    assert (without.permutation, without.tile) == ((None, None, None), (32, 16, 16))
    assert "SM80_16x8x16_F32F16F16F32_TN" in with_perm.same_layouts
    assert 'kind = "tiled_mma"' in spec_from_cute(blocks[0])
