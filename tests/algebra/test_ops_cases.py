"""Pinned results of the core algebra: exact CuTe notation (or the error and its message) for hand-picked cases that
cover every branch of the fast paths (flat and nested layouts, int modes, size-1 modes, by-mode tilers, errors).

The expected strings were produced by the implementation before the speed-up (validated ``Layout`` everywhere,
no flat fast paths); the speed-up must not change one character. ``None`` in the regrouping divides and products
is the one deliberate change (CuTe's ``tile_unzip``, see ``test_none_keeps_a_rank2_mode``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

import layoutcheck as lc
from layoutcheck import Layout as L
from layoutcheck import LayoutError
from layoutcheck.algebra.inttuple import flatten, prefix_product, product
from tests.strategies import layouts

CASES = [
    ("coalesce", "L(((2,(1,6)),(4,2)),((1,(6,2)),(12,48)))", "96:1"),
    ("coalesce", "L((1,1),(0,5))", "1:0"),
    ("coalesce", "L((2,(1,6)),(1,(6,2))), (1,1)", "(2,6):(1,2)"),
    ("coalesce", "L(((4,2),3),((1,4),8)), (1,1)", "(8,3):(1,8)"),
    ("composition", "L((6,2),(8,2)), L((4,3),(3,1))", "((2,2),3):((24,2),8)"),
    ("composition", "L(((6,2),(8,2)),((4,3),(3,1))), L(((4,3),(3,1)),((1,8),(4,3)))",
     "!CompositionError: inadmissible composition ((6,2),(8,2)):((4,3),(3,1)) o ((4,3),(3,1)):((1,8),(4,3)): the "
     "modes of B carry across A's mode boundary at 6"),
    ("composition", "L((1,1),(0,7)), L(4,2)", "4:14"),
    ("composition", "L(1,0), L(1,3)", "1:0"),
    ("composition", "L((4,8),(8,1)), (2, None)", "(2,8):(8,1)"),
    ("composition", "L((4,8),(8,1)), 8", "(4,2):(8,1)"),
    ("composition", "L((4,8),(8,1)), L(4,0)", "4:0"),
    ("composition", "L((5,3),(7,1)), L(7,1)",
     "!CompositionError: inadmissible composition (5,3):(7,1) o 7:1: shape divisibility fails at A mode 5:7 (B mode "
     "of size 7 spills past it but 5 does not divide 7)"),
    ("composition", "L((4,6,8),(2,3,5)), L(6,3)",
     "!CompositionError: inadmissible composition (4,6,8):(2,3,5) o 6:3: stride divisibility fails at A mode 4:2 "
     "(B mode 6:3 runs past it but 3 does not divide 4)"),
    ("composition", "L((2,2),(1,1)), L((2,2),(1,1))",
     "!CompositionError: inadmissible composition (2,2):(1,1) o (2,2):(1,1): the modes of B carry across A's mode "
     "boundary at 2"),
    ("composition", "L((4,8),(8,1)), L(4,-1)",
     "!CompositionError: inadmissible composition (4,8):(8,1) o 4:-1: negative stride -1 leaves A's domain"),
    ("composition", "L((4,8),(8,1)), L(3,3)",
     "!CompositionError: inadmissible composition (4,8):(8,1) o 3:3: stride divisibility fails at A mode 4:8 (B "
     "mode 3:3 runs past it but 3 does not divide 4)"),
    ("composition", "L((4,8),(8,1)), ((2,4), L(2,2))", "!LayoutError: tiler (2,4) has rank 2 > rank 1 of 4:8"),
    ("complement", "L(4,2), 24", "(2,3):(1,8)"),
    ("complement", "L((2,(2,2)),(1,(8,4))), 64", "(2,4):(2,16)"),
    ("complement", "L((4,2),(1,0)), (4,8)", "8:4"),
    ("complement", "L(4,-2), 24", "!ComplementError: complement of 4:-2: negative stride -2 is not supported"),
    ("complement", "L((2,2),(1,3)), 24", "4:6"),  # C++: the gap 3 // 2 rounds down
    ("complement", "L((4,6),(1,6))", "1:0"),  # issue #15 reproducers, values from the compiled C++ headers
    ("complement", "L((4,10),(1,10))", "2:4"),
    ("complement", "L(3,2), (4,6)", "(2,3):(1,6)"),  # a shape cotarget divides by folding: ceil_div((4,6),6) = 3
    ("complement", "L(4,0), 12", "12:1"),
    ("complement", "L((2,2),(4,4)), 32",
     "!ComplementError: complement of (2,2):(4,4): Non-injective Layout (CuTe's law): the mode 2:4 overlaps the modes "
     "below it, which already reach 8"),
    ("right_inverse", "L(((4,8),(2,2)),((32,1),(16,8)))", "(8,2,2,4):(4,64,32,1)"),
    ("right_inverse", "L((4,8),(8,1))", "(8,4):(4,1)"),
    ("right_inverse", "L((3,4),(2,1))", "4:3"),
    ("right_inverse", "L(1,0)", "1:0"),
    ("left_inverse", "L((4,8),(8,1))", "(8,4):(4,1)"),
    ("left_inverse", "L((128,160),(65536,1))", "(65536,128):(128,1)"),
    ("left_inverse", "L((2,(1,4)),(4,(9,1)))", "(4,2):(2,1)"),
    ("left_inverse", "L((2,2),(1,0))", "2:1"),
    ("left_inverse", "L((4,2),(1,2))", "(2,2):(1,4)"),
    ("left_inverse", "L(4,0)", "4:0"),
    ("left_inverse", "L((2,4,8),(32,0,2))", "(2,16,2):(0,8,1)"),
    ("left_inverse", "L((2,3),(3,2))",
     "!LayoutError: left_inverse of (2,3):(3,2) is not a layout: Left inverse divisibility condition fails (stride 3 "
     "is not a multiple of 2, the size placed below it)"),
    ("left_inverse", "L((4,3),(1,6))", "(6,3):(1,4)"),
    ("logical_divide", "L(128,128), L((16,4),(4,1))", "((16,4),2):((512,128),8192)"),
    ("logical_divide", "L((128,128),(128,1)), (L((16,4),(4,1)), L((16,4),(4,1)))",
     "(((16,4),2),((16,4),2)):(((512,128),8192),((4,1),64))"),
    ("logical_divide", "L((8,6),(1,8)), (4, None)", "((4,2),6):((1,4),8)"),
    ("logical_divide", "L(10,1), 4", "(4,3):(1,4)"),  # the last tile runs past index 10 (a residue tile)
    ("logical_divide", "L(32,1), L(3,1)", "(3,11):(1,3)"),
    ("logical_divide", "L((4,16),(16,1)), (L(3,2), 2)", "((3,2),(2,8)):((32,16),(1,2))"),
    ("zipped_divide", "L((4,16),(16,1)), (L(3,2), 2)", "((3,2),(2,8)):((32,1),(16,2))"),
    ("tiled_divide", "L((4,16),(16,1)), (L(3,2), 2)", "((3,2),2,8):((32,1),16,2)"),
    ("flat_divide", "L((4,16),(16,1)), (L(3,2), 2)", "(3,2,2,8):(32,1,16,2)"),
    ("logical_divide", "L((4,6),(1,4)), 5", "(5,5):(1,5)"),
    ("logical_divide", "L((4,6),(1,5)), 3",
     "!CompositionError: inadmissible composition (4,6):(1,5) o (3,12):(1,3): the modes of B carry across A's mode "
     "boundary at 4"),  # C++ and the DSL answer (3,(2,6)):(1,(3,5)), which is not A o B
    ("logical_product", "L((4,6),(1,6)), L(3,1)", "((4,6),3):((1,6),36)"),
    ("composition", "L((4,1),(1,0)), L(8,1)", "(4,2):(1,0)"),
    ("composition", "L((4,6,1),(2,3,0)), L(30,4)", "(6,5):(3,0)"),
    ("composition", "L((4,6,1),(1,4,0)), L((6,8),(1,6))", "(6,(4,2)):(1,(6,0))"),
    ("composition", "L((6,6,6),(36,6,1)), (2, L(3,2))", "(2,3):(36,12)"),  # C++ drops A's unmatched mode
    ("upcast", "L(24,2), 8", "6:1"),
    ("upcast", "L((4,4),(4,1)), 8", "(2,1):(1,1)"),
    ("upcast", "L(((4,6),8),((1,4),24)), 8", "((1,3),8):((1,1),3)"),
    ("upcast", "L(4,3), 8", "!NotDivisibleError: upcast by 8: Divisibility condition fails for stride 3 (neither "
     "divides)"),
    ("blocked_product", "L((2,2),(1,2)), 3", "((2,3),(2,1)):((1,4),(2,0))"),
    ("raked_product", "L((2,3),(1,2)), (2,4)", "((2,2),(4,3)):((6,1),(12,2))"),
    ("zipped_divide", "L((128,128),(128,1)), (L((16,4),(4,1)), L((16,4),(4,1)))",
     "(((16,4),(16,4)),(2,2)):(((512,128),(4,1)),(8192,64))"),
    ("zipped_divide", "L((8,6,2),(1,8,48)), (4,3)", "((4,3),(2,2,2)):((1,8),(4,24,48))"),
    ("tiled_divide", "L((8,6,2),(1,8,48)), (4,3)", "((4,3),2,2,2):((1,8),4,24,48)"),
    ("flat_divide", "L((8,6,2),(1,8,48)), (4,3)", "(4,3,2,2,2):(1,8,4,24,48)"),
    ("zipped_divide", "L((8,6),(1,8)), L(4,2)", "(4,(2,6)):(2,(1,8))"),
    ("zipped_divide", "L((8,6),(1,8)), (2,2,2)", "!LayoutError: tiler (2,2,2) has rank 3 > rank 2 of (8,6):(1,8)"),
    ("logical_product", "L((2,2),(4,1)), L(6,1)", "((2,2),(2,3)):((4,1),(2,8))"),
    ("logical_product", "L((2,2),(4,1)), 6", "((2,2),(2,3)):((4,1),(2,8))"),
    ("logical_product", "L((2,5),(5,1)), (3, L(4,2))", "((2,3),(5,4)):((5,1),(1,10))"),
    ("zipped_product", "L((2,5),(5,1)), (3, L(4,2))", "((2,5),(3,4)):((5,1),(1,10))"),
    ("tiled_product", "L((2,5),(5,1)), (3, 4)", "((2,5),3,4):((5,1),1,5)"),
    ("flat_product", "L((2,5),(5,1)), (3, 4)", "(2,5,3,4):(5,1,1,5)"),
    ("blocked_product", "L((2,5),(5,1)), L((3,4),(1,3))", "((2,3),(5,4)):((5,10),(1,30))"),
    ("raked_product", "L((2,5),(5,1)), L((3,4),(1,3))", "((3,2),(4,5)):((10,5),(30,1))"),
    ("make_layout_tv", "L((4,8),(8,1)), L((2,4),(4,1))", "((8, 32), '((8,4),(4,2)):((32,2),(8,1))')"),
    ("tile_to_shape", "L((8,8),(8,1)), (32,64)", "(32,(8,8)):(8,(1,256))"),
    ("max_common_vector", "L((8,8),(8,1)), L((8,8),(8,1))", "64"),
    ("max_common_layout", "L((4,8),(1,4)), L((4,8),(1,4))", "32:1"),
    ("filter", "L((2,(1,3),4),(0,(5,1),3))", "12:1"),
    ("filter_zeros", "L((2,(1,3),4),(0,(5,1),3))", "(1,(1,3),4):(0,(5,1),3)"),
]


def _show(r: object) -> str:
    if isinstance(r, tuple):
        return repr(tuple(str(x) if isinstance(x, L) else x for x in r))
    return str(r)


@pytest.mark.parametrize(("op", "args", "expected"), CASES, ids=[f"{op}:{args}" for op, args, _ in CASES])
def test_pinned_result(op: str, args: str, expected: str) -> None:
    def call() -> str:
        return _show(eval(f"lc.{op}({args})"))  # the cases are literals in this file

    if expected.startswith("!"):
        kind, message = expected[1:].split(": ", 1)
        with pytest.raises(LayoutError) as info:
            call()
        assert type(info.value).__name__ == kind
        assert message in str(info.value)
    else:
        assert call() == expected


# -- None in a by-mode tiler of the regrouping forms: CuTe's tile_unzip, not pycute's hier_unzip ---------------------
A = L(((2, 4), 16), ((1, 2), 8))


def test_none_keeps_a_rank2_mode() -> None:
    """The kept mode ``(2,4):(1,2)`` is (tile, rest) = (2:1, 4:2); pycute would give ``((1,4),((2,4),4))``."""
    assert str(lc.zipped_divide(A, (None, 4))) == "((2,4),(4,4)):((1,8),(2,32))"
    assert str(lc.tiled_divide(A, (None, 4))) == "((2,4),4,4):((1,8),2,32)"
    assert str(lc.flat_divide(A, (None, 4))) == "(2,4,4,4):(1,8,2,32)"
    assert str(lc.zipped_product(A, (None, 4))) == "((2,16),(4,4)):((1,8),(2,1))"
    assert str(lc.zipped_divide(A, None)) == str(A)  # the whole layout is (tile, rest)


@pytest.mark.parametrize("op", ["zipped_divide", "tiled_divide", "flat_divide", "zipped_product", "tiled_product",
                                "flat_product"])
def test_none_on_a_mode_of_other_rank_is_an_error(op: str) -> None:
    with pytest.raises(LayoutError, match=rf"^{op}: None in the tiler keeps mode 8:1 as \(tile, rest\), so it must "
                                          r"have rank 2, found rank 1"):
        getattr(lc, op)(L((8, 16), (1, 8)), (None, 4))


def test_none_leaves_the_same_function_as_logical_divide() -> None:
    """Regrouping never changes which offsets appear: the leaves are logical_divide's."""
    ref = sorted(zip(flatten(lc.logical_divide(A, (None, 4)).shape), flatten(lc.logical_divide(A, (None, 4)).stride),
                     strict=True))
    z = lc.zipped_divide(A, (None, 4))
    assert sorted(zip(flatten(z.shape), flatten(z.stride), strict=True)) == ref


