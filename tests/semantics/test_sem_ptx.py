"""Semantics of the PTX road (``layoutcheck check FILE.ptx``), from the PTX ISA (chapter 9, integer arithmetic,
logic and shift, bit-field, permute and comparison instructions; ``ld`` / ``st`` ``.shared``) and the CUDA
Programming Guide's bank rule (32 banks of 4 bytes; a warp's 32-bit request costs, per bank, one wavefront per
distinct word; lanes that are predicated off take no part).

Each example is a straight-line program over ``%tid.x`` (``tests/strategies_sem_ptx.py``) ending in one
``st.shared.b32`` (predicated or not) at an address the program computes. The naive side evaluates every
instruction for each of the 64 threads with the ISA's own rules, written here from the ISA text; the judged side is
the interpreter (``layoutcheck.importers.ptx_run.shared_accesses``, the addresses) and the ``conflict_free`` verdict of
``check_paths`` on the written file."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from layoutcheck.check import check_paths
from layoutcheck.importers.ptx import parse_ptx
from layoutcheck.importers.ptx_run import shared_accesses
from tests.strategies_sem_ptx import program

M32 = 0xFFFFFFFF


def s32(x: int) -> int:
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def bit(x: int, i: int) -> int:
    return (x >> i) & 1


def bfe(a: int, pos: int, ln: int, signed: bool) -> int:
    """PTX ISA, bfe: msb = 31; pos = b & 0xff; len = c & 0xff; sbit = signed and len != 0 ? a[min(pos+len-1, msb)]
    : 0; d[i] = (i < len && pos + i <= msb) ? a[pos + i] : sbit."""
    pos, ln = pos & 0xFF, ln & 0xFF
    sbit = bit(a, min(pos + ln - 1, 31)) if signed and ln else 0
    return sum(((bit(a, pos + i) if i < ln and pos + i <= 31 else sbit) << i) for i in range(32))


def bfi(f: int, b: int, pos: int, ln: int) -> int:
    """PTX ISA, bfi: d = b; for (i = 0; i < len && pos + i <= msb; ++i) d[pos + i] = f[i] (pos, len: low 8 bits)."""
    pos, ln, d = pos & 0xFF, ln & 0xFF, b
    for i in range(ln):
        if pos + i > 31:
            break
        d = (d & ~(1 << (pos + i))) | (bit(f, i) << (pos + i))
    return d & M32


def prmt(a: int, b: int, c: int) -> int:
    """PTX ISA, prmt (default mode): bytes b7..b0 of {b, a}; result byte j is byte c[4j+2:4j] of them, or its sign
    (bit 7 replicated) when c[4j+3] is set."""
    src = (a & M32) | ((b & M32) << 32)
    out = 0
    for j in range(4):
        sel = (c >> (4 * j)) & 0xF
        byte = (src >> (8 * (sel & 7))) & 0xFF
        if sel & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * j)
    return out


def lop3(a: int, b: int, c: int, lut: int) -> int:
    """PTX ISA, lop3: each result bit is ``immLut`` indexed by the (a, b, c) bits as the value 4a + 2b + c (the LUT
    is defined by evaluating the function on 0xF0, 0xCC, 0xAA)."""
    return sum((bit(lut, 4 * bit(a, i) + 2 * bit(b, i) + bit(c, i)) << i) for i in range(32))


def binary(op: str, a: int, b: int) -> int:
    u, v = a & M32, b & M32
    sh = v
    table = {
        "add.s32": u + v, "sub.s32": u - v, "mul.lo.s32": u * v, "mul.lo.u32": u * v,
        "mul.hi.u32": (u * v) >> 32, "mul.hi.s32": (s32(u) * s32(v)) >> 32,
        "and.b32": u & v, "or.b32": u | v, "xor.b32": u ^ v,
        "shl.b32": 0 if sh >= 32 else u << sh,  # ISA: amounts past the width clamp to the width
        "shr.u32": 0 if sh >= 32 else u >> sh,
        "shr.s32": s32(u) >> min(sh, 31),  # sign fill; >= width gives all sign bits
        "min.u32": min(u, v), "min.s32": min(s32(u), s32(v)), "max.u32": max(u, v), "max.s32": max(s32(u), s32(v)),
    }
    return table[op] & M32


def unary(op: str, a: int) -> int:
    u = a & M32
    return {"not.b32": ~u, "neg.s32": -u, "abs.s32": abs(s32(u)), "popc.b32": bin(u).count("1"),
            "clz.b32": 32 - u.bit_length(), "brev.b32": int(f"{u:032b}"[::-1], 2),
            "cnot.b32": int(u == 0)}[op] & M32


def compare(op: str, a: int, b: int) -> bool:
    cmp, typ = op.split(".")[1:]
    x, y = (s32(a), s32(b)) if typ == "s32" else (a & M32, b & M32)
    return {"lt": x < y, "lo": x < y, "eq": x == y, "ge": x >= y}[cmp]


def divide(op: str, a: int, b: int) -> int:
    if op.endswith("u32"):
        return ((a & M32) // b if op.startswith("div") else (a & M32) % b) & M32
    x, y = s32(a), s32(b)
    q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # truncation towards zero
    return (q if op.startswith("div") else x - q * y) & M32


def value(regs: list[int], o: str) -> int:
    return regs[int(o[2:])] if o.startswith("%r") else int(o) & M32


def naive_run(body: list[tuple[str, ...]], tid: int) -> list[int]:
    regs = [tid]
    for ins in body:
        v = lambda o: value(regs, o)  # noqa: E731
        if ins[0] == "selp":
            _, cmp, _, a, b, x, y = ins
            regs.append(v(x) if compare(cmp, v(a), v(b)) else v(y))
        elif ins[0] == "wide":
            _, op, _, a, b, hi = ins
            p = (s32(v(a)) * s32(v(b))) if op.endswith("s32") else v(a) * v(b)
            regs.append(((p & (2**64 - 1)) >> (32 if hi else 0)) & M32)
        elif ins[0].startswith("bfe"):
            regs.append(bfe(v(ins[2]), int(ins[3]), int(ins[4]), ins[0].endswith("s32")))
        elif ins[0] == "bfi.b32":
            regs.append(bfi(v(ins[2]), v(ins[3]), int(ins[4]), int(ins[5])))
        elif ins[0] == "prmt.b32":
            regs.append(prmt(v(ins[2]), v(ins[3]), int(ins[4])))
        elif ins[0] == "lop3.b32":
            regs.append(lop3(v(ins[2]), v(ins[3]), v(ins[4]), int(ins[5])))
        elif ins[0] == "mad.lo.s32":
            regs.append((v(ins[2]) * v(ins[3]) + v(ins[4])) & M32)
        elif ins[0].startswith(("div", "rem")):
            regs.append(divide(ins[0], v(ins[2]), int(ins[3])))
        elif len(ins) == 4:
            regs.append(binary(ins[0], v(ins[2]), v(ins[3])))
        else:
            regs.append(unary(ins[0], v(ins[2])))
    return regs


def render(body: list[tuple[str, ...]], addr_reg: int, predicated: bool) -> str:
    lines = ["mov.u32 %r0, %tid.x;"]
    for ins in body:
        if ins[0] == "selp":
            _, cmp, d, a, b, x, y = ins
            lines += [f"{cmp} %p1, {a}, {b};", f"selp.b32 {d}, {x}, {y}, %p1;"]
        elif ins[0] == "wide":
            _, op, d, a, b, hi = ins
            lines += [f"{op} %rd1, {a}, {b};"]
            lines += ["shr.u64 %rd1, %rd1, 32;"] if hi else []
            lines += [f"cvt.u32.u64 {d}, %rd1;"]
        else:
            lines.append(f"{ins[0]} {', '.join(ins[1:])};")
    lines += [f"and.b32 %r100, %r{addr_reg}, 1020;", "mov.u32 %r101, global_smem;", "add.s32 %r102, %r101, %r100;"]
    if predicated:
        lines += [f"and.b32 %r103, %r{len(body)}, 1;", "setp.ne.u32 %p2, %r103, 0;",
                  "@%p2 st.shared.b32 [%r102], %r0;"]
    else:
        lines.append("st.shared.b32 [%r102], %r0;")
    lines.append("ret;")
    body_text = "\n    ".join(lines)
    return (".version 8.0\n.target sm_90a\n.address_size 64\n.extern .shared .align 16 .b8 global_smem[];\n"
            f".visible .entry k()\n.reqntid 64\n{{\n    {body_text}\n}}\n")


def naive_addresses(body, addr_reg, predicated) -> list[int | None]:
    out = []
    for t in range(64):
        regs = naive_run(body, t)
        on = not predicated or regs[len(body)] & 1
        out.append((regs[addr_reg] & 1020) if on else None)
    return out


def naive_conflict_free(addrs: list[int | None]) -> bool:
    for w in range(2):
        lanes = [a for a in addrs[32 * w: 32 * w + 32] if a is not None]
        if not lanes:
            continue
        per_bank: dict[int, set[int]] = {}
        for a in lanes:
            per_bank.setdefault((a // 4) % 32, set()).add(a // 4)
        if max(len(s) for s in per_bank.values()) > 1:
            return False
    return True


@given(program())
def test_the_interpreter_computes_every_lanes_address_as_the_isa_says(p) -> None:
    body, addr_reg, predicated = p
    want = naive_addresses(body, addr_reg, predicated)
    run = shared_accesses(parse_ptx(render(body, addr_reg, predicated)), (1,))
    assert not run.stopped, run.stopped
    got: list[int | None] = [None] * 64
    for a in run.accesses:
        for lane, x in enumerate(a.addrs.tolist()):
            if x >= 0:
                got[32 * a.warp + lane] = x
    assert got == want


@given(program(), st.integers(0, 10**6))
def test_conflict_free_verdict_equals_the_naive_bank_rule(tmp_path_factory, p, salt) -> None:
    body, addr_reg, predicated = p
    f = Path(tmp_path_factory.mktemp("ptx")) / f"k{salt}.ptx"
    f.write_text(render(body, addr_reg, predicated))
    addrs = naive_addresses(body, addr_reg, predicated)
    rows = check_paths([str(f)])
    if all(a is None for a in addrs):  # no lane stores: nothing ran, nothing is claimed proven
        assert [r.status for r in rows] == ["UNKNOWN"]
        return
    assert [r.status for r in rows] == ["PROVEN" if naive_conflict_free(addrs) else "REFUTED"]


def test_a_broken_interpreter_is_caught_bfe_signed_past_the_msb() -> None:
    # the corner that must not be simplified: bfe.s32 of 0x80000000 at pos 31, len 4 is all sign bits (-1)
    body = [("or.b32", "%r1", "%r0", "2147483648"), ("bfe.s32", "%r2", "%r1", "31", "4")]
    assert naive_run(body, 0)[2] == M32
    run = shared_accesses(parse_ptx(render(body, 2, False)), (1,))
    assert run.accesses[0].addrs[0] == M32 & 1020
