"""Each Triton release's own encoding -> linear layout conversion, recorded as test data (Triton is never a runtime
dependency of layoutcheck). Run with the release on the path, on a CPU:

    pip download triton==3.6.0 --no-deps -d /tmp/w
    pip install --no-deps --target /tmp/triton36 /tmp/w/triton-3.6.0-*.whl
    PYTHONPATH=/tmp/triton36 python3 generate.py       # writes triton-3.6.0.json (likewise 3.7.0, 3.8.0)
    python3 generate.py                                # the installed Triton (3.9.0): triton-3.9.0.json

Each case is the TTGIR text of an encoding, a tensor shape, and the bases Triton's C++ ``toLinearLayout`` gives
(``GluonOpBuilder.to_linear_layout`` on the equivalent Gluon layout object). The cases stress what changed between
releases: blocked layouts on tensors smaller than ``sizePerThread`` (and than one warp or CTA tile), slices of them,
AMD MFMA layouts (and slices of them), and a spread of mma / dot_op / shared encodings (shared ones from 3.7 on: 3.6's
``to_linear_layout`` aborts on them).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import triton
import triton.experimental.gluon.language as gl
from triton._C import libtriton
from triton.experimental.gluon.language import amd


def blocked(spt, tpw, wpc, order):
    text = f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, order = {order}}}>"
    return text, gl.BlockedLayout(spt, tpw, wpc, order)


def mma(ver, warps, instr):
    text = (f"#ttg.nvidia_mma<{{versionMajor = {ver}, versionMinor = 0, warpsPerCTA = {warps}, "
            f"instrShape = {instr}}}>")
    return text, gl.NVMMADistributedLayout([ver, 0], warps, instr)


BLOCKED = [([1, 4], [8, 4], [4, 1], [1, 0]), ([4, 4], [4, 8], [1, 1], [1, 0]), ([8, 1], [4, 8], [1, 8], [0, 1]),
           ([2, 8], [8, 4], [2, 2], [1, 0]), ([1, 1], [1, 32], [2, 2], [1, 0]), ([16, 2], [2, 16], [1, 4], [0, 1])]
SMALL = [(1, 1), (1, 2), (2, 1), (2, 2), (4, 4), (1, 16), (8, 1), (2, 64), (16, 16), (128, 64)]
BLOCKED_1D = [([4], [32], [4], [0]), ([8], [32], [1], [0]), ([2], [32], [8], [0])]
SMALL_1D = [(1,), (2,), (4,), (8,), (64,), (1024,)]


def amd_mfma(version, instr, transposed, warps, tiles=None, bits=None):
    extra = (f", tilesPerWarp = {tiles}" if tiles else "") + (f", elementBitWidth = {bits}" if bits else "")
    text = (f"#ttg.amd_mfma<{{version = {version}, warpsPerCTA = {warps}, instrShape = {instr}, "
            f"isTransposed = {str(transposed).lower()}{extra}}}>")
    return text, amd.AMDMFMALayout(version=version, instr_shape=instr, transposed=transposed, warps_per_cta=warps,
                                   tiles_per_warp=tiles, element_bitwidth=bits)


AMD_MFMA = [(3, [32, 32, 8], True, [2, 2]), (3, [32, 32, 8], False, [4, 1]), (3, [16, 16, 16], False, [4, 1]),
            (3, [16, 16, 16], True, [1, 4]), (2, [32, 32, 8], False, [2, 2]), (4, [32, 32, 16], True, [2, 4]),
            (4, [16, 16, 32], False, [2, 2]), (4, [16, 16, 32], True, [2, 2], [2, 2]),
            (4, [32, 32, 16], False, [1, 4], None, 64)]


def cases(shared: bool = True):
    for (spt, tpw, wpc, order), shape in itertools.product(BLOCKED, SMALL):
        yield (*blocked(spt, tpw, wpc, order), shape)
    for (spt, tpw, wpc, order), shape in itertools.product(BLOCKED_1D, SMALL_1D):
        yield (*blocked(spt, tpw, wpc, order), shape)
    for (spt, tpw, wpc, order), d, n in itertools.product(BLOCKED[:4], (0, 1), (1, 2, 4, 64)):
        text, obj = blocked(spt, tpw, wpc, order)
        yield f"#ttg.slice<{{dim = {d}, parent = {text}}}>", gl.SliceLayout(d, obj), (n,)
    for spt, shape in itertools.product(([1, 1, 4], [2, 1, 8]), [(1, 1, 2), (2, 2, 4), (2, 64, 64)]):
        yield (*blocked(spt, [1, 4, 8], [2, 2, 1], [2, 1, 0]), shape)
    for ver, warps, instr in [(2, [2, 2], [16, 8]), (3, [4, 1], [16, 64, 16])]:
        mt, ml = mma(ver, warps, instr)
        for shape in [(16, 8), (64, 64), (128, 128)]:
            yield mt, ml, shape
        for op, kw in ((0, 2), (1, 2), (0, 4)):
            if ver == 3 and op == 1:
                continue
            yield f"#ttg.dot_op<{{opIdx = {op}, parent = {mt}, kWidth = {kw}}}>", gl.DotOperandLayout(op, ml, kw), \
                (64, 64)
    for args, shape in itertools.product(AMD_MFMA, [(16, 16), (64, 64), (128, 32), (32, 256)]):
        text, obj = amd_mfma(*args)
        yield text, obj, shape
        if shape == (64, 64):
            yield f"#ttg.slice<{{dim = 1, parent = {text}}}>", gl.SliceLayout(1, obj), (64,)
    if not shared:
        return
    for vec, per, mx, shape in [(8, 1, 8, (64, 64)), (4, 2, 4, (32, 32)), (1, 1, 1, (16, 16))]:
        yield (f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {per}, maxPhase = {mx}, order = [1, 0]}}>",
               gl.SwizzledSharedLayout(vec, per, mx, [1, 0]), shape)
    for width, bits, shape in [(128, 16, (64, 64)), (64, 16, (32, 32)), (32, 8, (16, 64))]:
        yield (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {width}, transposed = false, elementBitWidth = {bits}}}>",
               gl.NVMMASharedLayout(width, bits), shape)


def main() -> None:
    ctx = libtriton.ir.context()
    libtriton.ir.load_dialects(ctx)
    builder = libtriton.gluon_ir.GluonOpBuilder(ctx)
    out = []
    # Triton 3.6's to_linear_layout wraps every result in a distributed LinearEncodingAttr and aborts on a shared
    # layout ("Expected input dimension 0 to be 'register'"): its shared encodings are not recorded
    shared = tuple(int(x) for x in triton.__version__.split(".")[:2]) >= (3, 7)
    for text, obj, shape in cases(shared):
        try:
            got = builder.to_linear_layout(obj._to_ir(builder), list(shape))
        except Exception as e:  # a layout this release refuses (its Python-side checks): not recorded
            print(f"skipped {text} {shape}: {type(e).__name__}: {e}")
            continue
        if hasattr(got, "reg_bases"):
            bases = {"register": got.reg_bases, "lane": got.lane_bases, "warp": got.warp_bases,
                     "block": got.block_bases}
        else:
            bases = {"offset": got.offset_bases, "block": got.block_bases}
        out.append({"encoding": text, "shape": list(shape), "bases": bases})
    path = Path(__file__).with_name(f"triton-{triton.__version__}.json")
    lines = ",\n".join(json.dumps(c, separators=(",", ":")) for c in out)  # one case per line
    path.write_text(f'{{"triton": "{triton.__version__}", "cases": [\n{lines}\n]}}\n')
    print(f"{path.name}: {len(out)} cases")


if __name__ == "__main__":
    main()
