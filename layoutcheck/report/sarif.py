"""The SARIF 2.1.0 report of ``layoutcheck check --sarif FILE``: code-scanning UIs annotate the spec line of every
REFUTED row (level ``error``, rule ``layoutcheck/<property>``, the counterexample as the message) and ERROR row
(level ``error``, rule ``layoutcheck/unreadable-config``); UNKNOWN rows are ``warning``s, PROVEN rows are not listed.
The driver lists every rule: one per property of the registry (``spec.schema.PROPERTY_SPECS``, its claim as the
description), the two ERROR rules, and any claim of an imported file outside the registry that a row names.

The required structure (SARIF 2.1.0, OASIS standard, sections 3.13-3.28): ``version`` "2.1.0", ``$schema``, ``runs``;
each run a ``tool.driver`` with ``name`` and ``rules``; each result a ``ruleId``, ``level``, ``message.text`` and a
``physicalLocation`` with ``artifactLocation.uri`` and ``region.startLine`` (>= 1).

Locations (SARIF 3.4.3, 3.14.14): a spec under the directory ``check`` ran in is an RFC 3986 relative reference,
percent-encoded (``my%20specs/gate.toml``), relative to ``uriBaseId`` ``%SRCROOT%``, which the run's
``originalUriBaseIds`` maps to that directory; a spec outside it (``../gate.toml``) is an absolute ``file://`` URI,
never a reference that climbs out of the repository.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from layoutcheck.check_row import FILE_LEVEL, Row
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
    if r.status == "UNKNOWN":
        return f"{r.config}: {r.property} is UNKNOWN: {r.reason}"
    what = "internal error (a bug in layoutcheck, please report it)" if r.internal else "cannot be read"
    reason = r.reason or ""
    if r.config == FILE_LEVEL or f"config {r.config!r}" in reason:  # the reason already names the config
        return f"{what}: {reason}"
    where = r.config if r.property == FILE_LEVEL else f"{r.config}: {r.property}"
    return f"{where}: {what}: {reason}"


SRCROOT = "%SRCROOT%"


def artifact_location(path: str, root: str) -> dict[str, str]:
    """The ``artifactLocation`` of ``path``: relative to ``SRCROOT`` (= ``root``) and percent-encoded when it lies
    under ``root``, else an absolute ``file://`` URI.

    >>> artifact_location("my specs/gate.toml", "/repo"), artifact_location("../gate.toml", "/repo")
    ({'uri': 'my%20specs/gate.toml', 'uriBaseId': '%SRCROOT%'}, {'uri': 'file:///gate.toml'})
    """
    full = os.path.normpath(os.path.join(root, path))
    rel = os.path.relpath(full, root) if os.path.splitdrive(full)[0] == os.path.splitdrive(root)[0] else os.pardir
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return {"uri": Path(full).as_uri()}
    return {"uri": quote(rel.replace(os.sep, "/"), safe="/"), "uriBaseId": SRCROOT}


def _root_uri(root: str) -> str:
    return Path(os.path.abspath(root)).as_uri().rstrip("/") + "/"


def to_sarif(rows: list[Row], root: str | None = None) -> dict[str, Any]:
    """The SARIF log of ``rows`` (one run); locations relative to ``root`` (default: the working directory)."""
    from layoutcheck.version import __version__

    root = os.path.abspath(root or os.getcwd())
    listed = [r for r in rows if r.status in _LEVEL]
    rule_ids = sorted(set(RULES) | {_rule(r) for r in listed})
    rules = [RULES.get(rid) or _rule_of(rid, f"the claim {rid.split('/')[1]} must hold (PROVEN by an engine)")
             for rid in rule_ids]
    results = []
    for r in listed:
        results.append({
            "ruleId": _rule(r), "ruleIndex": rule_ids.index(_rule(r)), "level": _LEVEL[r.status],
            "message": {"text": _message(r)},
            "locations": [{"physicalLocation": {"artifactLocation": artifact_location(r.file, root),
                                                "region": {"startLine": max(1, r.line)}}}],
            "properties": {"status": r.status, "config": r.config, "property": r.property, "engine": r.engine,
                           # the witness record's JSON, as in check --json (owners as t + T*v: witness.owner_id)
                           "counterexample": r.counterexample_data or None},
        })
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION,
            "runs": [{"tool": {"driver": {"name": "layoutcheck", "version": __version__, "rules": rules}},
                      "originalUriBaseIds": {SRCROOT: {"uri": _root_uri(root)}},
                      "results": results}]}


def _rule_of(rule_id: str, text: str, full: str = "") -> dict[str, Any]:
    rule: dict[str, Any] = {"id": rule_id, "name": rule_id.split("/")[1], "shortDescription": {"text": text}}
    if full:
        rule["fullDescription"] = {"text": full}
    return rule


def _rules() -> dict[str, dict[str, Any]]:
    """One rule per property of the registry (``spec.schema.PROPERTY_SPECS``: its claim, the kinds that state it,
    its parameters), and the two ERROR rules; a claim an imported file implies outside the registry gets its rule
    when a row needs it."""
    from layoutcheck.spec.schema import ALL_PROPERTIES, PROPERTY_SPECS, kinds_of

    out = {"layoutcheck/unreadable-config": _rule_of("layoutcheck/unreadable-config", "a spec config layoutcheck "
                                                     "cannot read (syntax, unknown key, wrong type)"),
           "layoutcheck/internal-error": _rule_of("layoutcheck/internal-error", "a bug in layoutcheck (please report "
                                                  "it)")}
    for name in ALL_PROPERTIES:
        spec = PROPERTY_SPECS[name]
        params = ", ".join(p.name for p in spec.params) or "none"
        out[f"layoutcheck/{name}"] = _rule_of(f"layoutcheck/{name}", spec.doc,
                                              f"{spec.doc} (spec kinds: {', '.join(kinds_of(name))}; parameters: "
                                              f"{params}; specs/README.md)")
    return out


RULES = _rules()
"""Rule id -> its SARIF ``reportingDescriptor``, generated from the registry."""


def write_sarif(rows: list[Row], path: str) -> None:
    with atomic_open(path) as f:
        json.dump(to_sarif(rows), f, indent=2)
        f.write("\n")
