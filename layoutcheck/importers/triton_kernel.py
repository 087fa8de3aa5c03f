"""A Triton (or Gluon) kernel in a Python file -> its TTGIR, compiled on the CPU with the user's installed Triton.

``compile_kernel(KernelSpec("kern.py::matmul", {"a_ptr": "*fp16", ...}, {"BM": 128}, num_warps=4, num_stages=3,
target="cuda:90"))`` does what ``triton.compile(ASTSource(fn, signature, constexprs), target=GPUTarget("cuda", 90,
32), options={"num_warps": 4, "num_stages": 3})`` does (``tests/data/ttgir/generate.py`` does the same): no GPU is
needed, and only the ``ttgir`` stage is kept. A ``@gluon.jit`` kernel compiles through Gluon's ``GluonASTSource``.

``source_lines(ttgir)`` maps every TTGIR line whose operation carries a ``loc(#locN)`` to the Python ``(file, line)``
it came from (following ``#locN = loc("name"(#locM))`` name locations and ``fused`` locations to the first file
location, ``callsite(callee at caller)`` to the innermost frame outside Triton's library: ``tl.sum`` points at the
kernel's line, not at Triton's ``standard.py``; a user's helper at its own line), so every row about an operation
points at the user's source.

This is the one importer that runs the tool it reads: Triton is imported inside ``compile_kernel`` only, so
``layoutcheck`` starts without it, and a missing Triton is an ``ImportError`` the command line reports in one line.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from layoutcheck.errors import LayoutError, UsageError
from layoutcheck.importers.user_file import import_user_file

TARGETS = {"cuda:80": ("cuda", 80), "cuda:90": ("cuda", 90), "cuda:100": ("cuda", 100)}
"""``--target`` -> Triton's ``GPUTarget(backend, arch, 32)`` (sm_80 mma.sync, sm_90 wgmma/TMA, sm_100 tcgen05)."""


@dataclass(frozen=True)
class KernelSpec:
    """What a user passes to the launcher: ``FILE.py::KERNEL``, the signature (argument -> Triton type such as
    ``*fp16``, ``i32``; constexprs may be left out), the constexprs, warps, stages and target."""

    where: str
    signature: Mapping[str, str] = field(default_factory=dict)
    constexprs: Mapping[str, Any] = field(default_factory=dict)
    num_warps: int = 4
    num_stages: int = 3
    target: str = "cuda:90"
    num_ctas: int = 1

    def file_and_name(self) -> tuple[Path, str]:
        file, sep, name = self.where.rpartition("::")
        if not sep or not file or not name:
            raise UsageError(f"triton: expected FILE.py::KERNEL, found {self.where!r}")
        return Path(file), name


def load_kernel(spec: KernelSpec) -> Any:
    """The ``@triton.jit`` (or ``@gluon.jit``) function ``KERNEL`` of ``FILE.py`` (the file is imported: it is the
    user's own code, as the launcher would import it)."""
    path, name = spec.file_and_name()
    module = import_user_file(path, "kernel", "triton")  # Triton's JIT looks its globals up through the module
    fn = getattr(module, name, None)
    if fn is None or not hasattr(fn, "arg_names"):
        raise UsageError(f"triton: {path} has no @triton.jit or @gluon.jit function {name!r}")
    return fn


def _signature(fn: Any, spec: KernelSpec) -> dict[str, str]:
    """Every argument's type: the user's, ``constexpr`` for a constexpr; an argument given neither is an error."""
    sig = {}
    for arg in fn.arg_names:
        if arg in spec.signature:
            sig[arg] = spec.signature[arg]
        elif arg in spec.constexprs:
            sig[arg] = "constexpr"
        else:
            raise UsageError(f"triton: argument {arg!r} of {fn.__name__} has no type: pass --signature {arg}=TYPE "
                             "(e.g. *fp16, i32) or --constexpr {arg}=VALUE")
    unknown = sorted(set(spec.signature) - set(fn.arg_names))
    if unknown:
        raise UsageError(f"triton: {fn.__name__} has no argument(s) {', '.join(unknown)} "
                         f"(its arguments: {', '.join(fn.arg_names)})")
    return sig


