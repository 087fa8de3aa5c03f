"""The SARIF 2.1.0 report of ``layoutcheck check --sarif FILE``: code-scanning UIs annotate the spec line of every
REFUTED row (level ``error``, rule ``layoutcheck/<property>``, the counterexample as the message) and ERROR row
(level ``error``, rule ``layoutcheck/unreadable-config``); UNKNOWN rows are ``warning``s, PROVEN rows are not listed.

The required structure (SARIF 2.1.0, OASIS standard, sections 3.13-3.28): ``version`` "2.1.0", ``$schema``, ``runs``;
each run a ``tool.driver`` with ``name`` and ``rules``; each result a ``ruleId``, ``level``, ``message.text`` and a
``physicalLocation`` with ``artifactLocation.uri`` and ``region.startLine`` (>= 1).
"""

from __future__ import annotations

import json
import os
from typing import Any

from layoutcheck.check import Row
from layoutcheck.report.verdicts import atomic_open

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"REFUTED": "error", "ERROR": "error", "UNKNOWN": "warning"}


def _rule(r: Row) -> str:
    if r.status == "ERROR":
        return "layoutcheck/internal-error" if r.internal else "layoutcheck/unreadable-config"
    return f"layoutcheck/{r.property.split('(')[0]}"


def _message(r: Row) -> str:
    if r.status == "REFUTED":
        return f"{r.config}: {r.property} is REFUTED: {r.counterexample}"
    return f"{r.config}: {r.property} is {r.status}: {r.reason}"


def _uri(path: str) -> str:
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    return rel.replace(os.sep, "/")


def to_sarif(rows: list[Row]) -> dict[str, Any]:
    """The SARIF log of ``rows`` (one run)."""
    from layoutcheck.version import __version__

    listed = [r for r in rows if r.status in _LEVEL]
    rule_ids = sorted({_rule(r) for r in listed})
    rules = [{"id": rid, "name": rid.split("/")[1], "shortDescription": {"text": _describe(rid)}} for rid in rule_ids]
    results = []
    for r in listed:
        results.append({
            "ruleId": _rule(r), "ruleIndex": rule_ids.index(_rule(r)), "level": _LEVEL[r.status],
            "message": {"text": _message(r)},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(r.file)},
                                                "region": {"startLine": max(1, r.line)}}}],
            "properties": {"status": r.status, "config": r.config, "property": r.property, "engine": r.engine,
                           "counterexample": r.counterexample_data or None},
        })
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION,
            "runs": [{"tool": {"driver": {"name": "layoutcheck", "version": __version__, "rules": rules}},
                      "results": results}]}


def _describe(rule_id: str) -> str:
    name = rule_id.split("/")[1]
    if name == "unreadable-config":
        return "a spec config layoutcheck cannot read (syntax, unknown key, wrong type)"
    if name == "internal-error":
        return "a bug in layoutcheck (please report it)"
    return f"the layout property {name} must hold (PROVEN by an engine)"


def write_sarif(rows: list[Row], path: str) -> None:
    with atomic_open(path) as f:
        json.dump(to_sarif(rows), f, indent=2)
        f.write("\n")
