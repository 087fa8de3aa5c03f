"""The bank modules' layout: ``layoutcheck.banks`` re-exports every name it had before the split, imports flow one way
(model <- access <- properties), importing it loads no solver, and a bank property's handlers are registered as soon
as its module is imported."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

import layoutcheck
import layoutcheck.banks as banks

PKG = Path(layoutcheck.__file__).parent

HOMES = {
    "layoutcheck.bank_model": ("PhaseReport", "breakdown", "ideal", "ideal_batch", "wavefronts", "wavefronts_batch"),
    "layoutcheck.bank_gf2": ("gf2_wavefronts",),
    "layoutcheck.index_expr": ("eval_expr", "parse_expr"),
    "layoutcheck.bank_access": ("Access", "BankAnalysis", "access_from_expr", "access_from_fn", "access_from_tv",
                                "analyze", "byte_addresses", "column_access", "default_access", "elems_per_address",
                                "matrix_access", "row_access", "vector_access"),
    "layoutcheck.bank_properties": ("ConflictFree", "ConflictFreeAtEveryBase", "WavefrontCount", "conflict_free",
                                    "conflict_free_at_every_base", "wavefront_count"),
    "layoutcheck.smem_atoms": ("GmemRuns", "LINE_BYTES", "SECTOR_BYTES", "choose_smem_atom", "gmem_runs"),
    # imported by banks.py before the split (``spec.py`` reaches ``banks.access_kind``)
    "layoutcheck.hw.banks": ("BANKS", "BANK_BYTES", "AccessKind", "access_kind"),
    "layoutcheck.hw.smem": ("SWIZZLE_SPAN_BYTES", "SmemAtom", "gmma_smem_atom"),
    "layoutcheck.properties": ("Decision", "Property", "Subject", "Undecided", "as_subject", "inner"),
    "layoutcheck.errors": ("LayoutError",),
    "layoutcheck.inttuple": ("product",),
    "layoutcheck.layout": ("Layout", "size"),
    "layoutcheck.swizzle": ("ComposedLayout", "Swizzle"),
}

# what each bank module may import from the others (the one-way chain; ``banks`` itself is imported by none)
ALLOWED = {
    "bank_model": set(),
    "bank_gf2": set(),
    "index_expr": set(),
    "bank_access": {"bank_model", "index_expr"},
    "bank_properties": {"bank_model", "bank_gf2", "bank_access"},
    "smem_atoms": set(),
}


@pytest.mark.parametrize(("home", "name"), [(h, n) for h, ns in HOMES.items() for n in ns])
def test_every_name_is_reexported_from_its_home(home: str, name: str) -> None:
    assert getattr(banks, name) is getattr(import_module(home), name)


def test_all_lists_exactly_the_reexports() -> None:
    assert sorted(banks.__all__) == sorted(n for ns in HOMES.values() for n in ns)


def _bank_imports(module: str) -> set[str]:
    """The sibling modules of ``layoutcheck`` that ``module`` imports (relative imports, at any depth of the file)."""
    tree = ast.parse((PKG / f"{module}.py").read_text())
    found = {node.module.split(".")[0] for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module}
    return found & (set(ALLOWED) | {"banks"})


@pytest.mark.parametrize("module", sorted(ALLOWED))
def test_imports_flow_one_way(module: str) -> None:
    assert _bank_imports(module) <= ALLOWED[module]


def test_fresh_imports_load_no_solver_and_register_handlers() -> None:
    """In a fresh interpreter: ``import layoutcheck.banks`` loads neither z3 nor SymPy; importing the properties
    module alone registers the linear and z3 handlers; ``layoutcheck.wavefronts`` is still the function."""
    code = (
        "import sys, layoutcheck.banks\n"
        "print('z3' in sys.modules, 'sympy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]
    code = (
        "import layoutcheck, layoutcheck.bank_properties as bp\n"
        "from layoutcheck.engines.linear import LINEAR\n"
        "from layoutcheck.engines.z3_engine import Z3\n"
        "print(bp.ConflictFree in LINEAR.handlers, bp.ConflictFreeAtEveryBase in Z3.handlers,\n"
        "      layoutcheck.wavefronts is layoutcheck.bank_model.wavefronts)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "True", "True"]
