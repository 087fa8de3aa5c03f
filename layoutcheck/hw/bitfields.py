"""One bit-field codec for every descriptor word (wgmma, tcgen05 shared-memory and instruction descriptors).

A field carries its *unit*: what one LSB counts (16 for a byte quantity stored without its 4 low bits, as PTX's
``matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4``; 16 for tcgen05's ``M >> 4``, 8 for ``N >> 3``). ``pack`` /
``unpack`` / ``issues`` read and write the *stored* values; ``encode`` / ``decode`` / ``advance`` the *quantities*
(bytes, rows), so no caller shifts a field by hand::

    >>> from layoutcheck.hw.wgmma import GMMA_DESCRIPTOR
    >>> hex(GMMA_DESCRIPTOR.encode({"start_address": 0x400, "stride_byte_offset": 1024, "layout_type": 1}))
    '0x4000004000000040'
    >>> GMMA_DESCRIPTOR.decode(0x4000004000000040)["stride_byte_offset"]
    1024

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

    def stored(self, quantity: int) -> int:
        """The value the field holds for ``quantity`` (its unit's low bits dropped, as the hardware's encode does)."""
        return quantity // self.unit

    def quantity_of(self, value: int) -> int:
        """What a stored ``value`` counts (bytes for a byte offset): ``value * unit``."""
        return value * self.unit

    def quantity(self, word: int) -> int:
        """What the field of ``word`` counts: ``quantity_of(get(word))``."""
        return self.quantity_of(self.get(word))

    def quantity_issues(self, quantity: int) -> tuple[tuple[str, str], ...]:
        """``(law, message)`` for each reason ``quantity`` cannot be stored exactly: ``align`` (not a multiple of the
        unit), ``range`` (too wide after the shift); empty when ``encode`` holds it.

        >>> BitField("lbo", 16, 14, "x", unit=16).quantity_issues(8)
        (('align', 'lbo = 8 is not a multiple of 16 bytes'),)
        """
        out = []
        if quantity % self.unit:
            out.append(("align", f"{self.name} = {quantity} is not a multiple of {self.unit} bytes"))
        if not self.fits(self.stored(quantity)):
            shift = self.unit.bit_length() - 1
            out.append(("range", f"{self.name} = {quantity} does not fit {self.width} bits"
                                 + (f" after >> {shift} (max {((1 << self.width) - 1) * self.unit})" if self.unit > 1
                                    else f" (max {(1 << self.width) - 1})")))
        return tuple(out)

    def encode(self, quantity: int) -> int:
        """``stored(quantity) << lo``. Pre: ``quantity_issues(quantity) == ()`` (else ``LayoutError`` saying why)."""
        bad = self.quantity_issues(quantity)
        if bad:
            raise LayoutError(f"descriptor field {self.name} [{self.lo},{self.hi}): "
                              + "; ".join(m for _, m in bad))
        return self.put(self.stored(quantity))

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

    def encode(self, quantities: dict[str, int]) -> int:
        """The word holding ``quantities`` (each in its field's unit's terms: bytes, rows; missing fields as in
        ``pack``); ``LayoutError`` naming the field whose quantity is not a multiple of its unit or does not fit.

        Post: ``decode(encode(q))[n] == q[n]`` for every given field ``n``.
        """
        unknown = set(quantities) - {f.name for f in self.fields}
        if unknown:
            raise LayoutError(f"{self.name} has no field {sorted(unknown)[0]!r}")
        word = 0
        for f in self.fields:
            word |= f.encode(quantities[f.name]) if f.name in quantities else f.put(f.fixed or 0)
        return word

    def decode(self, word: int) -> dict[str, int]:
        """Every field's quantity in ``word`` (``unpack`` times each field's unit)."""
        return {f.name: f.quantity(word) for f in self.fields}

    def advance(self, word: int, field: str, quantity: int, low_bits: int = 32) -> int:
        """``word`` moved on by ``quantity`` (bytes) in ``field``, as CUTLASS's ``DescriptorIterator + offset`` does:
        ``stored(quantity)`` added to the low ``low_bits`` bits (a carry past them is lost, the high bits kept).

        Pre: ``quantity`` is a multiple of the field's unit and the field starts at bit 0 (else ``LayoutError``).

        >>> from layoutcheck.hw.wgmma import GMMA_DESCRIPTOR
        >>> hex(GMMA_DESCRIPTOR.advance(0x4000004000000040, "start_address", 32))
        '0x4000004000000042'
        """
        f = self.field(field)
        if f.lo or quantity % f.unit:
            raise LayoutError(f"{self.name}: {field} advances in {f.unit}-byte units from bit 0, not by {quantity}")
        low = (1 << low_bits) - 1
        return (word & ~low) | ((word + f.stored(quantity)) & low)

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
