"""CuTe printouts read back: C++ print/print_layout/print(tiled_mma), CuTe DSL strings, Mojo strings, objects."""

from __future__ import annotations

import pytest

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.errors import LayoutError, ParseError
from layoutcheck.importers.cute import from_cute, parse_cute_layout, table

# printed by nvidia-cutlass-dsl 4.8.1 (print(...) inside @cute.jit) for the layouts named on the right
DSL_PRINTS = {
    "(8,(4,2)):(2,(16,1))": Layout((8, (4, 2)), (2, (16, 1))),  # make_layout((8,(4,2)), stride=(2,(16,1)))
    "S<3,4,3> o 0 o (8,64):(64,1)": None,  # make_composed_layout(make_swizzle(3,4,3), 0, (8,64):(64,1))
    "(64,128):(1@0,1@1)": Layout((64, 128), (1, 64)),  # make_identity_layout((64,128))
    "(64,128):(1@1,1@0)": Layout((64, 128), (128, 1)),  # make_layout((64,128), stride=(E(1), E(0)))
}


def test_dsl_printouts():
    for text, want in DSL_PRINTS.items():
        got = from_cute(text)
        if isinstance(want, Layout):
            assert got.layout == want, text
    sw = from_cute("S<3,4,3> o 0 o (8,64):(64,1)").layout
    assert isinstance(sw, ComposedLayout) and str(sw) == "Sw<3,4,3> o 0 o (8,64):(64,1)"
    assert from_cute("(64,128):(1@1,1@0)").codomain == (128, 64)


def test_cpp_static_ints_and_swizzles():
    assert from_cute("(_8,_4):(_4,_1)").layout == Layout((8, 4), (4, 1))
    sw = from_cute("Sw<3,4,3> o _0 o ((_8,_16),(_64,_1)):((_64,_512),(_1,_0))").layout
    assert str(sw) == "Sw<3,4,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))"


def test_mojo_layout_string():
    assert from_cute("((4, 8):(8, 1))").layout == Layout((4, 8), (8, 1))


@pytest.mark.parametrize("text", ["(4,2):(2,1)", "((2,2),4):((1,8),2)", "Sw<2,0,2> o 0 o (4,4):(4,1)"])
def test_print_layout_round_trip(text):
    lay = parse_cute_layout(text)[0]
    got = from_cute(table(lay))
    assert got.kind == "print_layout" and str(got.layout) == str(lay)


def test_print_layout_cells_are_checked():
    bad = table(Layout((4, 2), (2, 1))).replace("| 3 |", "| 5 |")
    with pytest.raises(LayoutError, match=r"cell \(1,1\) reads 5"):
        from_cute(bad)


TILED = """TiledMMA
  ThrLayoutVMNK:  (_32,_2,_2,_1):(_1,_32,_64,_0)
  PermutationMNK: (_,_,_)
MMA_Atom
  ThrID:      _32:_1
  Shape_MNK:  (_16,_8,_16)
  LayoutA_TV: ((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))
  LayoutB_TV: ((_4,_8),(_2,_2)):((_16,_1),(_8,_64))
  LayoutC_TV: ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))
"""


def test_print_tiled_mma_matches_the_sm80_atom():
    from layoutcheck.hw.mma import mma_atom

    got = from_cute(TILED)
    assert got.kind == "tiled_mma" and got.layouts["Shape_MNK"] == (16, 8, 16)
    atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN")
    for k, name in (("A", "LayoutA_TV"), ("B", "LayoutB_TV"), ("C", "LayoutC_TV")):
        mine = getattr(atom, f"tv_layout_{k}")
        assert (mine.offsets() == got.layouts[name].offsets()).all(), k


def test_objects_are_read_through_str():
    pycute = pytest.importorskip("pycute")
    assert from_cute(pycute.Layout((4, (2, 2)), (1, (8, 4)))).layout == Layout((4, (2, 2)), (1, (8, 4)))


def test_errors_name_the_character():
    with pytest.raises(ParseError) as e:
        from_cute("(8,4):(4,$)")
    assert e.value.pos == "(8,4):(4,$)".index("$")
    with pytest.raises(ParseError, match="LayoutA_TV"):
        from_cute(TILED.replace("(_16,_8,_128))", "(_16,_8,_128)"))
