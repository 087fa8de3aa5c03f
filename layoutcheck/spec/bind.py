"""Binding: a config's property requests -> property objects of ``layoutcheck.properties``.

``build_property(cfg, req)`` is the only place that knows how spec keys map onto the property API. Per kind:

    ==========  ====================================================================================================
    kind        subject the property is built on
    ==========  ====================================================================================================
    layout      ``layout`` (``equivalent`` against ``other``; ``codomain`` for surjective/bijective/in_bounds;
                ``composes``: ``layout == lhs o rhs``)
    tv          ``tv`` over ``tile`` (``vectorizable`` on ``memory o tv`` when ``memory`` is given)
    tiled_mma   the operand's ``(thread, value) -> tile index`` map on its CTA tile (``mma_cta_tile``, ``mma_thrfrg``)
    smem        ``smem_layout`` (``layout``, or a GMMA atom tiled to ``tile``) and ``smem_access``
    tma         a ``TmaBox`` descriptor with the shared-memory layout and the box dimension of each layout mode
    wgmma       the ``(MN, K)`` stage layout (``smem_layout``, or the GMMA atom of ``swizzle`` tiled to ``tile``),
                its wgmma descriptors (``descriptor``, or built from ``wgmma_swizzle``'s layout, or from the stage)
                and, for ``tma_wgmma``, the ``tma`` kind's box
    ==========  ====================================================================================================

The dispatch follows the one registry, ``spec.schema``: ``BINDERS`` (spec kind -> the binder its ``KindSpec`` names in
``BINDER_FUNCTIONS``) and ``PROPERTIES`` (property name -> its claim's public constructor, keyed by the
constructor's own name); a binder is called with the claim's constructor, the config and the request. A new
property is one ``PropertySpec`` and its constructor here; a new kind one ``KindSpec`` and its binder here.

A value that does not fit the property raises
``SpecError`` naming ``file:line``, the config and the key; a config that breaks a law of its subject (a permutation
that is not one) raises ``Unsound``, which the check turns into a REFUTED row with that law's counterexample.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from layoutcheck.algebra.inttuple import flatten, prefix_product
from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.errors import ComplementError, LayoutError, SpecError
from layoutcheck.expr.formula import IndexFormula
from layoutcheck.hw.banks import access_kind
from layoutcheck.hw.mma import mma_atom
from layoutcheck.memo import memoised
from layoutcheck.models.banks.access import Access, access_from_expr, access_from_tv, byte_addresses
from layoutcheck.models.gmma import WRITERS
from layoutcheck.models.tiled_mma import TiledMMA, make_tiled_mma, tile_frame
from layoutcheck.models.tma import TmaBox, mma_smem_layout
from layoutcheck.properties.banks import conflict_free, wavefront_count
from layoutcheck.properties.base import Property
from layoutcheck.properties.block_scale import scale_agreement, scale_follows_tile
from layoutcheck.properties.composition import composes
from layoutcheck.properties.datapath import datapath
from layoutcheck.properties.descriptors import descriptor_fields, umma_describes
from layoutcheck.properties.gmma import gmma_addresses, gmma_fields, tma_wgmma
from layoutcheck.properties.layout import bijective, equivalent, in_bounds, injective, surjective
from layoutcheck.properties.multicast import multicast_cover
from layoutcheck.properties.pipeline import pipeline_protocol
from layoutcheck.properties.residue import residue_cover, schedule_bijection, tile_partition
from layoutcheck.properties.tma import tma_compatible
from layoutcheck.properties.tmem import (
    scale_ownership,
    tmem_allocation,
    tmem_exact_cover,
    tmem_packed_injective,
    tmem_subpartition,
)
from layoutcheck.properties.tmem_copy import tmem_copy_image
from layoutcheck.properties.tv import exact_cover, vectorizable
from layoutcheck.spec.bind_block_scale import bind_scale_factors
from layoutcheck.spec.bind_datapath import bind as bind_paths
from layoutcheck.spec.bind_tcgen05 import (
    bind_block_scale,
    bind_descriptor_format,
    bind_tmem,
    bind_tmem_copy,
    bind_umma_instr,
    bind_umma_smem,
)
from layoutcheck.spec.schema import KINDS, Config, PropertyRequest
from layoutcheck.spec.values import DTYPE_BITS, TMA_DTYPES, WGMMA_ATOM_ORDER, one_line

PropertyBuilder = Callable[..., Property]
PROPERTIES: dict[str, PropertyBuilder] = {claim.__name__: claim for claim in (
    injective, surjective, bijective, equivalent, in_bounds, exact_cover, vectorizable, conflict_free,
    wavefront_count, tma_compatible, gmma_addresses, gmma_fields, tma_wgmma, residue_cover, schedule_bijection,
    tile_partition, umma_describes, descriptor_fields, tmem_exact_cover, tmem_subpartition, tmem_allocation,
    tmem_packed_injective, scale_ownership, composes, datapath, scale_agreement, scale_follows_tile,
    pipeline_protocol, multicast_cover, tmem_copy_image,
)}
"""Property name -> the public constructor of its claim, which bears the property's name (``spec.schema.PROPERTY_SPECS``
declares the property; add its constructor here)."""


class Unsound(Exception):
    """A config is well formed but breaks a law its subject must obey before the property can even be stated (a
    tiled MMA's ``permutation`` that is not a permutation). ``claim`` is that law as a property of its own, which the
    check proves to obtain a counterexample; ``what`` names the part, ``key`` the spec key that holds it."""

    def __init__(self, claim: Property, what: str, key: str) -> None:
        super().__init__(what)
        self.claim, self.what, self.key = claim, what, key


def per_config(fn: Callable[[Config], Any]) -> Callable[[Config], Any]:
    """``fn(cfg)`` computed once per config (its claims share the subject it builds); a config whose values cannot be
    hashed is built again on each call. Pre: ``fn`` is a pure function of the config; an exception is not kept."""
    return memoised(8)(fn)


def subject(cfg: Config, req: PropertyRequest | None = None) -> Any:
    """The layout-like object a config describes (for ``show``/``vectors`` and for the property binding)."""
    if cfg.kind in ("layout",):
        return cfg.get("layout")
    if cfg.kind == "tv":
        return cfg.get("tv")
    if cfg.kind == "smem":
        return smem_layout(cfg)
    if cfg.kind == "tiled_mma":
        return tiled_mma(cfg)
    raise cfg.error("kind", f"kind {cfg.kind!r} has no layout subject")


@per_config
def smem_layout(cfg: Config) -> Layout | ComposedLayout:
    """The config's shared-memory layout: ``layout`` as written, or a GMMA ``atom`` tiled to ``tile``."""
    if cfg.get("layout") is not None:
        return cfg.get("layout")
    from layoutcheck.algebra.tiling import tile_to_shape
    from layoutcheck.hw.smem import gmma_smem_atom

    atom = dict(cfg.get("atom") if not isinstance(cfg.get("atom"), str) else ())
    if not atom:
        raise cfg.error("atom", "kind 'smem' takes an atom table { major, mode }")
    try:
        a = gmma_smem_atom(atom["major"], atom["mode"], DTYPE_BITS[cfg.get("dtype")])
    except LayoutError as e:
        raise cfg.error("atom", one_line(e)) from None
    try:
        tiled = tile_to_shape(a.layout, cfg.get("tile"))
    except LayoutError as e:
        raise cfg.error("tile", f"the {a.layout} atom does not tile it: {one_line(e)}") from None
    return ComposedLayout(a.element_swizzle, 0, tiled)


@per_config
def tiled_mma(cfg: Config) -> TiledMMA:
    """Build the config's TiledMMA. A ``permutation`` entry is CuTe's tiler of that mode (``thrfrg`` takes
    ``logical_divide`` by it), so any layout is accepted; what it does to the partition is for the properties."""
    try:
        atom = mma_atom(cfg.get("atom"))
    except LayoutError as e:
        raise cfg.error("atom", one_line(e)) from None
    except KeyError:
        raise cfg.error("atom", f"unknown MMA atom {cfg.get('atom')!r}") from None
    perm = tuple(cfg.get("permutation") or ())
    perm = perm + (None,) * (3 - len(perm))
    for name, p in zip("MNK", perm, strict=True):
        if isinstance(p, Layout):
            _injective_tiler(p, name)
    try:
        return make_tiled_mma(atom, cfg.get("atom_layout", (1, 1, 1)), perm)
    except LayoutError as e:
        raise cfg.error("permutation" if cfg.get("permutation") else "atom_layout", one_line(e)) from None


def _injective_tiler(p: Layout, name: str) -> None:
    """CuTe's ``logical_divide`` takes the complement of the tiler, which needs it injective once its stride-0 modes
    are dropped (``complement`` skips them): a tiler that is not breaks that law (``Unsound``, refuted by a
    collision of its non-broadcast modes)."""
    kept = [(s, d) for s, d in zip(flatten(p.shape), flatten(p.stride), strict=True) if d != 0 and s > 1]
    core = Layout(tuple(s for s, _ in kept) or 1, tuple(d for _, d in kept) or 0)
    if len(set(core.offsets().tolist())) != size(core):
        raise Unsound(injective(core), f"permutation {name} = {p} is not an injective tiler (its modes other than "
                      f"stride 0, {core}, collide): CuTe's complement, and so logical_divide, is not defined",
                      "permutation")


def tile_shape(cfg: Config) -> tuple[int, ...]:
    """The config's ``tile`` as a tuple of extents."""
    return tuple(cfg.get("tile"))


def build_property(cfg: Config, req: PropertyRequest) -> Property:
    """The property object for one request, built by the kind's binder (``BINDERS``).

    Raises ``SpecError`` (file:line:key) when the config's values do not fit the property, ``Unsound`` when the
    config breaks a law of its subject (the check refutes that law instead).
    """
    try:
        return BINDERS[cfg.kind](PROPERTIES[req.name], cfg, req)
    except (SpecError, Unsound):
        raise
    except LayoutError as e:
        raise SpecError(f"{cfg.file}:{req.line or cfg.line}: config {cfg.name!r}: property {req.name!r}: "
                        f"{one_line(e)}", file=cfg.file, line=req.line or cfg.line, key="properties") from None


def _no_codomain(cfg: Config, req: PropertyRequest, about: str) -> None:
    """A subject whose claims are about its own output space reads no parameter (``bound``, ``codomain``,
    ``replication``) and no config ``codomain``: one given is an input error, never dropped (it used to be: PROVEN
    onto a codomain, or with a replication, no one checked)."""
    if req.params:
        raise cfg.error("properties", f"property {req.name!r} {about}; it takes no {req.params[0][0]!r} (nor "
                                      "'bound' or 'codomain')")
    if cfg.get("codomain") is not None:
        raise cfg.error("codomain", f"has no meaning when the layout is one whose claims are about its own output "
                                    f"space: property {req.name!r} {about}")


def _tv_memory(cfg: Config, lay: Any) -> Any:
    """A TV config's map to memory offsets: ``memory o tv`` when a ``memory`` layout is given, else ``tv``.

    A ``memory`` that is not a layout of the ``tile`` (it would read a tile element at another coordinate, or past
    its domain) raises ``Unsound`` with the ``on_tile`` claim (REFUTED at that element); a composition CuTe cannot
    express as a layout (its divisibility conditions) is a ``SpecError`` saying so: not modelled, never assumed.
    """
    mem = cfg.get("memory")
    if mem is None:
        return lay
    from layoutcheck.algebra.ops import composition
    from layoutcheck.properties.composition import on_tile

    claim = on_tile(mem, tile_shape(cfg))
    if not claim.exhaustive().holds:
        raise Unsound(claim, f"memory {mem} is not a layout of the tile {list(tile_shape(cfg))}", "memory")
    try:
        if isinstance(mem, ComposedLayout):
            return ComposedLayout(mem.swizzle, mem.offset, composition(mem.layout, lay))
        return composition(mem, lay)
    except LayoutError as e:
        raise cfg.error("memory", f"not modelled: memory o tv is not a CuTe layout ({one_line(e)}); the claim is "
                                  f"stated on layouts only") from None


def _dtype_bytes(cfg: Config, req: PropertyRequest) -> int:
    dtype = req.get("dtype", cfg.get("dtype"))
    if dtype is None:
        raise cfg.error("dtype", f"property {req.name!r} needs the config's 'dtype' (e.g. \"f16\")")
    return max(1, DTYPE_BITS[dtype] // 8)


def bind_layout(fn: PropertyBuilder, cfg: Config, req: PropertyRequest) -> Property:
    unrequested(cfg, LAYOUT_READERS)
    lay = subject(cfg, req)
    name = req.name
    if req.get("operand") is not None:  # it picks a tiled MMA's operand; a layout or TV map has none to pick
        raise cfg.error("properties", f"property {name!r}: parameter 'operand' has no meaning when the config is a "
                                      f"{cfg.kind} (one map; 'operand' picks a tiled_mma's A, B or C)")
    if name == "equivalent":
        other = req.get("other", cfg.get("other"))
        if other is None:
            raise cfg.error("other", "property 'equivalent' needs 'other' (a layout to compare with)")
        return fn(lay, other)  # any two forms (properties.equivalence): CuTe, Triton, TileLang, formula
    if isinstance(lay, IndexFormula):  # layout (or tv) = { formula = ..., coords = ... }
        from layoutcheck.properties.formula import formula_property

        tile_n = size(Layout(tile_shape(cfg))) if cfg.kind == "tv" else None
        bound = req.get("bound", req.get("codomain", cfg.get("codomain", tile_n)))
        try:
            return formula_property(name, lay, bound, tile_n, req.get("replication"))
        except LayoutError as e:
            raise cfg.error("tv" if cfg.kind == "tv" else "layout", one_line(e)) from None
    if hasattr(lay, "in_bases"):  # a Triton linear layout (layout = { triton = ..., shape = ... })
        from layoutcheck.properties.linear import linear_property

        _no_codomain(cfg, req, "of a Triton linear layout is about its own output space (its `shape`)")
        return linear_property(name, lay)
    if hasattr(lay, "forward_index"):  # a TileLang map without a CuTe or linear form (layout = { tilelang = ... })
        from layoutcheck.properties.tilelang import tilelang_property

        _no_codomain(cfg, req, "of a TileLang map is about its printed output extents")
        return tilelang_property(name, lay)
    if name == "exact_cover" and cfg.kind == "layout":
        raise cfg.error("properties", "exact_cover on kind 'layout' needs a triton layout; use kind 'tv' (with "
                                      "'tile') for a CuTe TV layout")
    tile_n = size(Layout(tile_shape(cfg))) if cfg.kind == "tv" else None
    if name == "composes":
        lhs, rhs = req.get("lhs", cfg.get("lhs")), req.get("rhs", cfg.get("rhs"))
        if lhs is None or rhs is None:
            raise cfg.error("lhs" if lhs is None else "rhs", "property 'composes' needs 'lhs' and 'rhs' (layout = "
                                                             "lhs o rhs)")
        return fn(lay, lhs, rhs)
    if name in ("surjective", "bijective"):
        return fn(lay, req.get("codomain", cfg.get("codomain", tile_n)))
    if name == "in_bounds":
        bound = req.get("bound", cfg.get("codomain", tile_n))
        if bound is None:
            raise cfg.error("properties", "property 'in_bounds' needs a 'bound' (or the config's 'codomain')")
        return fn(lay, bound)
    if name == "vectorizable":
        width = req.get("width")
        if width is None:
            raise cfg.error("properties", "property 'vectorizable' needs a 'width' in bytes (e.g. 16)")
        return fn(_tv_memory(cfg, lay) if cfg.kind == "tv" else lay, width, _dtype_bytes(cfg, req))
    if name == "exact_cover":
        return fn(lay, tile_shape(cfg), req.get("replication"))
    return fn(lay)


def bind_tiled_mma(fn: PropertyBuilder, cfg: Config, req: PropertyRequest) -> Property:
    """Properties of the whole CTA tile: the operand's ``(thread index, value) -> tile index`` map over every thread
    of the TiledMMA (``TiledMMA.tv_layout``: the threads the operand does not span replicate it). ``exact_cover``
    defaults to the MMA's own replication (ThrN for A, ThrM for B, 1 for C: a split-K C is a double write). A
    partition that runs past the tile (tilers that do not divide it) is indexed in its frame: ``exact_cover`` and
    ``injective`` judge it there; any other claim is refuted by the elements outside the tile (``Unsound``)."""
    unrequested(cfg, {"other": ("equivalent",)})
    mma = tiled_mma(cfg)
    operand = req.get("operand", cfg.get("operand", "C"))
    tile = mma_cta_tile(cfg, mma, operand)
    tv, frame = mma_thrfrg(cfg, mma, operand, tile)
    if req.name == "exact_cover":
        return fn(tv, tile, req.get("replication", mma.replication(operand)), frame=frame)
    if req.name == "injective":
        return fn(tv)
    if frame != tile:
        raise Unsound(exact_cover(tv, tile, mma.replication(operand), frame=frame),
                      f"the {operand} partition runs past the {tile[0]}x{tile[1]} tile (its tilers do not divide it)",
                      "tile")
    if req.name == "equivalent":  # e.g. an epilogue's store map against the accumulator layout
        other = req.get("other", cfg.get("other"))
        if other is None:
            raise cfg.error("other", "property 'equivalent' needs 'other' (the (thread, value) -> tile index map)")
        return fn(tv, other)
    if req.name == "in_bounds":  # the user's bound (it used to be dropped for the tile's size: a false PROVEN)
        return fn(tv, req.get("bound", size(Layout(tile))))
    return fn(tv)


def mma_cta_tile(cfg: Config, mma: TiledMMA, operand: str) -> tuple[int, int]:
    """The (rows, cols) of ``operand`` in the config's CTA ``tile`` = [M, N] or [M, N, K] (K defaults to the MMA's)."""
    t = tile_shape(cfg)
    if len(t) not in (2, 3):
        raise cfg.error("tile", f"a tiled_mma tile is [M, N] or [M, N, K], found {list(t)}")
    m, n = t[0], t[1]
    k = t[2] if len(t) == 3 else mma.tile_size_mnk[2]
    return {"A": (m, k), "B": (n, k), "C": (m, n)}[operand]


def mma_thrfrg(cfg: Config, mma: TiledMMA, operand: str, tile: tuple[int, int]) -> tuple[Layout, tuple[int, int]]:
    """``(tv, frame)`` of ``operand`` on ``tile`` (``models.tiled_mma.tile_frame``): ``(thread index, value) ->``
    colex index of the element's tile coordinate in ``frame``, which is ``tile`` unless the partition runs past it;
    a tiler CuTe's ``complement`` refuses (its sorted modes overlap) is an error on ``permutation``, a partition
    the model cannot place (a negative coordinate) one on ``tile``."""
    try:
        return tile_frame(mma, operand, tile)
    except LayoutError as e:  # a tiler CuTe's complement refuses is the permutation's fault, anything else the tile's
        key = "permutation" if cfg.get("permutation") and isinstance(e, ComplementError) else "tile"
        raise cfg.error(key, one_line(e)) from None


def smem_access(cfg: Config, req: PropertyRequest) -> Access | str:
    """The access of a smem config: a kind name (the canonical tile access), or an ``Access`` built from
    ``access_tv`` (``(32 lanes, V) -> element``) or ``access_expr`` over ``access_ranges``."""
    kind = req.get("access", cfg.get("access"))
    if kind is None:
        raise cfg.error("access", f"property {req.name!r} needs an 'access' (e.g. \"ldsm_x4\", \"sts32\")")
    bits = DTYPE_BITS[cfg.get("dtype")]
    try:
        access_kind(kind)
        if cfg.get("access_tv") is not None:
            tv = cfg.get("access_tv")
            if not isinstance(tv, Layout):
                raise cfg.error("access_tv", "an access TV map cannot be swizzled")
            return access_from_tv(kind, tv, bits, f"{kind} by {tv}")
        if cfg.get("access_expr") is not None:
            acc = access_from_expr(kind, cfg.get("access_expr"), bits, dict(cfg.get("access_ranges", ())))
            try:
                byte_addresses(smem_layout(cfg), acc)  # each lane's vector inside the layout and contiguous
            except LayoutError as e:
                raise LayoutError(f"{one_line(e)} ({ACCESS_EXPR_MEANING})") from None
            return acc
    except LayoutError as e:
        key = "access_tv" if cfg.get("access_tv") is not None else "access_expr"
        raise cfg.error(key if cfg.get(key) is not None else "access", one_line(e)) from None
    return kind


ACCESS_EXPR_MEANING = ("access_expr is the first element of each lane's vector, as a colex index into the layout's "
                       "domain; the vector runs on along that index (+1, +2, ...) and must be contiguous in memory; "
                       "each value of the loop variables is one instruction (specs/README.md)")


def no_meaning(cfg: Config, rules: tuple[tuple[str, bool, str], ...]) -> None:
    """An accepted key that would be ignored is an input error, never a silent no-op (a user who writes it believes
    it was checked): for each ``(key, ignored, when)`` with ``key`` given and ``ignored`` true, raise ``key 'k': has
    no meaning when ...``."""
    for key, ignored, when in rules:
        if ignored and cfg.get(key) is not None:
            raise cfg.error(key, f"has no meaning when {when}")


def unrequested(cfg: Config, readers: dict[str, tuple[str, ...]]) -> None:
    """A key only some properties read (``readers``: key -> them) given in a config that requests none of them is
    an input error naming it: it would be ignored, and whoever wrote it believes it was checked (``other`` without
    ``equivalent``, a TMA ``box`` on a wgmma stage without ``tma_wgmma``)."""
    asked = {r.name for r in cfg.properties}
    for key, props in readers.items():
        if cfg.get(key) is not None and not asked & set(props):
            raise cfg.error(key, f"has no meaning when no property reading it is requested (it is read by "
                                 f"{', '.join(repr(p) for p in props)})")


LAYOUT_READERS = {"other": ("equivalent",), "lhs": ("composes",), "rhs": ("composes",),
                  "codomain": ("surjective", "bijective", "in_bounds")}
"""The keys of kinds ``layout`` / ``tv`` that only some properties read (``dtype``, ``memory``: see specs/README)."""
WGMMA_TMA_KEYS = ("box", "global_shape", "global_strides", "modes", "interleave")


def _smem_rules(cfg: Config) -> tuple[tuple[str, bool, str], ...]:
    return (("tile", cfg.get("layout") is not None, "'layout' is given (a 'tile' repeats an 'atom')"),
            ("access_expr", cfg.get("access_tv") is not None, "'access_tv' is given (it names the access)"),
            ("access_ranges", cfg.get("access_expr") is None, "no 'access_expr' is given (it ranges its variables)"))


def bind_smem(fn: PropertyBuilder, cfg: Config, req: PropertyRequest) -> Property:
    no_meaning(cfg, _smem_rules(cfg))
    lay = smem_layout(cfg)
    if isinstance(lay, IndexFormula) and req.name not in ("conflict_free", "wavefront_count"):
        from layoutcheck.properties.formula import formula_property

        return formula_property(req.name, lay, req.get("bound", req.get("codomain")))
    if req.name in ("conflict_free", "wavefront_count"):
        access = smem_access(cfg, req)
        bits = DTYPE_BITS[cfg.get("dtype")]
        if req.name == "conflict_free":
            return fn(lay, access, dtype_bits=bits)
        if (req.get("n") is None) == (req.get("max") is None):
            raise cfg.error("properties", "property 'wavefront_count' needs exactly one of n (exact) or max (bound)")
        return fn(lay, access, n=req.get("n"), dtype_bits=bits, max=req.get("max"))
    if req.name == "in_bounds":
        return fn(lay, req.get("bound", size(lay.layout if isinstance(lay, ComposedLayout) else lay)))
    if req.name == "bijective":
        return fn(lay, req.get("codomain"))
    return fn(lay)


def bind_tma(fn: PropertyBuilder, cfg: Config, req: PropertyRequest) -> Property:
    explicit = cfg.get("smem_layout") is not None
    no_meaning(cfg, (("major", explicit, "'smem_layout' is given (it is the shared-memory layout)"),
                     ("tile", explicit, "'smem_layout' is given (it is the shared-memory layout)")))
    return fn(*_tma_parts(cfg), base_address=cfg.get("base_address", 0))


def _tma_parts(cfg: Config) -> tuple[TmaBox, Any, tuple[int, ...]]:
    """The config's TMA box, the shared-memory layout it fills and the box dimension of each layout mode."""
    dtype = TMA_DTYPES[cfg.get("dtype")]
    swizzle = cfg.get("swizzle", "none")
    box = cfg.get("box")
    if cfg.get("smem_layout") is not None:
        lay = cfg.get("smem_layout")
        modes = cfg.get("modes") or tuple(range(len(box)))
        inner_ = lay.layout if isinstance(lay, ComposedLayout) else lay
        tile = tuple(size(m) for m in inner_)
        dims = [0] * len(tile)
        for i, d in enumerate(modes):
            if d < len(dims):
                dims[d] = tile[i]
    else:
        major, tile2 = cfg.get("major"), cfg.get("tile")
        if major is None or tile2 is None or len(tile2) != 2:
            raise cfg.error("major" if major is None else "tile",
                            "kind 'tma' needs 'smem_layout', or 'major' and a 2-D 'tile' = [MN, K]")
        try:
            lay = mma_smem_layout(major, swizzle, dtype, tuple(tile2), WGMMA_ATOM_ORDER[major])
        except LayoutError as e:
            raise cfg.error(_tma_key(e), one_line(e)) from None
        mn, k = tile2
        dims, modes = ([k, mn], (1, 0)) if major == "K" else ([mn, k], (0, 1))
        modes = cfg.get("modes") or modes
    gdims = tuple(cfg.get("global_shape") or dims)
    esize = max(1, DTYPE_BITS[cfg.get("dtype")] // 8)
    if cfg.get("global_strides") is not None:
        gstrides = tuple(cfg.get("global_strides"))
    else:  # packed: byte strides of dims 1.. are esize times the exclusive prefix products of the extents
        gstrides = tuple(esize * p for p in flatten(prefix_product(gdims))[1:])
    try:
        tbox = TmaBox(dtype, gdims, gstrides, tuple(box), interleave=cfg.get("interleave", "none"), swizzle=swizzle)
    except LayoutError as e:
        raise cfg.error(_tma_key(e), one_line(e)) from None
    return tbox, lay, tuple(modes)


_TMA_KEYS = {"global_dims": "global_shape", "box_dims": "box", "element_strides": "box"}
"""``TmaBox`` / ``mma_smem_layout`` parameter -> the tma spec key that holds it (the others are spelled alike)."""


def _tma_key(e: LayoutError) -> str:
    """The tma key whose value a ``LayoutError`` is about: the parameter it names (``e.key``), else ``box``."""
    return _TMA_KEYS.get(e.key, e.key) if e.key is not None else "box"


def bind_wgmma(fn: PropertyBuilder, cfg: Config, req: PropertyRequest) -> Property:
    """The stage layout, the layout the descriptors are built from and (``tma_wgmma``) the TMA box."""
    from dataclasses import replace

    dtype, major = cfg.get("dtype"), cfg.get("major")

    def stage_of(swizzle_key: str) -> Any:
        if swizzle_key == "swizzle" and cfg.get("smem_layout") is not None:
            return cfg.get("smem_layout")
        if cfg.get("tile") is None or len(cfg.get("tile")) != 2:
            raise cfg.error("tile", "kind 'wgmma' needs 'smem_layout', or a 2-D 'tile' = [MN, K] and 'swizzle'")
        try:
            return mma_smem_layout(major, cfg.get(swizzle_key, "none"), TMA_DTYPES[dtype], tuple(cfg.get("tile")),
                                   WGMMA_ATOM_ORDER[major])
        except LayoutError as e:
            raise cfg.error(swizzle_key, one_line(e)) from None

    unrequested(cfg, dict.fromkeys(WGMMA_TMA_KEYS, ("tma_wgmma",)))
    explicit, wants_tma = cfg.get("smem_layout") is not None, any(r.name == "tma_wgmma" for r in cfg.properties)
    no_meaning(cfg, (("wgmma_layout", cfg.get("wgmma_swizzle") is not None,
                      "'wgmma_swizzle' is given (the descriptors are built from that swizzle's layout)"),
                     ("tile", explicit and cfg.get("wgmma_swizzle") is None,
                      "'smem_layout' is given and no 'wgmma_swizzle' (a 'tile' shapes a swizzle's GMMA layout)"),
                     ("swizzle", explicit and not wants_tma,
                      "'smem_layout' is given and 'tma_wgmma' is not requested (then it is only the TMA box's "
                      "swizzle)")))
    stage = stage_of("swizzle")
    wl = stage_of("wgmma_swizzle") if cfg.get("wgmma_swizzle") is not None else cfg.get("wgmma_layout")
    extra = (cfg.get("block_mn"), cfg.get("descriptor"), wl)
    writer = cfg.get("written_by")
    if writer is not None and writer not in WRITERS:
        raise cfg.error("written_by", f"who wrote the stage: one of {', '.join(WRITERS)}, found {writer!r}")
    if req.name == "tma_wgmma":
        if writer == "threads":
            raise cfg.error("written_by", "property 'tma_wgmma' is about a stage the TMA writes, not threads")
        if cfg.get("smem_layout") is None:  # the TMA binder then sees the stage above, not its own MN-first tiling
            modes = cfg.get("modes") or ((1, 0) if major == "K" else (0, 1))  # the user's `modes`, never dropped
            cfg = replace(cfg, values=(*cfg.values, ("smem_layout", stage), ("modes", tuple(modes))))
        box, lay, modes = _tma_parts(cfg)
        return fn(box, lay, modes, dtype, major, *extra)
    return fn(stage, dtype, major, cfg.get("base_address", 0), *extra, written_by=writer)


def bind_datapath(fn: PropertyBuilder, cfg: Config, req: PropertyRequest) -> Property:
    """Whole-kernel data paths (issue #20): the binding lives in ``layoutcheck.spec.bind_datapath``, which takes the
    config's TiledMMA from here."""
    return bind_paths(fn, cfg, req, tiled_mma(cfg) if cfg.get("atom") is not None else None)


def bind_pipeline(fn: PropertyBuilder, cfg: Config, req: PropertyRequest) -> Property:
    """A multi-stage ``Pipeline`` (issue #27): stages, K loops up to ``k_blocks``, buffers and the three formulas."""
    from layoutcheck.models.pipeline import FORMULAS, Pipeline

    stages, stage_bytes, base = cfg.get("stages"), cfg.get("stage_bytes"), cfg.get("base_address", 0)
    try:
        p = Pipeline(stages, cfg.get("k_blocks"), stage_bytes, cfg.get("smem_bytes", base + stages * stage_bytes),
                     base, cfg.get("align", 128), *(cfg.get(f, "") for f in FORMULAS))
    except LayoutError as e:
        raise cfg.error(e.key or "stages", one_line(e)) from None
    return fn(p)


def bind_multicast(fn: PropertyBuilder, cfg: Config, req: PropertyRequest) -> Property:
    """An operand's TMA ``Multicast`` in a cluster (issue #27): its slices, masks and tile ids."""
    from layoutcheck.models.multicast import FORMULAS, Multicast

    try:
        m = Multicast(tuple(cfg.get("cluster")), cfg.get("operand"), cfg.get("extent"),
                      *(cfg.get(f, "") for f in FORMULAS))
    except LayoutError as e:
        raise cfg.error(e.key or "cluster", one_line(e)) from None
    return fn(m)


def bind_residue(fn: PropertyBuilder, cfg: Config, req: PropertyRequest) -> Property:
    """A ``ResidueTiling`` of the config's ``tile`` over the modes of ``sizes`` (their ranges)."""
    from layoutcheck.models import residue

    sizes = cfg.get("sizes")
    try:
        tiling = residue.ResidueTiling(tuple(k for k, _ in sizes), tuple(cfg.get("tile")),
                                       cfg.get("count", "ceil_div"), cfg.get("predicate", "coord_lt_shape"),
                                       cfg.get("tv"))
    except LayoutError as e:
        raise cfg.error("tile", one_line(e)) from None
    return fn(tiling, tuple(r for _, r in sizes))


def bind_tiled_copy(fn: PropertyBuilder, cfg: Config, req: PropertyRequest) -> Property:
    """``make_tiled_copy(atom, threads, values)`` over a tile (``tile``: one, modes M, N...) or every tile size in a
    range (``sizes``): CuTe's ``partition_S`` is ``zipped_divide(tensor, tiler)``, ``ceil_div`` copy tiles per mode,
    the last one running past the tensor; ``predicate``: ``none`` (``copy``) or ``coord_lt_shape`` (``copy_if``
    with an identity tensor). A ``ResidueTiling`` whose tile is the copy tiler and whose problem is the copied tile."""
    from layoutcheck.algebra.tv import make_layout_tv
    from layoutcheck.models import residue

    if (cfg.get("tile") is None) == (cfg.get("sizes") is None):
        raise cfg.error("tile" if cfg.get("tile") is not None else "threads",
                        "a tiled copy needs exactly one of tile = [M, N] (one tile) or sizes = { d = [lo, hi] } (every "
                        "tile size in a range)")
    try:
        tiler, tv = make_layout_tv(cfg.get("threads"), cfg.get("values"))
    except (LayoutError, ValueError) as e:
        raise cfg.error("threads", one_line(e)) from None
    if cfg.get("sizes") is not None:
        sizes = cfg.get("sizes")
    else:
        sizes = tuple((k, (e, e)) for k, e in zip(("M", "N", "K"), cfg.get("tile"), strict=False))
    if len(sizes) != len(tiler):
        raise cfg.error("sizes" if cfg.get("sizes") is not None else "tile",
                        f"the copy tiler {tiler} of threads x values has {len(tiler)} modes, the tile {len(sizes)}")
    try:
        tiling = residue.ResidueTiling(tuple(k for k, _ in sizes), tuple(tiler), cfg.get("count", "ceil_div"),
                                       cfg.get("predicate", "none"), tv, size(tv[0]))
    except LayoutError as e:
        raise cfg.error("threads", one_line(e)) from None
    return fn(tiling, tuple(r for _, r in sizes))


def bind_scheduler(fn: PropertyBuilder, cfg: Config, req: PropertyRequest) -> Property:
    """A ``TileScheduler`` over the ``GM x GN`` tile grids of ``grids`` (two ranges)."""
    from layoutcheck.models import schedulers as sched

    grids = cfg.get("grids")
    kind = cfg.get("scheduler")
    params = {k for keys in sched.PARAMETERS.values() for k in keys}
    foreign = [k for k, _ in cfg.values if k in params and k not in sched.PARAMETERS.get(kind, params)]
    if foreign:  # a key of another kind: never silently ignored
        allowed = ", ".join(sched.PARAMETERS[kind]) or "none"
        raise cfg.error(foreign[0], f"a {kind} scheduler does not read {foreign[0]!r} (its parameters: {allowed})")
    if len(grids) != 2:
        raise cfg.error("grids", f"expected two ranges (GM, GN), found {len(grids)}")
    if kind == "problems":
        return _bind_problem_list(cfg, fn, grids)
    if kind == "stream_k":
        return _bind_stream_k(cfg, fn, grids)
    try:
        s = sched.TileScheduler(cfg.get("scheduler"), cfg.get("log", 0), cfg.get("group", 8), cfg.get("ctas", 1),
                                cfg.get("drop_partial_group", False), cfg.get("splits", 1),
                                cfg.get("count", "ceil_div"), tuple(cfg.get("cluster", (1, 1))),
                                cfg.get("max_swizzle", 1), cfg.get("swizzle_size", 0),
                                cfg.get("raster", "heuristic"), cfg.get("device_raster", ""),
                                cfg.get("round_to_cluster", True), cfg.get("tile_m", ""), cfg.get("tile_n", ""),
                                cfg.get("total", "GM*GN"), swizzle_residual=cfg.get("swizzle_residual", False),
                                serpentine=cfg.get("serpentine", ""))
    except LayoutError as e:  # an expression that does not parse: its key; else the scheduler's
        at = "scheduler"
        if kind == "expr":
            at = next((k for k in ("tile_m", "tile_n", "total") if sched.expression_error(k, cfg.get(k))), at)
        raise cfg.error(at, one_line(e)) from None
    return fn(s, tuple(r for _, r in grids))


def _bind_stream_k(cfg: Config, fn: Any, grids: Any) -> Property:
    """CUTLASS's SM90 stream-K scheduler (``scheduler = "stream_k"``): problems of ``tiles x k_tiles`` in ``grids``."""
    from layoutcheck.models.stream_k import StreamKScheduler

    try:
        s = StreamKScheduler(cfg.get("ctas", 1), cfg.get("max_groups", 1), cfg.get("decomposition", "heuristic"),
                             cfg.get("splits", 1), cfg.get("alignment", 1), cfg.get("big_units", True),
                             cfg.get("end_adjust", True), cfg.get("reduction", "deterministic"))
    except LayoutError as e:
        raise cfg.error("scheduler", one_line(e)) from None
    return fn(s, tuple(r for _, r in grids))


def _bind_problem_list(cfg: Config, fn: Any, grids: Any) -> Property:
    """A grouped GEMM (``scheduler = "problems"``): lists of ``problems`` problems whose ``(M, N)`` lie in ``grids``."""
    from layoutcheck.models import schedulers as sched

    tile = tuple(cfg.get("tile", ()))
    if len(tile) != 2:
        raise cfg.error("tile" if cfg.get("tile") is not None else "scheduler",
                        f"a problems scheduler needs tile = [TM, TN], found {list(tile) or 'none'}")
    for key, names in (("host_count", sched.HOST_VARIABLES), ("device_tiles", sched.DEVICE_VARIABLES)):
        why = sched.problem_expression_error(cfg.get(key), names)
        if why is not None:
            raise cfg.error(key, one_line(why))
    try:
        s = sched.ProblemListScheduler(tile, cfg.get("ctas", 1), cfg.get("host_count", "tiles"),
                                       cfg.get("device_tiles", "(M + TM - 1) // TM * ((N + TN - 1) // TN)"))
    except LayoutError as e:
        raise cfg.error("scheduler", one_line(e)) from None
    return fn(s, tuple(r for _, r in grids), tuple(cfg.get("problems", (1, 1))))


Binder = Callable[[PropertyBuilder, Config, PropertyRequest], Property]
BINDER_FUNCTIONS: dict[str, Binder] = {f.__name__: f for f in (
    bind_layout, bind_tiled_mma, bind_smem, bind_tma, bind_wgmma, bind_residue, bind_scheduler, bind_datapath,
    bind_umma_smem, bind_umma_instr, bind_descriptor_format, bind_tmem, bind_block_scale, bind_scale_factors,
    bind_pipeline, bind_multicast, bind_tmem_copy, bind_tiled_copy,
)}
"""Binder name (``spec.schema.KindSpec.binder``) -> the function that builds a property of a kind's subject from
the property's constructor, the config and the request."""
BINDERS: dict[str, Binder] = {kind.name: BINDER_FUNCTIONS[kind.binder] for kind in KINDS.values()}
"""Spec kind -> its binder, as ``spec.schema.KINDS`` declares it."""
