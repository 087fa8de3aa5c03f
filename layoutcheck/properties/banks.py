"""Bank properties: ``conflict_free``, ``wavefront_count`` and ``conflict_free_at_every_base``, and how engines decide
them.

``ConflictFree(smem, access)``: every instruction of ``access`` on ``smem`` needs exactly its ideal wavefronts
(``layoutcheck.models.banks.model``); ``WavefrontCount``: the total is ``n`` (or at most ``max``);
``ConflictFreeAtEveryBase``: conflict-free on ``smem`` shifted by ``period * s`` elements before the swizzle, for
every ``s < bases``. The exhaustive engine runs the model over every instruction (and every base); the linear engine
decides ``ConflictFree`` by a GF(2) rank argument for XOR-linear address maps (``layoutcheck.models.banks.gf2``); the z3
engine decides ``ConflictFreeAtEveryBase`` with ``s`` symbolic. Importing this module registers both handlers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.layout import format_inttuple
from layoutcheck.algebra.notation import as_subject
from layoutcheck.algebra.swizzle import ComposedLayout, Subject, Swizzle, inner
from layoutcheck.errors import LayoutError
from layoutcheck.hw.banks import AccessKind
from layoutcheck.models.banks.access import (
    Access,
    analyze,
    as_smem,
    byte_addresses,
    default_access,
    element_offsets,
    first_split,
    lane_addresses,
    smem_modes,
)
from layoutcheck.models.banks.model import (
    breakdown,
    first_misaligned,
    ideal,
    ideal_batch,
    wavefronts,
    wavefronts_batch,
)
from layoutcheck.properties.base import Decision, Property
from layoutcheck.witness_banks import Base, Conflict, Misaligned, Split, WavefrontTotal


def _as_access(smem: Subject, access: Access | str | AccessKind, elem_bits: int | None) -> Access:
    if isinstance(access, Access):
        return access
    if elem_bits is None:
        raise LayoutError(f"access {access!r} given by kind needs the element width (dtype_bits)")
    return default_access(smem, access, elem_bits)


def _instruction_report(prop: Any, i: int) -> Conflict:
    addrs = prop.addresses[i]
    rep = max(breakdown(prop.access.kind, addrs), key=lambda p: p.wavefronts)
    lanes = list(rep.bank_lanes)
    return Conflict(instruction=i, phase=rep.phase, bank=rep.bank, words=list(rep.words), lanes=lanes,
                    wavefronts=int(wavefronts(prop.access.kind, addrs)), ideal=int(ideal(prop.access.kind, addrs)),
                    coords=[_tile_coord(prop, i, ln) for ln in lanes], merged=True if rep.merged else None)


def _tile_coord(prop: Any, i: int, lane: int, j: int = 0) -> list[int]:
    """The tile coordinate (row, col) of lane ``lane``'s ``j``-th element: per top-level mode of the smem layout, the
    colexicographic index inside that mode (a nested mode counts as one flat extent)."""
    e = int(prop.access.elems[i, lane, j])
    out, rest = [], e
    for n in smem_modes(prop.smem):
        out.append(rest % n)
        rest //= n
    return out


def _coords_text(coords: list[list[int]]) -> str:
    return ", ".join(format_inttuple(tuple(c)) if len(c) > 1 else f"({c[0]})" for c in coords)


def split_witness(prop: Any) -> Split | None:
    """The ``split`` witness: the first lane whose vector (an ldmatrix/stmatrix row of 16 bytes, an ld/st vector) is
    not contiguous in memory, so the ``bytes`` contiguous bytes the hardware moves from its address are not the
    elements the access names: ``instruction``, ``lane``, the elements' tile ``coords`` and byte ``addresses``."""
    offs = element_offsets(prop.smem, prop.access)
    bad = first_split(offs)
    if bad is None:
        return None
    i, lane = bad
    v = offs.shape[2]
    coords = [_tile_coord(prop, i, lane, j) for j in range(v)]
    return Split(i, lane, coords, [int(o) * prop.access.elem_bytes for o in offs[i, lane]])


def _recheck_split(prop: Any, w: dict[str, Any]) -> bool:
    i, lane, eb = w["instruction"], w["lane"], prop.access.elem_bytes
    if not (0 <= i < prop.access.instructions and 0 <= lane < 32):
        return False
    elems = [int(e) for e in prop.access.elems[i, lane]]
    addrs = [int(prop.smem(e)) * eb for e in elems]  # the layout evaluated at each element, not the offsets table
    return (min(elems) >= 0 and addrs == w["addresses"] and len(addrs) > 1 and
            addrs != [addrs[0] + eb * j for j in range(len(addrs))])


