"""Spec loading is linear (issue #29): the one-pass line scan numbers keys exactly as the line-by-line scan does."""

from __future__ import annotations

import glob

from hypothesis import given
from hypothesis import strategies as st

from layoutcheck.spec.load import _find_line, _scan_lines, _scan_split, parse_spec

_PIECES = ["[[config]]", " [[ config ]]", "[table]", "  [x.y]", 'name = "a"', "kind='b'", '"q k" = 1', "'s' =2",
           "bare-key_1 = [1,", "  2]", "# c = 3", "x", "", "  ", "\t", "=", "a=", "[", "\x1f", "\u00a0k = 1"]


@given(st.lists(st.sampled_from(_PIECES), max_size=30), st.sampled_from(["\n", "\r\n", "\r", "\u2028", "\x0c"]))
def test_one_pass_scan_equals_line_by_line(pieces: list[str], sep: str) -> None:
    text = sep.join(pieces)
    assert _scan_lines(text) == _scan_split(text)


def test_bundled_specs_scan_the_same() -> None:
    for f in sorted(glob.glob("specs/**/*.toml", recursive=True) + glob.glob("corpus/**/*.toml", recursive=True)):
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        for t in (text, text.replace("\n", "\r\n")):
            assert _scan_lines(t) == _scan_split(t), f


def test_find_line_from_start() -> None:
    text = 'a\n"x"\nb\n"x"\n'
    assert (_find_line(text, '"x"', 1), _find_line(text, '"x"', 3), _find_line(text, '"y"', 3)) == (2, 4, 3)


def test_many_configs_keep_their_lines() -> None:
    text = "format = 1\n" + "".join(f'\n[[config]]\nname = "c{i}"\nkind = "layout"\nlayout = "(4,2):(2,1)"\n'
                                    f'properties = ["injective", {{ name = "bijective" }}]\n' for i in range(3000))
    spec = parse_spec(text, "big.toml")
    last = spec.configs[-1]
    assert (len(spec.configs), last.line, last.line_of("layout"), [p.line for p in last.properties]) == (
        3000, 2 + 6 * 2999 + 1, 2 + 6 * 2999 + 4, [2 + 6 * 2999 + 5] * 2)


@given(st.text(alphabet=st.sampled_from("ab =[]\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029é"), max_size=30))
def test_odd_breaks_is_the_regex_search(text: str) -> None:
    from layoutcheck.spec.load import _ODD_BREAKS, _odd_breaks

    assert _odd_breaks(text) == (_ODD_BREAKS.search(text) is not None)
