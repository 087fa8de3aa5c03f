"""The TTGIR attribute parser: aliases, nesting, and errors that name the offending token."""

from __future__ import annotations

import pytest

from layoutcheck.errors import LayoutError, ParseError
from layoutcheck.importers.triton import from_triton, import_ttgir, parse_attr, parse_ttgir

BLOCKED = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"


def test_worked_example():
    ll = from_triton(BLOCKED, [128, 64])
    assert ll.bases["register"] == [[0, 1], [0, 2], [0, 16], [0, 32], [32, 0], [64, 0]]
    assert ll.bases["lane"] == [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]]
    assert ll.out_dims == (("dim0", 128), ("dim1", 64))


def test_aliases_resolve_through_a_file():
    text = f"""#blocked = {BLOCKED}
#mma = #ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}}>
module {{
  %0 = ttg.local_load %a : !ttg.memdesc<64x32xf16, #shared, #smem> -> \
tensor<64x32xf16, #ttg.dot_op<{{opIdx = 0, parent = #mma, kWidth = 2}}>>
  %1 = tt.splat %p : !tt.ptr<f32> -> tensor<128x64x!tt.ptr<f32>, #blocked>
}}"""
    t = parse_ttgir(text)
    assert set(t.aliases) == {"blocked", "mma"}
    assert [(u.kind, u.shape, u.element) for u in t.uses] == [
        ("memdesc", (64, 32), "f16"), ("tensor", (64, 32), "f16"), ("tensor", (128, 64), "!tt.ptr<f32>")]
    with pytest.raises(ParseError, match="line 4: unknown alias '#shared'"):
        import_ttgir(text)
    imported = import_ttgir(text.replace("#shared, #smem", "#ttg.swizzled_shared<{vec = 8, perPhase = 1, "
                                                            "maxPhase = 8, order = [1, 0]}>, #smem"))
    assert imported[0].shared and imported[0].layout.in_dims == ("offset", "block")
    assert imported[1].layout is not None and imported[1].layout.in_dim_size("lane") == 32


@pytest.mark.parametrize(("text", "token", "what"), [
    ("#ttg.blocked<{sizePerThread = [1, 4] threadsPerWarp = [8, 4]}>", "threadsPerWarp", "expected ',' or '}'"),
    ("#ttg.blocked<{sizePerThread = [1, 4}>", "}", "expected ',' or ']'"),
    ("#ttg.blocked<{sizePerThread = [1, 4], order = [1, 0]}> junk", "junk", "after a complete attribute"),
    ("#blocked7", "#blocked7", "unknown alias"),
    ("ttg.blocked<{}>", "ttg.blocked", "expected an attribute"),
    ("#ttg.blocked<{order = [1, ?]}>", "?", "expected a value"),
])
def test_errors_name_the_offending_token(text, token, what):
    with pytest.raises(ParseError) as e:
        parse_attr(text)
    assert what in str(e.value)
    assert text[e.value.pos:].startswith(token)


def test_semantic_errors_name_the_parameter():
    with pytest.raises(ParseError, match="needs the parameter 'warpsPerCTA'"):
        from_triton("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], order = [0]}>", [64])
    with pytest.raises(ParseError, match="order has 2 entries, the tensor has rank 1"):
        from_triton(BLOCKED, [64])
    with pytest.raises(LayoutError, match="power of two"):
        from_triton(BLOCKED, [96, 64])
    with pytest.raises(ParseError, match=r"unsupported encoding #ttg\.amd_mfma"):
        from_triton("#ttg.amd_mfma<{version = 3}>", [32, 32])
