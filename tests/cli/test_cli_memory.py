"""``--memory`` on ``check`` and ``prove``: the exhaustive engine's budget, settable by the user."""

from __future__ import annotations

import pytest

from layoutcheck.cli import main
from layoutcheck.cli_args import _memory_size

SW = "Sw<3,4,3> o (1024,1024):(1024,1)"


@pytest.mark.parametrize(("text", "value"), [("512M", 512 << 20), ("8G", 8 << 30), ("2GiB", 2 << 30),
                                             ("1.5k", 1536), ("4096", 4096)])
def test_memory_sizes_parse(text: str, value: int) -> None:
    assert _memory_size(text) == value


def test_a_small_budget_is_unknown_and_says_how_to_raise_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", SW, "--property", "bijective", "--engine", "exhaustive", "--memory", "1M"]) == 3
    assert "raise it with --memory" in capsys.readouterr().out
    assert main(["prove", SW, "--property", "bijective", "--engine", "exhaustive", "--memory", "64M"]) == 0


def test_a_bad_size_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", SW, "--property", "bijective", "--memory", "lots"]) == 2
    assert "512M" in capsys.readouterr().err


def test_check_takes_memory(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(f'format = 1\n[[config]]\nname = "sw"\nkind = "layout"\nlayout = "{SW}"\n'
                    'properties = ["bijective"]\n')
    assert main(["check", str(spec), "-q", "--engine", "exhaustive", "--memory", "1M"]) == 3
    assert main(["check", str(spec), "-q", "--engine", "exhaustive", "--memory", "1G"]) == 0