# -- construction: the fast check and the normalising path agree --------------------------------------------------
@pytest.mark.parametrize(
    ("shape", "stride", "expected"),
    [((2, (3, 4)), (1, (2, 6)), "(2,(3,4)):(1,(2,6))"), ([2, [3, 4]], [1, [2, 6]], "(2,(3,4)):(1,(2,6))"),
     ((np.int64(4), 2), (1, np.int32(4)), "(4,2):(1,4)"), ((2, (3, 4)), None, "(2,(3,4)):(1,(2,6))"),
     (np.int64(8), None, "8:1"), (8, None, "8:1"), ((), (), "():()"), ((1, 1), (0, 0), "(1,1):(0,0)")],
)
def test_construction_normalises(shape, stride, expected) -> None:
    layout = L(shape, stride)
    assert str(layout) == expected
    assert layout == L(layout.shape, layout.stride) and hash(layout) == hash(L(layout.shape, layout.stride))
    assert all(type(x) is int for x in flatten(layout.shape) + flatten(layout.stride))


@pytest.mark.parametrize(
    ("shape", "stride", "message"),
    [((2, 3), (1,), "differ in rank or nesting"), ((2, (3, 4)), (1, 2), "differ in rank or nesting"),
     (0, 1, "must be positive"), ((2, -1), (1, 2), "must be positive"), (True, 1, "must hold ints"),
     ((2, 2.0), (1, 2), "must hold ints"), ((2, 2), (1, 2.5), "must hold ints"), (-3, None, "must be positive")],
)
def test_construction_rejects(shape, stride, message) -> None:
    with pytest.raises(LayoutError, match=message):
        L(shape, stride)


def test_layouts_stay_frozen() -> None:
    layout = L((4, 8), (8, 1))
    with pytest.raises(AttributeError):
        layout.shape = 3  # type: ignore[misc]


@given(layouts())
def test_unchecked_constructor_equals_checked(layout: L) -> None:
    """``Layout._make`` (the algebra's) builds the very value ``Layout`` would for valid inputs."""
    made = L._make(layout.shape, layout.stride)
    assert made == layout and hash(made) == hash(layout) and str(made) == str(layout)
    assert list(made) == list(layout) and len(made) == len(layout)


@given(layouts())
def test_inttuple_fast_paths(layout: L) -> None:
    shape = layout.shape
    flat = flatten(shape)
    assert flat == tuple(_leaves(shape))
    assert product(shape) == int(np.prod(flat, dtype=object))
    assert flatten(prefix_product(shape)) == tuple(int(np.prod(flat[:i], dtype=object)) for i in range(len(flat)))


def _leaves(t: object) -> list[int]:
    return [x for m in t for x in _leaves(m)] if isinstance(t, tuple) else [t]
