"""A CuTe DSL kernel in a Python file, compiled on the CPU with the user's DSL: its traced module and its atoms.

``compile_kernel(KernelSpec("gemm.py::host", ("f16[256,128]", ...), arch="sm_90a"))`` does what
``cute.compile(host, make_fake_compact_tensor(Float16, (256, 128), stride_order=(1, 0)), ...,
options="--gpu-arch sm_90a")`` does: the ``@cute.jit`` host function and every ``@cute.kernel`` it launches are
traced and compiled with the installed ``nvidia-cutlass-dsl``; no GPU is needed. A ``Capture`` keeps:

- the CuTe-dialect module as traced, before any pass (the DSL's own ``trace_finalize_hooks``, which run before its
  compile cache is consulted), printed in MLIR's generic form (one syntax for every operation) with its locations
  (``--generate-line-info``): every static layout is spelled in its type (``!cute.memref<f16, smem, align<16>,
  S<3,4,3>, "((8,16),(64,1)):((64,512),(1,0))">``, ``!cute.tiled_copy<..., layout_copy_tv = <"...">, tiler_mn =
  <"[..]">>``, ``tma_gbasis = <"...">``);
- for each ``make_tiled_mma`` call, the DSL's own tiled TV layouts of A, B and C and the tile they index
  (``tv_layout_C_tiled``, ``get_tile_size``: the IR type names the atom, not its TV layouts), and for each TiledCopy
  constructor call its ``layout_src_tv_tiled`` / ``layout_dst_tv_tiled``; the constructors are rebound for the
  compile only, wherever a loaded module binds them (``cute.make_tiled_mma``, helpers that imported it by name),
  and each record names the line of the innermost frame in the user's file.

``importers.cute_dsl_findings`` turns a ``Capture`` into spec configs. Like ``triton_kernel``, this is an importer
that runs the tool it reads: the DSL is imported inside ``compile_kernel`` only, so ``layoutcheck`` starts without
it, and a kernel the DSL rejects is a ``LayoutError`` with the DSL's own message.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from layoutcheck.errors import LayoutcheckError, LayoutError, UsageError
from layoutcheck.importers.user_file import import_user_file

ARCHS = ("sm_80", "sm_86", "sm_89", "sm_90a", "sm_100a", "sm_101a", "sm_103a", "sm_120a")
"""``--arch`` choices, passed to the DSL as ``--gpu-arch`` (its own default is sm_100a)."""

DTYPES = {"f16": "Float16", "bf16": "BFloat16", "f32": "Float32", "tf32": "TFloat32", "f64": "Float64",
          "s8": "Int8", "i8": "Int8", "u8": "Uint8", "s32": "Int32", "i32": "Int32", "e4m3": "Float8E4M3FN",
          "e5m2": "Float8E5M2"}
"""Element type names of ``--args`` -> the ``cutlass`` numeric type of the fake tensor."""



# -- the user's kernel and its arguments ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class KernelSpec:
    """What ``layoutcheck cute-dsl`` is given: ``FILE.py::HOST`` (a ``@cute.jit`` function, or an object whose
    ``__call__`` is one), its arguments (``--args``) and the target (``--arch``)."""

    where: str
    args: tuple[str, ...] = ()
    arch: str = "sm_100a"

    def file_and_name(self) -> tuple[Path, str]:
        file, sep, name = self.where.rpartition("::")
        if not sep or not file or not name:
            raise UsageError(f"cute-dsl: expected FILE.py::HOST, found {self.where!r}")
        return Path(file), name


_TENSOR = re.compile(r"^(?P<dt>[a-z0-9]+)\[(?P<shape>[\d?,\s]+)\](?:\{(?P<order>[\d,\s]+)\})?$")
_DIM = re.compile(r"^(?:\d+|\?\d*)$")


@dataclass(frozen=True, slots=True)
class TensorArg:
    """``DTYPE[d0,d1,...]`` (row-major: the last mode contiguous) or ``DTYPE[d0,...]{o0,...}`` (CuTe's
    ``stride_order``: 0 marks the stride-1 mode): a fake global tensor, 16-byte aligned. An extent ``?`` (or ``?D``:
    a multiple of ``D``) is dynamic, a ``SymInt`` of the compiled function, as ``mark_layout_dynamic`` makes it."""

    dtype: str
    shape: tuple[int | str, ...]
    order: tuple[int, ...]


def parse_arg(text: str) -> tuple[str | None, Any]:
    """``"[NAME=]VALUE"`` -> ``(NAME or None, value)``: a ``TensorArg``, an int, ``true``/``false``, or ``stream``
    (a fake CUDA stream, for hosts that take one).

    >>> parse_arg("mA=f16[256,64]")
    ('mA', TensorArg(dtype='f16', shape=(256, 64), order=(1, 0)))
    >>> parse_arg("f16[?8,64]")
    (None, TensorArg(dtype='f16', shape=('?8', 64), order=(1, 0)))
    >>> parse_arg("8")
    (None, 8)
    """
    name, sep, val = text.partition("=")
    if not sep:
        name, val = "", text
    name, val = name.strip(), val.strip()
    m = _TENSOR.match(val.replace(" ", ""))
    if m:
        if m.group("dt") not in DTYPES:
            raise UsageError(f"cute-dsl: --args {text!r}: unknown element type {m.group('dt')!r} "
                             f"(one of {', '.join(DTYPES)})")
        dims = [x for x in m.group("shape").split(",") if x]
        if not all(_DIM.match(x) for x in dims):
            raise UsageError(f"cute-dsl: --args {text!r}: an extent is an int, ? or ?D (dynamic, a multiple of D)")
        shape = tuple(x if x.startswith("?") else int(x) for x in dims)
        order = (tuple(int(x) for x in m.group("order").split(",") if x) if m.group("order")
                 else tuple(range(len(shape) - 1, -1, -1)))
        if sorted(order) != list(range(len(shape))):
            raise UsageError(f"cute-dsl: --args {text!r}: the stride order {order} is no permutation of the "
                             f"{len(shape)} modes")
        return name or None, TensorArg(m.group("dt"), shape, order)
    if val.lower() in ("true", "false"):
        return name or None, val.lower() == "true"
    if val == "stream":
        return name or None, STREAM
    try:
        return name or None, int(val)
    except ValueError:
        raise UsageError(f"cute-dsl: --args {text!r}: expected [NAME=]DTYPE[SHAPE] (e.g. f16[256,128], "
                         "f16[256,128]{0,1} for column-major, f16[?,128] dynamic), an int, true/false or "
                         "stream") from None


STREAM = "stream"
"""``--args stream``: a fake CUDA stream (``cutlass.runtime.make_fake_stream``)."""


def load_host(spec: KernelSpec) -> Any:
    """The ``HOST`` of ``FILE.py`` (the file is imported: it is the user's own code)."""
    path, name = spec.file_and_name()
    try:
        module = import_user_file(path, "cute_dsl", "cute-dsl")
    except UsageError:
        raise
    except Exception as e:  # the user's file does not import: their input, in one line
        raise LayoutError(f"cute-dsl: importing {path} failed: {type(e).__name__}: {_last_line(e)}") from e
    host = getattr(module, name, None)
    if host is None or not callable(host):
        raise UsageError(f"cute-dsl: {path} has no callable {name!r} (a @cute.jit function, or an object whose "
                         "__call__ is one)")
    return host


def _last_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[-1].strip()


def _dsl_args(spec: KernelSpec, host: Any) -> tuple[list[Any], dict[str, Any]]:
    """The positional and keyword arguments of ``cute.compile`` (fake tensors for ``TensorArg``)."""
    import cutlass
    import cutlass.cute as cute
    from cutlass.cute.runtime import make_fake_compact_tensor
    from cutlass.runtime import make_fake_stream

    def extent(d: int | str) -> Any:
        return d if isinstance(d, int) else cute.sym_int(divisibility=int(d[1:] or 1))

    def value(v: Any) -> Any:
        if isinstance(v, TensorArg):
            return make_fake_compact_tensor(getattr(cutlass, DTYPES[v.dtype]), tuple(extent(d) for d in v.shape),
                                            stride_order=v.order, assumed_align=16)
        return make_fake_stream() if v is STREAM else v

    pos: list[Any] = []
    kw: dict[str, Any] = {}
    for text in spec.args:
        name, v = parse_arg(text)
        if name is None:
            if kw:
                raise UsageError(f"cute-dsl: --args {text!r}: a positional argument after a named one")
            pos.append(value(v))
        else:
            kw[name] = value(v)
    return pos, kw


# -- compiling with the hooks -----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TiledMmaRecord:
    """What the DSL says about one TiledMMA the kernel builds: its IR type, the tiled TV layout of each operand
    (``(thread, value) -> colex index in the operand's tile``), the tile ``(M, N, K)``, and where it was built."""

    type: str
    tv: tuple[tuple[str, str], ...]
    tile_mnk: tuple[int, int, int] | None
    file: str
    line: int
    error: str | None = None


@dataclass(frozen=True, slots=True)
class TiledCopyRecord:
    """What the DSL says about one TiledCopy: its IR type and its tiled source and destination TV layouts
    (``layout_src_tv_tiled``, ``layout_dst_tv_tiled``: ``(thread, value) -> colex index in tiler_mn``)."""

    type: str
    tv: tuple[tuple[str, str], ...]
    file: str
    line: int
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Capture:
    """A compiled kernel: the traced CuTe-dialect module(s) with locations, and the TiledMMAs and TiledCopies it
    built (as the DSL describes them)."""

    ir: str
    mmas: tuple[TiledMmaRecord, ...]
    file: str
    arch: str = "sm_100a"
    copies: tuple[TiledCopyRecord, ...] = ()


def compile_kernel(spec: KernelSpec) -> Capture:
    """Trace and compile ``spec`` on the CPU; the module as traced and the TiledMMA records. ``UsageError`` for a bad
    ``FILE::HOST``, argument or arch; ``LayoutError`` for a kernel the DSL rejects (its message, last line)."""
    if spec.arch not in ARCHS:
        raise UsageError(f"cute-dsl: --arch {spec.arch!r}: choose one of {', '.join(ARCHS)}")
    import cutlass
    import cutlass.cute as cute
    from cutlass.base_dsl.dsl import BaseDSL

    host = load_host(spec)
    file = str(spec.file_and_name()[0].resolve())
    pos, kw = _dsl_args(spec, host)
    modules: list[str] = []
    mmas: list[TiledMmaRecord] = []
    copies: list[TiledCopyRecord] = []

    def keep(owner: Any, module: Any, function_name: str) -> None:
        modules.append(module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True))

    dsl = BaseDSL._get_dsl()
    try:
        with dsl.trace_finalize_hooks(keep), _hooks(file, mmas, copies):
            cute.compile(host, *pos, **kw, options=f"--gpu-arch {spec.arch} --generate-line-info")
    except LayoutcheckError:
        raise
    except Exception as e:  # the DSL's rejection of the kernel: the user's input, reported in one line
        raise LayoutError(f"cute-dsl: CuTe DSL {getattr(cutlass, '__version__', '')} cannot compile {spec.where} "
                          f"for {spec.arch}: {type(e).__name__}: {dsl_message(e)}") from e
    if not modules:
        raise LayoutError(f"cute-dsl: compiling {spec.where} traced no module (is {spec.file_and_name()[1]} a "
                          "@cute.jit function?)")
    return Capture("\n".join(modules), tuple(mmas), file, spec.arch, tuple(copies))


