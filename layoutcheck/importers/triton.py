"""Triton TTGIR encodings -> ``LinearLayout``s, with Triton's own semantics (its ``toLinearLayout``).

``from_triton("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1,
0]}>", [128, 64])`` returns the layout Triton builds for that encoding and tensor shape: input dimensions
``register, lane, warp, block`` (distributed encodings), ``offset, block`` (shared encodings) or ``row, col``
(tensor memory), output dimensions ``dim0, dim1, ...`` in tensor order. The constructions follow
``lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp`` (read, not copied):

- a *CTA tile* is built per encoding as a product of 1-D identities in the encoding's order (first = most minor);
- ``combine_cta_cga``: the tile is *grown* to the per-CTA shape by repeating it in registers (``offset`` for
  shared layouts), one output dimension at a time in the tile's output order, and *shrunk* where it is larger by
  zeroing its largest bases in that dimension (a broadcast); the CTA-cluster layout (``block``) multiplies last;
- ``#ttg.slice<{dim, parent}>``: the parent on the shape with a 1 inserted at ``dim``, that dimension dropped, zero
  register bases removed;
- ``#ttg.nvidia_mma`` (v2 mma.sync, v3 wgmma): per warp ``kWidth = 2`` registers x 4 lanes on the inner dimension,
  8 lanes on the outer, then registers over the instruction tile; warps in row-major (v2) or column-major (v3)
  order; ``#ttg.dot_op<{opIdx, parent = #nvidia_mma, kWidth}>``: the same tile on ``16 x 8*kWidth`` (A) or
  ``8*kWidth x 8`` (B) with warps broadcast along K;
- ``#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>``: row ``r`` of the two most minor dimensions is XORed
  with ``vec * ((r / perPhase) % maxPhase)``; ``#ttg.nvmma_shared``: 8-row core matrices of the swizzle width
  (``swizzlingByteWidth``), tiled over the TMA box; ``#ttg.padded_shared``: its linear part (the padding, ``+p``
  elements every ``i``, is reported by ``padding``); ``#ttg.linear`` / ``#ttg.shared_linear``: the bases as given;
  ``#ttng.tensor_memory_encoding<blockM, blockN, colStride>``: TMEM rows and columns.

Whole files: ``parse_ttgir(text)`` reads every ``#alias = #ttg...`` definition, every ``tensor<AxBx..xT, #enc>``
and ``!ttg.memdesc<...>`` use, and the module's ``ttg.threads-per-warp`` / ``ttg.num-warps`` / ``ttg.num-ctas``;
``import_ttgir`` turns each distinct (encoding, shape) into a ``LinearLayout``, and keeps one it cannot build (an
encoding not modelled here, such as ``#ttg.amd_mfma``; a shape that is not a power of two) with the reason, never
dropping it. Malformed text raises ``ParseError`` naming the offending token.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from layoutcheck.algebra.linear_layout import LinearLayout
from layoutcheck.errors import LayoutError, ParseError

# -- a small parser for MLIR attribute text ----------------------------------------------------------------------
_TOK = re.compile(r"\s*(?:(?P<attr>#[A-Za-z_][\w.$-]*)|(?P<int>-?\d+)|(?P<name>[A-Za-z_][\w.$-]*)"
                  r"|(?P<str>\"[^\"]*\")|(?P<punct>[<>{}\[\](),=:+x]))")


@dataclass(frozen=True, slots=True)
class Attr:
    """A parsed attribute: ``#dialect.kind<...>`` with its named parameters (``params``) and, for
    ``#ttg.padded_shared``, the padding intervals ``[(interval, padding), ...]``; ``pos`` is its column in ``text``."""

    kind: str
    params: tuple[tuple[str, Any], ...]
    text: str = field(compare=False)
    pos: int = field(compare=False, default=0)
    intervals: tuple[tuple[int, int], ...] = ()

    def get(self, key: str, default: Any = ...) -> Any:
        for k, v in self.params:
            if k == key:
                return v
        if default is ...:
            raise ParseError(self.text, self.pos, f"{self.kind} needs the parameter {key!r}")
        return default


def _found(kind: str, val: str) -> str:
    return "end of text" if kind == "end" else repr(val)


