"""``conflict_free`` on the PTX road (``layoutcheck check FILE.ptx``) for every shared-memory access width -- 8-, 16-,
32-, 64-bit scalars and ``.v2`` / ``.v4`` vectors, loads and stores -- against a naive bank oracle, sharing no code
with ``layoutcheck.properties``, ``.models`` or ``.engines``. ``test_sem_ptx.py`` draws ``st.shared.b32`` only.

Authority: the CUDA Programming Guide's shared-memory banks (32 banks of 4-byte words; 64-bit accesses are served
per half-warp, 128-bit per quarter-warp; lanes reading one word share it) and ``docs/banks.md``'s measured merge
rule for wide loads, as ``test_sem_ttgir_smem._cost`` writes them; the address of lane ``t`` is computed here from
the kernel's arithmetic (``((t*S) ^ (((t >> k) << m) * X)) + B``, aligned to the access), so the PTX interpreter's
addresses and the bank rule are both judged.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import event, given, settings
from hypothesis import strategies as st

from layoutcheck.check import check_paths
from tests.semantics.test_sem_ttgir_smem import _cost

OPS = {"st.shared.b32": (4, "st"), "st.shared.v2.b32": (8, "st"), "st.shared.v4.b32": (16, "st"),
       "st.shared.b64": (8, "st"), "ld.shared.b32": (4, "ld"), "ld.shared.v2.b32": (8, "ld"),
       "ld.shared.v4.b32": (16, "ld"), "ld.shared.u16": (2, "ld"), "st.shared.u8": (1, "st"),
       "st.shared.b16": (2, "st"), "ld.shared.b64": (8, "ld")}


@st.composite
def accesses(draw) -> dict:
    op = draw(st.sampled_from(sorted(OPS)))
    return {"op": op, "S": draw(st.sampled_from([0, 1, 2, 4, 8, 12, 16, 20, 24, 32, 36, 64, 128, 132, 256])),
            "k": draw(st.integers(0, 5)), "m": draw(st.integers(0, 8)), "X": draw(st.sampled_from([0, 0, 1])),
            "B": draw(st.sampled_from([0, 0, 16, 128, 4]))}


def _mask(c: dict) -> int:
    return 0xFFFF & ~(OPS[c["op"]][0] - 1)


def naive_address(c: dict, t: int) -> int:
    return (((t * c["S"]) ^ (((t >> c["k"]) << c["m"]) * c["X"])) + c["B"]) & _mask(c)


def render(c: dict) -> str:
    nb, kind = OPS[c["op"]]
    if kind == "ld":
        dst = {1: "%rs1", 2: "%rs1", 4: "%r20", 8: "{%r20, %r21}" if "v2" in c["op"] else "%rd3",
               16: "{%r20, %r21, %r22, %r23}"}[nb]
        acc = f"{c['op']} {dst}, [%r5];"
    else:
        src = {1: "%rs1", 2: "%rs1", 4: "%r0", 8: "{%r0, %r0}" if "v2" in c["op"] else "%rd3",
               16: "{%r0, %r0, %r0, %r0}"}[nb]
        acc = f"{c['op']} [%r5], {src};"
    return (".version 8.0\n.target sm_90a\n.address_size 64\n.extern .shared .align 16 .b8 global_smem[];\n"
            ".visible .entry k()\n.reqntid 64\n{\n    .reg .b16 %rs<4>;\n    .reg .b32 %r<40>;\n    .reg .b64 %rd<4>;\n"
            "    mov.u32 %r0, %tid.x;\n    cvt.u16.u32 %rs1, %r0;\n    cvt.u64.u32 %rd3, %r0;\n"
            f"    mul.lo.u32 %r1, %r0, {c['S']};\n    shr.u32 %r6, %r0, {c['k']};\n    shl.b32 %r7, %r6, {c['m']};\n"
            f"    mul.lo.u32 %r8, %r7, {c['X']};\n    xor.b32 %r2, %r1, %r8;\n    add.u32 %r9, %r2, {c['B']};\n"
            f"    and.b32 %r3, %r9, {_mask(c)};\n    mov.u32 %r4, global_smem;\n    add.s32 %r5, %r4, %r3;\n"
            f"    {acc}\n    ret;\n}}\n")


def naive_conflict_free(c: dict) -> bool:
    nb, kind = OPS[c["op"]]
    for w in range(2):
        total, ideal = _cost(nb, kind, [naive_address(c, t) for t in range(32 * w, 32 * w + 32)])
        if total != ideal:
            return False
    return True


@settings(max_examples=60, deadline=None)
@given(accesses(), st.integers(0, 10**6))
def test_conflict_free_of_every_access_width(tmp_path_factory, c, salt) -> None:
    f = Path(tmp_path_factory.mktemp("ptx")) / f"k{salt}.ptx"
    f.write_text(render(c))
    want = "PROVEN" if naive_conflict_free(c) else "REFUTED"
    event(f"{c['op']} {want}")
    assert [r.status for r in check_paths([str(f)])] == [want], c
