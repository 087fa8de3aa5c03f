"""Global-memory and warp facts used by the transaction models.

Sources: CUDA C++ Programming Guide, "Hardware Implementation" (a warp is 32 threads); CUDA C++ Best Practices Guide,
"Coalesced Access to Global Memory" (memory moves in 32-byte sectors; 128-byte L1/L2 lines of 4 sectors); PTX ISA
"ld" / "st" (vector operands: the widest per-thread global access is 16 bytes, ``.v4.b32`` / ``.b128``).
"""

from __future__ import annotations

WARP_SIZE = 32
"""Threads per warp (CUDA C++ Programming Guide, "Hardware Implementation")."""

SECTOR_BYTES = 32
"""Global memory moves in 32-byte sectors (CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory")."""

LINE_BYTES = 128
"""An L1/L2 cache line: 4 sectors (same guide; Nsight Compute "Memory Statistics - Global")."""

MAX_VECTOR_BYTES = 16
"""Widest per-thread global load/store: ``ld/st.global.v4.b32`` (PTX ISA "ld", vector operands)."""
