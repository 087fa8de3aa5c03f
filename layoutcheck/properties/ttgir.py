"""What a TTGIR file implies: the claims Triton relies on for every layout the file uses, ready for ``prove``.

Every distinct (encoding, shape) of the file (``layoutcheck.importers.triton.import_ttgir``) yields exactly one
required claim, so a file with N layouts yields N rows:

- an encoding whose linear layout contradicts its module -- lanes other than ``ttg.threads-per-warp``, warps other
  than ``ttg.num-warps`` (or a ``warp_specialize`` partition's count), CTAs other than ``ttg.num-ctas`` -- is a
  well-formed but wrong input: ``consistent_with_module``, REFUTED with the attribute, the encoding's value and the
  module's (Triton's verifier rejects such a layout: "Layout has 64 threads per warp, but the module specifies 32");
- a distributed encoding (``blocked``, ``nvidia_mma``, ``dot_op``, ``slice``, ``linear``) must be an *exact cover*
  of its tensor: every element held by some (register, lane, warp, block), and by several only through zero bases
  (a broadcast) -- Triton's lowering assumes both;
- a shared encoding (``swizzled_shared``, ``nvmma_shared``, ``padded_shared``'s linear part, ``shared_linear``) must
  be *bijective per CTA* (``LinearSharedBijective``): each CTA has its own shared memory, so within a CTA each
  offset holds one element, and every element is held by some CTA; a ``block`` dimension that replicates the tile
  (``num_ctas = 2`` with ``CGALayout = [[0, 0]]``) is correct (multicast is a separate question);
- a tensor-memory encoding must cover its tensor (``exact_cover`` over rows and columns);
- a use without a linear layout -- an encoding layoutcheck does not model (``#ttg.amd_mfma``, ``#ttg.nvidia_mma``
  of a version other than 2 or 3, a ``dot_op`` of such a parent), a shape that is not a power of two -- yields a
  ``NotModelled`` claim: UNKNOWN, naming the encoding and what is not modelled, never dropped;
- every ``ttg.local_load`` / ``ttg.local_store`` / ``ttg.local_alloc`` (from registers) between a register layout
  and a shared layout gets a ``conflict_free`` claim: informational (``required=False``), since a conflict costs
  time, not correctness. The access is modelled as ld/st.shared vectors of the widest register run that is
  contiguous in shared memory (Triton may choose ldmatrix/stmatrix instead).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.linear_layout import LinearLayout
from layoutcheck.importers.triton import (
    Imported,
    Ttgir,
    balanced_end,
    import_ttgir,
    parse_attr,
    parse_ttgir,
    to_linear,
    type_use,
)
from layoutcheck.properties.base import Decision, Property, Undecided
from layoutcheck.properties.linear import LinearConflictFree, LinearExactCover, LinearSharedBijective
from layoutcheck.witness_maps import ModuleAttribute


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim about one layout of a file: where (``line``), about what (``subject``), and the property."""

    line: int
    subject: str
    prop: Property
    required: bool = True


@dataclass(frozen=True, slots=True)
class TtgirClaims:
    claims: tuple[Claim, ...]
    skipped: tuple[tuple[int, str, str], ...]  # (line, subject, reason): also in ``claims``, as ``NotModelled``
    layouts: tuple[Imported, ...]


def _subject(imp: Imported) -> str:
    return f"{imp.encoding} {'x'.join(map(str, imp.shape))}x{imp.element}"


@dataclass(frozen=True, slots=True)
class NotModelled(Property):
    """A use whose encoding (or shape) layoutcheck does not model: never decided, so every engine answers UNKNOWN
    and the row names the encoding and what is not modelled (``what``). ``claim`` is the claim Triton would rely on
    (``exact_cover`` for a register or tensor-memory layout, ``bijective`` for a shared one)."""

    encoding: str
    what: str
    claim: str = LinearExactCover.name

    @property  # type: ignore[misc]  # the claim's name is per instance here (a class attribute elsewhere)
    def name(self) -> str:  # type: ignore[override]
        return self.claim

    def subjects(self) -> tuple[Any, ...]:
        return ()

    def subject(self) -> str:
        return f"{self.encoding}: not modelled: {self.what}"

    def domain_size(self) -> int:
        return 0

    def exhaustive(self) -> Undecided:  # type: ignore[override]
        return Undecided(f"not modelled: {self.encoding}: {self.what}")

    def recheck(self, witness: dict[str, Any]) -> bool:
        return False  # nothing is ever refuted

    def explain(self, witness: dict[str, Any]) -> str:
        return self.subject()


