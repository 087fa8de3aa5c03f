"""Hypothesis strategies that *build* imported layouts for the semantics suite (``tests/semantics/
test_sem_imported.py``): Triton encodings with CTA-cluster (``CGALayout``) bases that split or replicate the tile,
encodings whose lanes / warps / CTAs contradict their module, encodings layoutcheck does not model, and TileLang
printouts whose declared output extents hold more slots than the map fills. Nothing here reads ``layoutcheck``.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st


def _pow2(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.integers(lo, hi).map(lambda k: 1 << k)


@st.composite
def _split(draw: st.DrawFn, total_bits: int, rank: int) -> list[int]:
    """``rank`` powers of two whose product is ``2**total_bits``."""
    cuts = sorted(draw(st.lists(st.integers(0, total_bits), min_size=rank - 1, max_size=rank - 1)))
    bits = [b - a for a, b in zip([0, *cuts], [*cuts, total_bits], strict=True)]
    return [1 << b for b in bits]


@st.composite
def cga_bases(draw: st.DrawFn, rank: int = 2, max_ctas_bits: int = 2) -> list[list[int]]:
    """``CGALayout`` bases: each a unit vector (the CTAs split that dimension) or zero (they replicate the tile),
    each dimension's powers increasing, as Triton builds them."""
    n = draw(st.integers(0, max_ctas_bits))
    nxt = [1] * rank
    out = []
    for _ in range(n):
        d = draw(st.integers(-1, rank - 1))  # -1: a zero basis (replication)
        b = [0] * rank
        if d >= 0:
            b[d] = nxt[d]
            nxt[d] *= 2
        out.append(b)
    return out


@dataclass(frozen=True)
class Blocked:
    spt: list[int]
    tpw: list[int]
    wpc: list[int]
    order: list[int]
    cga: list[list[int]]

    def text(self) -> str:
        cga = f", CGALayout = {self.cga}" if self.cga else ""
        return (f"#ttg.blocked<{{sizePerThread = {self.spt}, threadsPerWarp = {self.tpw}, warpsPerCTA = {self.wpc}, "
                f"order = {self.order}{cga}}}>")


@st.composite
def blocked(draw: st.DrawFn, rank: int = 2, lanes_bits: int = 5, warps_bits: int | None = None) -> Blocked:
    """A ``#ttg.blocked`` encoding with ``2**lanes_bits`` lanes and (by default) 1 to 8 warps, any order, a CGA."""
    wb = draw(st.integers(0, 3)) if warps_bits is None else warps_bits
    spt = [draw(_pow2(0, 2)) for _ in range(rank)]
    return Blocked(spt, draw(_split(lanes_bits, rank)), draw(_split(wb, rank)), draw(st.permutations(range(rank))),
                   draw(cga_bases(rank)))


@st.composite
def shapes(draw: st.DrawFn, rank: int = 2, lo: int = 0, hi: int = 7) -> tuple[int, ...]:
    return tuple(draw(_pow2(lo, hi)) for _ in range(rank))


@dataclass(frozen=True)
class Swizzled:
    vec: int
    per_phase: int
    max_phase: int
    order: list[int]
    cga: list[list[int]]

    def text(self) -> str:
        cga = f", CGALayout = {self.cga}" if self.cga else ""
        return (f"#ttg.swizzled_shared<{{vec = {self.vec}, perPhase = {self.per_phase}, maxPhase = {self.max_phase}, "
                f"order = {self.order}{cga}}}>")


@st.composite
def swizzled(draw: st.DrawFn) -> Swizzled:
    """A rank-2 ``#ttg.swizzled_shared`` with a CGA whose bases split or replicate the tile."""
    return Swizzled(draw(_pow2(0, 3)), draw(_pow2(0, 2)), draw(_pow2(0, 3)), draw(st.permutations(range(2))),
                    draw(cga_bases(2)))


@dataclass(frozen=True)
class Module:
    """A module's ``ttg.threads-per-warp``, ``ttg.num-warps``, ``ttg.num-ctas``."""

    threads: int
    warps: int
    ctas: int

    def wrap(self, aliases: list[str], uses: list[str]) -> str:
        """A TTGIR module defining ``#e0, #e1, ...`` and using each in one ``tt.splat`` (a tensor Triton verifies)."""
        head = "\n".join(f"#e{k} = {a}" for k, a in enumerate(aliases))
        body = "\n".join(f"    %{k} = tt.splat %p : !tt.ptr<f32> -> {u}" for k, u in enumerate(uses))
        return (f"{head}\nmodule attributes {{\"ttg.num-ctas\" = {self.ctas} : i32, \"ttg.num-warps\" = {self.warps} : "
                f"i32, ttg.target = \"cuda:90\", \"ttg.threads-per-warp\" = {self.threads} : i32}} {{\n"
                f"  tt.func public @k(%p: !tt.ptr<f32>) {{\n{body}\n    tt.return\n  }}\n}}\n")


