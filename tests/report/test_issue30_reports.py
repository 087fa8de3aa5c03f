"""Issue #30, what the reports say: SARIF locations (RFC 3986, relative to %SRCROOT%, never climbing out) and ERROR
messages; the HTML header and its notes in words; the Markdown summary; C names of the vectors header; the pictures
Jupyter shows (``_repr_svg_`` / ``_repr_html_``, the same as ``show``'s)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from layoutcheck.check_row import FILE_LEVEL, Row
from layoutcheck.cli import main
from layoutcheck.report.html import to_html
from layoutcheck.report.markdown import MAX_DETAIL, to_markdown
from layoutcheck.report.sarif import artifact_location, to_sarif

SPECS = Path(__file__).resolve().parents[2] / "specs"
TYPO = 'format = 1\n[[config]]\nname = "typo_key"\nkind = "tv"\ntvv = "4:1"\ntile = [4]\nproperties = ["exact_cover"]\n'


def _resolve(loc: dict, run: dict) -> Path:
    uri = urljoin(run["originalUriBaseIds"][loc["uriBaseId"]]["uri"], loc["uri"]) if "uriBaseId" in loc else loc["uri"]
    return Path(unquote(urlsplit(uri).path))


# -- SARIF ------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "uri"), [("my specs/gate.toml", "my%20specs/gate.toml"),
                                           ("specs/größe #1.toml", "specs/gr%C3%B6%C3%9Fe%20%231.toml"),
                                           ("./a/../b.toml", "b.toml")])
def test_sarif_uris_are_percent_encoded_relative_references(path, uri):
    assert artifact_location(path, "/repo") == {"uri": uri, "uriBaseId": "%SRCROOT%"}


@pytest.mark.parametrize("path", ["../gate.toml", "/elsewhere/gate.toml", "a/../../gate.toml"])
def test_sarif_never_climbs_out_of_the_source_root(path):
    loc = artifact_location(path, "/repo")
    assert "uriBaseId" not in loc and loc["uri"].startswith("file:///") and ".." not in loc["uri"]


def test_sarif_run_locations_resolve_to_the_spec_files(tmp_path, monkeypatch):
    (tmp_path / "repo" / "my specs").mkdir(parents=True)
    inside = tmp_path / "repo" / "my specs" / "gate.toml"
    outside = tmp_path / "gate.toml"
    for p in (inside, outside):
        p.write_text(TYPO)
    monkeypatch.chdir(tmp_path / "repo")
    assert main(["check", "-q", "my specs/gate.toml", "../gate.toml", "--sarif", "r.sarif"]) == 2
    run = json.loads(Path("r.sarif").read_text())["runs"][0]
    locs = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    assert locs[0] == {"uri": "my%20specs/gate.toml", "uriBaseId": "%SRCROOT%"} and "uriBaseId" not in locs[1]
    assert [_resolve(loc, run) for loc in locs] == [inside, outside]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/repo/")


def test_sarif_error_messages_read_as_sentences():
    rows = [Row("s.toml", "typo_key", FILE_LEVEL, "ERROR", reason="config 'typo_key': key 'tvv': unknown key", line=5),
            Row("s.toml", FILE_LEVEL, FILE_LEVEL, "ERROR", reason="invalid TOML: Expected '='", line=1),
            Row("s.toml", "c", "injective", "ERROR", reason="boom", line=3, internal=True)]
    texts = [r["message"]["text"] for r in to_sarif(rows, "/")["runs"][0]["results"]]
    assert texts == ["cannot be read: config 'typo_key': key 'tvv': unknown key",
                     "cannot be read: invalid TOML: Expected '='",
                     "c: injective: internal error (a bug in layoutcheck, please report it): boom"]
    assert not any(" - is ERROR" in t for t in texts)


# -- HTML -------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def broken_html(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("html") / "r.html"
    code = main(["check", "-q", str(SPECS / "broken" / "illegal_tma_box.toml"),
                 str(SPECS / "broken" / "conflicted_swizzle.toml"), "--html", str(out)])
    assert code == 1
    return out.read_text()


def test_html_header_names_specs_version_date_and_exit_code(broken_html):
    from layoutcheck.version import __version__

    run = re.search(r'<p id="run">(.*?)</p>', broken_html).group(1)
    assert f"layoutcheck {__version__}" in run and re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", run)
    assert '<span id="exit">1</span>' in run and "illegal_tma_box.toml" in run and "conflicted_swizzle.toml" in run
    page = to_html([Row("a.toml", "c", "injective", "PROVEN")], when=datetime(2026, 1, 2, 3, 4, tzinfo=UTC))
    assert "2026-01-02 03:04 UTC" in page and "checks, exit 0</h1>" in page


def test_tma_picture_shows_where_the_misplaced_element_went(broken_html):
    section = re.search(r'<section id="row-\d+"[^>]*>(?:(?!</section>).)*box_swizzle_mismatch.*?</section>',
                        broken_html, re.S).group(0)
    svg = ET.fromstring(section[section.index("<svg"):section.index("</svg>") + 6])
    texts = [t.text or "" for t in svg.iter() if t.tag.endswith("text")]
    assert sum(t.endswith(" src") for t in texts) == 1 and sum(t.endswith(" dst") for t in texts) == 1
    assert "tile element (8,0) (src) lands at smem byte 512, where the layout keeps element (9,0) (dst)" in section


def test_the_dst_cell_is_where_tma_writes_the_src_element():
    """The picture's claim, re-derived from the definitions: TMA's image of element i is the byte the layout gives
    element j (the tagged cells), and i != j."""
    from layoutcheck.models.tma import tile_image
    from layoutcheck.report.html import tma_place_grid
    from layoutcheck.spec.bind import build_property
    from layoutcheck.spec.load import load_spec

    cfg = next(c for c in load_spec(str(SPECS / "broken" / "illegal_tma_box.toml")).configs
               if c.name == "box_swizzle_mismatch")
    prop = build_property(cfg, cfg.properties[0])
    g = tma_place_grid(prop, 8)
    cells = {g.text[m][n].split()[-1]: (m, n) for m in range(g.rows) for n in range(g.cols)
             if g.text[m][n].endswith(("src", "dst"))}
    (sm, sn), (dm, dn) = cells["src"], cells["dst"]
    actual, _ = tile_image(prop.box, prop.layout, prop.modes, prop.base_address)
    lay = prop.subjects()[0]
    assert actual[sm + g.rows * sn] == prop.box.esize * lay(dm + g.rows * dn) and (sm, sn) != (dm, dn)
    assert g.alert == frozenset({(sm, sn), (dm, dn)})


def test_a_picture_too_large_is_explained_in_words(tmp_path):
    spec = tmp_path / "big.toml"
    spec.write_text('format = 1\n[[config]]\nname = "big"\nkind = "tv"\ntv = "(128,64):(1,128)"\ntile = [128, 128]\n'
                    'properties = ["exact_cover"]\n')
    out = tmp_path / "r.html"
    assert main(["check", "-q", str(spec), "--html", str(out)]) == 1
    why = re.search(r'<p class="why">(.*?)</p>', out.read_text()).group(1)
    assert why == "no picture: the picture would have 16384 cells, over the 4096 a report draws"
    assert "Error" not in why


# -- Markdown ---------------------------------------------------------------------------------------------------------
def test_markdown_summary_lists_failures_first_and_folds_the_proven(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(TYPO)
    md = tmp_path / "s.md"
    code = main(["check", "-q", str(SPECS / "broken" / "doubly_owned.toml"), str(bad),
                 str(SPECS / "seed001_mma_c_fragment.toml"), "--markdown", str(md)])
    text = md.read_text()
    assert code == 2 and text.startswith("### layoutcheck: 3 refuted, 1 error (exit 2)\n")
    table, folded = text.split("<details>")
    rows = [ln for ln in table.splitlines() if ln.startswith("| **")]
    assert [r.split("**")[1] for r in rows] == ["ERROR", "REFUTED", "REFUTED", "REFUTED"]
    assert "tile element (4,0) is owned 2 times" in table and "did you mean 'tv'" in table
    assert folded.count("| **PROVEN**") == 7 and "<summary>7 proven</summary>" in folded


def test_markdown_cells_stay_one_line_and_short():
    nasty = "a|b\nc `d` <script>" + "x" * 1000
    text = to_markdown([Row("f|g.toml", "c|1", "injective", "REFUTED", counterexample=nasty, line=3)])
    row = next(ln for ln in text.splitlines() if ln.startswith("| **REFUTED"))
    cells = re.split(r"(?<!\\)\|", row)[1:-1]
    assert len(cells) == 5 and "<script>" not in row and "\\`d\\`" in row
    assert len(cells[4]) < MAX_DETAIL + 40


# -- vectors header ---------------------------------------------------------------------------------------------------
def test_vectors_c_names_are_identifiers_without_double_underscores_and_distinct():
    from layoutcheck.report.vectors import c_name

    names = ["1abc", "a.b+c-d", "a_b_c_d", "a-b_c.d", "größe_ü", "行列", "x__y", "x_y", "_a", "a_", "A", "m16n8k16_C"]
    got = [c_name(n) for n in names]
    assert len(set(got)) == len(names)
    for g in got:
        ident = f"lc_{g}_row"
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", ident) and "__" not in ident and "__" not in f"LC_{g.upper()}_X"
    assert c_name("1abc") == "1abc" and c_name("m16n8k16_C") == "m16n8k16_C"


def test_vectors_header_of_a_config_named_1abc(tmp_path):
    spec = tmp_path / "v.toml"
    spec.write_text('format = 1\n[[config]]\nname = "1abc"\nkind = "tv"\ntv = "((4,8),(2,2)):((32,1),(16,8))"\n'
                    'tile = [16, 8]\nproperties = ["exact_cover"]\n')
    out = tmp_path / "v.h"
    assert main(["vectors", str(spec), "--format", "h", "-o", str(out)]) == 0
    text = out.read_text()
    assert "#define LC_1ABC_THREADS 32" in text and "lc_1abc_row[128]" in text
    compilers = {"__CUDACC__", "__device__", "__attribute__", "__GNUC__", "__clang__"}  # theirs, not ours
    assert {w for w in re.findall(r"[A-Za-z0-9_]+", text) if "__" in w} <= compilers


# -- notebooks --------------------------------------------------------------------------------------------------------
def _svg(text: str) -> ET.Element:
    return ET.fromstring(text[text.index("<svg"):text.index("</svg>") + 6])


def test_layouts_render_as_the_show_picture():
    import layoutcheck as lc
    from layoutcheck.report.show import plain_grid, render_svg

    for text in ("(4,8):(8,1)", "Sw<3,3,3> o (8,64):(64,1)", "((2,2),4):((1,8),2)"):
        x = lc.parse_layout(text)
        assert x._repr_svg_() == render_svg(plain_grid(x))
        _svg(x._repr_svg_())
    assert lc.parse_layout("(2,2,2):(1,2,4)")._repr_svg_() is None  # rank 3: Jupyter shows the text
    assert lc.parse_layout("(128,128):(1,128)")._repr_svg_() is None  # over the notebook's cell limit


def test_tv_layouts_mma_atoms_and_tiled_mmas_render_their_owners():
    import layoutcheck as lc

    tv = lc.parse_layout("((4,8),(2,2)):((32,1),(16,8))")
    pic = lc.picture(tv, (16, 8))
    texts = [t.text for t in _svg(pic._repr_svg_()).iter() if t.tag.endswith("text")]
    assert "T0V0" in texts and "T4V0" in texts and pic.rows == 16 and pic.cols == 8
    atom = lc.mma_atom("SM80_16x8x16_F32F16F16F32_TN")._repr_html_()
    assert atom.count("<svg") == 3 and "16x16" in atom and "16x8" in atom  # A 16x16 (M x K), B 8x16, C 16x8
    tiled = lc.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (32, 32, 16))
    assert tiled._repr_html_().count("<svg") == 3 and _svg(tiled._repr_svg_()) is not None
    big = lc.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (128, 128, 16))
    assert big._repr_svg_() is None and "no picture" in big._repr_html_()


def test_results_render_their_verdict_and_counterexample_picture():
    import layoutcheck as lc

    bad = lc.prove(lc.exact_cover(lc.parse_layout("((4,8),(2,2)):((32,1),(16,4))"), (16, 8)))
    html = bad._repr_html_()
    assert "<b>REFUTED</b>" in html and "counterexample:" in html and 'stroke="#e00000"' in html
    good = lc.prove(lc.bijective(lc.parse_layout("(8,8):(8,1)")))
    assert "<b>PROVEN</b>" in good._repr_html_() and "<svg" not in good._repr_html_()


# -- bank pictures ----------------------------------------------------------------------------------------------------
def test_a_bank_picture_where_every_phase_conflicts_names_the_lanes_that_pair_up():
    """ldmatrix.x4 on an unswizzled (64,64) f16 tile: every phase is 8-way. The picture outlines one conflict (its
    8 lanes' 8-element rows, tagged L0..L7, all in bank 0) instead of every cell, and marks the rest '*'."""
    from layoutcheck.report.show import build_grid

    g = build_grid("(64,64):(64,1)", None, "f16", "ldsm_x4")
    tags = {g.text[m][n].split()[-1] for m, n in g.alert}
    assert tags == {f"L{lane}" for lane in range(8)} and len(g.alert) == 8 * 8
    assert {g.text[m][n].split()[1] for m, n in g.alert} <= {"b0", "b1", "b2", "b3"}  # a 16 B row spans 4 banks
    assert all(g.text[m][n].endswith(" *") for m in range(64) for n in range(64) if (m, n) not in g.alert)
    assert "instruction 0, phase 0 (lanes 0-7): lanes [0, 1, 2, 3, 4, 5, 6, 7]" in g.legend
    assert "1 of 64 conflicting phase(s)" in g.legend  # 4096 elements / 256 per ldmatrix.x4 = 16, x 4 phases
