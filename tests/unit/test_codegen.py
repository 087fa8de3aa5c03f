"""Emitted C index expressions against ``layout(c)`` for every ``c`` (tiny C evaluator, and gcc for a sample)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutcheck import ComposedLayout, Layout, Swizzle, make_layout_tv, size
from layoutcheck.codegen import c_expr, eval_c, render
from layoutcheck.errors import LayoutError
from layoutcheck.hw.mma import all_mma_atoms
from layoutcheck.hw.smem import all_gmma_smem_atoms
from layoutcheck.symbolic import index_ast, tv_coord_ast, var
from tests.strategies import layouts

SWIZZLES = [Swizzle(1, 2, 3), Swizzle(2, 0, 2), Swizzle(3, 4, 3), Swizzle(3, 3, 3), Swizzle(2, 3, -3)]


def _modes(L: Layout) -> list[Layout]:
    return list(L) if isinstance(L.shape, tuple) else [L]


def _colex_grid(bounds: list[tuple[str, int]]) -> dict[str, np.ndarray]:
    axes = np.meshgrid(*(np.arange(u) for _, u in bounds), indexing="ij")
    return {n: a.transpose().reshape(-1) for (n, _), a in zip(bounds, axes, strict=True)}


@given(layouts())
def test_flat_c_expression_matches_layout(L: Layout) -> None:
    text = c_expr(index_ast(L, "i"))
    got = np.broadcast_to(eval_c(text, {"i": np.arange(size(L))}), (size(L),))
    assert np.array_equal(got.astype(np.int64), L.offsets())


@given(layouts())
def test_coordinate_c_expression_matches_layout(L: Layout) -> None:
    names = [f"c{j}" for j in range(len(_modes(L)))]
    text = c_expr(index_ast(L, tuple(names)))
    env = _colex_grid([(n, size(m)) for n, m in zip(names, _modes(L), strict=True)])
    got = np.broadcast_to(eval_c(text, env), (size(L),))
    assert np.array_equal(got.astype(np.int64), L.offsets())


@given(layouts(pow2=True), st.sampled_from(SWIZZLES), st.sampled_from([0, 8, 64, 256]))
def test_swizzled_c_expression_matches(L: Layout, sw: Swizzle, off: int) -> None:
    C = ComposedLayout(sw, off, L)
    got = np.broadcast_to(eval_c(c_expr(index_ast(C, "i")), {"i": np.arange(size(L))}), (size(L),))
    assert np.array_equal(got.astype(np.int64), C.offsets())


@pytest.mark.parametrize("atom", all_gmma_smem_atoms(), ids=lambda a: a.name)
def test_smem_atom_c_expression(atom) -> None:
    C = atom.composed
    env = _colex_grid([("r", size(C.layout[0])), ("c", size(C.layout[1]))])
    assert np.array_equal(eval_c(c_expr(index_ast(C, ("r", "c"))), env).astype(np.int64), C.offsets())


@pytest.mark.parametrize("atom", all_mma_atoms(), ids=lambda a: a.name)
@pytest.mark.parametrize("operand", ["A", "B", "C"])
def test_mma_tv_c_coordinates(atom, operand: str) -> None:
    tv = getattr(atom, f"tv_layout_{operand}")
    rows = {"A": atom.shape_mnk[0], "B": atom.shape_mnk[1], "C": atom.shape_mnk[0]}[operand]
    r, c = tv_coord_ast(tv, rows)
    env = _colex_grid([("t", size(tv[0])), ("v", size(tv[1]))])
    off = tv.offsets()
    n = off.size
    assert np.array_equal(np.broadcast_to(eval_c(c_expr(r), env), (n,)).astype(np.int64), off % rows)
    assert np.array_equal(np.broadcast_to(eval_c(c_expr(c), env), (n,)).astype(np.int64), off // rows)


def test_power_of_two_strength_reduction() -> None:
    from layoutcheck.hw.mma import SM80_16x8_Row

    r, c = tv_coord_ast(SM80_16x8_Row, 16)
    assert c_expr(r) == "((t >> 2u) + ((v >> 1u) * 8u))"
    assert c_expr(c) == "(((t & 3u) * 2u) + (v & 1u))"
    assert "/" not in c_expr(index_ast(Layout((8, 64), (64, 1)), "i"))
    assert "%" in c_expr(index_ast(Layout((3, 5), (5, 1)), "i"))


def test_evaluator_semantics() -> None:
    assert int(eval_c("7u / 2u", {})) == 3
    assert int(eval_c("4294967295u + 2u", {})) == 1  # unsigned wrap-around
    assert int(eval_c("1u << 3u + 1u", {})) == 16  # + binds tighter than <<
    assert int(eval_c("6u & 3u ^ 1u", {})) == 3  # & binds tighter than ^
    with pytest.raises(LayoutError, match="unknown variable"):
        eval_c("x + 1u", {})
    with pytest.raises(LayoutError, match="unexpected"):
        eval_c("x $ 1u", {"x": 1})


def test_render_checks_parameters() -> None:
    assert render("a {{X}} b", {"X": 3}) == "a 3 b"
    with pytest.raises(LayoutError, match="missing: X"):
        render("a {{X}}", {})
    with pytest.raises(LayoutError, match="not in the template: Y"):
        render("a {{X}}", {"X": 1, "Y": 2})


def test_too_large_for_32_bits() -> None:
    with pytest.raises(LayoutError, match="32-bit"):
        c_expr(index_ast(Layout(1 << 20, 1 << 13), var("i", 1 << 20)))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_gcc_agrees(tmp_path) -> None:
    """Compile a sample of emitted expressions with gcc (unsigned int) and compare every value with ``L(i)``."""
    cases: list[Layout | ComposedLayout] = [
        Layout((4, 2), (2, 1)), Layout((3, (5, 2)), (10, (1, 40))), Layout(((4, 8), (2, 2)), ((32, 1), (16, 8))),
        ComposedLayout(Swizzle(3, 3, 3), 0, Layout((8, 64), (64, 1))), Layout((6, 7), (7, 1)),
        make_layout_tv(Layout((4, 8), (8, 1)), Layout((2, 4), (4, 1)))[1],
    ]
    body = []
    for j, L in enumerate(cases):
        n = size(L.layout if isinstance(L, ComposedLayout) else L)
        body.append(f'for (unsigned i = 0; i < {n}u; ++i) {{ printf("%u ", {c_expr(index_ast(L, "i"))}); }}'
                    f' printf("\\n"); /* case {j} */')
    src = tmp_path / "t.c"
    src.write_text("#include <stdio.h>\nint main(void) {\n" + "\n".join(body) + "\nreturn 0; }\n")
    subprocess.run(["gcc", "-O1", "-Wall", "-Werror", "-o", str(tmp_path / "t"), str(src)], check=True)
    out = subprocess.run([str(tmp_path / "t")], check=True, capture_output=True, text=True).stdout.splitlines()
    for L, line in zip(cases, out, strict=True):
        assert [int(x) for x in line.split()] == L.offsets().tolist()
