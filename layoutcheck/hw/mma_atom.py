"""The MMA atom record: one hardware matrix-multiply instruction as data (shape, thread ids, the TV layouts of A, B
and C in CuTe's convention; ``layoutcheck.hw.mma`` explains the convention with a worked example).

The SM80 table (``layoutcheck.hw.mma``) and the SM90 warpgroup table (``layoutcheck.hw.wgmma``) both build these
records; ``layoutcheck.hw.mma.mma_atom`` looks any of them up by name.
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.display import render


@dataclass(frozen=True, slots=True)
class MmaAtom:
    """One MMA instruction: shape, thread ids and the TV layouts of A, B and C (CuTe convention, module docstring)."""

    name: str
    shape_mnk: tuple[int, int, int]
    thr_id: Layout  # logical thread -> thread index
    tv_layout_A: Layout  # (T,V) -> m + M*k
    tv_layout_B: Layout  # (T,V) -> n + N*k
    tv_layout_C: Layout  # (T,V) -> m + M*n
    dtype_a: str
    dtype_b: str
    dtype_c: str
    dtype_d: str
    ptx: str  # the instruction, or "fma" for the SIMT atom
    source: str

    @property
    def num_threads(self) -> int:
        return size(self.thr_id)

    @property
    def values_per_thread(self) -> tuple[int, int, int]:
        """``(A, B, C)`` register elements per thread."""
        return tuple(size(tv[1]) for tv in (self.tv_layout_A, self.tv_layout_B, self.tv_layout_C))  # type: ignore[return-value]

    def __str__(self) -> str:
        m, n, k = self.shape_mnk
        return (f"{self.name} [{m}x{n}x{k}, {self.num_threads} thr] A={self.tv_layout_A} B={self.tv_layout_B} "
                f"C={self.tv_layout_C}")

    def _repr_html_(self) -> str:
        """Jupyter: the TV layouts of A (M x K), B (N x K) and C (M x N), as CuTe's ``print_svg`` draws them."""
        return render(self, "html")
