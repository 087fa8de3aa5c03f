"""The canonical shared-memory operand layouts of wgmma (GMMA) and tcgen05.mma (UMMA) descriptors, recognised once.

Both matrix descriptors describe an ``(MN, K)`` operand tile in shared memory by a swizzle atom and two byte offsets,
LBO and SBO. Seen in 16-byte units ``u`` (``T = 128 / element_bits`` elements), with ``w`` = units per swizzle-atom
row (1, 2, 4, 8 for none / 32B / 64B / 128B) and ``r`` = K rows per atom (8; 4 for UMMA's 128B atom with 32-byte
atomicity), the hardware accepts exactly (PTX ISA 9.7.15.5.1 "Shared Memory Matrix Layout" and 9.7.16.4.3; CUTLASS
``make_gmma_desc`` in ``cute/atom/mma_traits_sm90_gmma.hpp``, ``make_umma_desc`` in ``cute/arch/mma_sm100_desc.hpp``)::

    K-major,  none    : ((8,m),(2,k)):((1,SBO),(LBO,*))    core matrix = 8 rows x 16 B, LBO steps K
    K-major,  swizzled: ((8,m),(2,k)):((w,SBO),(1,*))      rows w*16 B apart, SBO steps 8-row groups (LBO unused)
    MN-major, none    : ((1,n),(8,k)):((*,SBO),(1,LBO))    8 K-rows of 16 B, SBO steps MN, LBO steps K
    MN-major, swizzled: ((w,n),(r,k)):((1,LBO),(w,SBO))    LBO steps w*16-byte MN blocks, SBO steps r-row K groups

composed with the atom's swizzle on byte addresses. ``canonical_form`` recognises the form exactly as CuTe does --
``upcast`` to 16-byte units, ``logical_divide`` by ``(8,2)`` (K-major) or ``(w,r)`` (MN-major), then the profile and
the fixed strides -- and refuses anything else with a ``DescriptorError`` naming the broken condition;
``canonical_layout`` is its inverse (the layout a descriptor's fields describe). What differs between the two
descriptors is data: the atoms each accepts (``SwizzleAtom``), wgmma's fixed K extent, and (in ``models.gmma`` /
``models.umma``) the field widths and codes.

Worked example: ``Sw<3,3,3> o 0 o ((8,8),16):((64,512),1)`` (f16, a 64x16 slice of a 128B K-major tile) in 16-byte
units is ``((8,8),2):((8,64),1)``: the 128B atom (w = 8), SBO = 64 u = 1024 B, LBO = 1 u (unused when swizzled).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from layoutcheck.algebra.inttuple import is_int, is_tuple
from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle, recast_swizzle
from layoutcheck.algebra.tiling import logical_divide, upcast
from layoutcheck.errors import DescriptorError, LayoutError


@dataclass(frozen=True, slots=True)
class SwizzleAtom:
    """One swizzle atom a descriptor can name: its swizzle on *byte* addresses, ``w`` 16-byte units per row, ``r``
    K rows per MN-major atom, and whether a K-major operand may use it."""

    name: str
    swizzle: Swizzle
    w: int
    r: int = 8
    k_major: bool = True

    @property
    def swizzled(self) -> bool:
        return self.swizzle.bits != 0

    def on_elements(self, element_bits: int) -> Swizzle:
        """The atom's swizzle acting on element offsets (``Sw<3,4,3>`` on bytes -> ``Sw<3,3,3>`` on f16).

        >>> str(SwizzleAtom("SW128", Swizzle(3, 4, 3), 8).on_elements(16))
        'Sw<3,3,3>'
        """
        return recast_swizzle(self.swizzle, 8, element_bits) if self.swizzled else Swizzle(0, 0, 0)


@dataclass(frozen=True, slots=True)
class CanonicalForm:
    """A layout's canonical form: its atom, LBO / SBO in 16-byte units, element offset of its start, shape (MN, K)."""

    atom: SwizzleAtom
    lbo: int
    sbo: int
    start: int  # element offset o + L(0) inside the buffer
    shape: tuple[int, int]


def major_of(major: str) -> str:
    """``"K"`` or ``"MN"`` (any case); ``DescriptorError`` otherwise."""
    m = str(major).upper()
    if m not in ("K", "MN"):
        raise DescriptorError(f"major must be 'K' or 'MN', found {major!r}")
    return m


