"""Semantics of ``on_tile``: ``memory`` reads every element of ``tile`` at that element's own coordinate.

Authority: CuTe's colexicographic coordinates (``idx2crd``: the first mode fastest; past the domain the last mode
takes the remainder). ``memory o tv`` presumes that the tile index a TV map yields, read by ``memory``, is the same
tile element: for every ``i < size(tile)``, ``i``'s coordinate over ``tile`` equals its coordinate over the sizes
of ``memory``'s top-level modes, and ``i < size(memory)``; a rank-1 ``memory`` reads the flat index (only
``i < size(memory)``). The oracle loops; it shares no code with ``layoutcheck.properties``.
"""

from __future__ import annotations

from hypothesis import given

from layoutcheck.engines.prove import prove
from layoutcheck.properties.composition import on_tile
from tests.strategies_sem_on_tile import tiles_and_memories


def _size(mode) -> int:
    if isinstance(mode, tuple):
        n = 1
        for m in mode:
            n *= _size(m)
        return n
    return mode


def _colex(i: int, extents: list[int]) -> list[int]:
    out = []
    for e in extents[:-1]:
        out.append(i % e)
        i //= e
    return [*out, i]


def first_misread(memory, tile) -> dict | None:
    shape = memory.shape if isinstance(memory.shape, tuple) else (memory.shape,)
    ext = [_size(m) for m in shape]
    n_mem, n_tile = _size(tuple(ext)), _size(tuple(tile))
    if len(ext) == 1:
        return None if n_mem >= n_tile else {"kind": "coord", "i": n_mem}
    if len(ext) != len(tile):
        return {"kind": "rank"}
    for i in range(n_tile):
        if i >= n_mem or _colex(i, ext) != _colex(i, list(tile)):
            return {"kind": "coord", "i": i}
    return None


@given(tiles_and_memories())
def test_on_tile_equals_the_naive_reading(case):
    memory, tile = case
    want = first_misread(memory, tile)
    res = prove(on_tile(memory, tile))
    assert res.status.value == ("PROVEN" if want is None else "REFUTED"), (memory, tile, want, res)
    if want is not None:
        got = res.counterexample.data
        assert got["kind"] == want["kind"] and got.get("i") == want.get("i"), (memory, tile, got, want)


def test_a_broken_memory_layout_is_refuted():
    from layoutcheck.algebra.layout import Layout

    assert first_misread(Layout((8, 16), (1, 8)), (16, 8)) == {"kind": "coord", "i": 8}
    assert prove(on_tile(Layout((8, 16), (1, 8)), (16, 8))).counterexample.data["i"] == 8
    assert prove(on_tile(Layout(((4, 4), 8), ((1, 4), 16)), (16, 8))).proven
