"""Compile, run and check every generated kernel on the GPU; print a table of elements checked and mismatches.

``run_all(configs)`` returns one ``Row`` per kernel case (``layoutcheck.codegen.bundle.bundled_cases``), selected by
substrings of the case's kernel family, name or config. ``main(argv)`` is the CLI (``layoutcheck gpu [SPECS...]``)::

    python -m layoutcheck.gpu.runner [FILTER ...] [--big N] [--sanitize] [--list] [--all]
    python -m layoutcheck.gpu.runner specs/ [more.toml ...]     # the spec files' TV / tiled-MMA configs

An argument that is an existing ``.toml`` file or a folder selects spec mode: every TV or tiled-MMA config whose
``exact_cover`` is PROVEN is instantiated as an ownership kernel (``layoutcheck.codegen.spec_cases``).

Exit status: 0 every element matched, 1 any mismatch or kernel failure, 2 bad input (a filter matching nothing,
no CuPy or no GPU). ``--sanitize`` runs each case once with no timing loop, so the whole process can be wrapped:
``compute-sanitizer --tool memcheck python -m layoutcheck.gpu.runner --sanitize`` (and ``--tool racecheck``).

Sources are compiled with CuPy ``RawModule`` (NVRTC, ``-arch=sm_90``), cached per source text.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from layoutcheck.codegen.bundle import bundled_cases
from layoutcheck.codegen.cases import KernelCase, big_ownership_case
from layoutcheck.gpu.probes.tma import encode
from layoutcheck.models.tma import TmaBox


@dataclass(frozen=True, slots=True)
class Row:
    """One checked kernel: ``mismatches == 0`` and ``error == ""`` means every element matched the oracle."""

    kernel: str
    config: str
    elements: int
    mismatches: int
    seconds: float  # kernel time (CUDA events, median of the timed launches)
    note: str = ""
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.mismatches == 0 and not self.error


_MODULES: dict[str, Any] = {}


def compiled(case: KernelCase) -> Any:
    """The CuPy kernel of ``case`` (compiled once per distinct source)."""
    import cupy

    key = hashlib.sha256(case.source.encode()).hexdigest()
    if key not in _MODULES:
        if case.include_dirs:  # a source that includes headers (``vectors_device``): nvcc finds them and <stdint.h>
            # (CuPy's nvcc backend adds -gencode for the device's own arch itself; plain sm_90 code only)
            opts = ("-std=c++17", *(f"-I{d}" for d in case.include_dirs))
            mod = cupy.RawModule(code=case.source, options=opts, backend="nvcc")
        else:
            mod = cupy.RawModule(code=case.source, options=(f"-arch={case.arch}", "-std=c++17"),
                                 name_expressions=None)
        _MODULES[key] = mod
    return _MODULES[key].get_function(case.name)


def _cfg(box: TmaBox) -> dict[str, Any]:
    """``tma_probe.encode``'s descriptor dict for ``box`` (its address added at encode time)."""
    return {"dtype": box.dtype, "global_dims": list(box.global_dims), "global_strides": list(box.global_strides),
            "box_dims": list(box.box_dims), "element_strides": list(box.element_strides), "swizzle": box.swizzle,
            "interleave": box.interleave, "oob_fill": box.oob_fill}


def fill_tensor_maps(case: KernelCase, args: list[Any]) -> None:
    """For each ``(slot, src, box)`` of the case, write into the 128-byte device array ``args[slot]`` the
    ``CUtensorMap`` that ``cuTensorMapEncodeTiled`` encodes for ``box`` over the device array ``args[src]``."""
    import cupy

    for slot, src, box in case.tensor_maps:
        res, desc = encode(_cfg(box), int(args[src].data.ptr))
        if res != 0:
            raise RuntimeError(f"cuTensorMapEncodeTiled returned {res} for {box}")
        args[slot][...] = cupy.asarray(np.frombuffer(desc, dtype=np.uint8))




