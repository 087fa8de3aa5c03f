"""``plain_toml.loads`` against ``tomllib``: where it answers, it answers what ``tomllib`` does, value for value and
type for type; on the plain subset it answers (else loading gains nothing); elsewhere it declines.

The texts are built from lines inside the subset and lines just outside it (escapes, quotes and ``#``/``=``/``{``
inside strings, signs, underscores and leading zeros, floats, dates, trailing commas, repeated keys, dotted and quoted
keys, other headers, control characters, CRLF), mixed at random, so that a too-generous grammar shows up as a
document ``tomllib`` rejects or reads differently.
"""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutcheck.spec import plain_toml
from layoutcheck.spec.load import parse_spec


def same(a: Any, b: Any) -> bool:
    """Equal values of equal types all the way down, keys in the same order (``True == 1`` in Python)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def tomllib_or_none(text: str) -> Any:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return None


# -- inside the subset ---------------------------------------------------------------------------------------------
KEYS = st.sampled_from(["name", "kind", "layout", "tile", "properties", "width", "a", "b-c", "d_e", "0", "true",
                        "x1", "config", "format"])
SAFE_CHAR = st.characters(blacklist_categories=("Cs",), blacklist_characters='"\\',
                          min_codepoint=0x20).filter(lambda c: c != "\x7f")
STRINGS = st.text(SAFE_CHAR | st.sampled_from(list("#={},[] ")), max_size=12).map(lambda s: f'"{s}"')
INTS = st.integers(-(10**20), 10**20).map(str)
SCALARS = STRINGS | INTS | st.sampled_from(["true", "false"])
WS = st.sampled_from(["", " ", "  ", "\t"])


def values(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return SCALARS
    inner = values(depth - 1)
    array = st.lists(inner, max_size=3).flatmap(
        lambda vs: WS.map(lambda w: "[" + w + f"{w},{w}".join(vs) + w + "]"))
    table = st.lists(st.tuples(KEYS, inner), max_size=3, unique_by=lambda kv: kv[0]).flatmap(
        lambda kvs: WS.map(lambda w: "{" + w + f"{w},{w}".join(f"{k}{w}={w}{v}" for k, v in kvs) + w + "}"))
    return SCALARS | array | table


COMMENTS = st.text(SAFE_CHAR | st.sampled_from(['"', "\\", "\t", "#", "="]), max_size=10).map(lambda s: "#" + s)
PAIRS = st.builds(lambda w, k, v, c: f"{w}{k}{w} = {w}{v}{w}{c}", WS, KEYS, values(3), st.just("") | COMMENTS)
HEADERS = st.builds(lambda w, c: f"{w}[[{w}config{w}]]{w}{c}", WS, st.just("") | COMMENTS)
PLAIN_LINES = PAIRS | HEADERS | st.just("") | COMMENTS | WS

# -- just outside it -----------------------------------------------------------------------------------------------
NEAR_VALUES = [
    '"a\\"b"', '"tab\there"', "'literal'", '"""multi"""', "+1", "1_000", "007", "0x10", "1.5", "1e3", "inf", "nan",
    "1979-05-27", "[1, 2,]", "[1,\n2]", "{ a = 1, }", "{ a = 1, a = 2 }", "{ a.b = 1 }", '"\x01"', '"\x7f"', "True",
    "[[1], [2]]", '"a" "b"', '"a\\/b"', '"\\u00e9"', '"\\U0001F600"', '"\\e"', '"\\b"',
    "1 2", "-", "--1", "- 1", '"x"#', "{}", "[]", "{ }", "[ ]",
]
NEAR_LINES = [
    "[config]", "[[config.sub]]", "[[other]]", "[ [config] ]", '"quoted" = 1', "a.b = 1", "a = ", "= 1", "\x0c",
    "a = 1\r", "#\x01", "\ufeffformat = 1", "a == 1", "[[config]] x", "a = 1 # \x7f", "[[config]]]",
]
OUTSIDE_VALUES = st.sampled_from(NEAR_VALUES)
OUTSIDE_LINES = st.sampled_from(NEAR_LINES) | st.builds(lambda k, v: f"{k} = {v}", KEYS, OUTSIDE_VALUES)
ANY_LINES = PLAIN_LINES | OUTSIDE_LINES

CHECKED = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@CHECKED
@given(st.lists(ANY_LINES, max_size=12), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_where_it_answers_it_is_tomllib(lines: list[str], eol: str, final: bool) -> None:
    text = eol.join(lines) + (eol if final else "")
    got = plain_toml.loads(text)
    if got is not None:
        want = tomllib_or_none(text)
        assert want is not None, f"plain_toml read a text tomllib rejects: {text!r}"
        assert same(got, want), f"{text!r}: {got!r} != {want!r}"


@CHECKED
@given(st.lists(PLAIN_LINES, max_size=12), st.booleans())
def test_on_the_plain_subset_it_answers(lines: list[str], final: bool) -> None:
    text = "\n".join(lines) + ("\n" if final else "")
    want = tomllib_or_none(text)
    got = plain_toml.loads(text)
    if want is None:
        assert got is None  # repeated keys, a config key beside [[config]]: tomllib's error is the one reported
    else:
        assert got is not None, f"declined a plain text: {text!r}"
        assert same(got, want)


@pytest.mark.parametrize("text", [f"a = {v}\n" for v in NEAR_VALUES] + [f"{line}\n" for line in NEAR_LINES]
                         + [f"[[config]]\n{line}\n" for line in NEAR_LINES])
def test_each_near_miss_alone(text: str) -> None:
    """Every line just outside the subset, alone (the random mixes may miss one): declined or read as tomllib."""
    got = plain_toml.loads(text)
    if got is not None:
        want = tomllib_or_none(text)
        assert want is not None and same(got, want), text


@pytest.mark.parametrize("text", [
    'a = "x # y"  # z\n', 'a = "{ b = 1 }"\n', 'a = [{ b = "c = d", e = [1, -2] }]\n', "a = -0\n", "",
    "# only a comment", "[[config]]", "[[ config ]]\nname = \"n\"\n[[config]]\n", 'format = 1\nconfig = 2\n',
])
def test_known_texts(text: str) -> None:
    got = plain_toml.loads(text)
    assert got is not None and same(got, tomllib.loads(text))


@pytest.mark.parametrize("text", [
    "a = 1\na = 2\n", "config = 1\n[[config]]\n", "[[config]]\na = 1\na = 2\n", "a = { b = 1, b = 2 }\n",
    "a = 1" + "0" * 5000 + "\n", 'a = "x"\r\n', "a = 1.0\n", "a = [1,]\n",
])
def test_declines(text: str) -> None:
    assert plain_toml.loads(text) is None


def test_errors_still_come_from_tomllib() -> None:
    """A repeated key declined here is reported by the loader with tomllib's words and line."""
    from layoutcheck.errors import SpecError

    with pytest.raises(SpecError, match=r"<spec>:4: invalid TOML"):
        parse_spec('format = 1\n[[config]]\nname = "a"\nname = "b"\n')
