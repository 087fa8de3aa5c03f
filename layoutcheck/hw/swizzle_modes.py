"""Shared-memory swizzle modes: one name per mode, and every other spelling converted here, nowhere else.

The same four modes of ``Swizzle<B,4,3>`` on byte addresses go by three families of names::

    name (here, specs, CUtensorMapSwizzle)   none    32B    64B    128B
    CUTLASS GMMA (Layout_*_Atom, LayoutType) INTER   SW32   SW64   SW128
    tcgen05 / UMMA layout type               SWIZZLE_NONE  SWIZZLE_32B  SWIZZLE_64B  SWIZZLE_128B
    B of Swizzle<B,4,3> (bytes)              0       1      2      3
    bytes of one swizzled row (atom width)   16      32     64     128

The package names a mode by ``SwizzleMode.name`` (the spec's word); a family's table may key its own facts by that
family's name (``hw.smem`` by the GMMA one, ``hw.tcgen05`` by the UMMA one), and converts with ``swizzle_mode`` --
the one place that reads any spelling (case-insensitive; ``INTERLEAVE`` for ``INTER``). UMMA's extra mode
``SWIZZLE_128B_BASE32B`` has no GMMA or TMA counterpart and lives in ``hw.tcgen05`` alone.

Sources: PTX ISA 5.5.7 "Swizzling Modes" and 9.7.15.5.1 (wgmma matrix descriptor, swizzle modes); CUDA driver API
``CUtensorMapSwizzle``; CUTLASS ``cute/atom/mma_traits_sm90_gmma.hpp`` (``Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom``)
and ``cute/arch/mma_sm100_desc.hpp`` (``UMMA::LayoutType``).

>>> swizzle_mode("SW128").name, swizzle_mode("128b").gmma, swizzle_mode("interleave").umma
('128B', 'SW128', 'SWIZZLE_NONE')
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutcheck.errors import LayoutError

SOURCE = ('PTX ISA 5.5.7 "Swizzling Modes"; CUDA driver API CUtensorMapSwizzle; CUTLASS mma_traits_sm90_gmma.hpp '
          "(Layout_*_Atom), mma_sm100_desc.hpp (UMMA::LayoutType)")


@dataclass(frozen=True, slots=True)
class SwizzleMode:
    """One swizzle mode: its name, ``B`` of ``Swizzle<B,4,3>`` on bytes, its row width, and its families' names."""

    name: str
    bits: int
    span_bytes: int
    gmma: str
    umma: str
    source: str = SOURCE


MODES: tuple[SwizzleMode, ...] = (
    SwizzleMode("none", 0, 16, "INTER", "SWIZZLE_NONE"),
    SwizzleMode("32B", 1, 32, "SW32", "SWIZZLE_32B"),
    SwizzleMode("64B", 2, 64, "SW64", "SWIZZLE_64B"),
    SwizzleMode("128B", 3, 128, "SW128", "SWIZZLE_128B"),
)
"""The four modes, by ``bits``."""

_SPELLINGS: dict[str, SwizzleMode] = {
    **{s.upper(): m for m in MODES for s in (m.name, m.gmma, m.umma)},
    "INTERLEAVE": MODES[0],
}


def swizzle_mode(name: str) -> SwizzleMode:
    """The mode any family calls ``name`` (``128B``, ``SW128``, ``SWIZZLE_128B``, ``none``, ``INTER``; any case).

    Post: ``swizzle_mode(m.name) == swizzle_mode(m.gmma) == swizzle_mode(m.umma) == m``.
    """
    mode = _SPELLINGS.get(name.upper()) if isinstance(name, str) else None
    if mode is None:
        raise LayoutError(f"unknown swizzle mode {name!r}: expected one of none, 32B, 64B, 128B (or CUTLASS's "
                          "INTER, SW32, SW64, SW128, or UMMA's SWIZZLE_NONE ... SWIZZLE_128B)")
    return mode


def mode_of_bits(bits: int) -> SwizzleMode:
    """The mode whose byte swizzle is ``Swizzle<bits,4,3>``.

    >>> mode_of_bits(2).name
    '64B'
    """
    for m in MODES:
        if m.bits == bits:
            return m
    raise LayoutError(f"no swizzle mode has Swizzle<{bits},4,3> (modes: B = 0, 1, 2, 3)")


__all__ = ["MODES", "SwizzleMode", "mode_of_bits", "swizzle_mode"]