def split(layout: Layout | ComposedLayout) -> tuple[Swizzle, int, Layout]:
    """``(swizzle on elements, element offset, layout)`` of an operand layout (a plain layout: no swizzle, 0)."""
    if isinstance(layout, ComposedLayout):
        return layout.swizzle, layout.offset, layout.layout
    if isinstance(layout, Layout):
        return Swizzle(0, 0, 0), 0, layout
    raise DescriptorError(f"an operand layout is a Layout or a swizzled ComposedLayout, found {layout!r}")


def atom_of(sw: Swizzle, element_bits: int, atoms: Sequence[SwizzleAtom], family: str, where: str) -> SwizzleAtom:
    """The atom among ``atoms`` whose byte swizzle is ``sw`` read on ``element_bits``-bit elements (no swizzle: the
    unswizzled atom)."""
    if sw.bits == 0:
        return next(a for a in atoms if not a.swizzled)
    on_bytes = recast_swizzle(sw, element_bits, 8)
    for a in atoms:
        if a.swizzled and a.swizzle == on_bytes:
            return a
    accepted = ", ".join(str(a.swizzle) for a in atoms if a.swizzled)
    raise DescriptorError(f"{where}: swizzle {sw} is not a {family} swizzle for {element_bits}-bit elements: it is "
                          f"{on_bytes} on bytes, expected one of {accepted} on bytes")


def _pair(mode: Layout, what: str, family: str, where: str) -> tuple[int, int]:
    """The strides of a divided mode that must be exactly ``(a, b):(s, t)`` (CuTe's profile check)."""
    s = mode.shape
    if not (is_tuple(s) and len(s) == 2 and all(is_int(x) for x in s)):
        raise DescriptorError(f"{where}: not a canonical {family} layout: the {what} mode divides into {mode}, "
                              f"expected a flat pair (profile failure)")
    return mode.stride  # type: ignore[return-value]


def canonical_form(smem_layout: Layout | ComposedLayout, dtype: str, element_bits: int, major: str,
                   atoms: Sequence[SwizzleAtom], family: str, k_bytes: int | None = None) -> CanonicalForm:
    """The canonical form of an ``(MN, K)`` operand layout of ``element_bits``-bit ``dtype`` elements; a
    ``DescriptorError`` naming the failed condition when it has none.

    Pre: ``atoms`` holds one unswizzled atom; ``k_bytes``, when given, is the K extent one instruction reads.
    Post: ``canonical_layout(result.atom, major, element_bits, result.shape, result.lbo, result.sbo)`` agrees with
    the layout (less its start offset) at every coordinate.

    >>> atoms = (SwizzleAtom("INTER", Swizzle(0, 4, 3), 1), SwizzleAtom("SW128", Swizzle(3, 4, 3), 8))
    >>> c = canonical_form(ComposedLayout(Swizzle(3,3,3), 0, Layout(((8,8),16),((64,512),1))), "f16", 16, "K",
    ...                    atoms, "GMMA")
    >>> c.atom.name, c.lbo, c.sbo
    ('SW128', 1, 64)
    """
    maj = major_of(major)
    where = f"{major}-major {dtype} operand {smem_layout}"
    sw, off, lay = split(smem_layout)
    atom = atom_of(sw, element_bits, atoms, family, where)
    if len(lay) != 2:
        raise DescriptorError(f"{where}: expected a rank-2 (MN, K) layout, found rank {len(lay)}")
    e = element_bits // 8
    if k_bytes is not None and size(lay[1]) != k_bytes // e:
        raise DescriptorError(f"{where}: K extent {size(lay[1])} elements, one {family} instruction reads K = "
                              f"{k_bytes // e} ({k_bytes} bytes)")
    if maj == "K" and not atom.k_major:
        raise DescriptorError(f"{where}: {atom.name} is invalid for a K-major operand")
    t = 128 // element_bits
    try:
        u = upcast(lay, t)
    except LayoutError as err:
        raise DescriptorError(f"{where}: not made of 16-byte chunks ({err})") from None
    lbo, sbo = (_k_major if maj == "K" else _mn_major)(lay, u, t, atom, family, where)
    if sbo < 0 or lbo < 0:
        raise DescriptorError(f"{where}: negative core-matrix offset (LBO {16 * lbo}, SBO {16 * sbo} bytes)")
    return CanonicalForm(atom, lbo, sbo, off + lay(0), (size(lay[0]), size(lay[1])))