def _divisibility(fn: Any, sig: Mapping[str, str]) -> tuple[dict[str, str], dict[tuple[int, ...], Any]]:
    """``*fp16:16`` / ``i32:16``: the argument is divisible by 16 (a pointer 16-byte aligned), as Triton's launcher
    specialises it when the value it is called with is (``tt.divisibility``); without it Triton compiles the
    unaligned variant (no vector loads, no cp.async). Returns the plain types and the attributes."""
    plain, attrs = {}, {}
    for name, typ in sig.items():
        base, sep, div = typ.partition(":")
        plain[name] = base
        if sep:
            if div != "16":
                raise UsageError(f"triton: {name}={typ}: the only divisibility Triton specialises on is :16")
            attrs[(fn.arg_names.index(name),)] = [["tt.divisibility", 16]]
    return plain, attrs


def compile_kernel(spec: KernelSpec) -> str:
    """The TTGIR Triton compiles ``spec`` to, on the CPU. Raises ``UsageError`` for a bad ``FILE::KERNEL``,
    signature or target, ``LayoutError`` for a kernel Triton itself rejects (its message, last line)."""
    return str(compile_stages(spec)["ttgir"])


def runtime_params(spec: KernelSpec) -> list[str]:
    """The kernel's arguments that become PTX parameters, in order (constexprs are compiled in; Triton appends its
    own scratch pointers after them)."""
    fn = load_kernel(spec)
    sig = _signature(fn, spec)
    return [a for a in fn.arg_names if sig[a] != "constexpr"]


def compile_stages(spec: KernelSpec) -> dict[str, Any]:
    """Every stage Triton compiles ``spec`` to on the CPU: the texts (``ttgir``, ``llir``, ``ptx``) and the
    ``cubin`` bytes (raises as ``compile_kernel``)."""
    if spec.target not in TARGETS:
        raise UsageError(f"triton: --target {spec.target!r}: choose one of {', '.join(TARGETS)}")
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    fn = load_kernel(spec)
    sig = _signature(fn, spec)
    consts = {k: v for k, v in spec.constexprs.items() if k in fn.arg_names}
    source_cls = ASTSource
    if type(fn).__module__.startswith("triton.experimental.gluon"):
        from triton.experimental.gluon._runtime import GluonASTSource

        source_cls = GluonASTSource
    sig, attrs = _divisibility(fn, sig)
    src = source_cls(fn=fn, signature=sig, constexprs=consts, attrs=attrs)
    backend, arch = TARGETS[spec.target]
    opts = {"num_warps": spec.num_warps, "num_stages": spec.num_stages, "num_ctas": spec.num_ctas}
    try:
        with _private_cache():
            compiled = triton.compile(src, target=GPUTarget(backend, arch, 32), options=opts)
    except Exception as e:  # Triton's own rejection of the kernel: the user's input, reported in one line
        first = (str(e).strip().splitlines() or [type(e).__name__])[-1]
        raise LayoutError(f"triton: Triton {triton.__version__} cannot compile {spec.where} for {spec.target}: "
                         f"{type(e).__name__}: {first}") from e
    return {k: v if isinstance(v, bytes) else str(v) for k, v in compiled.asm.items()}


@contextmanager
def _private_cache() -> Iterator[None]:
    """Compile in a cache of its own: Triton keys its cache by the kernel's source text, not its file, so a kernel
    already compiled from another path would come back with that path's ``loc``s (rows pointing at the wrong file)."""
    old = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="layoutcheck-triton-") as d:
        os.environ["TRITON_CACHE_DIR"] = d
        try:
            yield
        finally:
            if old is None:
                os.environ.pop("TRITON_CACHE_DIR", None)
            else:
                os.environ["TRITON_CACHE_DIR"] = old


_LOC_DEF = re.compile(r"^#(?P<name>loc\d*)\s*=\s*loc\((?P<body>.*)\)\s*$", re.M)
_FILE_LOC = re.compile(r"\"(?P<file>[^\"]+)\":(?P<line>\d+)(?::(?P<col>\d+))?")
_REF = re.compile(r"#(loc\d*)\b")
_CALLSITE = re.compile(r"\s*callsite\((?P<callee>.*?) at (?P<caller>.*)\)\s*$")
_OP_LOC = re.compile(r"loc\((?P<body>[^()]*(?:\([^()]*\)[^()]*)*)\)\s*$")


def _frames(body: str, defs: Mapping[str, str], depth: int = 0) -> list[tuple[str, int]]:
    """Every ``"file":line`` a location body names, innermost frame first, following ``#locN`` references
    (``callsite(callee at caller)``: the callee's frames, then the caller's)."""
    if depth > 32:
        return []
    call = _CALLSITE.match(body)
    if call is not None:
        return _frames(call.group("callee"), defs, depth + 1) + _frames(call.group("caller"), defs, depth + 1)
    m = _FILE_LOC.search(body)
    if m:
        return [(m.group("file"), int(m.group("line")))]
    for ref in _REF.findall(body):
        if ref in defs:
            got = _frames(defs[ref], defs, depth + 1)
            if got:
                return got
    return []


