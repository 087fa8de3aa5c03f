"""The integer instructions the PTX interpreter follows, on every thread of a group at once.

The interpreter tracks *integer* values only, each with a ``known`` mask (PTX ISA, chapter 9: ``mov``, ``add``,
``sub``, ``mul``, ``mad``, ``div``, ``rem``, ``min``, ``max``, ``abs``, ``neg``, ``and``, ``or``, ``xor``, ``not``,
``cnot``, ``lop3``, ``shl``, ``shr``, ``bfe``, ``bfi``, ``prmt``, ``popc``, ``clz``, ``brev``, ``selp``, ``setp``,
``cvt``, ``cvta``, predicate logic; ``shfl.sync.idx`` and ``elect.sync`` as far as the ISA determines them). A value
it does not follow is unknown: data loaded from global or shared memory, floating-point results, kernel parameters
the caller did not give (``unknown_dsts``).
"""

from __future__ import annotations

import numpy as np

from layoutcheck.importers.ptx import Instr
from layoutcheck.importers.ptx_machine import (
    BITS,
    FLOAT,
    SHARED_WINDOW,
    Machine,
    State,
    as_signed,
    bit_mask,
    literal,
    type_of,
)


def elect(m: Machine, st: State, ins: Instr, where: np.ndarray) -> None:
    """``elect.sync d|p, membermask``: ``p`` true for one leader lane of ``membermask``, ``d`` its lane id; which
    lane the PTX ISA does not say, so both are unknown. With a full membermask run by every lane of each warp, ``p``
    is tagged elected (exactly one lane per warp)."""
    d, _, p = ins.operands[0].partition("|")
    n = st.threads.size
    for r in (d.strip(), p.strip()):
        if r and r != "_":
            m.write(st, r, np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=bool), 32 if r == d.strip() else 1, where)
    mask = literal(ins.operands[1].strip()) if len(ins.operands) > 1 else None
    warps = m.warp_of[st.threads]
    full = bool(where.all()) and (np.bincount(warps)[np.unique(warps)] == 32).all() and m.guessed is None
    if p.strip() and mask is not None and mask & 0xFFFFFFFF == 0xFFFFFFFF and full and st.ambiguous is None:
        st.elected.add(p.strip())


def unknown_dsts(m: Machine, st: State, dst: str, where: np.ndarray) -> None:
    n = st.threads.size
    names = [d.strip() for d in dst.strip("{} ").split(",")] if dst.startswith("{") else [dst]
    for d in names:
        if d.startswith("%"):
            m.write(st, d, np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=bool), 64, where)


def alu(m: Machine, st: State, ins: Instr, where: np.ndarray) -> None:
    op, ops, mods = ins.opcode, ins.operands, ins.mods
    typ = type_of(ins)
    bits = BITS.get(typ, 32)
    n = st.threads.size
    dst = ops[0] if ops else ""
    if op == "mov" and dst.startswith("{"):  # unpack: mov.b32 {%rs1, %rs2}, %r1
        parts = [p.strip() for p in dst.strip("{}").split(",")]
        v, kn = m.value(st, ops[1], bits)
        w = bits // len(parts)
        for i, p in enumerate(parts):
            if p != "_":
                m.write(st, p, v >> np.uint64(w * i), kn, w, where)
        return
    if op == "mov" and ops[1].startswith("{"):  # pack
        parts = [p.strip() for p in ops[1].strip("{}").split(",")]
        w = bits // len(parts)
        acc, akn = np.zeros(n, dtype=np.uint64), np.ones(n, dtype=bool)
        for i, p in enumerate(parts):
            v, kn = m.value(st, p, w)
            acc |= (v & bit_mask(w)) << np.uint64(w * i)
            akn &= kn
        m.write(st, dst, acc, akn, bits, where)
        return
    if typ in FLOAT and op not in ("mov", "selp", "cvt", "setp"):
        unknown_dsts(m, st, dst, where)
        if op == "setp" and "|" in dst:
            pass
        return
    if op not in _ALU or (op == "mov" and len(ops) != 2):
        unknown_dsts(m, st, dst, where)  # an operation the interpreter does not follow: its results are unknown
        return
    srcs = None if op in _OWN_OPERANDS else [m.value(st, o, bits) for o in ops[1:]]
    res = _eval(m, st, ins, op, ops, mods, typ, bits, srcs)
    if res is None:
        unknown_dsts(m, st, dst, where)
        return
    for d, v, kn, b in res:
        m.write(st, d, v, kn, b, where)