def run_case(case: KernelCase, repeats: int = 3) -> Row:
    """Compile, launch (``repeats`` timed launches after one checked launch) and compare one case."""
    import cupy

    try:
        fn = compiled(case)
        args = case.inputs(cupy)
        fill_tensor_maps(case, args)
        fn((case.grid,), (case.block,), tuple(args))
        cupy.cuda.runtime.deviceSynchronize()
        checked, bad, note = case.compare([args[i] for i in case.outputs], cupy)
        times = []
        for _ in range(repeats):
            fresh = case.inputs(cupy)
            fill_tensor_maps(case, fresh)
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            fn((case.grid,), (case.block,), tuple(fresh))
            stop.record()
            stop.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
        secs = sorted(times)[len(times) // 2] if times else 0.0
        return Row(case.kernel, case.config, checked, bad, secs, note)
    except Exception as e:  # report the kernel as failed, keep checking the others
        return Row(case.kernel, case.config, 0, 0, 0.0, error=f"{type(e).__name__}: {str(e).splitlines()[0]}")


def select(cases: list[KernelCase], configs: list[str] | None) -> list[KernelCase]:
    if not configs:
        return cases
    return [c for c in cases if any(f.lower() in f"{c.kernel} {c.name} {c.config}".lower() for f in configs)]


def run_all(configs: list[str] | None = None, big: int = 0, repeats: int = 3) -> list[Row]:
    """Run every bundled case matching ``configs`` (substrings; None = all) and, if ``big``, the ``big x big`` map."""
    cases = bundled_cases() + ([big_ownership_case(big)] if big else [])
    return [run_case(c, repeats) for c in select(cases, configs)]


def exit_status(rows: list[Row], skipped: list[Any]) -> int:
    """The worst of: a kernel that mismatched or failed (1), a config skipped as unreadable (2), refuted (1) or
    undecided (3), and nothing run at all (3: nothing was verified). 0 only when kernels ran and all matched."""
    from layoutcheck.errors import EXIT_ERROR, EXIT_OK, EXIT_REFUTED, EXIT_UNKNOWN, worst_exit

    codes = [EXIT_OK if r.ok else EXIT_REFUTED for r in rows]
    by_verdict = {"ERROR": EXIT_ERROR, "REFUTED": EXIT_REFUTED, "UNKNOWN": EXIT_UNKNOWN}
    codes += [by_verdict[s.verdict] for s in skipped if s.verdict in by_verdict]
    if not rows:
        codes.append(EXIT_UNKNOWN)
    return worst_exit(codes)


def format_table(rows: list[Row]) -> str:
    head = f"{'kernel':<18} {'elements':>9} {'mismatch':>8} {'time':>10}  config / note"
    lines = [head, "-" * len(head)]
    for r in rows:
        status = r.error or r.note
        lines.append(f"{r.kernel:<18} {r.elements:>9} {r.mismatches:>8} {r.seconds * 1e6:>8.1f}us  {r.config}"
                     f"{' -- ' + status if status else ''}")
    bad = sum(not r.ok for r in rows)
    if rows:
        lines.append(f"{len(rows) - bad}/{len(rows)} kernels match their oracle element by element")
    else:
        lines.append("no kernel ran: nothing was checked on the GPU")
    return "\n".join(lines)


def _device_line() -> str:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(0)
    drv = cupy.cuda.runtime.driverGetVersion()
    return f"device: {props['name'].decode()} (sm_{props['major']}{props['minor']}), driver API {drv}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="layoutcheck gpu", description="check generated kernels on the GPU")
    ap.add_argument("configs", nargs="*", help="substrings selecting kernels (family, name or config)")
    ap.add_argument("--big", type=int, default=0, help="also check the tiled ownership map of a BIG x BIG tensor")
    ap.add_argument("--sanitize", action="store_true", help="one launch per kernel, no timing (for compute-sanitizer)")
    ap.add_argument("--list", action="store_true", help="list the kernel cases and exit")
    ap.add_argument("--all", action="store_true",
                    help="every generated kernel (codegen.bundle.all_generated_cases: bundled, Hopper, the specs/ "
                         "configs, device vectors, refuted configurations); with --sanitize only a kernel that fails "
                         "to run fails the process (predicted mismatches are the other sections' business)")
    args = ap.parse_args(argv)
    if args.all:
        return _main_all(args)
    spec_paths = [c for c in args.configs if c.endswith(".toml") or os.path.isdir(c)]
    skipped: list[Any] = []
    if spec_paths:
        from layoutcheck.codegen.spec_cases import spec_cases
        from layoutcheck.errors import LayoutcheckError

        try:
            cases, skipped = spec_cases(spec_paths)
        except LayoutcheckError as e:
            print(f"layoutcheck gpu: {' '.join(str(e).split())}", file=sys.stderr)
            return 2
        no_kernel = [s for s in skipped if s.reason.endswith("has no ownership kernel")]
        for s in skipped:
            if s not in no_kernel:
                print(f"skipped ({s.verdict}) {s.config}: {s.reason}")
        if no_kernel:
            print(f"skipped {len(no_kernel)} configs of other kinds (smem, tma, layout): no ownership kernel")
        args.configs = [c for c in args.configs if c not in spec_paths]
        cases = select(cases, args.configs)
    else:
        cases = select(bundled_cases(), args.configs)
    if args.configs and not cases and not args.big:
        print(f"layoutcheck gpu: no kernel matches {' '.join(args.configs)}", file=sys.stderr)
        return 2
    if args.list:
        for c in cases:
            print(f"{c.kernel:<18} {c.name}  {c.config}")
        return 0
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
    except Exception as e:
        print(f"layoutcheck gpu: needs CuPy and a CUDA GPU ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    print(_device_line())
    t0 = time.perf_counter()
    rows = [run_case(c, 0 if args.sanitize else 3) for c in cases]
    if args.big:
        rows.append(run_case(big_ownership_case(args.big), 0 if args.sanitize else 3))
    print(format_table(rows))
    bad_skips = [s for s in skipped if s.verdict != "SKIPPED"]
    if bad_skips:
        print(f"{len(bad_skips)} configs not instantiated: " + ", ".join(
            f"{n} {v}" for v, n in sorted({s.verdict: sum(x.verdict == s.verdict for x in bad_skips)
                                            for s in bad_skips}.items())))
    print(f"total {time.perf_counter() - t0:.1f}s")
    return exit_status(rows, skipped)


def _main_all(args: argparse.Namespace) -> int:
    """``--all``: every generated kernel once (``--sanitize``: exit 0 unless a kernel failed to compile or run)."""
    from pathlib import Path

    from layoutcheck.codegen.bundle import all_generated_cases

    root = Path(__file__).resolve().parents[2]
    cases = select(all_generated_cases([str(root / "specs")], [str(root / "specs" / "broken"),
                                                                 str(root / "specs" / "zoo")]), args.configs)
    if args.list:
        for c in cases:
            print(f"{c.kernel:<18} {c.name}  {c.config}")
        print(f"{len(cases)} kernels")
        return 0
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
    except Exception as e:
        print(f"layoutcheck gpu: needs CuPy and a CUDA GPU ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    print(_device_line())
    rows = [run_case(c, 0 if args.sanitize else 3) for c in cases]
    print(format_table(rows))
    failed = [r for r in rows if r.error]
    print(f"{len(rows)} generated kernels run, {len(failed)} failed to compile or run")
    return (1 if failed else 0) if args.sanitize else exit_status(rows, [])


if __name__ == "__main__":
    sys.exit(main())
