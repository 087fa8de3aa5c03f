"""Device-side TMA tensor maps in a PTX run: the fields ``tensormap.replace`` writes, and the TMA loads that use them.

Triton builds the tensor map of a ``tl.make_tensor_descriptor`` in the kernel (PTX ISA 9.7.9.27
``tensormap.replace``, 9.7.9.28 ``tensormap.cp_fenceproxy``): one thread zero-fills a 128-byte shared scratch with
``st.shared``, sets fields with ``tensormap.replace.tile.<field>.shared::cta.b1024.bN [scratch], [ord,] value``, and
warp 0 copies the scratch to a global slot; ``cp.async.bulk.tensor.Nd.shared::cta.global... [dst], [map, {c..}],
[mbar]`` then names the slot. ``TensorMaps`` follows that chain over a run: the fields of every scratch (a field not
replaced is 0 where the scratch was zero-filled, else unknown), the snapshot each slot receives, and every TMA load
with its destination and the fields of its map. A value the run does not know, or one the lanes disagree on, is
recorded as unknown, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

FIELDS = ("global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride", "elemtype",
          "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode")
"""The fields ``tensormap.replace.tile`` sets (PTX ISA 9.7.9.27); ``box_dim`` .. ``element_stride`` take an ordinal."""


@dataclass(frozen=True, slots=True)
class TmaLoad:
    """One ``cp.async.bulk.tensor`` global -> shared issued in warp ``warp``: its shared ``dst`` byte address, the
    tensor map's fields (``{(field, ord): value}``; ``None`` when the map is not one the run built) and ``unknown``
    (why the destination or the map could not be read)."""

    pc: int
    warp: int
    dst: int | None
    fields: dict[tuple[str, int], int] | None
    unknown: str = ""


@dataclass
class TensorMaps:
    scratch: dict[int, dict[tuple[str, int], int]] = field(default_factory=dict)
    slots: dict[int, dict[tuple[str, int], int] | None] = field(default_factory=dict)
    zero_words: set[int] = field(default_factory=set)
    loads: list[TmaLoad] = field(default_factory=list)

    def stored(self, addr: np.ndarray, value: tuple[np.ndarray, np.ndarray] | None, width: int) -> None:
        """An ``st.shared`` of ``width`` bytes at the active lanes' ``addr`` with ``value`` (``None``: unknown)."""
        zero = value is not None and bool(value[1].all()) and not bool(value[0].any())
        for a in np.unique(addr):
            for w in range(int(a) // 4, -(-(int(a) + width) // 4)):
                (self.zero_words.add if zero else self.zero_words.discard)(w)

    def replace(self, name: str, ordinal: int, at: int | None, value: int | None) -> None:
        if at is None:
            return
        if value is None:
            self.scratch.setdefault(at, {})[(name, ordinal)] = -1
        else:
            self.scratch.setdefault(at, {})[(name, ordinal)] = value

    def publish(self, slot: int | None, at: int | None) -> None:
        """``tensormap.cp_fenceproxy`` of the scratch at ``at`` to the global ``slot``."""
        if slot is None:
            return
        if at is None or at not in self.scratch:
            self.slots[slot] = None
            return
        snap = dict(self.scratch[at])
        zeroed = all(w in self.zero_words for w in range(at // 4, at // 4 + 32))
        snap["zeroed", 0] = int(zeroed)
        self.slots[slot] = None if any(v == -1 for v in snap.values()) else snap


def uniform(values: np.ndarray, known: np.ndarray) -> int | None:
    """The one value every lane holds, or ``None``."""
    if not known.all() or values.size == 0:
        return None
    u = np.unique(values)
    return int(u[0]) if u.size == 1 else None


def field_of(fields: dict[tuple[str, int], int], name: str, ordinal: int = 0) -> int | None:
    """A field's value: replaced, else 0 where the scratch was zero-filled, else ``None``."""
    if (name, ordinal) in fields:
        return fields[(name, ordinal)]
    return 0 if fields.get(("zeroed", 0)) else None


__all__ = ["FIELDS", "TensorMaps", "TmaLoad", "field_of", "uniform"]
_ = Any
