"""Every error layoutcheck raises on purpose, and the exit code each one means.

Each class's docstring says what happened and what to do. Messages are one line that names the bad part (the mode,
the key, the character, the flag) and, where useful, what was expected.

Exit codes of every ``layoutcheck`` command (``EXIT_*``; ``docs/user-guide.md`` explains them)::

    0  OK        every property PROVEN (or the command did what it was asked)
    1  REFUTED   some property is false; a re-checked counterexample was printed
    2  ERROR     input layoutcheck cannot read: syntax, an unknown key or flag, a wrong type, a missing file
    3  UNKNOWN   nothing refuted, but some property was not decided (timeout, too large, solver unknown)
    4  INTERNAL  a bug in layoutcheck (not in your input): please report it with the command line

A run with several rows exits with the worst of them, in the order ``EXIT_SEVERITY`` (4, 2, 1, 3, 0): a bug beats
unreadable input, which beats a refutation, which beats an undecided property.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

EXIT_OK, EXIT_REFUTED, EXIT_ERROR, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_BAD_INPUT = EXIT_ERROR
EXIT_SEVERITY = (EXIT_INTERNAL, EXIT_ERROR, EXIT_REFUTED, EXIT_UNKNOWN, EXIT_OK)
"""Exit codes from worst to best: a run's exit code is the first of these that any of its rows has."""


def worst_exit(codes: list[int] | tuple[int, ...]) -> int:
    """The worst of ``codes`` in ``EXIT_SEVERITY`` order (``EXIT_OK`` for none).

    >>> worst_exit([EXIT_UNKNOWN, EXIT_REFUTED, EXIT_OK])
    1
    """
    present = set(codes)
    return next((c for c in EXIT_SEVERITY if c in present), EXIT_OK)


class LayoutcheckError(Exception):
    """Base of every error layoutcheck raises on purpose. ``exit_code`` is what the command line exits with."""

    exit_code: int = EXIT_ERROR
    key: str | None = None
    """The parameter (or spec key) whose value is at fault, where the raiser knows it; ``None`` otherwise. Binders
    read it to name the spec key: they never guess it from the message."""


class LayoutError(LayoutcheckError, ValueError):
    """A layout, tiler or hardware description is malformed or does not fit the operation asked for.

    What to do: the message names the mode and the law that broke (e.g. the stride divisibility condition); fix that
    mode, or ask ``layoutcheck calc`` what the operation gives on a smaller example.

    ``key`` (keyword only) names the parameter whose value broke the law, e.g. ``LayoutError("...", key="stages")``.
    """

    def __init__(self, *args: object, key: str | None = None) -> None:
        super().__init__(*args)
        self.key = key


class ComplementError(LayoutError):
    """CuTe's ``complement`` refuses its layout: a negative stride, or a mode that overlaps the modes below it once
    sorted by stride (the layout is not injective).

    What to do: the message names the mode; give a tiler whose modes do not overlap (e.g. ``(4,8):(1,4)``).
    """


@contextmanager
def blame(key: str) -> Iterator[None]:
    """Inside the block, a ``LayoutError`` that names no ``key`` is re-raised naming ``key``: the one place a value's
    parse is tied to the parameter it came from.

    >>> try:
    ...     with blame("tile"):
    ...         raise LayoutError("does not divide")
    ... except LayoutError as e:
    ...     e.key
    'tile'
    """
    try:
        yield
    except LayoutError as e:
        if e.key is None:
            e.key = key
        raise


class ParseError(LayoutError):
    """Text that should be CuTe notation is not; the message shows the text with a caret under the bad character.

    What to do: write ``(shape):(stride)`` with matching nesting, e.g. ``((4,8),(2,2)):((32,1),(16,8))``.
    """

    def __init__(self, text: str, pos: int, what: str) -> None:
        self.text, self.pos, self.what = text, pos, what
        super().__init__(f"{what} at column {pos + 1}: {text!r}\n  {' ' * (pos + 1)}^")

    def __str__(self) -> str:  # one line for the CLI; the caret form is in ``caret``
        return f"{self.what} at column {self.pos + 1} of {self.text!r}"

    @property
    def caret(self) -> str:
        return f"{self.text}\n{' ' * self.pos}^ {self.what}"


