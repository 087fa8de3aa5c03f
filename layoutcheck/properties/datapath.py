"""The claim that a kernel's data paths deliver every element where the MMA wants it (``datapath``).

``datapath(paths)`` claims, for each path of ``layoutcheck.models.datapath`` (operand A, operand B, the epilogue C):

- A / B: ``global -> (cp.async | TMA box) -> smem -> (ldmatrix | wgmma descriptors) -> registers`` puts in value
  ``v`` of thread ``t`` exactly the element the MMA atom's A / B layout (tiled over the CTA tile) says it holds;
  on SM100 ``global -> TMA box -> smem -> UMMA descriptors`` gives the tcgen05.mma element ``(m,k)`` / ``(n,k)`` at
  operand coordinate ``(m,k)`` / ``(n,k)``;
- C: ``accumulators -> (stmatrix | st.shared) -> smem -> (st.global | TMA store) -> global`` writes every element of
  the C tile exactly once, with the accumulator that holds it, and nothing outside the tile.

The verdict is the composition's (a stage off the declared layouts that another stage undoes is still a right path);
a wrong path is REFUTED naming the first stage that departs from the declared layouts (or doubles, drops or reads an
unwritten element) and, in CuTe coordinates, its first element: a global ``(m,k)`` for a global -> smem hop, a
``thread, value`` for a register hop, an operand ``(m,k)`` for a UMMA descriptor hop.

Every hop also obeys its instructions' address rules, whatever the composition (``models.datapath.address_fault``;
the rules are data in ``layoutcheck.hw.copy.ADDRESS_RULES`` and ``hw.tma.TmaLimits``, each with its source):

- ``cp.async`` (cp-size 4, 8, 16): shared and global address a multiple of cp-size (PTX ISA 9.7.9.25 ``cp.async``,
  which defers to 6.4.1 "Addresses as Operands");
- ``ld``/``st.shared``, ``st.global`` (``UniversalCopy<uintW_t>``, vectors): a multiple of the access size (PTX ISA
  6.4.1: "The address must be naturally aligned to a multiple of the access size");
- ``ldmatrix`` / ``stmatrix`` ``.m8n8``: every 16-byte row address 16-byte aligned (PTX ISA 9.7.14.5.15 /
  9.7.14.5.16: "The matrix addresses must be naturally aligned accordingly");
- a TMA box (load or store): its shared-memory address 128-byte aligned (``TmaLimits.smem_dst_align``);
- every shared-memory access (copies, box elements, descriptor reads) inside the stage buffer: bytes
  ``0 .. es * (max offset of the declared smem layout + 1)``, the buffer 1024-byte aligned.

A break is REFUTED as ``misaligned`` or ``outside_buffer`` naming the hop, the access's first element (thread and
value, or global element), its space, address, size and the alignment its rule demands; the re-check finds that
access among the hop's and tests the rule again. Within a hop a move fault is reported before an address fault.
The model (the hardware's semantics of every hop) is ``layoutcheck.models.datapath``; this module states and
explains the claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from layoutcheck.algebra.layout import size
from layoutcheck.algebra.swizzle import Subject
from layoutcheck.errors import LayoutError
from layoutcheck.models.datapath import (
    CONFLICT,
    UNWRITTEN,
    end_to_end_ok,
    expected_tokens,
    first_fault,
    hops,
    initial_tokens,
    trace,
)
from layoutcheck.models.datapath_fragments import path_fragment
from layoutcheck.models.datapath_pair import peer_span, peer_tables
from layoutcheck.models.datapath_values import EpiloguePath, Hop, OperandPath, Path
from layoutcheck.properties.base import Decision, Property
from layoutcheck.witness_paths import path_fault

_COORD = {"A": "(m,k)", "B": "(n,k)", "C": "(m,n)"}


def _check_path(p: Path) -> None:
    """Input errors of a path are raised here, when the claim is built (``LayoutError``)."""
    if not isinstance(p, (OperandPath, EpiloguePath)):
        raise LayoutError(f"a data path is an OperandPath or an EpiloguePath, found {p!r}")
    hops(p)


@dataclass(frozen=True, slots=True)
class DataPathClaim(Property):
    """Every path delivers every element exactly where the MMA's layouts (or the C tile) want it (module docstring)."""

    paths: tuple[Path, ...]
    name: ClassVar[str] = "datapath"
    bytes_per_point: ClassVar[int] = 96

    def __post_init__(self) -> None:
        object.__setattr__(self, "paths", tuple(self.paths))
        if not self.paths:
            raise LayoutError("datapath needs at least one path")
        for p in self.paths:
            _check_path(p)

    def subjects(self) -> tuple[Subject, ...]:
        return tuple(p.smem for p in self.paths)

    def subject(self) -> str:
        return "; ".join(f"{p.operand}: " + " -> ".join(f"{h.stage} [{h.instr}]" for h in hops(p)) + f" via {p.smem}"
                         for p in self.paths)

    def domain_size(self) -> int:
        return sum(sum(int(h.src.size) for h in hops(p)) for p in self.paths)

    def _path(self, w: dict[str, Any]) -> Path:
        return next(p for p in self.paths if p.operand == w["path"])

    def exhaustive(self) -> Decision:
        stats: dict[str, Any] = {}
        for p in self.paths:
            fault = first_fault(p)
            stats[f"{p.operand}_elements"] = p.tile[0] * p.tile[1]
            if fault is not None:
                return Decision(False, path_fault(p.operand, fault), stats)
        return Decision(True, None, stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        """An address fault: the access the witness names exists and breaks its rule (whatever the composition);
        else the composition fails (the claim is false) and the witness's stage does what it says at element
        ``i``."""
        try:
            p = self._path(w)
            hs = hops(p)
            if w["kind"] in ("misaligned", "outside_buffer", "overlapping"):
                return _access(hs[w["stage"]], w) is not None
            tr = trace(p, hs)
            return not end_to_end_ok(p, tr) and self._fault_holds(p, hs, tr, w)
        except (StopIteration, IndexError, KeyError):
            return False

    @staticmethod
    def _fault_holds(p: Path, hs: tuple[Hop, ...], tr: Any, w: dict[str, Any]) -> bool:
        k, i, kind = w["stage"], w["i"], w["kind"]
        if not 0 <= k < len(hs) or i < 0:
            return False
        hop = hs[k]
        if kind == "misplaced":
            return bool(hop.src[i] != hop.want_src[i] or hop.dst[i] != hop.want_dst[i])
        if kind == "doubled":
            return bool(hop.dst[i] >= 0 and tr.counts[k][hop.dst[i]] > 1)
        if kind == "unwritten":
            return bool(tr.read[k][i] == UNWRITTEN)
        want, counts, got = expected_tokens(p), tr.counts[-1], tr.tokens[-1]
        if kind == "missed":
            return i >= counts.size or counts[i] == 0
        if kind == "wrong":
            return bool(got[i] != want[i])
        return kind == "outside" and i >= want.size and i < counts.size and counts[i] > 0

    def witness_element(self, w: dict[str, Any]) -> tuple[Subject, int]:
        """The witness's path layout (its smem tile) and the tile index of the element it names (for pictures)."""
        p = self._path(w)
        hop = hops(p)[w["stage"]]
        i = int(w["i"])
        if w["kind"] in ("missed", "wrong", "outside"):
            return p.smem, _local(p, min(i, p.tile[0] * p.tile[1] - 1))
        if hop.element_space == "regs":
            tile = path_fragment(p).tile.ravel()
            return p.smem, int(tile[int(hop.element[i]) % tile.size])
        return p.smem, _local(p, int(hop.element[i]))  # a global or operand element: its tile index

    def explain(self, w: dict[str, Any]) -> str:
        p = self._path(w)
        hs = hops(p)
        tr = trace(p, hs)
        k, i, kind = w["stage"], w["i"], w["kind"]
        hop = hs[k]
        head = f"{p.operand}: stage {k + 1}/{len(hs)} {hop.stage} [{hop.instr}]"
        if kind in ("misaligned", "outside_buffer", "overlapping"):
            acc = _access(hop, w)
            where = f"a {w['bytes']}-byte access at {w['space']} byte {w['address']}"
            if kind == "misaligned":
                why = f"is not {w['align']}-byte aligned ({acc.source if acc else 'its address rule'})"
            elif kind == "overlapping":
                why = (f"overlaps the access at byte {w['other']} (bytes {w['other']}..{w['other'] + w['bytes'] - 1}): "
                       f"two boxes write the same stage bytes, so the boxes do not tile the stage")
            else:
                end = w["address"] + w["bytes"] - 1
                why = f"leaves the {w['limit']}-byte stage buffer (bytes {w['address']}..{end})"
            return f"{head}: {_element(p, hop, i)} starts {where}, which {why}"
        if kind in ("missed", "wrong", "outside"):
            return f"{head}: {_final(p, tr, kind, i)}"
        what = _element(p, hop, i)
        if kind == "doubled":
            same = np.flatnonzero(hop.dst == hop.dst[i])
            j = int(same[same != i][0])
            return (f"{head}: {what} and {_element(p, hop, j)} both land on {_loc(p, hop.spaces[1], hop.dst[i])} "
                    f"(a location written twice)")
        if kind == "unwritten":
            return f"{head}: {what} reads {_loc(p, hop.spaces[0], hop.src[i])}, which no earlier stage wrote"
        prev = tr.tokens[k - 1] if k else initial_tokens(p)
        if hop.peer is not None and hop.element_space == "global" and hop.src[i] != hop.want_src[i]:
            peer, half = int(hop.peer[i]), p.tile[0] // 2
            loaded = _loc(p, 'global', hop.src[i])
            if hop.src[i] < 0:  # a row outside the pair's tile: name it
                local = i - peer * half * p.tile[1]
                row = p.pair.rows[peer] + local % half  # type: ignore[union-attr]
                loaded = f"global {_COORD[p.operand]} = ({row},{local // half}), outside the {p.tile[0]}-row tile"
            return (f"{head}: CTA {peer}'s TMA loads {loaded} into "
                    f"{_loc(p, hop.spaces[1], hop.dst[i])}, where the MMA reads {_loc(p, 'global', hop.want_src[i])} "
                    f"(cta_group::2: CTA {peer} of the pair holds rows {peer * half}..{(peer + 1) * half - 1} of "
                    f"{p.operand})")
        if hop.src[i] != hop.want_src[i]:
            held = _held(p, prev, int(hop.src[i]))
            return (f"{head}: {what} comes from {_loc(p, hop.spaces[0], hop.src[i])}{held}; the layouts put it at "
                    f"{_loc(p, hop.spaces[0], hop.want_src[i])}")
        return (f"{head}: {what} lands at {_loc(p, hop.spaces[1], hop.dst[i])}; the layouts put it at "
                f"{_loc(p, hop.spaces[1], hop.want_dst[i])}")


def _access(hop: Hop, w: dict[str, Any]) -> Any:
    """The access of ``hop`` the witness names (its space, first move ``i`` and start ``address``) if it breaks the
    rule the witness says (``misaligned``: ``address % align``; ``overlapping``: another access of the hop starts at
    ``other`` and ``address`` lies in its bytes; ``outside_buffer``: ``[address, address + bytes)``
    not inside ``[0, limit)``), else ``None``."""
    for acc in hop.accesses:
        if acc.space != w["space"] or acc.size != w["bytes"]:
            continue
        k = np.flatnonzero((acc.move == w["i"]) & (acc.start == w["address"]))
        if not k.size:
            continue
        a = int(w["address"])
        if w["kind"] == "misaligned" and acc.align == w["align"] and a % acc.align != 0:
            return acc
        if w["kind"] == "outside_buffer" and acc.limit is not None and acc.limit == w.get("limit") and (
                a < 0 or a + acc.size > acc.limit):
            return acc
        if w["kind"] == "overlapping" and acc.disjoint and w.get("other") is not None and np.any(
                (acc.start == w["other"]) & (np.arange(acc.start.size) != k[0])) and \
                w["other"] <= a < w["other"] + acc.size:
            return acc
    return None


def _local(p: Path, idx: int) -> int:
    """A tile index of the pair's tile (``cta_group::2``) as the index into its CTA's half (what ``smem`` lays out)."""
    if p.pair is None:
        return idx
    mn = p.tile[0]
    return (idx % mn) % (mn // 2) + (mn // 2) * (idx // mn)


def _crd(p: Path, idx: int) -> str:
    if idx < 0:
        return f"{_COORD[p.operand]} = none (outside the accumulator the epilogue assumes)"
    mn = p.tile[0]
    return f"{_COORD[p.operand]} = ({idx % mn},{idx // mn})"


def _element(p: Path, hop: Hop, i: int) -> str:
    """Move ``i`` of ``hop`` in CuTe coordinates (with ``cta_group::2``: the CTA that issues or supplies it)."""
    if hop.peer is not None:
        cta = int(hop.peer[i])
        if hop.element_space == "global":
            return f"global {_crd(p, int(hop.element[i]))} (CTA {cta}'s TMA)"
        if hop.element_space == "operand":
            return f"the MMA's {p.operand} operand {_crd(p, int(hop.element[i]))} (CTA {cta})"
        frag = path_fragment(p)  # one CTA's registers: the move's local index, its C element in the pair
        row, v = divmod(i - cta * (hop.src.size // 2), frag.values)
        own, _ = peer_tables(p)
        local = int(frag.tile[row, v])
        return (f"CTA {cta}, thread {int(frag.threads[row])}, value {v} (accumulator "
                f"{_crd(p, int(own[cta, local]) if local >= 0 else -1)})")
    if hop.element_space == "operand":
        return f"the MMA's {p.operand} operand {_crd(p, int(hop.element[i]))}"
    if hop.element_space == "regs":
        frag = path_fragment(p)
        row, v = divmod(i, frag.values)
        t = int(frag.threads[row])
        who = "accumulator" if p.operand == "C" else f"the MMA's {p.operand} fragment:"
        return f"thread {t}, value {v} ({who} {_crd(p, int(frag.tile[row, v]))})"
    if hop.stage in ("tma", "tma store"):
        return f"global {_crd(p, int(hop.element[i]))}"
    load = p.load if isinstance(p, OperandPath) else p.store
    v_n = size(load.tv[1])  # type: ignore[union-attr]
    return f"global {_crd(p, int(hop.element[i]))} (thread {i // v_n}, value {i % v_n})"


def _loc(p: Path, space: str, loc: int) -> str:
    loc = int(loc)
    if space == "tmem":
        return f"TMEM (lane {loc % 128}, column {loc // 128})" if loc >= 0 else "no TMEM cell"
    if space == "smem":
        return "no smem byte (no descriptor describes the layout)" if loc < 0 else f"smem byte {loc}"
    if space.startswith("peer_"):  # cta_group::2: a location in one CTA of the pair
        if loc < 0:
            return _loc(p, space.removeprefix("peer_"), loc)
        cta, local = divmod(loc, peer_span(p, space))
        return f"CTA {cta} {_loc(p, space.removeprefix('peer_'), local)}"
    if space == "operand":
        return f"operand {_crd(p, loc)}"
    if space == "global":
        n = p.tile[0] * p.tile[1]
        if loc < 0:
            return "global memory outside the tile"
        return f"global {_crd(p, loc)}" if loc < n else f"global offset {loc - n} (outside the tile)"
    frag = path_fragment(p)
    row, v = divmod(loc, frag.values)
    return f"thread {int(frag.threads[row])}, value {v}"


def _held(p: Path, tokens: np.ndarray, loc: int) -> str:
    tok = int(tokens[loc]) if 0 <= loc < tokens.size else UNWRITTEN
    if tok == UNWRITTEN:
        return ", which holds nothing"
    if tok == CONFLICT:
        return ", written twice"
    return f", which holds {_crd(p, tok)}"


def _final(p: Path, tr: Any, kind: str, i: int) -> str:
    if kind == "missed":
        return f"global {_crd(p, i)} is never stored (C is not covered)"
    if kind == "outside":
        return f"a store writes global offset {i - p.tile[0] * p.tile[1]}, outside the C tile"
    got = int(tr.tokens[-1][i])
    held = "nothing" if got == UNWRITTEN else "two elements" if got == CONFLICT else _crd(p, got)
    return f"global {_crd(p, i)} receives {held}"


def datapath(paths: Any) -> DataPathClaim:
    """Claim: every path (``OperandPath`` A/B, ``EpiloguePath`` C) delivers each element where the MMA wants it.

    >>> from layoutcheck.models.datapath_fragments import copy_tv
    >>> from layoutcheck.models.datapath_values import MatrixCopy, ThreadCopy
    >>> from layoutcheck.models.tiled_mma import make_tiled_mma
    >>> from layoutcheck.algebra.layout import Layout
    >>> mma = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (1, 1, 1))
    >>> tv = copy_tv(Layout((16, 2), (2, 1)), Layout((1, 8)), (16, 16))
    >>> a = OperandPath("A", mma, (16, 16), 16, "f16", Layout((16, 16), (16, 1)),
    ...                 ThreadCopy("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", tv, Layout((16, 16), (16, 1))),
    ...                 MatrixCopy("SM75_U32x4_LDSM_N"))
    >>> datapath([a]).exhaustive().holds
    True
    """
    return DataPathClaim(tuple(paths) if not isinstance(paths, (OperandPath, EpiloguePath)) else (paths,))
