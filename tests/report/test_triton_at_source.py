"""``report.triton.at_source``: TTGIR-road rows moved to the Python line their operation's ``loc`` names."""

from __future__ import annotations

from pathlib import Path

from layoutcheck.check_row import Row
from layoutcheck.importers.triton_kernel import source_lines
from layoutcheck.report.triton import at_source

TTGIR = Path(__file__).resolve().parents[1] / "data" / "ttgir" / "matmul_fp16_128x128x32_w4_sm80.ttgir"


def test_a_row_on_a_located_line_names_the_python_source() -> None:
    text = TTGIR.read_text()
    line, (file, pyline) = next(iter(sorted(source_lines(text).items())))
    (r,) = at_source([Row("k.ttgir", "cfg", "bijective", "PROVEN", line=line)], text)
    assert (r.file, r.line) == (file, pyline)
    assert r.config == f"{Path(file).name}:{pyline} cfg (ttgir line {line})"


def test_a_row_without_a_location_names_the_kernel_file_or_keeps_its_own() -> None:
    text = TTGIR.read_text()
    free = next(i for i in range(1, len(text.splitlines()) + 2) if i not in source_lines(text))
    row = Row("k.ttgir", "cfg", "bijective", "PROVEN", line=free)
    (kept,) = at_source([row], text)
    assert (kept.file, kept.line, kept.config) == ("k.ttgir", free, f"ttgir:{free} cfg (ttgir line {free})")
    (moved,) = at_source([row], text, kernel_file="kernel.py")
    assert (moved.file, moved.line) == ("kernel.py", 0)
