"""Malformed TTGIR never crashes the importer: every failure is a LayoutcheckError (ParseError names a column)."""

from __future__ import annotations

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

from layoutcheck.errors import LayoutcheckError, ParseError
from layoutcheck.importers.triton import from_triton, import_ttgir

SEEDS = [
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
    "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>",
    "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
    "instrShape = [16, 8]}>, kWidth = 2}>",
    "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], "
    "warpsPerCTA = [4, 1], order = [1, 0]}>}>",
    "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
    "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>",
    "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>",
    "#ttg.linear<{register = [[0, 1]], lane = [[1, 0], [2, 0]], warp = [], block = []}>",
]
ALPHABET = "#<>{}[](),=:+x0123456789-_ abcdefghijklmnopqrstuvwxyz.\"@"


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["delete", "insert", "replace"]))
        ch = draw(st.sampled_from(ALPHABET))
        if op == "delete":
            text = text[:i] + text[i + 1:]
        elif op == "insert":
            text = text[:i] + ch + text[i:]
        else:
            text = text[:i] + ch + text[i + 1:]
    return text


@settings(max_examples=400)
@given(mutated(), st.sampled_from([[64, 64], [128], [16, 8], [2, 32, 32], [3, 4]]))
def test_malformed_encodings_raise_named_errors(text, shape):
    try:
        from_triton(text, shape)
    except ParseError as e:
        assert 0 <= e.pos <= len(text)
    except LayoutcheckError:
        pass


@settings(max_examples=100)
@given(mutated())
def test_malformed_files_raise_named_errors(text):
    with contextlib.suppress(LayoutcheckError):
        import_ttgir(f"#enc = {text}\n  %0 = tt.foo : tensor<64x64xf16, #enc>\n")


CUTE_SEEDS = ["((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", "S<3,4,3> o 0 o ((8,16),(64,1)):((64,512),(1,0))",
              "(64,128):(1@1,1@0)", "((4, 8):(8, 1))",
              "(4,2):(2,1)\n      0  1\n    +---+---+\n  0 | 0 | 1 |\n    +---+---+\n  1 | 2 | 3 |\n    +---+---+\n"
              "  2 | 4 | 5 |\n    +---+---+\n  3 | 6 | 7 |\n    +---+---+",
              "TiledMMA\n  ThrLayoutVMNK: (_32,_1,_1,_1):(_1,_0,_0,_0)\n"
              "  LayoutC_TV: ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))"]


@settings(max_examples=300)
@given(st.sampled_from(CUTE_SEEDS), st.integers(0, 200), st.sampled_from(ALPHABET + "|\n"), st.booleans())
def test_malformed_cute_printouts_raise_named_errors(text, i, ch, insert):
    from layoutcheck.importers.cute import from_cute

    i = min(i, len(text))
    text = text[:i] + ch + text[i + (0 if insert else 1):]
    with contextlib.suppress(LayoutcheckError):
        from_cute(text)
