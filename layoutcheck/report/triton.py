"""A compiled Triton kernel's rows and shared-memory traffic, pointed at the user's Python source.

``at_source(rows, ttgir)`` rewrites the rows the TTGIR road produced (file = the ``.ttgir`` module, line = its TTGIR
line) so that each names the Python ``file:line`` the operation came from (the TTGIR ``loc``), keeping the TTGIR
line in the row's config; ``format_traffic`` prints the wavefronts of every shared-memory operation per CTA.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from layoutcheck.importers.triton_kernel import source_lines
from layoutcheck.properties.ptx_smem import PtxTraffic
from layoutcheck.properties.ttgir_smem import Traffic


def _where(src: tuple[str, int] | None, line: int) -> str:
    return f"{Path(src[0]).name}:{src[1]}" if src is not None else f"ttgir:{line}"


def at_source(rows: Sequence[Any], ttgir: str, kernel_file: str | None = None) -> list[Any]:
    """The rows with ``file``/``line`` set to the Python source of their TTGIR line (where its ``loc`` names one;
    a layout's row, which is about a type used on several lines, keeps its first use's line); a row whose line has
    no file location names ``kernel_file`` (line 0) rather than the compiled module, which may be temporary."""
    src = source_lines(ttgir)
    out = []
    for r in rows:
        s = src.get(r.line)
        config = f"{_where(s, r.line)} {r.config} (ttgir line {r.line})"
        if s is not None:
            out.append(dataclasses.replace(r, file=s[0], line=s[1], config=config))
        elif kernel_file:
            out.append(dataclasses.replace(r, file=kernel_file, line=0, config=config))
        else:
            out.append(dataclasses.replace(r, config=config))
    return out


def ptx_at_source(rows: Sequence[Any], ptx: str, kernel_file: str) -> list[Any]:
    """The PTX road's rows (file = the ``.ptx`` written for the run, line = its PTX line) at the Python source line
    of their instruction (``Kernel.source``), keeping the PTX line in the config; else at ``kernel_file``."""
    from layoutcheck.importers.ptx import parse_ptx

    k = parse_ptx(ptx)
    by_line = {ins.line: k.source(ins) for ins in k.instrs}
    out = []
    for r in rows:
        s = by_line.get(r.line)
        config = f"{r.config} (ptx line {r.line})"
        out.append(dataclasses.replace(r, file=s[0] if s else kernel_file, line=s[1] if s else 0, config=config))
    return out


def traffic_at_source(traffic: Sequence[Traffic], ttgir: str) -> list[tuple[str, Traffic]]:
    """Each operation's traffic with its Python ``file:line`` (or ``ttgir:LINE`` where its loc names no file)."""
    src = source_lines(ttgir)
    return [(_where(src.get(t.line), t.line), t) for t in traffic]


def format_traffic(traffic: Sequence[Traffic], ttgir: str) -> str:
    """One line per shared-memory operation: source, operation, instruction x count, wavefronts / ideal per CTA."""
    if not traffic:
        return "shared memory: no data movement through shared memory"
    lines = ["shared memory, per CTA per execution (wavefronts / ideal):"]
    for where, t in traffic_at_source(traffic, ttgir):
        if t.wavefronts is None:
            lines.append(f"  {where:<16} {t.subject}: {t.reason}")
            continue
        extra = f"  ({t.excess} from bank conflicts)" if t.excess else ""
        lines.append(f"  {where:<16} {t.subject}: {t.instructions} x {t.instruction}, {t.wavefronts} / {t.ideal}"
                     f"{extra}")
    return "\n".join(lines)


def format_ptx_traffic(traffic: Sequence[PtxTraffic], grid: tuple[int, ...]) -> str:
    """The PTX road's wavefronts (``layoutcheck.properties.ptx_smem``), one line per Python source line and access
    kind: instructions executed, wavefronts / ideal over the CTAs of ``grid``; what was not counted, once each."""
    if not traffic:
        return "shared memory as compiled (PTX): no shared-memory instruction"
    ctas = 1
    for g in grid:
        ctas *= g
    rows: dict[tuple[str, str], list[int]] = {}
    notes: dict[str, str] = {}
    for t in traffic:
        where = f"{Path(t.source[0]).name}:{t.source[1]}" if t.source else f"ptx:{t.ptx_line}"
        if t.wavefronts is None:
            notes.setdefault(t.reason, where)
            continue
        r = rows.setdefault((where, t.kind), [0, 0, 0])
        r[0] += t.executions
        r[1] += t.wavefronts
        r[2] += t.ideal or 0
    lines = [f"shared memory as compiled (PTX), {ctas} CTA{'s' if ctas > 1 else ''} (wavefronts / ideal):"]
    for (where, kind), (n, w, i) in rows.items():
        extra = f"  ({w - i} from bank conflicts)" if w > i else ""
        lines.append(f"  {where:<16} {n} x {kind}, {w} / {i}{extra}")
    lines.extend(f"  {where:<16} {reason}" for reason, where in notes.items())
    return "\n".join(lines)


__all__ = ["at_source", "format_ptx_traffic", "format_traffic", "ptx_at_source", "traffic_at_source"]
