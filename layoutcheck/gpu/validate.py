"""The one GPU validation run: every silicon check of layoutcheck in a single call, summary table last.

    python -m layoutcheck.gpu.validate OUT_DIR [--skip NAME ...]

Sections (each independent; one failing does not stop the others):

* ``kernels``    -- every generated kernel vs its oracle, element by element (``layoutcheck.gpu.runner``);
* ``spec_kernels`` -- every TV / tiled-MMA config of the bundled specs whose exact cover is PROVEN, instantiated as
  an ownership kernel and compared with the oracle;
* ``kernel_ncu`` -- Nsight Compute shared-memory wavefronts of the warp-transpose kernels (XOR k = 0, 1, 2) vs the
  bank model's prediction computed from the same layout objects that generated the kernels' index math;
* ``gemm_ncu``   -- ncu shared-memory wavefronts of the ``mma_gemm`` kernels (4 swizzle modes) vs the bank model fed
  with the addresses of the kernels' generated index math (staging STS.128 and LDSM.x4): kernel-level counters,
  per-instruction source counters, and the SASS instruction counts the prediction assumes; a delayed control and
  the ``tma_mma_gemm`` kernels are measured alongside (informational);
* ``banks``      -- the bank model vs ncu on >= 1300 single-instruction probes (``layoutcheck.gpu.probes.banks``);
* ``tma``        -- ``cuTensorMapEncodeTiled`` accept/reject vs the model, and real TMA loads vs the model's
  shared-memory image (``layoutcheck.gpu.probes.tma``);
* ``wgmma``, ``wgmma_base_offset`` -- the Hopper path (``codegen.wgmma_cases``): fragment probes and TMA -> smem ->
  wgmma GEMM tiles vs a host GEMM; descriptor base offsets at unaligned pattern starts vs ``gmma_addresses``;
* ``wgmma_kfirst`` -- MN-major stages stacked K-first (CUTLASS's SM90 order, the spec kinds'), every swizzle;
* ``wgmma_types`` -- u8, s8 x u8, u8 x s8, fp8 with f16 accumulators, mixed fp8;
* ``wgmma_ncu``, ``corpus_ncu`` -- ncu on the wgmma kernels' shared memory and on the corpus's SM80 f64 / tf32
  accesses vs the bank model (``layoutcheck.gpu.smem_ncu``);
* ``refuted``    -- the REFUTED configurations of ``specs/broken`` / ``specs/zoo`` instantiated, each row confirmed
  when the GPU does exactly what the counterexample says (``layoutcheck.gpu.refuted``; ``OUT_DIR/gpu-refuted.json``);
* ``vectors_device`` -- ``vectors --format h``'s ``__device__`` copies read in a kernel through
  ``<layoutcheck/ownership.h>``;
* ``sanitizer``  -- compute-sanitizer memcheck and racecheck over every generated kernel (``runner --sanitize
  --all``: the bundled ones, the spec configs, the Hopper wgmma/TMA ones, the device vectors, the refuted ones).

Writes ``OUT_DIR/summary.json`` (and each section's own JSON); exit 0 when every section passed.
"""

from __future__ import annotations

import csv
import io
import json
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from layoutcheck.gpu.tools import ncu_csv, sass_ops, tool_env

ROOT = Path(__file__).resolve().parents[2]
METRIC_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
METRIC_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
PERMUTE_KS = (0, 1, 2)


# -- sections ----------------------------------------------------------------------------------------------------
def section_kernels(out: Path) -> dict[str, Any]:
    from layoutcheck.gpu.runner import format_table, run_all

    rows = run_all(None, big=8192, repeats=3)
    table = format_table(rows)
    (out / "kernels.txt").write_text(table + "\n")
    print(table)
    return {"ok": all(r.ok for r in rows), "kernels": len(rows), "elements": sum(r.elements for r in rows),
            "mismatches": sum(r.mismatches for r in rows), "errors": sum(bool(r.error) for r in rows)}


