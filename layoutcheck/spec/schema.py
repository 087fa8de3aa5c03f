"""What a spec file may say and what a loaded one is made of: the one registry of kinds and properties (issue #26).

Each ``kind`` and each property is declared here once. ``KINDS`` (``KindSpec``): what a config of the kind
describes, its keys and required keys, the properties it supports, the name of its binder (``spec.bind``'s
``BINDER_FUNCTIONS``), the key holding its subject and the name of its ownership TV map (``spec.ownership``'s
``OWNER_MAPS``: ownership vectors and kernels). ``PROPERTY_SPECS`` (``PropertySpec``): the claim in one line, its
parameters (``Param``: name, TOML type, meaning, ``prove`` flag), how ``prove`` states it from flags (``Prove``: the
kind, the inputs it ``Need``s), the picture of its counterexample (``report.html``'s ``PICTURES``) and how the GPU
reproduces a refutation (``codegen.refuted_cases``' ``REPRODUCTIONS``); a module that acts per kind or property
reads these columns, never the names. The claim of a property is the constructor of the same name in
``layoutcheck.properties`` (``spec.bind.PROPERTIES`` is keyed by the constructors' names). Generated from these:
the loader's checks (``spec.load``), ``prove``'s flags, needs and ``--help`` (``cli``), the SARIF rules
(``report.sarif``) and the tables of ``specs/README.md`` (``python -m layoutcheck.spec.schema --update
specs/README.md``); ``tests/spec/test_registry.py`` checks them, and that no other module spells a kind or property
name. The values: ``Spec`` holds ``Config``s, each with its parsed key values, the line of every key, and its
``PropertyRequest``s.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from layoutcheck.errors import SpecError

FORMAT_VERSION = 1
TOP_LEVEL_KEYS = ("format", "description", "expect", "config")
# a file's expected verdict: "refuted" marks it broken on purpose (skipped by default like specs/broken/)
EXPECTATIONS = ("proven", "refuted")

@dataclass(frozen=True, slots=True)
class Param:
    """One parameter a property request may give (``{ name = "vectorizable", width = 16 }``): its name, its TOML
    type as ``spec.values.parse_value`` reads it, what it means, and the ``prove`` flag that gives it (``""``: none)."""

    name: str
    type: str
    doc: str
    flag: str = ""


@dataclass(frozen=True, slots=True)
class Need:
    """An input ``prove`` must be given for a property: one of ``keys`` (all of them when ``every``), unless the key
    ``unless`` is given; ``why`` finishes the message ``prove: --property P needs ...``."""

    keys: tuple[str, ...]
    why: str
    every: bool = True
    unless: str = ""


@dataclass(frozen=True, slots=True)
class Prove:
    """How ``prove``'s flags state a property: the spec kind they describe (``layout`` becomes ``tv`` with
    ``--tile``) and the inputs it needs, checked in order."""

    kind: str
    needs: tuple[Need, ...] = ()


@dataclass(frozen=True, slots=True)
class PropertySpec:
    """One property, declared once: its name (= the name of its claim's constructor in ``layoutcheck.properties``,
    which ``spec.bind.PROPERTIES`` is keyed by), what it claims (one line: docs, SARIF rules), its parameters, and
    how ``prove`` states it from flags (``None``: spec files only)."""

    name: str
    doc: str
    params: tuple[Param, ...] = ()
    prove: Prove | None = None
    picture: str = ""
    """The picture ``report.html`` draws of a counterexample (a key of its ``PICTURES``; ``""``: the generic one)."""
    silicon: str = ""
    """How the GPU reproduces a REFUTED row (``""``: not yet): ``ownership`` (the ownership kernel of the TV map),
    ``banks`` (each instruction's lane addresses on the bank probe under Nsight Compute), ``readout`` (the wgmma
    read-out kernel), ``tma_readout`` (TMA -> smem -> wgmma): the keys of ``codegen.refuted_cases.REPRODUCTIONS``."""

    @property
    def param_names(self) -> frozenset[str]:
        return frozenset(p.name for p in self.params)


@dataclass(frozen=True, slots=True)
class KindSpec:
    """One spec ``kind``, declared once: what a config of it describes, the keys it may have (besides
    ``COMMON_KEYS``) and must have, the properties it supports (in the order the docs list them), the name of its
    binder in ``spec.bind.BINDER_FUNCTIONS``, and the key that holds its subject for ``prove`` (``""``: none)."""

    name: str
    doc: str
    keys: frozenset[str]
    required: frozenset[str]
    properties: tuple[str, ...]
    binder: str
    subject: str = ""
    one_of: tuple[str, ...] = ()
    """Keys of which a config gives exactly one (``smem``: its ``layout`` or a GMMA ``atom``)."""
    implies: tuple[tuple[str, str, str], ...] = ()
    """``(key, needed, why)``: a config that gives ``key`` must give ``needed`` too (else ``why`` on ``key``)."""
    owner_map: str = ""
    """The name of the function in ``spec.ownership.OWNER_MAPS`` giving a config's ownership TV map (ownership
    vectors, ownership kernels); ``""``: the kind has none."""


def _int(name: str, doc: str, flag: str = "") -> Param:
    return Param(name, "integer", doc, flag)


_CODOMAIN = _int("codomain", "codomain size (default: the config's `codomain`, else the layout's size)", "--codomain")
_OTHER = Param("other", "layout", "the layout to compare with (default: the config's `other`)", "--other")
_ACCESS = Param("access", "string", "shared-memory access kind, e.g. `ldsm_x4`, `sts32` (default: the config's)",
                "--access")
_DTYPE = Need(("dtype",), "--dtype (the element type, e.g. f16); it is never assumed")
_ACCESS_NEED = Need(("access",), "--access (e.g. ldsm_x4, sts32)")
_BANKS = Prove("smem", (_DTYPE, _ACCESS_NEED))

PROPERTY_SPECS: dict[str, PropertySpec] = {p.name: p for p in (
    PropertySpec("injective", "no two indices map to one offset", (), Prove("layout")),
    PropertySpec("surjective", "every offset in [0, codomain) is reached", (_CODOMAIN,), Prove("layout")),
    PropertySpec("bijective", "a bijection onto [0, codomain)", (_CODOMAIN,), Prove("layout")),
    PropertySpec("equivalent", "equal to `other` at every index (any two forms: CuTe, Triton, TileLang, formula)",
                 (_OTHER,), Prove("layout", (Need(("other",), "--other (the layout to compare with)"),))),
    PropertySpec("in_bounds", "every offset lies in [0, bound)",
                 (_int("bound", "exclusive offset bound (default: the config's `codomain`, else the tile's size)",
                       "--bound"),),
                 Prove("layout", (Need(("bound",), "--bound N (every offset must lie in [0, N))", unless="tile"),))),
    PropertySpec("exact_cover", "the TV map owns every tile element exactly `replication` times",
                 (Param("operand", "string", "`A`, `B` or `C` (tiled MMA; default: the config's `operand`)"),
                  _int("replication", "owners per tile element (default 1; a tiled MMA: its own replication)",
                       "--replication")),
                 Prove("tv", (Need(("tile",), "--tile M N (the tile the TV layout covers)"),)),
                 picture="tv_cover", silicon="ownership"),
    PropertySpec("vectorizable", "each thread's values form aligned contiguous `width`-byte vectors",
                 (_int("width", "vector width in bytes, e.g. 16", "--width"),),
                 Prove("layout", (_DTYPE, Need(("width",), "--width N (the vector width in bytes, e.g. 16)")))),
    PropertySpec("conflict_free", "the warp's shared-memory access has no bank conflict", (_ACCESS,), _BANKS,
                 picture="banks", silicon="banks"),
    PropertySpec("wavefront_count", "the access needs exactly `n` (or at most `max`) wavefronts in total",
                 (_ACCESS, _int("n", "the exact total over every instruction of the access", "--wavefronts"),
                  _int("max", "an upper bound on the total over every instruction", "--max-wavefronts")),
                 Prove("smem", (_DTYPE, _ACCESS_NEED,
                                Need(("n", "max"), "one of --wavefronts N (the exact total over every instruction) or "
                                                   "--max-wavefronts N", every=False))),
                 picture="banks"),
    PropertySpec("tma_compatible", "the TMA box loads the tile into exactly the shared-memory layout",
                 picture="tma"),
    PropertySpec("gmma_addresses", "every wgmma descriptor reads each element where the stage puts it",
                 silicon="readout"),
    PropertySpec("gmma_fields", "the wgmma descriptors are canonical, in range, aligned, with the right base offset "
                                "and layout type", silicon="readout"),
    PropertySpec("tma_wgmma", "the TMA boxes write every element to the byte its wgmma descriptor reads it from",
                 silicon="tma_readout"),
    PropertySpec("residue_cover", "every problem size in the range is covered exactly once by the predicated tiles"),
    PropertySpec("schedule_bijection", "the scheduler visits every tile of every grid in the range exactly once"),
    PropertySpec("tile_partition", "the tiling's `tv` map partitions its tile"),
    PropertySpec("umma_describes", "every K block's tcgen05 descriptor addresses exactly the bytes the layout names"),
    PropertySpec("descriptor_fields", "the descriptor exists and every field packs and reads back unchanged"),
    PropertySpec("tmem_exact_cover", "the epilogue reads every accumulator cell exactly once, nothing outside it"),
    PropertySpec("tmem_subpartition", "warp w touches only tensor-memory lanes 32*(w%4)..+31"),
    PropertySpec("tmem_allocation", "allocations are powers of 2 in [32, 512] columns, 512 in total at most"),
    PropertySpec("tmem_packed_injective", "each element of the atom gets its own tensor-memory cell or half cell"),
    PropertySpec("scale_ownership", "element (mn, k) is scaled by scale (mn, k // vec), no two scales shared"),
    PropertySpec("composes", "the layout is the composition lhs o rhs: layout(i) == lhs(rhs(i))",
                 (Param("lhs", "layout", "the outer layout A of layout == A o B (default: the config's)", "--lhs"),
                  Param("rhs", "layout", "the inner layout B of layout == A o B (default: the config's)", "--rhs")),
                 Prove("layout", (Need(("lhs", "rhs"), "--lhs A and --rhs B (the claim: EXPR(i) == A(B(i)) for "
                                                       "every i)"),))),
    PropertySpec("datapath", "every path delivers each element where the MMA (or global memory) wants it",
                 (Param("operand", "string", "`A`, `B` or `C`: check that path only (default: every path given)"),),
                 picture="path"),
    PropertySpec("scale_agreement", "the consumer reads every element's scale from the byte the producer wrote it "
                                    "to"),
    PropertySpec("scale_follows_tile", "every CTA reads the scale bytes of the tile it computes, for every grid"),
    PropertySpec("pipeline_protocol", "every k-block's stage buffer is in range, in the allocation and aligned, and "
                                      "its consumer and producer wait on the mbarrier parities its stage's history "
                                      "demands, for every K loop up to k_blocks"),
    PropertySpec("multicast_cover", "every row of every CTA's operand tile is written exactly once, by a TMA that "
                                    "carries that CTA's tile"),
    # tcgen05.cp (issue #27): binder in layoutcheck.spec.bind_tcgen05
    PropertySpec("tmem_copy_image", "one tcgen05.cp writes every element of its shared-memory rows to exactly the "
                                    "tensor-memory cells the kernel's image names"),
)}
"""Property name -> its declaration; the one place a property is named (``tests/spec/test_registry.py``)."""

KINDS: dict[str, KindSpec] = {k.name: k for k in (
    KindSpec("layout", "one layout as a function",
             frozenset({"layout", "other", "codomain", "dtype", "lhs", "rhs"}), frozenset({"layout"}),
             ("injective", "surjective", "bijective", "equivalent", "in_bounds", "vectorizable",
              "exact_cover",  # Triton layouts only
              "composes"),  # composition's contract R(i) == lhs(rhs(i)) (bug zoo, issue #20)
             "bind_layout", "layout"),
    KindSpec("tv", "a thread-value map over a tile", frozenset({"tv", "tile", "memory", "other", "dtype"}),
             frozenset({"tv", "tile"}),
             ("exact_cover", "injective", "surjective", "bijective", "equivalent", "in_bounds", "vectorizable"),
             "bind_layout", "tv", owner_map="tv_owner_map"),
    KindSpec("tiled_mma", "a CTA tile computed by a tiled MMA",
             frozenset({"atom", "atom_layout", "permutation", "tile", "operand", "other"}), frozenset({"atom", "tile"}),
             ("exact_cover", "injective", "in_bounds", "equivalent"), "bind_tiled_mma",
             owner_map="tiled_mma_owner_map"),
    KindSpec("smem", "a shared-memory layout and how a warp accesses it",
             frozenset({"layout", "atom", "tile", "dtype", "access", "access_tv", "access_expr", "access_ranges"}),
             frozenset({"dtype"}), ("conflict_free", "wavefront_count", "injective", "bijective", "in_bounds"),
             "bind_smem", "layout", one_of=("layout", "atom"),
             implies=(("atom", "tile", "an 'atom' needs a 'tile' to repeat it over"),)),
    KindSpec("tma", "a TMA box loading an operand tile into shared memory",
             frozenset({"box", "dtype", "swizzle", "global_shape", "global_strides", "interleave", "smem_layout",
                        "major", "tile", "modes",
                        "base_address"}),  # the tile buffer's offset from a 1024-byte boundary (tilelang#2379)
             frozenset({"box", "dtype"}), ("tma_compatible",), "bind_tma"),
    KindSpec("wgmma", "an SM90 wgmma operand stage, its matrix descriptors and (optionally) the TMA box that fills it",
             frozenset({"dtype", "major", "tile", "swizzle", "smem_layout", "block_mn", "base_address", "descriptor",
                        "wgmma_swizzle", "box", "global_shape", "global_strides", "modes", "interleave",
                        "wgmma_layout",  # the layout a kernel builds its descriptors from (tilelang#2964)
                        "written_by"}),  # who wrote the stage: tma (absolute address bits) or threads, issue #25
             frozenset({"dtype", "major"}), ("gmma_addresses", "gmma_fields", "tma_wgmma"), "bind_wgmma"),
    # ragged problems (issue #15): every problem size / tile grid in a range
    KindSpec("residue", "a ragged problem split by a tile that need not divide it (every size in a range)",
             frozenset({"tile", "sizes", "count", "predicate", "tv"}), frozenset({"tile", "sizes"}),
             ("residue_cover", "tile_partition"), "bind_residue"),
    KindSpec("scheduler", "a tile scheduler, for every tile grid in a range",
             frozenset({"scheduler", "grids", "log", "group", "ctas", "drop_partial_group", "splits", "count",
                        "cluster", "max_swizzle", "swizzle_size", "raster", "device_raster", "round_to_cluster",
                        "tile_m", "tile_n", "total", "problems", "tile", "host_count", "device_tiles",
                        "swizzle_residual", "serpentine",  # SM100 CLC (issue #27)
                        "max_groups", "decomposition", "alignment", "big_units", "end_adjust",
                        "reduction"}),  # SM90 stream-K
             frozenset({"scheduler", "grids"}), ("schedule_bijection",), "bind_scheduler"),
    # Blackwell (tcgen05), issue #17: binders in layoutcheck.spec.bind_tcgen05
    KindSpec("umma_smem", "a shared-memory operand tile and its tcgen05 descriptors",
             frozenset({"layout", "dtype", "major", "base_address", "descriptor", "written_by"}),
             frozenset({"layout", "dtype", "major"}), ("umma_describes",), "bind_umma_smem"),
    KindSpec("umma_instr", "a tcgen05 instruction descriptor",
             frozenset({"a_dtype", "b_dtype", "c_dtype", "scale_dtype", "mma_m", "mma_n", "a_major", "b_major",
                        "cta_group"}),
             frozenset({"a_dtype", "b_dtype", "c_dtype", "mma_m", "mma_n"}), ("descriptor_fields",),
             "bind_umma_instr"),
    KindSpec("descriptor_format", "a descriptor layout someone packs by hand", frozenset({"fields", "bits"}),
             frozenset({"fields"}), ("descriptor_fields",), "bind_descriptor_format"),
    KindSpec("tmem", "a tensor-memory accumulator and the warpgroup epilogue that reads it",
             frozenset({"mma_m", "mma_n", "cta_group", "data_path", "atom", "warps", "rows", "columns",
                        "allocation"}),
             frozenset(), ("tmem_exact_cover", "tmem_subpartition", "tmem_allocation", "tmem_packed_injective"),
             "bind_tmem"),
    KindSpec("block_scale", "the scale factors a block-scaled MMA reads",
             frozenset({"operand", "mma_m", "mma_n", "k", "vec", "cta_group", "scale_extent"}),
             frozenset({"operand", "mma_m", "mma_n", "k", "vec"}), ("scale_ownership",), "bind_block_scale"),
    # whole-kernel data paths (issue #20): binder in layoutcheck.spec.bind_datapath
    KindSpec("datapath", "a GEMM kernel's data flow, global memory to MMA fragments and accumulators to global memory",
             frozenset({"atom", "atom_layout", "permutation", "tile", "dtype", "A", "B", "C"}),
             frozenset({"tile", "dtype"}), ("datapath",), "bind_datapath"),
    # block-scaled scale factors (issue #27): binder in layoutcheck.spec.bind_block_scale
    KindSpec("scale_factors", "block-scaled (MX / NVFP4) scale tensors: layout agreement and ownership under a "
                              "scheduler",
             frozenset({"mn", "k", "vec", "producer", "consumer", "operand", "scale_layout", "tile", "grids",
                        "scheduler", "log", "group", "ctas", "drop_partial_group", "reads"}),
             frozenset({"k", "vec"}), ("scale_agreement", "scale_follows_tile"), "bind_scale_factors"),
    # multi-stage pipelines (issue #27): stage buffers and mbarrier phases per k-block
    KindSpec("pipeline", "a multi-stage shared-memory pipeline: stage buffers and mbarrier phases per k-block",
             frozenset({"stages", "k_blocks", "stage_bytes", "smem_bytes", "base_address", "align", "stage",
                        "consumer_phase", "producer_phase"}),
             frozenset({"stages", "k_blocks", "stage_bytes"}), ("pipeline_protocol",), "bind_pipeline"),
    # TMA multicast in a cluster (issue #27): which CTA's TMA writes which rows into which CTAs
    KindSpec("multicast", "TMA multicast in a thread-block cluster: which CTA's TMA writes which rows into which CTAs",
             frozenset({"cluster", "operand", "extent", "slice_start", "slice_rows", "mask", "needs"}),
             frozenset({"cluster", "operand", "extent"}), ("multicast_cover",), "bind_multicast"),
    # tcgen05.cp shapes (issue #27): which TMEM lanes and columns a shared-memory -> tensor-memory copy writes
    KindSpec("tmem_copy", "a tcgen05.cp shared-memory -> tensor-memory copy (block-scale factors) and the TMEM image "
                          "the kernel expects", frozenset({"shape", "bits", "column", "read_column", "layout"}),
             frozenset({"shape", "layout"}), ("tmem_copy_image",), "bind_tmem_copy", "layout"),
    # tiled copies over tiles that need not divide (issue #27): make_tiled_copy's tiler as a residue tile
    KindSpec("tiled_copy", "a tiled copy (make_tiled_copy: threads x values) over a tile it need not divide, or every "
                           "tile size in a range",
             frozenset({"threads", "values", "tile", "sizes", "count", "predicate"}),
             frozenset({"threads", "values"}), ("residue_cover", "tile_partition"), "bind_tiled_copy",
             one_of=("tile", "sizes")),
)}
"""Spec kind -> its declaration; the one place a kind is named (``tests/spec/test_registry.py``)."""

PROVE_KEYS: tuple[Param, ...] = (
    Param("tile", "integers", "the tile a TV layout covers, [M] or [M, N] (makes EXPR a TV layout)", "--tile"),
    Param("dtype", "string", "element type, e.g. f16", "--dtype"),
    Param("other", "layout", "the layout to compare with", "--other"),
    Param("access", "string", "shared-memory access kind, e.g. ldsm_x4", "--access"),
)
"""The config keys ``prove`` takes from flags (a key the property's kind does not have is refused); every other
flag gives a property parameter (``Param.flag``)."""


def kinds_of(prop: str) -> list[str]:
    """The kinds that support property ``prop``, in declaration order.

    >>> kinds_of("tma_compatible")
    ['tma']
    """
    return [k.name for k in KINDS.values() if prop in k.properties]


def prove_kind(prop: str, tile: bool) -> str:
    """The spec kind ``prove``'s flags stand for when stating ``prop`` (``Prove.kind``): a ``layout`` given ``--tile``
    is a ``tv`` map. Pre: ``PROPERTY_SPECS[prop].prove`` is set.

    >>> prove_kind("injective", False), prove_kind("injective", True), prove_kind("conflict_free", True)
    ('layout', 'tv', 'smem')
    """
    kind = PROPERTY_SPECS[prop].prove.kind
    return "tv" if kind == "layout" and tile else kind


def prove_inputs(prop: str) -> tuple[Param, ...]:
    """The inputs ``prove`` accepts for ``prop`` (``()``: spec files only): its parameters that have a flag, the
    config keys its ``Need``s name, and ``--tile`` where a TV map states it too; ``prove`` refuses any other flag.

    >>> [p.flag for p in prove_inputs("in_bounds")], [p.flag for p in prove_inputs("conflict_free")]
    (['--bound', '--tile'], ['--access', '--dtype'])
    """
    spec = PROPERTY_SPECS[prop]
    if spec.prove is None:
        return ()
    wanted = {k for n in spec.prove.needs for k in (*n.keys, n.unless) if k}
    if spec.prove.kind == "layout" and prop in KINDS["tv"].properties:  # --tile makes EXPR a TV layout
        wanted.add("tile")
    params = tuple(p for p in spec.params if p.flag)
    named = {p.name for p in params}
    return params + tuple(k for k in PROVE_KEYS if k.name in wanted and k.name not in named)


COMMON_KEYS = {"name", "kind", "description", "properties"}
NAME_PUNCTUATION = "_.+-"
MAX_NAME = 100


def config_name_error(name: Any) -> str | None:
    """Why ``name`` cannot name a config, or ``None``: 1 to 100 characters, each a Unicode letter or digit (``größe``,
    ``行列``), a combining mark after one, or one of ``_.+-``; no spaces, controls or invisible format characters.

    >>> config_name_error("größe_ü"), config_name_error("a b")
    (None, "expected a config name of Unicode letters, digits and '_.+-', found 'a b' (' ' at position 2)")
    """
    if not isinstance(name, str) or not name:
        found = repr(name) if isinstance(name, str) else f"a TOML {_toml_type(name)}"
        return f"expected a config name of Unicode letters, digits and '{NAME_PUNCTUATION}', found {found}"
    if len(name) > MAX_NAME:
        return f"expected a config name of at most {MAX_NAME} characters, found {len(name)}"
    for i, ch in enumerate(name):
        mark = i > 0 and unicodedata.category(ch).startswith("M")
        if not (ch.isalnum() or ch in NAME_PUNCTUATION or mark):
            return (f"expected a config name of Unicode letters, digits and '{NAME_PUNCTUATION}', found {name!r} "
                    f"({ch!r} at position {i + 1})")
    return None


def _toml_type(v: Any) -> str:
    names = {bool: "boolean", int: "integer", float: "float", list: "array", dict: "table", type(None): "nothing"}
    return names.get(type(v), type(v).__name__)

ALL_PROPERTIES = sorted(PROPERTY_SPECS)


@dataclass(frozen=True, slots=True)
class PropertyRequest:
    """One entry of a config's ``properties`` list: a property name and its parameters."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    line: int = 0

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)

    @property
    def label(self) -> str:
        """``vectorizable(width=8)``: the name with its parameters, as tables and reports print it.

        >>> PropertyRequest("wavefront_count", (("access", "ldsm_x4"), ("n", 4))).label
        'wavefront_count(access=ldsm_x4, n=4)'
        """
        if not self.params:
            return self.name
        return f"{self.name}({', '.join(f'{k}={_show(v)}' for k, v in self.params)})"


