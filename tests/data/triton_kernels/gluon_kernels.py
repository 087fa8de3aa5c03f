"""Gluon kernels, where the user names every layout, for ``layoutcheck triton FILE::KERNEL`` and its tests.

``transpose_kernel`` stages a tile through shared memory with a swizzled layout: the row-major store and the
column-major load are both conflict-free. ``transpose_conflicts_kernel`` is the wrong variant: the same copy through an
unswizzled shared layout, so the column-major load puts all 32 lanes of a warp on one bank. ``cvt_kernel`` is one
``convert_layout`` between two layouts given as constexprs, and ``bank_probe`` prints Gluon's own
``bank_conflicts()`` of a register layout against a shared layout (the tests' oracle). Compiled on the CPU only.
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def _transpose(x_ptr, y_ptr, SMEM: gl.constexpr, M: gl.constexpr, N: gl.constexpr):
    rows: gl.constexpr = gl.BlockedLayout([1, 1], [1, 32], [4, 1], [1, 0])
    cols: gl.constexpr = gl.BlockedLayout([1, 1], [32, 1], [1, 4], [0, 1])
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, rows))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, rows))
    x = gl.load(x_ptr + rm[:, None] * N + rn[None, :])
    smem = gl.allocate_shared_memory(x_ptr.dtype.element_ty, [M, N], SMEM)
    smem.store(x)
    y = smem.load(cols)
    cm = gl.arange(0, M, layout=gl.SliceLayout(1, cols))
    cn = gl.arange(0, N, layout=gl.SliceLayout(0, cols))
    gl.store(y_ptr + cn[None, :] * M + cm[:, None], y)


@gluon.jit
def transpose_kernel(x_ptr, y_ptr, M: gl.constexpr, N: gl.constexpr):
    _transpose(x_ptr, y_ptr, gl.SwizzledSharedLayout(2, 1, 32, [1, 0]), M, N)


@gluon.jit
def transpose_conflicts_kernel(x_ptr, y_ptr, M: gl.constexpr, N: gl.constexpr):
    _transpose(x_ptr, y_ptr, gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), M, N)


@gluon.jit
def cvt_kernel(x_ptr, y_ptr, SRC: gl.constexpr, DST: gl.constexpr, M: gl.constexpr, N: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    x = gl.load(x_ptr + rm[:, None] * N + rn[None, :])
    y = gl.convert_layout(x, DST)
    dm = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    dn = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(y_ptr + dm[:, None] * N + dn[None, :], y)


@gluon.jit
def bank_probe(x_ptr, REG: gl.constexpr, SMEM: gl.constexpr, M: gl.constexpr, N: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, REG))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, REG))
    x = gl.load(x_ptr + rm[:, None] * N + rn[None, :])
    smem = gl.allocate_shared_memory(x_ptr.dtype.element_ty, [M, N], SMEM)
    smem.store(x)
    gl.static_print("BANK_CONFLICTS", gl.bank_conflicts(x.type, smem.type))
    gl.store(x_ptr + rm[:, None] * N + rn[None, :], smem.load(REG) + 1)
