"""Where a PTX kernel's divergent branches reconverge: the immediate post-dominator of each branch.

A warp whose lanes take different sides of a branch runs each side with the lanes that took it (a warp-instruction's
access is the set of its active lanes) and runs on as one warp again where every path from the branch meets: the
branch's *immediate post-dominator* (the first instruction that every path from the branch to the kernel's end passes
through). Compilers reconverge there: ptxas brackets a divergent region with ``BSSY`` / ``BSYNC`` at that point, and
``ldmatrix`` / ``stmatrix`` / ``wgmma`` (``.sync.aligned``) require the whole warp to execute them together.

The graph: basic blocks start at instruction 0, at each label and after each ``bra`` / ``ret`` / ``exit``; a ``bra``
goes to its label (and on, when guarded), ``ret`` / ``exit`` to the end (and on, when guarded). Post-dominators are
the usual fixed point ``pdom(b) = {b} | intersection of pdom(s) over the successors s`` from the end node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol


class _Ins(Protocol):
    opcode: str
    operands: tuple[str, ...]
    guard: str


@dataclass(frozen=True)
class Cfg:
    """The control-flow graph of an instruction list (``labels``: name -> instruction index)."""

    instrs: Sequence[_Ins]
    labels: Mapping[str, int]

    @cached_property
    def starts(self) -> tuple[int, ...]:
        """The first instruction of every basic block, in order."""
        n = len(self.instrs)
        s = {0, *(i for i in self.labels.values() if i < n)}
        s |= {i + 1 for i, ins in enumerate(self.instrs) if ins.opcode in ("bra", "ret", "exit") and i + 1 < n}
        return tuple(sorted(s))

    def successors(self, start: int) -> tuple[int, ...]:
        """The blocks after the block at ``start`` (``-1``: the kernel's end)."""
        n = len(self.instrs)
        i = self._last(start)
        ins = self.instrs[i]
        nxt = i + 1 if i + 1 < n else -1
        if ins.opcode == "bra":
            to = self.labels.get(ins.operands[-1], -1) if ins.operands else -1
            to = to if 0 <= to < n else -1
            return (to, nxt) if ins.guard else (to,)
        if ins.opcode in ("ret", "exit"):
            return (nxt, -1) if ins.guard else (-1,)
        return (nxt,)

    def _last(self, start: int) -> int:
        k = self.starts.index(start)
        return (self.starts[k + 1] if k + 1 < len(self.starts) else len(self.instrs)) - 1

    @cached_property
    def _pdom(self) -> dict[int, frozenset[int]]:
        every = frozenset((*self.starts, -1))
        pdom: dict[int, frozenset[int]] = {b: every for b in self.starts}
        pdom[-1] = frozenset({-1})
        changed = True
        while changed:
            changed = False
            for b in reversed(self.starts):
                succ = self.successors(b)
                new = frozenset({b}) | frozenset.intersection(*(pdom[s] for s in succ))
                if new != pdom[b]:
                    pdom[b], changed = new, True
        return pdom

    def block_of(self, pc: int) -> int:
        """The start of the block holding instruction ``pc``."""
        return max(s for s in self.starts if s <= pc)

    def reconvergence(self, pc: int) -> int | None:
        """The immediate post-dominator of the block ending at branch ``pc``: the first instruction of the block
        where its paths meet; ``None`` when they meet only at the kernel's end."""
        b = self.block_of(pc)
        strict = self._pdom[b] - {b}
        # the immediate post-dominator is the strict post-dominator that every other strict one post-dominates
        for c in strict:
            if strict <= self._pdom[c]:
                return None if c == -1 else c
        return None


__all__ = ["Cfg"]
