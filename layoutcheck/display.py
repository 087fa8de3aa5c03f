"""The notebook renderers the values' ``_repr_svg_`` / ``_repr_html_`` hooks look up (Jupyter calls the hooks).

A value (``Layout``, ``ComposedLayout``, ``MmaAtom``, ``TiledMMA``, ``Result``) lives below the report layer that
draws it, so it cannot import its picture. Its hook asks this registry instead; ``layoutcheck/__init__.py`` fills it
from above with ``layoutcheck.notebook`` (which imports the report layer only when a notebook asks). With no renderer
registered a hook answers ``None``, and Jupyter shows the text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Renderer = Callable[[Any], "str | None"]
HOOKS = ("svg", "html")
_RENDERERS: dict[str, Renderer] = {}


def register(hook: str, renderer: Renderer) -> None:
    """Use ``renderer(value)`` for every value's ``_repr_<hook>_``. Pre: ``hook`` in ``HOOKS``."""
    if hook not in HOOKS:
        raise ValueError(f"unknown notebook hook {hook!r}: expected one of {', '.join(HOOKS)}")
    _RENDERERS[hook] = renderer


def render(value: Any, hook: str) -> str | None:
    """``value``'s picture for ``_repr_<hook>_``, or ``None`` (the text) when no renderer is registered."""
    renderer = _RENDERERS.get(hook)
    return None if renderer is None else renderer(value)
