"""Engines that decide properties: ``structural`` (strides), ``linear`` (GF(2)), ``exhaustive`` (the reference),
``z3``, ``sympy``.

The protocol and the registry are in ``base``; ``load_builtin`` imports the built-in engines (z3 and SymPy are
imported only when their engine first runs a check).
"""

from __future__ import annotations

from importlib import import_module

from layoutcheck.engines.base import AUTO_ORDER, Engine, HandlerEngine, Limits, engines, register_engine

_BUILTIN = ("structural", "linear", "exhaustive", "z3", "sizes_z3", "sympy")
_loaded = False


def load_builtin() -> None:
    """Import the built-in engine modules once; each registers itself in the ``auto`` order (cheapest first)."""
    global _loaded
    if not _loaded:
        _loaded = True
        for mod in _BUILTIN:
            import_module(f"{__name__}.{mod}")


__all__ = ["AUTO_ORDER", "Engine", "HandlerEngine", "Limits", "engines", "load_builtin", "register_engine"]
