"""Instantiate the TV and tiled-MMA configs of spec files as ownership kernels (``layoutcheck gpu SPEC...``).

A config is instantiated only after its ``exact_cover`` claim is PROVEN on the CPU: the GPU run then checks the
proof against silicon -- every thread writes its ``(thread, value)`` id into every element its TV map gives it, and
the result must equal the oracle's ownership map (``Layout.offsets()`` of the same layout objects) element by element.
Configs of other kinds (shared memory, TMA, plain layouts) have no ownership kernel and are listed as skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.codegen.cases import KernelCase, _ownership_case, tiled_c_tv
from layoutcheck.errors import LayoutcheckError

MAX_THREADS = 1024  # threads per CTA (CUDA C++ Programming Guide, "Compute Capabilities", all sm_70+)


@dataclass(frozen=True, slots=True)
class Skipped:
    config: str
    reason: str


def spec_cases(paths: list[str]) -> tuple[list[KernelCase], list[Skipped]]:
    """Kernel cases for every TV / tiled-MMA config in ``paths`` (files or folders) whose exact cover is PROVEN."""
    from layoutcheck.engines.prove import prove
    from layoutcheck.properties.tv import exact_cover
    from layoutcheck.spec.bind import mma_cta_tile, tiled_mma
    from layoutcheck.spec.load import collect, load_spec

    cases: list[KernelCase] = []
    skipped: list[Skipped] = []
    for path in collect(paths):
        for cfg in load_spec(path).configs:
            label = f"{path}:{cfg.line} {cfg.name}"
            try:
                if cfg.kind == "tv":
                    tv, tile = cfg.get("tv"), tuple(cfg.get("tile"))
                elif cfg.kind == "tiled_mma":
                    mma = tiled_mma(cfg, "gpu")
                    tile = mma_cta_tile(cfg, mma, "C")
                    tv = tiled_c_tv(mma, tile)  # the C partition, as the bundled MMA kernels derive it
                else:
                    skipped.append(Skipped(label, f"kind {cfg.kind!r} has no ownership kernel"))
                    continue
                if not isinstance(tv, Layout) or len(tile) != 2:
                    skipped.append(Skipped(label, "needs a plain TV layout over a 2-D tile"))
                    continue
                if size(tv[0]) > MAX_THREADS:
                    skipped.append(Skipped(label, f"{size(tv[0])} threads > {MAX_THREADS} per CTA"))
                    continue
                verdict = prove(exact_cover(tv, tile))
                if not verdict.proven:
                    skipped.append(Skipped(label, f"exact_cover is {verdict.status}, not instantiated"))
                    continue
                cases.append(_ownership_case(f"{cfg.name} ({path}:{cfg.line})", tv, tile))
            except LayoutcheckError as e:
                skipped.append(Skipped(label, " ".join(str(e).split())))
    return cases, skipped
