"""One bit-field codec for every descriptor word (wgmma, tcgen05 shared-memory and instruction descriptors).

A ``DescriptorFormat`` declares *every* bit of its word once: a field is a value (``start_address``), a fixed
constant the authority requires (tcgen05's bits 46-48 = ``0b001``, bits 53-60 = 0), an enumerated code with its
defined values (tcgen05's layout type: 0, 1, 2, 4, 6), or a reserved range the authority does not define. Bits no
field names are *undeclared*. ``issues(word)`` reads a word against the declaration and says, per field, what is
wrong, and whether it *refutes* the word (a fixed constant or a code the authority defines otherwise: the word is
not a valid descriptor) or leaves it *unknown* (a reserved or undeclared bit set: its effect is not modelled)::

    >>> fmt = DescriptorFormat("demo", 8, (BitField("a", 0, 4, "x"), BitField("one", 4, 1, "x", fixed=1),
    ...                                    BitField("rsv", 5, 2, "x", reserved=True)), "x")
    >>> [(i.field, i.law, i.refutes) for i in fmt.issues(0b11100101)]
    [('one', 'fixed', True), ('rsv', 'reserved', False), ('bit 7', 'undeclared', False)]

Pre (of a format): fields are disjoint and lie inside the word (``overlaps()``, ``outside()`` say where not).
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutcheck.errors import LayoutError


@dataclass(frozen=True, slots=True)
class BitField:
    """``width`` bits starting at bit ``lo`` of a descriptor word; ``unit`` = what one LSB counts (16 for byte
    quantities stored without their 4 low bits); ``fixed``: the only valid value; ``codes``: the defined values;
    ``reserved``: the authority leaves these bits undefined."""

    name: str
    lo: int
    width: int
    source: str
    fixed: int | None = None
    codes: tuple[int, ...] | None = None
    reserved: bool = False
    unit: int = 1

    @property
    def hi(self) -> int:
        """One past the last bit (``[lo, hi)``)."""
        return self.lo + self.width

    @property
    def mask(self) -> int:
        return ((1 << self.width) - 1) << self.lo

    def get(self, word: int) -> int:
        return (word >> self.lo) & ((1 << self.width) - 1)

    def fits(self, value: int) -> bool:
        return 0 <= value < (1 << self.width)

    def put(self, value: int) -> int:
        """``value << lo``. Pre: ``0 <= value < 2**width`` (else ``LayoutError`` naming the field)."""
        if not self.fits(value):
            raise LayoutError(f"descriptor field {self.name} [{self.lo},{self.hi}) holds {self.width} bits: value "
                              f"{value} does not fit (max {(1 << self.width) - 1})")
        return value << self.lo


@dataclass(frozen=True, slots=True)
class FieldIssue:
    """What is wrong with one field (or undeclared bit) of a word: ``law`` is ``fixed``, ``code``, ``reserved`` or
    ``undeclared``; ``refutes``: the word is invalid (else its meaning is not modelled)."""

    field: str
    lo: int
    hi: int
    found: int
    law: str
    message: str

    @property
    def refutes(self) -> bool:
        return self.law in ("fixed", "code")


@dataclass(frozen=True, slots=True)
class DescriptorFormat:
    """A descriptor word of ``bits`` bits: its fields (disjoint bit ranges, module docstring)."""

    name: str
    bits: int
    fields: tuple[BitField, ...]
    source: str

    def field(self, name: str) -> BitField:
        for f in self.fields:
            if f.name == name:
                return f
        raise LayoutError(f"{self.name} has no field {name!r}; fields: {', '.join(f.name for f in self.fields)}")

    def pack(self, values: dict[str, int]) -> int:
        """The word holding ``values`` (missing fields: their fixed constant, else 0; reserved fields 0).

        >>> from layoutcheck.hw.tcgen05 import UMMA_SMEM_DESCRIPTOR
        >>> hex(UMMA_SMEM_DESCRIPTOR.pack({"start_address": 0x200, "stride_byte_offset": 64, "layout_type": 2}))
        '0x4000404000000200'
        """
        unknown = set(values) - {f.name for f in self.fields}
        if unknown:
            raise LayoutError(f"{self.name} has no field {sorted(unknown)[0]!r}")
        word = 0
        for f in self.fields:
            word |= f.put(values.get(f.name, f.fixed or 0))
        return word

    def unpack(self, word: int) -> dict[str, int]:
        """Every field's value in ``word`` (reserved ranges included)."""
        return {f.name: f.get(word) for f in self.fields}

    def declared_mask(self) -> int:
        m = 0
        for f in self.fields:
            m |= f.mask
        return m

    def issues(self, word: int) -> tuple[FieldIssue, ...]:
        """Every field of ``word`` that breaks its declaration, then every set bit no field declares (in bit order).

        Post: ``issues(pack(v)) == ()`` for values ``v`` that fit and use defined codes.
        """
        out = []
        for f in self.fields:
            v = f.get(word)
            where = f"{self.name} bits [{f.lo},{f.hi}) ({f.name})"
            if f.fixed is not None and v != f.fixed:
                out.append(FieldIssue(f.name, f.lo, f.hi, v, "fixed", f"{where} = {v:#0{f.width + 2}b}, but must be "
                                      f"the fixed constant {f.fixed:#0{f.width + 2}b} ({f.source})"))
            elif f.codes is not None and v not in f.codes:
                out.append(FieldIssue(f.name, f.lo, f.hi, v, "code",
                                      f"{where} = {v} is not a defined encoding (defined: "
                                      f"{', '.join(map(str, f.codes))}; {f.source})"))
            elif f.reserved and v:
                out.append(FieldIssue(f.name, f.lo, f.hi, v, "reserved",
                                      f"{where} = {v:#0{f.width + 2}b}: reserved bits set; what the hardware does "
                                      f"with them is "
                                      f"not modelled ({f.source})"))
        stray = word & ~self.declared_mask()
        for b in range(max(self.bits, word.bit_length())):
            if stray >> b & 1:
                what = "beyond the word" if b >= self.bits else "declared by no field"
                out.append(FieldIssue(f"bit {b}", b, b + 1, 1, "undeclared",
                                      f"{self.name} bit {b} is set but {what}; its meaning is not modelled"))
        return tuple(out)

    def overlaps(self) -> list[tuple[str, str]]:
        """Pairs of fields whose bit ranges intersect (a sound format has none)."""
        fs = self.fields
        return [(a.name, b.name) for i, a in enumerate(fs) for b in fs[i + 1:] if a.mask & b.mask]

    def outside(self) -> list[str]:
        """Fields that run past the last bit of the word (a sound format has none)."""
        return [f.name for f in self.fields if f.lo < 0 or f.hi > self.bits]
