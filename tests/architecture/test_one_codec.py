"""One bit-field codec for every descriptor word (issue #26): a field's unit (bytes >> 4, M >> 4, N >> 3) is declared
with the field (``hw.bitfields.BitField.unit``) and applied by the codec alone (``encode`` / ``decode`` /
``stored`` / ``quantity`` / ``advance``). The scan reads every module's AST: outside ``hw/bitfields.py`` no shift,
and no multiplication or floor division by a unit, touches a value named after a field that has a unit."""

from __future__ import annotations

import ast
from pathlib import Path

from layoutcheck.hw.bitfields import DescriptorFormat
from layoutcheck.hw.tcgen05 import UMMA_INSTR_DESCRIPTOR, UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED, UMMA_SMEM_DESCRIPTOR
from layoutcheck.hw.wgmma import GMMA_DESCRIPTOR

PKG = Path(__file__).resolve().parents[2] / "layoutcheck"
CODEC = "hw/bitfields.py"
FORMATS: tuple[DescriptorFormat, ...] = (GMMA_DESCRIPTOR, UMMA_SMEM_DESCRIPTOR, UMMA_INSTR_DESCRIPTOR,
                                         UMMA_INSTR_DESCRIPTOR_BLOCK_SCALED)
UNITS = {f.name: f.unit for fmt in FORMATS for f in fmt.fields if f.unit > 1}
"""Field name -> its unit, for the fields stored in units of more than one (the ones a hand shift would convert)."""


def _names(node: ast.AST) -> set[str]:
    """The field names ``node`` mentions: ``x.start_address``, ``x["m_dim"]``, ``x.get("m_dim")``, a bare name."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            out.add(n.value)
    return out & set(UNITS)


def _by_unit(n: ast.BinOp) -> bool:
    """A shift by a constant, or ``*`` / ``//`` by a constant that is a field unit."""
    consts = [x.value for x in (n.left, n.right) if isinstance(x, ast.Constant) and isinstance(x.value, int)]
    if isinstance(n.op, ast.LShift | ast.RShift):
        return bool(consts)
    return isinstance(n.op, ast.Mult | ast.FloorDiv) and any(c in UNITS.values() for c in consts)


def hand_conversions(path: Path) -> list[str]:
    """``line: field`` for each hand unit conversion of a descriptor field in ``path``: the field named in the
    converted expression, or the expression given as the field (``{"m_dim": m >> 4}``, ``m_dim=m >> 4``)."""
    found = []
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.BinOp) and _by_unit(n):
            found += [f"{n.lineno}: {name}" for name in sorted(_names(n))]
        given = []
        if isinstance(n, ast.Dict):
            given = [(k.value, v) for k, v in zip(n.keys, n.values, strict=True) if isinstance(k, ast.Constant)]
        elif isinstance(n, ast.keyword):
            given = [(n.arg, n.value)]
        found += [f"{v.lineno}: {k}" for k, v in given
                  if k in UNITS and isinstance(v, ast.BinOp) and _by_unit(v) and k not in _names(v)]
    return found


def test_the_fields_with_units_are_the_byte_offsets_and_the_mma_shape() -> None:
    assert UNITS == {"start_address": 16, "leading_byte_offset": 16, "stride_byte_offset": 16, "n_dim": 8,
                     "m_dim": 16}


def test_no_module_but_the_codec_converts_a_descriptor_field_by_hand() -> None:
    found = {str(f.relative_to(PKG)): hand_conversions(f) for f in sorted(PKG.rglob("*.py"))
             if str(f.relative_to(PKG)) != CODEC}
    found = {m: h for m, h in found.items() if h}
    assert not found, f"descriptor fields converted outside {CODEC} (use its encode / decode / stored): {found}"


def test_the_scan_sees_a_hand_shift(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("def f(d, fields, m, n):\n    return d.start_address << 4, fields['m_dim'] * 16, m >> 4, "
                   "{'n_dim': n >> 3}, g(stride_byte_offset=n // 16)\n")
    assert sorted(hand_conversions(src)) == ["2: m_dim", "2: n_dim", "2: start_address", "2: stride_byte_offset"]