_ATTRIBUTE = {"lane": "threadsPerWarp", "warp": "warpsPerCTA", "block": "CGALayout"}
"""The encoding attribute that sets each input dimension (``#ttg.linear`` / ``#ttg.shared_linear`` list their
``lane``, ``warp``, ``block`` bases instead)."""


@dataclass(frozen=True, slots=True)
class ConsistentWithModule(Property):
    """The encoding's linear layout has as many lanes, warps and CTAs as its module fixes (``module``: input
    dimension -> (module attribute, the values it allows)); Triton's verifier (``verifyTensorLayout``) requires it
    of every tensor's layout."""

    layout: LinearLayout
    encoding: str
    module: tuple[tuple[str, str, str, tuple[int, ...]], ...]
    """``(input dimension, the encoding's attribute, the module's attribute, the values the module allows)``."""
    name: ClassVar[str] = "consistent_with_module"

    def subjects(self) -> tuple[Any, ...]:
        return (self.layout,)

    def subject(self) -> str:
        return self.encoding

    def domain_size(self) -> int:
        return 1

    def _size(self, dim: str) -> int:
        return self.layout.in_dim_size(dim) if dim in self.layout.in_dims else 1

    def exhaustive(self) -> Decision:
        for dim, mine, theirs, allowed in self.module:
            if self._size(dim) not in allowed:
                return Decision(False, ModuleAttribute(dim, mine, self._size(dim), theirs, allowed[0]))
        return Decision(True)

    def recheck(self, w: dict[str, Any]) -> bool:
        allowed = next((a for d, _, _, a in self.module if d == w["dim"]), None)
        return allowed is not None and self._size(w["dim"]) == w["encoding"] and w["encoding"] not in allowed

    def explain(self, w: dict[str, Any]) -> str:
        unit = {"lane": "threads per warp", "warp": "warps", "block": "CTAs"}[w["dim"]]
        return (f"{w['attribute']} gives {w['encoding']} {unit} ({w['dim']} dimension of the layout), but the module "
                f"says {w['module_attribute']} = {w['module']}")


def consistency(imp: Imported, module: Ttgir) -> ConsistentWithModule | None:
    """The ``consistent_with_module`` claim of one layout (its lane/warp/block sizes against the module's
    attributes; a shared layout only its ``block``), or ``None`` when the module states none of them."""
    assert imp.layout is not None
    if "row" in imp.layout.in_dims:  # tensor memory: rows and columns, no threads
        return None
    dims = ("block",) if imp.shared else ("lane", "warp", "block")
    listed = imp.encoding_kind in ("ttg.linear", "ttg.shared_linear")
    sizes = module.module_sizes()
    fixed = tuple((d, f"{d} bases" if listed else _ATTRIBUTE[d], *sizes[d]) for d in dims if d in sizes)
    return ConsistentWithModule(imp.layout, imp.encoding, fixed) if fixed else None


def layout_claims(imp: Imported, module: Ttgir | None = None) -> list[Claim]:
    """The one required claim of one imported layout: ``consistent_with_module`` where the layout contradicts its
    module (its own claims are moot there: Triton rejects the module), else ``exact_cover`` (register and tensor
    memory) or ``bijective`` per CTA (shared memory); ``NotModelled`` where there is no layout."""
    s = _subject(imp)
    if imp.layout is None:
        shared = imp.shared and not imp.encoding_kind.startswith("ttng.")
        claim = LinearSharedBijective.name if shared else LinearExactCover.name
        enc = f"{s} (#{imp.encoding_kind})" if imp.encoding_kind else s
        return [Claim(imp.line, s, NotModelled(enc, imp.skipped or "no linear layout", claim))]
    check = consistency(imp, module) if module is not None else None
    if check is not None and not check.exhaustive().holds:
        return [Claim(imp.line, s, check)]
    if imp.shared and "row" not in imp.layout.in_dims:
        return [Claim(imp.line, s, LinearSharedBijective(imp.layout))]
    return [Claim(imp.line, s, LinearExactCover(imp.layout))]


