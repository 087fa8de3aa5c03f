"""Differential tests against Triton's own linear layouts (a test-only oracle, ``pip install triton``; it runs on a
CPU): each encoding is written twice, as TTGIR text for ``from_triton`` and as a Gluon layout object that Triton's
C++ ``toLinearLayout`` converts (``GluonOpBuilder.to_linear_layout``); the bases must be equal. Skipped without
Triton. Encodings Triton rejects with an abort (an invalid TMA box, a TMEM block larger than the tensor) are not
generated: the oracle would kill the test process.
"""

from __future__ import annotations

import itertools

import pytest

from layoutcheck.importers.triton import from_triton, padding

gl = pytest.importorskip("triton.experimental.gluon.language")
libtriton = pytest.importorskip("triton._C.libtriton")
bw = pytest.importorskip("triton.experimental.gluon.language.nvidia.blackwell")


@pytest.fixture(scope="module")
def builder():
    ctx = libtriton.ir.context()
    libtriton.ir.load_dialects(ctx)
    return ctx, libtriton.gluon_ir.GluonOpBuilder(ctx)


def oracle(builder, layout, shape) -> dict:
    got = builder[1].to_linear_layout(layout._to_ir(builder[1]), list(shape))
    if hasattr(got, "reg_bases"):
        return {"register": got.reg_bases, "lane": got.lane_bases, "warp": got.warp_bases, "block": got.block_bases}
    if hasattr(got, "offset_bases"):
        return {"offset": got.offset_bases, "block": got.block_bases}
    return {"row": got.rows, "col": got.cols}


def _cga(cga):
    return f", CGALayout = {cga}" if cga else ""


def blocked(spt, tpw, wpc, order, cga=()):
    text = (f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, "
            f"order = {order}{_cga(list(cga))}}}>")
    return text, gl.BlockedLayout(spt, tpw, wpc, order, [list(b) for b in cga])


def mma(ver, warps, instr, cga=()):
    text = (f"#ttg.nvidia_mma<{{versionMajor = {ver}, versionMinor = 0, warpsPerCTA = {warps}, instrShape = "
            f"{instr}{_cga(list(cga))}}}>")
    return text, gl.NVMMADistributedLayout([ver, 0], warps, instr, [list(b) for b in cga])


BLOCKED = [([1, 4], [8, 4], [4, 1], [1, 0]), ([1, 1], [1, 32], [2, 2], [1, 0]), ([4, 1], [32, 1], [1, 4], [0, 1]),
           ([2, 2], [4, 8], [2, 2], [0, 1]), ([8, 1], [4, 8], [1, 8], [0, 1])]
SHAPES_2D = [(128, 64), (16, 16), (4, 256), (1, 32), (256, 1), (64, 512)]
MMAS = [(2, [2, 2], [16, 8]), (2, [4, 1], [16, 8]), (2, [1, 8], [16, 8]), (3, [4, 1], [16, 64, 16]),
        (3, [8, 1], [16, 128, 16]), (3, [4, 2], [16, 32, 16]), (3, [4, 1], [16, 256, 8])]


def distributed_cases():
    for (spt, tpw, wpc, order), shape in itertools.product(BLOCKED, SHAPES_2D):
        yield (*blocked(spt, tpw, wpc, order), shape)
    for cga in ([[0, 1]], [[1, 0], [2, 0]], [[0, 0]], [[0, 1], [1, 0]]):
        for shape in [(128, 64), (32, 32), (2, 2)]:
            yield (*blocked([1, 4], [8, 4], [4, 1], [1, 0], cga), shape)
    for shape in [(2, 64, 64), (8, 4, 32), (1, 1, 128)]:
        yield (*blocked([1, 1, 4], [1, 4, 8], [2, 2, 1], [2, 1, 0]), shape)
        yield (*blocked([2, 1, 1], [2, 2, 8], [1, 1, 4], [0, 2, 1]), shape)
    for ver, warps, instr in MMAS:
        mt, ml = mma(ver, warps, instr)
        for shape in [(128, 128), (64, 64), (16, 8), (256, 32), (32, 256)]:
            yield mt, ml, shape
        for op, kw in itertools.product((0, 1), (1, 2, 4, 8)):
            if ver == 3 and op == 1:
                continue
            for shape in [(128, 64), (64, 128), (16, 32), (32, 16)]:
                yield f"#ttg.dot_op<{{opIdx = {op}, parent = {mt}, kWidth = {kw}}}>", gl.DotOperandLayout(op, ml, kw), \
                    shape
        for d in (0, 1):
            yield f"#ttg.slice<{{dim = {d}, parent = {mt}}}>", gl.SliceLayout(d, ml), (128,)
            dot = f"#ttg.dot_op<{{opIdx = 0, parent = {mt}, kWidth = 2}}>"
            yield f"#ttg.slice<{{dim = {d}, parent = {dot}}}>", gl.SliceLayout(d, gl.DotOperandLayout(0, ml, 2)), (64,)
    mt, ml = mma(2, [2, 2, 1], [1, 16, 8])
    for shape in [(2, 64, 64), (4, 32, 16)]:
        yield mt, ml, shape
        yield f"#ttg.dot_op<{{opIdx = 0, parent = {mt}, kWidth = 2}}>", gl.DotOperandLayout(0, ml, 2), shape
    mt, ml = mma(2, [2, 2], [16, 8], [[1, 0]])
    yield mt, ml, (128, 128)
    yield f"#ttg.dot_op<{{opIdx = 1, parent = {mt}, kWidth = 2}}>", gl.DotOperandLayout(1, ml, 2), (64, 128)
    bt, bl = blocked([1, 4], [8, 4], [4, 1], [1, 0])
    for d, s in itertools.product((0, 1), (64, 8, 256)):
        yield f"#ttg.slice<{{dim = {d}, parent = {bt}}}>", gl.SliceLayout(d, bl), (s,)
    lin = {"register": [[0, 1], [0, 2], [4, 0]], "lane": [[1, 0], [2, 0], [0, 4], [0, 8], [0, 0]],
           "warp": [[8, 0], [0, 16]], "block": []}
    text = "#ttg.linear<{" + ", ".join(f"{k} = {v}" for k, v in lin.items()) + "}>"
    yield text, gl.DistributedLinearLayout(lin["register"], lin["lane"], lin["warp"], lin["block"], [16, 32]), (16, 32)


