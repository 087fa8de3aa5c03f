"""Hypothesis strategies that *build* Triton linear layouts (``#ttg.linear`` bases) for the semantics oracles of the
GF(2) claims (``tests/semantics/test_sem_linear.py``).

Bases are drawn per input dimension (``register``, ``lane``, ``warp``, ``block``) over a 2-D output of power-of-two
extents, and broken on purpose: a zero basis (broadcast), a basis repeated, a basis that is the XOR of two others
(dependent: a collision), every bit of the output reached or one bit never reached, an input larger than the
output. ``permutation_bases`` builds a bijection (each output bit exactly once, shuffled, XOR-mixed with lower ones)
so the PROVEN side is exercised too.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

DIMS = ("register", "lane", "warp", "block")


@dataclass(frozen=True)
class Linear:
    shape: tuple[int, int]  # output extents (dim0, dim1), powers of two
    bases: dict  # input dim -> list of [dim0, dim1] coordinates

    def text(self) -> str:
        parts = ", ".join(f"{d} = {[list(b) for b in self.bases.get(d, [])]}" for d in DIMS)
        return f"#ttg.linear<{{{parts}}}>"


def _bit_vectors(shape: tuple[int, int]) -> list[tuple[int, int]]:
    """Every single-bit output vector: ``(2^k, 0)`` and ``(0, 2^k)``."""
    return [(1 << k, 0) for k in range(shape[0].bit_length() - 1)] + \
           [(0, 1 << k) for k in range(shape[1].bit_length() - 1)]


def _split(draw: st.DrawFn, vecs: list[tuple[int, int]]) -> dict:
    cuts = sorted(draw(st.lists(st.integers(0, len(vecs)), min_size=3, max_size=3)))
    bounds = [0, *cuts, len(vecs)]
    return {d: vecs[bounds[i]:bounds[i + 1]] for i, d in enumerate(DIMS)}


@st.composite
def permutation_bases(draw: st.DrawFn) -> Linear:
    shape = (1 << draw(st.integers(0, 3)), 1 << draw(st.integers(0, 3)))
    vecs = draw(st.permutations(_bit_vectors(shape)))
    mixed = []
    for i, v in enumerate(vecs):  # add earlier basis vectors: still a bijection (triangular over the order)
        if i and draw(st.booleans()):
            w = mixed[draw(st.integers(0, i - 1))]
            v = (v[0] ^ w[0], v[1] ^ w[1])
        mixed.append(v)
    return Linear(shape, _split(draw, mixed))


@st.composite
def linear_layouts(draw: st.DrawFn) -> Linear:
    """A bijection, or one broken: a zero basis, a repeated or dependent basis, a bit dropped, random bases."""
    lin = draw(permutation_bases())
    vecs = [v for d in DIMS for v in lin.bases[d]]
    how = draw(st.sampled_from(["bijection", "zero", "repeat", "dependent", "drop", "random"]))
    if how == "zero":
        vecs.insert(draw(st.integers(0, len(vecs))), (0, 0))
    elif how == "repeat" and vecs:
        vecs.insert(draw(st.integers(0, len(vecs))), draw(st.sampled_from(vecs)))
    elif how == "dependent" and len(vecs) > 1:
        a, b = draw(st.lists(st.sampled_from(vecs), min_size=2, max_size=2, unique=True))
        vecs.append((a[0] ^ b[0], a[1] ^ b[1]))
    elif how == "drop" and vecs:
        vecs.pop(draw(st.integers(0, len(vecs) - 1)))
    elif how == "random":
        n = draw(st.integers(0, 6))
        vecs = [(draw(st.integers(0, lin.shape[0] - 1)), draw(st.integers(0, lin.shape[1] - 1))) for _ in range(n)]
    return Linear(lin.shape, _split(draw, vecs))
