"""Semantics of ``vectorizable``: a naive oracle from the claim's definition and CuTe's TV convention.

Authority: CuTe's thread-value layouts (``(thread, value) -> offset``, colexicographic: index ``t + T * v``) and the
PTX ISA's vector accesses (``ld/st.v2/.v4``, 16-byte ``ld.shared.v4.b32``: the address aligned to the access size).
Definition: with ``W = width_bytes / dtype_bytes``, thread ``t``'s values ``g*W .. g*W + W - 1`` sit at consecutive
offsets ``o, o+1, ..., o+W-1`` with ``o % W == 0`` (the element offset aligned to the vector), for every thread and
every vector ``g``; a value count that is not a multiple of ``W`` cannot be stated (an ERROR row).

The oracle is a plain loop; it shares no code with ``layoutcheck.properties``, ``.models`` or ``.engines`` and
reaches the claim only through ``check_property`` on a spec's text.
"""

from __future__ import annotations

from hypothesis import given

from tests.semantics.naive_common import agree, colex, layout_text, prod, scaled, spec_rows, swizzle
from tests.strategies_sem_swizzle import tv_maps

DTYPE = {1: "u8", 2: "f16", 4: "f32", 8: "f64"}


def naive(width: int, es: int, shape: tuple, stride: tuple, sw: tuple | None) -> bool:
    w, nt, nv = width // es, prod(shape[0]), prod(shape[1])
    f = (lambda i: swizzle(*sw, colex(shape, stride, i))) if sw else (lambda i: colex(shape, stride, i))
    for t in range(nt):
        for g in range(nv // w):
            run = [f(t + nt * (g * w + j)) for j in range(w)]
            if run[0] % w or any(run[j] != run[0] + j for j in range(w)):
                return False
    return True


def spec(width: int, es: int, shape: tuple, stride: tuple, sw: tuple | None) -> str:
    return (f'[[config]]\nname = "c"\nkind = "layout"\nlayout = "{layout_text(shape, stride, sw)}"\n'
            f'dtype = "{DTYPE[es]}"\nproperties = [{{ name = "vectorizable", width = {width} }}]\n')


@scaled(0.5)
@given(tv_maps())
def test_every_engine_agrees_with_the_naive_vectors(case: tuple) -> None:
    width, es, shape, stride, sw, _ = case
    agree(spec_rows(spec(width, es, shape, stride, sw)), naive(width, es, shape, stride, sw), case)


def test_broken_variant_is_refuted() -> None:
    """The m16n8k16 C fragment stored row-major (seed 001): each thread's c0,c1 form one 8-byte f32 vector; the
    column-major store of the same fragment does not."""
    good = ((4, 8), (2, 2)), ((2, 8), (1, 64))
    bad = ((4, 8), (2, 2)), ((32, 1), (16, 8))
    assert naive(8, 4, *good, None) and not naive(8, 4, *bad, None)
    agree(spec_rows(spec(8, 4, *good, None)), True, good)
    agree(spec_rows(spec(8, 4, *bad, None)), False, bad)
