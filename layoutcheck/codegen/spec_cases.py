"""Instantiate the TV and tiled-MMA configs of spec files as ownership kernels (``layoutcheck gpu SPEC...``).

A config is instantiated only after its ``exact_cover`` claim is PROVEN on the CPU: the GPU run then checks the
proof against silicon -- every thread writes its ``(thread, value)`` id into every element its TV map gives it, and
the result must equal the oracle's ownership map (``Layout.offsets()`` of the same layout objects) element by element.
Configs of other kinds (shared memory, TMA, plain layouts) have no ownership kernel and are listed as skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.codegen.cases import KernelCase, _ownership_case
from layoutcheck.errors import LayoutcheckError, SpecError

MAX_THREADS = 1024  # threads per CTA (CUDA C++ Programming Guide, "Compute Capabilities", all sm_70+)


@dataclass(frozen=True, slots=True)
class Skipped:
    """A config not instantiated: ``config`` is ``file:line name`` (the line of the bad key for bad input),
    ``verdict`` what it means for the run: ``ERROR`` (unreadable), ``REFUTED``, ``UNKNOWN`` or ``SKIPPED`` (no
    kernel for its kind)."""

    config: str
    reason: str
    verdict: str = "SKIPPED"


def spec_cases(paths: list[str]) -> tuple[list[KernelCase], list[Skipped]]:
    """Kernel cases for every TV / tiled-MMA config in ``paths`` (files or folders) whose exact cover is PROVEN.

    The files are read, and the exact cover decided, by ``layoutcheck.check`` (its ``plan`` and ``check_claim``):
    an unreadable file or config is a ``Skipped`` ERROR, the other configs still run.
    """
    from layoutcheck.check_roads import plan, planned_configs

    planned = plan(paths)
    skipped = [Skipped(f"{r.file}:{r.line} {r.config}", r.reason or "", "ERROR") for r in planned.errors]
    cases: list[KernelCase] = []
    for cfg in planned_configs(planned):
        got = _case(cfg)
        if isinstance(got, KernelCase):
            cases.append(got)
        else:
            skipped.append(got)
    return cases, skipped


def _case(cfg: Any) -> KernelCase | Skipped:
    """The ownership kernel of one config, or why it has none."""
    from layoutcheck.check import check_claim
    from layoutcheck.properties.tv import exact_cover
    from layoutcheck.spec.ownership import has_owner_map, owner_map

    label = f"{cfg.file}:{cfg.line} {cfg.name}"
    try:
        if not has_owner_map(cfg):
            return Skipped(label, f"kind {cfg.kind!r} has no ownership kernel")
        m = owner_map(cfg)  # a tiled MMA: the C partition, as the bundled MMA kernels derive it
        tv, tile = m.tv, m.tile
        if hasattr(tv, "coords") and hasattr(tv, "expr"):  # tv = { formula, coords }: not instantiated yet
            return Skipped(label, "a TV map written as an index formula has no ownership kernel")
        if not isinstance(tv, Layout) or len(tile) != 2:
            return Skipped(label, "needs a plain TV layout over a 2-D tile")
        if size(tv[0]) > MAX_THREADS:
            return Skipped(label, f"{size(tv[0])} threads > {MAX_THREADS} per CTA")
        verdict = check_claim(cfg.file, cfg.name, exact_cover(tv, tile), cfg.line)
        if verdict.status != "PROVEN":
            return Skipped(label, f"exact_cover is {verdict.status}, not instantiated", verdict.status)
        return _ownership_case(f"{cfg.name} ({cfg.file}:{cfg.line})", tv, tile)
    except SpecError as e:
        return Skipped(f"{cfg.file}:{e.line or cfg.line} {cfg.name}", " ".join(str(e).split()), "ERROR")
    except LayoutcheckError as e:  # the key the error names (``e.key``), else the config's kind
        return Skipped(f"{cfg.file}:{cfg.line_of(e.key or 'kind')} {cfg.name}", " ".join(str(e).split()), "ERROR")