def _explain_split(prop: Any, w: dict[str, Any]) -> str:
    k = prop.access.kind
    what = f"{k.bytes}-byte row" if k.is_matrix else f"{k.bytes}-byte vector"
    return (f"instruction {w['instruction']}, lane {w['lane']}: {k} moves one contiguous {what} from byte address "
            f"{w['addresses'][0]}, but the lane's elements {_coords_text(w['coords'])} lie at byte addresses "
            f"{w['addresses']}: not one contiguous {what} (the layout splits it)")


def misaligned_witness(prop: Any) -> Misaligned | None:
    """The ``misaligned`` witness: the first lane whose vector address is not a multiple of the access size (the
    hardware faults on it, so no bank count exists): ``instruction``, ``lane``, ``address``, tile ``coord``."""
    bad = first_misaligned(prop.access.kind, prop.addresses)
    if bad is None:
        return None
    i, lane, addr = bad
    return Misaligned(i, lane, addr, _tile_coord(prop, i, lane))


def _recheck_misaligned(prop: Any, w: dict[str, Any]) -> bool:
    addrs = prop.addresses
    i, lane = w["instruction"], w["lane"]
    return (0 <= i < addrs.shape[0] and 0 <= lane < prop.access.kind.address_lanes and int(addrs[i, lane]) ==
            w["address"] >= 0 and w["address"] % prop.access.kind.bytes != 0)


def _explain_misaligned(prop: Any, w: dict[str, Any]) -> str:
    return (f"instruction {w['instruction']}, lane {w['lane']}: element {_coords_text([w['coord']])} at byte address "
            f"{w['address']} is not {prop.access.kind.bytes}-byte aligned ({prop.access.kind} faults on it)")


class _AccessClaim(Property):
    """What the bank claims over one ``access`` of an ``smem`` layout share: the subject, the domain (32 lanes per
    instruction), and the refutation every engine reports first (a misaligned vector faults before any bank is
    counted). ``addresses``: the ``(instructions, 32)`` byte address of each lane (-1: inactive), computed once, at
    construction, where it also validates the access against the layout (read-only)."""

    __slots__ = ()

    def _set_addresses(self) -> None:
        addrs = lane_addresses(self.smem, self.access)  # validates bounds at construction; a split vector refutes
        addrs.setflags(write=False)
        object.__setattr__(self, "addresses", addrs)

    def subjects(self) -> tuple[Subject, ...]:
        return (self.smem,)

    def domain_size(self) -> int:
        return self.access.instructions * 32

    def refutation(self) -> Decision | None:
        """A split vector (the hardware moves other bytes than the access names), else a misaligned one (it
        faults): either comes before any bank is counted."""
        bad = split_witness(self) or misaligned_witness(self)
        return None if bad is None else Decision(False, bad)

    def _recheck_early(self, w: dict[str, Any]) -> bool | None:
        return {"split": _recheck_split, "misaligned": _recheck_misaligned}.get(w["kind"], lambda p, w: None)(self, w)

    def _explain_early(self, w: dict[str, Any]) -> str | None:
        return {"split": _explain_split, "misaligned": _explain_misaligned}.get(w["kind"], lambda p, w: None)(self, w)