def section_sanitizer(out: Path) -> dict[str, Any]:
    res: dict[str, Any] = {"ok": True}
    for tool in ("memcheck", "racecheck"):
        cmd = ["compute-sanitizer", "--tool", tool, "--error-exitcode", "9", sys.executable, "-m",
               "layoutcheck.gpu.runner", "--sanitize", "--all"]
        p = subprocess.run(cmd, env=tool_env(), capture_output=True, text=True, timeout=240)
        text = p.stdout + p.stderr
        (out / f"sanitizer_{tool}.txt").write_text(text)
        summary = [ln for ln in text.splitlines() if "SUMMARY" in ln]
        ran = [ln for ln in text.splitlines() if "generated kernels run" in ln]
        res[tool] = {"exit": p.returncode, "summary": summary[-1] if summary else "(no summary line)",
                     "kernels": ran[-1] if ran else "(no kernel count line)"}
        res["ok"] &= p.returncode == 0
    return res


def permute_prediction(k: int) -> tuple[int, int]:
    """Predicted (load, store) wavefronts of the whole ``permute_transpose_k{k}`` kernel from the bank model.

    The addresses are the very expressions printed into the kernel (``layoutcheck.codegen.cases.permute_exprs``),
    evaluated by ``layoutcheck.expr.numpy``: copy-in (sSrc[i] = src[i]; sDst[i] = 0), per stage and iteration a
    load of ``sSrc[src]`` and a store of ``sDst[dst]``, copy-out.
    """
    from layoutcheck.codegen.cases import permute_exprs
    from layoutcheck.expr.numpy import evaluate
    from layoutcheck.models.banks.model import wavefronts

    pe = permute_exprs(xor_bits=k)
    eb, lane = pe.elem_bytes, np.arange(32)
    s_src, s_dst = 0, pe.elems * eb  # byte bases of the two __shared__ arrays (declared in this order)
    ld = st = 0
    for i in range(0, pe.elems, 32):  # copy-in and zero-fill: lanes hit consecutive words
        st += wavefronts("sts32", s_src + eb * (i + lane)) + wavefronts("sts32", s_dst + eb * (i + lane))
        ld += wavefronts("lds32", s_dst + eb * (i + lane))  # copy-out
    for s in range(pe.stages):
        for r in range(pe.iters):
            env = {"lane": lane, "r": r, "s": s}
            ld += wavefronts("lds32", s_src + eb * evaluate(pe.src, env))
            st += wavefronts("sts32", s_dst + eb * evaluate(pe.dst, env))
    return ld, st


def _launch_permutes() -> None:
    """Child body under ncu: one launch of each permute kernel."""
    from layoutcheck.codegen.cases import permute_case
    from layoutcheck.gpu.runner import run_case

    for k in PERMUTE_KS:
        row = run_case(permute_case(xor_bits=k), repeats=0)
        if not row.ok:
            raise SystemExit(f"permute k={k} failed: {row.error or row.mismatches}")


def section_kernel_ncu(out: Path) -> dict[str, Any]:
    log = out / "kernel_ncu.csv"
    cmd = ["ncu", "--csv", "--log-file", str(log), "--metrics", f"{METRIC_LD},{METRIC_ST}", "-k",
           "regex:permute_transpose", "--cache-control", "none", "--clock-control", "none", sys.executable, "-c",
           "from layoutcheck.gpu.validate import _launch_permutes; _launch_permutes()"]
    p = subprocess.run(cmd, env=tool_env(), capture_output=True, text=True, timeout=300)
    if p.returncode != 0 or not log.exists():
        return {"ok": False, "error": f"ncu exit {p.returncode}: {(p.stdout + p.stderr)[-800:]}"}
    text = log.read_text()
    rows = csv.DictReader(io.StringIO(text[text.find('"ID"'):]))
    measured: dict[str, dict[str, float]] = {}
    for r in rows:
        name = re.sub(r"\(.*", "", r.get("Kernel Name", ""))
        if r.get("Metric Name") in (METRIC_LD, METRIC_ST):
            measured.setdefault(name, {})[r["Metric Name"]] = float(str(r["Metric Value"]).replace(",", ""))
    table = []
    for k in PERMUTE_KS:
        name = f"permute_transpose_k{k}"
        ld, st = permute_prediction(k)
        m = measured.get(name, {})
        table.append({"kernel": name, "model_ld": ld, "ncu_ld": m.get(METRIC_LD), "model_st": st,
                      "ncu_st": m.get(METRIC_ST), "match": m.get(METRIC_LD) == ld and m.get(METRIC_ST) == st,
                      "sass_shared": _sass_shared(k, out)})
    for t in table:
        print(f"{t['kernel']:<22} ld model {t['model_ld']:>4} ncu {t['ncu_ld']}   st model {t['model_st']:>4} "
              f"ncu {t['ncu_st']}   {'match' if t['match'] else 'MISMATCH'}")
    return {"ok": all(t["match"] for t in table), "kernels": table}