class ShapeStrideMismatch(LayoutError):
    """Shape and stride are not congruent (different rank or nesting).

    What to do: give one stride per shape entry, nested the same way: ``(4,(2,2)):(1,(4,8))``.
    """


class NotDivisibleError(LayoutError):
    """A tiler or shape does not divide the size it must divide.

    What to do: pick a tile whose extents divide the layout's (the message names both), or pad the layout.
    """


class CompositionError(LayoutError):
    """``composition(A, B)`` is not admissible: a stride or shape divisibility condition fails.

    What to do: the message names the mode of ``B`` and the condition; reorder or split that mode of ``A``.
    """


class DescriptorError(LayoutError):
    """A layout or argument cannot be encoded in a wgmma / tcgen05.mma descriptor (not a canonical operand layout, a
    field out of range, an unknown type or shape).

    What to do: the message names the broken rule (CuTe's "profile failure" / "stride failure", the field and its
    width); build the operand from the swizzle atom the message expects, or pick a type and shape the table allows.
    """


class SpecError(LayoutcheckError, ValueError):
    """A spec file is malformed; the message names file, line and key (``file``, ``line``, ``key`` hold them; ``key``
    is what the raiser passes, never read back from the message).

    What to do: fix the value of that key (``specs/README.md`` lists every key with its type and an example).
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 key: str | None = None) -> None:
        super().__init__(message)
        m = _LOCATION.match(message)
        if m and file is None:
            file, line = m.group(1), int(m.group(2))
        self.file, self.line, self.key = file, line, key
        self.config: str | None = None


_LOCATION = re.compile(r"^(.+?):(\d+): ")


class UsageError(LayoutcheckError):
    """The command line itself is wrong: an unknown option, a missing argument, a flag that does not apply.

    What to do: run ``layoutcheck COMMAND --help``; the message names the flag.
    """


class ReportError(LayoutcheckError):
    """A report cannot be written where it was asked: no such directory, a directory, the input spec itself, or the
    same path for two reports.

    What to do: name a file in an existing directory, different from every input and from the other reports.
    """


class PartialMap(LayoutcheckError):
    """``layoutcheck vectors`` on a map that is not an exact cover: some tile elements have no owner or more owners
    than the map replicates (the message gives the counts and the first such element). Exit code 1, like REFUTED.

    What to do: fix the layout (``layoutcheck check`` shows a counterexample), or pass ``--partial`` to write the
    vectors of the partial map anyway.
    """

    exit_code = EXIT_REFUTED


class ModuleMissing(LayoutcheckError):
    """A property needs a part of layoutcheck (or an optional dependency) that is not installed in this build; the
    check reports UNKNOWN with this reason.

    What to do: install the full package (``pip install layoutcheck``), or drop the property from the spec.
    """

    exit_code = EXIT_UNKNOWN


class HardTimeout(LayoutcheckError):
    """A proof ran past its hard wall-clock limit (an engine ignored its ``timeout``); the row is UNKNOWN.

    What to do: raise ``--timeout``, choose a cheaper ``--engine``, or check a smaller tile.
    """

    exit_code = EXIT_UNKNOWN


class InternalError(LayoutcheckError):
    """A bug in layoutcheck: an operation failed in a way its own checks did not anticipate (exit code 4).

    What to do: nothing is wrong with your input as far as layoutcheck can tell; please report it, with the command
    line and spec, to the project's issue tracker (the message says ``please report``).
    """

    exit_code = EXIT_INTERNAL


class ProofFailed(LayoutcheckError, AssertionError):
    """``assert_proven``/``check_case``: a property was not PROVEN. ``result`` is the ``Result`` (or report row),
    ``counterexample`` its witness (``None`` when UNKNOWN or ERROR).

    What to do: read the counterexample (CuTe coordinates) and fix the layout; an UNKNOWN needs more ``timeout``.
    """

    exit_code = EXIT_REFUTED

    def __init__(self, message: str, result: object) -> None:
        super().__init__(message)
        self.result = result
        ce = getattr(result, "counterexample", None)
        self.counterexample = ce
