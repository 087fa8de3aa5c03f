"""Claims about linear layouts (``layoutcheck.algebra.linear_layout``): injective, surjective, exact cover, and the
bank conflicts of a register layout stored to / loaded from a shared layout.

Definitions (``L`` a linear layout, inputs ``x`` over its input dimensions, outputs over its output shape)::

    ll_injective(L)      L(x) == L(y) => x == y
    ll_surjective(L)     every output coordinate is some L(x)
    ll_exact_cover(L)    surjective, and L(x) == L(y) only when x ^ y is a sum of zero bases: every element is
                         owned once up to broadcast (Triton's requirement of a distributed layout)
    shared (per CTA)     a shared layout ``(offset, block) -> tensor``: each CTA has its own shared memory, so
                         ``injective`` / ``bijective`` are decided per CTA -- distinct offsets of one CTA hold
                         distinct elements (``per_cta``: the ``block`` input dropped), and for ``bijective`` every
                         element is held by some CTA; a ``block`` basis that replicates the tile is correct
    ll_conflict_free(R, S, bits)   loading (or storing) the register layout R from the shared layout S (elements
                         of ``bits`` bits) with one vector instruction per group of registers needs no more
                         wavefronts than ideal (``layoutcheck.models.banks.model``)

Worked example: a blocked layout that is larger than its tensor broadcasts (a zero basis), so it is not injective
but is an exact cover; ``{"lane": [[1], [1]]}`` onto ``dim0`` of size 4 is neither (lanes 1 and 2 collide and 2, 3
are never reached). Witnesses are flat input indices (first input dimension lowest), explained as named inputs.

The linear engine decides the first three by GF(2) rank (``layoutcheck.engines.linear``), the exhaustive engine by
enumeration; ``ll_conflict_free`` by running the bank model over every instruction.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.linear_layout import LinearLayout
from layoutcheck.errors import LayoutError
from layoutcheck.hw.banks import access_kind
from layoutcheck.models.banks.model import breakdown, ideal, wavefronts_and_ideal
from layoutcheck.properties.base import Decision, Property, smallest_collision
from layoutcheck.witness_banks import Conflict
from layoutcheck.witness_maps import Collision, LinearCount, Missing


def describe_in(ll: LinearLayout, i: int) -> str:
    """Flat input ``i`` as ``register=1, lane=4`` (zero dimensions left out; ``0`` when all are 0)."""
    parts = [f"{n}={v}" for n, v in ll.unflatten_in(i).items() if v]
    return ", ".join(parts) or "0"


def describe_out(ll: LinearLayout, y: int) -> str:
    """Flat output ``y`` as ``(dim0=3, dim1=5)``."""
    return "(" + ", ".join(f"{n}={c}" for n, c in zip(ll.out_names, ll.unflatten_out(y), strict=True)) + ")"


def _flat(ll: LinearLayout, i: int) -> int:
    out = 0
    for b, c in enumerate(ll.columns()):
        if i >> b & 1:
            out ^= c
    return out


def _missing(ll: LinearLayout, offs: np.ndarray) -> int | None:
    hit = np.zeros(ll.out_size, dtype=bool)
    hit[offs] = True
    miss = np.flatnonzero(~hit)
    return int(miss[0]) if miss.size else None


class _OnLinear(Property):
    __slots__ = ()

    def subjects(self) -> tuple[Any, ...]:
        return (self.layout,)  # type: ignore[attr-defined]

    def subject(self) -> str:
        ll: LinearLayout = self.layout  # type: ignore[attr-defined]
        ins = ", ".join(f"{n}:{ll.in_dim_size(n)}" for n in ll.in_dims)
        outs = ", ".join(f"{n}:{s}" for n, s in ll.out_dims)
        return f"linear[{ins} -> {outs}]"

    def domain_size(self) -> int:
        ll: LinearLayout = self.layout  # type: ignore[attr-defined]
        return max(ll.in_size, ll.out_size)

    def _collision(self, w: dict[str, Any]) -> str:
        ll: LinearLayout = self.layout  # type: ignore[attr-defined]
        return (f"inputs ({describe_in(ll, w['i'])}) and ({describe_in(ll, w['j'])}) both map to "
                f"{describe_out(ll, _flat(ll, w['i']))}")

    def _recheck_pair(self, w: dict[str, Any]) -> bool:
        ll: LinearLayout = self.layout  # type: ignore[attr-defined]
        i, j = w["i"], w["j"]
        return 0 <= i < j < ll.in_size and _flat(ll, i) == _flat(ll, j)

    def _recheck_missing(self, w: dict[str, Any]) -> bool:
        ll: LinearLayout = self.layout  # type: ignore[attr-defined]
        return 0 <= w["y"] < ll.out_size and not (ll.offsets() == w["y"]).any()


@dataclass(frozen=True, slots=True)
class LinearInjective(_OnLinear):
    """``L(x) == L(y) => x == y`` over all inputs of a linear layout."""

    layout: LinearLayout
    name: ClassVar[str] = "injective"

    def exhaustive(self) -> Decision:
        pair = smallest_collision(self.layout.offsets())
        return Decision(True) if pair is None else Decision(False, Collision(pair[0], pair[1]))

    def recheck(self, w: dict[str, Any]) -> bool:
        return self._recheck_pair(w)

    def explain(self, w: dict[str, Any]) -> str:
        return self._collision(w)


@dataclass(frozen=True, slots=True)
class LinearSurjective(_OnLinear):
    """Every output coordinate of a linear layout is reached."""

    layout: LinearLayout
    name: ClassVar[str] = "surjective"

    def exhaustive(self) -> Decision:
        y = _missing(self.layout, self.layout.offsets())
        return Decision(True) if y is None else Decision(False, Missing(y))

    def recheck(self, w: dict[str, Any]) -> bool:
        return self._recheck_missing(w)

    def explain(self, w: dict[str, Any]) -> str:
        return f"no input maps to {describe_out(self.layout, w['y'])}"


@dataclass(frozen=True, slots=True)
class LinearExactCover(_OnLinear):
    """Surjective, and two inputs share an output only when they differ by zero bases (broadcast)."""

    layout: LinearLayout
    name: ClassVar[str] = "exact_cover"

    def nonzero_bits(self) -> list[int]:
        return [b for b, c in enumerate(self.layout.columns()) if c]

    def exhaustive(self) -> Decision:
        ll = self.layout
        offs = ll.offsets()
        y = _missing(ll, offs)
        if y is not None:
            return Decision(False, Missing(y))
        bits = self.nonzero_bits()  # the inputs with every zero-basis bit clear must map one to one
        sub = np.zeros(1, dtype=np.int64)
        for b in bits:
            sub = np.concatenate([sub, sub | (1 << b)])
        pair = smallest_collision(offs[sub])
        if pair is None:
            return Decision(True)
        i, j = sorted((int(sub[pair[0]]), int(sub[pair[1]])))
        return Decision(False, Collision(i, j))

    def recheck(self, w: dict[str, Any]) -> bool:
        if w["kind"] == "missing":
            return self._recheck_missing(w)
        zero = sum(1 << b for b, c in enumerate(self.layout.columns()) if not c)
        return self._recheck_pair(w) and (w["i"] ^ w["j"]) & ~zero != 0

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "missing":
            return f"no input maps to {describe_out(self.layout, w['y'])}"
        return self._collision(w) + " (a replication that is not a broadcast: no zero basis relates them)"


@dataclass(frozen=True, slots=True)
class LinearBijective(_OnLinear):
    """Injective and surjective: as many inputs as outputs, each output reached once."""

    layout: LinearLayout
    name: ClassVar[str] = "bijective"

    def exhaustive(self) -> Decision:
        ll = self.layout
        if ll.in_size != ll.out_size:
            return Decision(False, LinearCount(ll.in_size, ll.out_size))
        pair = smallest_collision(ll.offsets())
        return Decision(True) if pair is None else Decision(False, Collision(pair[0], pair[1]))

    def recheck(self, w: dict[str, Any]) -> bool:
        if w["kind"] == "count":
            return self.layout.in_size != self.layout.out_size
        return self._recheck_pair(w)

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "count":
            return f"{w['inputs']} inputs cannot map one to one onto {w['outputs']} outputs"
        return self._collision(w)


def per_cta(ll: LinearLayout) -> LinearLayout:
    """The layout of one CTA: ``ll`` without its ``block`` input (every CTA has the same map up to a fixed XOR of
    its ``block`` bases, by linearity), outputs unchanged."""
    return LinearLayout.make({n: bs for n, bs in ll.in_bases if n != "block"}, dict(ll.out_dims))


class _PerCta(_OnLinear):
    __slots__ = ()

    def _cta_collision(self) -> dict[str, Any] | None:
        pair = smallest_collision(per_cta(self.layout).offsets())  # type: ignore[attr-defined]
        return None if pair is None else Collision(pair[0], pair[1])

    def _recheck_cta_pair(self, w: dict[str, Any]) -> bool:
        one = per_cta(self.layout)  # type: ignore[attr-defined]
        i, j = w["i"], w["j"]
        return 0 <= i < j < one.in_size and _flat(one, i) == _flat(one, j)

    def _cta_explain(self, w: dict[str, Any]) -> str:
        one = per_cta(self.layout)  # type: ignore[attr-defined]
        return (f"in every CTA, inputs ({describe_in(one, w['i'])}) and ({describe_in(one, w['j'])}) both hold "
                f"{describe_out(one, _flat(one, w['i']))}")


def one_cta(shared: LinearLayout) -> LinearLayout:
    """The shared layout that one CTA's accesses go through: ``per_cta(shared)`` where every CTA holds the whole tensor
    (a ``block`` that replicates it), else ``shared`` itself (whose ``invert`` then names what does not fit)."""
    one = per_cta(shared)
    return one if "block" in shared.in_dims and one.in_size == one.out_size else shared


@dataclass(frozen=True, slots=True)
class LinearSharedInjective(_PerCta):
    """A shared-memory layout ``(offset, block) -> tensor`` is injective *per CTA*: within one CTA (each has its own
    shared memory) distinct offsets hold distinct elements; CTAs may hold the same elements."""

    layout: LinearLayout
    name: ClassVar[str] = "injective"

    def exhaustive(self) -> Decision:
        w = self._cta_collision()
        return Decision(True) if w is None else Decision(False, w)

    def recheck(self, w: dict[str, Any]) -> bool:
        return w["kind"] == "collision" and self._recheck_cta_pair(w)

    def explain(self, w: dict[str, Any]) -> str:
        return self._cta_explain(w)


@dataclass(frozen=True, slots=True)
class LinearSharedBijective(_PerCta):
    """A shared-memory layout ``(offset, block) -> tensor`` is a bijection *per CTA*: within each CTA (one value of
    ``block``; each CTA has its own shared memory) distinct offsets hold distinct elements, and every element of the
    tensor is held by some CTA. A ``block`` basis that replicates the tile (CTAs holding the same elements, e.g.
    for multicast) is therefore correct; the ``block`` input is not part of the shared-memory address space."""

    layout: LinearLayout
    name: ClassVar[str] = "bijective"

    def exhaustive(self) -> Decision:
        w = self._cta_collision()
        if w is not None:
            return Decision(False, w)
        y = _missing(self.layout, self.layout.offsets())
        return Decision(True) if y is None else Decision(False, Missing(y))

    def recheck(self, w: dict[str, Any]) -> bool:
        return self._recheck_missing(w) if w["kind"] == "missing" else self._recheck_cta_pair(w)

    def explain(self, w: dict[str, Any]) -> str:
        if w["kind"] == "missing":
            return f"no offset of any CTA holds {describe_out(self.layout, w['y'])}"
        return self._cta_explain(w)


def linear_property(name: str, layout: LinearLayout) -> Property:
    """The linear-layout property called ``name`` (injective, surjective, bijective, exact_cover)."""
    shared = "offset" in layout.in_dims  # a shared-memory layout: per CTA (``LinearSharedBijective``)
    table = {c.name: c for c in (LinearSharedInjective if shared else LinearInjective, LinearSurjective,
                                 LinearSharedBijective if shared else LinearBijective, LinearExactCover)}
    if name not in table:
        raise LayoutError(f"property {name!r} is not defined for a Triton linear layout (use one of "
                          f"{', '.join(table)})")
    return table[name](layout)


# -- bank conflicts of a register layout against a shared layout ------------------------------------------------
def shared_addresses(reg: LinearLayout, shared: LinearLayout, elem_bits: int, vec: int) -> np.ndarray:
    """(instructions, 32) byte addresses: lane ``l`` of warp 0 accesses the ``vec`` registers of each instruction at
    the shared offset ``shared^-1(reg(register, lane))``; instructions enumerate the remaining register bits.

    Pre: ``shared`` bijective onto the tensor per CTA (``one_cta``); ``reg`` and ``shared`` have the same output
    dimensions.
    """
    to_off = _to_offset(reg, shared)
    nreg = to_off.in_dim_size("register")
    lanes = to_off.in_dim_size("lane")
    if lanes != 32:
        raise LayoutError(f"bank conflicts need 32 lanes, the register layout has {lanes}")
    # offset(r, l) = offset(r, 0) ^ offset(0, l): the map is GF(2)-linear, so one XOR table per input dimension
    offs = _first_out(to_off, "register", range(0, nreg, vec))[:, None] ^ _first_out(to_off, "lane", range(32))[None, :]
    return offs * (elem_bits // 8)


def _first_out(layout: LinearLayout, dim: str, xs: range) -> np.ndarray:
    """The first output coordinate of ``layout`` at ``{dim: x}`` for every ``x`` of ``xs`` (a power-of-two step from
    0), at once (int64): the XOR of the bases of ``x``'s set bits, as ``LinearLayout.apply`` computes it one input at
    a time. Built by doubling: the values for the first ``2^j`` multiples, then those XOR basis ``j``."""
    assert xs.start == 0 and xs.step & (xs.step - 1) == 0
    bases = dict(layout.in_bases).get(dim, ())[xs.step.bit_length() - 1:]
    vals = [0]
    for b in bases:
        vals += [v ^ b[0] for v in vals]
    return np.array(vals[:len(xs)], dtype=np.int64)


@lru_cache(maxsize=64)
def _to_offset(reg: LinearLayout, shared: LinearLayout) -> LinearLayout:
    """register, lane, warp, block -> shared offset (and block): ``reg`` then the inverse of ``shared`` per CTA; once
    per (register, shared) pair by content (a claim asks for it for its vector width, its addresses, its witness)."""
    inv = one_cta(shared).invert()
    return reg.transpose_outs(inv.in_dims).with_in_dims(["register", "lane", "warp", "block"]).compose(inv)


@lru_cache(maxsize=64)
def vector_width(reg: LinearLayout, shared: LinearLayout, elem_bits: int) -> int:
    """The widest vector (registers, at most 128 bits) whose registers sit at consecutive shared offsets, aligned:
    every other register, lane and warp basis leaves the vector's low offset bits zero (else a lane's run is not
    one naturally aligned vector, and Triton's ``largestVectorisation`` narrows it)."""
    inv = one_cta(shared).invert()
    to_off = reg.transpose_outs(inv.in_dims).with_in_dims(["register", "lane", "warp"]).compose(inv)
    regs = to_off.bases.get("register", [])
    v = 1
    for b in regs:
        if b[0] != v or (2 * v) * elem_bits > 128:
            break
        v *= 2
    others = [b[0] for b in regs[v.bit_length() - 1:]] + [b[0] for d in ("lane", "warp")
                                                         for b in to_off.bases.get(d, [])]
    while v > 1 and any(o & (v - 1) for o in others):
        v //= 2
    return v


