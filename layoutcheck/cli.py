"""The ``layoutcheck`` command line: ``check``, ``prove``, ``calc``, ``vectors``, ``show``, ``gpu``.

Exit codes (every command)::

    0  success / every property PROVEN       1  some property REFUTED (a counterexample was printed)
    2  bad input: one line on stderr naming the bad part (never a traceback)
    3  nothing refuted, but some property UNKNOWN (timeout, solver unknown, missing module)

``main(argv)`` never raises: it returns the exit code, so test suites can call it in-process.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from layoutcheck.errors import LayoutcheckError, ParseError, SpecError

EXIT_OK, EXIT_REFUTED, EXIT_BAD_INPUT, EXIT_UNKNOWN = 0, 1, 2, 3
DEFAULT_TIMEOUT = 30.0
DEFAULT_MEMORY = 2 << 30  # bytes per proof for the exhaustive engine (engines.base.DEFAULT_MEMORY_BUDGET)


class UsageError(LayoutcheckError):
    """The command line itself is wrong (unknown option, missing argument)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2, no usage dump
        raise UsageError(f"{self.prog}: {message} (see --help)")


class HardTimeout(Exception):
    """A proof ran past its hard wall-clock limit (the engine ignored ``timeout``)."""


# -- calc -----------------------------------------------------------------------------------------------------------
def format_value(v: Any) -> str:
    """CuTe notation for a calc result: layouts as ``shape:stride``, tuples as ``(a,b)``, ints bare."""
    if isinstance(v, tuple):
        return "(" + ",".join(format_value(x) for x in v) + ")"
    if v is None:
        return "_"
    return str(v)


def cmd_calc(args: argparse.Namespace) -> int:
    from layoutcheck.algebra.notation import evaluate_expression
    from layoutcheck.spec.calc import calc_functions

    text = " ".join(args.expr)
    value = _guarded(lambda: evaluate_expression(text, calc_functions()), "calc")
    print(format_value(value))
    return EXIT_OK


# -- check ----------------------------------------------------------------------------------------------------------
def _default_paths() -> list[str]:
    if os.path.isdir("specs"):
        return ["specs"]
    raise UsageError("check: no spec paths given and no specs/ directory here")


def plan_checks(paths: list[str], include_broken: bool) -> list[tuple[str, int, int]]:
    """Load every spec (so bad input fails before any proof runs) and list (file, config, property) jobs."""
    from layoutcheck.spec.bind import build_property
    from layoutcheck.spec.load import collect, load_spec
    from layoutcheck.spec.schema import ModuleMissing

    jobs: list[tuple[str, int, int]] = []
    files = collect(paths, include_broken)
    if not files:
        raise SpecError(f"no *.toml spec files under {', '.join(paths)}")
    for f in files:
        spec = load_spec(f)
        for ci, cfg in enumerate(spec.configs):
            for pi, req in enumerate(cfg.properties):
                with suppress(ModuleMissing):  # build once now: a config that does not fit fails before any proof
                    build_property(cfg, req)
                jobs.append((f, ci, pi))
    return jobs


def run_job(job: tuple[str, int, int], engine: str, timeout: float, memory: int = DEFAULT_MEMORY) -> Any:
    """Prove one (file, config, property) and return its ``report.Row``. Runs in a worker process under ``-j``."""
    from layoutcheck.report.verdicts import Row, row_from_result
    from layoutcheck.spec.bind import build_property
    from layoutcheck.spec.load import load_spec
    from layoutcheck.spec.schema import ModuleMissing

    file, ci, pi = job
    cfg = load_spec(file).configs[ci]
    req = cfg.properties[pi]
    t0 = time.perf_counter()
    try:
        prop = build_property(cfg, req)
        prove = _prove_fn(req.name)
        with hard_deadline(timeout * 2 + 5):
            result = prove(prop, engine=engine, timeout=timeout, memory_budget=memory)
    except ModuleMissing as e:
        return Row(file, cfg.name, req.label, "UNKNOWN", "-", time.perf_counter() - t0, reason=str(e), line=req.line)
    except HardTimeout:
        return Row(file, cfg.name, req.label, "UNKNOWN", engine, time.perf_counter() - t0,
                   reason=f"no verdict within the hard limit of {timeout * 2 + 5:.0f} s", line=req.line)
    return row_from_result(result, file, cfg.name, req.label, req.line)


