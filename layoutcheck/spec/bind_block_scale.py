"""Binding of the ``scale_factors`` spec kind (issue #27) to ``layoutcheck.properties.block_scale``.

    ==================  ============================================================================================
    property            subject
    ==================  ============================================================================================
    scale_agreement     the ``producer``'s and the ``consumer``'s scale layouts of one ``mn x k`` operand (each a
                        name of ``hw.block_scale.SCALE_LAYOUTS`` or CuTe text ``(mn, k) -> byte``; ``vec`` per side
                        in a table ``{ layout, vec }``, else the config's)
    scale_follows_tile  ``scheduler`` (default ``plain``) over ``grids``, the CTA tile ``tile = [BM, BN]``, the scale
                        layout ``scale_layout`` (a name or CuTe text; default ``128x4``) of ``operand`` (default
                        ``A``), scales taken from ``reads`` = ``scheduled`` (default) or ``block_index``
    ==================  ============================================================================================
"""

from __future__ import annotations

from typing import Any

from layoutcheck.errors import LayoutError, SpecError
from layoutcheck.spec.schema import Config, PropertyRequest
from layoutcheck.spec.values import one_line

_AGREEMENT_KEYS = ("mn", "producer", "consumer")
_FOLLOWS_KEYS = ("operand", "scale_layout", "tile", "grids", "scheduler", "log", "group", "ctas",
                 "drop_partial_group", "reads")


def bind_scale_factors(fn: Any, cfg: Config, req: PropertyRequest) -> Any:
    try:
        if req.name == "scale_agreement":
            return _agreement(fn, cfg)
        return _follows(fn, cfg)
    except LayoutError as e:
        raise SpecError(f"{cfg.file}:{req.line or cfg.line}: config {cfg.name!r}: property {req.name!r}: "
                        f"{one_line(e)}") from None


def _unread(cfg: Config, prop: str, keys: tuple[str, ...]) -> None:
    """A key the property does not read is an error, never silently ignored."""
    for k, _ in cfg.values:
        if k in keys:
            raise cfg.error(k, f"property {prop!r} does not read {k!r}")


def _agreement(fn: Any, cfg: Config) -> Any:
    _unread(cfg, "scale_agreement", _FOLLOWS_KEYS)
    for key in _AGREEMENT_KEYS:
        if cfg.get(key) is None:
            raise cfg.error(key, f"property 'scale_agreement' needs {key!r}")
    mn, k, vec = cfg.get("mn"), cfg.get("k"), cfg.get("vec")
    return fn(_side(cfg, "producer", mn, k, vec), _side(cfg, "consumer", mn, k, vec))


def _side(cfg: Config, key: str, mn: int, k: int, vec: int) -> Any:
    from layoutcheck.models.block_scale import ScaleLayout, scale_layout

    name, own_vec = cfg.get(key)
    v = vec if own_vec is None else own_vec
    try:
        lay = _hand_written(name)
        return scale_layout(name, mn, k, v) if lay is None else ScaleLayout(name, mn, k, v, lay)
    except (LayoutError, ValueError) as e:
        raise cfg.error(key, one_line(e)) from None


def _hand_written(name: str) -> Any:
    """``None`` for a named scale layout, the parsed ``Layout`` for CuTe text; an unknown name is an error."""
    from layoutcheck.algebra.layout import Layout
    from layoutcheck.hw.block_scale import SCALE_LAYOUTS
    from layoutcheck.spec.values import parse_value

    if name in SCALE_LAYOUTS:
        return None
    if ":" not in name:
        raise LayoutError(f"unknown scale layout {name!r}: expected one of {', '.join(SCALE_LAYOUTS)} or CuTe text "
                          "(mn, k) -> byte")
    lay = parse_value("layout", name)
    if not isinstance(lay, Layout):
        raise LayoutError(f"a swizzled scale layout is not modelled, found {lay}")
    return lay


def _follows(fn: Any, cfg: Config) -> Any:
    from layoutcheck.models import schedulers as sched

    _unread(cfg, "scale_follows_tile", _AGREEMENT_KEYS)
    kind = cfg.get("scheduler", "plain")
    params = {k for keys in sched.PARAMETERS.values() for k in keys} - {"tile"}  # `tile`: this kind's own key
    foreign = [k for k, _ in cfg.values if k in params and k not in sched.PARAMETERS[kind]]
    if foreign:
        allowed = ", ".join(sched.PARAMETERS[kind]) or "none"
        raise cfg.error(foreign[0], f"a {kind} scheduler does not read {foreign[0]!r} (its parameters: {allowed})")
    grids, tile, operand = cfg.get("grids"), cfg.get("tile"), cfg.get("operand", "A")
    if grids is None or len(grids) != 2:
        raise cfg.error("grids", "property 'scale_follows_tile' needs grids = { GM = [lo, hi], GN = [lo, hi] }")
    if tile is None or len(tile) != 2:
        raise cfg.error("tile", f"property 'scale_follows_tile' needs the CTA tile [BM, BN], found {tile}")
    if operand not in ("A", "B"):
        raise cfg.error("operand", f"scale factors belong to operand A or B, found {operand!r}")
    try:
        s = sched.TileScheduler(kind, cfg.get("log", 0), cfg.get("group", 8), cfg.get("ctas", 1),
                                cfg.get("drop_partial_group", False))
    except LayoutError as e:
        raise cfg.error("scheduler", one_line(e)) from None
    name = cfg.get("scale_layout", "128x4")
    try:
        custom = _hand_written(name)
    except (LayoutError, ValueError) as e:
        raise cfg.error("scale_layout", one_line(e)) from None
    return fn(s, tuple(r for _, r in grids), operand, tile, cfg.get("k"), cfg.get("vec"), name,
              cfg.get("reads", "scheduled"), custom)