@dataclass(frozen=True, slots=True)
class LinearConflictFree(Property):
    """Each vector instruction of ``reg`` on ``shared`` (``op`` ``ld`` or ``st``) needs only its ideal wavefronts."""

    reg: LinearLayout
    shared: LinearLayout
    elem_bits: int
    op: str = "ld"
    name: ClassVar[str] = "conflict_free"
    bytes_per_point: ClassVar[int] = 256

    def __post_init__(self) -> None:
        if self.elem_bits not in (8, 16, 32, 64):
            raise LayoutError(f"conflict_free: element width {self.elem_bits} bits not supported")
        if self.op not in ("ld", "st"):
            raise LayoutError(f"conflict_free: op must be 'ld' or 'st', found {self.op!r}")
        if sorted(self.reg.out_names) != sorted(self.shared.out_names):
            raise LayoutError(f"conflict_free: the register layout's dims {self.reg.out_names} are not the shared "
                              f"layout's {self.shared.out_names}")

    def subjects(self) -> tuple[Any, ...]:
        return (self.reg, self.shared)

    def subject(self) -> str:
        return f"{self.kind().name} of registers from shared ({self.elem_bits}-bit elements)"

    def domain_size(self) -> int:
        return self.reg.in_dim_size("register") * 32

    def vec(self) -> int:
        return vector_width(self.reg, self.shared, self.elem_bits)

    def kind(self) -> Any:
        return access_kind(f"{'lds' if self.op == 'ld' else 'sts'}{self.vec() * self.elem_bits}")

    def addresses(self) -> np.ndarray:
        return shared_addresses(self.reg, self.shared, self.elem_bits, self.vec())

    def report(self, i: int, addrs: np.ndarray | None = None, best: int | None = None) -> Conflict:
        """Instruction ``i``'s conflict; ``addrs`` (``addresses()``) and ``best`` (its ``ideal``) if already known
        (the re-check passes neither: it computes both again)."""
        addrs = (self.addresses() if addrs is None else addrs)[i]
        k = self.kind()
        phases = breakdown(k, addrs)
        rep = max(phases, key=lambda p: p.wavefronts)
        return Conflict(instruction=i, bank=rep.bank, words=list(rep.words), lanes=list(rep.bank_lanes),
                        wavefronts=sum(p.wavefronts for p in phases),  # = wavefronts(k, addrs), its definition
                        ideal=int(ideal(k, addrs)) if best is None else best)

    def exhaustive(self) -> Decision:
        addrs, k = self.addresses(), self.kind()
        got, best = wavefronts_and_ideal(k, addrs)
        stats = {"instructions": int(addrs.shape[0]), "wavefronts": int(got.sum()), "ideal": int(best.sum()),
                 "vector": self.vec()}
        bad = np.flatnonzero(got > best)
        if not bad.size:
            return Decision(True, None, stats)
        return Decision(False, self.report(int(bad[0]), addrs, int(best[bad[0]])), stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        rep = self.report(w["instruction"])
        return rep["wavefronts"] > rep["ideal"]

    def explain(self, w: dict[str, Any]) -> str:
        return (f"instruction {w['instruction']} ({self.kind().name}, registers {w['instruction'] * self.vec()}..): "
                f"lanes {w['lanes']} hit bank {w['bank']} in words {w['words']}: {w['wavefronts']} wavefronts, "
                f"ideal {w['ideal']}")


def ll_injective(layout: LinearLayout) -> LinearInjective:
    return LinearInjective(layout)


def ll_surjective(layout: LinearLayout) -> LinearSurjective:
    return LinearSurjective(layout)


def ll_exact_cover(layout: LinearLayout) -> LinearExactCover:
    return LinearExactCover(layout)


def ll_conflict_free(reg: LinearLayout, shared: LinearLayout, elem_bits: int, op: str = "ld") -> LinearConflictFree:
    return LinearConflictFree(reg, shared, elem_bits, op)


__all__ = [
    "LinearBijective", "LinearConflictFree", "LinearExactCover", "LinearInjective", "LinearSharedBijective",
    "LinearSharedInjective", "LinearSurjective", "describe_in",
    "describe_out", "linear_property", "ll_conflict_free", "ll_exact_cover", "ll_injective", "ll_surjective",
    "one_cta", "per_cta", "shared_addresses", "vector_width",
]
