"""Binding of the Blackwell (tcgen05) spec kinds to ``layoutcheck.properties.tmem`` / ``.descriptors`` (issue #17).

    =================  =============================================================================================
    kind               subject
    =================  =============================================================================================
    umma_smem          ``layout`` = the operand's whole (MN, K) smem tile (swizzle in element units); the property
                       checks the descriptor of every K block of one MMA (K = 256 bits), or ``descriptor`` if given;
                       ``written_by`` = ``tma`` | ``threads`` (unset: it must hold for both)
    umma_instr         the instruction descriptor of ``a/b/c_dtype``, ``mma_m x mma_n`` (``scale_dtype``: block
                       scaled); ``descriptor_fields`` checks that its packed fields read back
    descriptor_format  ``fields`` = [{ name, lo, width, values }]: a descriptor format someone packs by hand into a
                       ``bits``-bit word (default 64)
    tmem               the accumulator of ``mma_m``/``cta_group`` (or ``data_path``) over ``mma_n`` columns and the
                       epilogue: ``atom`` issued by ``warps`` at sub-partition row offsets ``rows`` and ``columns``
    block_scale        the scale layout one CTA's MMA reads for ``operand`` (``scale_extent``: the tile it was given)
    tmem_copy          one tcgen05.cp of ``shape`` at ``column``, ``bits``-bit elements, and ``layout``: the image the
                       kernel believes, ``(row, element[, copy]) -> lane + 128 * slot``
    =================  =============================================================================================
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.algebra.tiling import flat_divide
from layoutcheck.errors import LayoutError, SpecError
from layoutcheck.spec.schema import Config, PropertyRequest
from layoutcheck.spec.values import one_line

Binder = Callable[[Any, Config, PropertyRequest], Any]


def _spec_errors(binder: Binder) -> Binder:
    """``binder`` with a ``LayoutError`` turned into a ``SpecError`` naming the config's file, line and property."""
    @wraps(binder)
    def bind(fn: Any, cfg: Config, req: PropertyRequest) -> Any:
        try:
            return binder(fn, cfg, req)
        except LayoutError as e:
            raise SpecError(f"{cfg.file}:{req.line or cfg.line}: config {cfg.name!r}: property {req.name!r}: "
                            f"{one_line(e)}") from None
    return bind


