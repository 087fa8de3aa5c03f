"""The ``layoutcheck`` command line: ``check``, ``prove``, ``calc``, ``vectors``, ``show``, ``gpu``, ``triton``,
``cute-dsl``.

Exit codes (every command; ``layoutcheck.errors`` defines them, ``docs/user-guide.md`` explains them)::

    0  success / every property PROVEN       1  some property REFUTED (a counterexample was printed)
    2  ERROR: input layoutcheck cannot read (one line on stderr naming the bad part, never a traceback)
    3  nothing refuted, but some property UNKNOWN (timeout, too large, solver unknown)
    4  a bug in layoutcheck (one line on stderr asking to report it)

A run with several rows exits with the worst (4, 2, 1, 3, 0). ``main(argv)`` never raises: it returns the exit code,
so test suites can call it in-process. Subcommands are registered in ``COMMANDS`` (name -> parser builder); a new
subcommand is one function and one entry there. Heavy modules are imported inside the commands, so ``--help`` starts
fast.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

from layoutcheck.cli_args import (
    ENGINES,
    _engine_args,
    _guarded,
    _jobs,
    _one_line,
    _Parser,
    _positive_int,
    _triton_version_arg,
)
from layoutcheck.cli_kernels import _add_cute_dsl, _add_triton
from layoutcheck.cli_prove import _add_prove
from layoutcheck.errors import (
    EXIT_ERROR,
    EXIT_INTERNAL,
    EXIT_OK,
    HardTimeout,
    InternalError,
    LayoutcheckError,
    ParseError,
    SpecError,
    UsageError,
)


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

    values = [_guarded(lambda t=text: evaluate_expression(t, calc_functions()), "calc") for text in args.expr]
    for v in values:  # every argument is one expression; nothing is printed unless all of them evaluate
        print(format_value(v))
    return EXIT_OK


# -- check ----------------------------------------------------------------------------------------------------------
def _default_paths() -> list[str]:
    if os.path.isdir("specs"):
        return ["specs"]
    raise UsageError("check: no spec paths given and no specs/ directory here")


REPORTS: dict[str, str] = {"junit": "write_junit", "json": "write_json", "html": "write_html", "sarif": "write_sarif",
                           "markdown": "write_markdown"}
"""``check --FLAG FILE`` -> the writer in ``layoutcheck.report`` (``write_X(rows, path)``)."""


def _writers() -> dict[str, Callable[[Sequence[Any], str], None]]:
    from layoutcheck.report.verdicts import write_json, write_junit

    out: dict[str, Callable[[Sequence[Any], str], None]] = {"junit": write_junit, "json": write_json}
    try:
        from layoutcheck.report.html import write_html
        from layoutcheck.report.markdown import write_markdown
        from layoutcheck.report.sarif import write_sarif
    except ImportError:  # pragma: no cover
        return out
    return out | {"html": write_html, "sarif": write_sarif, "markdown": write_markdown}


def cmd_check(args: argparse.Namespace) -> int:
    from layoutcheck.check import check_fields
    from layoutcheck.check_plan import auto_jobs
    from layoutcheck.check_roads import plan
    from layoutcheck.check_row import exit_code
    from layoutcheck.errors import worst_exit
    from layoutcheck.report.stream import RowSpool
    from layoutcheck.report.verdicts import Progress, check_report_paths, table_lines, use_colour, write_reports
    from layoutcheck.spec.load import collect

    paths = args.paths or _default_paths()
    if args.engine not in ENGINES:
        raise UsageError(f"check: --engine {args.engine!r}: choose one of {', '.join(ENGINES)}")
    reports = {f"--{name}": getattr(args, name, None) for name in REPORTS}
    inputs: list[str] = []
    for p in paths:
        try:
            inputs += collect([p], True)
        except SpecError:
            continue
    check_report_paths(reports, inputs)  # before any check runs: a report that cannot be written stops nothing later
    gpu = None
    if getattr(args, "gpu_results", None):  # REFUTED rows the GPU confirmed (layoutcheck.gpu.refuted), for --html
        from layoutcheck.report.gpu_results import load_gpu_results

        if not args.html:
            raise UsageError("check: --gpu-results marks rows of the HTML report: give --html FILE too")
        try:
            gpu = load_gpu_results(args.gpu_results)
        except SpecError as e:
            raise UsageError(f"check: --gpu-results: {e}") from None
    progress = Progress(0, sys.stderr, enabled=not args.quiet, force=args.progress)
    progress.start(f"loading {len(inputs)} input files")  # before the first file is read: a large spec takes seconds
    planned = plan(paths, args.include_broken, args.banks, on_file=progress.loading)  # every road is check's
    progress.total = planned.checks
    jobs = auto_jobs(planned) if args.jobs == "auto" else args.jobs
    with RowSpool() as rows:  # rows go to disk as they are decided; only their counts stay in memory (issue #29)
        for t in check_fields(planned, args.engine, args.timeout, jobs, progress.update_fields, args.memory):
            rows.add_fields(t)
        failed: list[str] = []
        if any(reports.values()):  # the writers (HTML pulls in the pictures) load only when a report is asked for
            writers = _writers()
            if gpu is not None:
                import functools

                writers["html"] = functools.partial(writers["html"], gpu=gpu)
            failed = write_reports(rows, [(f"--{n}", getattr(args, n), writers[n]) for n in REPORTS
                                          if getattr(args, n)])
        code = worst_exit([exit_code(rows)] + [EXIT_ERROR] * bool(failed))
        for line in table_lines(rows, colour=use_colour(sys.stdout), code=code):
            print(line)
    for line in failed:
        print(f"layoutcheck: error: {line}", file=sys.stderr)
    return code


# -- import ---------------------------------------------------------------------------------------------------------
def cmd_import(args: argparse.Namespace) -> int:
    from layoutcheck.check_roads import read_input
    from layoutcheck.spec.imported import spec_from_file

    read_input(args.file)  # one line naming the file when it cannot be read (as check's ERROR row says it)
    if args.file.endswith(".toml"):
        raise UsageError(f"import: {args.file} is already a spec; check it with 'layoutcheck check'")
    text = spec_from_file(args.file)  # the formats in check's order (check.road_of): TTGIR, TileLang, CuTe
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        print(text, end="")
    return EXIT_OK


# -- vectors / show / gpu -------------------------------------------------------------------------------------------
def cmd_vectors(args: argparse.Namespace) -> int:
    from layoutcheck.report.vectors import ownership_for_spec, write_vectors

    if sys.stderr.isatty():
        sys.stderr.write(f"building ownership vectors of {args.spec} ...\r")
        sys.stderr.flush()
    own = ownership_for_spec(args.spec, args.config, partial=args.partial)
    write_vectors(own, args.output, args.format)
    print(f"wrote {args.format} ownership vectors for {own.name}: {own.num_threads} threads x {own.num_values} values"
          f" over a {'x'.join(map(str, own.tile))} tile -> {args.output}")
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from layoutcheck.report.show import run_show

    print(run_show(args.expr, tv=tuple(args.tv) if args.tv else None, banks=args.banks, access=args.access,
                   svg=args.svg, html=args.html))
    return EXIT_OK


def cmd_gpu(args: argparse.Namespace) -> int:
    try:
        from layoutcheck.gpu.runner import main as gpu_main
    except ImportError:
        raise UsageError("gpu: needs module layoutcheck.gpu.runner, not available in this build") from None
    return int(gpu_main(list(args.rest)))


# -- argument parsing -----------------------------------------------------------------------------------------------
def _add_check(sub: Any) -> None:
    c = sub.add_parser("check", help="prove every property of every config in spec files (the CI gate)",
                       description="Prove every property of every config in spec files (the CI gate): one row per "
                                   "(config, property), PROVEN, REFUTED (with a counterexample), UNKNOWN or ERROR.",
                       epilog=CHECK_EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("paths", nargs="*", help="spec files or directories (default: specs/); a .ttgir module, a .tir file "
                                            "or a TileLang log is checked for what it implies")
    c.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")
    c.add_argument("--json", metavar="FILE", help="write a JSON report (schema in docs/user-guide.md)")
    c.add_argument("--html", metavar="FILE", help="write a self-contained HTML report with counterexample pictures")
    c.add_argument("--gpu-results", metavar="FILE", help="with --html: mark the REFUTED rows the GPU confirmed "
                                                          "(the JSON of python -m layoutcheck.gpu.refuted)")
    c.add_argument("--sarif", metavar="FILE", help="write a SARIF 2.1.0 report (code-scanning annotations)")
    c.add_argument("--markdown", metavar="FILE", help="write a Markdown summary (for a PR comment or "
                                                      "$GITHUB_STEP_SUMMARY)")
    _engine_args(c)
    c.add_argument("-j", "--jobs", type=_jobs, default="auto", metavar="N",
                   help="worker processes (one config per task; 0 < N); 'auto' (the default): the usable cores, up "
                        "to 8, when the run is large enough to gain from them (Linux), else 1")
    c.add_argument("--include-broken", action="store_true", help="also check specs under broken/ directories")
    c.add_argument("-q", "--quiet", action="store_true", help="no progress bar (it is shown only on a terminal)")
    c.add_argument("--progress", action="store_true", help="show the progress bar on stderr even when it is not a "
                                                           "terminal (e.g. a CI log)")
    c.add_argument("--banks", action="store_true", help="for .ttgir files: also prove the shared-memory copies "
                                                         "bank-conflict free")
    _triton_version_arg(c)
    c.set_defaults(func=cmd_check)


CHECK_EXIT_CODES = """exit codes (the worst row decides: 4 > 2 > 1 > 3 > 0):
  0  every property PROVEN
  1  some property REFUTED: a counterexample is printed under its row
  2  some input cannot be read (an ERROR row naming file:line and the key); the other rows are still checked
  3  nothing refuted, but some property UNKNOWN (timeout, too large, solver unknown)
  4  a bug in layoutcheck (an ERROR row asking to report it)