def shared_cases():
    for (vec, pp, mp, order), shape in itertools.product(
            [(8, 1, 8, [1, 0]), (4, 2, 4, [1, 0]), (8, 4, 2, [0, 1]), (1, 1, 1, [1, 0]), (2, 1, 4, [0, 1])],
            [(64, 64), (128, 32), (16, 256), (8, 8)]):
        yield (f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {pp}, maxPhase = {mp}, order = {order}}}>",
               gl.SwizzledSharedLayout(vec, pp, mp, order), shape)
    for shape in [(2, 32, 64), (4, 8, 16)]:
        yield ("#ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>",
               gl.SwizzledSharedLayout(4, 1, 8, [2, 1, 0]), shape)
    yield ("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CGALayout = [[0, 1]]}>",
           gl.SwizzledSharedLayout(8, 1, 8, [1, 0], [[0, 1]]), (64, 128))
    for sw, bits, tr in itertools.product((0, 32, 64, 128), (8, 16, 32), (False, True)):
        text = (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {sw}, transposed = {str(tr).lower()}, "
                f"elementBitWidth = {bits}}}>")
        shapes = [(128, 64), (64, 128), (64, 256), (256, 64), (32, 32), (512, 16)]
        for shape in shapes + ([] if tr else [(2, 64, 64), (4, 8, 128)]):
            if (shape[0] if tr else shape[-1]) * bits // 8 < sw:  # Triton aborts: no valid TMA box
                continue
            yield text, gl.NVMMASharedLayout(sw, bits, len(shape), transposed=tr), shape
    for iv, order, shape in [([[32, 4]], [1, 0], [64, 64]), ([[512, 16]], [0, 1], [128, 32]),
                             ([[4, 4], [64, 8]], [1, 0], [16, 256])]:
        text = (f"#ttg.padded_shared<[{', '.join(f'{i}:+{p}' for i, p in iv)}] {{order = {order}, shape = "
                f"{list(shape)}}}>")
        yield text, gl.PaddedSharedLayout.with_identity_for(iv, shape, order), tuple(shape)


def oracle_padded(layout) -> dict:
    """Triton has no linear layout for a padded encoding (it aborts); Gluon's own linear component is the oracle."""
    return {"offset": layout.offset_bases, "block": []}


def tmem_cases():
    for (bm, bn, cs), shape in itertools.product([(128, 128, 1), (64, 64, 1), (128, 64, 2), (64, 128, 1)],
                                                 [(128, 128), (256, 64), (64, 64), (128, 256), (128, 32)]):
        if shape[0] < bm:  # Triton aborts: the block is larger than the tensor
            continue
        yield (f"#ttng.tensor_memory_encoding<blockM = {bm}, blockN = {bn}, colStride = {cs}>",
               bw.TensorMemoryLayout((bm, bn), col_stride=cs), shape)


CASES = [*distributed_cases(), *shared_cases(), *tmem_cases()]


def test_enough_cases():
    assert len(CASES) > 350


@pytest.mark.parametrize("i", range(0, len(CASES), 25))
def test_bases_equal_tritons(builder, i):
    for text, layout, shape in CASES[i:i + 25]:
        want = oracle_padded(layout) if "padded" in text else oracle(builder, layout, shape)
        assert from_triton(text, shape).bases == want, (text, shape)


def test_padding_intervals():
    assert padding("#ttg.padded_shared<[4:+4, 64:+8] {order = [1, 0], shape = [16, 256]}>") == ((4, 4), (64, 8))
