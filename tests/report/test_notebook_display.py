"""``display`` (the hook registry values ask) and ``notebook`` (the renderers ``layoutcheck`` registers there)."""

from __future__ import annotations

import pytest

from layoutcheck import display, notebook
from layoutcheck.algebra.layout import Layout
from layoutcheck.hw.mma import mma_atom


def test_an_unknown_hook_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown notebook hook 'png'"):
        display.register("png", lambda v: None)


def test_render_uses_the_registered_renderer_and_none_without_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(display, "_RENDERERS", {})
    assert display.render(Layout(4, 1), "svg") is None
    display.register("svg", lambda v: f"<svg>{v}</svg>")
    assert display.render(Layout(4, 1), "svg") == "<svg>4:1</svg>"


def test_notebook_draws_layouts_and_atoms_and_declines_the_rest() -> None:
    assert "<svg" in notebook.svg(Layout((4, 8), (8, 1)))
    assert "<svg" in notebook.html(mma_atom("SM80_16x8x16_F32F16F16F32_TN"))
    assert notebook.svg("not a layout") is None and notebook.html(3) is None


def test_register_fills_both_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(display, "_RENDERERS", {})
    notebook.register()
    assert set(display._RENDERERS) == set(display.HOOKS)
