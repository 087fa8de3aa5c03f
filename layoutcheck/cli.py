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
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

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
from layoutcheck.result import DEFAULT_TIMEOUT

DEFAULT_MEMORY = 2 << 30  # bytes per proof for the exhaustive engine (engines.base.DEFAULT_MEMORY_BUDGET)
ENGINES = ("auto", "structural", "linear", "exhaustive", "z3", "sympy")
"""The ``--engine`` choices (``auto`` tries the others in ``layoutcheck.engines.base.AUTO_ORDER``)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2, no usage dump, no doubled "layoutcheck" prefix
        prog = self.prog.removeprefix("layoutcheck").strip()
        raise UsageError(f"{prog + ': ' if prog else ''}{message} (see --help)")


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


# -- triton ---------------------------------------------------------------------------------------------------------
def cmd_triton(args: argparse.Namespace) -> int:
    """Compile ``FILE.py::KERNEL`` on the CPU with the installed Triton and check the TTGIR it gives (every claim of
    the ``.ttgir`` road, bank claims included), each row at its Python line; then the shared-memory traffic."""
    import tempfile
    from pathlib import Path

    from layoutcheck.check import check_paths
    from layoutcheck.check_row import exit_code
    from layoutcheck.importers.triton_kernel import KernelSpec, compile_stages, parse_assignments, runtime_params
    from layoutcheck.properties.ptx_smem import ptx_traffic
    from layoutcheck.properties.ttgir_smem import smem_traffic
    from layoutcheck.report.triton import at_source, format_ptx_traffic, format_traffic, ptx_at_source
    from layoutcheck.report.verdicts import format_table, use_colour

    spec = KernelSpec(args.kernel, parse_assignments(args.signature, "--signature", False),
                      parse_assignments(args.constexpr, "--constexpr", True), args.num_warps, args.num_stages,
                      args.target, args.num_ctas)
    stages = _guarded(lambda: compile_stages(spec), "triton")
    text = stages["ttgir"]
    grid, scalars = _ptx_run(args, runtime_params(spec))
    with tempfile.TemporaryDirectory() as tmp:
        path = args.ttgir or str(Path(tmp) / "kernel.ttgir")
        Path(path).write_text(text)
        ptx = ptx_path = None
        if "ptx" in stages:  # the PTX road: Triton's own lowering, every thread's addresses (with the SASS check)
            ptx = (f"// layoutcheck: grid={','.join(map(str, grid))} "
                   f"scalars={','.join(f'{k}={v}' for k, v in scalars.items())}\n{stages['ptx']}")
            ptx_path = str(Path(tmp) / "kernel.ptx")
            Path(ptx_path).write_text(ptx)
            if isinstance(stages.get("cubin"), bytes):
                (Path(tmp) / "kernel.cubin").write_bytes(stages["cubin"])
        rows = check_paths([path] + ([ptx_path] if ptx_path else []), args.engine, args.timeout,
                           memory=args.memory, banks=True)
        if ptx:
            rows = _with_nvmma_rows(rows, path, text, stages["ptx"], grid, scalars, args, spec.target)
        kernel_file = str(spec.file_and_name()[0])
        rows = (at_source([r for r in rows if r.file != ptx_path], text, kernel_file)
                + (ptx_at_source([r for r in rows if r.file == ptx_path], ptx, kernel_file) if ptx else []))
    print(format_table(rows, colour=use_colour(sys.stdout)))
    print(format_traffic(smem_traffic(text), text))
    if ptx:
        print(format_ptx_traffic(ptx_traffic(ptx, grid=grid, scalars=scalars, cubin=stages.get("cubin")), grid))
    if args.json:
        from layoutcheck.report.verdicts import write_json

        write_json(rows, args.json)
    return exit_code(rows)


def _with_nvmma_rows(rows: list, path: str, ttgir: str, ptx: str, grid: tuple[int, ...], scalars: dict[str, int],
                     args: argparse.Namespace, target: str) -> list:
    """The rows plus the ``nvmma_descriptor`` row of every ``warp_group_dot`` (``properties.nvmma``: the wgmma
    descriptors its PTX runs with, against its operands' ``nvmma_shared`` layouts at Triton's allocation offsets)
    and of every ``tc_gen5_mma`` (``properties.nvmma_tcgen05``: the tcgen05.mma descriptors), at its TTGIR line; and
    the ``tma_box`` row of every TMA load the PTX runs (``properties.tma_box``: its box and swizzle against the
    buffer's ``nvmma_shared`` layout)."""
    from layoutcheck.check import check_claim
    from layoutcheck.importers.triton_kernel import allocation_offsets
    from layoutcheck.properties.nvmma import nvmma_claims
    from layoutcheck.properties.nvmma_tcgen05 import umma_claims
    from layoutcheck.properties.tma_box import tma_box_claims

    if not any(op in ttgir for op in ("ttng.warp_group_dot", "ttng.tc_gen5_mma", "ttng.async_tma_copy_global")):
        return list(rows)
    offsets = allocation_offsets(ttgir, target)
    claims = (nvmma_claims(ttgir, ptx, grid, scalars, offsets) + umma_claims(ttgir, ptx, grid, scalars, offsets)
              + tma_box_claims(ttgir, ptx, grid, scalars, offsets))
    return list(rows) + [check_claim(path, c.subject, c.prop, c.line, args.engine, args.timeout, args.memory)
                         for c in claims]


def _ptx_run(args: argparse.Namespace, params: list[str]) -> tuple[tuple[int, ...], dict[str, int]]:
    """``--grid`` and ``--scalar`` as the PTX road takes them (scalars by PTX parameter index)."""
    from layoutcheck.importers.triton_kernel import parse_assignments

    if not all(g.strip().isdigit() and int(g) > 0 for g in args.grid.split(",")):
        raise UsageError(f"triton: --grid {args.grid!r}: expected X[,Y[,Z]] positive integers")
    scalars = {}
    for k, v in parse_assignments(args.scalar, "--scalar", True).items():
        if k not in params or isinstance(v, bool) or not isinstance(v, int):
            raise UsageError(f"triton: --scalar {k}={v}: expected an integer runtime argument of the kernel "
                             f"(its runtime arguments: {', '.join(params)})")
        scalars[str(params.index(k))] = v
    return tuple(int(g) for g in args.grid.split(",")), scalars


# -- cute-dsl -------------------------------------------------------------------------------------------------------
def cmd_cute_dsl(args: argparse.Namespace) -> int:
    """Compile ``FILE.py::HOST`` on the CPU with the installed CuTe DSL and check every shared-memory layout,
    TiledMMA, TiledCopy and TMA atom it builds (``importers.cute_dsl_findings``) through ``check``'s road, each row at
    its Python line; what is not modelled is an UNKNOWN row."""
    import tempfile
    from pathlib import Path

    from layoutcheck.check import check_paths
    from layoutcheck.check_row import FILE_LEVEL, Row, exit_code
    from layoutcheck.importers.cute_dsl_findings import at_source, gaps, kernel_findings, spec_text
    from layoutcheck.importers.cute_dsl_kernel import KernelSpec, compile_kernel
    from layoutcheck.report.verdicts import format_table, use_colour

    spec = KernelSpec(args.kernel, tuple(args.args or ()), args.arch)
    found = kernel_findings(_guarded(lambda: compile_kernel(spec), "cute-dsl"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = args.spec or str(Path(tmp) / "kernel.toml")
        Path(path).write_text(spec_text(found))
        if len(gaps(found)) < len(found):  # a spec without configs is an ERROR of its own: only gaps, no spec
            rows = at_source(check_paths([path], args.engine, args.timeout, memory=args.memory), found)
    rows += [Row(file=f.file, config=f.name, property=FILE_LEVEL, status="UNKNOWN", reason=f.gap, line=f.line)
             for f in gaps(found)]
    rows.sort(key=lambda r: r.line)
    print(format_table(rows, colour=use_colour(sys.stdout)))
    if args.json:
        from layoutcheck.report.verdicts import write_json

        write_json(rows, args.json)
    return exit_code(rows)


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


# -- prove ----------------------------------------------------------------------------------------------------------
def _prove_params() -> dict[str, Any]:
    """Each input ``prove`` takes from a flag, by spec key: the config keys of ``spec.schema.PROVE_KEYS`` and every
    property parameter declared with a flag (one declaration per flag)."""
    from layoutcheck.spec.schema import PROPERTY_SPECS, PROVE_KEYS

    out = {k.name: k for k in PROVE_KEYS}
    for spec in PROPERTY_SPECS.values():
        for param in spec.params:
            if param.flag:
                out.setdefault(param.name, param)
    return out


def _prove_flags() -> dict[str, str]:
    """Spec key -> the ``prove`` flag that gives it (errors name the user's flag, never the internal spec)."""
    from layoutcheck.spec.schema import KINDS, PROPERTY_SPECS, prove_kind

    subjects = {KINDS[prove_kind(p, tile)].subject for p, s in PROPERTY_SPECS.items() if s.prove
                for tile in (False, True)}
    return {**{k: "EXPR" for k in subjects}, **{k: p.flag for k, p in _prove_params().items()},
            **dict.fromkeys(("properties", "name", "kind"), "--property")}


def _spec_only(p: str) -> str | None:
    """Why ``prove`` cannot state property ``p`` from flags (it needs a spec of another kind), else ``None``."""
    from layoutcheck.spec.schema import PROPERTY_SPECS, kinds_of

    if PROPERTY_SPECS[p].prove is not None:
        return None
    kinds = kinds_of(p)
    return (f"prove: --property {p} is a claim about a config of kind {' or '.join(repr(k) for k in kinds)}, which "
            f"prove's flags do not describe: write a spec file (kind = {kinds[0]!r}, keys in specs/README.md) and "
            f"run 'layoutcheck check FILE'")


def _needs_text(need: Any, flags: dict[str, str]) -> str:
    """``--lhs --rhs``, ``--bound (or --tile)``, ``(--wavefronts | --max-wavefronts)``: a ``Need`` in flags."""
    names = [flags[k] for k in need.keys]
    text = " ".join(names) if need.every else f"({' | '.join(names)})"
    return f"{text} (or {flags[need.unless]})" if need.unless else text


def property_table() -> str:
    """``prove --help``'s list of properties, generated from ``spec.schema.PROPERTY_SPECS``: each property, the
    ``prove`` flags it needs and [those it accepts], or the kinds of the spec files that state it."""
    from layoutcheck.spec.schema import ALL_PROPERTIES, PROPERTY_SPECS, kinds_of, prove_inputs

    flags = _prove_flags()
    lines = ["properties (NAME of --property):"]
    for p in ALL_PROPERTIES:
        spec = PROPERTY_SPECS[p]
        if spec.prove is None:
            lines.append(f"  {p:<22} spec files only (kind {', '.join(kinds_of(p))}): layoutcheck check FILE")
            continue
        needed = {k for n in spec.prove.needs for k in (*n.keys, n.unless) if k}
        what = [_needs_text(n, flags) for n in spec.prove.needs]
        what += [f"[{i.flag}]" for i in prove_inputs(p) if i.name not in needed]
        lines.append(f"  {p:<22} {' '.join(what) or '(no flags)'}")
    return "\n".join(lines)


def _missing(need: Any, given: set[str]) -> bool:
    if need.unless in given:
        return False
    present = [k in given for k in need.keys]
    return not all(present) if need.every else sum(present) != 1


def prove_request(args: argparse.Namespace) -> tuple[Any, Any]:
    """The typed (config, property request) of ``prove``'s flags: the same values a spec file would hold.

    Every value goes through the spec value parsers (``layoutcheck.spec.values``); the inputs a property needs and
    accepts are those ``spec.schema.PROPERTY_SPECS`` declares; errors name the flag.
    """
    from layoutcheck.spec.schema import (
        KINDS,
        PROPERTY_SPECS,
        PROVE_KEYS,
        Config,
        PropertyRequest,
        prove_inputs,
        prove_kind,
    )
    from layoutcheck.spec.values import parse_value

    p = args.property
    why = _spec_only(p)
    if why is not None:
        raise UsageError(why)
    spec, flags, inputs = PROPERTY_SPECS[p], _prove_flags(), _prove_params()
    given = {k for k, i in inputs.items() if getattr(args, _dest(i.flag)) is not None}
    for need in spec.prove.needs:
        if _missing(need, given):
            raise UsageError(f"prove: --property {p} needs {need.why}")
    kind = prove_kind(p, bool(args.tile))
    raw: dict[str, Any] = {KINDS[kind].subject: args.expr}
    for k in (k.name for k in PROVE_KEYS if k.name in given):
        v = getattr(args, _dest(inputs[k].flag))
        raw[k] = list(v) if isinstance(v, list) else v
    accepted = {i.name for i in prove_inputs(p)}
    for k in sorted(given, key=list(inputs).index):
        if k not in accepted or (k in raw and k not in KINDS[kind].keys):
            raise UsageError(f"prove: {flags[k]} does not apply to property {p}")
    params = [(k, _parse_flag(parse_value, k, getattr(args, _dest(inputs[k].flag))))
              for k in sorted(given - set(raw), key=list(inputs).index)]
    values = tuple((k, _parse_flag(parse_value, k, v)) for k, v in raw.items())
    cfg = Config(name="prove", kind=kind, file="<command line>", line=0, values=values,
                 properties=(PropertyRequest(p, tuple(params)),))
    return cfg, cfg.properties[0]


def _dest(flag: str) -> str:
    """argparse's attribute for ``flag``: ``--max-wavefronts`` -> ``max_wavefronts``."""
    return flag.removeprefix("--").replace("-", "_")


def _parse_flag(parse: Callable[[str, Any], Any], key: str, value: Any) -> Any:
    try:
        return parse(key, value)
    except LayoutcheckError as e:
        if isinstance(e, ParseError):
            raise
        raise UsageError(f"prove: {_prove_flags().get(key, key)}: {_one_line(e)}") from None
    except (ValueError, TypeError) as e:
        raise UsageError(f"prove: {_prove_flags().get(key, key)}: {_one_line(e)}") from None


def _flag_message(row: Any) -> str:
    """An ERROR row of ``prove`` as one line naming the user's flag (not the internal config)."""
    text = re.sub(r"^config 'prove': ", "", row.reason or "")
    m = re.match(r"(?:key|parameter) '(\w+)': (.*)", text)
    flags = _prove_flags()
    flag = flags.get(m.group(1), m.group(1)) if m else "--property"
    text = re.sub(r"^property '\w+': ", "", m.group(2) if m else text)
    text = re.sub(r"(?:the config's )?'(\w+)'", lambda k: _flag_of_key(flags, k.group(1), k.group(0)), text)
    return f"prove: {flag}{' ' + row.property if flag == '--property' else ''}: {text}"


def _flag_of_key(flags: dict[str, str], key: str, quoted: str) -> str:
    """A spec key quoted in a binder's message -> the ``prove`` flag that gives it (else the quote as it was)."""
    flag = flags.get(key, "")
    return flag if flag.startswith("--") and flag != "--property" else quoted


def cmd_prove(args: argparse.Namespace) -> int:
    from layoutcheck.algebra.notation import parse_layout
    from layoutcheck.check import check_property

    if args.engine not in ENGINES:
        raise UsageError(f"prove: --engine {args.engine!r}: choose one of {', '.join(ENGINES)}")
    parse_layout(args.expr)  # fail early, with the caret position, on a bad layout
    cfg, req = prove_request(args)
    if sys.stderr.isatty():  # a long proof shows what it is doing; erased when done
        sys.stderr.write(f"proving {req.label} ...\r")
        sys.stderr.flush()
    row = check_property(cfg, req, args.engine, args.timeout, memory=args.memory)
    if sys.stderr.isatty():
        sys.stderr.write(" " * (len(req.label) + 14) + "\r")
    if row.status == "ERROR":
        if row.internal:
            raise InternalError(f"prove: {row.reason}")
        raise UsageError(_flag_message(row))
    head = f"{row.status}: {row.claim or req.label} [{row.engine}, {row.time_s * 1e3:.1f} ms]"
    if row.counterexample is not None:
        print(f"{head}\n  counterexample: {row.counterexample}")
    elif row.reason:
        print(f"{head}\n  reason: {row.reason}")
    else:
        print(head)
    return row.exit_code


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


# -- errors ---------------------------------------------------------------------------------------------------------
def _guarded(fn: Callable[[], Any], what: str) -> Any:
    """Run ``fn``; turn a failure deep inside the algebra into one line (user errors pass through unchanged)."""
    try:
        return fn()
    except (LayoutcheckError, OSError, KeyboardInterrupt, SystemExit):
        raise
    except RecursionError:
        raise UsageError(f"{what}: expression nested too deeply") from None
    except (MemoryError, OverflowError) as e:
        raise UsageError(f"{what}: values too large ({type(e).__name__})") from None
    except Exception as e:
        raise InternalError(f"{what}: internal error: {type(e).__name__}: {_one_line(e)} "
                            f"(a bug in layoutcheck, please report it)") from None


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


def _triton_version_arg(p: Any) -> None:
    p.add_argument("--triton-version", metavar="X.Y", type=_triton_version,
                   help="read TTGIR encodings as this Triton release converts them (default: the installed Triton, "
                        "else the newest release layoutcheck follows)")


def _triton_version(text: str) -> str:
    from layoutcheck.importers.triton import parse_triton_version

    try:
        parse_triton_version(text)
    except LayoutcheckError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


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


def _add_prove(sub: Any) -> None:
    pr = sub.add_parser("prove", help="prove one property of one layout")
    pr.add_argument("expr", help='a layout in CuTe notation, e.g. "Sw<3,3,3> o (8,64):(64,1)"')
    pr.add_argument("--property", required=True, metavar="NAME", type=_property_name,
                    help="the property to prove (the list below)")
    _prove_flag_args(pr)
    _engine_args(pr)
    pr.formatter_class = argparse.RawDescriptionHelpFormatter
    plain = pr.format_help
    pr.format_help = lambda: plain() + "\n" + property_table() + "\n"  # type: ignore[method-assign]
    pr.set_defaults(func=cmd_prove)


def _prove_flag_args(pr: Any) -> None:
    """One option per input of ``_prove_params`` (``spec.schema``): its type, and its help naming the properties that
    take it."""
    from layoutcheck.spec.schema import ALL_PROPERTIES, prove_inputs

    for key, param in _prove_params().items():
        users = [p for p in ALL_PROPERTIES if any(i.name == key for i in prove_inputs(p))]
        extra: dict[str, Any] = {"type": _positive_int} if param.type.startswith("integer") else {}
        if param.type == "integers":
            extra |= {"nargs": "+", "metavar": "N"}
        elif param.type == "integer" and key != param.flag.removeprefix("--"):
            extra["metavar"] = "N"
        pr.add_argument(param.flag, dest=_dest(param.flag), help=f"{param.doc} ({', '.join(users)})", **extra)


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


def _add_triton(sub: Any) -> None:
    t = sub.add_parser("triton", help="compile a Triton/Gluon kernel on the CPU and check its layouts and "
                       "shared-memory traffic", epilog="needs Triton installed; the kernel file is imported")
    t.add_argument("kernel", metavar="FILE.py::KERNEL", help="the @triton.jit (or @gluon.jit) function")
    t.add_argument("--signature", action="append", metavar="NAME=TYPE",
                   help="argument types as the launcher specialises them, e.g. x_ptr=*fp16,n=i32 (repeatable)")
    t.add_argument("--constexpr", action="append", metavar="NAME=VALUE", help="constexpr values, e.g. BLOCK=1024")
    t.add_argument("--num-warps", type=_positive_int, default=4, metavar="N")
    t.add_argument("--num-stages", type=_positive_int, default=3, metavar="S")
    t.add_argument("--num-ctas", type=_positive_int, default=1, metavar="N")
    t.add_argument("--target", default="cuda:90", metavar="cuda:80|cuda:90|cuda:100")
    t.add_argument("--ttgir", metavar="FILE", help="also write the compiled TTGIR here")
    t.add_argument("--scalar", action="append", metavar="NAME=VALUE",
                   help="a runtime integer argument's value for the PTX run (loop bounds, sizes), e.g. K=4096")
    t.add_argument("--grid", default="1", metavar="X[,Y[,Z]]",
                   help="the CTAs the PTX run covers (default 1: one CTA)")
    t.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    _engine_args(t)
    t.set_defaults(func=cmd_triton)


def _add_cute_dsl(sub: Any) -> None:
    t = sub.add_parser("cute-dsl", help="compile a CuTe DSL kernel on the CPU and check its shared-memory layouts, "
                       "TiledMMAs, TiledCopies and TMA atoms", epilog="needs nvidia-cutlass-dsl installed; the "
                       "kernel file is imported")
    t.add_argument("kernel", metavar="FILE.py::HOST", help="the @cute.jit host function (or an object whose "
                   "__call__ is one)")
    t.add_argument("--args", action="extend", metavar="[NAME=]VALUE", nargs="+",
                   help="the host's arguments in order: DTYPE[SHAPE] a row-major fake tensor (f16[256,128]), "
                        "DTYPE[SHAPE]{ORDER} with CuTe's stride_order (f16[256,128]{0,1}: column-major), ? or ?D "
                        "a dynamic extent (f16[?16,128]), an int, true/false, stream (a fake CUDA stream)")
    t.add_argument("--arch", default="sm_100a", metavar="sm_80|sm_90a|sm_100a|...")
    t.add_argument("--spec", metavar="FILE", help="also write the spec of what was found here")
    t.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    _engine_args(t)
    t.set_defaults(func=cmd_cute_dsl)


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


def _engine_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", default="auto", metavar="NAME",
                   help=f"engine: {', '.join(ENGINES)} (default auto: the first that decides)")
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
        raise argparse.ArgumentTypeError(f"expected a size such as 512M or 8G, found {s[:40]!r}") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive size, found {s[:40]!r}")
    return v


def _jobs(s: str) -> int | str:
    return "auto" if s == "auto" else _positive_int(s)


def _positive_int(s: str) -> int:
    try:
        v = int(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {s[:40]!r}") from None
    if v <= 0 or v > 1 << 40:
        raise argparse.ArgumentTypeError(f"expected a positive integer up to 2**40, found {s[:40]!r}")
    return v


def _positive_float(s: str) -> float:
    try:
        v = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, found {s[:40]!r}") from None
    if not 0 < v <= 86400:
        raise argparse.ArgumentTypeError(f"expected seconds in (0, 86400], found {s[:40]!r}")
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


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
