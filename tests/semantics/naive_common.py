"""Naive helpers shared by the semantics oracles of TMA boxes, tensor memory, linear layouts, composition, swizzles,
scale ownership, ``vectorizable`` and ``equivalent``: CuTe's colexicographic evaluation, CuTe's ``Swizzle``, CuTe
notation, and the one public entry a semantics test may call (``check_property`` on a spec's text).

Written from CuTe's definitions (``include/cute/layout.hpp`` ``crd2idx``/``idx2crd``, ``include/cute/swizzle.hpp``),
sharing no code with ``layoutcheck.properties``, ``.models`` or ``.engines``: plain Python loops over plain tuples.
"""

from __future__ import annotations

from typing import Any

ENGINES = ("auto", "structural", "linear", "exhaustive", "z3", "sympy")
"""Every engine by name; a semantics test asks each one and compares the decided verdicts with the naive one."""


def flat(t: Any) -> tuple[int, ...]:
    """The leaves of a nested int tuple, left to right."""
    return (t,) if isinstance(t, int) else tuple(x for s in t for x in flat(s))


def prod(t: Any) -> int:
    out = 1
    for x in flat(t):
        out *= x
    return out


def text(t: Any) -> str:
    """CuTe notation of a nested int tuple: ``(4,(2,3))``."""
    return str(t) if isinstance(t, int) else "(" + ",".join(text(x) for x in t) + ")"


def layout_text(shape: Any, stride: Any, swizzle: tuple[int, int, int] | None = None) -> str:
    """``Sw<B,M,S> o (shape):(stride)`` (no swizzle prefix when ``swizzle`` is None)."""
    body = f"{text(shape)}:{text(stride)}"
    return body if swizzle is None else f"Sw<{swizzle[0]},{swizzle[1]},{swizzle[2]}> o {body}"


def colex(shape: Any, stride: Any, i: int) -> int:
    """``L(i)``: ``i``'s colexicographic coordinate over the flat leaves (first leaf fastest), dotted with the strides;
    the last leaf takes any remainder, as C++ ``crd2idx`` evaluates an index past the domain."""
    s, d = flat(shape), flat(stride)
    out = 0
    for k, (n, x) in enumerate(zip(s, d, strict=True)):
        c = i if k == len(s) - 1 else i % n
        i = 0 if k == len(s) - 1 else i // n
        out += c * x
    return out


def offsets(shape: Any, stride: Any) -> list[int]:
    """``[L(0), ..., L(size-1)]``."""
    return [colex(shape, stride, i) for i in range(prod(shape))]


def swizzle(b: int, m: int, s: int, x: int) -> int:
    """CuTe ``Swizzle<B,M,S>``: XOR the ``B`` bits at ``M + max(0,S)`` into the bits ``S`` below (above, for S < 0)."""
    if b == 0:
        return x
    yyy = ((1 << b) - 1) << (m + max(0, s))
    moved = x & yyy
    return x ^ (moved >> s if s >= 0 else moved << -s)


def verdict_event(want: str) -> None:
    """Record the naive verdict as a Hypothesis event (``--hypothesis-show-statistics`` shows the split)."""
    from contextlib import suppress

    from hypothesis import event
    from hypothesis.errors import InvalidArgument

    with suppress(InvalidArgument):  # called outside a Hypothesis test (a hand-picked case)
        event(f"naive {want}")


def scaled(fraction: float) -> Any:
    """``@settings`` with ``fraction`` of the loaded profile's examples (the ci profile's 150, dev's 400)."""
    from hypothesis import settings

    return settings(max_examples=max(10, int(settings().max_examples * fraction)))


def spec_rows(body: str, engines: tuple[str, ...] = ENGINES) -> dict[str, Any]:
    """``{engine: Row}`` for the single property of the single config in spec ``body`` (the text after
    ``format = 1``), through ``layoutcheck.check.check_property``: the core of ``layoutcheck check``."""
    from types import SimpleNamespace

    from layoutcheck.check import check_property
    from layoutcheck.errors import SpecError
    from layoutcheck.spec.load import parse_spec

    try:
        cfg = parse_spec("format = 1\n" + body).configs[0]
    except SpecError as e:  # the spec's schema refuses a value: the ERROR row `layoutcheck check` prints
        return {k: SimpleNamespace(status="ERROR", reason=str(e), counterexample=None, counterexample_data={})
                for k in engines}
    (req,) = cfg.properties
    return {e: check_property(cfg, req, engine=e) for e in engines}


def agree(rows: dict[str, Any], naive: bool, what: str) -> None:
    """Every engine that decides says what the naive oracle says; ``auto`` decides."""
    want = "PROVEN" if naive else "REFUTED"
    verdict_event(want)
    assert rows["auto"].status == want, (what, want, {e: (r.status, r.reason) for e, r in rows.items()})
    for e, r in rows.items():
        assert r.status in (want, "UNKNOWN"), (what, e, want, r.status, r.reason, r.counterexample)
