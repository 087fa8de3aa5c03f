"""Element types: the one table of their names, storage widths and the names other tools give them.

Every width in the package is read from ``DTYPES`` (``bits``/``nbytes``); an instruction family that accepts only some
types lists their *names* (``hw.wgmma.GMMA_TYPES``, ``hw.tcgen05.UMMA_TYPES``) and takes the widths from here, so
two tables cannot disagree on a width again (they did on ``tf32``).

Widths are the *storage* widths: what one element occupies in memory (PTX ISA 5.2.1 "Fundamental Types",
5.2.5 "Alternate Floating-Point Data Formats": ``.tf32`` has the range of ``.f32`` and reduced precision, and is
stored in a 32-bit container, so ``tf32`` is 32 bits here; the sub-byte formats ``e2m3``/``e3m2`` (6) and ``e2m1``
(4) are their packed widths as tcgen05.mma reads them, PTX ISA 9.7.16.10.1 "Data types").

``tma`` is the ``CUtensorMapDataType`` a tensor of that type is encoded with, as CUTLASS picks it
(``cute/arch/copy_sm90_desc.hpp``, ``to_CUtensorMapDataType<T>``: ``tfloat32_t`` -> ``TFLOAT32``; 8-bit floats and
integers travel as ``UINT8``); ``""`` for a type with no whole-byte tensor map here. ``c_type`` is the C type that holds
one element's bits in generated kernels.

>>> bits("tf32"), nbytes("bf16"), DTYPES["e4m3"].tma
(32, 2, 'uint8')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

PTX_TYPES = 'PTX ISA 5.2 "Types" (fundamental and alternate floating-point formats)'
CUTLASS_TMA = "CUTLASS cute/arch/copy_sm90_desc.hpp, to_CUtensorMapDataType<T>"


@dataclass(frozen=True, slots=True)
class Dtype:
    """One element type: its PTX ISA name, storage width in bits, tensor-map type and C storage type."""

    name: str
    bits: int
    tma: str
    c_type: str
    source: str = f"{PTX_TYPES}; {CUTLASS_TMA}"

    @property
    def nbytes(self) -> int:
        """Bytes of one element; a sub-byte type counts 1 (it shares its byte)."""
        return max(1, self.bits // 8)


_B8, _B16, _B32, _B64 = "unsigned char", "unsigned short", "unsigned int", "unsigned long long"

DTYPES: dict[str, Dtype] = {
    d.name: d
    for d in (
        Dtype("f64", 64, "float64", "double"), Dtype("s64", 64, "int64", "long long"),
        Dtype("u64", 64, "uint64", _B64), Dtype("b64", 64, "uint64", _B64),
        Dtype("f32", 32, "float32", "float"), Dtype("tf32", 32, "tfloat32", "float"),
        Dtype("s32", 32, "int32", "int"), Dtype("u32", 32, "uint32", _B32), Dtype("i32", 32, "int32", "int"),
        Dtype("b32", 32, "uint32", _B32),
        Dtype("f16", 16, "float16", _B16), Dtype("bf16", 16, "bfloat16", _B16), Dtype("s16", 16, "uint16", _B16),
        Dtype("u16", 16, "uint16", _B16), Dtype("b16", 16, "uint16", _B16),
        Dtype("s8", 8, "uint8", _B8), Dtype("u8", 8, "uint8", _B8), Dtype("i8", 8, "uint8", _B8),
        Dtype("b8", 8, "uint8", _B8), Dtype("e4m3", 8, "uint8", _B8), Dtype("e5m2", 8, "uint8", _B8),
        Dtype("f8", 8, "uint8", _B8),  # any 8-bit float
        Dtype("ue8m0", 8, "uint8", _B8), Dtype("ue4m3", 8, "uint8", _B8),  # block-scale factors
        Dtype("e2m3", 6, "", _B8), Dtype("e3m2", 6, "", _B8), Dtype("e2m1", 4, "", _B8),
    )
}
"""PTX ISA type name -> its record (``i8``/``i32`` are the integer spellings some specs use for ``s8``/``s32``)."""


def dtype(name: str) -> Dtype:
    """The record of ``name``; ``KeyError`` naming the known types if there is none."""
    try:
        return DTYPES[name]
    except KeyError:
        raise KeyError(f"unknown dtype {name!r} (known: {', '.join(DTYPES)})") from None


def bits(name: str) -> int:
    """Storage width of one ``name`` element in bits (``tf32``: 32)."""
    return dtype(name).bits


def nbytes(name: str) -> int:
    """Storage bytes of one ``name`` element (a sub-byte type: 1)."""
    return dtype(name).nbytes


def bits_of(names: Iterable[str]) -> dict[str, int]:
    """``{name: bits}`` for the types an instruction family accepts, widths from ``DTYPES``.

    >>> bits_of(("f16", "tf32"))
    {'f16': 16, 'tf32': 32}
    """
    return {n: bits(n) for n in names}


MLIR_NAMES: dict[str, str] = {"f16": "f16", "bf16": "bf16", "f32": "f32", "tf32": "tf32", "f64": "f64", "i8": "s8",
                               "ui8": "u8", "i16": "s16", "i32": "s32", "i64": "s64", "f8E4M3FN": "e4m3",
                               "f8E5M2": "e5m2"}
"""MLIR's element type names (TTGIR, the CuTe DSL's IR) -> the dtype names of ``DTYPES`` (MLIR builtin types:
``iN`` signless integers, read as signed; ``f8E4M3FN`` / ``f8E5M2`` the OCP FP8 formats)."""


def mlir_dtype(name: str) -> str | None:
    """The dtype an MLIR element type names, or ``None``.

    >>> mlir_dtype("f8E4M3FN"), mlir_dtype("i8"), mlir_dtype("index")
    ('e4m3', 's8', None)
    """
    return MLIR_NAMES.get(name)


__all__ = ["DTYPES", "MLIR_NAMES", "Dtype", "bits", "bits_of", "dtype", "mlir_dtype", "nbytes"]
