"""Check ``layoutcheck.models.tma`` against the CUDA driver and a real TMA load on the GPU.

Two parts, one record (dict) per check:

* ``encode``: ~200 descriptor configurations around every limit of ``cuTensorMapEncodeTiled``, each encoded by the
  driver (called through ``ctypes`` on ``libcuda`` so that rank 1 works: the ``cuda.bindings`` wrapper passes a NULL
  ``globalStrides`` for rank 1 and is always rejected) and compared with ``encode_check`` (accept iff no violation).
* ``load``: tiled 2-D loads (``cp.async.bulk.tensor.2d...mbarrier::complete_tx::bytes``, one CTA, tensor map in
  global memory behind ``fence.proxy.tensormap``) of tensors whose elements encode their own coordinates, for every
  swizzle mode, several element sizes, destination offsets, element strides and out-of-bounds boxes; shared memory
  is copied back and compared element by element with ``simulate_load`` (and the bytes around the box with a
  sentinel, to catch writes outside it).

Usage: ``python -m layoutcheck.gpu.probes.tma OUT_DIR`` (needs CuPy, libcuda and an sm_90 GPU); ``run(out_dir)``
returns the records and writes ``OUT_DIR/tma_probe.json``. Self-contained, well under a minute.
"""

from __future__ import annotations

import ctypes
import datetime
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from layoutcheck.errors import LayoutError
from layoutcheck.hw.tma import DTYPES, EXTENDED_SWIZZLES, INTERLEAVES, OOB_FILLS, SWIZZLES
from layoutcheck.models.tma import TmaBox, box_smem_offsets, encode_check, simulate_load

SENTINEL = 0xAB

# ------------------------------------------------------------------------------------------------------- driver
_CU = None


def _libcuda() -> Any:
    global _CU
    if _CU is None:
        lib = ctypes.CDLL("libcuda.so.1")
        lib.cuTensorMapEncodeTiled.argtypes = [
            ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
            ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
            ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
        ]
        lib.cuTensorMapEncodeTiled.restype = ctypes.c_int
        lib.cuInit(0)
        _CU = lib
    return _CU


def encode(cfg: dict[str, Any], base: int) -> tuple[int, bytes]:
    """Call ``cuTensorMapEncodeTiled``; return (CUresult, the 128-byte descriptor)."""
    lib = _libcuda()
    r = len(cfg["global_dims"])
    n = max(r, 1)
    dims = (ctypes.c_uint64 * n)(*cfg["global_dims"])
    strides = (ctypes.c_uint64 * n)(*cfg["global_strides"])
    box = (ctypes.c_uint32 * n)(*cfg["box_dims"])
    es = (ctypes.c_uint32 * n)(*(cfg.get("element_strides") or (1,) * r))
    raw = ctypes.create_string_buffer(512)
    addr = (ctypes.addressof(raw) + 127) & ~127
    sw = cfg.get("swizzle", "none")
    sw_enum = SWIZZLES[sw].enum if sw in SWIZZLES else EXTENDED_SWIZZLES[sw]
    res = lib.cuTensorMapEncodeTiled(
        ctypes.c_void_p(addr), DTYPES[cfg["dtype"]].enum, r, ctypes.c_void_p(base + cfg.get("global_address", 0)),
        dims, strides, box, es, INTERLEAVES[cfg.get("interleave", "none")], sw_enum, 0,
        OOB_FILLS[cfg.get("oob_fill", "none")])
    return res, ctypes.string_at(addr, 128)


# ------------------------------------------------------------------------------------------------- configurations
def _cfg(dtype: str = "float16", dims: tuple = (256, 256), strides: tuple = (512,), box: tuple = (64, 64),
         **kw: Any) -> dict[str, Any]:
    return {"dtype": dtype, "global_dims": list(dims), "global_strides": list(strides), "box_dims": list(box), **kw}


