"""Hypothesis strategies for the PTX semantics suite: straight-line integer programs over ``%tid.x`` that end in one
shared store whose address they compute, built to hit the corners of the PTX ISA's integer rules (shift amounts at
and past the width, bit fields that run off the register, signed extremes, byte permutes, three-input LUTs)."""

from __future__ import annotations

from hypothesis import strategies as st

EDGE = [0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 31, 32, 33, 63, 64, 127, 128, 255, 256, 257, 0x7FFFFFFF, 0x80000000,
        0xFFFFFFFF, 0x0000FFFF, 0x12345678]

BINARY = ["add.s32", "sub.s32", "mul.lo.s32", "mul.lo.u32", "mul.hi.u32", "mul.hi.s32", "and.b32", "or.b32",
          "xor.b32", "shl.b32", "shr.u32", "shr.s32", "min.u32", "min.s32", "max.u32", "max.s32"]
UNARY = ["not.b32", "neg.s32", "abs.s32", "popc.b32", "clz.b32", "brev.b32", "cnot.b32"]


@st.composite
def operand(draw, n_regs: int) -> str:
    if draw(st.booleans()):
        return f"%r{draw(st.integers(0, n_regs - 1))}"
    return str(draw(st.sampled_from(EDGE) | st.integers(0, 0xFFFFFFFF)))


@st.composite
def instruction(draw, n_regs: int) -> tuple[str, ...]:
    """One instruction writing ``%r{n_regs}`` from the registers before it (``%r0`` is ``%tid.x``)."""
    d = f"%r{n_regs}"
    reg = lambda: f"%r{draw(st.integers(0, n_regs - 1))}"  # noqa: E731
    kind = draw(st.sampled_from(["bin", "bin", "bin", "un", "bfe", "bfi", "prmt", "lop3", "mad", "selp", "div",
                                 "wide"]))
    if kind == "bin":
        return (draw(st.sampled_from(BINARY)), d, reg(), draw(operand(n_regs)))
    if kind == "un":
        return (draw(st.sampled_from(UNARY)), d, reg())
    if kind == "bfe":
        return (draw(st.sampled_from(["bfe.u32", "bfe.s32"])), d, reg(), str(draw(st.sampled_from(EDGE[:14]))),
                str(draw(st.sampled_from(EDGE[:14]))))
    if kind == "bfi":
        pos, ln = draw(st.sampled_from(EDGE[:14])), draw(st.sampled_from(EDGE[:14]))
        return ("bfi.b32", d, reg(), reg(), str(pos), str(ln))
    if kind == "prmt":
        return ("prmt.b32", d, reg(), reg(), str(draw(st.integers(0, 0xFFFF))))
    if kind == "lop3":
        return ("lop3.b32", d, reg(), reg(), reg(), str(draw(st.integers(0, 255))))
    if kind == "mad":
        return ("mad.lo.s32", d, reg(), draw(operand(n_regs)), reg())
    if kind == "selp":
        return ("selp", draw(st.sampled_from(["setp.lt.s32", "setp.lo.u32", "setp.eq.u32", "setp.ge.s32"])), d,
                reg(), draw(operand(n_regs)), reg(), reg())
    if kind == "div":
        op = draw(st.sampled_from(["div.u32", "rem.u32", "div.s32", "rem.s32"]))
        return (op, d, reg(), str(draw(st.sampled_from([1, 2, 3, 7, 8, 9, 31, 32, 33, 1000, 0x80000000]))))
    return ("wide", draw(st.sampled_from(["mul.wide.u32", "mul.wide.s32"])), d, reg(), draw(operand(n_regs)),
            draw(st.booleans()))


@st.composite
def program(draw) -> tuple[list[tuple[str, ...]], int, bool]:
    """(instructions, which register the address comes from, whether the store is predicated)."""
    n = draw(st.integers(1, 8))
    body = [draw(instruction(i + 1)) for i in range(n)]
    return body, draw(st.integers(0, n)), draw(st.booleans())
