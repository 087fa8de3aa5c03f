"""Terminal display width of text: East Asian wide and fullwidth characters take two columns, combining marks and
invisible format characters none (``unicodedata.east_asian_width``), so tables of CJK or accented config names line
up on a terminal.

>>> display_width("行列_c"), display_width("größe"), pad("行列", 6) + "|"
(6, 5, '行列  |')
"""

from __future__ import annotations

import unicodedata


def display_width(text: str) -> int:
    """Columns ``text`` takes on a terminal with a monospaced font."""
    if text.isascii():  # every ASCII character takes one column (none combines, none is wide or a format char)
        return len(text)
    return sum(_char_width(ch) for ch in text)


def _char_width(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def pad(text: str, width: int) -> str:
    """``text`` left-aligned in ``width`` display columns (``str.ljust`` counting columns, not characters)."""
    return text + " " * max(0, width - display_width(text))