_OPS = re.compile(r"ttg\.(?P<op>local_load|local_store|local_alloc)\b(?P<rest>.*)$", re.M)
_TYPES = re.compile(r"(tensor|!ttg\.memdesc)<")


def copies(text: str) -> list[Claim]:
    """A ``conflict_free`` claim for every register <-> shared copy of the file, one per operation (its line)."""
    t = parse_ttgir(text)
    out = []
    for m in _OPS.finditer(text):
        rest = m.group("rest")
        uses = []
        for tm in _TYPES.finditer(rest):
            end = balanced_end(rest, tm.end())
            u = type_use(tm.group(1), rest[tm.end():end - 1], 0)
            if u is not None:
                uses.append(u)
        reg = next((u for u in uses if u.kind == "tensor"), None)
        mem = next((u for u in uses if u.kind == "memdesc"), None)
        if reg is None or mem is None or reg.shape != mem.shape[-len(reg.shape):] or reg.elem_bits is None:
            continue
        line = text.count("\n", 0, m.start()) + 1
        subject = f"{m.group('op')} {reg.encoding} <-> {mem.encoding} {'x'.join(map(str, reg.shape))}"
        try:
            rl = to_linear(parse_attr(reg.encoding, t.aliases), reg.shape)
            sl = to_linear(parse_attr(mem.encoding, t.aliases), reg.shape)
        except (ValueError, KeyError):
            continue  # a layout that does not import has its own NotModelled row
        try:
            prop: Property = LinearConflictFree(rl, sl, reg.elem_bits, "ld" if m.group("op") == "local_load" else "st")
            prop.vec()  # type: ignore[attr-defined]  # the access model applies (one CTA's shared layout inverts)
        except (ValueError, KeyError) as e:
            prop = NotModelled(subject, f"the bank model of this copy ({e})", LinearConflictFree.name)
        out.append(Claim(line, subject, prop, required=False))
    return out


def access_claims(text: str) -> list[Claim]:
    """A ``conflict_free`` claim for every register <-> shared copy of the file (identical ones once)."""
    out, seen = [], set()
    for c in copies(text):
        if (c.subject, c.prop) not in seen:
            seen.add((c.subject, c.prop))
            out.append(c)
    return out


_CVT = re.compile(r"ttg\.convert_layout\b(?P<rest>.*)$", re.M)
_LEVELS = ("block", "warp", "lane")
"""The input dimensions a conversion may have to cross, slowest first (Triton's ``minimalCvtLayout`` quotients them
in this order and stops at the first it cannot)."""


def _held(ll: LinearLayout, dims: tuple[str, ...]) -> np.ndarray:
    """Every (holder, element) pair of a distributed layout, encoded as one int: the holder is the value of the input
    dimensions ``dims`` (a thread, a warp or a CTA), the element the flat tensor offset."""
    flat = ll.offsets()
    key = np.zeros_like(flat)
    index = np.arange(flat.size, dtype=np.int64)
    shift, used = 0, 0
    for name, bs in ll.in_bases:
        if name in dims:
            key |= ((index >> shift) & ((1 << len(bs)) - 1)) << used
            used += len(bs)
        shift += len(bs)
    return np.unique(key * ll.out_size + flat)


def cvt_path(src: LinearLayout, dst: LinearLayout) -> str:
    """How Triton moves a tensor from ``src`` to ``dst`` (both distributed, same tensor): ``"registers"`` when every
    thread already holds what it needs (``cvtReordersRegisters``), ``"lanes"`` when data moves only between the lanes
    of a warp (``cvtNeedsWarpShuffle``: Triton may shuffle or go through shared memory), ``"shared"`` when it crosses
    warps or CTAs (``cvtNeedsSharedMemory``: only shared memory connects warps).

    The rule of Triton's ``minimalCvtLayout`` (``lib/Analysis/Utility.cpp``): quotient ``dst^-1 o src`` by ``block``,
    then ``warp``, then ``lane``; a dimension can be quotiented iff every holder of ``dst`` (CTA, warp, thread) needs
    only elements the same holder of ``src`` has.
    """
    for i, level in enumerate(_LEVELS):
        dims = _LEVELS[: i + 1]
        if not np.isin(_held(dst, dims), _held(src, dims)).all():
            return "lanes" if level == "lane" else "shared"
    return "registers"


