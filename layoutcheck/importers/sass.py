"""The shared-memory instructions of a cubin's SASS, as the bank model names them, to check a PTX-level count.

``ptxas`` may rewrite shared-memory accesses on the way from PTX to SASS: merge neighbouring ``ld.shared`` into one
``LDS.64`` / ``LDS.128``, predicate off a load whose value only a predicated store uses, drop a dead one. Counts read
off the PTX (``layoutcheck.properties.ptx_smem``) are what runs only when the SASS executes the same accesses;
``shared_ops(cubin)`` lists the SASS's ``LDS`` / ``STS`` / ``LDSM`` / ``STSM`` (disassembled with ``nvdisasm``, the one
Triton ships in ``triton/backends/nvidia/bin`` or the CUDA toolkit's) as ``(access kind, predicated)`` pairs, for
``ptx_smem`` to compare with the PTX's own.

SASS names (CUDA binary utilities, instruction set reference for sm_90): ``LDS`` / ``STS`` with ``.U8`` / ``.S8`` /
``.U16`` / ``.S16`` / (none: 32-bit) / ``.64`` / ``.128``; ``LDSM.16.M88.{2,4}`` / ``LDSM.16.MT88.{2,4}`` (ldmatrix
``.x2/.x4``, ``.trans``; no suffix: ``.x1``), ``STSM`` likewise.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

_OP = re.compile(r"^\s*/\*[0-9a-f]+\*/\s*(@!?U?P[T0-9]+\s+)?(LDSM|STSM|LDS|STS)((?:\.[A-Z0-9]+)*)\b", re.M)
_WIDTH = {"U8": 8, "S8": 8, "U16": 16, "S16": 16, "64": 64, "128": 128}


def nvdisasm() -> str | None:
    """The ``nvdisasm`` to use: Triton's bundled one, else the CUDA toolkit's on ``PATH``; ``None`` if neither."""
    try:
        import triton

        bundled = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "nvdisasm"
        if bundled.is_file() and os.access(bundled, os.X_OK):
            return str(bundled)
    except ImportError:
        pass
    return shutil.which("nvdisasm")


def kind_of(op: str, mods: str) -> str:
    """``("LDSM", ".16.MT88.4")`` -> ``"ldsm_x4_trans"``; ``("STS", ".128")`` -> ``"sts128"``."""
    parts = [m for m in mods.split(".") if m]
    if op in ("LDSM", "STSM"):
        x = next((p for p in parts if p in ("2", "4")), "1")
        return f"{op.lower()}_x{x}{'_trans' if 'MT88' in parts else ''}"
    bits = next((_WIDTH[p] for p in parts if p in _WIDTH), 32)
    return f"{'lds' if op == 'LDS' else 'sts'}{bits}"


_SECTION = re.compile(r"^\s*\.section\s+\.text\.([\w$.]+)", re.M)


def shared_ops_of_text(sass: str, function: str | None = None) -> Counter[tuple[str, bool]]:
    """The ``(access kind, predicated)`` multiset of a SASS listing, or of its ``.text.<function>`` section only."""
    if function is not None:
        parts = _SECTION.split(sass)  # [before, name1, body1, name2, body2, ...]
        sass = "".join(body for name, body in zip(parts[1::2], parts[2::2], strict=True) if name == function)
    return Counter((kind_of(op, mods), bool(pred)) for pred, op, mods in _OP.findall(sass))


_LINE = re.compile(r'^\s*//## File "([^"]+)", line (\d+)')


def shared_ops_by_line_of_text(sass: str, function: str | None = None
                               ) -> Counter[tuple[tuple[str, int] | None, str, bool]]:
    """The ``(source, access kind, predicated)`` multiset of a listing disassembled with line information
    (``nvdisasm -g``): ``source`` is the ``(file, line)`` of the ``//## File "...", line N`` comment before the
    instruction (the innermost frame of an inlined call, as the PTX's ``.loc`` has it), ``None`` before any."""
    if function is not None:
        parts = _SECTION.split(sass)
        sass = "".join(body for name, body in zip(parts[1::2], parts[2::2], strict=True) if name == function)
    out: Counter[tuple[tuple[str, int] | None, str, bool]] = Counter()
    src: tuple[str, int] | None = None
    for line in sass.splitlines():
        lm = _LINE.match(line)
        if lm:
            src = (lm.group(1), int(lm.group(2)))
            continue
        om = _OP.match(line)
        if om:
            out[(src, kind_of(om.group(2), om.group(3)), bool(om.group(1)))] += 1
    return out


def _disassemble(cubin: bytes, tool: str, lines: bool) -> str:
    with tempfile.TemporaryDirectory(prefix="layoutcheck-sass-") as d:
        f = Path(d) / "k.cubin"
        f.write_bytes(cubin)
        return subprocess.run([tool, *(["-g"] if lines else []), "-c", str(f)], capture_output=True, text=True,
                              timeout=120, check=True).stdout


def shared_ops(cubin: bytes, tool: str | None = None, function: str | None = None
               ) -> Counter[tuple[str, bool]] | None:
    """``shared_ops_of_text`` of the cubin's disassembly (of ``function`` only, when given); ``None`` when no
    ``nvdisasm`` is available."""
    tool = tool or nvdisasm()
    if tool is None:
        return None
    return shared_ops_of_text(_disassemble(cubin, tool, False), function)


def shared_ops_by_line(cubin: bytes, tool: str | None = None, function: str | None = None
                       ) -> Counter[tuple[tuple[str, int] | None, str, bool]] | None:
    """``shared_ops_by_line_of_text`` of the cubin's disassembly with line information; ``None`` without
    ``nvdisasm``."""
    tool = tool or nvdisasm()
    if tool is None:
        return None
    return shared_ops_by_line_of_text(_disassemble(cubin, tool, True), function)


__all__ = ["kind_of", "nvdisasm", "shared_ops", "shared_ops_by_line", "shared_ops_by_line_of_text",
           "shared_ops_of_text"]
