"""REFUTED configurations on silicon (#28 item 5): instantiate what ``check --include-broken`` refutes, so the GPU
can show it does exactly what the counterexample says.

For every REFUTED row of the given spec paths (``specs/broken``, ``specs/zoo``) this module builds a
``RefutedCase``: the kernel that instantiates the wrong configuration and the model's *full* prediction of what goes
wrong -- not only the counterexample's first witness. Kinds instantiated:

* ``exact_cover`` of a ``tv`` or ``tiled_mma`` config (a partition that misses or doubles elements): the ownership
  kernel (``codegen.cases._ownership_case``) of the same TV map; predicted, per tile element, its number of owners
  (``np.bincount`` of ``Layout.offsets()``) and its owners. The set of wrong elements is where that count is not 1.
* ``conflict_free`` with a ``conflict`` counterexample (a bank-conflicted access): each instruction's 32 lane
  addresses on the bank probe kernel (``gpu.probes.banks``) under ncu; predicted, the bank model's wavefronts per
  instruction (the witness instruction's is the counterexample's count).
* ``gmma_addresses`` (``place``) and ``gmma_fields`` (``base_offset``) of an f16 64-row ``wgmma`` stage (a wrong base
  offset, a descriptor of another layout): the read-out kernel (``codegen.wgmma_cases.readout_case``: A stored
  where its writer puts it, ``B = I``, so ``C = A'``); predicted, the value at the byte the model's descriptor reads
  (``models.gmma.descriptor_reads``) give every element.
* ``tma_wgmma`` (``place``: a TMA swizzle that disagrees with the descriptors'): the TMA -> smem -> wgmma kernel with
  the descriptors of the ``wgmma_swizzle`` stage and ``B = I``; predicted from the model's TMA image.

An ownership map that writes outside its tile is not launched (an out-of-bounds store). Every other REFUTED row is
listed with the reason it is not instantiated (fail closed: never dropped). The GPU side (run and compare) is
``layoutcheck.gpu.refuted``; ``confirm``, ``confirm_banks`` and ``confirm_readout`` here are the comparisons
themselves, pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.codegen.cases import KernelCase, _ownership_case

MAX_THREADS = 1024  # threads per CTA (CUDA C++ Programming Guide, "Compute Capabilities")


@dataclass(frozen=True, slots=True, eq=False)
class OwnershipPrediction:
    """What the model says the ownership kernel of a wrong partition writes: ``count[e]`` owners of tile element
    ``e`` (colex), ``owners[e]`` their ids ``t + T*v`` (the kernel writes one of them; none when missed)."""

    count: np.ndarray
    owners: tuple[frozenset[int], ...]

    @property
    def wrong(self) -> np.ndarray:
        """The elements owned other than exactly once, ascending."""
        return np.flatnonzero(self.count != 1)


@dataclass(frozen=True, slots=True, eq=False)
class RefutedCase:
    """One REFUTED row and how (whether) it is instantiated: ``case`` is None when ``reason`` says why not."""

    file: str
    line: int
    config: str
    property: str
    counterexample: str
    witness: dict[str, Any] = field(default_factory=dict)
    case: KernelCase | None = None
    prediction: OwnershipPrediction | None = None
    tile: tuple[int, int] = (0, 0)
    reason: str = ""
    # bank conflicts: (access kind name, the 32 lane byte addresses, the model's wavefronts) per instruction run
    # under ncu on the bank probe kernel (``gpu.probes.banks``); the witness instruction is the first
    bank_patterns: tuple[tuple[str, np.ndarray, int], ...] = ()
    # wgmma descriptors: the read-out kernel's predicted C = A' ([m, k]: what the descriptors read) and A as stored
    readout: tuple[np.ndarray, np.ndarray] | None = None
    readout_major: str = "K"
    readout_dump: bool = True  # the kernel dumps raw accumulators (``wgmma_placed``); False: it stores C [m, n]

    @property
    def instantiated(self) -> bool:
        return self.case is not None or bool(self.bank_patterns)

    @property
    def label(self) -> str:
        return f"{self.file}:{self.line} {self.config} {self.property}"


def ownership_prediction(tv: Layout, tile: tuple[int, int]) -> OwnershipPrediction:
    """Owner counts and owner ids of every element of ``tile`` under ``tv`` (the model, from ``Layout.offsets()``).

    Pre: every offset lies in ``[0, size(tile))``."""
    n = tile[0] * tile[1]
    off = np.asarray(tv.offsets(), dtype=np.int64)  # index t + T*v (colex) -> element
    count = np.bincount(off, minlength=n)
    owners: list[set[int]] = [set() for _ in range(n)]
    for pid, e in enumerate(off.tolist()):
        owners[e].add(pid)
    return OwnershipPrediction(count, tuple(frozenset(s) for s in owners))


def confirm(pred: OwnershipPrediction, owner: np.ndarray, count: np.ndarray,
            witness: dict[str, Any] | None = None) -> tuple[bool, str]:
    """Whether the GPU's ``owner`` / ``count`` maps are exactly what ``pred`` says, and the first disagreement.

    Confirmed means: the same write count on every element (so the same wrong elements, missed or multiply owned,
    at the same positions), every written element holding one of its predicted owners (a doubly owned element
    holds whichever write came last), and the counterexample's witness element (``y``, ``count``) among them.
    """
    count = np.asarray(count, dtype=np.int64).reshape(-1)
    owner = np.asarray(owner, dtype=np.int64).reshape(-1)
    if count.shape != pred.count.shape:
        return False, f"count map has {count.size} elements, predicted {pred.count.size}"
    diff = np.flatnonzero(count != pred.count)
    if diff.size:
        e = int(diff[0])
        return False, (f"element {e}: written {int(count[e])} times, predicted {int(pred.count[e])} "
                       f"({diff.size} elements differ)")
    for e in np.flatnonzero(pred.count > 0).tolist():
        if int(owner[e]) not in pred.owners[e]:
            return False, f"element {e}: holds owner {int(owner[e])}, predicted one of {sorted(pred.owners[e])}"
    if witness and "y" in witness:
        y = int(witness["y"])
        if not 0 <= y < count.size or int(count[y]) != int(witness.get("count", -1)):
            return False, f"witness element {y}: the GPU wrote it {int(count[y]) if 0 <= y < count.size else '?'}" \
                          f" times, the counterexample says {witness.get('count')}"
        if "owners" in witness and {int(o) for o in witness["owners"]} != set(pred.owners[y]):
            return False, f"witness element {y}: owners {witness['owners']}, the model's {sorted(pred.owners[y])}"
    return True, f"{pred.wrong.size} wrong elements, as predicted"


def _ownership(row: Any, cfg: Any) -> RefutedCase:
    """The ownership kernel of a REFUTED ``exact_cover`` row, or why not."""
    from layoutcheck.check import check_claim
    from layoutcheck.properties.tv import exact_cover
    from layoutcheck.spec.ownership import owner_map

    base = dict(file=row.file, line=row.line, config=row.config, property=row.property,
                counterexample=row.counterexample or "", witness=dict(row.counterexample_data or {}))
    m = owner_map(cfg)  # a tiled MMA: the C partition
    tv, tile = m.tv, m.tile
    if not isinstance(tv, Layout) or len(tile) != 2:
        return RefutedCase(**base, reason="needs a plain TV layout over a 2-D tile")
    if size(tv[0]) > MAX_THREADS:
        return RefutedCase(**base, reason=f"{size(tv[0])} threads > {MAX_THREADS} per CTA")
    verdict = check_claim(cfg.file, cfg.name, exact_cover(tv, tile), cfg.line)
    if verdict.status != "REFUTED":  # the kernel's map is not the refuted claim's subject: fail closed
        return RefutedCase(**base, reason=f"exact_cover of the kernel's TV map is {verdict.status}")
    off = np.asarray(tv.offsets())
    n = tile[0] * tile[1]
    if off.min() < 0 or off.max() >= n:
        e = int(off[(off < 0) | (off >= n)][0])
        return RefutedCase(**base, reason=f"writes element {e} outside the {tile[0]}x{tile[1]} tile: an "
                                          "out-of-bounds store, not run")
    case = _ownership_case(f"refuted {cfg.name} ({Path(cfg.file).name}:{cfg.line})", tv, tile)
    return RefutedCase(**base, case=case, prediction=ownership_prediction(tv, tile), tile=tile)


MAX_BANK_INSTRUCTIONS = 64  # instructions of one refuted access measured under ncu (the witness's first)
PROBE_SMEM_BYTES = 32768  # the bank probe kernel's shared buffer (``gpu.probes.banks.SMEM_BYTES``)


def bank_patterns(prop: Any, witness: dict[str, Any]) -> tuple[tuple[tuple[str, np.ndarray, int], ...], str]:
    """The bank probe patterns of a REFUTED ``conflict_free`` claim, or ``((), why not)``.

    Each instruction's 32 lane byte addresses are moved down by a multiple of 1024 bytes so the access starts in the
    probe's buffer (banks and wavefronts only see addresses modulo 128, and distinct words stay distinct); the
    prediction is the bank model's wavefront count (``models.banks.model.wavefronts``), which for the witness
    instruction is the counterexample's ``wavefronts``.
    """
    from layoutcheck.models.banks.model import wavefronts

    if witness.get("kind") != "conflict":
        return (), f"counterexample kind {witness.get('kind')!r}: no wavefront count to measure"
    addresses = getattr(prop, "addresses", None)
    access = getattr(prop, "access", None)
    if addresses is None or access is None:
        return (), "the claim has no per-instruction lane addresses"
    addresses = np.asarray(addresses, dtype=np.int64)
    kind = access.kind
    first = int(witness["instruction"])
    order = [first, *[i for i in range(len(addresses)) if i != first][:MAX_BANK_INSTRUCTIONS - 1]]
    out = []
    for i in order:
        a = addresses[i]
        if a.shape != (32,):
            return (), f"instruction {i} has {a.shape} addresses, the probe takes 32 lanes"
        a = a - (int(a.min()) // 1024) * 1024
        if int(a.max()) + kind.bytes > PROBE_SMEM_BYTES:
            return (), f"instruction {i} spans {int(a.max()) + kind.bytes} bytes, more than the probe's buffer"
        out.append((kind.name, a.astype(np.uint32), int(wavefronts(kind, a))))
    if out[0][2] != int(witness.get("wavefronts", -1)):
        return (), f"the model gives {out[0][2]} wavefronts, the counterexample {witness.get('wavefronts')}"
    return tuple(out), ""


def confirm_banks(rc: RefutedCase, measured: list[int]) -> tuple[bool, str]:
    """Whether ncu's wavefronts equal the model's for every instruction of ``rc`` (the witness's first)."""
    if len(measured) != len(rc.bank_patterns):
        return False, f"{len(measured)} measurements for {len(rc.bank_patterns)} instructions"
    for j, ((kind, _, want), got) in enumerate(zip(rc.bank_patterns, measured, strict=True)):
        if int(got) != want:
            return False, f"instruction {j} ({kind}): ncu {int(got)} wavefronts, predicted {want}"
    return True, (f"{len(measured)} instructions, ncu wavefronts = model; the witness's "
                  f"{rc.bank_patterns[0][2]} (ideal {rc.witness.get('ideal')})")


def _readout(row: Any, base: dict[str, Any]) -> RefutedCase:
    """The wgmma read-out of a REFUTED ``gmma_addresses`` (``place``) or ``gmma_fields`` (``base_offset``) row: the
    stage stored where its writer puts it, read through the row's descriptors (``codegen.wgmma_cases.readout_case``),
    or why not."""
    from layoutcheck.algebra.swizzle import inner
    from layoutcheck.check import row_property
    from layoutcheck.codegen.wgmma_cases import readout_case, readout_values
    from layoutcheck.errors import LayoutcheckError

    w = base["witness"]
    if w.get("kind") not in ("place", "base_offset"):
        return RefutedCase(**base, reason=f"counterexample kind {w.get('kind')!r}: nothing placed to read out")
    try:
        prop = row_property(row)
        if getattr(prop, "dtype", None) != "f16":
            return RefutedCase(**base, reason=f"the read-out takes f16 operands, found {getattr(prop, 'dtype', '?')}")
        reads = prop.reads(w.get("writer", "threads"))
        lay = inner(prop.stage)
        mn, k = size(lay[0]), size(lay[1])
        tag = "".join(ch if ch.isalnum() else "_" for ch in f"{row.config}_{row.property}").strip("_")
        case, predicted = readout_case(f"wgmma_readout_{tag}", reads, prop.major, mn, k,
                                       f"{row.config}, written by {w.get('writer', 'threads')}")
    except (LayoutcheckError, LookupError) as e:
        return RefutedCase(**base, reason=f"no read-out kernel: {' '.join(str(e).split())}")
    stored = readout_values(mn * k).reshape(k, mn).T  # A[m, k] as the kernel stores it
    if not (predicted != stored).any():
        return RefutedCase(**base, reason="the model predicts every element read right: nothing to confirm")
    return RefutedCase(**base, case=case, readout=(predicted, stored), readout_major=prop.major)


def _tma_readout(row: Any, cfg: Any, base: dict[str, Any]) -> RefutedCase:
    """A REFUTED ``tma_wgmma`` row (``place``: a TMA swizzle that disagrees with the wgmma descriptors'): the
    generated TMA -> smem -> wgmma kernel (``wgmma_gemm_case``) with TMA writing the config's ``swizzle`` stage and
    A's descriptors describing its ``wgmma_swizzle`` stage, ``B = I`` so ``C = A'``; predicted: the value at the byte
    the model says each descriptor reads, in the model's TMA image (``TmaWgmma._sides``)."""
    from layoutcheck.algebra.swizzle import inner
    from layoutcheck.check import row_property
    from layoutcheck.codegen.wgmma_cases import _stage, readout_values, wgmma_gemm_case
    from layoutcheck.errors import LayoutcheckError

    if base["witness"].get("kind") != "place":
        return RefutedCase(**base, reason=f"counterexample kind {base['witness'].get('kind')!r}: nothing to read out")
    try:
        prop = row_property(row)
        sw, wsw = cfg.get("swizzle"), cfg.get("wgmma_swizzle")
        if prop.dtype != "f16" or wsw is None:
            return RefutedCase(**base, reason="the TMA read-out takes an f16 stage with a wgmma_swizzle override")
        lay = inner(prop.stage)
        M, K = size(lay[0]), size(lay[1])
        if M != 64:
            return RefutedCase(**base, reason=f"the TMA read-out takes a 64-row A stage, found {M}")
        match = [o for o in ("mn_first", "cutlass")
                 if str(_stage(prop.major, sw, "f16", M, K, o).layout) == str(prop.stage)
                 and str(_stage(prop.major, sw, "f16", M, K, o).box) == str(prop.box)
                 and str(_stage(prop.major, wsw, "f16", M, K, o).layout) == str(prop.wgmma_layout)]
        if not match:
            return RefutedCase(**base, reason="the kernel's TMA boxes and stages are not the config's")
        tma, read = prop._sides()
        stored = readout_values(M * K)  # element j = m + M*k
        image = dict(zip(tma.tolist(), stored.tolist(), strict=True))
        if any(int(a) not in image for a in read.tolist()):
            return RefutedCase(**base, reason="a descriptor reads a byte the TMA image does not hold")
        predicted = np.array([image[int(a)] for a in read.tolist()], dtype=np.float32).reshape(K, M).T
        A = stored.reshape(K, M).T.astype(np.int64)
        tag = "".join(ch if ch.isalnum() else "_" for ch in row.config).strip("_")
        case = wgmma_gemm_case("f16", prop.major, "K", sw, 64, K, K, atom_order=match[0], desc_swizzle_a=wsw,
                               operands=(A, np.eye(K, dtype=np.int64)), tag=f"_readout_{tag}")
    except (LayoutcheckError, LookupError, TypeError) as e:
        return RefutedCase(**base, reason=f"no read-out kernel: {' '.join(str(e).split())}")
    return RefutedCase(**base, case=case, readout=(predicted, stored.reshape(K, M).T), readout_major=prop.major,
                       readout_dump=False)


def confirm_readout(rc: RefutedCase, c: np.ndarray) -> tuple[bool, str]:
    """Whether the GPU's ``C = A'`` (``[m, k]``) equals the model's read of every element: the same wrong elements
    at the same positions, each holding the value the model says the descriptor fetched."""
    assert rc.readout is not None
    predicted, stored = rc.readout
    c = np.asarray(c, dtype=np.float32)
    if c.shape != predicted.shape:
        return False, f"C is {c.shape}, predicted {predicted.shape}"
    diff = np.argwhere(c != predicted)
    wrong_pred, wrong_gpu = int((predicted != stored).sum()), int((c != stored).sum())
    if diff.size:
        m, k = (int(x) for x in diff[0])
        return False, (f"A'({m},{k}): the GPU read {c[m, k]:g}, the model {predicted[m, k]:g} "
                       f"(stored {stored[m, k]:g}); {len(diff)} elements differ; wrong elements: GPU {wrong_gpu}, "
                       f"model {wrong_pred}")
    return True, f"{wrong_pred} of {stored.size} elements read wrong, each where and what the model says"


def _ownership_row(row: Any, cfg: Any, base: dict[str, Any]) -> RefutedCase | None:
    """``silicon = "ownership"``: the ownership kernel of a config that has an ownership TV map."""
    from layoutcheck.errors import LayoutcheckError
    from layoutcheck.spec.bind import Unsound
    from layoutcheck.spec.ownership import has_owner_map

    if cfg is None or not has_owner_map(cfg):
        return None
    try:
        return _ownership(row, cfg)
    except LayoutcheckError as e:
        return RefutedCase(**base, reason=f"cannot build the kernel: {' '.join(str(e).split())}")
    except Unsound as e:  # the config breaks a law before the partition exists: nothing to launch
        return RefutedCase(**base, reason=f"no kernel: {' '.join(str(e).split())}")


def _readout_row(row: Any, cfg: Any, base: dict[str, Any]) -> RefutedCase | None:
    """``silicon = "readout"``: the wgmma read-out kernel of a config of the property's own kind."""
    from layoutcheck.spec.schema import kinds_of

    return _readout(row, base) if cfg is not None and cfg.kind in kinds_of(row.property) else None


def _tma_readout_row(row: Any, cfg: Any, base: dict[str, Any]) -> RefutedCase | None:
    """``silicon = "tma_readout"``: the TMA -> smem -> wgmma kernel of the config."""
    return _tma_readout(row, cfg, base) if cfg is not None else None


def _banks_row(row: Any, cfg: Any, base: dict[str, Any]) -> RefutedCase:
    """``silicon = "banks"``: each instruction's lane addresses of the rebuilt claim on the bank probe."""
    from layoutcheck.check import row_property
    from layoutcheck.errors import LayoutcheckError

    try:
        pats, why = bank_patterns(row_property(row), base["witness"])
    except (LayoutcheckError, LookupError) as e:
        pats, why = (), f"cannot rebuild the claim: {' '.join(str(e).split())}"
    return RefutedCase(**base, bank_patterns=pats, reason=why)


REPRODUCTIONS: dict[str, Any] = {"ownership": _ownership_row, "readout": _readout_row,
                                 "tma_readout": _tma_readout_row, "banks": _banks_row}
"""``PropertySpec.silicon`` -> how a REFUTED row of that property is instantiated: ``(row, config or None, base
fields) -> RefutedCase``, or ``None`` when the row's config is not one it instantiates."""


def refuted_cases(paths: list[str]) -> list[RefutedCase]:
    """A ``RefutedCase`` for every REFUTED row of ``paths`` (read with ``include_broken``), instantiated or not."""
    from layoutcheck.check import run_unit
    from layoutcheck.check_roads import IMPORTED_ROADS, _planned_config, plan
    from layoutcheck.spec.schema import PROPERTY_SPECS

    out: list[RefutedCase] = []
    for unit in plan(paths, include_broken=True).units:
        rows = [r for r in run_unit(unit) if r.status == "REFUTED"]
        if not rows:
            continue
        cfg = None if unit.road in IMPORTED_ROADS else _planned_config(unit)
        for row in rows:
            base = dict(file=row.file, line=row.line, config=row.config, property=row.property,
                        counterexample=row.counterexample or "", witness=dict(row.counterexample_data or {}))
            how = PROPERTY_SPECS[row.property].silicon if row.property in PROPERTY_SPECS else ""
            got = REPRODUCTIONS[how](row, cfg, base) if how else None
            if got is None:
                kind = cfg.kind if cfg is not None else unit.road
                got = RefutedCase(**base, reason=f"no refutation kernel for {row.property} ({kind}) yet")
            out.append(got)
    return out