def convert_claims(text: str) -> list[Claim]:
    """A claim (informational) for every ``ttg.convert_layout`` that moves data between threads: ``conflict_free``
    of the shared-memory round trip where the data crosses warps, which Triton lowers through a scratch buffer whose
    swizzle it computes at lowering time (``optimalSwizzling`` in ``GenericSwizzling.cpp``), not visible in TTGIR
    and not modelled here: UNKNOWN, naming it; a conversion within warps likewise (shuffles or shared memory);
    a conversion that only reorders registers moves nothing through shared memory and has no row."""
    t = parse_ttgir(text)
    out = []
    for m in _CVT.finditer(text):
        rest = m.group("rest")
        uses = []
        for tm in _TYPES.finditer(rest):
            u = type_use(tm.group(1), rest[tm.end():balanced_end(rest, tm.end()) - 1], 0)
            if u is not None and u.kind == "tensor":
                uses.append(u)
        if len(uses) != 2:
            continue
        a, b = uses
        line = text.count("\n", 0, m.start()) + 1
        subject = f"convert_layout {a.encoding} -> {b.encoding} {'x'.join(map(str, a.shape))}x{a.element}"
        try:
            path = cvt_path(to_linear(parse_attr(a.encoding, t.aliases), a.shape),
                            to_linear(parse_attr(b.encoding, t.aliases), b.shape))
        except (ValueError, KeyError) as e:
            out.append(Claim(line, subject, NotModelled(subject, f"the layouts of this conversion ({e})",
                                                        LinearConflictFree.name), required=False))
            continue
        what = {"shared": "data crosses warps, so Triton goes through shared memory, with a scratch swizzle it picks "
                          "at lowering time (optimalSwizzling, GenericSwizzling.cpp); its wavefronts",
                "lanes": "data moves between lanes of a warp: Triton shuffles (cvtNeedsWarpShuffle) or goes through "
                         "shared memory; which, and its wavefronts"}.get(path)
        if what is not None:
            out.append(Claim(line, subject, NotModelled(subject, what, LinearConflictFree.name), required=False))
    return out


_SCRATCH = re.compile(r"\"tt\.(?P<op>reduce|scan)\"\(.*?<\{axis = (?P<axis>\d+)[^\n]*", re.M)
_REGION_END = re.compile(r"^\s*\}\) : \((?P<types>[^\n]*)$", re.M)


def _crosses_warps(ll: LinearLayout, axis: int) -> bool:
    """Some warp basis of ``ll`` moves along ``axis``: the op combines data of several warps."""
    out = list(ll.out_names).index(f"dim{axis}") if f"dim{axis}" in ll.out_names else None
    return out is not None and any(b[out] for name, bs in ll.in_bases if name == "warp" for b in bs)


def scratch_claims(text: str) -> list[Claim]:
    """A claim (informational) for every ``tt.reduce`` / ``tt.scan`` whose axis spans several warps: Triton
    combines the warps' partial results through a shared-memory scratch buffer (``ReduceOpHelper`` /
    ``ScanLoweringHelper``), whose layout and accesses are its lowering's and not modelled here: UNKNOWN, naming it.
    An axis within one warp is reduced with shuffles and has no row."""
    t = parse_ttgir(text)
    out = []
    for m in _SCRATCH.finditer(text):
        end = _REGION_END.search(text, m.end())
        if end is None:
            continue
        tm = _TYPES.search(end.group("types"))
        if tm is None:
            continue
        body = end.group("types")
        u = type_use(tm.group(1), body[tm.end():balanced_end(body, tm.end()) - 1], 0)
        if u is None or u.kind != "tensor":
            continue
        line = text.count("\n", 0, end.start()) + 1
        subject = f"{m.group('op')} axis {m.group('axis')} of {u.encoding} {'x'.join(map(str, u.shape))}x{u.element}"
        try:
            crosses = _crosses_warps(to_linear(parse_attr(u.encoding, t.aliases), u.shape), int(m.group("axis")))
        except (ValueError, KeyError) as e:
            out.append(Claim(line, subject, NotModelled(subject, f"the layout of this {m.group('op')} ({e})",
                                                        LinearConflictFree.name), required=False))
            continue
        if crosses:
            what = (f"the axis spans several warps, so Triton combines them through a shared-memory scratch buffer "
                    f"(its {m.group('op')} lowering); its wavefronts")
            out.append(Claim(line, subject, NotModelled(subject, what, LinearConflictFree.name), required=False))
    return out


