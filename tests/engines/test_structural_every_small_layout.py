"""The structural engine against brute force on *every* small layout: all 2-mode layouts with extents 1..4 and
strides -5..8, all 3-mode layouts with extents 2..3 and strides -2..5, and the 2-mode ones under three swizzles. Each
rule's boundary (``p < s_a``, ``q < s_b``, the chain's ``>``, the range's ends, the count) is met by some layout
here, so a constant off by one in a rule makes a verdict differ from brute force. Decided verdicts must equal
brute force; a declined claim (UNKNOWN) is allowed."""

from __future__ import annotations

import itertools

from layoutcheck.algebra.layout import Layout
from layoutcheck.algebra.swizzle import ComposedLayout, Swizzle
from layoutcheck.engines.prove import prove
from layoutcheck.properties.layout import bijective, in_bounds, injective, surjective
from layoutcheck.result import Verdict


def _brute(offs: list[int], prop: str, n: int) -> bool:
    if prop == "injective":
        return len(set(offs)) == len(offs)
    if prop == "bijective":
        return sorted(offs) == list(range(n))
    if prop == "surjective":
        return set(range(n)) <= set(offs) and all(0 <= y < n for y in offs)
    return all(0 <= y < n for y in offs)


def _check(x: object, offs: list[int]) -> list[str]:
    bad = []
    size = len(offs)
    for prop, n, claim in (("injective", size, injective(x)), ("bijective", size, bijective(x, size)),
                           ("in_bounds", size, in_bounds(x, size)), ("in_bounds", size + 1, in_bounds(x, size + 1)),
                           ("surjective", max(1, size // 2), surjective(x, max(1, size // 2)))):
        r = prove(claim, engine="structural")
        if r.status is Verdict.UNKNOWN:
            continue
        if (r.status is Verdict.PROVEN) != _brute(offs, prop, n):
            bad.append(f"{prop}({x}, {n}): structural {r.status.value}")
    return bad


def test_every_two_mode_layout() -> None:
    bad = []
    for sa, sb in itertools.product(range(1, 5), repeat=2):
        for da, db in itertools.product(range(-5, 9), repeat=2):
            lay = Layout((sa, sb), (da, db))
            bad += _check(lay, lay.offsets().tolist())
    assert not bad, bad[:10]


def test_every_three_mode_layout() -> None:
    bad = []
    for shape in itertools.product((2, 3), repeat=3):
        for stride in itertools.product(range(-2, 6), repeat=3):
            lay = Layout(shape, stride)
            bad += _check(lay, lay.offsets().tolist())
    assert not bad, bad[:10]


def test_every_two_mode_layout_under_a_swizzle() -> None:
    bad = []
    for sw in (Swizzle(1, 0, 1), Swizzle(1, 1, 2), Swizzle(2, 0, 2)):
        for sa, sb in itertools.product((2, 4), repeat=2):
            for da, db in itertools.product(range(0, 9), repeat=2):
                c = ComposedLayout(sw, 0, Layout((sa, sb), (da, db)))
                bad += _check(c, [c(i) for i in range(sa * sb)])
    assert not bad, bad[:10]


def test_the_prefix_limit_is_the_documented_one() -> None:
    """A chain above a non-chain prefix is decided by enumerating the prefix when it has at most ``2^16`` points
    (``PREFIX_LIMIT``): ``(256,256)`` points are enumerated, ``(256,257)`` are not (declined: UNKNOWN)."""
    at_limit = Layout((256, 256, 2), (255, 256, 10**7))  # the two small modes neither collide nor chain
    over = Layout((256, 257, 2), (255, 256, 10**7))
    assert prove(injective(at_limit), engine="structural").status is Verdict.PROVEN
    r = prove(injective(over), engine="structural")
    assert r.status is Verdict.UNKNOWN, r
    assert prove(injective(over), engine="exhaustive").status is Verdict.PROVEN


def test_a_chain_is_proven_whatever_its_first_mode() -> None:
    """A chain is injective from its first mode on (``chain_start == 0``): no prefix is enumerated, so a first mode
    above the prefix limit does not make the engine decline."""
    for lay in (Layout((100000, 2, 2), (1, 100000, 200000)), Layout((70000, 3, 5), (2, 140000, 420000))):
        r = prove(injective(lay), engine="structural")
        assert r.status is Verdict.PROVEN, r
