"""Hypothesis strategies for the semantics of divergent branches in the PTX road: structured programs over
``%tid.x`` (two warps) whose ``if`` / ``if-else`` regions split warps at adversarial lane boundaries (a lane mask
compared with a constant, so a side may hold one lane, every lane but one, every other lane...), nest them, write
registers on one side only, store to shared memory inside and after them, and add ``elect.sync`` regions whose
leader lane the PTX ISA leaves unspecified."""

from __future__ import annotations

from hypothesis import strategies as st

N_REGS = 5  # %r0 = %tid.x, %r1..%r4 start at small constants
CMPS = ["lt", "ge", "eq", "ne"]


@st.composite
def alu(draw) -> tuple:
    op = draw(st.sampled_from(["add", "xor", "and", "shl", "mul"]))
    d = draw(st.integers(1, N_REGS - 1))
    a = draw(st.integers(0, N_REGS - 1))
    b = draw(st.integers(0, N_REGS - 1)) if draw(st.booleans()) else draw(st.sampled_from([0, 1, 2, 3, 5, 31, 32]))
    return ("alu", op, d, a, b, draw(st.booleans()))  # last: b names a register (when < N_REGS)


@st.composite
def store(draw) -> tuple:
    return ("store", draw(st.integers(0, N_REGS - 1)))


@st.composite
def stmt(draw, depth: int, allow_elect: bool) -> tuple:
    kinds = ["alu", "alu", "store"] + (["if", "ifelse"] if depth < 2 else []) + (["elect"] if allow_elect else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "alu":
        return draw(alu())
    if kind == "store":
        return draw(store())
    if kind == "elect":
        return ("elect", draw(block(depth + 1, False)))
    cond = (draw(st.sampled_from(CMPS)), draw(st.sampled_from([1, 3, 7, 15, 31, 63])),
            draw(st.sampled_from([0, 1, 2, 7, 15, 16, 30, 31, 32])))  # (cmp, mask, constant) on %tid.x & mask
    then = draw(block(depth + 1, allow_elect))
    other = draw(block(depth + 1, allow_elect)) if kind == "ifelse" else None
    return ("if", cond, then, other)


@st.composite
def block(draw, depth: int = 0, allow_elect: bool = True) -> list:
    return draw(st.lists(stmt(depth, allow_elect), min_size=0 if depth else 1, max_size=4))


@st.composite
def program(draw, allow_elect: bool = True) -> list:
    """A structured program ending with a store (so every run has an access after the last region)."""
    return [*draw(block(0, allow_elect)), ("store", draw(st.integers(0, N_REGS - 1)))]
