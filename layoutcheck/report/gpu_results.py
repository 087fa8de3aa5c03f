"""What the GPU said about REFUTED rows: the results file of ``python -m layoutcheck.gpu.refuted`` (or of the
``refuted`` section of ``layoutcheck.gpu.validate``), read for ``check --html FILE --gpu-results RESULTS``.

A row of the report matches a result by config, property and line, and by file: the result's path relative to the
repository (``specs/broken/x.toml``) must end the row's path, so a report written on another machine, from another
folder, still finds it. Only rows the GPU *confirmed* are marked ("confirmed on <device>").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from layoutcheck.errors import SpecError

SCHEMA = "layoutcheck-gpu-refuted/1"


@dataclass(frozen=True, slots=True)
class GpuResults:
    """The confirmed rows of a results file: ``(config, property, line) -> [file suffixes]``, and the device."""

    device: str
    confirmed: dict[tuple[str, str, int], tuple[str, ...]]

    def note(self, row: Any) -> str:
        """``"confirmed on <device>"`` for a REFUTED ``row`` the GPU confirmed, else ``""``."""
        if getattr(row, "status", "") != "REFUTED":
            return ""
        files = self.confirmed.get((row.config, row.property, int(row.line)), ())
        path = PurePath(row.file).as_posix()
        return f"confirmed on {self.device}" if any(path == f or path.endswith("/" + f) for f in files) else ""


def _rel(file: str) -> str:
    """``file`` from its ``specs/`` folder on (the part two checkouts share), else as it is."""
    parts = PurePath(file).parts
    return PurePath(*parts[len(parts) - 1 - parts[::-1].index("specs"):]).as_posix() if "specs" in parts else file


def parse_gpu_results(doc: Any) -> GpuResults:
    """``doc`` (the parsed JSON) -> ``GpuResults``; a ``SpecError`` for a document of another kind."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(doc.get("rows"), list):
        raise SpecError(f"not a GPU results file (expected schema {SCHEMA!r})")
    confirmed: dict[tuple[str, str, int], tuple[str, ...]] = {}
    for r in doc["rows"]:
        if isinstance(r, dict) and r.get("gpu") == "confirmed":
            key = (str(r["config"]), str(r["property"]), int(r["line"]))
            confirmed[key] = (*confirmed.get(key, ()), _rel(str(r["file"])))
    return GpuResults(str(doc.get("device") or "a GPU"), confirmed)


def load_gpu_results(path: str) -> GpuResults:
    """The results file at ``path``; a ``SpecError`` when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise SpecError(f"cannot read the GPU results {path}: {e}") from None
    return parse_gpu_results(doc)