reports (--junit, --json, --html, --sarif, --markdown) are written whatever the exit code."""


def _add_import(sub: Any) -> None:
    im = sub.add_parser("import", help="turn a .ttgir module, a CuTe or a TileLang printout into a spec TOML",
                        epilog="formats are tried in this order: a TTGIR module (.ttgir, .mlir, or text with '#ttg.' "
                               "encodings), TileLang printouts or lowered TIR, a CuTe printout; exit 2 names the file, "
                               "the line and the formats tried when none fits")
    im.add_argument("file", help="a .ttgir / .mlir module, or a file with a CuTe (C++, DSL) or TileLang printout")
    im.add_argument("-o", "--output", metavar="FILE", help="write the spec here (default: stdout)")
    _triton_version_arg(im)
    im.set_defaults(func=cmd_import)


def _add_calc(sub: Any) -> None:
    ca = sub.add_parser("calc", help="evaluate a CuTe layout-algebra expression")
    ca.add_argument("expr", nargs="+", help='one expression per argument, each printed on its own line, e.g. '
                                            '"right_inverse(((4,8),(2,2)):((32,1),(16,8)))" "size(8:1)"')
    ca.set_defaults(func=cmd_calc)


def _add_vectors(sub: Any) -> None:
    v = sub.add_parser("vectors", help="exhaustive element-ownership test vectors of a TV config")
    v.add_argument("spec", help="spec file")
    v.add_argument("--config", help="config name (default: the only TV/tiled_mma config)")
    v.add_argument("--format", choices=("npz", "json", "csv", "h"), required=True,
                   help="npz (NumPy arrays), json (flat lists), csv (one line per thread, value) or h (a C header of "
                        "static const arrays for a CUDA unit test)")
    v.add_argument("-o", "--output", required=True, metavar="FILE", help="the file to write")
    v.add_argument("--partial", action="store_true",
                   help="write vectors even when the map is not an exact cover (elements missed or owned twice)")
    v.set_defaults(func=cmd_vectors)


def _add_show(sub: Any) -> None:
    s = sub.add_parser("show", help="draw a layout: terminal grid, or SVG/HTML of a TV layout or smem banks",
                       epilog="without --svg or --html the grid is printed as text; exit 2 for a layout that cannot "
                              "be read or drawn")
    s.add_argument("expr", help='a layout in CuTe notation, e.g. "((4,8),(2,2)):((32,1),(16,8))"')
    s.add_argument("--tv", type=_positive_int, nargs=2, metavar=("M", "N"), help="draw a TV layout over an MxN tile")
    s.add_argument("--banks", metavar="DTYPE", help="draw the shared-memory banks of a layout of DTYPE elements")
    s.add_argument("--access", help="with --banks: highlight the conflicts of this access (the bank model)")
    out = s.add_mutually_exclusive_group()
    out.add_argument("--svg", metavar="FILE", help="write the picture as an SVG file (as CuTe's print_svg draws it)")
    out.add_argument("--html", metavar="FILE", help="write the picture as a self-contained HTML page")
    s.set_defaults(func=cmd_show)


def _add_gpu(sub: Any) -> None:
    g = sub.add_parser("gpu", help="check generated kernels on the GPU (layoutcheck.gpu.runner)", add_help=False)
    g.add_argument("rest", nargs=argparse.REMAINDER)
    g.set_defaults(func=cmd_gpu)


COMMANDS: dict[str, Callable[[Any], None]] = {
    "check": _add_check, "import": _add_import, "prove": _add_prove, "calc": _add_calc, "vectors": _add_vectors,
    "show": _add_show, "gpu": _add_gpu, "triton": _add_triton, "cute-dsl": _add_cute_dsl,
}
"""Subcommand -> the function adding its parser (which sets ``func``). A new subcommand is one entry here."""


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="layoutcheck", description="Prove properties of GPU data layouts.",
                epilog="exit codes: 0 proven, 1 refuted, 2 unreadable input (ERROR), 3 unknown, 4 a bug in layoutcheck")
    p.add_argument("--version", action="version", version=f"layoutcheck {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for add in COMMANDS.values():
        add(sub)
    return p


def _version() -> str:
    from layoutcheck.version import __version__

    return __version__


def entry() -> NoReturn:
    """The ``layoutcheck`` command (and ``python -m layoutcheck``): ``main()`` on ``sys.argv``, then exit.

    ``check`` leaves without the interpreter's teardown once its output is flushed (``os._exit``): every report is
    written and closed, the workers are joined, and what is left -- freeing each module's objects, z3's among them --
    took 35-45 ms of a 0.5 s run. The other commands (``gpu`` cleans up temporary build directories) exit normally.
    """
    code = main()
    if sys.argv[1:2] == ["check"]:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (BrokenPipeError, ValueError):  # output closed by the reader (head(1)) or by the caller
            pass
        os._exit(code)
    sys.exit(code)


@contextlib.contextmanager
def _triton_version_env(version: str | None) -> Iterator[None]:
    """``--triton-version`` for this command (and the workers it forks): the importer reads the environment."""
    if version is None:
        yield
        return
    from layoutcheck.importers.triton import TRITON_VERSION_ENV

    old = os.environ.get(TRITON_VERSION_ENV)
    os.environ[TRITON_VERSION_ENV] = version
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(TRITON_VERSION_ENV, None)
        else:
            os.environ[TRITON_VERSION_ENV] = old


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code (never raises, never prints a traceback)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # NumPy's OpenBLAS starts a thread per core at import (on a 16-core machine `import numpy` took 0.3-0.5 s wall and
    # 2.2 s CPU); the CLI does no BLAS work, so one thread unless the user chose otherwise
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        if argv[:1] == ["gpu"]:  # everything after 'gpu' belongs to the GPU runner (argparse REMAINDER drops options)
            return int(_guarded(lambda: cmd_gpu(argparse.Namespace(rest=argv[1:])), "gpu"))
        args = build_parser().parse_args(argv)
        if not getattr(args, "func", None):
            raise UsageError(f"missing command ({', '.join(COMMANDS)}; see --help)")
        with _triton_version_env(getattr(args, "triton_version", None)):
            return int(_guarded(lambda: args.func(args), args.command))
    except SystemExit as e:  # --help / --version
        return int(e.code or 0) if isinstance(e.code, int) or e.code is None else EXIT_ERROR
    except BrokenPipeError:  # output piped into head(1) and closed: not an error of ours
        return EXIT_OK
    except KeyboardInterrupt:
        print("layoutcheck: interrupted", file=sys.stderr)
        return 130
    except InternalError as e:
        print(f"layoutcheck: {_one_line(e)}", file=sys.stderr)
        return EXIT_INTERNAL
    except HardTimeout as e:
        print(f"layoutcheck: unknown: {_one_line(e)}", file=sys.stderr)
        return e.exit_code
    except LayoutcheckError as e:
        print(f"layoutcheck: error: {_one_line(e)}", file=sys.stderr)
        if isinstance(e, ParseError) and sys.stderr.isatty():  # people get the caret; scripts keep one line
            print("\n".join("  " + ln for ln in e.caret.splitlines()), file=sys.stderr)
        return e.exit_code
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""  # never a bare ": reason"
        print(f"layoutcheck: error: {where}{e.strerror or e}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as e:  # last resort: a bug in layoutcheck; one line, exit 4, never a traceback
        print(f"layoutcheck: internal error: {type(e).__name__}: {_one_line(e)} (a bug in layoutcheck, please "
              f"report it)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