def dsl_message(e: BaseException) -> str:
    """The DSL's diagnostic in one line: its ``error: ...`` text (and its ``--> file:line``), else the last line.

    >>> dsl_message(ValueError("\\x1b[91merror:\\x1b[0m expects arch sm_90a\\n  --> k.py:15:17\\n  suggestion: x"))
    'expects arch sm_90a (k.py:15:17)'
    """
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(e))
    err = re.search(r"^\s*error(?:\[\w+\])?:\s*(?P<msg>.+)$", text, re.M)
    if err is None:
        return _last_line(e)
    where = re.search(r"^\s*-->\s*(?P<at>\S+)", text, re.M)
    return err.group("msg").strip() + (f" ({where.group('at')})" if where else "")


COPY_MAKERS = (("cutlass.cute.atom", ("make_tiled_copy", "make_tiled_copy_tv", "make_tiled_copy_A",
                                      "make_tiled_copy_B", "make_tiled_copy_C", "make_tiled_copy_S",
                                      "make_tiled_copy_D", "make_tiled_copy_C_atom", "make_cotiled_copy")),
               ("cutlass.cute.nvgpu.tcgen05.helpers", ("make_tmem_copy", "make_s2t_copy")))
"""The DSL's TiledCopy constructors (module, names) whose results are recorded."""


