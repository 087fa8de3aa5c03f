"""CUDA source of a ragged-problem kernel whose index math comes from the residue model and the TV layout.

One CTA per tile of the ``ceil_div`` grid (the model's ``grid``), ``threads`` threads; thread ``t``'s value ``v`` is
flat TV index ``i = t + threads*v``, its tile-local index is the TV layout's expression (``expr.lower.index_ast``
printed by ``expr.c``), its global coordinate and its predicate are the model's own formulas printed through
``CInt`` -- the C interpreter of ``models.sizes.IntOps`` -- so the kernel runs exactly the math ``residue_cover``
proved. Each performed access adds 1 to ``count[m + M*n]`` (column-major), so the check is "every in-bounds
element counted once, nothing outside".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from layoutcheck.algebra.layout import Layout
from layoutcheck.errors import LayoutError
from layoutcheck.expr.c import c_expr
from layoutcheck.expr.lower import index_ast
from layoutcheck.models.residue import ResidueTiling
from layoutcheck.models.sizes import IntOps


class CTerm(str):
    """A C expression over ``unsigned`` values; ``+ - *`` with ints or terms build parenthesised C."""

    def _bin(self, op: str, other: Any, swap: bool = False) -> CTerm:
        o = f"{other}u" if isinstance(other, int) else str(other)
        return CTerm(f"({o} {op} {self})" if swap else f"({self} {op} {o})")

    def __add__(self, other: Any) -> CTerm:  # type: ignore[override]
        return self._bin("+", other)

    def __radd__(self, other: Any) -> CTerm:
        return self._bin("+", other, swap=True)

    def __sub__(self, other: Any) -> CTerm:
        return self._bin("-", other)

    def __mul__(self, other: Any) -> CTerm:  # type: ignore[override]
        return self._bin("*", other)

    def __rmul__(self, other: Any) -> CTerm:  # type: ignore[override]
        return self._bin("*", other, swap=True)


def _c(x: Any) -> str:
    return f"{x}u" if isinstance(x, int) else str(x)


@dataclass(frozen=True, slots=True)
class CInt(IntOps):
    """``IntOps`` printing C: the model's size formulas become CUDA expressions."""

    def div(self, a: Any, b: Any) -> Any:
        return CTerm(f"({_c(a)} / {_c(b)})")

    def mod(self, a: Any, b: Any) -> Any:
        return CTerm(f"({_c(a)} % {_c(b)})")

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        return CTerm(f"({c} ? {_c(a)} : {_c(b)})")

    def lt(self, a: Any, b: Any) -> Any:
        return CTerm(f"({_c(a)} < {_c(b)})")

    def all(self, *cs: Any) -> Any:
        return CTerm("(" + " && ".join(map(str, cs)) + ")") if cs else CTerm("true")

    def any(self, *cs: Any) -> Any:
        return CTerm("(" + " || ".join(map(str, cs)) + ")") if cs else CTerm("false")

    def not_(self, c: Any) -> Any:
        return CTerm(f"(!{c})")


C = CInt()


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
    loc = c_expr(index_ast(tv, "i"))
    bm = tiling.tile[0]
    local = (CTerm(f"({loc} % {bm}u)"), CTerm(f"({loc} / {bm}u)"))
    m, n = tiling.coord((CTerm("blockIdx.x"), CTerm("blockIdx.y")), local)
    performed = tiling.performed((CTerm("m"), CTerm("n")), (CTerm("M"), CTerm("N")), C)
    return f"""extern "C" __global__ void {name}(unsigned* count, unsigned M, unsigned N) {{
  for (unsigned v = 0; v < {values}u; ++v) {{
    unsigned i = threadIdx.x + {threads}u * v;
    unsigned m = {m}, n = {n};
    if ({performed}) atomicAdd(&count[m + M * n], 1u);
  }}
}}
"""
