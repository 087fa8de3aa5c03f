"""Errors raised for bad user input.

Every class is a ``ValueError`` so callers that only know the standard library can catch it; every message is one
line that names the bad part (the mode, the key, the character) and, where useful, what was expected.
"""

from __future__ import annotations


class LayoutcheckError(Exception):
    """Base of every error layoutcheck raises on purpose."""


class LayoutError(LayoutcheckError, ValueError):
    """A layout, tiler or hardware description is malformed or does not fit the operation asked for."""


class ParseError(LayoutError):
    """Text that should be CuTe notation is not; the message shows the text with a caret under the bad character."""

    def __init__(self, text: str, pos: int, what: str) -> None:
        self.text, self.pos, self.what = text, pos, what
        super().__init__(f"{what} at column {pos + 1}: {text!r}\n  {' ' * (pos + 1)}^")

    def __str__(self) -> str:  # one line for the CLI; the caret form is in ``caret``
        return f"{self.what} at column {self.pos + 1} of {self.text!r}"

    @property
    def caret(self) -> str:
        return f"{self.text}\n{' ' * self.pos}^ {self.what}"


class ShapeStrideMismatch(LayoutError):
    """Shape and stride are not congruent (different rank or nesting)."""


class NotDivisibleError(LayoutError):
    """A tiler or shape does not divide the size it must divide."""


class CompositionError(LayoutError):
    """``composition(A, B)`` is not admissible: a stride or shape divisibility condition fails."""


class SpecError(LayoutcheckError, ValueError):
    """A spec file is malformed; the message names file, line and key."""