@dataclass(frozen=True, slots=True)
class ConflictFree(_AccessClaim):
    """Every instruction of ``access`` on ``smem`` needs exactly its ideal wavefronts (no bank conflict)."""

    smem: Subject
    access: Access
    addresses: np.ndarray = field(init=False, repr=False, compare=False)
    name: ClassVar[str] = "conflict_free"
    bytes_per_point: ClassVar[int] = 256

    def __post_init__(self) -> None:
        object.__setattr__(self, "smem", as_smem(self.smem))
        self._set_addresses()

    def subject(self) -> str:
        return f"{self.smem}, {self.access}"

    def exhaustive(self) -> Decision:
        early = self.refutation()
        if early is not None:
            return early
        an = analyze(self.smem, self.access)
        stats = {"instructions": an.instructions, "wavefronts": an.wavefronts, "ideal": an.ideal}
        if an.conflicts == 0:
            return Decision(True, None, stats)
        bad = int(np.flatnonzero(an.per_instruction > ideal_batch(self.access.kind, self.addresses))[0])
        return Decision(False, _instruction_report(self, bad), stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        early = self._recheck_early(w)
        if early is not None:
            return early
        rep = _instruction_report(self, w["instruction"])
        return rep["wavefronts"] > rep["ideal"] and len(rep["words"]) > 1

    def explain(self, w: dict[str, Any]) -> str:
        early = self._explain_early(w)
        if early is not None:
            return early
        k = self.access.kind
        coords = f" (tile elements {_coords_text(w['coords'])})" if w.get("coords") else ""
        group = "merged group" if w.get("merged") else "phase"  # the phases merged: one group counted as a whole
        return (f"instruction {w['instruction']}, {group} {w['phase']}: lanes {w['lanes']}{coords} hit bank "
                f"{w['bank']} with {len(w['words'])} distinct 32-bit words {w['words']} -> {w['wavefronts']} "
                f"wavefronts (ideal {w['ideal']}, {k})")


@dataclass(frozen=True, slots=True)
class WavefrontCount(_AccessClaim):
    """The access needs exactly ``n`` wavefronts in total, summed over every instruction (or at most ``max``).

    A conflict-free access of 4 ``ldmatrix.x4`` instructions needs 4 x 4 = 16 wavefronts: ``n`` is that total.
    """

    smem: Subject
    access: Access
    n: int | None = None
    max: int | None = None
    addresses: np.ndarray = field(init=False, repr=False, compare=False)
    name: ClassVar[str] = "wavefront_count"
    bytes_per_point: ClassVar[int] = 256

    def __post_init__(self) -> None:
        object.__setattr__(self, "smem", as_smem(self.smem))
        if (self.n is None) == (self.max is None):
            raise LayoutError("wavefront_count needs exactly one of n (exact total) or max (upper bound)")
        self._set_addresses()

    def subject(self) -> str:
        bound = f"== {self.n}" if self.n is not None else f"<= {self.max}"
        return f"{self.smem}, {self.access}, {bound}"

    def _total(self) -> int:
        return int(wavefronts_batch(self.access.kind, self.addresses).sum())

    def _holds(self, t: int) -> bool:
        return t == self.n if self.n is not None else t <= (self.max or 0)

    def exhaustive(self) -> Decision:
        early = self.refutation()
        if early is not None:
            return early
        t = self._total()
        return Decision(True, None, {"wavefronts": t}) if self._holds(t) else Decision(False, WavefrontTotal(t))

    def recheck(self, w: dict[str, Any]) -> bool:
        early = self._recheck_early(w)
        if early is not None:
            return early
        return w["wavefronts"] == self._total() and not self._holds(w["wavefronts"])

    def explain(self, w: dict[str, Any]) -> str:
        early = self._explain_early(w)
        if early is not None:
            return early
        want = f"exactly {self.n}" if self.n is not None else f"at most {self.max}"
        n = self.access.instructions
        return (f"{self.access} needs {w['wavefronts']} wavefronts in total over its {n} instruction"
                f"{'s' if n != 1 else ''}, not {want} (wavefront_count bounds the total, not one instruction)")


def conflict_free(smem: Any, access: Access | str | AccessKind, dtype_bits: int | None = None) -> ConflictFree:
    """The claim that ``access`` (an ``Access``, or a kind name for the canonical tile access) has no bank conflict.

    >>> from layoutcheck import Layout
    >>> from layoutcheck.engines.prove import prove
    >>> prove(conflict_free(Layout((8, 64), (64, 1)), "ldsm_x4", 16)).status.value
    'REFUTED'
    """
    smem = as_smem(smem)
    return ConflictFree(smem, _as_access(smem, access, dtype_bits))


def wavefront_count(smem: Any, access: Access | str | AccessKind, n: int | None = None, dtype_bits: int | None = None,
                    max: int | None = None) -> WavefrontCount:
    """The claim that ``access`` needs exactly ``n`` (or at most ``max``) wavefronts in total."""
    smem = as_smem(smem)
    return WavefrontCount(smem, _as_access(smem, access, dtype_bits), n, max)


# ------------------------------------------------------------------------------- every base: stages, k-tiles
@dataclass(frozen=True, slots=True)
class ConflictFreeAtEveryBase(Property):
    """``access`` on ``smem`` is conflict-free at every base ``period * s`` (elements, ``0 <= s < bases``), the base
    added BEFORE the swizzle, as the hardware swizzles absolute smem addresses: stages, k-tiles and warps whose tiles
    sit at multiples of ``period`` in one buffer.

    Pre (checked; it keeps each lane's vector contiguous and aligned at every base, so one address per lane is
    exact): each lane's elements are consecutive pre-swizzle offsets starting at a multiple of the vector length
    ``v``; ``v`` divides ``2**M`` of ``Sw<B,M,S>``; ``period`` is a multiple of ``max(v, 2**M)``.
    """

    smem: Subject
    access: Access
    period: int
    bases: int
    name: ClassVar[str] = "conflict_free_at_every_base"
    bytes_per_point: ClassVar[int] = 256

    def __post_init__(self) -> None:
        object.__setattr__(self, "smem", as_subject(self.smem, "shared-memory layout"))
        byte_addresses(self.smem, self.access)
        e, v = self.access.elems, self.access.elems.shape[2]
        pre = self._pre_swizzle()
        m = v if self._swizzle().is_identity() else 1 << self._swizzle().base
        act = e[:, :, 0] >= 0
        steps = inner(self.smem).offsets()[np.where(e >= 0, e, 0)] - inner(self.smem).offsets()[np.where(
            e >= 0, e, 0)][:, :, :1]
        if ((steps != np.arange(v)) & act[:, :, None]).any() or ((pre % v != 0) & act).any() or m % v:
            raise LayoutError(f"{self.subject()}: each lane's {v} elements must be consecutive, {v}-aligned offsets "
                              f"before the swizzle, and {v} must divide 2**M = {m}")
        if self.bases < 1 or self.period <= 0 or self.period % max(v, m):
            raise LayoutError(f"{self.subject()}: period must be a positive multiple of {max(v, m)} elements and "
                              f"bases >= 1, found period {self.period}, bases {self.bases}")

    def _swizzle(self) -> Swizzle:
        return self.smem.swizzle if isinstance(self.smem, ComposedLayout) else Swizzle(0, 0, 0)

    def _pre_swizzle(self) -> np.ndarray:
        """(instructions, 32) pre-swizzle element offset of each lane's first element (-1: inactive)."""
        e = self.access.elems[:, :, 0]
        off = self.smem.offset if isinstance(self.smem, ComposedLayout) else 0
        return np.where(e >= 0, inner(self.smem).offsets(np.int64)[np.where(e >= 0, e, 0)] + off, -1)

    def at(self, s: int) -> ConflictFree:
        """The concrete claim at base ``period * s``."""
        return ConflictFree(ComposedLayout(self._swizzle(), (self.smem.offset if isinstance(self.smem, ComposedLayout)
                                                             else 0) + self.period * s, inner(self.smem)), self.access)

    def subjects(self) -> tuple[Subject, ...]:
        return (self.smem,)

    def subject(self) -> str:
        return f"{self.smem}, {self.access}, base = {self.period}*s for s < {self.bases}"

    def domain_size(self) -> int:
        return self.bases * self.access.instructions * 32

    def exhaustive(self) -> Decision:
        pre, k = self._pre_swizzle(), self.access.kind
        eb = self.access.elem_bytes
        s = np.arange(self.bases, dtype=np.int64)[:, None, None]
        addrs = np.where(pre >= 0, self._swizzle()(pre + self.period * s) * eb, -1).reshape(-1, 32)
        bad = np.flatnonzero(wavefronts_batch(k, addrs) > ideal_batch(k, addrs))
        if not len(bad):
            return Decision(True, None, {"bases": self.bases, "instructions": self.access.instructions})
        return Decision(False, Base(int(bad[0]) // self.access.instructions))

    def recheck(self, w: dict[str, Any]) -> bool:
        return 0 <= w["s"] < self.bases and not self.at(w["s"]).exhaustive().holds

    def explain(self, w: dict[str, Any]) -> str:
        c = self.at(w["s"])
        d = c.exhaustive()
        return f"at base {self.period}*{w['s']} = {self.period * w['s']} elements: " + c.explain(d.witness or {})

    def conflict_pairs(self) -> list[tuple[int, int]]:
        """The distinct pairs of pre-swizzle offsets of two address lanes of one phase (what can conflict)."""
        k, pre = self.access.kind, self._pre_swizzle()[:, : self.access.kind.address_lanes]
        ph = pre.reshape(-1, k.phase_lanes)
        i, j = np.triu_indices(k.phase_lanes, 1)
        pairs = np.stack([ph[:, i], ph[:, j]], axis=-1).reshape(-1, 2)
        pairs = pairs[(pairs >= 0).all(axis=1)]
        return sorted({(int(a), int(b)) for a, b in pairs if a != b})


def conflict_free_at_every_base(smem: Any, access: Access | str | AccessKind, period: int, bases: int,
                                dtype_bits: int | None = None) -> ConflictFreeAtEveryBase:
    """The claim that ``access`` is conflict-free on ``smem`` shifted by ``period * s`` (elements, before the
    swizzle) for every ``s < bases``; the z3 engine decides it with ``s`` symbolic.

    >>> from layoutcheck.engines.prove import prove
    >>> from layoutcheck import Layout, Swizzle
    >>> sw = ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1)))  # Sw<3,4,3> on bytes, 8x128 B bf16
    >>> prove(conflict_free_at_every_base(sw, "ldsm_x4", 512, 1 << 12, 16), engine="z3").status.value
    'PROVEN'
    """
    smem = as_subject(smem, "shared-memory layout")
    return ConflictFreeAtEveryBase(smem, _as_access(smem, access, dtype_bits), period, bases)