@contextmanager
def _hooks(file: str, mmas: list[TiledMmaRecord], copies: list[TiledCopyRecord]) -> Iterator[None]:
    """Every ``make_tiled_mma`` and TiledCopy constructor the DSL can reach (each module-level name bound to one)
    records its result while the kernel compiles."""
    from contextlib import ExitStack

    from cutlass.cute import atom

    def hook(orig: Callable[..., Any], record: Callable[[Any], None]) -> Callable[..., Any]:
        def hooked(*args: Any, **kwargs: Any) -> Any:
            got = orig(*args, **kwargs)
            record(got)
            return got
        return hooked

    with ExitStack() as stack:
        orig = atom.make_tiled_mma
        stack.enter_context(_rebound(orig, hook(orig, lambda tm: mmas.append(_mma_record(tm, file)))))
        for module, names in COPY_MAKERS:
            try:
                mod = importlib.import_module(module)
            except ImportError:  # another DSL version: its TiledCopies are checked on their IR type alone
                continue
            for name in names:
                orig = getattr(mod, name, None)
                if orig is not None:
                    stack.enter_context(_rebound(orig, hook(orig, lambda tc: copies.append(_copy_record(tc, file)))))
        yield


def _copy_record(tc: Any, file: str) -> TiledCopyRecord:
    line = _user_line(file)
    try:
        tv = tuple((side, str(getattr(tc, f"layout_{side}_tv_tiled"))) for side in ("src", "dst"))
        return TiledCopyRecord(str(tc.type), tv, file, line)
    except Exception as e:  # the DSL could not say: the IR's own TV layout is still checked
        return TiledCopyRecord(str(getattr(tc, "type", "?")), (), file, line, f"{type(e).__name__}: {e}")