@st.composite
def modules_and_blocked(draw: st.DrawFn) -> tuple[Module, Blocked, tuple[int, ...]]:
    """A blocked encoding and a module that may contradict it in lanes, warps or CTAs (half the time agreeing)."""
    enc = draw(blocked())
    agree = Module(32, _prod(enc.wpc), 1 << len(enc.cga))
    if draw(st.booleans()):
        return agree, enc, draw(shapes())
    which = draw(st.sampled_from(["threads", "warps", "ctas"]))
    other = {"threads": Module(draw(st.sampled_from([16, 64])), agree.warps, agree.ctas),
             "warps": Module(32, draw(_pow2(0, 4).filter(lambda w: w != agree.warps)), agree.ctas),
             "ctas": Module(32, agree.warps, draw(_pow2(0, 2).filter(lambda c: c != agree.ctas)))}[which]
    return other, enc, draw(shapes())


def _prod(xs: list[int]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


UNKNOWN_KINDS = ["ttg.amd_mfma", "ttg.amd_wmma", "ttg.amd_rotating_shared", "ttg.foo_layout"]


@st.composite
def unknown_encodings(draw: st.DrawFn) -> tuple[str, str]:
    """An encoding layoutcheck does not model, as ``(text, what the row must name)``: an AMD layout, an unknown
    kind, an ``nvidia_mma`` of another version, a ``dot_op`` or ``slice`` of an unmodelled parent."""
    kind = draw(st.sampled_from(UNKNOWN_KINDS))
    base = (f"#{kind}<{{version = {draw(st.integers(1, 4))}, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], "
            f"isTransposed = {draw(st.sampled_from(['true', 'false']))}}}>")
    ver = draw(st.sampled_from([1, 4, 5, 7]))
    mma = f"#ttg.nvidia_mma<{{versionMajor = {ver}, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}}>"
    return draw(st.sampled_from([
        (base, kind), (mma, f"versionMajor {ver}"),
        (f"#ttg.dot_op<{{opIdx = 0, parent = {base}, kWidth = 4}}>", "dot_op"),
        (f"#ttg.slice<{{dim = 1, parent = {base}}}>", kind)]))


@st.composite
def tilelang_layouts(draw: st.DrawFn) -> tuple[str, int, int]:
    """A row-major TileLang ``Layout`` printout ``(M, N) -> (E,)`` with ``E >= M*N`` (declared extents that may hold
    more slots than the map fills), as ``(text, points, slots)``."""
    m, n = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    extra = draw(st.sampled_from([0, 0, 1, m * n, 7]))
    e = m * n + extra
    return f"Layout(({m}, {n}) -> ({e},), transform: (_i, _j) -> (_i * {n} + _j,))", m * n, e


@st.composite
def tilelang_fragments(draw: st.DrawFn) -> tuple[str, int, int]:
    """A TileLang ``Fragment`` of an ``(M, N)`` tile, one element per thread and register ``_j // T``-style, whose
    printed register extent may exceed what the map fills, as ``(text, points, slots)``."""
    m, t = draw(st.sampled_from([1, 2, 4])), draw(st.sampled_from([4, 8, 32]))
    regs = draw(st.integers(1, 4))
    declared = regs + draw(st.sampled_from([0, 0, 1, 2]))
    n = t * regs // m if (t * regs) % m == 0 else t * regs
    m = m if (t * regs) % m == 0 else 1
    text = (f"Fragment(({m}, {n}) -> ({declared},), replicate: 1, thread: {t}, forward_thread: (_i * {n} + _j) % {t}, "
            f"forward_index: ((_i * {n} + _j) // {t},))")
    return text, m * n, t * declared


__all__ = ["UNKNOWN_KINDS", "Blocked", "Module", "Swizzled", "blocked", "cga_bases", "modules_and_blocked", "shapes",
           "swizzled", "tilelang_fragments", "tilelang_layouts", "unknown_encodings"]
