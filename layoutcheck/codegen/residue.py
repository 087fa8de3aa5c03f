"""CUDA source of a ragged-problem kernel whose index math comes from the residue model and the TV layout.

One CTA per tile of the ``ceil_div`` grid (the model's ``grid``), ``threads`` threads; thread ``t``'s value ``v`` is
flat TV index ``i = t + threads*v``, its tile-local index is the TV layout's expression (``expr.lower.index_ast``
printed by ``expr.c``), its global coordinate and its predicate are the model's own formulas, built as expression
trees over the kernel's variables and printed by the same C interpreter -- so the kernel runs exactly the math
``residue_cover`` proved. Each performed access adds 1 to ``count[m + M*n]`` (column-major), so the check is
"every in-bounds element counted once, nothing outside".
"""

from __future__ import annotations

from layoutcheck.algebra.layout import Layout
from layoutcheck.errors import LayoutError
from layoutcheck.expr.c import c_expr
from layoutcheck.expr.ir import var
from layoutcheck.expr.lower import index_ast
from layoutcheck.models.residue import ResidueTiling

_UNSIGNED = 1 << 32


def residue_kernel(tiling: ResidueTiling, threads: int, name: str = "residue_count") -> str:
    """The kernel ``name(unsigned* count, unsigned M, unsigned N)`` for a 2-D tiling (grid ``tiling.grid``).

    Pre: two modes; ``threads`` divides the tile's size. Post: launched on ``tiling.grid((M, N))`` blocks of
    ``threads``, it adds 1 to ``count[m + M*n]`` for every performed access ``(m, n)``.
    """
    if len(tiling.dims) != 2 or tiling.tile_size % threads:
        raise LayoutError(f"residue kernel: a 2-D tiling whose tile size {tiling.tile_size} is a multiple of "
                          f"{threads} threads, found {tiling}")
    values = tiling.tile_size // threads
    tv = tiling.tv if tiling.tv is not None else Layout(tiling.tile_size)
    loc = index_ast(tv, "i")
    bm, bn = tiling.tile
    blocks = (var("blockIdx.x", _UNSIGNED // bm), var("blockIdx.y", _UNSIGNED // bn))  # coordinates stay < 2^32
    m, n = tiling.coord(blocks, (loc % bm, loc // bm))
    performed = tiling.performed((var("m", _UNSIGNED), var("n", _UNSIGNED)), (var("M", _UNSIGNED),
                                                                             var("N", _UNSIGNED)))
    return f"""extern "C" __global__ void {name}(unsigned* count, unsigned M, unsigned N) {{
  for (unsigned v = 0; v < {values}u; ++v) {{
    unsigned i = threadIdx.x + {threads}u * v;
    unsigned m = {c_expr(m)}, n = {c_expr(n)};
    if ({c_expr(performed)}) atomicAdd(&count[m + M * n], 1u);
  }}
}}
"""