_OWN_OPERANDS = {"setp", "cvt", "cvta", "bfe", "bfi", "shl", "shr", "prmt", "lop3"}
_ALU = _OWN_OPERANDS | {"mov", "selp", "add", "sub", "mul", "mad", "div", "rem", "min", "max", "abs", "neg", "and",
                        "or", "xor", "not", "cnot", "popc", "clz", "brev"}


def _cmp(cmp: str, a: np.ndarray, b: np.ndarray, signed: bool, bits: int) -> np.ndarray:
    if signed:
        a, b = as_signed(a, bits), as_signed(b, bits)
    else:
        a, b = a & bit_mask(bits), b & bit_mask(bits)
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b, "lo": a < b,
            "ls": a <= b, "hi": a > b, "hs": a >= b}[cmp]


def _eval(m: Machine, st: State, ins: Instr, op: str, ops: tuple[str, ...], mods: tuple[str, ...], typ: str,
          bits: int, srcs: list[tuple[np.ndarray, np.ndarray]] | None) -> list | None:
    dst = ops[0]
    signed = typ.startswith("s")
    u64 = np.uint64
    if op == "setp":
        cmp = mods[0]
        if typ in FLOAT:
            z = np.zeros(st.threads.size, dtype=u64)
            return [(p.strip(), z, np.zeros(st.threads.size, dtype=bool), 1) for p in dst.split("|")]
        (a, ak), (b, bk) = m.value(st, ops[1], bits), m.value(st, ops[2], bits)
        r = _cmp(cmp, a, b, signed, bits)
        kn = ak & bk
        outs = [p.strip() for p in dst.split("|")]
        combine = next((x for x in mods[1:] if x in ("and", "or", "xor")), None)
        if combine and len(ops) > 3:
            c, ck = m.value(st, ops[3], 1)
            c = (c & u64(1)).astype(bool)
            f = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[combine]
            r1, r2 = f(r, c), f(~r, c)
            kn = kn & ck
        else:
            r1, r2 = r, ~r
        res = [(outs[0], r1.astype(u64), kn, 1)]
        if len(outs) > 1:
            res.append((outs[1], r2.astype(u64), kn, 1))
        return res
    if op == "cvt":
        dt = next((x for x in mods if x in BITS), "b32")
        stype = [x for x in mods if x in BITS][-1]
        if dt in FLOAT or stype in FLOAT:
            return None
        sb, db = BITS[stype], BITS[dt]
        v, kn = m.value(st, ops[1], sb)
        v = (as_signed(v, sb).astype(np.uint64) if stype.startswith("s") else v & bit_mask(sb))
        return [(dst, v, kn, db)]
    if op == "cvta":  # the shared window of the generic address space starts at SHARED_WINDOW
        v, kn = m.value(st, ops[1], 64)
        if "shared" in mods:
            v = v - u64(SHARED_WINDOW) if "to" in mods else v + u64(SHARED_WINDOW)
        return [(dst, v, kn, bits)]
    if op in ("shl", "shr"):
        (a, ak), (b, bk) = m.value(st, ops[1], bits), m.value(st, ops[2], 32)
        sh = np.minimum(b & u64(0xFFFFFFFF), u64(bits))
        if op == "shl":
            r = np.where(sh >= bits, u64(0), (a << np.minimum(sh, u64(63))))
        elif signed:
            r = (as_signed(a, bits) >> np.minimum(sh, u64(63)).astype(np.int64)).astype(u64)
        else:
            r = np.where(sh >= bits, u64(0), (a & bit_mask(bits)) >> np.minimum(sh, u64(63)))
        return [(dst, r, ak & bk, bits)]
    if op == "bfe":  # PTX ISA: d[i] = (i < len && pos + i <= msb) ? a[pos + i] : sbit (pos, len: low 8 bits)
        (a, ak), (p, pk), (ln, lk) = m.value(st, ops[1], bits), m.value(st, ops[2], 32), m.value(st, ops[3], 32)
        pos, length = p & u64(0xFF), ln & u64(0xFF)
        x = a & bit_mask(bits)
        valid = np.where(pos >= u64(bits), u64(0), np.minimum(length, u64(bits) - np.minimum(pos, u64(bits))))
        keep = np.where(valid >= u64(64), bit_mask(64), (u64(1) << np.minimum(valid, u64(63))) - u64(1))
        field_ = np.where(pos >= u64(bits), u64(0), x >> np.minimum(pos, u64(63))) & keep
        if signed:  # sbit = a[min(pos + len - 1, msb)], 0 for len 0; it fills every bit from ``valid`` up
            at = np.minimum(pos + length - np.minimum(length, u64(1)), u64(bits - 1))
            sbit = ((x >> at) & u64(1)) * (length > 0)
            field_ = np.where(sbit == 1, field_ | (bit_mask(bits) ^ keep), field_)
        return [(dst, field_, ak & pk & lk, bits)]
    if op == "bfi":
        (a, ak), (b, bk) = m.value(st, ops[1], bits), m.value(st, ops[2], bits)
        (p, pk), (ln, lk) = m.value(st, ops[3], 32), m.value(st, ops[4], 32)
        pos, length = np.minimum(p & u64(0xFF), u64(63)), np.minimum(ln & u64(0xFF), u64(63))
        msk = (((u64(1) << length) - u64(1)) << pos) & bit_mask(bits)
        out = ((b & ~msk) | ((a << pos) & msk)) & bit_mask(bits)
        return [(dst, out, ak & bk & pk & lk, bits)]
    if op == "lop3":
        (a, ak), (b, bk), (c, ck) = (m.value(st, o, bits) for o in ops[1:4])
        lut = literal(ops[4])
        if lut is None:
            return None
        r = np.zeros_like(a)
        for i in range(8):
            if lut >> i & 1:
                ta = a if i & 4 else ~a
                tb = b if i & 2 else ~b
                tc = c if i & 1 else ~c
                r |= ta & tb & tc
        return [(dst, r, ak & bk & ck, bits)]
    if op == "prmt":
        (a, ak), (b, bk), (c, ck) = (m.value(st, o, 32) for o in ops[1:4])
        if any(x in mods for x in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")):
            return None
        src = (a & u64(0xFFFFFFFF)) | ((b & u64(0xFFFFFFFF)) << u64(32))
        out = np.zeros_like(a)
        for j in range(4):
            sel = (c >> u64(4 * j)) & u64(0xF)
            byte = (src >> (u64(8) * (sel & u64(7)))) & u64(0xFF)
            byte = np.where((sel & u64(8)) != 0, np.where((byte & u64(0x80)) != 0, u64(0xFF), u64(0)), byte)
            out |= byte << u64(8 * j)
        return [(dst, out, ak & bk & ck, 32)]
    assert srcs is not None
    vals = [v for v, _ in srcs]
    kn = np.ones(st.threads.size, dtype=bool)
    for _, k2 in srcs:
        kn = kn & k2
    if op == "mov":
        return [(dst, vals[0], kn, bits)]
    if op == "selp":
        c = (vals[2] & u64(1)).astype(bool)
        return [(dst, np.where(c, vals[0], vals[1]), kn, bits)]
    if op in ("add", "sub"):
        r = vals[0] + vals[1] if op == "add" else vals[0] - vals[1]
        return [(dst, r, kn, bits)]
    if op in ("mul", "mad"):
        mode = next((x for x in mods if x in ("lo", "hi", "wide")), "lo")
        if mode == "wide":
            a, b = ((as_signed(vals[0], bits), as_signed(vals[1], bits)) if signed else
                    (vals[0] & bit_mask(bits), vals[1] & bit_mask(bits)))
            r = (a.astype(np.int64) * b.astype(np.int64)).astype(u64) if signed else a * b
            out_bits = 2 * bits
        elif mode == "hi" and bits <= 32:
            a2, b2 = ((as_signed(vals[0], bits), as_signed(vals[1], bits)) if signed else
                      (vals[0] & bit_mask(bits), vals[1] & bit_mask(bits)))
            r = ((a2.astype(np.int64) * b2.astype(np.int64)) >> bits).astype(u64) if signed else (a2 * b2) >> u64(bits)
            out_bits = bits
        elif mode == "hi":
            a = [int(x) for x in (as_signed(vals[0], bits) if signed else vals[0] & bit_mask(bits))]
            b = [int(x) for x in (as_signed(vals[1], bits) if signed else vals[1] & bit_mask(bits))]
            r = np.array([((x * y) >> bits) & ((1 << 64) - 1) for x, y in zip(a, b, strict=True)], dtype=u64)
            out_bits = bits
        else:
            r = vals[0] * vals[1]
            out_bits = bits
        if op == "mad":
            r = r + vals[2]
        return [(dst, r, kn, out_bits)]
    if op in ("div", "rem"):
        a, b = ((as_signed(vals[0], bits), as_signed(vals[1], bits)) if signed else
                (vals[0] & bit_mask(bits), vals[1] & bit_mask(bits)))
        zero = b == 0
        kn = kn & ~zero
        bs = np.where(zero, 1, b)
        if signed:
            q = np.sign(a) * np.sign(bs) * (np.abs(a) // np.abs(bs))  # PTX: truncation towards zero
            r = q if op == "div" else a - q * bs
            return [(dst, r.astype(np.int64).astype(u64), kn, bits)]
        r = a // bs if op == "div" else a % bs
        return [(dst, r, kn, bits)]
    if op in ("min", "max"):
        a, b = ((as_signed(vals[0], bits), as_signed(vals[1], bits)) if signed else
                (vals[0] & bit_mask(bits), vals[1] & bit_mask(bits)))
        r = np.minimum(a, b) if op == "min" else np.maximum(a, b)
        return [(dst, r.astype(np.int64).astype(u64) if signed else r, kn, bits)]
    if op == "abs":
        return [(dst, np.abs(as_signed(vals[0], bits)).astype(u64), kn, bits)]
    if op == "neg":
        return [(dst, (u64(0) - vals[0]), kn, bits)]
    if op in ("and", "or", "xor"):
        f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
        if op != "xor":  # a known 0 decides an and, a known all-ones an or, whatever the other operand is
            absorb = u64(0) if op == "and" else bit_mask(bits)
            (v0, k0), (v1, k1) = srcs[0], srcs[1]
            kn = kn | (k0 & ((v0 & bit_mask(bits)) == absorb)) | (k1 & ((v1 & bit_mask(bits)) == absorb))
            return [(dst, np.where(k0 & ((v0 & bit_mask(bits)) == absorb), v0,
                                   np.where(k1 & ((v1 & bit_mask(bits)) == absorb), v1, f(vals[0], vals[1]))),
                     kn, bits)]
        return [(dst, f(vals[0], vals[1]), kn, bits)]
    if op == "not":
        return [(dst, ~vals[0], kn, bits)]
    if op == "cnot":
        return [(dst, ((vals[0] & bit_mask(bits)) == 0).astype(u64), kn, bits)]
    if op == "popc":
        return [(dst, np.bitwise_count(vals[0] & bit_mask(bits)).astype(u64), kn, 32)]
    if op == "clz":
        return [(dst, np.array([bits - (int(x) & ((1 << bits) - 1)).bit_length() for x in vals[0]], dtype=u64), kn,
                 32)]
    if op == "brev":
        return [(dst, np.array([int(f"{int(x) & ((1 << bits) - 1):0{bits}b}"[::-1], 2) for x in vals[0]],
                               dtype=u64), kn, bits)]
    return None


def shfl_idx(m: Machine, st: State, ins: Instr, where: np.ndarray) -> None:
    """``shfl.sync.idx.b32 d[|p], a, b, c, membermask`` (PTX ISA 9.7.9.7): ``segmask = c[12:8]``, ``minLane =
    lane & segmask``, ``maxLane = minLane | (c[4:0] & ~segmask)``, ``j = minLane | (b[4:0] & ~segmask)``; ``d`` is
    lane ``j``'s ``a`` when ``j <= maxLane`` (``p`` true), else the lane's own ``a``. Triton reads the warp id this
    way (``shfl.sync.idx.b32 %r, %tid/32, 0, 31, -1``). A source lane outside the group or not executing, an
    unknown operand: unknown."""
    ops = ins.operands
    dst, _, pred = ops[0].partition("|")
    a, ak = m.value(st, ops[1], 32)
    b, bk = m.value(st, ops[2], 32)
    c, ck = m.value(st, ops[3], 32)
    lane = m.lane_of[st.threads].astype(np.uint64)
    seg = (c >> np.uint64(8)) & np.uint64(31)
    min_lane = lane & seg
    max_lane = min_lane | (c & np.uint64(31) & ~seg)
    j = min_lane | (b & np.uint64(31) & ~seg)
    pval = j <= max_lane
    j = np.where(pval, j, lane)
    warps = m.warp_of[st.threads]
    keys = warps * 32 + m.lane_of[st.threads]
    order = np.argsort(keys, kind="stable")
    want = warps * 32 + j.astype(np.int64)
    pos = np.clip(np.searchsorted(keys[order], want), 0, keys.size - 1)
    src = order[pos]
    found = (keys[src] == want) & where[src]
    m.write(st, dst.strip(), a[src], ak[src] & found & bk & ck, 32, where)
    if pred.strip():
        m.write(st, pred.strip(), pval.astype(np.uint64), bk & ck, 1, where)
