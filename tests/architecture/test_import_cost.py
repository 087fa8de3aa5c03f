"""``import layoutcheck``, ``--help`` and ``calc`` need only the algebra: NumPy (80 % of the old import time), z3,
SymPy and CuPy load on first use. Checked in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HEAVY = ("numpy", "z3", "sympy", "cupy")


def _loaded_after(code: str) -> list[str]:
    probe = f"import sys\n{code}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_import_layoutcheck_loads_no_numpy() -> None:
    assert _loaded_after("import layoutcheck; layoutcheck.Layout((4, 2), (2, 1))(5)") == []


def test_help_and_calc_load_no_numpy() -> None:
    code = ("import contextlib, io\nfrom layoutcheck.cli import main\nwith contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['--help']); main(['calc', 'right_inverse(((4,8),(2,2)):((32,1),(16,8)))'])")
    assert _loaded_after(code) == []


def test_numpy_ints_are_still_accepted() -> None:
    assert _loaded_after("import numpy, layoutcheck\nassert str(layoutcheck.Layout(numpy.int64(4))) == '4:1'") == \
        ["numpy"]


def test_check_loads_z3_only_for_a_z3_query() -> None:
    """``check`` of specs every claim of which an earlier engine decides imports neither z3 nor SymPy; a size-range
    claim (``specs/ragged.toml``) needs z3."""
    code = ("import contextlib, io\nfrom layoutcheck.cli import main\nwith contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['check', '-q', {!r}])")
    specs = Path(__file__).resolve().parents[2] / "specs"
    assert _loaded_after(code.format(str(specs / "sm80_gemm.toml"))) == ["numpy"]
    assert _loaded_after(code.format(str(specs / "ragged.toml"))) == ["numpy", "z3"]


def test_checking_the_corpus_loads_no_report_or_hint_modules() -> None:
    """The check core (what ``check`` runs before writing any report) loads neither the report writers' modules
    (layoutcheck's, JUnit's XML) nor difflib (only a misspelt name asks for a hint). ``json`` it may: the spec loader
    reads plain TOML through ``json.loads`` (``spec/plain_toml.py``; 1.6 ms to import, a third of ``tomllib``'s time
    on every spec)."""
    specs = Path(__file__).resolve().parents[2] / "specs"
    code = f"from layoutcheck.check import check_paths\nassert check_paths([{str(specs)!r}])"
    probe = (f"import sys\n{code}\nprint(' '.join(m for m in sys.modules if m in ('xml.etree', 'difflib') "
             f"or m.startswith('layoutcheck.report')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == []


def test_a_wgmma_config_builds_only_its_atoms() -> None:
    """Hardware tables are built on first use, per entry: checking the SM90 data paths builds the few wgmma atoms
    they name, not the table of 912."""
    spec = Path(__file__).resolve().parents[2] / "specs" / "datapath_sm90.toml"
    probe = (f"from layoutcheck.check import check_paths\nassert check_paths([{str(spec)!r}])\n"
             "from layoutcheck.hw.wgmma import wgmma_atom, wgmma_atoms\n"
             "print(wgmma_atom.cache_info().currsize, wgmma_atoms.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    built, table = map(int, out.stdout.split())
    assert 1 <= built <= 8 and table == 0
