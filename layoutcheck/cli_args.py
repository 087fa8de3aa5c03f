"""What every ``layoutcheck`` subcommand shares: its option types (``--engine``, ``--timeout``, ``--memory``,
``--jobs``, ``--property``, ``--triton-version``), the parser that fails in one line (``UsageError``, exit 2, no
usage dump), and ``_guarded``, which turns a failure deep inside the algebra into one line."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from layoutcheck.errors import (
    InternalError,
    LayoutcheckError,
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


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__
