"""Plain TOML at the speed of the C JSON reader: the document ``tomllib.loads`` gives, for texts in a plain subset.

``tomllib`` is pure Python: three quarters of the time to load a 70k-config spec (issue #29). Spec files written
by hand or by a generator mostly use a small, unambiguous part of TOML, and that part is JSON with other
punctuation. ``loads(text)`` reads a text in that part by rewriting it as JSON and handing it to ``json.loads`` (C);
for any other text it returns ``None`` and the caller uses ``tomllib``, which then reports the error, if any, in its
own words. Every line of a text in the subset is one of

* blank, or a comment: ``# ...`` (no control character but tab);
* the header ``[[config]]`` (spaces or tabs inside the brackets and around allowed), a comment after it allowed;
* ``key = value``, a comment after it allowed, where ``key`` is a bare key (``A-Za-z0-9_-``) and ``value`` is

  - a basic string with no escape and no control character: ``"..."`` (no ``\\``, no tab);
  - a decimal integer: ``0`` or ``-?[1-9][0-9]*`` (no ``+``, no ``_``, no leading zero);
  - ``true`` or ``false``;
  - an array of values on the line, without a trailing comma: ``[v, v]``;
  - an inline table of ``key = value`` pairs on the line: ``{ k = v, k = v }``;

  nested at most three deep (``[{ name = "x", tile = [16, 8] }]``).

The text has no carriage return (``\\r\\n`` files are read by ``tomllib``). Besides the grammar, TOML forbids a key
twice in one table and a top-level ``config`` key beside ``[[config]]`` tables: both give ``None`` too, so the
caller's ``tomllib`` raises the error. Floats, dates, literal and multi-line strings, escapes, dotted or quoted keys,
other tables and multi-line arrays are outside the subset: ``None``.

Sound by construction in one direction only -- ``None`` is always allowed -- and checked against ``tomllib`` on
generated texts in and around the subset (``tests/spec/test_plain_toml.py``): where this returns a document it is
``tomllib``'s, value for value and type for type (``bool`` is not ``int``), keys in the same order.
"""

from __future__ import annotations

import json
import re
from typing import Any

_KEY = r"[A-Za-z0-9_-]++"
_WS = r"[ \t]*+"
_SCALAR = r'(?>"[^"\\\x00-\x1f\x7f\ud800-\udfff]*+"|-?+(?>0|[1-9][0-9]*+)(?![0-9])|true\b|false\b)'


def _nested(depth: int) -> str:
    """The value grammar nested ``depth`` deep (regular expressions do not recurse). Each level names the level
    below once (an element, then a comma with an element to follow or the closing bracket), so the expression grows
    with two copies a level, not four."""
    value = _SCALAR
    for _ in range(depth):
        array = rf"\[{_WS}(?:{value}(?:{_WS},{_WS}(?!\])|{_WS}(?=\])))*+\]"
        table = rf"\{{{_WS}(?:{_KEY}{_WS}={_WS}{value}(?:{_WS},{_WS}(?!\}})|{_WS}(?=\}})))*+\}}"
        value = rf"(?>{_SCALAR}|{array}|{table})"
    return value


_COMMENT = r"(?:#[^\x00-\x08\x0a-\x1f\x7f\ud800-\udfff]*+)?+"
_LINE = (rf"{_WS}(?:{_KEY}{_WS}={_WS}{_nested(3)}{_WS}|\[\[{_WS}config{_WS}\]\]{_WS})?+{_COMMENT}")
_DOCUMENT = re.compile(rf"(?:{_LINE}\n)*+{_LINE}")
"""The subset, as one expression over the whole text (possessive: no backtracking across lines)."""

_LINES = re.compile(rf'^{_WS}(?:({_KEY}){_WS}=((?:[^"#\n]++|"[^"\n]*+")*+)|(\[))?+[^\n]*+\n?', re.M)
"""A line of a text in the subset: a pair (the key; the value up to the comment, as strings hold no ``"``), a
header (``[``), or neither (blank, comment)."""
_INLINE_KEY = re.compile(rf'("[^"\n]*+")|({_KEY}){_WS}=')
_MEMBER, _TABLE = "\x02", "\x03"
"""Marks written in place of a member's comma and of a ``[[config]]`` header: control characters, which no string
of the subset holds and no comment keeps."""


class _Repeated(Exception):
    """A key twice in one table (TOML forbids it; JSON keeps the last)."""


def _table(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    table = dict(pairs)
    if len(table) != len(pairs):
        raise _Repeated
    return table


def _quoted(m: re.Match[str]) -> str:
    return m[1] or f'"{m[2]}":'


def _json_line(m: re.Match[str]) -> str:
    """One line of the subset as JSON: a member after its mark, a header's mark, or nothing (the line break goes:
    JSON tokens need none, and no string of the subset holds one)."""
    key = m[1]
    if key is None:
        return _TABLE if m[3] else ""
    value = m[2]
    if "{" in value:  # an inline table's keys, not the same text inside a string
        value = _INLINE_KEY.sub(_quoted, value)
    return f'{_MEMBER}"{key}":{value}'


def loads(text: str) -> dict[str, Any] | None:
    """``tomllib.loads(text)`` for a text in the subset above; ``None`` for any other text (then ask ``tomllib``)."""
    if "\r" in text or _DOCUMENT.fullmatch(text) is None:
        return None
    body = _LINES.sub(_json_line, text)
    first = body.find(_TABLE)
    if first >= 0:
        body = f'{body[:first]}{_MEMBER}"config":[{{{body[first + 1:].replace(_TABLE, "},{")}}}]'
    body = ("{" + body + "}").replace("{" + _MEMBER, "{").replace(_MEMBER, ",")
    try:
        return json.loads(body, object_pairs_hook=_table)
    except (_Repeated, ValueError, RecursionError):  # a repeated key (also a top-level config beside [[config]]);
        return None  # an integer of more than 4300 digits
