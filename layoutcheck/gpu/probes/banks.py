"""Measure shared-memory wavefronts on the GPU and compare them with ``layoutcheck.models.banks``.

One one-warp kernel per access kind executes exactly one shared-memory instruction (inline PTX) at per-lane byte
addresses read from global memory, so one compiled kernel serves every pattern of its kind. The cubin is built with
``nvcc -cubin -arch=sm_90`` and its SASS is checked with ``cuobjdump -sass`` (exactly one LDS/STS/LDSM/STSM per
kernel). All launches run in one child Python process under one ``ncu`` process, which reads
``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum`` and ``..._op_st.sum`` per launch (``--csv``).

Usage: ``python -m layoutcheck.gpu.probes.banks OUT_DIR`` (needs nvcc, cuobjdump, ncu, CuPy and a GPU).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from layoutcheck.hw.banks import ACCESS_KINDS, AccessKind

SMEM_BYTES = 32768
METRIC_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
METRIC_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
_SASS_OPS = re.compile(r"\b(LDSM|STSM|LDS|STS)(\.[A-Z0-9.]+)?\b")


# ----------------------------------------------------------------------------------------------------------- kernels
def _asm(kind: AccessKind) -> tuple[str, str]:
    """(declarations, asm statement) for one kind; ``a`` is the 32-bit shared address, ``v`` the lane value."""
    if kind.is_matrix:
        regs = [f"r{i}" for i in range(kind.matrices)]
        inits = ", ".join(f"{r} = v + {i}" for i, r in enumerate(regs))
        decl = f"unsigned {', '.join(regs)};" if kind.op == "ld" else f"unsigned {inits};"
        lst = ", ".join(f"%{i + (1 if kind.op == 'st' else 0)}" for i in range(kind.matrices))
        if kind.op == "ld":
            outs = ", ".join(f'"=r"({r})' for r in regs)
            stmt = f'asm volatile("{kind.ptx} {{{lst}}}, [%{kind.matrices}];" : {outs} : "r"(a) : "memory");'
            stmt += f"\n  out[lane] = {' ^ '.join(regs)};"
        else:
            ins = ", ".join(f'"r"({r})' for r in regs)
            stmt = f'asm volatile("{kind.ptx} [%0], {{{lst}}};" :: "r"(a), {ins} : "memory");'
        return decl, stmt
    n = kind.words if kind.bytes >= 4 else 1
    regs = [f"r{i}" for i in range(n)]
    if kind.op == "ld":
        decl = f"unsigned {', '.join(regs)};"
        if kind.bytes < 4:
            decl = "unsigned short r0;"
            stmt = f'asm volatile("{kind.ptx} %0, [%1];" : "=h"(r0) : "r"(a) : "memory");\n  out[lane] = r0;'
            return decl, stmt
        lst = ", ".join(f"%{i}" for i in range(n))
        lst = f"{{{lst}}}" if n > 1 else lst
        outs = ", ".join(f'"=r"({r})' for r in regs)
        stmt = f'asm volatile("{kind.ptx} {lst}, [%{n}];" : {outs} : "r"(a) : "memory");'
        return decl, stmt + f"\n  out[lane] = {' ^ '.join(regs)};"
    if kind.bytes < 4:
        decl = "unsigned short r0 = (unsigned short)v;"
        return decl, f'asm volatile("{kind.ptx} [%0], %1;" :: "r"(a), "h"(r0) : "memory");'
    decl = f"unsigned {', '.join(f'{r} = v + {i}' for i, r in enumerate(regs))};"
    lst = ", ".join(f"%{i + 1}" for i in range(n))
    lst = f"{{{lst}}}" if n > 1 else lst
    ins = ", ".join(f'"r"({r})' for r in regs)
    return decl, f'asm volatile("{kind.ptx} [%0], {lst};" :: "r"(a), {ins} : "memory");'


def kernel_source(kinds: list[AccessKind]) -> str:
    """CUDA C++ with one ``probe_<kind>(const unsigned* addrs, unsigned* out)`` kernel per kind."""
    parts = ["#include <cuda_runtime.h>"]
    for k in kinds:
        decl, stmt = _asm(k)
        parts.append(f"""
