"""Generate every bundled kernel and compile it with ``nvcc -arch=sm_90 -c`` (CI's kernel check; no GPU needed).

Usage::

    python -m layoutcheck.gpu.build --check          # generate + compile all, exit 1 on any failure
    python -m layoutcheck.gpu.build --check --all    # every generated kernel (136), each for its own arch
    python -m layoutcheck.gpu.build --out DIR        # write the generated sources to DIR (reproducible)

Compiles run in parallel (one ``nvcc`` per kernel, ``--jobs`` at a time). Exit status: 0 all compiled, 1 a kernel
failed to generate or compile, 2 bad usage or no ``nvcc``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

NVCC_FLAGS = ("-arch=sm_90", "-c", "-std=c++17", "-Werror", "all-warnings")


@dataclass(frozen=True, slots=True)
class BuildResult:
    """One kernel's compile: ``ok``, seconds and the compiler's message (empty when quiet)."""

    name: str
    ok: bool
    seconds: float
    message: str


def generate_sources() -> dict[str, str]:
    """``{entry name: CUDA source}`` for every bundled case and the benchmark kernel (deterministic)."""
    from layoutcheck.codegen.bundle import bundled_cases
    from layoutcheck.codegen.cases import big_ownership_case

    cases = [*bundled_cases(), big_ownership_case()]
    return {c.name: c.source for c in cases}


def compile_one(nvcc: str, name: str, source: str, workdir: Path, flags: tuple[str, ...] = NVCC_FLAGS
                ) -> BuildResult:
    """``nvcc -arch=sm_90 -c`` (or ``flags``) of one source in ``workdir``."""
    src = workdir / f"{name}.cu"
    src.write_text(source)
    t0 = time.perf_counter()
    proc = subprocess.run([nvcc, *flags, str(src), "-o", str(workdir / f"{name}.o")],
                          capture_output=True, text=True)
    msg = (proc.stdout + proc.stderr).strip()
    return BuildResult(name, proc.returncode == 0, time.perf_counter() - t0, msg)


def check(jobs: int | None = None) -> list[BuildResult]:
    """Generate and compile every kernel; raises ``FileNotFoundError`` without ``nvcc``."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise FileNotFoundError("nvcc not found on PATH")
    sources = generate_sources()
    with tempfile.TemporaryDirectory(prefix="layoutcheck-kernels-") as tmp, \
            ThreadPoolExecutor(max_workers=jobs or max(2, os.cpu_count() or 2)) as pool:
        futures = [pool.submit(compile_one, nvcc, n, s, Path(tmp)) for n, s in sources.items()]
        return [f.result() for f in futures]


def case_flags(case: object) -> tuple[str, ...]:
    """nvcc flags of one ``KernelCase``: its arch (``sm_90a`` as ``-gencode``, so ``wgmma`` assembles) and its
    ``-I`` folders."""
    arch = getattr(case, "arch", "sm_90")
    target = (f"-gencode=arch=compute_{arch[3:]},code={arch}",) if arch.endswith("a") else (f"-arch={arch}",)
    return (*target, "-c", "-std=c++17", "-Werror", "all-warnings",
            *(f"-I{d}" for d in getattr(case, "include_dirs", ())))


def check_all(jobs: int | None = None) -> list[BuildResult]:
    """Compile every kernel codegen generates (``codegen.bundle.all_generated_cases`` with the repository's
    ``specs/``), each for its own arch; raises ``FileNotFoundError`` without ``nvcc``."""
    from layoutcheck.codegen.bundle import all_generated_cases

    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise FileNotFoundError("nvcc not found on PATH")
    specs = Path(__file__).resolve().parents[2] / "specs"
    have = specs.is_dir()
    cases = all_generated_cases([str(specs)] if have else None,
                                [str(specs / "broken"), str(specs / "zoo")] if have else None)
    with tempfile.TemporaryDirectory(prefix="layoutcheck-kernels-") as tmp, \
            ThreadPoolExecutor(max_workers=jobs or max(2, os.cpu_count() or 2)) as pool:
        futures = [pool.submit(compile_one, nvcc, c.name, c.source, Path(tmp), case_flags(c)) for c in cases]
        return [f.result() for f in futures]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m layoutcheck.gpu.build", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="generate and compile every kernel with nvcc -arch=sm_90")
    ap.add_argument("--out", type=Path, help="write the generated sources to this directory")
    ap.add_argument("--jobs", type=int, default=None, help="parallel nvcc processes (default: CPU count)")
    ap.add_argument("--all", action="store_true", help="with --check: every generated kernel (Hopper, spec configs, "
                                                       "device vectors, refuted configurations), each for its arch")
    args = ap.parse_args(argv)
    if not args.check and args.out is None:
        ap.print_usage(sys.stderr)
        return 2
    try:
        sources = generate_sources()
    except Exception as e:  # a generator bug must fail CI with its message, not a traceback
        print(f"kernel generation failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        for name, src in sources.items():
            (args.out / f"{name}.cu").write_text(src)
        print(f"wrote {len(sources)} kernels to {args.out}")
    if not args.check:
        return 0
    t0 = time.perf_counter()
    try:
        results = check_all(args.jobs) if args.all else check(args.jobs)
    except FileNotFoundError as e:
        print(f"kernels_build: {e}", file=sys.stderr)
        return 2
    for r in results:
        print(f"{'ok  ' if r.ok else 'FAIL'} {r.name} ({r.seconds:.1f}s)")
        if not r.ok or r.message:
            print("   " + r.message.replace("\n", "\n   "))
    bad = [r for r in results if not r.ok]
    print(f"{len(results) - len(bad)}/{len(results)} kernels compiled for sm_90{'/sm_90a' if args.all else ''} in "
          f"{time.perf_counter() - t0:.1f}s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
