"""The Markdown summary of ``layoutcheck check --markdown FILE``: for a pull-request comment or GitHub's
``$GITHUB_STEP_SUMMARY`` (GitHub-flavoured Markdown: pipe tables, ``<details>``).

Layout, most useful first::

    ### layoutcheck: 1 refuted, 1 error (exit 2)
    12 checks: 10 proven, 1 refuted, 0 unknown, 1 error · layoutcheck 0.4.0 · specs/, gate.toml

    | verdict | config | property | where | counterexample / reason |     <- every row that is not PROVEN
    ...
    <details><summary>10 proven</summary> ... </details>                  <- the PROVEN rows, folded

A table cell is one line: ``|`` and backslashes are escaped, newlines become spaces, HTML is escaped, and a detail
longer than ``MAX_DETAIL`` characters is cut. At most ``MAX_ROWS`` rows per table are listed (then one line says how
many more), so a summary stays well under GitHub's 64 KiB comment and 1 MiB step-summary limits.
"""

from __future__ import annotations

import html

from layoutcheck.check import Row, exit_code
from layoutcheck.report.verdicts import atomic_open, summary

MAX_DETAIL = 300
MAX_ROWS = 100
_ORDER = {"ERROR": 0, "REFUTED": 1, "UNKNOWN": 2, "PROVEN": 3}


def to_markdown(rows: list[Row], inputs: list[str] | None = None) -> str:
    """The Markdown summary of ``rows`` (``inputs``: the paths checked, named in the header)."""
    from layoutcheck.version import __version__

    s = summary(rows)
    bad = [f"{s[k]} {k.lower()}" for k in ("REFUTED", "ERROR", "UNKNOWN") if s[k]]
    title = ", ".join(bad) if bad else f"all {len(rows)} proven"
    files = inputs if inputs is not None else list(dict.fromkeys(r.file for r in rows))
    shown = ", ".join(f"`{_code(f)}`" for f in files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
    out = [f"### layoutcheck: {title} (exit {exit_code(rows)})", "",
           f"{len(rows)} checks: " + ", ".join(f"{n} {k.lower()}" for k, n in s.items())
           + f" · layoutcheck {__version__}" + (f" · {shown}" if shown else ""), ""]
    failing = sorted((r for r in rows if r.status != "PROVEN"), key=lambda r: _ORDER[r.status])
    if failing:
        out += _table(failing)
    proven = [r for r in rows if r.status == "PROVEN"]
    if proven:
        out += ["", f"<details><summary>{len(proven)} proven</summary>", "", *_table(proven), "", "</details>"]
    return "\n".join(out) + "\n"


def _table(rows: list[Row]) -> list[str]:
    out = ["| verdict | config | property | where | counterexample / reason |", "|---|---|---|---|---|"]
    for r in rows[:MAX_ROWS]:
        detail = r.counterexample if r.status == "REFUTED" else (r.reason or "")
        engine = f" ({_cell(r.engine)})" if r.engine else ""
        out.append(f"| **{r.status}**{engine} | {_cell(r.config)} | {_cell(r.property)} | `{_code(r.file)}:{r.line}` "
                   f"| {_cell(detail or '')} |")
    if len(rows) > MAX_ROWS:
        out.append(f"\n... and {len(rows) - MAX_ROWS} more (the full list is in the table `check` printed)")
    return out


def _cell(text: str) -> str:
    """One table cell: one line, at most ``MAX_DETAIL`` characters, no HTML, no cell breaks."""
    t = " ".join(str(text).split())
    if len(t) > MAX_DETAIL:
        t = t[:MAX_DETAIL - 3] + "..."
    return html.escape(t, quote=False).replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")


def _code(text: str) -> str:
    """Text inside a code span: a backtick would end it."""
    return " ".join(str(text).split()).replace("`", "'").replace("|", "\\|")


def write_markdown(rows: list[Row], path: str) -> None:
    with atomic_open(path) as f:
        f.write(to_markdown(rows))
