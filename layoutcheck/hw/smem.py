"""SM90 GMMA shared-memory layout atoms (the 8 canonical swizzle layouts), as data.

Source: CUTLASS ``include/cute/atom/mma_traits_sm90_gmma.hpp`` (``Layout_K_SW128_Atom_Bits`` and friends: defined in
bits, then upcast to the element type) and the PTX ISA, "Shared Memory Matrix Layout" / "Tensor swizzling modes"
(wgmma descriptors: swizzle none / 32B / 64B / 128B, 16-byte atomicity, pattern period 256 / 512 / 1024 bytes).

Each atom covers 8 rows of ``W`` bytes (``W`` = 16, 32, 64, 128 for INTER, SW32, SW64, SW128)::

    K-major : (8, W/e):(W/e, 1)   elements, e = bytes per element (rows are M or N, columns K)
    MN-major: (W/e, 8):(1, W/e)   the transpose

and the swizzle acts on *byte* offsets as ``Swizzle<B,4,3>`` (B = 0,1,2,3): 16-byte chunks (bits 4..6) XOR-ed with
the row bits (7..9). In element units that is ``Swizzle<B, 4 - log2(e), 3>`` (``Sw<3,3,3>`` for 16-bit).

Hardware note (PTX ISA, wgmma): MN-major operands in shared memory are supported only for 16-bit types; tf32 and
8-bit operands must be K-major. The MN-major atoms for 8/32-bit are kept because CUTLASS defines them and they are
valid smem layouts for copies; ``wgmma_legal`` says whether wgmma may consume them.
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle, recast_swizzle
from layoutcheck.errors import LayoutError
from layoutcheck.hw.swizzle_modes import MODES, swizzle_mode

SWIZZLE_MODES: dict[str, int] = {m.gmma: m.bits for m in MODES}
"""GMMA swizzle mode -> B of ``Swizzle<B,4,3>`` on byte addresses (``hw.swizzle_modes``; PTX ISA, "Tensor swizzling
modes")."""

SWIZZLE_SPAN_BYTES: dict[str, int] = {m.gmma: m.span_bytes for m in MODES}
"""Row width of the atom in bytes (= the swizzle span; ``hw.swizzle_modes``). Source: mma_traits_sm90_gmma.hpp
``*_Atom_Bits`` / 8."""


@dataclass(frozen=True, slots=True)
class SmemAtom:
    """One GMMA shared-memory layout atom: ``swizzle o layout`` in elements of ``dtype_bits``."""

    major: str  # "K" or "MN"
    mode: str  # INTER, SW32, SW64, SW128
    dtype_bits: int
    layout: Layout  # elements, (rows, cols) as described in the module docstring
    source: str = "CUTLASS include/cute/atom/mma_traits_sm90_gmma.hpp (Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom)"

    @property
    def name(self) -> str:
        return f"Layout_{self.major}_{self.mode}_Atom<{self.dtype_bits}b>"

    @property
    def byte_swizzle(self) -> Swizzle:
        return Swizzle(SWIZZLE_MODES[self.mode], 4, 3)

    @property
    def element_swizzle(self) -> Swizzle:
        """``byte_swizzle`` on element offsets: ``Swizzle<B, 4 - log2(e), 3>``."""
        return recast_swizzle(self.byte_swizzle, 8, self.dtype_bits)

    @property
    def composed(self) -> ComposedLayout:
        """``Sw<B,M,3> o 0 o layout`` in element units, as CuTe prints ``GMMA::Layout_*_Atom<T>``."""
        return ComposedLayout(self.element_swizzle, 0, self.layout)

    @property
    def span_bytes(self) -> int:
        return SWIZZLE_SPAN_BYTES[self.mode]

    @property
    def wgmma_legal(self) -> bool:
        return self.major == "K" or self.dtype_bits == 16

    def __str__(self) -> str:
        return f"{self.name} = {self.composed}"


def normalize_mode(mode: str) -> str:
    """The GMMA name (INTER, SW32, SW64, SW128) of a swizzle mode spelt any way ``hw.swizzle_modes`` reads."""
    return swizzle_mode(mode).gmma


def gmma_smem_atom(major: str, mode: str, dtype_bits: int) -> SmemAtom:
    """The atom for ``major`` in {"K", "MN"}, a swizzle mode and an element width of 8, 16 or 32 bits.

    >>> str(gmma_smem_atom("K", "SW128", 16).composed)
    'Sw<3,3,3> o 0 o (8,64):(64,1)'
    """
    maj = major.upper()
    if maj not in ("K", "MN"):
        raise LayoutError(f"unknown major {major!r}: expected 'K' or 'MN'", key="major")
    if dtype_bits not in (8, 16, 32):
        raise LayoutError(f"GMMA smem atoms are defined for 8/16/32-bit elements, not {dtype_bits}-bit",
                          key="dtype")
    m = normalize_mode(mode)
    w = SWIZZLE_SPAN_BYTES[m] * 8 // dtype_bits
    layout = Layout((8, w), (w, 1)) if maj == "K" else Layout((w, 8), (1, w))
    return SmemAtom(maj, m, dtype_bits, layout)


def all_gmma_smem_atoms() -> list[SmemAtom]:
    return [gmma_smem_atom(maj, m, b) for maj in ("K", "MN") for m in SWIZZLE_MODES for b in (8, 16, 32)]
