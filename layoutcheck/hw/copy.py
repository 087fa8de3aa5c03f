"""Copy atoms as data: ldmatrix / stmatrix, ld/st.shared (UniversalCopy) and cp.async, with their TV layouts.

Convention (CuTe, CUTLASS ``include/cute/atom/copy_traits*.hpp``): ``src_layout`` and ``dst_layout`` map
``(thread, value)`` to a **bit** index inside the atom's reference tile; ``value`` ranges over bits. View them in
element units with ``in_elements(layout, element_bits)`` (CuTe's ``upcast<element_bits>``).

ldmatrix / stmatrix (PTX ISA 9.7.14.5.15 "ldmatrix", 9.7.14.5.16 "stmatrix"): a warp moves 1, 2 or 4 matrices of
8 x 8 b16 elements; each matrix row is 16 contiguous bytes in shared memory whose address comes from one lane --
lanes ``8i .. 8i+7`` give rows 0..7 of matrix ``i`` (so ``.x1`` uses lanes 0-7, ``.x2`` 0-15, ``.x4`` 0-31; the other
lanes' addresses are ignored). In registers lane ``l`` holds row ``l // 4``, elements ``2*(l % 4)`` and
``2*(l % 4) + 1`` of each matrix (one 32-bit register per matrix); ``.trans`` delivers the transpose: lane ``l``
holds elements ``(2*(l%4), l//4)`` and ``(2*(l%4)+1, l//4)``. CuTe's reference tile for LDSM is ``8*N`` rows of 128
bits, bit ``128*row + b``; the shared-memory side is ``src`` for ldmatrix and ``dst`` for stmatrix.

Row providers (``row_providers``): the same two facts seen from a kernel that wants register value ``v`` of thread
``t`` to hold ``frag(t, v)``. Lane ``l`` must supply the address of the row whose first element the atom delivers
to ``(thread(l), value(l))``, i.e. of element ``frag(thread(l), value(l))``. For ``.x4`` (non-trans, b16): lane
``8j + r`` addresses row ``r`` of matrix ``j``, whose elements ``2c, 2c+1`` land in register ``j`` of lane ``4r + c``,
so ``thread = (8,4):(4,0)`` and ``value = (8,4):(0,2)`` (register ``j`` = values ``2j, 2j+1``, as in the ``mma.sync``
fragments of ``hw.mma``). Both layouts are derived from ``src_layout``/``dst_layout`` by the layout algebra, never
written down a second time.

UniversalCopy<uintW_t> and cp.async (``SM80_CP_ASYNC_CACHEALWAYS<uintW_t>``, 4/8/16 bytes; ``CACHEGLOBAL`` 16 bytes
only, PTX ISA 9.7.9.25 "cp.async"): one thread moves one W-bit word (``(1, W):(0, 1)``); in a warp every lane gives
its own address.

``access_kinds`` name the shared/global instruction shape for the bank and transaction models: ``ldsm_x4``,
``stsm_x2``, ``lds128``, ``sts64``, ``ldg32``, ``stg128``, ``ldgsts128`` (cp.async: a global read + a shared write of
that width) and so on.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from layoutcheck.algebra.layout import Layout, cosize, size
from layoutcheck.algebra.ops import composition, right_inverse
from layoutcheck.algebra.tiling import upcast
from layoutcheck.errors import LayoutError

_SM75 = "CUTLASS include/cute/atom/copy_traits_sm75.hpp Copy_Traits<{n}>; PTX ISA 9.7.14.5.15 'ldmatrix'"
_SM90 = "CUTLASS include/cute/atom/copy_traits_sm90.hpp Copy_Traits<{n}> (src/dst of the LDSM twin swapped); " \
        "PTX ISA 9.7.14.5.16 'stmatrix'"
_UNIV = "CUTLASS include/cute/atom/copy_traits.hpp Copy_Traits<UniversalCopy<S,D>>; PTX ISA ld.shared/st.shared"
_CPASYNC = "CUTLASS include/cute/atom/copy_traits_sm80.hpp, include/cute/arch/copy_sm80.hpp; PTX ISA 9.7.9.25 " \
           "'cp.async' (cp-size 4, 8, 16; .cg only 16)"


@dataclass(frozen=True, slots=True)
class AddressRule:
    """What one instruction requires of the addresses it is given: each access of ``bytes`` contiguous bytes must
    start at a multiple of ``align`` bytes (else the behaviour is undefined: the access may fault or silently drop
    low address bits), quoted from ``source``."""

    instr: str
    align: str  # how the alignment follows from the access: "access size" (the access's own bytes) or "16"
    quote: str
    source: str

    def alignment(self, access_bytes: int) -> int:
        """The byte alignment an access of ``access_bytes`` needs under this rule.

        >>> ADDRESS_RULES["ldmatrix"].alignment(16), ADDRESS_RULES["ld/st"].alignment(8)
        (16, 8)
        """
        return access_bytes if self.align == "access size" else int(self.align)


_OPERANDS = "PTX ISA 6.4.1 'Addresses as Operands'"
ADDRESS_RULES: dict[str, AddressRule] = {
    "ld/st": AddressRule("ld/st (ld.shared, st.shared, ld.global, st.global, .v2/.v4 vectors)", "access size",
                         "The access size of a memory instruction is the total number of bytes accessed in memory. "
                         "For example, the access size of ld.v4.b32 is 16 bytes [...] The address must be naturally "
                         "aligned to a multiple of the access size.", _OPERANDS),
    "cp.async": AddressRule("cp.async.{ca,cg}.shared.global [dst], [src], cp-size", "access size",
                            "Supported alignment requirements and addressing modes for operand src and dst are "
                            "described in Addresses as Operands (the access size is cp-size: 4, 8 or 16 bytes).",
                            "PTX ISA 9.7.9.25 'cp.async'; " + _OPERANDS),
    "ldmatrix": AddressRule("ldmatrix.sync.aligned.m8n8", "16",
                            "When reading 8x8 matrices, a group of four consecutive threads loads 16 bytes. The "
                            "matrix addresses must be naturally aligned accordingly.",
                            "PTX ISA 9.7.14.5.15 'ldmatrix'"),
    "stmatrix": AddressRule("stmatrix.sync.aligned.m8n8", "16",
                            "When storing 8x8 matrices, a group of four consecutive threads stores 16 bytes. The "
                            "matrix addresses must be naturally aligned accordingly.",
                            "PTX ISA 9.7.14.5.16 'stmatrix'"),
}
"""The address rules of the copy instructions the data-path model moves elements with (``models.datapath``). TMA's
rules are ``hw.tma.TmaLimits`` (``smem_dst_align``: a box's shared-memory destination, 128 bytes)."""


def address_rule(atom: CopyAtom) -> AddressRule:
    """The rule ``atom``'s addresses obey: ``ldmatrix`` / ``stmatrix`` rows, ``cp.async``, else ``ld/st``.

    >>> address_rule(copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>")).source.split(";")[0]
    "PTX ISA 9.7.9.25 'cp.async'"
    """
    return ADDRESS_RULES[next((k for k in ("cp.async", "ldmatrix", "stmatrix") if atom.ptx.startswith(k)), "ld/st")]


@dataclass(frozen=True, slots=True)
class CopyAtom:
    """One copy instruction: ``(thread, value) -> bit`` layouts for source and destination, and its memory access."""

    name: str
    ptx: str
    thr_id: Layout
    src_layout: Layout  # (T, V bits) -> bit in the reference tile
    dst_layout: Layout  # (T, V bits) -> bit in the reference tile
    access_kinds: tuple[str, ...]  # instruction shapes seen by the memory system (module docstring)
    smem_side: str  # "src", "dst" or "both"/"none": which layout addresses shared memory
    address_lanes: tuple[int, ...]  # row r's address comes from lane address_lanes[r]
    bytes_per_address: int  # contiguous bytes behind one lane address (16 for a matrix row)
    transpose: bool
    source: str
    val_id: Layout | None = None  # TMEM atoms: reference-tile bit -> TMEM bit address (CUTLASS ValID)

    @property
    def num_threads(self) -> int:
        return size(self.thr_id)

    @property
    def access_bits(self) -> int:
        return self.bytes_per_address * 8

    def smem_access_kind(self, direction: str) -> str:
        """The shared-memory access kind for ``direction`` ``"load"`` or ``"store"`` (e.g. ``ldsm_x4``, ``sts128``)."""
        prefix = {"load": ("lds", "ldsm"), "store": ("sts", "stsm", "ldgsts")}.get(direction)
        if prefix is None:
            raise LayoutError(f"direction must be 'load' or 'store', found {direction!r}")
        for k in self.access_kinds:
            if k.rstrip("0123456789").split("_")[0] in prefix:
                return k
        raise LayoutError(f"{self.name} has no shared-memory {direction} (access kinds {', '.join(self.access_kinds)})")

    def src_in_elements(self, element_bits: int) -> Layout:
        return in_elements(self.src_layout, element_bits)

    def dst_in_elements(self, element_bits: int) -> Layout:
        return in_elements(self.dst_layout, element_bits)

    def __str__(self) -> str:
        return f"{self.name} [{self.ptx}] src={self.src_layout} dst={self.dst_layout} ({'/'.join(self.access_kinds)})"


def in_elements(layout: Layout, element_bits: int) -> Layout:
    """A ``(thread, bit)`` layout in units of ``element_bits``-bit elements (CuTe's ``upcast``).

    >>> str(in_elements(copy_atom("SM75_U32x4_LDSM_N").dst_layout, 16))
    '(32,(2,4)):(2,(1,64))'
    """
    if element_bits <= 0 or element_bits & (element_bits - 1):
        raise LayoutError(f"element_bits must be a positive power of two, found {element_bits}")
    return upcast(layout, element_bits)


# -- ldmatrix / stmatrix layouts (bits) ---------------------------------------------------------------------------
_SRC_X1 = Layout(((8, 4), 128), ((128, 0), 1))  # (T32,V128) -> 8 rows x 128 b; lanes 8..31 alias 0..7
_SRC_X2 = Layout(((16, 2), 128), ((128, 0), 1))  # (T32,V128) -> 16 rows
_SRC_X4 = Layout((32, 128), (128, 1))  # (T32,V128) -> 32 rows
_DST_N = {1: Layout((32, 32), (32, 1)),  # (T32,V32) lane l: row l//4, word l%4
          2: Layout((32, (32, 2)), (32, (1, 1024))),
          4: Layout((32, (32, 4)), (32, (1, 1024)))}
_DST_T = {1: Layout(((4, 8), (16, 2)), ((256, 16), (1, 128))),  # lane l: rows 2(l%4)+h, column l//4
          2: Layout(((4, 8), (16, 2, 2)), ((256, 16), (1, 128, 1024))),
          4: Layout(((4, 8), (16, 2, 4)), ((256, 16), (1, 128, 1024)))}
_SRC = {1: _SRC_X1, 2: _SRC_X2, 4: _SRC_X4}


def _matrix_atoms() -> list[CopyAtom]:
    out = []
    warp = Layout(32)
    for x in (1, 2, 4):
        lanes = tuple(range(8 * x))
        for trans in (False, True):
            bits = "U16x" + str(2 * x) if trans else "U32x" + str(x)
            t = "T" if trans else "N"
            dst = (_DST_T if trans else _DST_N)[x]
            suffix = ".trans" if trans else ""
            ld = f"SM75_{bits}_LDSM_{t}"
            out.append(CopyAtom(ld, f"ldmatrix.sync.aligned.m8n8.x{x}{suffix}.shared.b16", warp, _SRC[x], dst,
                                (f"ldsm_x{x}",), "src", lanes, 16, trans, _SM75.format(n=ld)))
            st = f"SM90_{bits}_STSM_{t}"
            out.append(CopyAtom(st, f"stmatrix.sync.aligned.m8n8.x{x}{suffix}.shared.b16", warp, dst, _SRC[x],
                                (f"stsm_x{x}",), "dst", lanes, 16, trans, _SM90.format(n=st)))
    return out


_WORDS = {32: "uint32_t", 64: "uint64_t", 128: "uint128_t"}


def _word_atoms() -> list[CopyAtom]:
    out = []
    one = Layout(1)
    for bits, word in _WORDS.items():
        tv = Layout((1, bits), (0, 1))  # (T1,Vbits) -> bit
        kinds = (f"lds{bits}", f"sts{bits}", f"ldg{bits}", f"stg{bits}")
        out.append(CopyAtom(f"UniversalCopy<{word}>", f"ld/st.{{shared,global}}.b{bits}", one, tv, tv, kinds,
                            "both", (0,), bits // 8, False, _UNIV))
        out.append(CopyAtom(f"SM80_CP_ASYNC_CACHEALWAYS<{word}>", f"cp.async.ca.shared.global [dst], [src], "
                            f"{bits // 8}", one, tv, tv, (f"ldg{bits}", f"ldgsts{bits}"), "dst", (0,), bits // 8,
                            False, _CPASYNC))
    tv = Layout((1, 128), (0, 1))
    out.append(CopyAtom("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "cp.async.cg.shared.global [dst], [src], 16", one,
                        tv, tv, ("ldg128", "ldgsts128"), "dst", (0,), 16, False, _CPASYNC))
    return out


def _tmem_atoms() -> list[CopyAtom]:
    """tcgen05.ld / tcgen05.st (``SM100_TMEM_LOAD_*`` / ``STORE_*``): the TMEM side is the whole reference tile seen
    by every thread (``(32, bits):(0, 1)``, the warp issues one address), the register side the shape's fragment;
    ``val_id`` places the reference tile in TMEM (``layoutcheck.hw.tcgen05``)."""
    from layoutcheck.hw.tcgen05 import TMEM_LDST_SHAPES, tmem_atom_specs, tmem_val_id

    out = []
    for name, fam, reps, load, p16 in tmem_atom_specs():
        s = TMEM_LDST_SHAPES[fam]
        bits = s.lanes * s.row_bits * reps
        tmem, reg = Layout((32, bits), (0, 1)), s.register(reps)
        ptx = f"tcgen05.{'ld' if load else 'st'}.sync.aligned{s.ptx}.x{reps}" \
              f"{('.pack::16b' if load else '.unpack::16b') if p16 else ''}.b32"
        src, dst = (tmem, reg) if load else (reg, tmem)
        out.append(CopyAtom(name, ptx, Layout(32), src, dst, ("tmem_ld" if load else "tmem_st",), "none", (0,),
                            s.row_bits * reps // 8, False, s.source, tmem_val_id(fam, reps, p16)))
    return out + _tmem_load_stat_atoms({a.name: a for a in out})


def _tmem_load_stat_atoms(tmem: dict[str, CopyAtom]) -> list[CopyAtom]:
    """``SM100_TMEM_LOAD_STAT_*`` (tcgen05.ld.red): the cells and registers of the load they extend
    (``hw.tcgen05.TMEM_LOAD_STATS``), plus a per-thread reduction the layouts do not carry."""
    from dataclasses import replace

    from layoutcheck.hw.tcgen05 import TMEM_LOAD_STATS

    return [replace(tmem[s.like], name=s.name, ptx=s.ptx, source=s.source) for s in TMEM_LOAD_STATS.values()]


@cache
def _atoms() -> dict[str, CopyAtom]:
    return {a.name: a for a in _matrix_atoms() + _word_atoms() + _tmem_atoms()}


def copy_atom_names() -> list[str]:
    return sorted(_atoms())


def all_copy_atoms() -> list[CopyAtom]:
    return [_atoms()[n] for n in copy_atom_names()]


def copy_atom(name: str | CopyAtom) -> CopyAtom:
    """The copy atom called ``name`` (CUTLASS spelling, e.g. ``SM75_U32x4_LDSM_N``, ``UniversalCopy<uint128_t>``).

    >>> a = copy_atom("SM75_U32x4_LDSM_N")
    >>> a.smem_access_kind("load"), a.address_lanes[:9], str(a.src_layout)
    ('ldsm_x4', (0, 1, 2, 3, 4, 5, 6, 7, 8), '(32,128):(128,1)')
    """
    if isinstance(name, CopyAtom):
        return name
    if not isinstance(name, str):
        raise LayoutError(f"copy atom must be a name or a CopyAtom, found {name!r}")
    atoms = _atoms()
    key = name.replace(" ", "")
    if key in atoms:
        return atoms[key]
    from difflib import get_close_matches  # only a miss pays for the import

    close = get_close_matches(key, list(atoms), n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; known atoms: {', '.join(sorted(atoms))}"
    raise LayoutError(f"unknown copy atom {name!r}{hint}")


# -- ldmatrix / stmatrix row providers -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RowProviders:
    """Lane ``l`` of a matrix copy addresses the shared-memory row whose first element is register value
    ``value(l)`` of thread ``thread(l)`` (element units of ``element_bits``; module docstring)."""

    atom: str
    element_bits: int
    thread: Layout  # (lane) -> thread holding the first element of the row lane addresses
    value: Layout  # (lane) -> its value index in the register-side TV layout, in elements
    source: str


@cache
def row_providers(atom: str | CopyAtom, element_bits: int = 16) -> RowProviders:
    """Who receives the row each lane addresses, derived from the atom's TV layouts (ldmatrix / stmatrix only).

    Pre: ``atom`` names a matrix copy atom (32 lanes, one address per row); ``element_bits`` a power of two <= the
    row's bits. Post: for every lane ``l``, ``reg(thread(l), element_bits * value(l)) == smem(l, 0)`` (the row's
    first bit), with ``smem`` / ``reg`` the atom's shared-memory / register side; lanes past ``8x`` alias lane
    ``l % 8x`` as ``src_layout`` says.

    >>> p = row_providers("SM75_U32x4_LDSM_N")
    >>> str(p.thread), str(p.value)
    ('(8,4):(4,0)', '(8,4):(0,2)')
    """
    a = copy_atom(atom)
    if a.smem_side not in ("src", "dst") or a.num_threads != 32:
        raise LayoutError(f"row_providers: {a.name} is not an ldmatrix/stmatrix atom (one row address per lane)")
    smem, reg = (a.src_layout, a.dst_layout) if a.smem_side == "src" else (a.dst_layout, a.src_layout)
    if element_bits > a.access_bits:
        raise LayoutError(f"row_providers: element_bits {element_bits} exceeds the {a.access_bits}-bit row of {a.name}")
    row_of_lane = in_elements(smem, a.access_bits)[0]  # (lane) -> row of the reference tile
    first = composition(Layout(cosize(row_of_lane), a.access_bits // element_bits), row_of_lane)  # -> its element 0
    reg_e = in_elements(reg, element_bits)
    tv_idx = composition(right_inverse(reg_e), first)  # (lane) -> colex (thread, value) receiving that element
    T, V = size(reg_e[0]), size(reg_e[1])
    return RowProviders(a.name, element_bits, composition(Layout((T, V), (1, 0)), tv_idx),
                        composition(Layout((T, V), (0, 1)), tv_idx), a.source)
