"""Issue #30, what a user reads: deep nesting in one line, Unicode config names, the table aligned by display width,
files that are not specs (``check``, ``import``) naming the formats tried and the line, TOML in "found ...", help
texts with the exit codes."""

from __future__ import annotations

import pytest

from layoutcheck.algebra.notation import MAX_NESTING, parse_layout
from layoutcheck.cli import main
from layoutcheck.errors import LayoutError

GOOD_TV = '"((4,8),(2,2)):((32,1),(16,8))"'


def _spec(name: str, extra: str = "", tile: str = "[16, 8]") -> str:
    return (f'format = 1\n[[config]]\nname = "{name}"\nkind = "tv"\ntv = {GOOD_TV}\ntile = {tile}\n{extra}'
            'properties = ["exact_cover"]\n')


def _nested(depth: int) -> str:
    return "(" * depth + "4" + ")" * depth + ":" + "(" * depth + "1" + ")" * depth


# -- deep nesting ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 500, 100_000])
def test_deep_nesting_is_one_short_line_in_every_report(tmp_path, capsys, depth):
    spec = tmp_path / "deep.toml"
    spec.write_text(f'format = 1\n[[config]]\nname = "deep"\nkind = "layout"\nlayout = "{_nested(depth)}"\n'
                    'properties = ["injective"]\n')
    js = tmp_path / "r.json"
    assert main(["check", "-q", str(spec), "--json", str(js)]) == 2
    out = capsys.readouterr().out
    assert f"nesting deeper than {MAX_NESTING}" in out and "RecursionError" not in out
    assert len(out) < 600 and js.stat().st_size < 2000  # never the input echoed (400 KB at depth 100000)
    assert "deep.toml:5" in out  # the line of the key


@pytest.mark.parametrize("depth", [300, 100_000])
def test_deeply_nested_toml_is_one_error_row_and_the_run_goes_on(tmp_path, capsys, depth):
    deep = tmp_path / "deep.toml"
    deep.write_text(_spec("c", tile="[" * depth + "4" + "]" * depth))
    good = tmp_path / "good.toml"
    good.write_text(_spec("g"))
    assert main(["check", "-q", str(deep), str(good)]) == 2
    out = capsys.readouterr().out
    assert f"({deep}:6)" in out and "1 proven" in out and len(out) < 800
    assert "nesting deeper than the TOML reader follows" in out or "found [[[[" in out


def test_nesting_up_to_the_limit_is_read_and_proved():
    lay = parse_layout(_nested(MAX_NESTING))
    from layoutcheck import injective, prove

    assert prove(injective(lay)).proven
    with pytest.raises(LayoutError, match=f"nesting deeper than {MAX_NESTING} at column {MAX_NESTING + 1}"):
        parse_layout(_nested(MAX_NESTING + 1))


@pytest.mark.parametrize("argv", [["show", _nested(5000)], ["calc", f"composition({_nested(300)}, 4:1)"]])
def test_deep_nesting_on_the_command_line(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"nesting deeper than {MAX_NESTING}" in err and len(err) < 300


# -- config names -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["größe_ü", "行列_c", "матрица", "e\u0301t\u0301e", "a.b+c-d", "1abc"])
def test_unicode_letters_name_a_config(tmp_path, capsys, name):
    spec = tmp_path / "n.toml"
    spec.write_text(_spec(name), encoding="utf-8")
    assert main(["check", "-q", str(spec)]) == 0
    assert name in capsys.readouterr().out


@pytest.mark.parametrize(("name", "bad"), [("a b", "' '"), ("tab\there", "'\\t'"), ("zero\u200bwidth", "'\\u200b'"),
                                           ("\u0301acute", "'\u0301'"), ("", "''")])
def test_a_bad_name_says_which_character_and_the_line(tmp_path, capsys, name, bad):
    spec = tmp_path / "n.toml"
    spec.write_text(_spec(name.replace("\t", "\\t").replace("\u200b", "\\u200b")), encoding="utf-8")
    assert main(["check", "-q", str(spec)]) == 2
    out = capsys.readouterr().out
    assert "Unicode letters, digits and '_.+-'" in out and f"{spec}:3)" in out
    assert bad in out


def test_the_table_aligns_by_display_width(tmp_path, capsys):
    spec = tmp_path / "cjk.toml"
    spec.write_text(_spec("行列_c") + _spec("größe_ü").removeprefix("format = 1\n") + _spec("plain").removeprefix(
        "format = 1\n"), encoding="utf-8")
    assert main(["check", "-q", str(spec)]) == 0
    from layoutcheck.report.width import display_width

    lines = capsys.readouterr().out.splitlines()[:4]
    starts = {display_width(ln[:ln.index("exact_cover" if "exact_cover" in ln else "property")]) for ln in lines}
    assert len(starts) == 1  # the property column starts at the same terminal column on every line


# -- files that are not specs -----------------------------------------------------------------------------------------
def test_check_of_a_text_file_names_the_formats_tried(tmp_path, capsys):
    junk = tmp_path / "junk.txt"
    junk.write_text("hello world\nthis is junk\n")
    assert main(["check", "-q", str(junk)]) == 2
    out = capsys.readouterr().out
    assert "not a layoutcheck input: tried a spec (TOML:" in out and "TTGIR" in out and "TileLang" in out
    assert f"({junk}:1)" in out and "invalid TOML" not in out


def test_random_bytes_are_blamed_on_their_line(tmp_path, capsys):
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"format = 1\n\n\xff\xfe junk\n")
    spec = tmp_path / "blob.toml"
    spec.write_bytes(blob.read_bytes())
    assert main(["check", "-q", str(blob), str(spec)]) == 2
    out = capsys.readouterr().out
    assert f"({blob}:3)" in out and f"({spec}:3)" in out and ":0)" not in out
    assert "spec is not UTF-8 text (byte 12)" in out