_LIBRARY = re.compile(r"[/\\]triton[/\\](?:language|runtime|experimental[/\\]gluon[/\\]language)[/\\]")
"""Triton's own Python (``tl.sum`` is written in ``triton/language/standard.py``): never the user's line."""


def _resolve(body: str, defs: Mapping[str, str]) -> tuple[str, int] | None:
    """The innermost frame in the user's code (not in Triton's library), else the innermost frame."""
    frames = _frames(body, defs)
    return next((f for f in frames if not _LIBRARY.search(f[0])), frames[0] if frames else None)


def source_lines(ttgir: str) -> dict[int, tuple[str, int]]:
    """TTGIR line (1-based) -> the Python ``(file, line)`` its operation's ``loc`` names."""
    defs = {m.group("name"): m.group("body") for m in _LOC_DEF.finditer(ttgir)}
    out = {}
    for i, line in enumerate(ttgir.splitlines(), 1):
        if line.startswith("#"):
            continue
        m = _OP_LOC.search(line)
        if m is None:
            continue
        got = _resolve(m.group("body"), defs)
        if got is not None:
            out[i] = got
    return out





def parse_assignments(items: list[str] | None, what: str, values: bool) -> dict[str, Any]:
    """``["a_ptr=*fp16", "M=i32,N=i32"]`` -> ``{"a_ptr": "*fp16", ...}``; with ``values`` an int, float or
    ``true``/``false`` becomes that Python value (a constexpr), anything else stays text."""
    out: dict[str, Any] = {}
    for item in items or []:
        for part in filter(None, (p.strip() for p in item.split(","))):
            name, sep, val = part.partition("=")
            if not sep or not name.strip() or not val.strip():
                raise UsageError(f"triton: {what} {part!r}: expected NAME=VALUE")
            out[name.strip()] = _value(val.strip()) if values else val.strip()
    return out


def _value(text: str) -> Any:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


_LOCAL_ALLOC = re.compile(r"\bttg\.local_alloc\b[^\n]*")
_OFFSET = re.compile(r"allocation\.offset\s*=\s*(\d+)")


def allocation_offsets(ttgir: str, target: str = "cuda:90") -> tuple[int | None, ...]:
    """The byte offset Triton's shared-memory allocation gives every ``ttg.local_alloc`` of ``ttgir``, in text order
    (``allocation.offset``): the passes ``make_llir`` runs up to ``allocate_shared_memory_nv`` (Triton's
    ``backends/nvidia/compiler.py``), on the CPU. ``()`` when they cannot run or the allocations do not pair up
    one to one with the text's (a caller then does not know the offsets)."""
    try:
        from triton._C.libtriton import ir, nvidia, passes
        from triton.backends.nvidia.compiler import CUDAOptions, get_ptx_version_from_options

        arch = TARGETS[target][1]
        ctx = ir.context()
        ir.load_dialects(ctx)
        nvidia.load_dialects(ctx)
        with tempfile.TemporaryDirectory(prefix="layoutcheck-triton-") as d:
            path = Path(d) / "kernel.ttgir"
            path.write_text(ttgir)
            mod = ir.parse_mlir_module(str(path), ctx)
        pm = ir.pass_manager(ctx)
        passes.ttgpuir.add_combine_tensor_select_and_if(pm)
        passes.ttgpuir.add_allocate_warp_groups(pm, False)
        passes.convert.add_scf_to_cf(pm)
        passes.gluon.add_inliner(pm)
        nvidia.passes.ttgpuir.add_allocate_shared_memory_nv(pm, arch, get_ptx_version_from_options(CUDAOptions(),
                                                                                                   arch))
        pm.run(mod, "layoutcheck_allocation")
        allocated = str(mod)
    except Exception:  # Triton's passes refusing the module: the offsets are not known
        return ()
    mine, theirs = _LOCAL_ALLOC.findall(ttgir), _LOCAL_ALLOC.findall(allocated)
    if len(mine) != len(theirs):
        return ()
    out = []
    for a in theirs:
        m = _OFFSET.search(a)
        out.append(int(m.group(1)) if m else None)
    return tuple(out)


__all__ = ["TARGETS", "KernelSpec", "allocation_offsets", "compile_kernel", "compile_stages", "load_kernel",
           "parse_assignments", "runtime_params", "source_lines"]