class _Parser:
    def __init__(self, text: str, aliases: Mapping[str, Attr | str] | None = None) -> None:
        self.text, self.pos, self.aliases = text, 0, aliases or {}

    def peek(self) -> tuple[str, str, int]:
        m = _TOK.match(self.text, self.pos)
        if m is None or m.end() == m.start():
            rest = self.text[self.pos:]
            if rest.strip() == "":
                return ("end", "", len(self.text))
            at = self.pos + len(rest) - len(rest.lstrip())
            return ("bad", self.text[at], at)
        kind = m.lastgroup or "bad"
        return (kind, m.group(kind), m.start(kind))

    def next(self) -> tuple[str, str, int]:
        tok = self.peek()
        if tok[0] == "bad":
            raise ParseError(self.text, tok[2], f"unexpected character {tok[1]!r}")
        if tok[0] != "end":
            m = _TOK.match(self.text, self.pos)
            assert m
            self.pos = m.end()
        return tok

    def expect(self, value: str) -> int:
        kind, val, pos = self.next()
        if val != value:
            raise ParseError(self.text, pos, f"expected {value!r}, found {_found(kind, val)}")
        return pos

    def attr(self) -> Attr:
        kind, val, pos = self.next()
        if kind != "attr":
            raise ParseError(self.text, pos, f"expected an attribute such as '#ttg.blocked<...>', found "
                                             f"{_found(kind, val)}")
        if "." not in val:  # an alias
            if val[1:] not in self.aliases:
                raise ParseError(self.text, pos, f"unknown alias {val!r} (no '{val} = ...' definition)")
            got = self.aliases[val[1:]]
            return got if isinstance(got, Attr) else parse_attr(got, self.aliases)
        name = val[1:]
        if self.peek()[1] != "<":
            return Attr(name, (), self.text, pos)
        self.expect("<")
        intervals: list[tuple[int, int]] = []
        if name.endswith("padded_shared") and self.peek()[1] == "[":
            self.expect("[")
            while self.peek()[1] != "]":
                i = self.integer()
                self.expect(":")
                self.expect("+")
                intervals.append((i, self.integer()))
                if self.peek()[1] == ",":
                    self.next()
            self.expect("]")
        braced = self.peek()[1] == "{"
        if braced:
            self.next()
        params = self.params("}" if braced else ">")
        if braced:
            self.expect("}")
            if self.peek()[1] == ",":  # trailing ``, alignment = 16`` after the dictionary
                self.next()
                params += self.params(">")
        self.expect(">")
        return Attr(name, tuple(params), self.text, pos, tuple(intervals))

    def params(self, close: str) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        while self.peek()[1] != close:
            kind, key, pos = self.next()
            if kind not in ("name", "str"):
                raise ParseError(self.text, pos, f"expected a parameter name, found "
                                                 f"{_found(kind, key)}")
            self.expect("=")
            out.append((key.strip('"'), self.value()))
            if self.peek()[1] == ",":
                self.next()
            elif self.peek()[1] != close:
                k, v, p = self.peek()
                raise ParseError(self.text, p, f"expected ',' or {close!r}, found {_found(k, v)}")
        return out

    def integer(self) -> int:
        kind, val, pos = self.next()
        if kind != "int":
            raise ParseError(self.text, pos, f"expected an integer, found {_found(kind, val)}")
        return int(val)

    def value(self) -> Any:
        kind, val, pos = self.peek()
        if kind == "int":
            self.next()
            if self.peek()[1] == ":":  # ``4 : i32``
                self.next()
                self.next()
            return int(val)
        if kind == "name" and val in ("true", "false"):
            self.next()
            return val == "true"
        if kind == "name":
            self.next()
            return val
        if kind == "str":
            self.next()
            return val.strip('"')
        if kind == "attr":
            return self.attr()
        if val == "[":
            self.next()
            items = []
            while self.peek()[1] != "]":
                items.append(self.value())
                if self.peek()[1] == ",":
                    self.next()
                elif self.peek()[1] != "]":
                    k, v, p = self.peek()
                    raise ParseError(self.text, p, f"expected ',' or ']', found {_found(k, v)}")
            self.next()
            return items
        raise ParseError(self.text, pos, f"expected a value, found {_found(kind, val)}")


def parse_attr(text: str, aliases: Mapping[str, Attr | str] | None = None) -> Attr:
    """Parse one attribute (``#ttg.blocked<{...}>``, or an alias ``#blocked`` defined in ``aliases``).

    >>> parse_attr("#ttg.slice<{dim = 1, parent = #ttg.blocked<{order = [0]}>}>").get("dim")
    1
    """
    p = _Parser(text, aliases)
    a = p.attr()
    kind, val, pos = p.peek()
    if kind != "end":
        raise ParseError(text, pos, f"unexpected {val!r} after a complete attribute")
    return a


# -- linear-layout helpers with Triton's names -------------------------------------------------------------------
def dims(rank: int) -> list[str]:
    """Triton's ``standardOutDimNames``: ``dim0 .. dim{rank-1}``."""
    return [f"dim{i}" for i in range(rank)]


def identity_nd(in_dim: str, shape: Sequence[int], order: Sequence[int]) -> LinearLayout:
    """Triton's ``identityStandardND``: identities over ``shape`` in ``order`` (first = most minor); the result's
    output dimensions are listed in that order."""
    ll = LinearLayout.empty()
    names = dims(len(shape))
    for d in order:
        ll = ll * LinearLayout.identity_1d(shape[d], in_dim, names[d])
    return ll


def matrix_order(rank: int, row_major: bool) -> list[int]:
    """Triton's ``getMatrixOrder``: ``[rank-1, ..., 0]``, the two minor entries swapped for column-major."""
    order = list(range(rank - 1, -1, -1))
    if not row_major:
        order[0], order[1] = order[1], order[0]
    return order


def dot_operand_order(op_idx: int, rank: int) -> list[int]:
    """Triton's ``getOrderForDotOperand(opIdx, rank, kContig=true)``: K fastest."""
    return matrix_order(rank, row_major=bool(op_idx) != True)  # noqa: E712 -- mirrors the definition


def _log2_exact(n: int, what: str) -> int:
    if n < 1 or n & (n - 1):
        raise LayoutError(f"{what} must be a power of two, found {n}")
    return n.bit_length() - 1


