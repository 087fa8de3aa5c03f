"""One hardware vocabulary (issue #26): one dtype table (``hw.dtypes``), one swizzle-mode naming with its
conversions (``hw.swizzle_modes``), one bank formula (``hw.banks.bank``). The scans read every module's AST."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from layoutcheck.errors import LayoutError
from layoutcheck.hw import tma as hw_tma
from layoutcheck.hw.banks import BANK_BYTES, BANKS, bank, bank_of_word, word
from layoutcheck.hw.dtypes import DTYPES, bits, nbytes
from layoutcheck.hw.swizzle_modes import MODES, mode_of_bits, swizzle_mode

PKG = Path(__file__).resolve().parents[2] / "layoutcheck"
SWIZZLE_SPELLINGS = {s.upper() for m in MODES for s in (m.name, m.gmma, m.umma)} | {"INTERLEAVE"}


def _trees():
    for f in sorted(PKG.rglob("*.py")):
        yield f.relative_to(PKG.parent).as_posix(), ast.parse(f.read_text())


def _str_keys(d: ast.Dict) -> list[str]:
    return [k.value for k in d.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]


ENCODINGS = {"layoutcheck/hw/tcgen05.py": "C_FORMATS: the instruction descriptor's c_format codes of three types",
             "layoutcheck/importers/ptx_machine.py": "BITS: the widths of PTX's instruction type "
                                                     "suffixes (.b16, .u32, .f16x2 ...), the PTX ISA's own "
                                                     "names, not tensor dtypes",
             "layoutcheck/importers/cute_dsl_kernel.py": "DTYPES: --args type names -> the CuTe DSL's numeric "
                                                        "class names (Float16, Int8), a spelling, no widths"}
"""Modules allowed a dict keyed by dtype names: an instruction's *encoding* of a type, which is no width or name."""


def test_one_dtype_table():
    """No dict literal outside ``hw/dtypes.py`` maps two or more dtype names to widths or names."""
    found = []
    for name, tree in _trees():
        if name == "layoutcheck/hw/dtypes.py" or name in ENCODINGS:
            continue
        for n in ast.walk(tree):
            if isinstance(n, ast.Dict) and len([k for k in _str_keys(n) if k in DTYPES]) >= 2:
                found.append(f"{name}:{n.lineno}")
    assert not found, f"a second dtype table (derive it from hw.dtypes.DTYPES): {found}"


def test_one_swizzle_naming():
    """No dict literal outside ``hw/swizzle_modes.py`` translates one swizzle spelling into another."""
    found = []
    for name, tree in _trees():
        if name == "layoutcheck/hw/swizzle_modes.py":
            continue
        for n in ast.walk(tree):
            if not isinstance(n, ast.Dict):
                continue
            pairs = [(k.value, v.value) for k, v in zip(n.keys, n.values, strict=True)
                     if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)
                     and isinstance(k.value, (str, int)) and isinstance(v.value, str)]
            if sum(str(v).upper() in SWIZZLE_SPELLINGS for _, v in pairs) >= 2:
                found.append(f"{name}:{n.lineno}")
    assert not found, f"a swizzle-name translation table (use hw.swizzle_modes.swizzle_mode): {found}"


def _is_word(n: ast.AST) -> bool:
    """``x // 4``, ``x // BANK_BYTES`` or ``x >> 2``: a byte address to its 32-bit word."""
    return isinstance(n, ast.BinOp) and (
        (isinstance(n.op, ast.FloorDiv) and (getattr(n.right, "value", None) == 4
                                              or getattr(n.right, "id", None) == "BANK_BYTES"))
        or (isinstance(n.op, ast.RShift) and getattr(n.right, "value", None) == 2))


def test_one_bank_formula():
    """No ``word % 32`` / ``word & 31`` of a byte address's word outside ``hw/banks.py``; the modulo by ``BANKS``
    of anything happens there too."""
    found = []
    for name, tree in _trees():
        if name == "layoutcheck/hw/banks.py":
            continue
        for n in ast.walk(tree):
            if not isinstance(n, ast.BinOp):
                continue
            by_banks = ((isinstance(n.op, ast.Mod) and (getattr(n.right, "value", None) == 32
                                                       or getattr(n.right, "id", None) == "BANKS"))
                        or (isinstance(n.op, ast.BitAnd) and getattr(n.right, "value", None) == 31))
            if by_banks and (getattr(n.right, "id", None) == "BANKS" or any(_is_word(x) for x in ast.walk(n.left))):
                found.append(f"{name}:{n.lineno}")
    allowed = {"layoutcheck/report/show.py"}  # _bank_colour: a colour hash of a bank number, not a bank formula
    assert not [f for f in found if f.split(":")[0] not in allowed], f"a second bank formula: {found}"


def test_the_bank_formula():
    a = np.arange(0, 4096, 4)
    assert (bank(a) == (a // 4) % 32).all() and bank(131) == 0 and bank(132) == 1
    assert word(132) == 33 and bank_of_word(33) == 1 and BANKS * BANK_BYTES == 128


def test_dtype_widths_are_storage_widths():
    assert bits("tf32") == bits("f32") == 32 and nbytes("tf32") == 4  # tf32 lives in a 32-bit container
    assert bits("f16") == bits("bf16") == 16 and bits("e4m3") == 8 and bits("e2m1") == 4 and nbytes("e2m1") == 1
    for d in DTYPES.values():
        if d.tma:  # the tensor-map type the driver table knows, of the same size
            assert hw_tma.DTYPES[d.tma].bytes == d.nbytes, d
    assert DTYPES["tf32"].tma == "tfloat32"  # CUTLASS to_CUtensorMapDataType<tfloat32_t>


def test_every_dtype_view_agrees_with_the_table():
    from layoutcheck.hw.tcgen05 import DTYPE_BITS as UMMA_BITS
    from layoutcheck.hw.wgmma import GMMA_BITS
    from layoutcheck.spec.values import DTYPE_BITS, TMA_DTYPES

    for view in (UMMA_BITS, GMMA_BITS, DTYPE_BITS):
        assert all(b == bits(n) for n, b in view.items())
    assert all(t == DTYPES[n].tma for n, t in TMA_DTYPES.items())


def test_swizzle_spellings_convert_in_one_place():
    for m in MODES:
        assert swizzle_mode(m.name) is swizzle_mode(m.gmma) is swizzle_mode(m.umma.lower()) is m
        assert mode_of_bits(m.bits) is m
        assert hw_tma.SWIZZLES[m.name].bits == m.bits  # the driver's table agrees on Swizzle<B,4,3>
    with pytest.raises(LayoutError, match="unknown swizzle mode"):
        swizzle_mode("256B")
