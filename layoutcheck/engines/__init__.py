"""Engines that decide properties: ``structural`` (strides), ``linear`` (GF(2)), ``exhaustive`` (the reference),
``z3``, ``sympy``.

The protocol and the registry are in ``base``; ``load_builtin`` imports the built-in engines (z3 and SymPy are
imported only when their engine first runs a check).
"""

from __future__ import annotations

from layoutcheck.engines.base import AUTO_ORDER, Engine, HandlerEngine, Limits, engines, load_builtin, register_engine

__all__ = ["AUTO_ORDER", "Engine", "HandlerEngine", "Limits", "engines", "load_builtin", "register_engine"]