def ensure_not_smaller(ll: LinearLayout, shape: Mapping[str, int], names: Sequence[str] | None = None
                       ) -> LinearLayout:
    """Triton's ``ensureLayoutNotSmallerThan``: repeat along the first input dimension (``register``/``offset``)
    until each output dimension (in ``names`` order, default the layout's) reaches ``shape``."""
    k = ll.in_dims[0]
    for n in names or ll.out_names:
        have = ll.out_dim_size(n) if n in ll.out_names else 1
        if shape[n] > have:
            ll = ll * LinearLayout.identity_1d(shape[n] // have, k, n)
    return ll


def ensure_not_larger(ll: LinearLayout, shape: Mapping[str, int], broadcast_registers: bool = True) -> LinearLayout:
    """Triton's ``ensureLayoutNotLargerThan``: where an output dimension is larger than ``shape``, zero its largest
    bases (any input dimension) until it fits; ``broadcast_registers=False`` drops such register bases instead."""
    bases = {n: [list(b) for b in bs] for n, bs in ll.in_bases}
    dropped: set[int] = set()
    for k, (out, size) in enumerate(ll.out_dims):
        want = shape[out]
        if size <= want:
            continue
        cands = [(b[k], n, j) for n, bs in bases.items() for j, b in enumerate(bs) if b[k]]
        cands.sort(key=lambda t: -t[0])  # stable: equal values keep the input-dimension order
        for _, n, j in cands:
            if size <= want:
                break
            if n == "register" and not broadcast_registers:
                dropped.add(j)
            else:
                bases[n][j][k] = 0
            size //= 2
    if dropped:
        bases["register"] = [b for j, b in enumerate(bases["register"]) if j not in dropped]
    sizes = {n: min(s, shape[n]) for n, s in ll.out_dims}
    return LinearLayout.make(bases, sizes)


def _cga_layout(attr: Attr, rank: int, shape: Sequence[int]) -> LinearLayout:
    """The ``block`` layout: ``CGALayout = [[...], ...]`` bases (in CTA-tile units), the older
    ``CTAsPerCGA / CTASplitNum / CTAOrder`` triple, or none (one CTA)."""
    names = dims(rank)
    cga = attr.get("CGALayout", None) or attr.get("CTALayout", None)
    if isinstance(cga, Attr):  # #ttg.cga<{CTAsPerCGA, CTASplitNum, CTAOrder}>
        attr, cga = cga, None
    if isinstance(cga, list):
        sizes = [1] * rank
        for b in cga:
            if not isinstance(b, list) or len(b) != rank:
                raise ParseError(attr.text, attr.pos, f"CGALayout basis {b} must have {rank} entries")
            for d, v in enumerate(b):
                sizes[d] = max(sizes[d], 1 << int(v).bit_length())
        return LinearLayout.make({"block": cga}, dict(zip(names, sizes, strict=True)))
    per = attr.get("CTAsPerCGA", None)
    if per is None:
        return LinearLayout.make({"block": []}, dict.fromkeys(names, 1))
    split = attr.get("CTASplitNum")
    order = attr.get("CTAOrder")
    ll = LinearLayout.empty()
    for d in order:
        ll = ll * LinearLayout.identity_1d(split[d], "block", names[d]) * \
            LinearLayout.zeros_1d(per[d] // split[d], "block", names[d])
    return ll.transpose_outs(names)


def combine_cta_cga(cta: LinearLayout, cga: LinearLayout, shape: Sequence[int]) -> LinearLayout:
    """Triton's ``combineCtaCgaWithShape``: fit the CTA tile to ``shape / (CTAs per dimension)``, then append the
    ``block`` layout; outputs in tensor order."""
    names = dims(len(shape))
    labeled = dict(zip(names, shape, strict=True))
    cga = ensure_not_larger(cga, labeled).transpose_outs(cta.out_names)
    cta_shape = {n: max(1, labeled[n] // cga.out_dim_size(n)) for n in cta.out_names}
    cta = ensure_not_larger(ensure_not_smaller(cta, cta_shape), cta_shape)
    out = (cta * cga).transpose_outs(names)
    for n, s in out.out_dims:
        if s != labeled[n]:
            raise LayoutError(f"internal: {n} has size {s}, the tensor {labeled[n]}")
    return out


# -- encodings ---------------------------------------------------------------------------------------------------
def _ints(attr: Attr, key: str, rank: int | None = None) -> list[int]:
    v = attr.get(key)
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise ParseError(attr.text, attr.pos, f"{attr.kind}: {key} must be a list of integers, found {v!r}")
    if rank is not None and len(v) != rank:
        raise ParseError(attr.text, attr.pos, f"{attr.kind}: {key} has {len(v)} entries, the tensor has rank {rank}")
    return v


# -- Triton releases ---------------------------------------------------------------------------------------------
TRITON_VERSIONS = ((3, 6), (3, 7), (3, 8), (3, 9))
"""The releases whose conversions are recorded (``tests/data/triton_versions/``, each by that release's own C++)."""

TRITON_VERSION_ENV = "LAYOUTCHECK_TRITON_VERSION"
"""Set by ``--triton-version`` (worker processes inherit it); else the installed Triton's version is followed."""


def parse_triton_version(text: str) -> tuple[int, int]:
    """``"3.6.0"`` / ``"3.6"`` -> ``(3, 6)``; a release outside ``TRITON_VERSIONS`` is a ``LayoutError``: its
    conversions were never compared, so no layout is claimed for it.

    >>> parse_triton_version("3.6.0")
    (3, 6)
    """
    m = re.match(r"\s*(\d+)\.(\d+)", text)
    if m is None:
        raise LayoutError(f"Triton version {text!r} is not MAJOR.MINOR[.PATCH]")
    v = (int(m.group(1)), int(m.group(2)))
    if v not in TRITON_VERSIONS:
        known = ", ".join(f"{a}.{b}" for a, b in TRITON_VERSIONS)
        raise LayoutError(f"Triton {v[0]}.{v[1]}: layoutcheck follows the conversions of Triton {known} (each "
                          f"compared with that release's own); pass --triton-version with one of them")
    return v


def triton_version() -> tuple[int, int]:
    """The Triton release whose conversions are followed: ``$LAYOUTCHECK_TRITON_VERSION`` (``--triton-version``),
    else the installed ``triton`` package's version (read from its metadata, never imported), else the newest of
    ``TRITON_VERSIONS``."""
    text = os.environ.get(TRITON_VERSION_ENV) or _installed_triton()
    return TRITON_VERSIONS[-1] if text is None else parse_triton_version(text)


@cache
def _installed_triton() -> str | None:
    """The installed ``triton`` distribution's version (its metadata, read once per process: ~2 ms), or None."""
    from importlib import metadata

    try:
        return metadata.version("triton")
    except metadata.PackageNotFoundError:
        return None


def _clips_size_per_thread(version: tuple[int, int]) -> bool:
    """Whether a blocked layout's ``sizePerThread`` is cut to the tensor before the tile is built (no register
    broadcast): from Triton 3.9 on (``tests/data/triton_versions``). Triton 3.6 to 3.8 build the whole
    ``sizePerThread`` and zero the register bases past the tensor (a thread holds the element more than once)."""
    return version >= (3, 9)


def _blocked(a: Attr, shape: Sequence[int], version: tuple[int, int]) -> LinearLayout:
    r = len(shape)
    order = _ints(a, "order", r)
    cga = _cga_layout(a, r, shape)
    per_cta = [max(1, s // cga.out_dim_size(n)) for n, s in zip(dims(r), shape, strict=True)]
    spt = _ints(a, "sizePerThread", r)
    if _clips_size_per_thread(version):
        spt = [min(p, s) for p, s in zip(spt, per_cta, strict=True)]  # no register broadcast
    cta = identity_nd("register", spt, order) * \
        identity_nd("lane", _ints(a, "threadsPerWarp", r), order) * \
        identity_nd("warp", _ints(a, "warpsPerCTA", r), order)
    return combine_cta_cga(cta, cga, shape)


def mma_tile(tile: Sequence[int], k_width: int, order: Sequence[int], rep_order: Sequence[int]) -> LinearLayout:
    """Triton's ``nvidiaMmaTile``: kWidth registers and 4 lanes along the inner dimension, 8 lanes along the outer,
    then registers repeating over the outer and the inner dimension of ``tile``."""
    names = dims(len(rep_order))
    ll = identity_nd("register", [1] * len(rep_order), rep_order)
    inner, outer = order[0], order[1]
    m, n = tile[outer], tile[inner]
    for size, ind, d in ((k_width, "register", inner), (4, "lane", inner), (8, "lane", outer),
                         (m // 8, "register", outer), (n // (k_width * 4), "register", inner)):
        ll = ll * LinearLayout.identity_1d(size, ind, names[d])
    return ll


def _mma_version(a: Attr) -> int:
    v = a.get("versionMajor")
    if v not in (2, 3):
        raise ParseError(a.text, a.pos, f"nvidia_mma versionMajor {v} is not supported (2: mma.sync, 3: wgmma)")
    return v


def _warps_broadcast(warps: Sequence[int], order: Sequence[int], k_dim: int) -> LinearLayout:
    """Triton's ``broadcastedDotOperandLayout`` for warps: identity except zeros along ``k_dim``."""
    names = dims(len(warps))
    ll = LinearLayout.empty()
    for d in order:
        one = LinearLayout.zeros_1d if d == k_dim else LinearLayout.identity_1d
        ll = ll * one(warps[d], "warp", names[d])
    return ll


def _nvidia_mma(a: Attr, shape: Sequence[int]) -> LinearLayout:
    r = len(shape)
    ver = _mma_version(a)
    instr = _ints(a, "instrShape")
    warps = _ints(a, "warpsPerCTA", r)
    tile = list(instr) if ver == 2 else [*([1] * (r - 2)), instr[0], instr[1]]
    if ver == 2 and len(tile) != r:
        tile = [*([1] * (r - len(tile))), *tile]
    order = matrix_order(r, row_major=True)
    cta = mma_tile(tile, 2, order, matrix_order(r, row_major=True))
    cta = cta * identity_nd("warp", warps, matrix_order(r, row_major=ver != 3)).transpose_outs(cta.out_names)
    return combine_cta_cga(cta, _cga_layout(a, r, shape), shape)


def _dot_op(a: Attr, shape: Sequence[int]) -> LinearLayout:
    r = len(shape)
    parent = a.get("parent")
    if not isinstance(parent, Attr) or parent.kind != "ttg.nvidia_mma":
        raise ParseError(a.text, a.pos, f"dot_op: only an #ttg.nvidia_mma parent is supported, found "
                                        f"{parent.kind if isinstance(parent, Attr) else parent!r}")
    op, kw = a.get("opIdx"), a.get("kWidth")
    if op not in (0, 1) or not isinstance(kw, int) or kw < 1:
        raise ParseError(a.text, a.pos, f"dot_op: opIdx must be 0 or 1 and kWidth a positive int, found {op}, {kw}")
    ver = _mma_version(parent)
    if op == 1 and ver == 3:
        raise ParseError(a.text, a.pos, "dot_op: wgmma (nvidia_mma v3) takes operand B from shared memory, "
                                        "there is no register layout for opIdx = 1")
    tile = [1] * r
    tile[r - 2], tile[r - 1] = (16, kw * 8) if op == 0 else (kw * 8, 8)
    order = dot_operand_order(op, r)
    cta = mma_tile(tile, kw, order, order)
    k_dim = r - 1 if op == 0 else r - 2
    warps = _warps_broadcast(_ints(parent, "warpsPerCTA", r), matrix_order(r, row_major=ver != 3), k_dim)
    cta = cta * warps.transpose_outs(cta.out_names)
    return combine_cta_cga(cta, _dot_cga(parent, r, shape, k_dim), shape)


def _dot_cga(parent: Attr, rank: int, shape: Sequence[int], k_dim: int) -> LinearLayout:
    """The parent's ``block`` layout with the K coordinate zeroed (operands are broadcast along K)."""
    cga = _cga_layout(parent, rank, shape)
    bases = {"block": [[0 if d == k_dim else v for d, v in enumerate(b)] for b in cga.bases.get("block", [])]}
    return LinearLayout.make(bases, list(cga.out_names))


def _slice(a: Attr, shape: Sequence[int], version: tuple[int, int]) -> LinearLayout:
    d = a.get("dim")
    parent = a.get("parent")
    if not isinstance(parent, Attr):
        raise ParseError(a.text, a.pos, f"slice: parent must be an attribute, found {parent!r}")
    if not isinstance(d, int) or not 0 <= d <= len(shape):
        raise ParseError(a.text, a.pos, f"slice: dim {d!r} is outside the parent's rank {len(shape) + 1}")
    pshape = [*shape[:d], 1, *shape[d:]]
    p = to_linear(parent, pshape, version)
    names = dims(len(shape))
    bases: dict[str, list[list[int]]] = {}
    for n, bs in p.in_bases:
        kept = [[v for k, v in enumerate(b) if k != d] for b in bs]
        bases[n] = [b for b in kept if any(b)] if n == "register" else kept
    return LinearLayout.make(bases, dict(zip(names, shape, strict=True)))


def _linear(a: Attr, shape: Sequence[int], ins: Sequence[str]) -> LinearLayout:
    bases = {n: a.get(n, []) for n in ins}
    for n, bs in bases.items():
        if not isinstance(bs, list) or any(not isinstance(b, list) or len(b) != len(shape) for b in bs):
            raise ParseError(a.text, a.pos, f"{a.kind}: {n} must be a list of {len(shape)}-entry bases, found {bs!r}")
    ll = LinearLayout.make(bases, dict(zip(dims(len(shape)), shape, strict=True)))
    return ll


def _cta_split(a: Attr, shape: Sequence[int]) -> tuple[list[str], LinearLayout, list[int]]:
    """A shared layout's dims, its CGA (``block``) layout, and the per-CTA shape: each dim the CGA splits divided by
    the CTAs along it."""
    names = dims(len(shape))
    cga = _cga_layout(a, len(shape), shape)
    return names, cga, [s // cga.out_dim_size(n) if n in cga.out_names else s
                        for n, s in zip(names, shape, strict=True)]


def _swizzled_shared(a: Attr, shape: Sequence[int]) -> LinearLayout:
    r = len(shape)
    names, cga, per_cta = _cta_split(a, shape)
    order = _ints(a, "order", r)
    if r == 1:
        return combine_cta_cga(LinearLayout.identity_1d(per_cta[0], "offset", "dim0"), cga, shape)
    vec, per_phase, max_phase = a.get("vec"), a.get("perPhase"), a.get("maxPhase")
    col, row = order[0], order[1]
    ncol, nrow = per_cta[col], per_cta[row]
    bases = [[0, 1 << j] for j in range(_log2_exact(ncol, "shared columns"))]
    bases += [[1 << j, (vec * (((1 << j) // per_phase) % max_phase)) % ncol]
              for j in range(_log2_exact(nrow, "shared rows"))]
    cta = LinearLayout.make({"offset": bases}, {names[row]: nrow, names[col]: ncol})
    for d in order[2:]:
        cta = cta * LinearLayout.identity_1d(per_cta[d], "offset", names[d])
    return combine_cta_cga(cta, cga, shape)


def tma_block_shape(a: Attr, shape: Sequence[int]) -> list[int]:
    """The TMA box of an ``nvmma_shared`` tensor (Triton's ``getTMABlockShape``, packed sizes): at most 256 per
    dimension, the contiguous one at most the swizzle width."""
    bits, width = a.get("elementBitWidth"), a.get("swizzlingByteWidth")
    out = [min(s, 256) for s in shape]
    contig = 0 if a.get("transposed", False) else len(shape) - 1
    if width:
        out[contig] = min(shape[contig], width * 8 // bits)
    return out


def _nvmma_shared(a: Attr, shape: Sequence[int]) -> LinearLayout:
    r = len(shape)
    names, cga, per_cta = _cta_split(a, shape)
    tma = tma_block_shape(a, per_cta)
    width, bits = a.get("swizzlingByteWidth"), a.get("elementBitWidth")
    transposed = a.get("transposed", False)
    if a.get("fp4Padded", False):
        raise ParseError(a.text, a.pos, "nvmma_shared: fp4Padded layouts are not supported")
    if width == 0:  # no swizzle: row-major over the box, or dim0 first when transposed
        order = [0, *range(r - 1, 0, -1)] if transposed else list(range(r - 1, -1, -1))
        ll = LinearLayout.empty()
        for i in order:
            ll = ll * LinearLayout.identity_1d(tma[i], "offset", names[i])
        ll = ensure_not_smaller(ll, dict(zip(names, per_cta, strict=True)), names)
        return combine_cta_cga(ll, cga, shape)
    if r < 2:
        raise ParseError(a.text, a.pos, "nvmma_shared with a swizzle needs rank >= 2")
    rows, cols = 1, tma[-1]
    for t in tma[:-1]:
        rows *= t
    if transposed:
        rows, cols = cols, rows
    tile = core_matrix(width, bits, a.get("vec", None))
    if cols < tile.out_dim_size("dim1") or rows < tile.out_dim_size("dim0"):
        raise LayoutError(f"nvmma_shared: the TMA box {tma} is smaller than one {width}-byte swizzle core matrix")
    ll = ensure_not_smaller(tile, {"dim0": rows, "dim1": cols})
    pre = [*tma[1:], tma[0]] if transposed else list(tma)
    ll = reshape_outs(ll, pre)
    if transposed:
        perm = [r - 1, *range(r - 1)]
        ll = LinearLayout.make({n: [[b[p] for p in perm] for b in bs] for n, bs in ll.in_bases},
                               dict(zip(names, [pre[p] for p in perm], strict=True)))
    ll = ensure_not_smaller(ll, dict(zip(names, per_cta, strict=True)), names)
    return combine_cta_cga(ll, cga, shape)


def core_matrix(width: int, bits: int, vec: int | None = None) -> LinearLayout:
    """One 8-row swizzle atom of ``nvmma_shared``: ``8 * max(16, width) / bits`` columns; row ``r`` XORs the column
    with ``vec * ((r / perPhase) % maxPhase)``, ``vec = 128 / bits``, ``perPhase = 128 / width``, ``maxPhase =
    width / 16`` (Triton's ``getCoreMatrixLinearLayout``)."""
    cols = 8 * max(16, width) // bits
    v = vec or max(1, 128 // bits)
    per_phase = max(1, 128 // width) if width else 1
    max_phase = max(1, width // 16) if width else 1
    bases = [[0, 1 << j] for j in range(_log2_exact(cols, "core-matrix columns"))]
    bases += [[1 << j, v * (((1 << j) // per_phase) % max_phase)] for j in range(3)]
    return LinearLayout.make({"offset": bases}, {"dim0": 8, "dim1": cols})


def reshape_outs(ll: LinearLayout, shape: Sequence[int]) -> LinearLayout:
    """Reshape a layout's outputs row-major (the last dimension most minor) to ``shape`` (Triton's
    ``reshapeLayout``): the flat row-major index is kept."""
    src = list(ll.out_shape)
    sbits = [_log2_exact(s, "reshape size") for s in src]
    dbits = [_log2_exact(s, "reshape size") for s in shape]
    if sum(sbits) != sum(dbits):
        raise LayoutError(f"reshape: {src} and {list(shape)} have different sizes")

    def flat(b: Sequence[int]) -> int:
        out = 0
        for v, k in zip(b, sbits, strict=True):
            out = (out << k) | v
        return out

    def unflat(x: int) -> list[int]:
        out = []
        for k in reversed(dbits):
            out.append(x & ((1 << k) - 1))
            x >>= k
        return out[::-1]

    bases = {n: [unflat(flat(b)) for b in bs] for n, bs in ll.in_bases}
    return LinearLayout.make(bases, dict(zip(dims(len(shape)), shape, strict=True)))


def _padded_shared(a: Attr, shape: Sequence[int]) -> LinearLayout:
    r = len(shape)
    if a.get("offset", None) is not None:
        return _linear(a, shape, ("offset", "block"))
    order = _ints(a, "order", r)
    base = a.get("shape", list(shape))
    ll = identity_nd("offset", base, order)
    ll = ensure_not_smaller(ll, dict(zip(dims(r), shape, strict=True)))
    return combine_cta_cga(ll, _cga_layout(a, r, shape), shape)


def padding(attr: str | Attr) -> tuple[tuple[int, int], ...]:
    """The ``(interval, padding)`` pairs of a ``#ttg.padded_shared`` encoding: ``+padding`` elements after every
    ``interval`` elements (empty for other encodings).

    >>> padding("#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>")
    ((32, 4),)
    """
    a = attr if isinstance(attr, Attr) else parse_attr(attr)
    return a.intervals


def _tmem(a: Attr, shape: Sequence[int]) -> LinearLayout:
    if len(shape) != 2:
        raise ParseError(a.text, a.pos, f"tensor_memory_encoding needs a rank-2 shape, found {list(shape)}")
    split_m, split_n = a.get("CTASplitM", 1), a.get("CTASplitN", 1)
    block_m, stride = a.get("blockM"), a.get("colStride", 1)
    m, n = shape
    if split_n > 1 or split_m > 1:
        sub = Attr(a.kind, tuple((k, 1 if k in ("CTASplitM", "CTASplitN") else v) for k, v in a.params), a.text,
                   a.pos)
        inner = _tmem(sub, [m // split_m, n // split_n])
        out = inner * LinearLayout.identity_1d(split_m, "col", "dim0") if split_m > 1 else inner
        return out * LinearLayout.identity_1d(split_n, "col", "dim1") if split_n > 1 else out
    block_n = min(a.get("blockN"), n)
    if block_m not in (64, 128):
        raise ParseError(a.text, a.pos, f"tensor_memory_encoding blockM must be 64 or 128, found {block_m}")
    cols = [[0, 0]] * _log2_exact(stride, "colStride") + [[0, 1 << k] for k in range(_log2_exact(block_n, "blockN"))]
    if block_m == 64:  # 16 rows per 32-lane quarter; bit 4 of the row picks the second 64-row half or block
        extra = [64, 0] if m > block_m else [0, block_n] if n > block_n else [0, 0]
        rows = [[1 << k, 0] for k in range(4)] + [extra, [16, 0], [32, 0]]
    else:
        rows = [[1 << k, 0] for k in range(_log2_exact(block_m, "blockM"))]
    tile = LinearLayout.make({"col": cols, "row": rows}, ["dim0", "dim1"])
    reps_m = m // tile.out_dim_size("dim0")
    reps_n = n // tile.out_dim_size("dim1")
    if reps_m < 1 or reps_n < 1:
        raise LayoutError(f"tensor_memory_encoding: the shape {list(shape)} is smaller than one {block_m}-row block")
    out = tile * LinearLayout.identity_1d(reps_m, "col", "dim0") * LinearLayout.identity_1d(reps_n, "col", "dim1")
    return out.transpose_outs(["dim0", "dim1"]).with_in_dims(["row", "col"])


_SHARED = {"ttg.swizzled_shared": _swizzled_shared, "ttg.nvmma_shared": _nvmma_shared,
           "ttg.padded_shared": _padded_shared}

# kind -> builder(attr, shape, version); only the builders whose result depends on the release read ``version``
_BUILDERS = {"ttg.blocked": _blocked, "ttg.slice": _slice,
             "ttg.nvidia_mma": lambda a, shape, v: _nvidia_mma(a, shape),
             "ttg.dot_op": lambda a, shape, v: _dot_op(a, shape),
             **{k: (lambda a, shape, v, f=f: f(a, shape)) for k, f in _SHARED.items()},
             "ttg.linear": lambda a, shape, v: _linear(a, shape, ("register", "lane", "warp", "block")),
             "ttg.shared_linear": lambda a, shape, v: _linear(a, shape, ("offset", "block")),
             "ttng.tensor_memory_encoding": lambda a, shape, v: _tmem(a, shape)}


def shared_rank(attr: Attr) -> int | None:
    """The rank of a shared encoding: its ``order``'s length, else its ``CGALayout`` bases' length, else its
    ``rank`` (``nvmma_shared`` prints none when it is 2, Gluon's default); ``None`` when the encoding does not say.
    A memdesc of higher rank is a multi-buffered allocation whose leading dimensions count buffers."""
    order = attr.get("order", None)
    if isinstance(order, list) and order:
        return len(order)
    cga = attr.get("CGALayout", None)
    if isinstance(cga, list) and cga and isinstance(cga[0], list):
        return len(cga[0])
    rank = attr.get("rank", None)
    if isinstance(rank, int):
        return rank
    return 2 if attr.kind == "ttg.nvmma_shared" else None


def is_shared(attr: Attr) -> bool:
    return attr.kind in _SHARED or attr.kind == "ttg.shared_linear"


def to_linear(attr: Attr, shape: Sequence[int], version: tuple[int, int] | None = None) -> LinearLayout:
    """The ``LinearLayout`` of a parsed encoding on ``shape`` (Triton's ``toLinearLayout(shape, attr)`` of release
    ``version``, default ``triton_version()``)."""
    shape = [int(s) for s in shape]
    for s in shape:
        _log2_exact(s, f"tensor shape {shape}: each dimension")
    if attr.kind in ("ttg.nvidia_mma", "ttg.dot_op", "ttng.tensor_memory_encoding") and len(shape) < 2:
        raise ParseError(attr.text, attr.pos, f"{attr.kind} needs a tensor of rank >= 2, found shape {shape}")
    build = _BUILDERS.get(attr.kind)
    if build is None:
        raise ParseError(attr.text, attr.pos, f"unsupported encoding #{attr.kind}")
    try:
        return build(attr, shape, triton_version() if version is None else version)
    except (LayoutError, ParseError):
        raise
    except (TypeError, IndexError, KeyError, ValueError, ZeroDivisionError, AttributeError) as e:
        # a parameter of the wrong type or size (e.g. a list where an int belongs): name the encoding
        raise ParseError(attr.text, attr.pos, f"#{attr.kind} does not fit shape {shape}: its parameters are "
                                              f"malformed ({type(e).__name__}: {e})") from None


def from_triton(encoding: str | Attr, shape: Sequence[int], aliases: Mapping[str, Attr | str] | None = None,
                version: tuple[int, int] | None = None) -> LinearLayout:
    """The linear layout Triton builds for ``encoding`` (attribute text as Triton prints it, aliases resolved
    through ``aliases``) on a tensor of ``shape``, as release ``version`` builds it (default ``triton_version()``:
    ``--triton-version``, else the installed Triton).

    Pre: every shape entry a power of two. Post: ``bases`` equal Triton's ``toLinearLayout(shape, encoding)``.

    >>> from_triton("#ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>",
    ...             [64]).bases
    {'register': [[1]], 'lane': [[2], [4], [8], [16], [32]], 'warp': [], 'block': []}
    """
    attr = encoding if isinstance(encoding, Attr) else parse_attr(encoding, aliases)
    return to_linear(attr, shape, version)


# -- whole .ttgir files ------------------------------------------------------------------------------------------
_ALIAS = re.compile(r"^\s*#(?P<name>[\w$.-]+)\s*=\s*(?P<attr>#(?:ttg|ttng)\..*)$", re.M)
_TYPE = re.compile(r"(?P<kind>tensor|!ttg\.memdesc)<")


@dataclass(frozen=True, slots=True)
class TensorUse:
    """One ``tensor<...>`` / ``!ttg.memdesc<...>`` type in a file: shape, element type, encoding, line."""

    kind: str
    shape: tuple[int, ...]
    element: str
    encoding: str
    line: int

    @property
    def elem_bits(self) -> int | None:
        m = re.search(r"(\d+)", self.element)
        if self.element.startswith("!tt.ptr"):
            return 64
        return int(m.group(1)) if m else None


@dataclass(frozen=True, slots=True)
class Ttgir:
    """A parsed ``.ttgir`` file: its encoding aliases (name -> attribute) and its typed uses."""

    aliases: dict[str, Attr]
    uses: tuple[TensorUse, ...]
    num_warps: int | None = None
    target: str | None = None
    texts: dict[str, str] = field(default_factory=dict)
    threads_per_warp: int | None = None
    num_ctas: int | None = None
    partition_warps: tuple[int, ...] = ()
    """Warp counts of ``ttg.warp_specialize`` partitions (``num_warps(k)``): a layout used there may have ``k``."""

    def module_sizes(self) -> dict[str, tuple[str, tuple[int, ...]]]:
        """What the module fixes for each input dimension of a distributed layout: ``lane`` ->
        (``ttg.threads-per-warp``, its value), ``warp`` -> (``ttg.num-warps``, the module's and every partition's
        count), ``block`` -> (``ttg.num-ctas``, its value); an attribute the module does not state is left out."""
        out: dict[str, tuple[str, tuple[int, ...]]] = {}
        if self.threads_per_warp is not None:
            out["lane"] = ("ttg.threads-per-warp", (self.threads_per_warp,))
        if self.num_warps is not None:
            out["warp"] = ("ttg.num-warps", tuple(dict.fromkeys((self.num_warps, *self.partition_warps))))
        if self.num_ctas is not None:
            out["block"] = ("ttg.num-ctas", (self.num_ctas,))
        return out

    def inline(self, encoding: str) -> str:
        """``encoding`` with every alias replaced by its definition (text a spec can keep on its own)."""
        out = encoding
        for _ in range(len(self.texts) + 1):
            new = re.sub(r"#([\w$.-]+)", lambda m: self.texts.get(m.group(1), m.group(0)), out)
            if new == out:
                break
            out = new
        return out


def balanced_end(text: str, start: int) -> int:
    """Index just past the ``>`` closing the ``<`` at ``start - 1`` (angle brackets nest; ``->`` is not one)."""
    depth, i = 1, start
    while i < len(text) and depth:
        c = text[i]
        if c == "<":
            depth += 1
        elif c == ">" and text[i - 1] != "-":
            depth -= 1
        i += 1
    return i


def parse_ttgir(text: str) -> Ttgir:
    """Read every encoding alias and every tensor / memdesc type of a TTGIR module.

    >>> t = parse_ttgir('#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], '
    ...                 'order = [0]}>\\n  %0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b>')
    >>> t.uses[0].shape, t.uses[0].encoding
    ((128,), '#b')
    """
    raw = {m.group("name"): m.group("attr").strip() for m in _ALIAS.finditer(text)}
    aliases: dict[str, Attr] = {}
    pending = dict(raw)
    for _ in range(len(raw) + 1):  # resolve aliases that refer to earlier ones (dot_op -> #mma)
        for name, body in list(pending.items()):
            try:
                aliases[name] = parse_attr(body, {**aliases, **{k: v for k, v in raw.items() if k in aliases}})
                del pending[name]
            except ParseError as e:
                if "unknown alias" not in e.what:
                    raise
    if pending:
        name = next(iter(pending))
        parse_attr(pending[name], aliases)  # raises naming the unknown alias
    uses = []
    for m in _TYPE.finditer(text):
        end = balanced_end(text, m.end())
        body = text[m.end():end - 1]
        use = type_use(m.group("kind"), body, text.count("\n", 0, m.start()) + 1)
        if use is not None:
            uses.append(use)
    target = re.search(r'ttg\.target\s*=\s*"([^"]+)"', text)
    partitions = tuple(int(k) for k in re.findall(r"\bnum_warps\((\d+)\)", text))
    return Ttgir(aliases, tuple(uses), _module_int(text, "ttg.num-warps"), target.group(1) if target else None,
                 raw, _module_int(text, "ttg.threads-per-warp"), _module_int(text, "ttg.num-ctas"), partitions)


def _module_int(text: str, key: str) -> int | None:
    """The integer module attribute ``"key" = N : i32`` (its first occurrence), or ``None``."""
    m = re.search(rf'"{re.escape(key)}"\s*=\s*(\d+)', text)
    return int(m.group(1)) if m else None


def type_use(kind: str, body: str, line: int) -> TensorUse | None:
    parts = _split_top(body)
    if len(parts) < 2 or not parts[1].startswith("#"):
        return None
    m = re.match(r"^((?:\d+x)*)(.+)$", parts[0])
    if m is None:
        return None
    shape = tuple(int(s) for s in m.group(1).split("x") if s)
    if not shape:
        return None
    return TensorUse("tensor" if kind == "tensor" else "memdesc", shape, m.group(2), parts[1], line)


def _split_top(body: str) -> list[str]:
    """Split at commas outside brackets."""
    out, depth, cur = [], 0, []
    for i, c in enumerate(body):
        if c in "<[{(":
            depth += 1
        elif c in ">]})" and not (c == ">" and body[i - 1] == "-"):
            depth -= 1
        if c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur).strip())
    return out


@dataclass(frozen=True, slots=True)
class Imported:
    """One distinct (encoding, shape) of a file, its layout (or why there is none) and where it is first used."""

    encoding: str
    shape: tuple[int, ...]
    kind: str
    element: str
    line: int
    layout: LinearLayout | None
    shared: bool
    skipped: str | None = None
    encoding_kind: str = ""
    """The encoding's kind (``ttg.blocked``, ``ttg.amd_mfma``, ...), aliases resolved."""


def import_ttgir(text: str) -> list[Imported]:
    """Every distinct (encoding, shape) of a TTGIR module as a ``LinearLayout``; uses whose layout does not exist
    (a shape that is not a power of two, a ``#smem`` barrier, tensor memory of scales) are kept with ``skipped``."""
    t = parse_ttgir(text)
    seen: dict[tuple[str, tuple[int, ...]], Imported] = {}
    for u in t.uses:
        key = (u.encoding, u.shape)
        if key in seen:
            continue
        try:
            attr = parse_attr(u.encoding, t.aliases)
        except ParseError as e:
            raise ParseError(e.text, e.pos, f"line {u.line}: {e.what}") from None
        shared = is_shared(attr) or attr.kind.startswith("ttng.")
        shape = u.shape
        rank = shared_rank(attr) if u.kind == "memdesc" else None
        if rank is not None and 0 < rank < len(shape):
            shape = shape[len(shape) - rank:]  # a multi-buffered allocation: leading dims count buffers
        try:
            seen[key] = Imported(u.encoding, u.shape, u.kind, u.element, u.line, to_linear(attr, shape), shared,
                                 None, attr.kind)
        except (LayoutError, ParseError) as e:
            why = e.what if isinstance(e, ParseError) else str(e)
            seen[key] = Imported(u.encoding, u.shape, u.kind, u.element, u.line, None, shared, why, attr.kind)
    return list(seen.values())


__all__ = [
    "Attr", "Imported", "TensorUse", "Ttgir", "combine_cta_cga", "core_matrix", "ensure_not_larger",
    "ensure_not_smaller", "from_triton", "identity_nd", "import_ttgir", "mma_tile", "padding", "parse_attr",
    "parse_ttgir", "reshape_outs", "shared_rank", "tma_block_shape", "to_linear",
]