def _mma_record(tm: Any, file: str) -> TiledMmaRecord:
    line = _user_line(file)
    try:
        tv = tuple((op, str(getattr(tm, f"tv_layout_{op}_tiled"))) for op in "ABC")
        tile = tuple(int(tm.get_tile_size(i)) for i in range(3))
        return TiledMmaRecord(str(tm.type), tv, (tile[0], tile[1], tile[2]), file, line)
    except Exception as e:  # the DSL could not say: an UNKNOWN row, never a dropped MMA
        return TiledMmaRecord(str(getattr(tm, "type", "?")), (), None, file, line, f"{type(e).__name__}: {e}")


def _user_line(file: str) -> int:
    """The line of the innermost frame in the user's ``file`` (0 when the call came from elsewhere)."""
    f = sys._getframe(1)
    while f is not None:
        if same_file(f.f_code.co_filename, file):
            return f.f_lineno
        f = f.f_back
    return 0


def same_file(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` name one file."""
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


@contextmanager
def _rebound(orig: Callable[..., Any], new: Callable[..., Any]) -> Iterator[None]:
    """Bind ``new`` wherever a loaded module binds ``orig`` at module level (``cute.make_tiled_mma``, helpers that
    imported it by name), and restore every binding afterwards."""
    done: list[tuple[Any, str]] = []
    try:
        for mod in list(sys.modules.values()):
            names = [k for k, v in list(getattr(mod, "__dict__", {}).items()) if v is orig]
            for k in names:
                setattr(mod, k, new)
                done.append((mod, k))
        yield
    finally:
        for mod, k in done:
            setattr(mod, k, orig)


__all__ = ["ARCHS", "COPY_MAKERS", "DTYPES", "Capture", "KernelSpec", "TensorArg", "TiledCopyRecord",
           "TiledMmaRecord", "compile_kernel", "dsl_message", "load_host", "parse_arg", "same_file"]
