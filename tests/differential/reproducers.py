"""Issue #15's reproducers: CuTe's semantics at the edges, with the value CuTe C++ computes for each.

Each value was printed by CUTLASS's own headers compiled with g++ (``tests/differential/test_cute_cpp.py`` re-derives
them when ``CUTLASS_INCLUDE`` is set). ``!Name`` marks a case layoutcheck rejects by name because C++'s answer breaks
the operation's law (``cpp`` then records C++'s unsound answer).
"""

from __future__ import annotations

from layoutcheck.algebra.layout import Layout as L

# (operation, arguments, C++'s answer, layoutcheck's answer when it differs: "!ErrorName")
REPRODUCERS: list[tuple[str, tuple, str, str | None]] = [
    ("logical_divide", (L(32, 1), L(3, 1)), "(3,11):(1,3)", None),
    ("logical_divide", (L((4, 16), (16, 1)), (L(3, 2), 2)), "((3,2),(2,8)):((32,16),(1,2))", None),
    ("zipped_divide", (L((4, 16), (16, 1)), (L(3, 2), 2)), "((3,2),(2,8)):((32,1),(16,2))", None),
    ("tiled_divide", (L((4, 16), (16, 1)), (L(3, 2), 2)), "((3,2),2,8):((32,1),16,2)", None),
    ("flat_divide", (L((4, 16), (16, 1)), (L(3, 2), 2)), "(3,2,2,8):(32,1,16,2)", None),
    ("zipped_divide", (L(32, 1), L(3, 1)), "(3,11):(1,3)", None),
    ("logical_divide", (L(16, 1), L(4, 8)), "(4,8):(8,1)", None),
    ("logical_divide", (L((8, 6), (1, 8)), (3, None)), "((3,3),6):((1,3),8)", None),
    ("logical_divide", (L((4, 6), (1, 4)), L(5, 1)), "(5,5):(1,5)", None),
    ("complement", (L((4, 6), (1, 6)),), "1:0", None),
    ("complement", (L((4, 10), (1, 10)),), "2:4", None),
    ("complement", (L(3, 2), (4, 6)), "(2,3):(1,6)", None),
    ("logical_product", (L((4, 6), (1, 6)), L(3, 1)), "((4,6),3):((1,6),36)", None),
    ("composition", (L((4, 1), (1, 0)), L(8, 1)), "(4,2):(1,0)", None),
    ("composition", (L((4, 6, 1), (2, 3, 0)), L(30, 4)), "(6,5):(3,0)", None),
    ("composition", (L((4, 6, 1), (1, 4, 0)), L((6, 8), (1, 6))), "(6,(4,2)):(1,(6,0))", None),
    ("composition", (L((6, 6, 6), (36, 6, 1)), (2, L(3, 2))), "(2,3):(36,12)", None),
    ("left_inverse", (L(4, 0),), "4:0", None),
    ("left_inverse", (L((2, 4, 8), (32, 0, 2)),), "(2,16,2):(0,8,1)", None),
    ("upcast", (L(24, 2), 8), "6:1", None),
    ("upcast", (L((4, 4), (4, 1)), 8), "(2,1):(1,1)", None),
    ("upcast", (L(((4, 6), 8), ((1, 4), 24)), 8), "((1,3),8):((1,1),3)", None),
    ("blocked_product", (L((2, 2), (1, 2)), L(3, 1)), "((2,3),(2,1)):((1,4),(2,0))", None),
    ("raked_product", (L((2, 3), (1, 2)), L((2, 4), (1, 2))), "((2,2),(4,3)):((6,1),(12,2))", None),
    # unsound in C++ (and the DSL): rejected, naming the law
    ("composition", (L((4, 6, 8), (2, 3, 5)), L(6, 3)), "(2,3):(6,3)", "!CompositionError"),  # CUTLASS #3177
    ("logical_divide", (L((4, 6), (1, 5)), L(3, 1)), "(3,(2,6)):(1,(3,5))", "!CompositionError"),
    ("left_inverse", (L((3, 3), (2, 1)),), "(2,3):(3,1)", "!LayoutError"),  # breaks L(R(L(i))) == L(i)
]
