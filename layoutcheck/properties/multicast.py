"""``multicast_cover``: in a cluster, every row of every CTA's operand tile is written exactly once, by a TMA that
carries that CTA's own tile (``layoutcheck.models.multicast``).

Rules, checked in this order (the witness is the first broken one, at the smallest destination and row):

- ``outside``: a TMA writes a row outside ``0 .. extent-1`` or into a CTA outside the cluster (a mask bit past it);
- ``foreign``: CTA ``c`` writes its slice into a CTA ``d`` that needs another tile (``needs(c) != needs(d)``): ``d``
  computes with another M- (N-) block's rows;
- ``missing`` / ``twice``: a row of ``d``'s tile is written by no TMA (it keeps stale data; the full barrier's
  transaction count is short and the wait never completes) or by two (the count overshoots).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from layoutcheck.models.multicast import Multicast
from layoutcheck.properties.base import Decision, Property
from layoutcheck.witness_paths import MulticastWrite


def _cta(m: Multicast, rank: int) -> str:
    return f"CTA (x={rank % m.cluster[0]}, y={rank // m.cluster[0]})" if 0 <= rank < m.ctas else f"rank {rank}"


@dataclass(frozen=True, eq=False)
class MulticastCover(Property):
    """Every row ``0 .. extent-1`` of every CTA's tile of ``multicast.operand`` is written once by a TMA of the
    cluster that carries that CTA's tile, and no TMA writes anywhere else (module docstring)."""

    multicast: Multicast
    name: ClassVar[str] = "multicast_cover"

    def subjects(self) -> tuple[Any, ...]:
        return ()

    def subject(self) -> str:
        m = self.multicast
        return (f"{m.operand} in a {m.cluster[0]}x{m.cluster[1]} cluster, {m.extent} rows per CTA: slice_start = "
                f"{m.slice_start}, slice_rows = {m.slice_rows}, mask = {m.mask}, needs = {m.needs}")

    def domain_size(self) -> int:
        return self.multicast.ctas * self.multicast.extent

    def _violations(self) -> list[MulticastWrite]:
        m = self.multicast
        needs = m.per_cta["needs"]
        out = []
        count: dict[tuple[int, int], list[int]] = {}
        for d, r, c in m.writes():
            if not (0 <= d < m.ctas and 0 <= r < m.extent):
                out.append(MulticastWrite(rule="outside", dest=d, row=r, issuers=[c]))
            elif needs[c] != needs[d]:
                out.append(MulticastWrite(rule="foreign", dest=d, row=r, issuers=[c]))
            else:
                count.setdefault((d, r), []).append(c)
        for d in range(m.ctas):
            for r in range(m.extent):
                got = count.get((d, r), [])
                if len(got) != 1:
                    out.append(MulticastWrite(rule="missing" if not got else "twice", dest=d, row=r, issuers=got))
        order = {"outside": 0, "foreign": 1, "missing": 2, "twice": 2}
        return sorted(out, key=lambda w: (order[w.rule], w.dest, w.row))

    def exhaustive(self) -> Decision:
        bad = self._violations()
        stats = {"ctas": self.multicast.ctas, "rows": self.multicast.extent}
        return Decision(True, None, stats) if not bad else Decision(False, bad[0], stats)

    def recheck(self, w: dict[str, Any]) -> bool:
        """Recount the TMAs that write row ``row`` of ``dest`` from the writes themselves."""
        m = self.multicast
        hits = [c for d, r, c in m.writes() if d == w["dest"] and r == w["row"]]
        if w["rule"] == "outside":
            return bool(hits) and not (0 <= w["dest"] < m.ctas and 0 <= w["row"] < m.extent)
        needs = m.per_cta["needs"]
        if w["rule"] == "foreign":
            return any(needs[c] != needs[w["dest"]] for c in hits)
        own = [c for c in hits if needs[c] == needs[w["dest"]]]
        return len(own) == 0 if w["rule"] == "missing" else len(own) > 1

    def explain(self, w: dict[str, Any]) -> str:
        m = self.multicast
        d, r, rule = w["dest"], w["row"], w["rule"]
        who = ", ".join(_cta(m, c) for c in w["issuers"])
        if rule == "outside":
            where = f"row {r}" + ("" if 0 <= r < m.extent else f" (outside 0..{m.extent - 1})")
            return f"{who}'s TMA writes {where} of {m.operand} into {_cta(m, d)}" + \
                ("" if 0 <= d < m.ctas else f", outside the {m.cluster[0]}x{m.cluster[1]} cluster")
        if rule == "foreign":
            needs = m.per_cta["needs"]
            c = w["issuers"][0]
            return (f"{who}'s TMA writes row {r} of its {m.operand} tile (tile {needs[c]}) into {_cta(m, d)}, which "
                    f"needs tile {needs[d]}")
        if rule == "missing":
            return (f"row {r} of {_cta(m, d)}'s {m.operand} tile is written by no TMA (stale data; its full barrier "
                    "never receives the bytes it expects)")
        return f"row {r} of {_cta(m, d)}'s {m.operand} tile is written by {len(w['issuers'])} TMAs ({who})"


def multicast_cover(multicast: Multicast) -> MulticastCover:
    """The ``multicast_cover`` claim of ``multicast``."""
    return MulticastCover(multicast)


__all__ = ["MulticastCover", "multicast_cover"]