def _prove_fn(prop: str) -> Callable[..., Any]:
    from layoutcheck.spec.bind import need_module as _need

    return _need("layoutcheck.engines.prove", prop).prove


@contextmanager
def hard_deadline(seconds: float) -> Iterator[None]:
    """Raise ``HardTimeout`` after ``seconds`` of wall clock (SIGALRM; a no-op off the main thread)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def _fire(signum: int, frame: Any) -> None:
        raise HardTimeout()

    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)  # an enclosing deadline keeps running afterwards
    t0 = time.monotonic()
    old = signal.signal(signal.SIGALRM, _fire)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, outer_left) if outer_left > 0 else seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if outer_left > 0:
            signal.setitimer(signal.ITIMER_REAL, max(outer_left - (time.monotonic() - t0), 1e-3))


def cmd_check(args: argparse.Namespace) -> int:
    from layoutcheck.report.verdicts import Progress, exit_code, format_table, use_colour, write_json, write_junit

    paths = args.paths or _default_paths()
    ttgir = [q for q in paths if q.endswith((".ttgir", ".mlir"))]  # TTGIR modules: prove what the file implies
    paths = [q for q in paths if q not in ttgir]
    jobs = plan_checks(paths, args.include_broken) if paths else []
    for out in (args.junit, args.json):
        if out and not os.path.isdir(os.path.dirname(os.path.abspath(out))):
            raise UsageError(f"check: cannot write report {out}: no such directory")
    progress = Progress(len(jobs), sys.stderr, enabled=not args.quiet)
    rows = [r for f in ttgir for r in ttgir_rows(f, args.engine, args.timeout, getattr(args, "banks", False))]
    rows += _run_jobs(jobs, args.engine, args.timeout, args.jobs, progress, args.memory)
    print(format_table(rows, colour=use_colour(sys.stdout)))
    if args.junit:
        write_junit(rows, args.junit)
    if args.json:
        write_json(rows, args.json)
    return exit_code(rows)


def _run_jobs(jobs: list[tuple[str, int, int]], engine: str, timeout: float, n: int, progress: Any,
              memory: int = DEFAULT_MEMORY) -> list[Any]:
    if n <= 1 or len(jobs) <= 1:
        rows = []
        for job in jobs:
            rows.append(run_job(job, engine, timeout, memory))
            progress.update(rows[-1])
        return rows
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    with ProcessPoolExecutor(max_workers=n, mp_context=get_context("fork")) as pool:
        futures = [pool.submit(run_job, job, engine, timeout, memory) for job in jobs]
        rows = []
        for fut in futures:  # in job order, so reports are deterministic
            rows.append(fut.result())
            progress.update(rows[-1])
    return rows


def ttgir_rows(path: str, engine: str, timeout: float, banks: bool) -> list[Any]:
    """Report rows for every claim a TTGIR module implies (``layoutcheck.properties.ttgir``); the bank-conflict
    claims only with ``banks`` (a conflict costs time, not correctness)."""
    from pathlib import Path

    from layoutcheck.engines.prove import prove
    from layoutcheck.properties.ttgir import ttgir_claims
    from layoutcheck.report.verdicts import row_from_result

    rows = []
    for c in ttgir_claims(Path(path).read_text()).claims:
        if c.required or banks:
            rows.append(row_from_result(prove(c.prop, engine=engine, timeout=timeout), path, c.subject, c.prop.name,
                                        c.line))
    return rows


# -- import ---------------------------------------------------------------------------------------------------------
def cmd_import(args: argparse.Namespace) -> int:
    from layoutcheck.spec.imported import spec_from_file

    text = spec_from_file(args.file)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        print(text, end="")
    return EXIT_OK


# -- prove ----------------------------------------------------------------------------------------------------------
def cmd_prove(args: argparse.Namespace) -> int:
    from layoutcheck.algebra.notation import parse_layout
    from layoutcheck.report.verdicts import exit_code, row_from_result
    from layoutcheck.spec.bind import build_property
    from layoutcheck.spec.load import parse_spec
    from layoutcheck.spec.schema import PropertyRequest

    parse_layout(args.expr)  # fail early, with the caret position, on a bad layout
    spec_text = _prove_spec(args)
    cfg = parse_spec(spec_text, "<command line>").configs[0]
    req: PropertyRequest = cfg.properties[0]
    prop = build_property(cfg, req)
    with hard_deadline(args.timeout * 2 + 5):
        result = _prove_fn(req.name)(prop, engine=args.engine, timeout=args.timeout, memory_budget=args.memory)
    print(result)
    return exit_code([row_from_result(result, "<command line>", cfg.name, req.label)])


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _prove_spec(args: argparse.Namespace) -> str:
    """A one-config spec for ``prove`` (so the command line and spec files share one validation path)."""
    p = args.property
    if p in ("conflict_free", "wavefront_count"):
        kind, key = "smem", "layout"
    elif p == "tma_compatible":
        raise UsageError("prove: tma_compatible needs a TMA box: write a spec file and use 'layoutcheck check'")
    elif args.tile or p == "exact_cover":
        kind, key = "tv", "tv"
        if not args.tile:
            raise UsageError("prove: --property exact_cover needs --tile M N (the tile the TV layout covers)")
    else:
        kind, key = "layout", "layout"
    lines = ["format = 1", "[[config]]", 'name = "cli"', f'kind = "{kind}"', f"{key} = {_toml_str(args.expr)}"]
    if kind == "tv":
        lines.append(f"tile = [{', '.join(str(t) for t in args.tile)}]")
    if kind == "smem":
        lines.append(f"dtype = {_toml_str(args.dtype or 'f16')}")
        if args.access:
            lines.append(f"access = {_toml_str(args.access)}")
    params = {"other": args.other, "width": args.width, "bound": args.bound, "codomain": args.codomain}
    from layoutcheck.spec.schema import PROPERTY_PARAMS

    for k, v in params.items():
        if v is not None and k not in PROPERTY_PARAMS[p]:
            raise UsageError(f"prove: --{k} does not apply to property {p}")
    if args.other is not None:
        params["other"] = None  # 'other' is a config key (for equivalent), not a property parameter
        lines.append(f"other = {_toml_str(args.other)}")
    extra = ", ".join(f"{k} = {_toml_str(v) if isinstance(v, str) else v}" for k, v in params.items() if v is not None)
    lines.append(f'properties = [{{ name = "{p}"{", " + extra if extra else ""} }}]')
    return "\n".join(lines) + "\n"


# -- vectors / show / gpu -------------------------------------------------------------------------------------------
def cmd_vectors(args: argparse.Namespace) -> int:
    from layoutcheck.report.vectors import ownership_for_spec, write_vectors

    own = ownership_for_spec(args.spec, args.config)
    write_vectors(own, args.output, args.format)
    print(f"wrote {args.format} ownership vectors for {own.name}: {own.num_threads} threads x {own.num_values} values"
          f" over a {'x'.join(map(str, own.tile))} tile -> {args.output}")
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from layoutcheck.report.show import run_show

    print(run_show(args))
    return EXIT_OK


def cmd_gpu(args: argparse.Namespace) -> int:
    try:
        from layoutcheck.gpu.runner import main as gpu_main
    except ImportError:
        raise UsageError("gpu: needs module layoutcheck.gpu.runner, not available in this build") from None
    return int(gpu_main(list(args.rest)))


# -- errors ---------------------------------------------------------------------------------------------------------
def _guarded(fn: Callable[[], Any], what: str) -> Any:
    """Run ``fn``; turn a failure deep inside the algebra into one line (user errors pass through unchanged)."""
    try:
        return fn()
    except LayoutcheckError:
        raise
    except RecursionError:
        raise UsageError(f"{what}: expression nested too deeply") from None
    except (MemoryError, OverflowError) as e:
        raise UsageError(f"{what}: values too large ({type(e).__name__})") from None
    except (TypeError, ValueError, AttributeError, IndexError, KeyError, ZeroDivisionError) as e:
        raise InternalError(f"{what}: internal error: {type(e).__name__}: {' '.join(str(e).split())}") from None


class InternalError(LayoutcheckError):
    """An operation failed in a way its checks did not anticipate (reported as bad input, with the cause)."""


# -- argument parsing -----------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="layoutcheck", description="Prove properties of GPU data layouts.")
    p.add_argument("--version", action="version", version=f"layoutcheck {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    c = sub.add_parser("check", help="prove every property of every config in spec files (the CI gate)")
    c.add_argument("paths", nargs="*", help="spec files or directories (default: specs/)")
    c.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")
    c.add_argument("--json", metavar="FILE", help="write a JSON report (schema in docs/user-guide.md)")
    _engine_args(c)
    c.add_argument("-j", "--jobs", type=_positive_int, default=1, metavar="N", help="worker processes")
    c.add_argument("--include-broken", action="store_true", help="also check specs under broken/ directories")
    c.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    c.add_argument("--banks", action="store_true", help="for .ttgir files: also prove the shared-memory copies "
                                                         "bank-conflict free")
    c.set_defaults(func=cmd_check)

    im = sub.add_parser("import", help="turn a .ttgir module or a CuTe printout into a spec TOML")
    im.add_argument("file", help="a .ttgir / .mlir module, or a file with a CuTe printout")
    im.add_argument("-o", "--output", metavar="FILE", help="write the spec here (default: stdout)")
    im.set_defaults(func=cmd_import)

    pr = sub.add_parser("prove", help="prove one property of one layout")
    pr.add_argument("expr", help='a layout in CuTe notation, e.g. "Sw<3,3,3> o (8,64):(64,1)"')
    pr.add_argument("--property", required=True, metavar="NAME", type=_property_name)
    pr.add_argument("--access", help="shared-memory access pattern (conflict_free), e.g. ldsm_x4")
    pr.add_argument("--dtype", help="element type, e.g. f16")
    pr.add_argument("--tile", type=_positive_int, nargs="+", metavar="N", help="tile a TV layout covers")
    pr.add_argument("--other", help="the layout to compare with (equivalent)")
    pr.add_argument("--width", type=_positive_int, help="vector width (vectorizable)")
    pr.add_argument("--bound", type=_positive_int, help="exclusive offset bound (in_bounds)")
    pr.add_argument("--codomain", type=_positive_int, help="codomain size (surjective, bijective)")
    _engine_args(pr)
    pr.set_defaults(func=cmd_prove)

    ca = sub.add_parser("calc", help="evaluate a CuTe layout-algebra expression")
    ca.add_argument("expr", nargs="+", help='e.g. "right_inverse(((4,8),(2,2)):((32,1),(16,8)))"')
    ca.set_defaults(func=cmd_calc)

    v = sub.add_parser("vectors", help="exhaustive element-ownership test vectors of a TV config")
    v.add_argument("spec", help="spec file")
    v.add_argument("--config", help="config name (default: the only TV/tiled_mma config)")
    v.add_argument("--format", choices=("npz", "json", "csv", "h"), required=True)
    v.add_argument("-o", "--output", required=True, metavar="FILE")
    v.set_defaults(func=cmd_vectors)

    s = sub.add_parser("show", help="draw a layout: terminal grid, or SVG/HTML of a TV layout or smem banks")
    s.add_argument("expr", help="a layout in CuTe notation")
    s.add_argument("--tv", type=_positive_int, nargs=2, metavar=("M", "N"), help="draw a TV layout over an MxN tile")
    s.add_argument("--banks", metavar="DTYPE", help="draw the shared-memory banks of a layout of DTYPE elements")
    s.add_argument("--access", help="with --banks: highlight the conflicts of this access (the bank model)")
    out = s.add_mutually_exclusive_group()
    out.add_argument("--svg", metavar="FILE")
    out.add_argument("--html", metavar="FILE")
    s.set_defaults(func=cmd_show)

    g = sub.add_parser("gpu", help="check generated kernels on the GPU (layoutcheck.gpu.runner)", add_help=False)
    g.add_argument("rest", nargs=argparse.REMAINDER)
    g.set_defaults(func=cmd_gpu)
    return p


def _engine_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", default="auto", help="engine: auto, exhaustive, linear, z3, sympy (default auto)")
    p.add_argument("--timeout", type=_positive_float, default=DEFAULT_TIMEOUT, metavar="S",
                   help=f"seconds per proof (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--memory", type=_memory_size, default=DEFAULT_MEMORY, metavar="SIZE",
                   help=f"memory an exhaustive proof may use, e.g. 512M, 8G (default {DEFAULT_MEMORY >> 30}G)")


def _memory_size(s: str) -> int:
    """``'8G'`` -> bytes: a number with an optional K/M/G/T suffix (powers of 1024; ``B``/``iB`` ignored)."""
    t = s.strip().upper().removesuffix("B").removesuffix("I")
    scale = 1 << (10 * "KMGT".index(t[-1]) + 10) if t and t[-1] in "KMGT" else 1
    try:
        v = int(float(t[:-1] if scale > 1 else t) * scale)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a size such as 512M or 8G, found {s!r}") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive size, found {s!r}")
    return v


def _positive_int(s: str) -> int:
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {s!r}") from None
    if v <= 0 or v > 1 << 40:
        raise argparse.ArgumentTypeError(f"expected a positive integer up to 2**40, found {s!r}")
    return v


def _positive_float(s: str) -> float:
    try:
        v = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, found {s!r}") from None
    if not 0 < v <= 86400:
        raise argparse.ArgumentTypeError(f"expected seconds in (0, 86400], found {s!r}")
    return v


def _property_name(s: str) -> str:
    from layoutcheck.spec.schema import ALL_PROPERTIES
    from layoutcheck.spec.values import suggest as _suggest

    if s not in ALL_PROPERTIES:
        raise argparse.ArgumentTypeError(f"unknown property {s!r}{_suggest(s, ALL_PROPERTIES)} "
                                         f"(known: {', '.join(ALL_PROPERTIES)})")
    return s


def _version() -> str:
    from layoutcheck.version import __version__

    return __version__


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code (never raises, never prints a traceback)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["gpu"]:  # everything after 'gpu' belongs to the GPU runner (argparse REMAINDER drops options)
            return int(_guarded(lambda: cmd_gpu(argparse.Namespace(rest=argv[1:])), "gpu"))
        args = build_parser().parse_args(argv)
        if not getattr(args, "func", None):
            raise UsageError("layoutcheck: missing command (check, prove, calc, vectors, show, import, gpu; see "
                             "--help)")
        return int(_guarded(lambda: args.func(args), args.command))
    except SystemExit as e:  # --help / --version
        return int(e.code or 0) if isinstance(e.code, int) or e.code is None else EXIT_BAD_INPUT
    except BrokenPipeError:  # output piped into head(1) and closed: not an error of ours
        return EXIT_OK
    except KeyboardInterrupt:
        print("layoutcheck: interrupted", file=sys.stderr)
        return 130
    except HardTimeout:
        print("layoutcheck: error: no verdict within the hard time limit", file=sys.stderr)
        return EXIT_UNKNOWN
    except LayoutcheckError as e:
        print(f"layoutcheck: error: {_one_line(e)}", file=sys.stderr)
        if isinstance(e, ParseError) and sys.stderr.isatty():  # people get the caret; scripts keep one line
            print("\n".join("  " + ln for ln in e.caret.splitlines()), file=sys.stderr)
        return EXIT_UNKNOWN if _is_missing(e) else EXIT_BAD_INPUT
    except OSError as e:
        print(f"layoutcheck: error: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as e:  # last resort: a bug in layoutcheck; one line, exit 2, never a traceback
        print(f"layoutcheck: internal error: {type(e).__name__}: {_one_line(e)} (please report)", file=sys.stderr)
        return EXIT_BAD_INPUT


def _is_missing(e: BaseException) -> bool:
    from layoutcheck.spec.schema import ModuleMissing

    return isinstance(e, ModuleMissing)


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
