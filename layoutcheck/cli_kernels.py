"""``layoutcheck triton`` and ``layoutcheck cute-dsl``: compile a user's kernel on the CPU with the installed
compiler and check what it builds through ``check``'s road, each row at its Python line.

``triton``: the TTGIR it gives (every claim of the ``.ttgir`` road, bank claims included), the PTX road's rows
(Triton's own lowering, every thread's addresses), the wgmma / tcgen05.mma descriptors and TMA boxes its PTX runs
with, then the shared-memory traffic. ``cute-dsl``: every shared-memory layout, TiledMMA, TiledCopy and TMA atom the
host function builds (``importers.cute_dsl_findings``); what is not modelled is an UNKNOWN row."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from layoutcheck.cli_args import _engine_args, _guarded, _positive_int
from layoutcheck.errors import (
    UsageError,
)


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
