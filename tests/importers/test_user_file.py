"""A user's file imported as the launchers do: executed anew on every call (a rewritten file is read again)."""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutcheck.errors import UsageError
from layoutcheck.importers.user_file import import_user_file


def test_a_rewritten_file_is_executed_again(tmp_path: Path) -> None:
    f = tmp_path / "k.py"
    f.write_text("X = 1\n")
    assert import_user_file(f, "t", "tool").X == 1
    f.write_text("X = 2\n")
    assert import_user_file(f, "t", "tool").X == 2


def test_a_missing_file_names_the_tool(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cute-dsl: no such file"):
        import_user_file(tmp_path / "nope.py", "t", "cute-dsl")