def encode_configs() -> list[dict[str, Any]]:
    """Descriptor configurations on both sides of every modelled limit (and a few outside the model)."""
    c: list[dict[str, Any]] = []
    big = 1 << 32
    # rank 1..6 (and the rank-1 box rules)
    c += [_cfg(dims=(256,), strides=(), box=(64,)), _cfg(dims=(256,), strides=(), box=(64,), swizzle="128B"),
          _cfg(dims=(256,), strides=(), box=(72,), swizzle="128B"), _cfg(dims=(256,), strides=(), box=(4,))]
    for r in range(2, 7):
        c.append(_cfg(dims=(64,) * r, strides=tuple(128 * 64**i for i in range(r - 1)), box=(64,) + (2,) * (r - 1)))
    # global address alignment
    for off in (0, 8, 16, 24, 32, 48):
        c.append(_cfg(global_address=off))
        c.append(_cfg(dims=(16, 8, 8), strides=(32, 256), box=(16, 4, 4), interleave="32B", swizzle="32B",
                      global_address=off))
    # global dims
    for g in (0, 1, big - 1, big, big + 1):
        c.append(_cfg(dims=(g, 256)))
        c.append(_cfg(dims=(256, g)))
    # global strides (bytes): alignment, bound, elements-instead-of-bytes, overlap, zero
    for s in (0, 8, 16, 24, 32, 48, 256, 400, (1 << 40) - 16, 1 << 40, (1 << 40) + 16):
        c.append(_cfg(strides=(s,)))
    c.append(_cfg("float32", dims=(100, 64), strides=(100,), box=(32, 8)))  # stride given in elements
    c.append(_cfg("float32", dims=(100, 64), strides=(400,), box=(32, 8)))  # the same in bytes
    c.append(_cfg(dims=(64, 64, 4), strides=(128, 64), box=(64, 8, 2)))  # outer stride < inner
    for s in (16, 32, 48):
        c.append(_cfg(dims=(16, 8, 8), strides=(s, 256), box=(16, 4, 4), interleave="32B", swizzle="32B"))
        c.append(_cfg(dims=(8, 8, 8), strides=(s, 256), box=(8, 4, 4), interleave="16B"))
    # box dims
    for b in (0, 1, 255, 256, 257):
        c.append(_cfg(box=(64, b)))
        c.append(_cfg("uint8", dims=(512, 64), strides=(512,), box=(b, 8)))
    c.append(_cfg(dims=(32, 32), strides=(64,), box=(64, 64)))  # box larger than the tensor
    c.append(_cfg("float32", dims=(256, 256), strides=(1024,), box=(256, 256)))  # 256 KiB box
    # inner box bytes multiple of 16, per element size
    for dt in ("uint8", "uint16", "float32", "float64"):
        e = DTYPES[dt].bytes
        for nbytes in (8, 16, 24, 32, 40, 48):
            if nbytes % e == 0:
                c.append(_cfg(dt, dims=(512 // e, 16), strides=(512,), box=(nbytes // e, 8)))
    # swizzle span
    for sw, span in (("32B", 32), ("64B", 64), ("128B", 128)):
        for dt in ("uint8", "float16", "float32", "float64"):
            e = DTYPES[dt].bytes
            for nbytes in (16, span - 16, span, span + 16, 2 * span):
                if nbytes >= 16:
                    c.append(_cfg(dt, dims=(1024 // e, 16), strides=(1024,), box=(nbytes // e, 8), swizzle=sw))
    # element strides
    for e in (0, 1, 2, 8, 9):
        c.append(_cfg(element_strides=[1, e]))
        c.append(_cfg(element_strides=[e, 1]))
        c.append(_cfg(dims=(16, 8, 8), strides=(32, 256), box=(16, 4, 4), interleave="32B", swizzle="32B",
                      element_strides=[e, 1, 1]))
    c.append(_cfg(box=(64, 3), element_strides=[1, 2]))
    # interleave: rank, swizzle pairing, inner box extent
    for il in ("16B", "32B"):
        for sw in ("none", "32B", "64B", "128B"):
            c.append(_cfg(dims=(16, 8, 8), strides=(32, 256), box=(16, 4, 4), interleave=il, swizzle=sw))
        c.append(_cfg(dims=(16, 8), strides=(32,), box=(16, 4), interleave=il, swizzle="32B"))
        for b0 in (4, 8, 12, 16, 24, 32, 64):
            c.append(_cfg(dims=(64, 8, 8), strides=(128, 1024), box=(b0, 4, 4), interleave=il, swizzle="32B"))
            c.append(_cfg(dims=(64, 8, 8), strides=(128, 1024), box=(b0, 4, 4), interleave=il, swizzle="none"))
    # every data type, and the OOB NaN fill
    for dt in DTYPES:
        e = DTYPES[dt].bytes
        c.append(_cfg(dt, dims=(1024 // e, 16), strides=(1024,), box=(64 // e, 8), swizzle="64B"))
        c.append(_cfg(dt, dims=(1024 // e, 16), strides=(1024,), box=(64 // e, 8), oob_fill="nan"))
    # how large may a box be (256x256 fp32 was rejected): inner extent vs shared-memory footprint
    c.append(_cfg("float32", dims=(256, 4), strides=(1024,), box=(256, 1)))  # 1 KiB rows, 1 KiB box
    c.append(_cfg("float64", dims=(256, 4), strides=(2048,), box=(256, 2)))  # 2 KiB rows
    for k in (2, 3, 4, 6, 7, 8):
        c.append(_cfg(dims=(64, 256, 8), strides=(128, 128 * 256), box=(64, 256, k)))  # 32 KiB * k
    for rows, k in ((227, 4), (228, 4), (129, 4), (256, 2)):
        c.append(_cfg("uint8", dims=(256, 256, 8), strides=(256, 65536), box=(256, rows, k)))
    c.append(_cfg(dims=(64, 256, 8), strides=(128, 128 * 256), box=(8, 256, 4), swizzle="128B"))  # 32 KiB data,
    c.append(_cfg(dims=(64, 256, 8), strides=(128, 128 * 256), box=(8, 256, 8), swizzle="128B"))  # 256 KiB rows
    # outside the model (recorded, not counted): CUDA 12.8+ swizzle modes
    for sw in EXTENDED_SWIZZLES:
        c.append(_cfg(swizzle=sw))
    return c


def _model(cfg: dict[str, Any]) -> list[str] | None:
    try:
        return encode_check(cfg["dtype"], cfg["global_dims"], cfg["global_strides"], cfg["box_dims"],
                            cfg.get("element_strides"), cfg.get("interleave", "none"), cfg.get("swizzle", "none"),
                            cfg.get("global_address", 0), cfg.get("oob_fill", "none"))
    except LayoutError as exc:
        return None if "outside the model" in str(exc) else [f"LayoutError: {exc}"]


def probe_encode(base: int) -> list[dict[str, Any]]:
    out = []
    for cfg in encode_configs():
        res, _ = encode(cfg, base)
        model = _model(cfg)
        rec = {"kind": "encode", "config": cfg, "driver_result": res, "driver_accepts": res == 0,
               "model": model, "in_model": model is not None}
        rec["agree"] = None if model is None else (res == 0) == (not model)
        out.append(rec)
    return out


# ------------------------------------------------------------------------------------------- the box-size limit
SCAN_BYTES = (196608, 270336)
"""The bracket of data bytes the box-size scan covers (192 KiB .. 264 KiB): the limit lies inside (issue 14)."""


def _box_cfg(dtype: str, box: tuple[int, ...], element_strides: tuple[int, ...] | None = None) -> dict[str, Any]:
    e = DTYPES[dtype].bytes
    dims = (256,) * len(box)
    strides = tuple(256 ** (i + 1) * e for i in range(len(box) - 1))
    cfg = _cfg(dtype, dims=dims, strides=strides, box=box)
    if element_strides is not None:
        cfg["element_strides"] = list(element_strides)
    return cfg


def box_scan_configs(dtype: str) -> list[dict[str, Any]]:
    """Every rank-3 box ``(b0, b1, b2)`` of ``dtype`` (inner extent a multiple of 16 B) whose data bytes fall in
    ``SCAN_BYTES``, in increasing order of bytes: a scan of the whole bracket, so the threshold and its monotonicity
    are both measured."""
    e = DTYPES[dtype].bytes
    lo, hi = SCAN_BYTES
    out = []
    for b0 in range(max(1, 16 // e), 257, max(1, 16 // e)):
        for b1 in range(1, 257):
            row = b0 * b1 * e
            for b2 in range(max(1, -(-lo // row)), min(256, hi // row) + 1):
                out.append((row * b2, (b0, b1, b2)))
    out.sort()
    return [_box_cfg(dtype, box) for _, box in out]


def probe_box_limit(base: int) -> list[dict[str, Any]]:
    """Measure the driver's limit on one box's data bytes per dtype (the whole bracket, then its edges as ``encode``
    records for the model), and how ``elementStrides`` enter it (per dim and stride, the largest box extent the
    driver accepts)."""
    out: list[dict[str, Any]] = []
    for dtype in ("uint8", "float16", "float32", "float64"):
        e = DTYPES[dtype].bytes
        accepted: list[int] = []
        rejected: list[int] = []
        edge: dict[str, Any] = {}
        for cfg in box_scan_configs(dtype):
            nbytes = e * int(np.prod(cfg["box_dims"]))
            ok = encode(cfg, base)[0] == 0
            (accepted if ok else rejected).append(nbytes)
            if ok:  # configs come in increasing bytes: the last accepted is the largest
                edge["accepted"] = cfg
            elif "rejected" not in edge:  # the first rejected is the smallest
                edge["rejected"] = cfg
        top, bottom = max(accepted, default=0), min(rejected, default=0)
        out.append({"kind": "box_limit", "dtype": dtype, "configs": len(accepted) + len(rejected),
                    "max_accepted_bytes": top, "min_rejected_bytes": bottom, "monotone": top < bottom,
                    "edge_configs": edge})
        for cfg in edge.values():
            out.append(_encode_record(cfg, base))
    # elementStrides: for dim d and stride s, the largest extent of dim d the driver accepts, the others fixed
    fixed = {0: (64, 256, 16), 1: (64, 16, 256), 2: (64, 256, 16)}
    for d in (0, 1, 2):
        for st in range(1, 9):
            es = [1, 1, 1]
            es[d] = st
            best = 0
            for x in range(1, 257):
                box = list(fixed[d])
                box[d] = x
                if d == 0 and (x * 2) % 16:
                    continue
                if encode(_box_cfg("float16", tuple(box), tuple(es)), base)[0] == 0:
                    best = x
            out.append({"kind": "estride_limit", "dtype": "float16", "dim": d, "element_stride": st,
                        "others": list(fixed[d]), "max_accepted_extent": best})
    for box, es in (((32, 256, 15), None), ((64, 256, 14), (1, 1, 2)), ((64, 256, 16), (1, 1, 2)),
                    ((64, 256, 15), (1, 1, 2)), ((128, 256, 8), (2, 1, 1)), ((64, 128, 29), (1, 2, 1))):
        out.append(_encode_record(_box_cfg("float16", box, es), base))  # the two boxes and neighbours
    return out


def _encode_record(cfg: dict[str, Any], base: int) -> dict[str, Any]:
    res, _ = encode(cfg, base)
    model = _model(cfg)
    rec = {"kind": "encode", "config": cfg, "driver_result": res, "driver_accepts": res == 0, "model": model,
           "in_model": model is not None, "scan": "box_limit"}
    rec["agree"] = None if model is None else (res == 0) == (not model)
    return rec


# ------------------------------------------------------------------------------------------------------- loads
KERNEL = r"""
extern "C" __global__ void tma_load_2d(const void* tmap, int c0, int c1, unsigned dst_off, unsigned nbytes,
                                       unsigned region, unsigned char* out, unsigned* status) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ __align__(8) unsigned long long mbar;
  unsigned sbase = (unsigned)__cvta_generic_to_shared(smem);
  unsigned start = ((sbase + 1023u) & ~1023u) - sbase;
  unsigned bar = (unsigned)__cvta_generic_to_shared(&mbar);
  for (unsigned i = threadIdx.x; i < start + region; i += blockDim.x) smem[i] = 0xAB;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    FENCE_TENSORMAP
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(nbytes) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(sbase + start + dst_off), "l"(tmap), "r"(c0), "r"(c1), "r"(bar) : "memory");
  }
  unsigned done = 0;
  for (long long spin = 0; !done && spin < (1LL << 22); ++spin) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar) : "memory");
  }
  if (!done && threadIdx.x == 0) status[0] = 1u;
  __syncthreads();
  for (unsigned i = threadIdx.x; i < region; i += blockDim.x) out[i] = smem[start + i];
}
"""
_FENCE = 'asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(tmap) : "memory");'


def load_configs() -> list[dict[str, Any]]:
    """(descriptor, coordinates, destination offset) for the load checks; tensors are made by ``_tensor``."""
    L: list[dict[str, Any]] = []

    def add(dt: str, dims: tuple, box: tuple, sw: str, coords: tuple = (0, 0), dst: int = 0,
            es: tuple | None = None, pitch: int | None = None, oob: str = "none") -> None:
        e = DTYPES[dt].bytes
        pitch = pitch or dims[0] * e
        L.append({"dtype": dt, "global_dims": list(dims), "global_strides": [pitch], "box_dims": list(box),
                  "swizzle": sw, "coords": list(coords), "dst": dst, "element_strides": list(es) if es else None,
                  "oob_fill": oob})

    for sw, span in (("none", 64), ("32B", 32), ("64B", 64), ("128B", 128)):
        for dt in ("uint16", "uint32", "uint64"):
            e = DTYPES[dt].bytes
            w = span // e
            add(dt, (4 * w, 64), (w, 8), sw)
            add(dt, (4 * w, 64), (w, 64), sw, coords=(w, 3))
            add(dt, (4 * w, 100), (w, 16), sw, coords=(2 * w, 80))
        add("uint8", (2 * span, 8), (span, 8), sw)
        add("uint16", (span, 64), (span // 2, 32), sw, pitch=span * 2 + 64)  # padded pitch
        # inner box narrower than the swizzle span
        for nb in (16, 32, 64):
            if sw != "none" and nb < span:
                add("uint16", (256, 64), (nb // 2, 32), sw, coords=(8, 1))
        # destination offsets from the 1024-byte-aligned base
        for dst in (128, 256, 384, 640):
            add("uint16", (256, 64), (span // 2, 16), sw, dst=dst)
        # element strides along dim 1
        add("uint16", (256, 64), (span // 2, 16), sw, es=(1, 2), coords=(0, 5))
        add("uint16", (256, 64), (span // 2, 15), sw, es=(1, 3), coords=(16, 1))
        # out of bounds: negative and past-the-end coordinates, zero and NaN fill
        add("uint16", (200, 60), (span // 2, 16), sw, coords=(-8, -5))
        add("uint16", (200, 60), (span // 2, 16), sw, coords=(200 - 8, 52))
        add("float32", (100, 60), (span // 4, 16), sw, coords=(96, 56), oob="nan")
    add("uint16", (512, 16), (128, 4), "none")  # 256-byte rows, wider than any swizzle span
    return L


def _tensor(cfg: dict[str, Any]) -> np.ndarray:
    """The global tensor as bytes: element (g0, g1) holds 1 + g0 + D0*g1 (its own coordinates; 0 is never used)."""
    dt, (d0, d1), pitch = cfg["dtype"], cfg["global_dims"], cfg["global_strides"][0]
    e = DTYPES[dt].bytes
    np_t = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[e]
    vals = (1 + np.arange(d0)[None, :] + d0 * np.arange(d1)[:, None])
    rows = vals.astype(np.float32) if dt == "float32" else (vals % 255 + 1 if e == 1 else vals).astype(np_t)
    buf = np.zeros((d1, pitch), dtype=np.uint8)
    buf[:, : d0 * e] = rows.view(np.uint8).reshape(d1, d0 * e)
    return buf.ravel()


def _compare(cfg: dict[str, Any], box: TmaBox, gmem: np.ndarray, got: np.ndarray) -> dict[str, Any]:
    """Element by element: the bytes at the model's position of each box element, and every other byte untouched."""
    e, dst = box.esize, cfg["dst"]
    want = simulate_load(box, gmem, cfg["coords"], dst=dst, untouched=SENTINEL)
    pos = (dst + box_smem_offsets(box, dst)).reshape(-1)
    idx = pos[:, None] + np.arange(e)
    g = got[idx]
    w = want[idx - dst]
    written = np.zeros(got.size, dtype=bool)
    written[idx.ravel()] = True
    outside = got[~written]
    bad = np.any(g != w, axis=1)
    nan_bits = None
    if box.oob_fill == "nan":  # the OOB-NaN bit pattern is not modelled: accept any NaN where the model fills
        zero = np.all(w == 0, axis=1)
        gf = g.copy().view(np.float32).ravel()
        bad &= ~(zero & np.isnan(gf))
        if np.any(zero & np.isnan(gf)):
            nan_bits = int(g[np.flatnonzero(zero & np.isnan(gf))[0]].view(np.uint32)[0])
    first = [int(i) for i in np.flatnonzero(bad)[:4]]
    return {"elements": int(g.shape[0]), "mismatched": int(bad.sum()), "first_mismatches": first,
            "outside_written": int(np.count_nonzero(outside != SENTINEL)), "oob_nan_bits": nan_bits}


def _load_module(cp: Any) -> Any:
    try:
        return cp.RawModule(code=KERNEL.replace("FENCE_TENSORMAP", _FENCE), options=("-arch=sm_90a", "-std=c++17"))
    except Exception as exc:  # the fence needs PTX 8.3; fall back to fresh tensor-map addresses alone
        print(f"tma_probe: compiled without the tensormap fence ({exc})", file=sys.stderr)
        return cp.RawModule(code=KERNEL.replace("FENCE_TENSORMAP", ""), options=("-arch=sm_90a", "-std=c++17"))


def _one_load(cp: Any, fn: Any, k: int, cfg: dict[str, Any], tmaps: Any, status: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"kind": "load", "index": k, "config": cfg}
    box = TmaBox(cfg["dtype"], tuple(cfg["global_dims"]), tuple(cfg["global_strides"]), tuple(cfg["box_dims"]),
                 None if cfg["element_strides"] is None else tuple(cfg["element_strides"]),
                 swizzle=cfg["swizzle"], oob_fill=cfg["oob_fill"])
    rec["model_violations"] = box.violations()
    gmem = _tensor(cfg)
    dbuf = cp.asarray(gmem)
    res, desc = encode(cfg, int(dbuf.data.ptr))
    rec["driver_result"] = res
    if res != 0:
        return rec
    slot = tmaps[256 * k: 256 * k + 128]
    slot.set(np.frombuffer(desc, dtype=np.uint8))
    region = cfg["dst"] + box.smem_bytes + 256
    dout = cp.zeros(region, dtype=cp.uint8)
    status.fill(0)
    args = (slot, np.int32(cfg["coords"][0]), np.int32(cfg["coords"][1]), np.uint32(cfg["dst"]),
            np.uint32(box.box_bytes), np.uint32(region), dout, status)
    fn((1,), (128,), args, shared_mem=region + 1024)
    cp.cuda.runtime.deviceSynchronize()
    rec["timeout"] = bool(int(status.get()[0]))
    got = cp.asnumpy(dout)
    rec.update(_compare(cfg, box, gmem, got))
    rec["raw_hex"] = got.tobytes().hex()
    return rec


def probe_loads_child(jsonl: str, start: int) -> None:
    """Run loads ``start..`` in this process, appending one JSON line per finished load (crash-tolerant)."""
    import cupy as cp

    cp.cuda.Device(0).use()
    fn = _load_module(cp).get_function("tma_load_2d")
    cfgs = load_configs()
    tmaps = cp.zeros(256 * len(cfgs), dtype=cp.uint8)  # one fresh 256-byte slot per descriptor
    status = cp.zeros(1, dtype=cp.uint32)
    with open(jsonl, "a") as f:
        for k in range(start, len(cfgs)):
            try:
                rec = _one_load(cp, fn, k, cfgs[k], tmaps, status)
            except Exception as exc:
                rec = {"kind": "load", "index": k, "config": cfgs[k], "error": f"{type(exc).__name__}: {exc}"}
                f.write(json.dumps(rec) + "\n")
                f.flush()
                raise SystemExit(3) from exc  # the context may be poisoned: the parent restarts after k
            f.write(json.dumps(rec) + "\n")
            f.flush()


def probe_loads(out_dir: Path) -> list[dict[str, Any]]:
    """Every load in a child process; after a crash, a fresh child continues with the next configuration."""
    import subprocess

    jsonl = out_dir / "tma_loads.jsonl"
    jsonl.unlink(missing_ok=True)
    n, start = len(load_configs()), 0
    while start < n:
        proc = subprocess.run([sys.executable, "-m", "layoutcheck.gpu.probes.tma", "--loads", str(jsonl), str(start)],
                              capture_output=True, text=True, timeout=300)
        done = [json.loads(x) for x in jsonl.read_text().splitlines()] if jsonl.exists() else []
        last = max((r["index"] for r in done), default=start - 1)
        if last < start:  # the child died before finishing configuration ``start``
            tail = (proc.stderr or "")[-400:]
            with open(jsonl, "a") as f:
                f.write(json.dumps({"kind": "load", "index": start, "config": load_configs()[start],
                                    "error": f"child exited {proc.returncode}: {tail}"}) + "\n")
            last = start
        start = last + 1
    recs = {r["index"]: r for r in (json.loads(x) for x in jsonl.read_text().splitlines())}
    return [recs[k] for k in sorted(recs)]


# ------------------------------------------------------------------------------------------------------- driver
def environment(cp: Any) -> dict[str, Any]:
    lib = _libcuda()
    v = ctypes.c_int()
    lib.cuDriverGetVersion(ctypes.byref(v))
    props = cp.cuda.runtime.getDeviceProperties(0)
    env = {"kind": "env", "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
           "device": props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"]),
           "cc": f"{props['major']}.{props['minor']}", "driver_api_version": v.value,
           "runtime_version": cp.cuda.runtime.runtimeGetVersion(), "cupy": cp.__version__}
    try:
        import subprocess

        env["nvidia_smi_driver"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True, text=True,
            timeout=20).stdout.strip()
    except Exception as exc:
        env["nvidia_smi_driver"] = f"unavailable: {exc}"
    try:
        import cuda.bindings as cb

        env["cuda_bindings"] = cb.__version__
        env["bindings_rank1"] = _bindings_rank1()
    except Exception as exc:
        env["cuda_bindings"] = f"unavailable: {exc}"
    return env


def _bindings_rank1() -> str:
    """What ``cuda.bindings`` answers for a legal rank-1 descriptor (the fact sheet: always rejected)."""
    from cuda.bindings import driver as drv

    ptr = 1 << 20
    u32, u64 = drv.cuuint32_t, drv.cuuint64_t
    err, _ = drv.cuTensorMapEncodeTiled(
        drv.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT16, u32(1), ptr, [u64(256)], [], [u32(64)], [u32(1)],
        drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, drv.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE,
        drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
        drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    return str(err)


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    enc = [r for r in records if r["kind"] == "encode"]
    counted = [r for r in enc if r["in_model"]]
    loads = [r for r in records if r["kind"] == "load"]
    ran = [r for r in loads if "mismatched" in r]
    return {"kind": "summary", "encode_configs": len(enc), "encode_in_model": len(counted),
            "encode_disagreements": sum(1 for r in counted if not r["agree"]),
            "driver_accepts": sum(1 for r in enc if r["driver_accepts"]),
            "loads": len(loads), "loads_run": len(ran), "load_errors": sum(1 for r in loads if "error" in r),
            "load_timeouts": sum(1 for r in ran if r.get("timeout")),
            "load_elements": sum(r["elements"] for r in ran),
            "load_mismatched_elements": sum(r["mismatched"] for r in ran),
            "load_configs_with_mismatch": sum(1 for r in ran if r["mismatched"]),
            "load_outside_writes": sum(r["outside_written"] for r in ran)}


def run(out_dir: str | Path) -> list[dict[str, Any]]:
    """Run both parts; write ``out_dir/tma_probe.json``; return the records (env first, summary last)."""
    import cupy as cp

    t0 = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cp.cuda.Device(0).use()
    scratch = cp.zeros(1 << 20, dtype=cp.uint8)  # a real device address for the encode probe (256-B aligned)
    records = [environment(cp)]
    records += probe_encode(int(scratch.data.ptr))
    records += probe_box_limit(int(scratch.data.ptr))
    records += probe_loads(out)
    summary = summarize(records)
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    records.append(summary)
    (out / "tma_probe.json").write_text(json.dumps(records, indent=1, default=str))
    return records


def main(argv: list[str]) -> int:
    if len(argv) > 1 and argv[1] == "--loads":
        probe_loads_child(argv[2], int(argv[3]))
        return 0
    recs = run(argv[1] if len(argv) > 1 else ".")
    s = recs[-1]
    print(json.dumps(recs[0]), json.dumps(s), sep="\n")
    for r in recs:
        if r["kind"] in ("box_limit", "estride_limit"):
            print(json.dumps({k: v for k, v in r.items() if k != "edge_configs"}))
    for r in recs:
        if r["kind"] == "encode" and r["in_model"] and not r["agree"]:
            print("DISAGREE", r["driver_result"], r["model"], json.dumps(r["config"]))
        if r["kind"] == "load" and (r.get("mismatched") or r.get("error") or r.get("timeout")
                                    or r.get("outside_written") or r.get("driver_result", 0)):
            print("LOAD", {k: r.get(k) for k in ("index", "driver_result", "mismatched", "elements", "first_mismatches",
                                                 "outside_written", "timeout", "error")}, json.dumps(r["config"]))
    ok = s["encode_disagreements"] == 0 and s["load_mismatched_elements"] == 0 and s["load_errors"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