extern "C" __global__ void __launch_bounds__(32) probe_{k.name}(const unsigned* __restrict__ addrs,
                                                            unsigned* __restrict__ out) {{
  __shared__ __align__(1024) unsigned char smem[{SMEM_BYTES}];
  unsigned lane = threadIdx.x;
  unsigned v = lane * 0x01010101u;
  unsigned a = (unsigned)__cvta_generic_to_shared(smem) + addrs[lane];
  (void)v;
  {decl}
  {stmt}
}}""")
    return "\n".join(parts) + "\n"


def build(workdir: Path, kinds: list[AccessKind]) -> Path:
    """Compile the probe kernels to ``workdir/bank_probe.cubin`` (sm_90)."""
    src = workdir / "bank_probe.cu"
    src.write_text(kernel_source(kinds))
    cubin = workdir / "bank_probe.cubin"
    cmd = ["nvcc", "-cubin", "-arch=sm_90", "-O3", "-diag-suppress", "177,550", "-o", str(cubin), str(src)]
    subprocess.run(cmd, check=True)
    return cubin


def sass_shared_ops(cubin: Path) -> dict[str, list[str]]:
    """Kernel name -> the shared-memory SASS instructions in it (``cuobjdump -sass``)."""
    text = subprocess.run(["cuobjdump", "-sass", str(cubin)], check=True, capture_output=True, text=True).stdout
    ops: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            current = m.group(1)
            ops[current] = []
            continue
        if current and "/*" in line:
            body = line.split("*/", 1)[-1]
            for op in _SASS_OPS.finditer(body.split(";")[0]):
                ops[current].append(op.group(0))
    return ops


# ---------------------------------------------------------------------------------------------------------- patterns
def _aligned(rng: np.random.Generator, n: int, region: int, align: int) -> np.ndarray:
    return rng.integers(0, max(1, region // align), size=n) * align


def random_patterns(kind: AccessKind, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """``n`` seeded random 32-lane byte-address patterns for ``kind`` (aligned, inside the probe's buffer)."""
    w = kind.bytes
    out = []
    for i in range(n):
        fam = i % 6
        if fam == 0:  # uniform in a small region: many identical words and bank collisions
            region = int(rng.choice([2 * w, 4 * w, 64, 128, 256, 512]))
            a = _aligned(rng, 32, max(region, w), w)
        elif fam == 1:  # a few distinct addresses spread over 4 KB
            pool = _aligned(rng, int(rng.integers(1, 9)), 4096, w)
            a = rng.choice(pool, size=32)
        elif fam == 2:  # later phases re-use (a permutation of) phase 0's addresses, some lanes changed
            p = kind.phase_lanes
            base = _aligned(rng, p, 1024, w)
            a = np.concatenate([rng.permutation(base) for _ in range(32 // p)])
            flip = rng.random(32) < rng.choice([0.0, 0.1, 0.3])
            a = np.where(flip, _aligned(rng, 32, 1024, w), a)
        elif fam == 3:  # same bank, different rows (pure conflicts) mixed with broadcast
            banks = rng.integers(0, 4) * w
            a = banks + 128 * rng.integers(0, int(rng.choice([1, 2, 4, 8, 32])), size=32)
            a = (a // w) * w
        elif fam == 4:  # stride pattern with random base and random stride (in units of w)
            s = int(rng.choice([0, 1, 2, 3, 4, 5, 8, 16, 32, 33]))
            a = (int(_aligned(rng, 1, 512, w)[0]) + np.arange(32) * s * w) % 8192
        else:  # fully random over 8 KB
            a = _aligned(rng, 32, 8192, w)
        out.append(np.asarray(a, dtype=np.int64) % SMEM_BYTES)
    return out


def merge_patterns(kind: AccessKind, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """Patterns that probe phase merging: uniform phases / half-warps / groups, uniform but for a lane or two."""
    w = kind.bytes
    out = []
    for i in range(n):
        fam = i % 6
        pool = _aligned(rng, int(rng.integers(1, 5)), int(rng.choice([256, 4096])), w)
        if fam in (0, 1, 2):  # uniform blocks of 8 / 16 / 32 lanes, block addresses from a small pool
            blk = (8, 16, 32)[fam] if fam < 2 or rng.random() < 0.5 else 8
            a = np.repeat(rng.choice(pool, size=32 // blk), blk)
        elif fam == 3:  # uniform except 1-2 lanes
            a = np.full(32, pool[0])
            a[rng.choice(32, size=int(rng.integers(1, 3)), replace=False)] = rng.choice(pool[-1:] + w * int(
                rng.choice([1, 8 // max(1, w // 4), 32, 1])), size=1)
        elif fam == 5:  # lane l and lane l ^ x share an address (x = 1, 2, 4, 8), addresses random
            x = int(rng.choice([1, 2, 4, 8]))
            a = _aligned(rng, 32, int(rng.choice([256, 1024])), w)
            a = np.minimum(a, a[np.arange(32) ^ x])
        else:  # one uniform block of 8/16 lanes, the rest random
            blk = int(rng.choice([8, 16]))
            a = _aligned(rng, 32, 1024, w)
            start = blk * int(rng.integers(0, 32 // blk))
            a[start: start + blk] = pool[0]
        out.append(np.asarray(a, dtype=np.int64) % SMEM_BYTES)
    return out


def structured_patterns(kind: AccessKind) -> list[np.ndarray]:
    """Hand-picked patterns: strides, broadcast, XOR-swizzled rows, half-warp / quarter-warp separators."""
    w = kind.bytes
    lane = np.arange(32)
    pats = [lane * s * w for s in (0, 1, 2, 4, 8, 32)]
    pats.append((lane % 8) * w)
    pats.append((lane % 8) * 128)  # 8 rows 128 B apart
    pats.append((lane % 8) * 128 + (((lane % 8) ^ (lane // 8)) % 8) * 16 // max(1, 16 // w) * max(1, 16 // w))
    pats.append(((lane ^ (lane >> 3)) & 31) * w)
    pats.append(np.where(lane < 16, lane * w, (lane - 16) * w))  # second half repeats the first
    pats.append(np.where(lane < 16, lane * w, 128 + (lane - 16) * w))
    return [np.asarray(p % SMEM_BYTES, dtype=np.int64) // w * w for p in pats]


def probe_patterns(seed: int = 2024, n_random: int = 16) -> list[tuple[str, np.ndarray]]:
    """The validation set: structured patterns plus ``n_random`` seeded random ones for every kind."""
    rng = np.random.default_rng(seed)
    pats: list[tuple[str, np.ndarray]] = []
    for name, kind in ACCESS_KINDS.items():
        pats += [(name, p) for p in structured_patterns(kind)]
        pats += [(name, p) for p in random_patterns(kind, rng, n_random)]
        pats += [(name, p) for p in merge_patterns(kind, rng, 40 if kind.bytes in (8, 16) else 10)]
    return pats


# ------------------------------------------------------------------------------------------------ launching, ncu
def _launch_all(cubin: str, patterns_file: str) -> None:
    """Child process body: launch every pattern once, in file order (ncu numbers the launches)."""
    import cupy as cp

    data = np.load(patterns_file)
    names = [str(n) for n in data["kinds"]]
    addrs = cp.asarray(data["addrs"].astype(np.uint32))
    out = cp.zeros(64, dtype=cp.uint32)
    mod = cp.RawModule(path=cubin)
    fns = {n: mod.get_function(f"probe_{n}") for n in set(names)}
    for i, n in enumerate(names):
        fns[n]((1,), (32,), (addrs[i], out))
    cp.cuda.Device().synchronize()


def _parse_ncu_csv(text: str) -> list[dict[str, float]]:
    """Per launch (in ID order): metric name -> value, from ``ncu --csv`` (details page) output."""
    start = text.find('"ID"')
    rows = csv.DictReader(io.StringIO(text[start:]))
    by_id: dict[int, dict[str, float]] = {}
    for r in rows:
        try:
            i = int(r["ID"])
        except (KeyError, TypeError, ValueError):
            continue
        by_id.setdefault(i, {})[r["Metric Name"]] = float(str(r["Metric Value"]).replace(",", ""))
    return [by_id[i] for i in sorted(by_id)]


def measure(patterns: list[tuple[str, np.ndarray]], workdir: Path, cubin: Path) -> list[dict[str, float]]:
    """Run all patterns under one ncu process; return the two wavefront metrics per pattern, in order."""
    pfile = workdir / "patterns.npz"
    np.savez(pfile, kinds=np.array([k for k, _ in patterns]), addrs=np.stack([a for _, a in patterns]))
    log = workdir / "ncu.csv"
    cmd = ["ncu", "--csv", "--log-file", str(log), "--metrics", f"{METRIC_LD},{METRIC_ST}", "-k", "regex:probe_",
           "--cache-control", "none", "--clock-control", "none", sys.executable, "-c",
           f"from layoutcheck.gpu.probes.banks import _launch_all; _launch_all({str(cubin)!r}, {str(pfile)!r})"]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"ncu failed ({proc.returncode}): {proc.stdout[-2000:]} {proc.stderr[-2000:]}")
    got = _parse_ncu_csv(log.read_text())
    if len(got) != len(patterns):
        raise RuntimeError(f"ncu reported {len(got)} launches, expected {len(patterns)}")
    return got


def tool_versions() -> dict[str, str]:
    def first(cmd: list[str]) -> str:
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, check=False).stdout.strip().splitlines()
            return out[-1] if out else "?"
        except OSError:
            return "?"

    return {"ncu": first(["ncu", "--version"]), "nvcc": first(["nvcc", "--version"]),
            "gpu": first(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]),
            "date": time.strftime("%Y-%m-%d")}


def run(out_dir: str | os.PathLike[str], patterns: list[tuple[str, np.ndarray]] | None = None) -> list[dict]:
    """Measure every pattern on the GPU and compare with the model; write ``bank_probe.json`` under ``out_dir``.

    Post: one dict per pattern with kind, addrs, measured, model, ideal, match; ``sass_ok`` is checked first.
    """
    from layoutcheck.models.banks.model import ideal, wavefronts

    out = Path(out_dir)
    work = out / "bank_probe_work"
    work.mkdir(parents=True, exist_ok=True)
    patterns = patterns if patterns is not None else probe_patterns()
    kinds = [ACCESS_KINDS[n] for n in dict.fromkeys(k for k, _ in patterns)]
    t0 = time.time()
    cubin = build(work, kinds)
    sass = sass_shared_ops(cubin)
    for k in kinds:
        ops = sass.get(f"probe_{k.name}", [])
        if len(ops) != 1 or not ops[0].startswith(k.sass.split(".")[0]):
            raise RuntimeError(f"probe_{k.name}: expected exactly one {k.sass}, SASS has {ops}")
    got = measure(patterns, work, cubin)
    results = []
    for (name, a), m in zip(patterns, got, strict=True):
        kind = ACCESS_KINDS[name]
        measured = int(m.get(METRIC_LD if kind.op == "ld" else METRIC_ST, -1))
        other = int(m.get(METRIC_ST if kind.op == "ld" else METRIC_LD, -1))
        model = wavefronts(kind, a)
        results.append({"kind": name, "addrs": [int(x) for x in a], "measured": measured, "other_op": other,
                        "model": int(model), "ideal": int(ideal(kind, a)), "match": measured == model,
                        "sass": sass[f"probe_{name}"][0]})
    summary = {"versions": tool_versions(), "patterns": len(results),
               "mismatches": sum(not r["match"] for r in results), "seconds": round(time.time() - t0, 1)}
    (out / "bank_probe.json").write_text(json.dumps({"summary": summary, "results": results}))
    shutil.rmtree(work, ignore_errors=True)
    return results


def explore(out_dir: str, seed: int, plan: list[tuple[list[str], int]]) -> None:
    """Raw measurements only (no model): for each (kinds, n_random) chunk one ncu process; appends JSON lines."""
    out = Path(out_dir)
    work = Path("/tmp/bank_probe_explore")
    work.mkdir(parents=True, exist_ok=True)
    cubin = build(work, list(ACCESS_KINDS.values()))
    sass = sass_shared_ops(cubin)
    (out / "sass.json").write_text(json.dumps(sass))
    rng = np.random.default_rng(seed)
    for names, n, fam in plan:
        pats = []
        for name in names:
            kind = ACCESS_KINDS[name]
            pats += [(name, p) for p in structured_patterns(kind)]
            pats += [(name, p) for p in (merge_patterns if fam == "merge" else random_patterns)(kind, rng, n)]
        t0 = time.time()
        got = measure(pats, work, cubin)
        with open(out / "raw.jsonl", "a") as f:
            for (name, a), m in zip(pats, got, strict=True):
                f.write(json.dumps({"kind": name, "addrs": [int(x) for x in a], "ld": m.get(METRIC_LD),
                                    "st": m.get(METRIC_ST)}) + "\n")
        print(f"chunk {names[:3]}...: {len(pats)} launches in {time.time() - t0:.1f} s", flush=True)


def main(argv: list[str]) -> int:
    if len(argv) > 1 and argv[1] == "--explore":
        plan = json.loads(argv[3])
        explore(argv[2], int(argv[4]), [(k, n, f) for k, n, f in plan])
        return 0
    out = argv[1] if len(argv) > 1 else "bank_probe_out"
    res = run(out)
    bad = [r for r in res if not r["match"]]
    print(f"bank_probe: {len(res)} patterns, {len(bad)} mismatches")
    for r in bad[:40]:
        print(f"  {r['kind']}: measured {r['measured']} model {r['model']} addrs {r['addrs']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
