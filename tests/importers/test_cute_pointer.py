"""CuTe printouts that name a pointer: ``Sw<3,4,3> o smem_ptr[16b](unset) o L`` (a byte swizzle waiting for a
shared-memory pointer), ``Sw<3,4,3>_smem_ptr[16b](0x...) o L`` (a tensor on a swizzle pointer), plain tensors, and
the CuTe DSL's ``tensor<ptr<f16, smem, align<1024>, S<3,4,3>> o L>``.

Truths: CuTe's own ``as_position_independent_swizzle_layout`` printed beside each layout (tests/data/cute/
cpp_smem_print.txt, CUTLASS headers compiled with g++), and the byte-address definition evaluated with pycute's
``Swizzle`` at every point.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pycute
import pytest

from layoutcheck.algebra.layout import size
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.cli import main
from layoutcheck.errors import LayoutError
from layoutcheck.importers.cute import byte_swizzle_in_elements, from_cute

DATA = Path(__file__).parents[1] / "data" / "cute"


def _blocks() -> list[str]:
    return [b.strip("\n") for b in (DATA / "cpp_smem_print.txt").read_text().split("@@") if b.strip()]


def _byte_map(sw: tuple[int, int, int], bits: int, e: int) -> int | None:
    """Element ``e`` of ``bits``-bit elements under the byte-address swizzle ``sw`` (pycute's Swizzle), or None when
    the swizzled address is not an element's (the definition, with no layoutcheck code)."""
    f = pycute.Swizzle(*sw)
    if bits >= 8:
        a = f(e * bits // 8)
        return None if a % (bits // 8) else a // (bits // 8)
    per = 8 // bits
    return f(e // per) * per + e % per


def test_cpp_layouts_equal_cutes_position_independent_form():
    pairs = [b.splitlines() for b in _blocks() if "(unset)" in b]
    assert len(pairs) == 35
    for printed, cute_own in pairs:
        if printed.startswith("Sw<3,3,3> o smem_ptr[128b]"):
            continue  # below
        ours = from_cute(printed)
        assert ours.layout == from_cute(cute_own).layout, printed
        assert "read as" in ours.note
    with pytest.raises(LayoutError, match="XORs byte bit 6 into byte bit 3, inside a 16-byte element"):
        from_cute(next(p for p, _ in pairs if p.startswith("Sw<3,3,3> o smem_ptr[128b]")))
    # CuTe's upcast there (Sw<2,0,3>) drops that pair: the byte definition sends element 4 off its alignment
    assert _byte_map((3, 3, 3), 128, 4) is None


@pytest.mark.parametrize("bits", [1, 2, 4, 8, 16, 32, 64, 128, 256])
def test_byte_swizzle_in_elements_is_the_byte_definition(bits):
    """Every swizzle with B <= 3, M <= 5, |S| <= 4, at every element of one period: the element form exists exactly
    when the byte definition keeps every element aligned, and then equals it."""
    for b, m, s in itertools.product(range(4), range(6), range(-4, 5)):
        if abs(s) < b or s == 0:  # pycute's shiftr recurses forever on a shift of 0
            continue
        period = 1 << (b + m + abs(s))  # the pattern repeats past it
        n = max(period * 8 // bits, 1)
        truth = [_byte_map((b, m, s), bits, e) for e in range(n)]
        try:
            got = byte_swizzle_in_elements(Swizzle(b, m, s), bits)
        except LayoutError:
            assert None in truth, (b, m, s, bits)
            continue
        assert [got(e) for e in range(n)] == truth, (b, m, s, bits, got)


def test_cute_upcast_when_m_covers_the_element():
    for b, m, s, bits in [(3, 4, 3, 16), (3, 4, 3, 32), (2, 4, 3, 64), (3, 4, 3, 128)]:
        k = (bits // 8).bit_length() - 1
        assert byte_swizzle_in_elements(Swizzle(b, m, s), bits) == Swizzle(b, m - k, s)


def test_non_power_of_two_elements_are_refused():
    with pytest.raises(LayoutError, match="6-bit element is not a power-of-two"):
        from_cute("Sw<3,4,3> o smem_ptr[6b](unset) o (_8,_64):(_64,_1)")


def test_tensor_on_a_swizzle_pointer_is_the_byte_map_at_its_address():
    tensors = [b for b in _blocks() if "_smem_ptr[16b](0x" in b]
    assert len(tensors) == 2
    for text in tensors:
        addr = int(text.split("(0x")[1].split(")")[0], 16)
        got = from_cute(text).layout
        assert isinstance(got, ComposedLayout)
        lay = got.layout
        f = pycute.Swizzle(3, 4, 3)
        base = addr - addr % 1024  # offsets are counted from the aligned address at or below the pointer
        for c in range(size(lay)):
            assert got(c) == (f(addr + 2 * lay(c)) - base) // 2
    aligned, shifted = (from_cute(t).layout for t in tensors)
    assert aligned.offset == 0 and shifted.offset == 32


def test_plain_tensors_read_their_layout():
    b = _blocks()
    assert str(from_cute(b[-3]).layout) == "Sw<3,3,3> o 0 o ((8,8),(64,1)):((64,512),(1,0))"
    assert str(from_cute(b[-2]).layout) == "(8,8):(1,8)"
    assert str(from_cute(b[-1]).layout) == "(8,8):(8,1)"
    assert from_cute(b[-3]).layout == from_cute(b[-5]).layout  # CuTe's element form == ours of its swizzle pointer


def test_dsl_tensors():
    lines = [ln for ln in (DATA / "dsl_smem_print.txt").read_text().splitlines() if not ln.startswith("ptr<")]
    got = [from_cute(ln).layout for ln in lines]
    assert str(got[0]) == "Sw<3,4,3> o 0 o (8,64):(64,1)"  # a composed layout is CuTe's function, as printed
    assert str(got[2]) == str(got[3]) == "Sw<3,4,3> o 0 o ((8,8),(64,1)):((64,512),(1,0))"
    assert str(got[4]) == "Sw<3,3,3> o 0 o (8,64):(64,1)"  # a swizzle on the pointer acts on bytes of f16
    assert str(got[5]) == "(4,4):(1,4)"
    with pytest.raises(LayoutError, match=r"needs align<1024>"):
        from_cute("tensor<ptr<f16, smem, align<16>, S<3,4,3>> o (8,64):(64,1)>")


def test_sparse_pointer_is_not_modelled():
    with pytest.raises(LayoutError, match="sparse"):
        from_cute("Sw<3,4,3> o smem_sparse<2>_ptr[16b](unset) o (_8,_64):(_64,_1)")


GOOD = "Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_8),(_64,_1)):((_64,_512),(_1,_0))"
BROKEN = "Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_8),(_64,_1)):((_64,_256),(_1,_0))"  # row blocks overlap


def test_check_a_printout_file(tmp_path, capsys):
    good, broken = tmp_path / "good.txt", tmp_path / "broken.txt"
    good.write_text(GOOD + "\n")
    broken.write_text(BROKEN + "\n")
    assert main(["check", str(good), "-q"]) == 0
    assert main(["check", str(broken), "-q"]) == 1
    assert "refuted" in capsys.readouterr().out


def test_spec_reads_a_pointer_printout(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(f'''format = 1
[[config]]
name = "atom"
kind = "layout"
layout = {{ cute = "{GOOD}" }}
properties = ["bijective", {{ name = "equivalent", other = "Sw<3,3,3> o 0 o ((8,8),(64,1)):((64,512),(1,0))" }}]

[[config]]
name = "broken"
kind = "layout"
layout = {{ cute = "{BROKEN}" }}
properties = ["injective"]
''')
    assert main(["check", str(spec), "-q", "--json", str(tmp_path / "r.json")]) == 1
    import json

    results = json.loads((tmp_path / "r.json").read_text())["results"]
    rows = {(r["config"], r["property"].split("(")[0]): r["status"] for r in results}
    assert rows[("atom", "bijective")] == "PROVEN" and rows[("atom", "equivalent")] == "PROVEN"
    assert rows[("broken", "injective")] == "REFUTED"