def k_block_slices(layout: Layout | ComposedLayout, dtype_bits: int) -> list[Layout | ComposedLayout]:
    """The (MN, K_mma) operand tile of every K block of ``layout`` (K_mma = 256 bits), as CuTe's ``flat_divide``
    slices it; the slice's element offset goes into the composed layout's offset."""
    lay = layout.layout if isinstance(layout, ComposedLayout) else layout
    if len(lay) != 2:
        raise LayoutError(f"an operand tile is (MN, K), found {lay}")
    mn, k = size(lay[0]), size(lay[1])
    kmma = 256 // dtype_bits
    if k % kmma:
        raise LayoutError(f"K = {k} is not a multiple of one MMA's K = {kmma} {dtype_bits}-bit elements")
    d = flat_divide(lay, (Layout(mn), Layout(kmma)))
    tile = Layout((d.shape[0], d.shape[1]), (d.stride[0], d.stride[1]))
    out: list[Layout | ComposedLayout] = []
    for kb in range(k // kmma):
        off = d(0, 0, 0, kb)
        if isinstance(layout, ComposedLayout):
            out.append(ComposedLayout(layout.swizzle, layout.offset + off, tile))
        else:
            out.append(tile if off == 0 else _offset(tile, off))
    return out


def _offset(tile: Layout, off: int) -> ComposedLayout:
    from layoutcheck.algebra.swizzle import Swizzle

    return ComposedLayout(Swizzle(0, 0, 0), off, tile)


@_spec_errors
def bind_umma_smem(fn: Any, cfg: Config, req: PropertyRequest) -> Any:
    from layoutcheck.hw.tcgen05 import DTYPE_BITS

    dtype = cfg.get("dtype")
    if dtype not in DTYPE_BITS:
        raise cfg.error("dtype", f"UMMA operands are one of {', '.join(DTYPE_BITS)}, found {dtype!r}")
    slices = k_block_slices(cfg.get("layout"), DTYPE_BITS[dtype])
    if cfg.get("descriptor") is not None:  # a hand-built descriptor describes the first K block
        return fn(slices[0], dtype, cfg.get("major"), cfg.get("base_address", 0), cfg.get("descriptor"),
                  cfg.get("written_by"))
    from layoutcheck.properties.descriptors import umma_describes_all

    return umma_describes_all(tuple(slices), dtype, cfg.get("major"), cfg.get("base_address", 0),
                              cfg.get("written_by"))


@_spec_errors
def bind_umma_instr(fn: Any, cfg: Config, req: PropertyRequest) -> Any:
    """The MMA the config names; ``descriptor_fields`` decides whether its instruction descriptor exists and reads
    back (a shape or type combination no tcgen05.mma has is REFUTED). Only unknown type names are input errors."""
    from layoutcheck.hw.tcgen05 import DTYPE_BITS
    from layoutcheck.properties.descriptors import instr_descriptor_fields

    for key in ("a_dtype", "b_dtype", "c_dtype", "scale_dtype"):
        v = cfg.get(key)
        if v is not None and v not in DTYPE_BITS:
            raise cfg.error(key, f"unknown tcgen05 operand type {v!r}: expected one of {', '.join(DTYPE_BITS)}")
    if cfg.get("cta_group", 1) not in (1, 2):
        raise cfg.error("cta_group", f"tcgen05.mma runs on cta_group::1 or ::2, found {cfg.get('cta_group')}")
    return instr_descriptor_fields(cfg.get("a_dtype"), cfg.get("b_dtype"), cfg.get("c_dtype"), cfg.get("mma_m"),
                                   cfg.get("mma_n"), cfg.get("a_major", "K"), cfg.get("b_major", "K"),
                                   cfg.get("cta_group", 1), cfg.get("scale_dtype"))


@_spec_errors
def bind_descriptor_format(fn: Any, cfg: Config, req: PropertyRequest) -> Any:
    from layoutcheck.hw.bitfields import BitField

    fields = tuple(BitField(n, lo, w, f"{cfg.file} config {cfg.name}") for n, lo, w, _ in cfg.get("fields"))
    return fn(fields, tuple(vals for *_, vals in cfg.get("fields")), cfg.get("bits", 64))


@_spec_errors
def bind_tmem(fn: Any, cfg: Config, req: PropertyRequest) -> Any:
    from layoutcheck.models import tmem

    if cfg.get("allocation") is not None and all(r.name != "tmem_allocation" for r in cfg.properties):
        raise cfg.error("allocation", "has no meaning when no property reading it is requested (it is read by "
                                      "'tmem_allocation')")

    if req.name == "tmem_allocation":
        if cfg.get("allocation") is None:
            raise cfg.error("allocation", "property 'tmem_allocation' needs 'allocation' = [columns, ...]")
        return fn(cfg.get("allocation"))
    atom = cfg.get("atom")
    if not isinstance(atom, str):
        raise cfg.error("atom", f"property {req.name!r} needs 'atom' = a tcgen05.ld/st atom name")
    if req.name == "tmem_packed_injective":
        return fn(atom, 16 if atom.endswith("_16b") else 32)
    n = cfg.get("mma_n")
    if n is None:
        raise cfg.error("mma_n", f"property {req.name!r} needs 'mma_n' (accumulator columns)")
    if cfg.get("data_path") is not None:
        acc = tmem.datapath_layout(cfg.get("data_path").upper(), n)
    else:
        acc = tmem.accumulator_layout(cfg.get("mma_m", 128), cfg.get("cta_group", 1), n)
    loads = tmem_loads(atom, acc, cfg.get("warps"), cfg.get("rows"), cfg.get("columns"))
    return fn(acc, loads) if req.name == "tmem_exact_cover" else fn(loads)


def tmem_loads(atom: str, acc: Layout, warps: Any = None, rows: Any = None, columns: Any = None) -> Any:
    """An epilogue's tcgen05.ld issues: ``atom`` by ``warps`` (default 0-3) at row offsets ``rows`` (default ``[0, 16]``
    for ``.16x*b`` on 128 rows, else ``[0]``) and ``columns`` (default: every atom-width step over ``acc``)."""
    from layoutcheck.models import tmem

    sixteen = "_16dp" in atom
    rows = rows or ((0, 16) if sixteen and size(acc[0]) == 128 else (0,))
    if columns is None:
        used = int(acc.offsets().max()) // 128 + 1
        columns = tuple(range(0, used, tmem.atom_columns(atom)))
    return tmem.epilogue_loads(atom, tuple(warps or (0, 1, 2, 3)), tuple(rows), tuple(columns))


@_spec_errors
def bind_tmem_copy(fn: Any, cfg: Config, req: PropertyRequest) -> Any:
    """``shape`` (a tcgen05.cp shape or CUTLASS ``SM100_UTCCP_*`` atom), ``bits`` of the copied elements (default 8:
    a ue8m0 / ue4m3 scale factor), ``column`` it is issued at (default 0) and the ``layout`` the kernel believes it
    writes, from ``read_column`` (the column its consumer reads, default ``column``)."""
    image = cfg.get("layout")
    if not isinstance(image, Layout):
        raise cfg.error("layout", f"a tcgen05.cp image is a plain layout (row, element[, copy]) -> lane + 128 * slot, "
                                  f"found {image}")
    return fn(cfg.get("shape"), cfg.get("bits", 8), cfg.get("column", 0), image, cfg.get("read_column"))


@_spec_errors
def bind_block_scale(fn: Any, cfg: Config, req: PropertyRequest) -> Any:
    from layoutcheck.models.block_scale import mma_scale_layout

    sf = mma_scale_layout(cfg.get("operand"), cfg.get("mma_m"), cfg.get("mma_n"), cfg.get("k"), cfg.get("vec"),
                          cfg.get("cta_group", 1), cfg.get("scale_extent"))
    return fn(sf, cfg.get("vec"))
