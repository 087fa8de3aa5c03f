"""Shared-memory banks and the warp-wide shared-memory access kinds, as data.

Sources:
- CUDA C++ Programming Guide, "Shared Memory" (compute capability 5.x and later, also 8.x/9.x): 32 banks, successive
  32-bit words in successive banks; a shared-memory request of a warp is split into conflict-free requests; lanes that
  read the same 32-bit word get it broadcast (no conflict); for 64-bit and 128-bit accesses the warp is split into
  half-warps / quarter-warps ("phases").
- PTX ISA, "ld", "st" (vector forms ``.v2``/``.v4`` of ``.b32``), "ldmatrix" and "stmatrix" (``.m8n8.x1/.x2/.x4``,
  ``.trans``): each 8x8 b16 matrix is 8 rows of 16 bytes whose addresses come from 8 lanes (lanes 0-7 for matrix 0,
  8-15 for matrix 1, ...); ``.x1`` uses lanes 0-7, ``.x2`` lanes 0-15, ``.x4`` all 32; other lanes' addresses are
  ignored. Rows must be 16-byte aligned.
- CUTLASS ``include/cute/atom/copy_traits_sm75.hpp`` / ``copy_traits_sm90.hpp`` (``SM75_U32x{1,2,4}_LDSM_N``,
  ``SM75_U16x{2,4,8}_LDSM_T``, ``SM90_U32x{1,2,4}_STSM_N``): the same lane -> row-address assignment.
- Measured (``layoutcheck/gpu/bank_probe.py``, Nsight Compute ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}``
  on an H100): the wavefront rules of ``layoutcheck/banks.py``; see ``docs/banks.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

BANKS = 32
"""Number of shared-memory banks (CUDA Programming Guide, "Shared Memory", cc >= 5.x)."""

BANK_BYTES = 4
"""Width of one bank (one 32-bit word per bank per wavefront)."""



def word(byte_address: Any) -> Any:
    """The 32-bit word a shared-memory byte address lies in: ``a // 4`` (ints or NumPy arrays).

    >>> word(132)
    33
    """
    return byte_address // BANK_BYTES


def bank_of_word(w: Any) -> Any:
    """The bank of 32-bit word ``w``: successive words in successive banks, ``w % 32`` (ints or NumPy arrays)."""
    return w % BANKS


def bank(byte_address: Any) -> Any:
    """The bank of a shared-memory byte address: ``(a // 4) % 32``, the one bank formula of the package.

    >>> bank(132), bank(128)
    (1, 0)
    """
    return bank_of_word(word(byte_address))


LDSM_ROW_BYTES = 16
"""One ldmatrix/stmatrix row: 8 b16 elements = 16 bytes (PTX ISA, ldmatrix, ``.m8n8``)."""

LDSM_ROWS = 8
"""Rows per 8x8 matrix, hence address-supplying lanes per matrix (PTX ISA, ldmatrix)."""

_GUIDE = 'CUDA C++ Programming Guide, "Shared Memory" (banks; 64/128-bit accesses split into half/quarter warps)'
_PTX_LDST = "PTX ISA, ld / st (.shared, .v2/.v4 .b32)"
_PTX_LDSM = "PTX ISA, ldmatrix (.m8n8 .x1/.x2/.x4 [.trans] .shared.b16); CUTLASS copy_traits_sm75.hpp (SM75_*_LDSM_*)"
_PTX_STSM = "PTX ISA, stmatrix (.m8n8 .x1/.x2/.x4 [.trans] .shared.b16, sm_90); CUTLASS copy_traits_sm90.hpp (STSM)"


@dataclass(frozen=True, slots=True)
class AccessKind:
    """One warp-wide shared-memory instruction form.

    ``bytes`` is what one address covers (a lane's vector for ld/st; a 16-byte row for ldmatrix/stmatrix);
    ``phase_lanes`` how many consecutive lanes form one phase; ``address_lanes`` how many lanes (0..n-1) supply an
    address (the others are ignored).
    """

    name: str
    op: str  # "ld" or "st"
    bytes: int
    phase_lanes: int
    address_lanes: int
    matrices: int  # 8x8 b16 matrices for ldmatrix/stmatrix, 0 for plain ld/st
    trans: bool
    ptx: str
    sass: str
    source: str
    merge_lane_xor: tuple[int, ...] = ()
    """Phase merging (measured on H100, docs/banks.md): when, for one x in this tuple, ``addr[l] == addr[l ^ x]``
    for every lane l, the phases merge into groups of ``merge_group_lanes`` lanes ((1, 2) for LDS.64 and LDS.128;
    empty = never merges: stores, ldmatrix, stmatrix, loads of <= 32 bits; x = 4, 8 measured NOT to merge)."""
    merge_group_lanes: int = 0

    @property
    def words(self) -> int:
        """4-byte words one address covers (a sub-word access touches part of one word)."""
        return max(1, self.bytes // BANK_BYTES)

    @property
    def unit_bytes(self) -> int:
        """Bytes of the aligned unit one address covers (its ``words`` words): ``max(bytes, 4)``."""
        return max(self.bytes, BANK_BYTES)

    @property
    def bank_groups(self) -> int:
        """Groups of ``words`` consecutive banks an aligned unit can occupy: ``32 / words``."""
        return BANKS // self.words

    @property
    def phases(self) -> int:
        return self.address_lanes // self.phase_lanes

    @property
    def is_matrix(self) -> bool:
        return self.matrices > 0

    def __str__(self) -> str:
        return self.name


def _plain(name: str, op: str, nbytes: int) -> AccessKind:
    bits = nbytes * 8
    vec = {4: "", 8: ".v2", 16: ".v4"}.get(nbytes, "")
    typ = {1: ".u8", 2: ".u16"}.get(nbytes, ".b32")
    phase = {8: 16, 16: 8}.get(nbytes, 32)
    sass = ("LDS" if op == "ld" else "STS") + ({1: ".U8", 2: ".U16", 8: ".64", 16: ".128"}.get(nbytes, ""))
    merges = op == "ld" and nbytes > BANK_BYTES  # measured on H100 (docs/banks.md)
    return AccessKind(name, op, nbytes, phase, 32, 0, False, f"{op}.shared{vec}{typ}", sass,
                      f"{_GUIDE}; {_PTX_LDST} ({bits}-bit per lane)", (1, 2) if merges else (),
                      2 * phase if merges else 0)


def _matrix(op: str, x: int, trans: bool) -> AccessKind:
    name = ("ldsm" if op == "ld" else "stsm") + f"_x{x}" + ("_trans" if trans else "")
    verb = "ldmatrix" if op == "ld" else "stmatrix"
    ptx = f"{verb}.sync.aligned.m8n8.x{x}{'.trans' if trans else ''}.shared.b16"
    sass = ("LDSM" if op == "ld" else "STSM") + (".16.MT88" if trans else ".16.M88") + (f".{x}" if x > 1 else "")
    return AccessKind(name, op, LDSM_ROW_BYTES, LDSM_ROWS, LDSM_ROWS * x, x, trans, ptx, sass,
                      _PTX_LDSM if op == "ld" else _PTX_STSM)


ACCESS_KINDS: dict[str, AccessKind] = {
    k.name: k
    for k in [
        *(_plain(f"lds{8 * b}", "ld", b) for b in (1, 2, 4, 8, 16)),
        *(_plain(f"sts{8 * b}", "st", b) for b in (1, 2, 4, 8, 16)),
        *(_matrix(op, x, t) for op in ("ld", "st") for t in (False, True) for x in (1, 2, 4)),
    ]
}
"""Every modelled access kind by name: lds8..lds128, sts8..sts128, ldsm_x{1,2,4}[_trans], stsm_x{1,2,4}[_trans]."""


def access_kind(name: str | AccessKind) -> AccessKind:
    """Look up an access kind by name (``"lds64"``, ``"ldsm_x4_trans"``, ...)."""
    from layoutcheck.errors import LayoutError

    if isinstance(name, AccessKind):
        return name
    try:
        return ACCESS_KINDS[name]
    except KeyError:
        raise LayoutError(f"unknown shared-memory access kind {name!r}: expected one of {', '.join(ACCESS_KINDS)}") \
            from None
