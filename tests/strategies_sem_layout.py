"""Hypothesis strategies for the layout / TV-map / tiled-MMA semantics suite (``tests/semantics/test_sem_layout.py``).

They *build* adversarial inputs, named after what they guarantee: layouts with stride 0, negative strides and nested
modes; TV maps whose size is not ``k * size(tile)``, that replicate through a stride-0 thread mode or (wrongly) a
stride-0 value mode, or that run outside the tile; tiled-MMA configs whose ``atom_layout`` splits K, whose
permutations are tilers that are not bijections, and whose tiles are not multiples of their atoms.
"""

from __future__ import annotations

from hypothesis import strategies as st

from layoutcheck import Layout

STRIDES = st.integers(-9, 9)


@st.composite
def flat_modes(draw, max_modes: int = 3, max_size: int = 6) -> list[tuple[int, int]]:
    """1..max_modes ``(size, stride)`` pairs, strides anywhere in [-9, 9] (0 included)."""
    n = draw(st.integers(1, max_modes))
    return [(draw(st.integers(1, max_size)), draw(STRIDES)) for _ in range(n)]


@st.composite
def layouts(draw) -> Layout:
    """A rank-1..3 layout, sometimes nested, with any strides (stride 0, negative)."""
    ms = draw(flat_modes())
    if len(ms) >= 2 and draw(st.booleans()):  # nest the first two modes
        shape = ((ms[0][0], ms[1][0]), *tuple(s for s, _ in ms[2:]))
        stride = ((ms[0][1], ms[1][1]), *tuple(d for _, d in ms[2:]))
        return Layout(shape, stride)
    return Layout(tuple(s for s, _ in ms), tuple(d for _, d in ms))


def _mode(ms: list[tuple[int, int]]) -> tuple[tuple, tuple]:
    return tuple(s for s, _ in ms), tuple(d for _, d in ms)


@st.composite
def compact_tv_maps(draw) -> tuple[Layout, int]:
    """A TV map that is a bijection onto ``[0, n)``: the modes of a compact layout dealt, shuffled, to T and V."""
    sizes = draw(st.lists(st.integers(2, 4), min_size=2, max_size=4))
    strides, acc = [], 1
    for s in sizes:
        strides.append(acc)
        acc *= s
    modes = draw(st.permutations(list(zip(sizes, strides, strict=True))))
    cut = draw(st.integers(1, len(modes) - 1))
    t, v = _mode(list(modes[:cut])), _mode(list(modes[cut:]))
    return Layout((t[0], v[0]), (t[1], v[1])), acc


@st.composite
def covers(draw) -> tuple[Layout, tuple[int, ...], int]:
    """``(tv, tile, k)``: a bijection, then perhaps replicated by a stride-0 thread mode of size ``r`` (or a wrong
    stride-0 *value* mode), perhaps with one stride perturbed, and claimed with a ``k`` that may not match."""
    tv, n = draw(compact_tv_maps())
    (ts, vs), (td, vd) = tv.shape, tv.stride
    r = draw(st.sampled_from([1, 1, 2, 3]))
    if r > 1:
        if draw(st.integers(0, 3)) == 0:  # replication in the value mode: one thread owns an element r times
            vs, vd = (*vs, r), (*vd, 0)
        else:
            pos = draw(st.integers(0, len(ts)))
            ts, td = (*ts[:pos], r, *ts[pos:]), (*td[:pos], 0, *td[pos:])
    if draw(st.integers(0, 3)) == 0:  # break a stride (a collision, a gap or a run outside the tile)
        flat = list(td + vd)
        flat[draw(st.integers(0, len(flat) - 1))] = draw(STRIDES)
        td, vd = tuple(flat[:len(td)]), tuple(flat[len(td):])
    k = draw(st.sampled_from([r, r, 1, 2, 3]))
    if draw(st.integers(0, 5)) == 0:  # a tile of the wrong size
        n += draw(st.sampled_from([-1, 1, n]))
    tile = draw(st.sampled_from([(n,), (n,)] + [(a, n // a) for a in (2, 3, 4) if n % a == 0]))
    return Layout((ts, vs), (td, vd)), tile, k


ATOMS = ["SM80_16x8x16_F32F16F16F32_TN", "SM80_8x8x4_F64F64F64F64_TN", "UniversalFMA"]


@st.composite
def tiled_mma_configs(draw) -> dict:
    """A ``tiled_mma`` spec config: any atom of ``ATOMS``, an int ``atom_layout`` (K split included), permutations
    that are ints, ``None`` or tiler layouts (``(a,b):(b',1)``-style, bijective or not, stride 0 included), and a
    tile that may not be a multiple of the atoms (or of the permutation)."""
    atom = draw(st.sampled_from(ATOMS))
    fma = atom == "UniversalFMA"
    al = [draw(st.integers(1, 4 if fma else 2)) for _ in range(2)] + [draw(st.sampled_from([1, 1, 2]))]
    am, an, ak = {"SM80_16x8x16_F32F16F16F32_TN": (16, 8, 16), "SM80_8x8x4_F64F64F64F64_TN": (8, 8, 4),
                  "UniversalFMA": (1, 1, 1)}[atom]
    perm: list = []
    for ext, n in ((am, al[0]), (an, al[1])):
        kind = draw(st.integers(0, 3))
        cover = ext * n
        if kind == 0:
            perm.append("_")
        elif kind == 1:
            perm.append(cover * draw(st.sampled_from([1, 2])))
        else:
            a = cover
            b = draw(st.sampled_from([1, 2]))
            # (a,b):(b,1) is a permutation; (a,b):(2b,1) a spread tiler; (a,b):(b+1,1) an injective tiler whose
            # complement CuTe floors (some rows never reached); stride 0 broadcasts; (a,b):(1,1) is not injective
            s = draw(st.sampled_from([b, 2 * b, b + 1, 0, 1]))
            perm.append(f"({a},{b}):({s},1)")
    perm.append("_")
    tm = draw(st.sampled_from([1, 2, 3])) * (am * al[0]) * 2 + draw(st.sampled_from([0, 0, 0, am // 2 or 1]))
    tn = draw(st.sampled_from([1, 2])) * (an * al[1]) * 2
    tk = ak * al[2] * draw(st.sampled_from([1, 2]))
    return {"atom": atom, "atom_layout": al, "permutation": perm, "tile": [tm, tn, tk],
            "operand": draw(st.sampled_from(["C", "C", "A", "B"])),
            "replication": draw(st.sampled_from([None, None, 1, 2]))}