def _sass_shared(k: int, out: Path) -> dict[str, int]:
    """Count the shared-memory SASS instructions of the permute kernel (``sass_ops``), for diagnosis."""
    from layoutcheck.codegen.cases import permute_case

    ops = sass_ops(f"permute_k{k}", permute_case(xor_bits=k).source, out)
    return {op: n for op, n in ops.items() if op == "error" or op.startswith(("LDS", "STS"))}


# -- gemm_ncu: the mma.sync GEMM kernels, whole kernel, vs the bank model ------------------------------------------
GEMM_MODES = ("INTER", "SW32", "SW64", "SW128")
METRICS_DIAG = ("smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
                "smsp__inst_executed_op_ldsm.sum",  # dynamic warp-instruction counts
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")  # ncu's own conflict attribution


def _gemm_smem_addresses(mode: str, tma: bool = False) -> dict[str, Any]:
    """Per warp-instruction byte addresses of every shared-memory instruction of ``mma_gemm_{mode}`` (or of
    ``tma_mma_gemm_{mode}``: its LDSM only), from the very expressions printed into the kernel's source.

    Instruction stream per warp (fully unrolled, no data-dependent branch): the staging stores ``sA[COPY_A_SMEM]``
    for i < COPY_A_ITERS then ``sB[COPY_B_SMEM]`` (16-byte vectors: STS.128), then per k-tile kk the ldmatrix.x4 of A
    for each rm and of B for each p (LDSM.16.M88.4). ``sA`` and ``sB`` are 1024-B aligned and adjacent (sB at byte
    2*M*K); banks only see addresses mod 128, so the exact bases do not matter.
    """
    from layoutcheck.codegen.cases import mma_gemm_case, mma_gemm_exprs
    from layoutcheck.codegen.tma_cases import tma_gemm_exprs, tma_mma_gemm_case
    from layoutcheck.expr.c import c_expr, eval_c

    if tma:
        tile, src, copies = tma_gemm_exprs(mode).tile, tma_mma_gemm_case(mode).source, []
    else:
        g = mma_gemm_exprs(mode)
        tile, src = g.tile, mma_gemm_case(mode).source
        copies = [(0, g.copy_a.iters, c_expr(g.copy_a.smem)), (2 * tile.M * tile.K, g.copy_b.iters,
                                                                c_expr(g.copy_b.smem))]
    M, K, T, rest_m, rest_n = tile.M, tile.K, tile.threads, tile.rest_m, tile.rest_n
    texts = [c for _, _, c in copies] + [c_expr(tile.ldsm_a), c_expr(tile.ldsm_b)]
    missing = [t for t in texts if t not in src]
    if missing:
        raise RuntimeError(f"prediction out of sync with the kernel source: {missing[0][:80]}")
    lane = np.arange(32)
    st, ld = [], []
    for w in range(T // 32):
        for base, iters, text in copies:
            st += [base + 2 * eval_c(text, {"t": 32 * w + lane, "i": i}).astype(np.int64) for i in range(iters)]
        for k in range(K // 16):
            ld += [2 * eval_c(texts[-2], {"warp": w, "lane": lane, "rm": rm, "kk": k}).astype(np.int64)
                   for rm in range(rest_m)]
            ld += [2 * M * K + 2 * eval_c(texts[-1], {"warp": w, "lane": lane, "p": p, "kk": k}).astype(np.int64)
                   for p in range(rest_n // 2)]
    return {"sts128": np.array(st).reshape(-1, 32), "ldsm_x4": np.array(ld).reshape(-1, 32), "warps": T // 32}


def gemm_prediction(mode: str, tma: bool = False) -> dict[str, Any]:
    """Predicted shared-memory (load, store) wavefronts of the whole GEMM kernel, with the conflict-free ideal and
    the SASS shared instructions per warp the prediction assumes (each kernel runs one CTA)."""
    from layoutcheck.models.banks.model import ideal_batch, wavefronts_batch

    a = _gemm_smem_addresses(mode, tma)
    st, ld = a["sts128"], a["ldsm_x4"]
    w = a["warps"]
    sass = {"LDSM.16.M88.4": len(ld) // w, **({"STS.128": len(st) // w} if len(st) else {})}
    wl = wavefronts_batch("ldsm_x4", ld)
    ws = wavefronts_batch("sts128", st) if len(st) else np.zeros(0, dtype=np.int64)
    per = lambda x: sorted(int(v) for v in x.reshape(w, -1).sum(axis=0)) if len(x) else []  # noqa: E731
    return {"ld": int(wl.sum()), "st": int(ws.sum()), "ideal_ld": int(ideal_batch("ldsm_x4", ld).sum()),
            "ideal_st": int(ideal_batch("sts128", st).sum()) if len(st) else 0,
            "inst_ld": len(ld), "inst_st": len(st), "sass_expected": sass,
            "per_inst": {"LDSM": per(wl), "STS": per(ws)}}  # per static instruction, summed over the warps


GEMM_SAMPLES = 3  # launches of each mma_gemm kernel under ncu (run-to-run spread of the counters)
GEMM_DELAY_NS = 20000  # the control variant sleeps this long after the staging barrier, then syncs again


def delayed_case(case: Any) -> Any:
    """``case`` with ``__nanosleep(GEMM_DELAY_NS)`` and a second barrier after its staging ``__syncthreads()``:
    the same shared-memory instructions and addresses, but no ldmatrix overlaps the tail of the staging stores
    (measured on H100: the kernel-level load excess is unchanged, so overlap is not its cause)."""
    import dataclasses

    name = f"{case.name}_delay"
    barrier = "  __syncthreads();\n"
    if case.source.count(barrier) != 1 or case.source.count(f" {case.name}(") != 1:
        raise RuntimeError(f"{case.name}: expected one staging barrier and one entry point to patch")
    src = case.source.replace(barrier, barrier + f"  __nanosleep({GEMM_DELAY_NS}u);\n" + barrier)
    return dataclasses.replace(case, name=name, source=src.replace(f" {case.name}(", f" {name}("),
                               config=f"{case.config} + {GEMM_DELAY_NS} ns delay after the staging barrier")


def _launch_gemms() -> None:
    """Child body under ncu: each mma_gemm kernel ``GEMM_SAMPLES`` times, its delayed control once, and each
    tma_mma_gemm kernel once."""
    from layoutcheck.codegen.cases import mma_gemm_case
    from layoutcheck.codegen.tma_cases import tma_mma_gemm_case
    from layoutcheck.gpu.runner import run_case

    for mode in GEMM_MODES:
        case = mma_gemm_case(mode)
        for c in [case] * GEMM_SAMPLES + [delayed_case(case), tma_mma_gemm_case(mode)]:
            row = run_case(c, repeats=0)
            if not row.ok:
                print(f"{c.name} failed: {row.error or row.mismatches}", file=sys.stderr)


def _launch_gemms_once() -> None:
    """Child body under ncu's source counters: one launch of each mma_gemm kernel."""
    from layoutcheck.codegen.cases import mma_gemm_case
    from layoutcheck.gpu.runner import run_case

    for mode in GEMM_MODES:
        run_case(mma_gemm_case(mode), repeats=0)


def parse_source_counters(text: str) -> dict[str, dict[str, list[int]]]:
    """``ncu --section SourceCounters --page source --print-source sass --csv`` output -> per kernel, the
    "L1 Wavefronts Shared" of each shared LDSM / STS SASS instruction (summed over warps), sorted."""
    out: dict[str, dict[str, list[int]]] = {}
    for block in text.split('"Kernel Name",')[1:]:
        name = block.split(",", 1)[0].strip().strip('"')
        body = block[block.find('"Address"'):]
        per: dict[str, list[int]] = {"LDSM": [], "STS": []}
        for r in csv.DictReader(io.StringIO(body)):
            op = (r.get("Source") or "").split()
            if r.get("Address Space") == "Shared" and op and op[0].split(".")[0] in per:
                per[op[0].split(".")[0]].append(int(float(r["L1 Wavefronts Shared"].replace(",", ""))))
        out[name] = {k: sorted(v) for k, v in per.items()}
    return out


def _source_counters() -> tuple[dict[str, dict[str, list[int]]], str]:
    cmd = ["ncu", "--section", "SourceCounters", "--page", "source", "--print-source", "sass", "--csv", "-k",
           "regex:^mma_gemm_[a-z0-9]+$", sys.executable, "-c",
           "from layoutcheck.gpu.validate import _launch_gemms_once; _launch_gemms_once()"]
    try:
        p = subprocess.run(cmd, env=tool_env(), capture_output=True, text=True, timeout=300)
        return parse_source_counters(p.stdout), "" if p.returncode == 0 else f"ncu exit {p.returncode}"
    except Exception as e:  # diagnostic: never costs the section
        return {}, f"{type(e).__name__}: {str(e)[:200]}"


def _gemm_row(case: Any, pred: dict[str, Any], samples: list[dict[str, float]], sass: dict[str, int] | None,
              role: str) -> dict[str, Any]:
    lds = [m.get(METRIC_LD) for m in samples]
    sts = [m.get(METRIC_ST) for m in samples]
    row = {"kernel": case.name, "role": role, "model_ld": pred["ld"], "ncu_ld": lds, "model_st": pred["st"],
           "ncu_st": sts, "ideal_ld": pred["ideal_ld"], "ideal_st": pred["ideal_st"],
           "model_inst_ld": pred["inst_ld"], "model_inst_st": pred["inst_st"],
           "ncu_diag": [{k.split("__")[1]: v for k, v in m.items() if k in METRICS_DIAG} for m in samples],
           "ld_match": bool(lds) and all(x == pred["ld"] for x in lds),
           "st_match": bool(sts) and all(x == pred["st"] for x in sts)}
    if sass is not None:
        shared = {k: v for k, v in sass.items() if k.startswith(("LDS", "STS"))}
        row.update(sass=sass, sass_expected=pred["sass_expected"], sass_match=shared == pred["sass_expected"])
    print(f"{case.name:<22} ld model {pred['ld']:>4} (ideal {pred['ideal_ld']:>3}) ncu {lds}   st model "
          f"{pred['st']:>4} (ideal {pred['ideal_st']:>3}) ncu {sts}   [{role}] {row['ncu_diag'][:1]}"
          + (f" sass {sass}" if sass else ""))
    return row


def section_gemm_ncu(out: Path) -> dict[str, Any]:
    """Shared-memory wavefronts of the ``mma_gemm`` kernels vs the bank model (see ``gemm_prediction``).

    ``ok`` means: the SASS shared instructions are the ones the prediction assumes, the kernel-level store counter
    equals the model on every launch, and ncu's per-instruction (source-counter) wavefronts equal the model for every
    static instruction. The kernel-level *load* counter is recorded but not required to match: on the H100 it reads
    3-4 wavefronts above the sum of its own per-instruction counts (``ld_excess``; ``ld_exact`` says how many
    kernels matched anyway) -- wavefronts that ncu attributes to no instruction, absent from the TMA kernels that
    issue the identical ldmatrix addresses. Also recorded: a delayed control (``__nanosleep`` after the staging
    barrier) and the tma_mma_gemm kernels (same ldmatrix addresses, no staging stores), both informational.
    First H100 runs: stores and per-instruction counts exact; the kernel-level load counter 3-4 above the model
    (``ld_excess``), unattributed to any instruction by the source counters, with or without the delay.
    """
    from layoutcheck.codegen.cases import mma_gemm_case
    from layoutcheck.codegen.tma_cases import tma_mma_gemm_case

    log = out / "gemm_ncu.csv"
    body = "from layoutcheck.gpu.validate import _launch_gemms; _launch_gemms()"
    measured, err = ncu_csv(log, "mma_gemm", [METRIC_LD, METRIC_ST, *METRICS_DIAG], body)
    if err:  # an unknown diagnostic metric must not cost the wavefront comparison
        print(f"gemm_ncu: with diagnostic metrics: {err[-300:]}; retrying with the wavefront metrics only")
        measured, err = ncu_csv(log, "mma_gemm", [METRIC_LD, METRIC_ST], body)
    if err:
        return {"ok": False, "error": err}
    cases = {m: (mma_gemm_case(m), tma_mma_gemm_case(m)) for m in GEMM_MODES}
    with ThreadPoolExecutor(max_workers=8) as pool:
        sass = dict(zip([c.name for pair in cases.values() for c in pair],
                        pool.map(lambda c: sass_ops(c.name, c.source, out), [c for p in cases.values() for c in p]),
                        strict=True))
    table = []
    for mode, (case, tcase) in cases.items():
        pred = gemm_prediction(mode)
        dcase = delayed_case(case)
        table.append(_gemm_row(case, pred, measured.get(case.name, []), sass[case.name], "kernel"))
        table.append(_gemm_row(dcase, pred, measured.get(dcase.name, []), None, "delayed control"))
        table.append(_gemm_row(tcase, gemm_prediction(mode, tma=True), measured.get(tcase.name, []),
                               sass[tcase.name], "tma, informational"))
    kern = [t for t in table if t["role"] == "kernel"]
    ctrl = [t for t in table if t["role"] == "delayed control"]
    src, src_err = _source_counters()
    for t in kern:
        t["per_inst_model"] = gemm_prediction(t["kernel"].split("_")[-1].upper())["per_inst"]
        t["per_inst_ncu"] = src.get(t["kernel"])
        t["per_inst_match"] = t["per_inst_ncu"] == t["per_inst_model"] if t["per_inst_ncu"] else None
        print(f"{t['kernel']:<22} per instruction (source counters) "
              f"{'match' if t['per_inst_match'] else 'MISMATCH' if t['per_inst_match'] is False else 'absent'}"
              f"{' ' + src_err if src_err else ''}")
    (out / "gemm_ncu.json").write_text(json.dumps(table, indent=1, default=str))
    excess = {t["kernel"]: [None if x is None else x - t["model_ld"] for x in t["ncu_ld"]] for t in kern}
    return {"ok": all(t["st_match"] and t["sass_match"] and t["per_inst_match"] for t in kern),
            "ld_exact": sum(t["ld_match"] for t in kern), "st_exact": sum(t["st_match"] for t in kern),
            "sass_match": sum(t["sass_match"] for t in kern), "of": len(kern), "ld_excess": excess,
            "per_inst_exact": sum(bool(t["per_inst_match"]) for t in kern), "source_counters_error": src_err,
            "control_ld_excess": {t["kernel"]: [None if x is None else x - t["model_ld"] for x in t["ncu_ld"]]
                                  for t in ctrl},
            "control_st_excess": {t["kernel"]: [None if x is None else x - t["model_st"] for x in t["ncu_st"]]
                                  for t in ctrl},
            "kernels": table}


def section_banks(out: Path) -> dict[str, Any]:
    from layoutcheck.gpu.probes.banks import run

    results = run(out)
    bad = [r for r in results if not r["match"]]
    for r in bad[:20]:
        print("MISMATCH", r["kind"], "measured", r["measured"], "model", r["model"], r["addrs"])
    kinds = sorted({r["kind"] for r in results})
    return {"ok": not bad, "patterns": len(results), "mismatches": len(bad), "kinds": len(kinds),
            "per_kind": {k: sum(r["kind"] == k for r in results) for k in kinds}}


def section_tma(out: Path) -> dict[str, Any]:
    from layoutcheck.gpu.probes.tma import run

    recs = run(out)
    s = recs[-1]
    for r in recs:
        if r.get("kind") == "encode" and r.get("in_model") and not r.get("agree"):
            print("TMA DISAGREE", r.get("driver_result"), r.get("model"), json.dumps(r.get("config")))
    ok = s["encode_disagreements"] == 0 and s["load_mismatched_elements"] == 0 and s["load_errors"] == 0
    return {"ok": ok, **{k: v for k, v in s.items() if k != "kind"}}


def section_spec_kernels(out: Path) -> dict[str, Any]:
    """Every TV / tiled-MMA config of the bundled ``specs/`` whose exact cover is PROVEN, as an ownership kernel."""
    from layoutcheck.codegen.spec_cases import spec_cases
    from layoutcheck.gpu.runner import format_table, run_case

    cases, skipped = spec_cases([str(ROOT / "specs")])
    rows = [run_case(c, repeats=0) for c in cases]
    table = format_table(rows)
    (out / "spec_kernels.txt").write_text(table + "\n")
    print(table)
    return {"ok": bool(rows) and all(r.ok for r in rows), "configs": len(rows), "skipped": len(skipped),
            "elements": sum(r.elements for r in rows), "mismatches": sum(r.mismatches for r in rows),
            "errors": sum(bool(r.error) for r in rows)}


def _run_wgmma_cases(out: Path, name: str, cases: list[Any]) -> dict[str, Any]:
    from layoutcheck.gpu.runner import format_table, run_case

    rows = [run_case(c, repeats=0) for c in cases]
    table = format_table(rows)
    (out / f"{name}.txt").write_text(table + "\n")
    print(table)
    return {"ok": bool(rows) and all(r.ok for r in rows), "kernels": len(rows),
            "elements": sum(r.elements for r in rows), "mismatches": sum(r.mismatches for r in rows),
            "errors": sum(bool(r.error) for r in rows)}


def section_wgmma(out: Path) -> dict[str, Any]:
    """The Hopper path: wgmma fragment probes and TMA -> smem -> wgmma GEMM tiles (``codegen.wgmma_cases``)."""
    from layoutcheck.codegen.wgmma_cases import probe_cases, wgmma_gemm_cases

    return _run_wgmma_cases(out, "wgmma", probe_cases() + wgmma_gemm_cases())


def section_wgmma_base_offset(out: Path) -> dict[str, Any]:
    """Descriptor base offsets on silicon: operands placed by threads with the swizzle pattern at unaligned starts;
    each kernel's exactness against layoutcheck's prediction (``gmma_addresses``)."""
    from layoutcheck.codegen.wgmma_cases import placed_cases
    from layoutcheck.gpu.runner import format_table, run_case

    pairs = placed_cases()
    rows = [run_case(c, repeats=0) for c, _ in pairs]
    agree = [not r.error and (r.mismatches == 0) == exact for r, (_, exact) in zip(rows, pairs, strict=True)]
    table = format_table(rows) + "\n" + "\n".join(
        f"{c.name}: predicted {'exact' if exact else 'mismatch'}, measured {r.mismatches} mismatches -> "
        f"{'agree' if a else 'DISAGREE'}" for r, (c, exact), a in zip(rows, pairs, agree, strict=True))
    (out / "wgmma_base_offset.txt").write_text(table + "\n")
    print(table)
    return {"ok": all(agree), "kernels": len(rows), "agree": sum(agree)}


def section_wgmma_kfirst(out: Path) -> dict[str, Any]:
    """MN-major stages stacked K-first (``codegen.wgmma_cases.kfirst_cases``), exact against a host GEMM."""
    from layoutcheck.codegen.wgmma_cases import kfirst_cases

    return _run_wgmma_cases(out, "wgmma_kfirst", kfirst_cases())


def section_wgmma_types(out: Path) -> dict[str, Any]:
    """u8, mixed-integer, f16-accumulating fp8 and f16 atoms (``codegen.wgmma_cases.type_cases``), exact."""
    from layoutcheck.codegen.wgmma_cases import type_cases

    return _run_wgmma_cases(out, "wgmma_types", type_cases())


def section_wgmma_ncu(out: Path) -> dict[str, Any]:
    from layoutcheck.gpu.smem_ncu import section_wgmma_ncu as run

    return run(out)


def section_corpus_ncu(out: Path) -> dict[str, Any]:
    from layoutcheck.gpu.smem_ncu import section_corpus_ncu as run

    return run(out)


def section_triton_ncu(out: Path) -> dict[str, Any]:
    from layoutcheck.gpu.triton_ncu import section_triton_ncu as run

    return run(out)


def section_ldgsts_ncu(out: Path) -> dict[str, Any]:
    """cp.async (LDGSTS) shared-write wavefronts: the st.shared hypothesis vs ncu (``layoutcheck.gpu.ptx_ncu``)."""
    from layoutcheck.gpu.ptx_ncu import section_ldgsts_ncu as run

    return run(out)


def section_ptx_ncu(out: Path) -> dict[str, Any]:
    """The PTX road on kernels nvcc compiles (CUDA C++, CuTe C++) vs ncu (``layoutcheck.gpu.ptx_ncu``)."""
    from layoutcheck.gpu.ptx_ncu import section_ptx_ncu as run

    _need_gpu()
    return run(out)

def _need_gpu() -> None:
    """Raise ``RuntimeError('no GPU ...')`` unless CuPy sees a CUDA device (a section then fails cleanly)."""
    try:
        import cupy

        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        raise RuntimeError(f"no GPU (needs CuPy and a CUDA device: {type(e).__name__}: {e})") from None
    if n < 1:
        raise RuntimeError("no GPU (CuPy sees no CUDA device)")


def section_refuted(out: Path) -> dict[str, Any]:
    """REFUTED configurations of ``specs/broken`` and ``specs/zoo`` on silicon (``layoutcheck.gpu.refuted``): per
    row confirmed / not confirmed / not instantiable; writes ``OUT/gpu-refuted.json`` (``check --gpu-results``)."""
    from layoutcheck.gpu.refuted import DEFAULT_PATHS, device_name, format_rows, results

    _need_gpu()
    doc = results(list(DEFAULT_PATHS), device_name(), out=out)
    (out / "gpu-refuted.json").write_text(json.dumps(doc, indent=1))
    print(format_rows(doc))
    s = doc["summary"]
    return {"ok": s["not confirmed"] == 0 and s["confirmed"] > 0, **s}


def section_vectors_device(out: Path) -> dict[str, Any]:
    """``vectors --format h``'s ``__device__`` copies read in a kernel through ``<layoutcheck/ownership.h>``."""
    from layoutcheck.codegen.vectors_case import vectors_device_case
    from layoutcheck.gpu.runner import format_table, run_case

    _need_gpu()
    row = run_case(vectors_device_case(), repeats=0)
    print(format_table([row]))
    return {"ok": row.ok, "elements": row.elements, "mismatches": row.mismatches, "error": row.error}


SECTIONS: dict[str, Callable[[Path], dict[str, Any]]] = {
    "kernels": section_kernels,
    "spec_kernels": section_spec_kernels,
    "kernel_ncu": section_kernel_ncu,
    "gemm_ncu": section_gemm_ncu,
    "banks": section_banks,
    "tma": section_tma,
    "wgmma": section_wgmma,
    "wgmma_base_offset": section_wgmma_base_offset,
    "wgmma_kfirst": section_wgmma_kfirst,
    "wgmma_types": section_wgmma_types,
    "wgmma_ncu": section_wgmma_ncu,
    "corpus_ncu": section_corpus_ncu,
    "triton_ncu": section_triton_ncu,
    "ptx_ncu": section_ptx_ncu,
    "ldgsts_ncu": section_ldgsts_ncu,
    "refuted": section_refuted,
    "vectors_device": section_vectors_device,
    "sanitizer": section_sanitizer,  # last: the slowest, and the kernel cache is warm by then
}


def _device() -> dict[str, Any]:
    info: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "host": platform.node()}
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        info["gpu"] = q.stdout.strip()
        v = subprocess.run(["ncu", "--version"], capture_output=True, text=True, timeout=30)
        info["ncu"] = v.stdout.strip().splitlines()[-1] if v.stdout else "?"
        n = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, timeout=30)
        info["nvcc"] = n.stdout.strip().splitlines()[-1] if n.stdout else "?"
    except Exception as e:  # pragma: no cover - informational only
        info["error"] = str(e)
    return info


def main(argv: list[str] | None = None) -> int:
    """Run every GPU check (or the ``--only`` / not ``--skip`` sections); exit 0 when every section passed."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python3 -m layoutcheck.gpu.validate",
        description="Run every GPU check of layoutcheck in one call and print a summary table "
        "(needs a CUDA GPU, CuPy, nvcc, ncu and compute-sanitizer).",
    )
    parser.add_argument("out", nargs="?", default="gpu-validation-out", help="directory for kernels and logs")
    parser.add_argument("--skip", action="append", default=[], choices=list(SECTIONS), metavar="SECTION",
                        help="leave out a section (repeatable)")
    parser.add_argument("--only", action="append", default=[], choices=list(SECTIONS), metavar="SECTION",
                        help="run only these sections (repeatable)")
    ns = parser.parse_args(argv)
    skip = set(ns.skip) | ({name for name in SECTIONS if name not in ns.only} if ns.only else set())
    out = Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {"device": _device(), "sections": {}}
    print(json.dumps(summary["device"]))
    for name, fn in SECTIONS.items():
        if name in skip:
            continue
        t0 = time.perf_counter()
        print(f"== {name}", flush=True)
        try:
            res = fn(out)
        except Exception as e:
            res = {"ok": False, "error": f"{type(e).__name__}: {str(e)[:500]}"}
        res["seconds"] = round(time.perf_counter() - t0, 1)
        summary["sections"][name] = res
        (out / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    print("\n== summary")
    print(f"{'section':<12} {'ok':<4} {'seconds':>8}  details")
    for name, res in summary["sections"].items():
        details = {k: v for k, v in res.items() if k not in ("ok", "seconds", "kernels", "per_kind")}
        print(f"{name:<12} {'yes' if res['ok'] else 'NO':<4} {res['seconds']:>8}  {json.dumps(details, default=str)}")
    return 0 if all(r["ok"] for r in summary["sections"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
