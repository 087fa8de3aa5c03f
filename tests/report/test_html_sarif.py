"""The HTML report (rendered by a real browser, headless Chromium) and the SARIF 2.1.0 report of ``check``."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from layoutcheck.cli import main

SPECS = Path(__file__).resolve().parents[2] / "specs"
BROKEN = [str(SPECS / "broken" / n) for n in ("doubly_owned.toml", "conflicted_swizzle.toml", "illegal_tma_box.toml")]
BAD = 'format = 1\n[[config]]\nname = "bad"\nkind = "layout"\nlayuot = "4:1"\nproperties = ["injective"]\n'


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("reports")
    bad = d / "bad.toml"
    bad.write_text(BAD)
    out = {"html": d / "r.html", "sarif": d / "r.sarif", "json": d / "r.json", "bad": bad}
    code = main(["check", "-q", *BROKEN, str(bad), str(SPECS / "seed000_permutation.toml"), "--html",
                 str(out["html"]), "--sarif", str(out["sarif"]), "--json", str(out["json"])])
    assert code == 2  # an ERROR row (bad.toml) is worse than the REFUTED ones
    return out


# -- HTML -------------------------------------------------------------------------------------------------------------
def test_html_is_one_self_contained_page(reports):
    text = reports["html"].read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert not re.search(r"<script|<link|<img|\bsrc=|@import|url\(", text)  # nothing fetched from anywhere
    refs = set(re.findall(r'(https?://[^"\s]+)', text))
    assert refs <= {"http://www.w3.org/2000/svg"}  # the SVG namespace name, never loaded


def test_html_has_a_picture_per_refuted_row(reports):
    text = reports["html"].read_text()
    results = json.loads(reports["json"].read_text())["results"]
    refuted = sum(r["status"] == "REFUTED" for r in results)
    assert text.count('class="counterexample"') == refuted
    # every counterexample gets a picture or one line saying why not (a TMA descriptor the driver rejects has no
    # picture; a 64x256 tile is over the report's cell limit)
    assert text.count("<svg") + text.count('class="why"') == refuted and text.count("<svg") >= refuted - 2
    assert "lanes (rows) x banks (columns)" in text and "owned by no (thread, value) or by several" in text
    assert "(src) lands at smem byte" in text and "(dst)" in text


def _chromium() -> str | None:
    return next((c for c in ("chromium", "chromium-browser", "google-chrome") if shutil.which(c)), None)


def _run_chromium(*args: str) -> subprocess.CompletedProcess[str]:
    exe = _chromium()
    if exe is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium)")
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage", *args]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        pytest.skip("headless Chromium did not finish in 120 s")


def test_chromium_renders_the_verdict_table_and_pictures(reports):
    proc = _run_chromium("--dump-dom", reports["html"].as_uri())
    dom = proc.stdout
    if "<table" not in dom:
        pytest.skip(f"Chromium gave no DOM: {proc.stderr[-300:]}")
    results = json.loads(reports["json"].read_text())["results"]
    assert len(re.findall(r'<tr class="(?:PROVEN|REFUTED|UNKNOWN|ERROR)"', dom)) == len(results)
    assert dom.count('data-status="ERROR"') == 1 and "did you mean" in dom
    sections = re.findall(r'<section id="row-\d+" class="counterexample".*?</section>', dom, re.S)
    assert sections and all("REFUTED" in s or "<svg" in s for s in sections)
    assert 'stroke="#e00000"' in dom  # the outlined cells: missed/doubly owned, conflicting lanes, misplaced element


def _png_pixels(data: bytes) -> tuple[int, int, int, bytes]:
    """(width, height, channels, raw pixel bytes) of an 8-bit non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    w = h = ctype = 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    ch = {2: 3, 6: 4}[ctype]
    raw, stride, out, prev = zlib.decompress(idat), w * ch, bytearray(), bytearray(w * ch)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - ch] if x >= ch else 0
            b, c = prev[x], prev[x - ch] if x >= ch else 0
            pred = (0, a, b, (a + b) // 2, a + b - c)[f] if f < 4 else 0
            if f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[x] = (line[x] + pred) & 0xFF
        out += line
        prev = line
    return w, h, ch, bytes(out)


def test_chromium_screenshot_shows_red_outlines(reports, tmp_path):
    shot = tmp_path / "shot.png"
    _run_chromium(f"--screenshot={shot}", "--window-size=1400,2400", reports["html"].as_uri())
    if not shot.exists():
        pytest.skip("Chromium wrote no screenshot")
    w, _, ch, px = _png_pixels(shot.read_bytes())
    red = sum(1 for i in range(0, len(px), ch) if px[i] > 200 and px[i + 1] < 60 and px[i + 2] < 60)
    assert w == 1400 and red > 50  # the outlines of the counterexamples are drawn


# -- SARIF ------------------------------------------------------------------------------------------------------------
def sarif_path(loc: dict, base: dict) -> Path:
    """The file an ``artifactLocation`` names, read as a SARIF consumer does: an absolute URI as it is, a relative
    reference against its ``uriBaseId`` (RFC 3986 section 5.2, percent-decoded)."""
    uri = urljoin(base[loc["uriBaseId"]]["uri"], loc["uri"]) if "uriBaseId" in loc else loc["uri"]
    parts = urlsplit(uri)
    assert parts.scheme == "file", uri
    return Path(unquote(parts.path))


def test_sarif_has_the_required_2_1_0_structure(reports):
    log = json.loads(reports["sarif"].read_text())
    assert log["version"] == "2.1.0" and "sarif-2.1.0" in log["$schema"]
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "layoutcheck" and isinstance(driver["rules"], list)
    ids = [r["id"] for r in driver["rules"]]
    assert len(ids) == len(set(ids)) and all("shortDescription" in r for r in driver["rules"])
    for res in run["results"]:
        assert set(res) >= {"ruleId", "level", "message", "locations"}
        assert res["level"] in ("error", "warning", "note", "none") and res["message"]["text"]
        assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] and loc["region"]["startLine"] >= 1


def test_sarif_annotates_the_spec_line_of_each_refuted_and_error_row(reports):
    results = json.loads(reports["json"].read_text())["results"]
    sarif = json.loads(reports["sarif"].read_text())["runs"][0]["results"]
    want = [(r["file"], r["line"]) for r in results if r["status"] in ("REFUTED", "ERROR")]
    base = json.loads(reports["sarif"].read_text())["runs"][0]["originalUriBaseIds"]
    got = [(sarif_path(res["locations"][0]["physicalLocation"]["artifactLocation"], base),
            res["locations"][0]["physicalLocation"]["region"]["startLine"]) for res in sarif]
    assert len(got) == len(want) and [g[1] for g in got] == [w[1] for w in want]
    assert all(Path(w[0]).resolve() == g[0].resolve() for w, g in zip(want, got, strict=True))
    bad = [res for res in sarif if res["ruleId"] == "layoutcheck/unreadable-config"]
    assert len(bad) == 1 and bad[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 5