def _k_major(lay: Layout, u: Layout, t: int, atom: SwizzleAtom, family: str, where: str) -> tuple[int, int]:
    """``(LBO, SBO)`` of a K-major layout ``lay`` (``u``: in 16-byte units of ``t`` elements)."""
    if size(u[1]) * t != size(lay[1]):
        raise DescriptorError(f"{where}: not a canonical {family} K layout: the 16-byte chunks do not run along K "
                              f"(in 16-byte units the layout is {u})")
    if size(lay[0]) % 8:
        raise DescriptorError(f"{where}: not a canonical {family} K layout: MN extent {size(lay[0])} is not a "
                              f"multiple of 8 rows")
    div = logical_divide(u, (Layout(8), Layout(2)))
    s00, sbo = _pair(div[0], "MN", family, where)
    lbo, _ = _pair(div[1], "K", family, where)
    if s00 != atom.w:
        raise DescriptorError(f"{where}: not a canonical {family} K layout: rows of a core matrix are {16 * s00} "
                              f"bytes apart, {atom.name} needs {16 * atom.w} (stride failure)")
    if atom.swizzled and lbo != 1:
        raise DescriptorError(f"{where}: not a canonical {family} K layout: the two 16-byte K chunks are "
                              f"{16 * lbo} bytes apart, {atom.name} needs them adjacent (stride failure)")
    return lbo, sbo


def _mn_major(lay: Layout, u: Layout, t: int, atom: SwizzleAtom, family: str, where: str) -> tuple[int, int]:
    """``(LBO, SBO)`` of an MN-major layout ``lay`` (``u``: in 16-byte units of ``t`` elements)."""
    if size(u[0]) * t != size(lay[0]):
        raise DescriptorError(f"{where}: not a canonical {family} MN layout: the 16-byte chunks do not run along "
                              f"MN (in 16-byte units the layout is {u})")
    if size(u[0]) % atom.w:
        raise DescriptorError(f"{where}: not a canonical {family} MN layout: MN extent {size(lay[0])} is not a "
                              f"multiple of the {16 * atom.w}-byte swizzle width")
    if size(u[1]) % atom.r:
        raise DescriptorError(f"{where}: not a canonical {family} MN layout: K extent {size(lay[1])} is not a "
                              f"multiple of {atom.name}'s {atom.r} rows")
    div = logical_divide(u, (Layout(atom.w), Layout(atom.r)))
    s00, s01 = _pair(div[0], "MN", family, where)
    s10, s11 = _pair(div[1], "K", family, where)
    if atom.swizzled and s00 != 1:
        raise DescriptorError(f"{where}: not a canonical {family} MN layout: MN is not contiguous in 16-byte units "
                              f"(stride {s00}, stride failure)")
    if s10 != atom.w:
        raise DescriptorError(f"{where}: not a canonical {family} MN layout: K rows are {16 * s10} bytes apart, "
                              f"{atom.name} needs {16 * atom.w} (stride failure)")
    return (s01, s11) if atom.swizzled else (s11, s01)



def canonical_layout(atom: SwizzleAtom, major: str, element_bits: int, shape: tuple[int, int], lbo: int,
                     sbo: int) -> Layout:
    """The canonical ``(MN, K)`` layout in elements for offsets ``lbo`` / ``sbo`` in 16-byte units (module
    docstring table): what a descriptor with these fields describes, from its start address.

    >>> str(canonical_layout(SwizzleAtom("SW128", Swizzle(3, 4, 3), 8), "K", 16, (64, 16), 1, 64))
    '((8,8),(8,2)):((64,512),(1,8))'
    """
    t = 128 // element_bits
    mn, k = shape
    lb, sb, w = lbo * t, sbo * t, atom.w
    if major_of(major) == "K":
        if mn % 8 or k % t:
            raise DescriptorError(f"K-major {atom.name} operand {shape}: MN must be a multiple of 8, K of {t} "
                                  f"elements")
        return Layout(((8, mn // 8), (t, k // t)), ((w * t, sb), (1, t if atom.swizzled else lb)))
    if not atom.swizzled:
        if mn % t or k % 8:
            raise DescriptorError(f"MN-major {atom.name} operand {shape}: MN must be a multiple of {t}, K of 8")
        return Layout(((t, mn // t), (8, k // 8)), ((1, sb), (t, lb)))
    if mn % (w * t) or k % atom.r:
        raise DescriptorError(f"MN-major {atom.name} operand {shape}: MN must be a multiple of {w * t} elements, K "
                              f"of {atom.r}")
    return Layout(((w * t, mn // (w * t)), (atom.r, k // atom.r)), ((1, lb), (w * t, sb)))
