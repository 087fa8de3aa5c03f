"""Size arithmetic in the expression IR (``ceil_div minimum maximum lt ite all_of any_of lnot``): on ints the
functions compute, on trees they build nodes, and every interpreter -- NumPy, Z3 integers, Z3 bit-vectors, SymPy
and C (compiled with g++ when present) -- gives each node the value a direct Python reference gives, over a whole
small domain."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable

import numpy as np
import pytest

from layoutcheck.expr.c import c_expr
from layoutcheck.expr.ir import Expr, all_of, any_of, ceil_div, ite, lnot, lt, maximum, minimum, var
from layoutcheck.expr.numpy import evaluate
from layoutcheck.expr.sympy import to_sympy
from layoutcheck.expr.z3 import to_z3, to_z3_int

A, B = var("a", 24), var("b", 9)  # b >= 1 below: the domain skips b = 0
POINTS = [(a, b) for a in range(24) for b in range(1, 9)]

CASES: list[tuple[str, Callable[..., object], Callable[[int, int], int]]] = [
    ("ceil_div", lambda a, b: ceil_div(a, b), lambda a, b: -(-a // b)),
    ("ceil_div_const", lambda a, b: ceil_div(a, 8), lambda a, b: -(-a // 8)),
    ("min", lambda a, b: minimum(a, b), min),
    ("max", lambda a, b: maximum(a * 2, b), lambda a, b: max(2 * a, b)),
    ("lt", lambda a, b: lt(a, b), lambda a, b: int(a < b)),
    ("ite", lambda a, b: ite(lt(b, a), a % b, 3 * b), lambda a, b: a % b if b < a else 3 * b),
    ("div_mod_by_tree", lambda a, b: a // b + 2 * (a % b), lambda a, b: a // b + 2 * (a % b)),
    ("all", lambda a, b: all_of(lt(b, a), lt(a, 3 * b)), lambda a, b: int(b < a < 3 * b)),
    ("any", lambda a, b: any_of(lt(a, 2), lt(b, 2), lt(20, a)), lambda a, b: int(a < 2 or b < 2 or a > 20)),
    ("not", lambda a, b: lnot(all_of(lt(b, a), lt(a, 9))), lambda a, b: int(not b < a < 9)),
]
IDS = [c[0] for c in CASES]


def _ref(fn: Callable[[int, int], int]) -> list[int]:
    return [int(fn(a, b)) for a, b in POINTS]


@pytest.mark.parametrize(("name", "build", "ref"), CASES, ids=IDS)
def test_on_ints_the_functions_compute(name: str, build, ref) -> None:
    assert [int(build(a, b)) for a, b in POINTS] == _ref(ref)


@pytest.mark.parametrize(("name", "build", "ref"), CASES, ids=IDS)
def test_numpy(name: str, build, ref) -> None:
    e = build(A, B)
    assert isinstance(e, Expr)
    a, b = (np.array(x) for x in zip(*POINTS, strict=True))
    assert np.broadcast_to(evaluate(e, {"a": a, "b": b}), a.shape).astype(int).tolist() == _ref(ref)


@pytest.mark.parametrize(("name", "build", "ref"), CASES, ids=IDS)
def test_z3_integers_and_bit_vectors(name: str, build, ref) -> None:
    import z3

    e = build(A, B)
    ia, ib, va, vb = z3.Int("a"), z3.Int("b"), z3.BitVec("a", 16), z3.BitVec("b", 16)
    ti, tv = to_z3_int(e, {"a": ia, "b": ib}), to_z3(e, {"a": va, "b": vb}, 16)

    def num(t: object) -> int:
        return int(z3.is_true(t)) if z3.is_bool(t) else t.as_long()  # type: ignore[attr-defined]

    got_i = [num(z3.simplify(z3.substitute(ti, (ia, z3.IntVal(a)), (ib, z3.IntVal(b))))) for a, b in POINTS]
    got_v = [num(z3.simplify(z3.substitute(tv, (va, z3.BitVecVal(a, 16)), (vb, z3.BitVecVal(b, 16)))))
             for a, b in POINTS]
    assert got_i == got_v == _ref(ref)


@pytest.mark.parametrize(("name", "build", "ref"), CASES, ids=IDS)
def test_sympy(name: str, build, ref) -> None:
    import sympy

    s = to_sympy(build(A, B))
    syms = {x.name: x for x in s.free_symbols}
    got = [s.subs({syms[k]: v for k, v in (("a", a), ("b", b)) if k in syms}) for a, b in POINTS]
    assert [int(bool(x)) if isinstance(x, sympy.logic.boolalg.Boolean) else int(x) for x in got] == _ref(ref)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_c_compiled(tmp_path) -> None:
    """Every case printed by ``c_expr`` and compiled: unsigned C computes the reference at every point."""
    body = "\n".join(f'      printf("%u ", (unsigned)({c_expr(build(A, B))}));' for _, build, _ in CASES)
    src = tmp_path / "size_ops.cpp"
    src.write_text(f"""#include <cstdio>
int main() {{
  for (unsigned a = 0; a < 24u; ++a)
    for (unsigned b = 1; b < 9u; ++b) {{
{body}
      printf("\\n");
    }}
}}
""")
    exe = tmp_path / "size_ops"
    subprocess.run(["g++", "-O0", "-o", str(exe), str(src)], check=True)
    rows = [list(map(int, line.split())) for line in subprocess.run([str(exe)], check=True, capture_output=True,
                                                                     text=True).stdout.splitlines()]
    for k, (_, _, ref) in enumerate(CASES):
        assert [r[k] for r in rows] == _ref(ref)


def test_constants_fold_and_no_bool_enters_a_tree() -> None:
    m = lt(A, 5)
    assert all_of(True, m) == m and all_of(False, m) is False and any_of(True, m) is True and any_of() is False
    assert ite(True, A, B) == A and lnot(False) is True and ceil_div(1000, 128) == 8
    assert c_expr(all_of()) == "true" and c_expr(7) == "7u"


def test_operand_order_is_kept_for_z3() -> None:
    """``8 * GN`` stays ``8 * GN`` (Z3's search depends on term order), ``GN * 8`` stays ``GN * 8``."""
    import z3

    gn = z3.Int("GN")
    assert str(to_z3_int(8 * var("GN", 9), {"GN": gn})) == "8*GN"
    assert str(to_z3_int(var("GN", 9) * 8, {"GN": gn})) == "GN*8"
    assert 8 * var("GN", 9) == var("GN", 9) * 8  # the order is not part of the value
