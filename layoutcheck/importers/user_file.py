"""A user's Python file imported as a module, as the kernel launchers do (``layoutcheck triton``, ``cute-dsl``).

The module is registered in ``sys.modules`` under a name derived from the file's resolved path (Triton's JIT and the
CuTe DSL look a kernel's globals up through its module) and executed anew on every call, so a rewritten file is
read again: nothing is cached by the path.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from layoutcheck.errors import UsageError


def import_user_file(path: Path, prefix: str, tool: str) -> ModuleType:
    """Execute ``path`` as a fresh module named ``_layoutcheck_<prefix>_<hash of the path>``; ``UsageError`` naming
    ``tool`` when the file does not exist. Exceptions the file raises while executing propagate."""
    if not path.is_file():
        raise UsageError(f"{tool}: no such file {str(path)!r}")
    mod_name = f"_layoutcheck_{prefix}_{abs(hash(str(path.resolve())))}"
    module_spec = importlib.util.spec_from_file_location(mod_name, path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[mod_name] = module
    module_spec.loader.exec_module(module)
    return module


__all__ = ["import_user_file"]