@dataclass(frozen=True, slots=True)
class Config:
    """One ``[[config]]``: its kind, validated values (layouts already parsed) and property requests."""

    name: str
    kind: str
    file: str
    line: int
    values: tuple[tuple[str, Any], ...]
    properties: tuple[PropertyRequest, ...]
    key_lines: tuple[tuple[str, int], ...] = ()
    description: str = ""

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` (the last one written, as ``dict(values)`` would keep), else ``default``."""
        for k, v in reversed(self.values):
            if k == key:
                return v
        return default

    def line_of(self, key: str) -> int:
        """The line of ``key`` in the file (the ``[[config]]`` header line when the key is not written)."""
        return dict(self.key_lines).get(key, self.line)

    def error(self, key: str, message: str) -> SpecError:
        """``SpecError("file:line: config 'c': key 'k': message")`` for a bad value of ``key`` (with ``file``,
        ``line``, ``key`` set)."""
        line = self.line_of(key)
        return SpecError(f"{self.file}:{line}: config {self.name!r}: key {key!r}: {message}", file=self.file,
                         line=line, key=key)


@dataclass(frozen=True, slots=True)
class Spec:
    """One loaded spec file: its format version, its configs in file order and its description."""

    file: str
    format: int
    configs: tuple[Config, ...]
    description: str = ""
    errors: tuple[SpecError, ...] = ()
    """The configs that did not load (``parse_spec(strict=False)``), in file order; ``configs`` holds the rest."""
    expect: str = "proven"


def _show(v: Any) -> str:
    if isinstance(v, tuple):
        return "(" + ",".join(_show(x) for x in v) + ")"
    return str(v)



# -- the user documentation's tables, generated (specs/README.md; ``python -m layoutcheck.spec.schema --markdown``) --
GENERATED = ("kinds", "properties")
"""The tables of ``specs/README.md`` generated from the declarations above, each between ``<!-- BEGIN GENERATED:
name -->`` and ``<!-- END GENERATED: name -->`` (``tests/spec/test_registry.py`` checks the committed ones)."""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table(name: str) -> str:
    """The Markdown table ``name`` (one of ``GENERATED``): ``kinds`` (each kind, what it describes, its required keys
    and properties) or ``properties`` (each property, its kinds, claim, parameters and ``prove`` flags)."""
    if name == "kinds":
        rows = ["| kind | a config describes | required keys | properties |", "|---|---|---|---|"]
        for k in KINDS.values():
            required = ", ".join(f"`{r}`" for r in sorted(k.required)) or "—"
            rows.append(f"| `{k.name}` | {_cell(k.doc)} | {required} | "
                        f"{', '.join(f'`{p}`' for p in k.properties)} |")
        return "\n".join(rows)
    rows = ["| property | kinds | claim | parameters (in `{ name = ..., ... }`) | `prove` flags |",
            "|---|---|---|---|---|"]
    for p in ALL_PROPERTIES:
        spec = PROPERTY_SPECS[p]
        params = "; ".join(f"`{q.name}` ({q.type}): {_cell(q.doc)}" for q in spec.params) or "—"
        flags = " ".join(f"`{i.flag}`" for i in prove_inputs(p)) or ("(none)" if spec.prove else "spec files only")
        rows.append(f"| `{p}` | {', '.join(f'`{k}`' for k in kinds_of(p))} | {_cell(spec.doc)} | {params} | {flags} |")
    return "\n".join(rows)


def update_generated(text: str) -> str:
    """``text`` with each generated table between its markers replaced by ``markdown_table``'s (the rest kept).

    Raises ``ValueError`` when a table's markers are missing."""
    for name in GENERATED:
        begin, end = f"<!-- BEGIN GENERATED: {name} -->", f"<!-- END GENERATED: {name} -->"
        if text.count(begin) != 1 or text.count(end) != 1:
            raise ValueError(f"expected one {begin!r} and one {end!r}")
        head, rest = text.split(begin)
        text = f"{head}{begin}\n{markdown_table(name)}\n{end}{rest.split(end)[1]}"
    return text


def _main(argv: list[str]) -> int:
    """``--markdown``: print the generated tables; ``--update FILE``: rewrite them in ``FILE`` (specs/README.md)."""
    if argv[:1] == ["--markdown"]:
        print("\n\n".join(markdown_table(n) for n in GENERATED))
        return 0
    if argv[:1] == ["--update"] and len(argv) == 2:
        with open(argv[1], encoding="utf-8") as f:
            text = f.read()
        with open(argv[1], "w", encoding="utf-8") as f:
            f.write(update_generated(text))
        return 0
    print("usage: python -m layoutcheck.spec.schema --markdown | --update specs/README.md")
    return 2


if __name__ == "__main__":  # pragma: no cover
    import sys

    sys.exit(_main(sys.argv[1:]))