_UNMODELLED = {
    "ttg.async_copy_global_to_local": "cp.async writes into shared memory; its wavefronts (the vector Triton derives "
                                      "from the pointer's contiguity and alignment)",
    "ttng.async_tma_copy_global_to_local": "a TMA load writes through the async proxy; its bank traffic",
    "ttng.async_tma_copy_local_to_global": "a TMA store reads through the async proxy; its bank traffic",
    "ttng.warp_group_dot": "wgmma reads its shared-memory operands through descriptors; the reads' wavefronts, "
                           "and here the agreement of their nvmma_shared swizzle with the descriptor (decided from "
                           "the PTX by 'layoutcheck triton': its nvmma_descriptor row)",
    "ttng.tc_gen5_mma": "tcgen05.mma reads its shared-memory operands through descriptors; the reads' wavefronts, "
                        "and here the agreement of their nvmma_shared swizzle with the descriptors (decided from the "
                        "PTX by 'layoutcheck triton --target cuda:100': its nvmma_descriptor row)",
}
"""Shared-memory data movements the bank model does not cover yet, with what is not modelled."""
_UNMODELLED_OPS = re.compile(r"(?<![\w.])(?P<op>" + "|".join(re.escape(k) for k in _UNMODELLED) + r")\b(?P<rest>.*)$",
                             re.M)


def unmodelled_claims(text: str) -> list[Claim]:
    """An UNKNOWN row (informational) for every async copy, TMA copy and MMA reading shared memory: shared-memory
    traffic that is there, but whose wavefronts (and, for MMAs, descriptor agreement) are not modelled."""
    out = []
    for m in _UNMODELLED_OPS.finditer(text):
        rest = m.group("rest")
        mem = None
        for tm in _TYPES.finditer(rest):
            u = type_use(tm.group(1), rest[tm.end():balanced_end(rest, tm.end()) - 1], 0)
            if u is not None and u.kind == "memdesc":
                mem = u
                break
        where = "" if mem is None else f" {mem.encoding} {'x'.join(map(str, mem.shape))}x{mem.element}"
        subject = f"{m.group('op').split('.', 1)[1]}{where}"
        line = text.count("\n", 0, m.start()) + 1
        out.append(Claim(line, subject, NotModelled(subject, _UNMODELLED[m.group("op")], LinearConflictFree.name),
                         required=False))
    return out


def ttgir_claims(text: str) -> TtgirClaims:
    """Every claim a TTGIR module implies (layouts first, then shared-memory accesses)."""
    layouts = import_ttgir(text)
    module = parse_ttgir(text)
    claims: list[Claim] = []
    skipped = []
    for imp in layouts:
        if imp.layout is None:
            skipped.append((imp.line, _subject(imp), imp.skipped or "no linear layout"))
        claims += layout_claims(imp, module)
    claims += access_claims(text)
    claims += convert_claims(text)
    claims += scratch_claims(text)
    claims += unmodelled_claims(text)
    return TtgirClaims(tuple(claims), tuple(skipped), tuple(layouts))


__all__ = ["Claim", "ConsistentWithModule", "NotModelled", "TtgirClaims", "access_claims", "consistency",
           "convert_claims", "copies", "cvt_path", "layout_claims", "scratch_claims", "ttgir_claims",
           "unmodelled_claims"]