def test_import_of_junk_names_the_file_line_and_formats(tmp_path, capsys):
    junk = tmp_path / "junk.txt"
    junk.write_text("\n\nhello world\n")
    assert main(["import", str(junk)]) == 2
    err = capsys.readouterr().err
    assert f"{junk}:3: not an importable file: tried a TTGIR module" in err
    assert "TileLang printouts (none) and a CuTe printout (unexpected name 'hello'" in err
    assert len(err.splitlines()) == 1


def test_found_values_are_written_as_toml(tmp_path, capsys):
    spec = tmp_path / "t.toml"
    spec.write_text(_spec("c", tile="[true, 8]"))
    assert main(["check", "-q", str(spec)]) == 2
    out = capsys.readouterr().out
    assert "found [true, 8]" in out and "True" not in out


# -- help -------------------------------------------------------------------------------------------------------------
def test_check_help_lists_the_exit_codes(capsys):
    assert main(["check", "--help"]) == 0
    out = capsys.readouterr().out
    for line in ("0  every property PROVEN", "1  some property REFUTED", "2  some input cannot be read",
                 "3  nothing refuted, but some property UNKNOWN", "4  a bug in layoutcheck"):
        assert line in out
    assert "--markdown FILE" in out


@pytest.mark.parametrize("command", ["check", "show", "vectors", "import"])  # prove, calc: helper api
def test_every_flag_has_help(command):
    import argparse

    from layoutcheck.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    bare = [a.option_strings or a.dest for a in sub.choices[command]._actions if not a.help]
    assert not bare, f"{command}: flags without help: {bare}"


def test_show_and_import_help(capsys):
    assert main(["show", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--svg FILE write the picture as an SVG file" in out and "--html FILE write the picture as a" in out
    assert main(["import", "--help"]) == 0
    assert "formats are tried in this order" in " ".join(capsys.readouterr().out.split())


# -- access_expr -------------------------------------------------------------------------------------------------------
ACCESS = ('format = 1\n[[config]]\nname = "c"\nkind = "smem"\ndtype = "f16"\nlayout = "{layout}"\naccess = "sts128"\n'
          'access_expr = "s*256 + lane*8"\naccess_ranges = {{ s = {s} }}\n'
          'properties = ["conflict_free", {{ name = "wavefront_count", n = 8 }}]\n')


def test_the_documented_access_expr_example_is_proven(tmp_path, capsys):
    spec = tmp_path / "a.toml"
    spec.write_text(ACCESS.format(layout="(64,8):(1,64)", s=2))
    assert main(["check", "-q", str(spec)]) == 0


@pytest.mark.parametrize(("layout", "s", "what"), [("(8,64):(64,1)", 2, "not one contiguous vector"),
                                                   ("(64,8):(1,64)", 3, "touches element 512 outside the layout")])
def test_access_expr_errors_name_the_key_its_line_and_its_meaning(tmp_path, capsys, layout, s, what):
    spec = tmp_path / "a.toml"
    spec.write_text(ACCESS.format(layout=layout, s=s))
    assert main(["check", "-q", str(spec)]) == 2
    out = capsys.readouterr().out
    assert "key 'access_expr'" in out and f"({spec}:8)" in out and what in out
    assert "access_expr is the first element of each lane's vector, as a colex index into the layout's domain" in out
