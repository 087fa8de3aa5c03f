"""What a TTGIR file implies: the claims Triton relies on for every layout the file uses, ready for ``prove``.

For each distinct (encoding, shape) of the file (``layoutcheck.importers.triton.import_ttgir``):

- a distributed encoding (``blocked``, ``nvidia_mma``, ``dot_op``, ``slice``, ``linear``) must be an *exact cover*
  of its tensor: every element held by some (register, lane, warp, block), and by several only through zero bases
  (a broadcast) -- Triton's lowering assumes both;
- a shared encoding (``swizzled_shared``, ``nvmma_shared``, ``padded_shared``'s linear part, ``shared_linear``) must
  be *bijective*: each offset one element, each element one offset (``injective`` and ``surjective``);
- a tensor-memory encoding must cover its tensor (``exact_cover`` over rows and columns);
- every ``ttg.local_load`` / ``ttg.local_store`` / ``ttg.local_alloc`` (from registers) between a register layout
  and a shared layout gets a ``conflict_free`` claim: informational (``required=False``), since a conflict costs
  time, not correctness. The access is modelled as ld/st.shared vectors of the widest register run that is
  contiguous in shared memory (Triton may choose ldmatrix/stmatrix instead).

Uses without a linear layout (a shape that is not a power of two, a barrier's ``#ttg.shared_memory``) are listed
with the reason in ``TtgirClaims.skipped``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from layoutcheck.importers.triton import (
    Imported,
    balanced_end,
    import_ttgir,
    parse_attr,
    parse_ttgir,
    to_linear,
    type_use,
)
from layoutcheck.properties.base import Property
from layoutcheck.properties.linear import LinearConflictFree, LinearExactCover, LinearInjective, LinearSurjective


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim about one layout of a file: where (``line``), about what (``subject``), and the property."""

    line: int
    subject: str
    prop: Property
    required: bool = True


@dataclass(frozen=True, slots=True)
class TtgirClaims:
    claims: tuple[Claim, ...]
    skipped: tuple[tuple[int, str, str], ...]  # (line, subject, reason)
    layouts: tuple[Imported, ...]


def _subject(imp: Imported) -> str:
    return f"{imp.encoding} {'x'.join(map(str, imp.shape))}x{imp.element}"


def layout_claims(imp: Imported) -> list[Claim]:
    """The claims Triton relies on for one imported layout."""
    assert imp.layout is not None
    s = _subject(imp)
    if imp.shared and "row" not in imp.layout.in_dims:
        return [Claim(imp.line, s, LinearInjective(imp.layout)), Claim(imp.line, s, LinearSurjective(imp.layout))]
    return [Claim(imp.line, s, LinearExactCover(imp.layout))]


_OPS = re.compile(r"ttg\.(?P<op>local_load|local_store|local_alloc)\b(?P<rest>.*)$", re.M)
_TYPES = re.compile(r"(tensor|!ttg\.memdesc)<")


def access_claims(text: str) -> list[Claim]:
    """A ``conflict_free`` claim for every register <-> shared copy of the file (identical ones once)."""
    t = parse_ttgir(text)
    out, seen = [], set()
    for m in _OPS.finditer(text):
        rest = m.group("rest")
        uses = []
        for tm in _TYPES.finditer(rest):
            end = balanced_end(rest, tm.end())
            u = type_use(tm.group(1), rest[tm.end():end - 1], 0)
            if u is not None:
                uses.append(u)
        reg = next((u for u in uses if u.kind == "tensor"), None)
        mem = next((u for u in uses if u.kind == "memdesc"), None)
        if reg is None or mem is None or reg.shape != mem.shape[-len(reg.shape):] or reg.elem_bits is None:
            continue
        key = (m.group("op"), reg.encoding, mem.encoding, reg.shape, reg.element)
        if key in seen:
            continue
        seen.add(key)
        try:
            rl = to_linear(parse_attr(reg.encoding, t.aliases), reg.shape)
            sl = to_linear(parse_attr(mem.encoding, t.aliases), reg.shape)
            prop = LinearConflictFree(rl, sl, reg.elem_bits, "ld" if m.group("op") == "local_load" else "st")
        except (ValueError, KeyError):
            continue
        line = text.count("\n", 0, m.start()) + 1
        out.append(Claim(line, f"{m.group('op')} {reg.encoding} <-> {mem.encoding} {'x'.join(map(str, reg.shape))}",
                         prop, required=False))
    return out


def ttgir_claims(text: str) -> TtgirClaims:
    """Every claim a TTGIR module implies (layouts first, then shared-memory accesses)."""
    layouts = import_ttgir(text)
    claims: list[Claim] = []
    skipped = []
    for imp in layouts:
        if imp.layout is None:
            skipped.append((imp.line, _subject(imp), imp.skipped or "no linear layout"))
        else:
            claims += layout_claims(imp)
    claims += access_claims(text)
    return TtgirClaims(tuple(claims), tuple(skipped), tuple(layouts))


__all__ = ["Claim", "TtgirClaims", "access_claims", "layout_claims", "ttgir_claims"]
