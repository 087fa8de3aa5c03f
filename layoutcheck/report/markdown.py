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
from collections.abc import Sequence

from layoutcheck.check_row import Row, exit_code
from layoutcheck.report.verdicts import atomic_open, summary

MAX_DETAIL = 300
MAX_ROWS = 100
_ORDER = {"ERROR": 0, "REFUTED": 1, "UNKNOWN": 2, "PROVEN": 3}


def to_markdown(rows: Sequence[Row], inputs: list[str] | None = None) -> str:
    """The Markdown summary of ``rows`` (``inputs``: the paths checked, named in the header). One pass over ``rows``
    keeping only what is listed (at most ``MAX_ROWS`` rows of each status), so a spooled run stays flat."""
    from layoutcheck.version import __version__

    s = summary(rows)
    bad = [f"{s[k]} {k.lower()}" for k in ("REFUTED", "ERROR", "UNKNOWN") if s[k]]
    title = ", ".join(bad) if bad else f"all {len(rows)} proven"
    kept: dict[str, list[Row]] = {k: [] for k in _ORDER}
    seen: dict[str, None] = {}
    for r in rows:
        if len(kept[r.status]) < MAX_ROWS:
            kept[r.status].append(r)
        if inputs is None:
            seen.setdefault(r.file)
    files = inputs if inputs is not None else list(seen)
    shown = ", ".join(f"`{_code(f)}`" for f in files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
    out = [f"### layoutcheck: {title} (exit {exit_code(rows)})", "",
           f"{len(rows)} checks: " + ", ".join(f"{n} {k.lower()}" for k, n in s.items())
           + f" · layoutcheck {__version__}" + (f" · {shown}" if shown else ""), ""]
    failing = [r for k in sorted(_ORDER, key=_ORDER.__getitem__) if k != "PROVEN" for r in kept[k]]
    if failing:
        out += _table(failing, len(rows) - s["PROVEN"])
    if s["PROVEN"]:
        out += ["", f"<details><summary>{s['PROVEN']} proven</summary>", "", *_table(kept["PROVEN"], s["PROVEN"]), "",
                "</details>"]
    return "\n".join(out) + "\n"


def _table(rows: list[Row], total: int) -> list[str]:
    """The first ``MAX_ROWS`` of ``rows`` (``total`` of them in all) as a pipe table."""
    out = ["| verdict | config | property | where | counterexample / reason |", "|---|---|---|---|---|"]
    for r in rows[:MAX_ROWS]:
        detail = r.counterexample if r.status == "REFUTED" else (r.reason or "")
        engine = f" ({_cell(r.engine)})" if r.engine else ""
        out.append(f"| **{r.status}**{engine} | {_cell(r.config)} | {_cell(r.property)} | `{_code(r.file)}:{r.line}` "
                   f"| {_cell(detail or '')} |")
    if total > MAX_ROWS:
        out.append(f"\n... and {total - MAX_ROWS} more (the full list is in the table `check` printed)")
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


def write_markdown(rows: Sequence[Row], path: str) -> None:
    with atomic_open(path) as f:
        f.write(to_markdown(rows))
