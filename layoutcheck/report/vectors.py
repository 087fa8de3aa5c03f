"""Exhaustive element-ownership test vectors: who owns every element of a tile, and what every (thread, value) holds.

For a TV config (``tv``: ``(thread, value) -> tile index``, column-major ``row + ROWS*col``) or a tiled MMA (the
whole CTA tile of one operand, via ``models.tiled_mma.ownership``) the vectors are two views of one relation::

    forward  row[t][v], col[t][v], offset[t][v]       thread t's value v: its tile coordinate and memory offset
    inverse  owner_start[e] .. owner_start[e+1]       the owners of element e = row + ROWS*col, as owner ids
             owner[k] = t + T*v                        (ascending; exactly one owner each for an exact cover)

An owner id is ``layoutcheck.witness.owner_id``: ``t + T*v``, CuTe's colexicographic index of ``(t, v)`` in the TV
shape ``(T, V)`` -- the TV layout's own index, and the same integer a JSON / SARIF counterexample's ``owners`` and the
generated ownership kernels use (schema 2; schema 1 wrote ``t*V + v``). A flat list of a forward array (json, h) is
indexed by the owner id too: ``row[t + T*v]``.

``offset`` is the element's offset under the config's ``memory`` layout (a TV config) or ``row + ROWS*col``
(column-major) otherwise. Formats: ``npz`` (NumPy arrays, shapes as above), ``json`` (flat lists, index ``t + T*v``),
``csv`` (one line per (thread, value)), ``h`` (C header of ``static const`` arrays for a CUDA unit test, with
``__device__`` copies ``lc_<name>_<key>_dev`` under ``__CUDACC__`` for device code).

Large outputs are written in chunks straight from the arrays (never formatted in memory as a whole) to a temporary
file that is renamed into place at the end.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from layoutcheck.algebra.layout import Layout, size
from layoutcheck.algebra.swizzle import ComposedLayout
from layoutcheck.errors import LayoutError, PartialMap, SpecError
from layoutcheck.report.verdicts import atomic_open
from layoutcheck.witness_record import owner_id, owner_of

SCHEMA_VERSION = 2
MAX_ELEMENTS = 1 << 28
CHUNK = 1 << 18


@dataclass(frozen=True, slots=True, eq=False)
class OwnershipVectors:
    """The ownership relation of one config as NumPy arrays (see the module docstring for their meaning)."""

    name: str
    tile: tuple[int, int]
    row: np.ndarray  # [T, V]
    col: np.ndarray  # [T, V]
    offset: np.ndarray  # [T, V]
    owner_start: np.ndarray  # [E + 1]
    owner: np.ndarray  # [sum of owner counts], owner ids t + T*v
    source: str = ""

    @property
    def num_threads(self) -> int:
        return int(self.row.shape[0])

    @property
    def num_values(self) -> int:
        return int(self.row.shape[1])

    def owners_of(self, row: int, col: int) -> list[tuple[int, int]]:
        """``[(thread, value), ...]`` owning tile element ``(row, col)``."""
        e = row + self.tile[0] * col
        ids = self.owner[self.owner_start[e]:self.owner_start[e + 1]]
        return [owner_of(int(i), self.num_threads) for i in ids]


def _small(a: np.ndarray) -> np.ndarray:
    if a.size == 0 or (a.max() < 2**31 and a.min() >= -(2**31)):
        return a.astype(np.int32, copy=False)
    return a


def tile_2d(tile: tuple[int, ...]) -> tuple[int, int]:
    if len(tile) == 1:
        return (tile[0], 1)
    if len(tile) == 2:
        return (tile[0], tile[1])
    raise LayoutError(f"ownership vectors need a 1-D or 2-D tile, found {tile}")


def inverse_relation(pair_elem: np.ndarray, n_elem: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR of the inverse of ``pair -> element``: ``owner_start`` (n_elem+1) and ``owner`` (pair ids, ascending).

    Pre: ``0 <= pair_elem < n_elem``. Post: ``pair_elem[owner[k]] == e`` for ``owner_start[e] <= k <
    owner_start[e+1]``.

    >>> s, o = inverse_relation(np.array([1, 0, 1]), 3)
    >>> s.tolist(), o.tolist()
    ([0, 1, 3, 3], [1, 0, 2])
    """
    counts = np.bincount(pair_elem, minlength=n_elem)
    start = np.zeros(n_elem + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    if pair_elem.size == n_elem and counts.size == n_elem and bool((counts == 1).all()):
        owner = np.empty(n_elem, dtype=np.int64)  # a permutation: scatter, O(n)
        owner[pair_elem] = np.arange(n_elem, dtype=np.int64)
    else:
        owner = np.argsort(pair_elem, kind="stable")
    return _small(start), _small(owner)


def from_tv(name: str, tv: Layout | ComposedLayout, tile: tuple[int, ...], memory: Any = None) -> OwnershipVectors:
    """Vectors of a TV layout over ``tile`` (column-major tile index), offsets under ``memory`` (default: the index).

    Pre: ``tv`` has rank 2 and maps into ``[0, size(tile))``.
    """
    rows, cols = tile_2d(tuple(tile))
    inner = tv.layout if isinstance(tv, ComposedLayout) else tv
    if len(inner) != 2:
        raise LayoutError(f"{name}: a TV layout has rank 2 (thread, value), found rank {len(inner)}: {tv}")
    n = size(inner)
    if n > MAX_ELEMENTS:
        raise LayoutError(f"{name}: {n} (thread, value) pairs is over the limit of {MAX_ELEMENTS}")
    t, v = size(inner[0]), size(inner[1])
    y = tv.offsets()  # index i = t + T*v
    n_elem = rows * cols
    bad = np.flatnonzero((y < 0) | (y >= n_elem))
    if bad.size:
        i = int(bad[0])
        raise LayoutError(f"{name}: thread {i % t}, value {i // t} -> {int(y[i])}, outside the {rows}x{cols} tile")
    y_tv = y.reshape(v, t).T  # [t, v]
    off = _memory_offsets(memory, y_tv, n_elem, name)
    start, owner = inverse_relation(y, n_elem)  # y is indexed by the owner id t + T*v
    return OwnershipVectors(name, (rows, cols), _small(y_tv % rows), _small(y_tv // rows), off, start, owner,
                            f"tv {tv} over tile {rows}x{cols}")


def _memory_offsets(memory: Any, y_tv: np.ndarray, n_elem: int, name: str) -> np.ndarray:
    if memory is None:
        return _small(y_tv)
    inner = memory.layout if isinstance(memory, ComposedLayout) else memory
    if size(inner) != n_elem:
        raise LayoutError(f"{name}: memory layout {memory} has size {size(inner)}, the tile has {n_elem} elements")
    return _small(memory.offsets()[y_tv])


def from_ownership(name: str, own: Any) -> OwnershipVectors:
    """Vectors from a ``layoutcheck.models.tiled_mma.Ownership`` (a whole operand tensor of a tiled MMA)."""
    rows, cols = own.shape
    nt = own.num_threads
    rep = own.replication
    thread = own.thread.transpose(1, 0, 2).reshape(rows * cols, rep)  # e = row + rows*col, then replica
    value = own.value.T.reshape(rows * cols)
    ids = owner_id(thread.astype(np.int64), value.astype(np.int64)[:, None], nt)
    ids.sort(axis=1)
    start = np.arange(0, rows * cols * rep + 1, rep, dtype=np.int64)
    return OwnershipVectors(name, (rows, cols), _small(own.row_of), _small(own.col_of), _small(own.offset_of),
                            _small(start), _small(ids.reshape(-1)), f"tiled MMA operand {own.operand}")


def check_cover(own: OwnershipVectors, replication: int = 1) -> None:
    """``PartialMap`` unless every tile element has exactly ``replication`` owners (the counts and the first bad one).

    >>> check_cover(from_tv("c", Layout((2, 2), (1, 2)), (2, 2)))
    """
    counts = np.diff(own.owner_start.astype(np.int64))
    bad = np.flatnonzero(counts != replication)
    if bad.size == 0:
        return
    e = int(bad[0])
    unowned, over = int((counts == 0).sum()), int((counts > replication).sum())
    under = int(((counts > 0) & (counts < replication)).sum())
    rows = own.tile[0]
    raise PartialMap(f"{own.name} is not an exact cover of its {own.tile[0]}x{own.tile[1]} tile: {unowned} elements "
                     f"unowned, {over} owned more than {replication} time(s)" + (f", {under} under-owned" if under
                                                                                   else "")
                     + f" (first: element (row {e % rows}, col {e // rows}) owned {int(counts[e])} times); pass "
                     f"--partial to write the vectors of the partial map anyway")


def ownership_for_spec(path: str, config: str | None = None, partial: bool = False) -> OwnershipVectors:
    """Load ``path`` and build the vectors of its TV or tiled-MMA config ``config`` (the only one if omitted).

    Unless ``partial``, a map that is not an exact cover raises ``PartialMap`` with the counts.
    """
    from layoutcheck.spec.load import load_spec
    from layoutcheck.spec.ownership import OWNED_KINDS, has_owner_map, owner_map

    spec = load_spec(path)
    usable = [c for c in spec.configs if has_owner_map(c)]
    if config is not None:
        named = [c for c in spec.configs if c.name == config]
        if not named:
            raise SpecError(f"{path}: no config named {config!r} (configs: {', '.join(c.name for c in spec.configs)})")
        if not has_owner_map(named[0]):
            raise SpecError(f"{path}:{named[0].line}: config {config!r} is kind {named[0].kind!r}; ownership vectors "
                            f"need kind {' or '.join(repr(k) for k in OWNED_KINDS)}")
        cfg = named[0]
    elif len(usable) == 1:
        cfg = usable[0]
    else:
        names = ", ".join(c.name for c in usable) or "none"
        raise SpecError(f"{path}: pick a config with --config (TV / tiled_mma configs: {names})")
    try:
        m = owner_map(cfg, cfg.get("operand", "C"))
        if m.mma is None:
            own, rep = from_tv(cfg.name, m.tv, m.tile, m.memory), 1
        else:
            from layoutcheck.models.tiled_mma import ownership

            o = ownership(m.mma, m.operand, m.tile)
            own, rep = from_ownership(cfg.name, o), o.replication
    except LayoutError as e:
        raise SpecError(f"{cfg.file}:{cfg.line}: config {cfg.name!r}: {' '.join(str(e).split())}") from None
    if not partial:
        check_cover(own, rep)
    return own


# -- writers --------------------------------------------------------------------------------------------------------
def write_vectors(own: OwnershipVectors, path: str, fmt: str) -> None:
    """Write ``own`` as ``fmt`` (npz, json, csv, h) to ``path`` atomically, in chunks."""
    writers = {"npz": _write_npz, "json": _write_json, "csv": _write_csv, "h": _write_header}
    if fmt not in writers:
        raise LayoutError(f"unknown vectors format {fmt!r}: expected npz, json, csv or h")
    with atomic_open(path, "wb" if fmt == "npz" else "w") as f:
        writers[fmt](own, f)


def _meta(own: OwnershipVectors) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "name": own.name, "source": own.source, "rows": own.tile[0],
            "cols": own.tile[1], "threads": own.num_threads, "values": own.num_values,
            "element_index": "row + rows*col", "pair_index": "thread + threads*value"}


def _write_npz(own: OwnershipVectors, f: IO[bytes]) -> None:
    np.savez(f, row=own.row, col=own.col, offset=own.offset, owner_start=own.owner_start, owner=own.owner,
             meta=np.array(json.dumps(_meta(own))))


def _write_list(f: IO[str], a: np.ndarray, per_line: bool = False, sep: str = ",\n") -> None:
    """``a`` as comma-separated integers, written by NumPy's C text writer chunk by chunk (no whole-array string);
    ``per_line``: chunks separated by ``sep``. A ``[T, V]`` forward array is written in owner-id order
    ``t + T*v``."""
    flat = a.T.reshape(-1) if a.ndim == 2 else a.reshape(-1)
    for i in range(0, flat.size, CHUNK):
        if i:
            f.write(sep if per_line else ",")
        f.flush()
        flat[i:i + CHUNK].tofile(f, sep=",")


def _write_json(own: OwnershipVectors, f: IO[str]) -> None:
    f.write(json.dumps(_meta(own))[:-1])
    for key in ("row", "col", "offset", "owner_start", "owner"):
        f.write(f', "{key}": [')
        _write_list(f, getattr(own, key))
        f.write("]")
    f.write("}\n")


def _write_csv(own: OwnershipVectors, f: IO[str]) -> None:
    f.write("thread,value,row,col,offset\n")
    t_n, v_n = own.num_threads, own.num_values
    step = max(1, CHUNK // max(v_n, 1))
    for t0 in range(0, t_n, step):
        t1 = min(t_n, t0 + step)
        th = np.repeat(np.arange(t0, t1), v_n)
        va = np.tile(np.arange(v_n), t1 - t0)
        cols = np.stack([th, va, own.row[t0:t1].reshape(-1), own.col[t0:t1].reshape(-1),
                         own.offset[t0:t1].reshape(-1)], axis=1)
        f.write("\n".join(",".join(map(str, r)) for r in cols.tolist()))
        f.write("\n")


def c_name(name: str) -> str:
    """The C identifier part of a config name in a header (``lc_<c_name>_row``, ``LC_<C_NAME>_THREADS``).

    A name of ASCII letters and digits joined by single underscores is used as it is (it always follows ``lc_``, so
    a leading digit is fine); any other name -- ``a.b+c-d``, ``größe``, ``x__y`` -- becomes its letters and digits
    joined by ``_`` plus ``_h`` and 8 hex digits of its SHA-256, so two config names never share an identifier
    (``a.b+c-d`` and ``a_b_c_d`` differ) and no identifier holds ``__`` (reserved in C++).

    >>> c_name("m16n8k16_C"), c_name("1abc"), c_name("a.b+c-d")
    ('m16n8k16_C', '1abc', 'a_b_c_d_hed18a3f2')
    """
    import hashlib
    import re

    if re.fullmatch(r"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*", name):
        return name
    readable = "_".join(re.findall(r"[A-Za-z0-9]+", name))
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{readable}_h{digest}" if readable else f"h{digest}"


def _write_header(own: OwnershipVectors, f: IO[str]) -> None:
    """The C header: ``#define``s, each array's data once as the macro ``LC_<NAME>_<KEY>_DATA``, a host copy
    ``static const lc_<name>_<key>`` and, under ``__CUDACC__``, a device copy ``static __device__ const
    lc_<name>_<key>_dev`` (a host ``static const`` array cannot be read in a ``__global__`` function)."""
    n = c_name(own.name)
    up = n.upper()
    f.write(f"// Generated by `layoutcheck vectors`: ownership of {own.name} ({own.source}).\n")
    f.write("// row/col/offset are indexed by the owner id thread + THREADS * value; the owners of element\n")
    f.write("// e = row + ROWS*col are owner[owner_start[e] .. owner_start[e+1]), each an owner id (ascending).\n")
    f.write("// Host code reads lc_NAME_KEY; device code (nvcc, __CUDACC__) reads the __device__ copies "
            "lc_NAME_KEY_dev.\n")
    f.write("#pragma once\n#include <stdint.h>\n\n")
    f.write("#ifndef LC_VECTORS_UNUSED  /* a test reads some arrays only: no unused-variable warning for the rest */\n"
            "#if defined(__GNUC__) || defined(__clang__) || defined(__CUDACC__)\n"
            "#define LC_VECTORS_UNUSED __attribute__((unused))\n#else\n#define LC_VECTORS_UNUSED\n#endif\n#endif\n\n")
    for key, val in (("THREADS", own.num_threads), ("VALUES", own.num_values), ("ROWS", own.tile[0]),
                     ("COLS", own.tile[1]), ("OWNERS", own.owner.size)):
        f.write(f"#define LC_{up}_{key} {val}\n")
    for key in ("row", "col", "offset", "owner_start", "owner"):
        a = getattr(own, key)
        ctype = "int32_t" if a.dtype == np.int32 else "int64_t"
        data = f"LC_{up}_{key.upper()}_DATA"
        f.write(f"\n#define {data} \\\n")
        _write_list(f, a, per_line=True, sep=", \\\n")
        decl = f"const {ctype} lc_{n}_{key}"
        f.write(f"\nstatic {decl}[{a.size}] LC_VECTORS_UNUSED = {{{data}}};\n")
        f.write(f"#if defined(__CUDACC__)\nstatic __device__ {decl}_dev[{a.size}] LC_VECTORS_UNUSED = {{{data}}};\n"
                "#endif\n")
