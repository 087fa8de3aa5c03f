"""``layoutcheck import`` of a TileLang log names each config after the ``# name:`` comment above its printout (the
name ``check`` gives its rows), else after its line; a lowered TIR's configs keep their buffer names."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from layoutcheck.importers.tilelang_tir import tilelang_records
from layoutcheck.spec.imported import spec_from_tilelang

DATA = Path(__file__).parents[1] / "data" / "tilelang"


def _names(spec: str) -> list[str]:
    return [c["name"] for c in tomllib.loads(spec)["config"]]


def test_configs_are_named_after_the_name_comments():
    text = (DATA / "layouts.txt").read_text()
    wanted = [ln.removeprefix("# name:").strip() for ln in text.splitlines() if ln.startswith("# name:")]
    names = _names(spec_from_tilelang(text))
    assert names[0] == "make_swizzled_layout_float16_64x64"
    bases = {re.sub(r"[^A-Za-z0-9_.+-]+", "_", w).strip("_")[:60] for w in wanted}
    for name in names:  # a record's inverse (its "# inverse:" printout) shares its name: suffixed _2
        name = name.removesuffix("_tv")
        assert name in bases or re.sub(r"_\d+$", "", name) in bases, name
    assert bases <= {n.removesuffix("_tv") for n in names}
    assert len(set(names)) == len(names)


def test_fallbacks():
    log = ("Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i * 8 + _j,))\n# my own note\n"
           "Layout((4, 8) -> (32,), transform: (_i, _j) -> (_i + _j * 4,))\n")
    assert _names(spec_from_tilelang(log)) == ["layout_line1", "my_own_note"]
    tir = (DATA / "annotate_layout_sm80.tir").read_text()
    stems = [stem for stem, _, _ in tilelang_records(tir)]
    assert all(any(n.endswith("_" + s) for s in stems) for n in _names(spec_from_tilelang(tir))
               if not n.endswith("_tv"))
