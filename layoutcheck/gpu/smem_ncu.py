"""Nsight Compute on shared memory the LSU bank probes do not cover: the wgmma kernels and the corpus's SM80 reads.

Two validation sections (``layoutcheck.gpu.validate`` registers both):

* ``wgmma_ncu`` -- the generated TMA -> smem -> wgmma kernels (``codegen.wgmma_cases.ncu_cases``) under ncu. wgmma
  reads its operands through the *async proxy* (the descriptors, not the threads, address shared memory). The H100
  counts those reads in counters of their own (``ncu --query-metrics`` lists them; ``GMMA``):
  ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma`` and ``..._bank_conflicts_..._op_gmma``, not in the
  ``_op_ld`` / ``_op_st`` counters of the LSU bank probes. The section compares (1) the LSU counters with the bank
  model: 0 for operand reads, and every wavefront of an epilogue that stages C through shared memory (``st.shared``
  through the C layout, ``ld.shared.f32`` copy-out) computed from the kernel's own index expressions; (2) the GMMA
  counters with the core-matrix reading of the descriptors (``gmma_core_matrix_reads``); and records every GMMA
  counter for each kernel and for a control without the ``wgmma.mma_async`` (``seen_by``: what differs).
* ``corpus_ncu`` -- the SM80 f64 and tf32 shared-memory accesses of ``corpus/sm80`` (the conflicted reads the corpus
  derives and their conflict-free neighbours), each instruction measured by the single-instruction bank probes
  (``gpu.probes.banks``) at the claim's own addresses: per instruction against the model, and the total against
  the claim (``wavefront_count`` n, or the ideal for ``conflict_free``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
METRIC_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
METRIC_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
CORE = (METRIC_LD, METRIC_ST, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smsp__inst_executed_op_shared_ld.sum",
        "smsp__inst_executed_op_shared_st.sum")
GMMA = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum",
        "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum", "sm__sass_data_bytes_mem_shared_op_gmma.sum",
        "sm__sass_inst_executed_op_shared_gmma.sum", "l1tex__lsuin_requests_op_gmma.sum",
        "sm__inst_executed_pipe_tensor_op_gmma.sum", "l1tex__lsu_writeback_active_mem_shared_op_gmma.sum")
"""The H100's counters that name GMMA shared-memory traffic (found with ``ncu --query-metrics`` on the device:
Nsight Compute 2025.3.1, GH100; ``parse_metric_names`` lists them again on every run)."""
SHARED = ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
          "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum",
          "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum", "sm__sass_data_bytes_mem_shared.sum",
          "sm__sass_inst_executed_op_shared.sum")
"""Totals over every shared-memory operation: do they include the GMMA reads?"""
INTEREST = re.compile(r"gmma")
CORPUS_SPECS = ("corpus/sm80/f64.toml", "corpus/sm80/tf32.toml")


# -- metric discovery --------------------------------------------------------------------------------------------
def parse_metric_names(text: str) -> list[str]:
    r"""The counters (``.sum``) whose name matches ``INTEREST`` in ``ncu --query-metrics`` output (name, then type).

    >>> parse_metric_names("Metric Name  Type\nsm__sass_inst_executed_op_shared_gmma  Counter  inst  # ...\n"
    ...                    "smsp__average_x_gmma  Ratio  inst  # ...\ndram__bytes  Counter  byte")
    ['sm__sass_inst_executed_op_shared_gmma.sum']
    """
    names = re.findall(r"^([a-z0-9]+__[A-Za-z0-9_]+)\s+Counter\b", text, re.M)
    return sorted({n + ".sum" for n in names if INTEREST.search(n)})


def discover_metrics(out: Path) -> tuple[list[str], str]:
    """The device's GMMA counters (``parse_metric_names``); the whole query is kept in ``OUT/ncu_query_metrics.txt``."""
    try:
        p = subprocess.run(["ncu", "--query-metrics"], capture_output=True, text=True, timeout=120)
    except Exception as e:
        return [], f"{type(e).__name__}: {str(e)[:200]}"
    (out / "ncu_query_metrics.txt").write_text(p.stdout)
    return parse_metric_names(p.stdout), "" if p.returncode == 0 else f"ncu --query-metrics exit {p.returncode}"


def _launch_wgmma_ncu() -> None:
    """Child body under ncu: each ``ncu_cases`` kernel once."""
    from layoutcheck.codegen.wgmma_cases import ncu_cases
    from layoutcheck.gpu.runner import run_case

    for _, _, c in ncu_cases():
        row = run_case(c, repeats=0)
        if not row.ok:
            print(f"{c.name} failed: {row.error or row.mismatches}", file=sys.stderr)


def _measure(out: Path, metrics: list[str]) -> tuple[dict[str, list[dict[str, float]]], list[str], str]:
    """ncu over the ncu cases with ``metrics``; a metric ncu refuses is dropped and the run repeated (<= 8 times)."""
    from layoutcheck.gpu.tools import ncu_csv

    dropped: list[str] = []
    body = "from layoutcheck.gpu.smem_ncu import _launch_wgmma_ncu; _launch_wgmma_ncu()"
    for _ in range(8):
        measured, err = ncu_csv(out / "wgmma_ncu.csv", "wgmma_gemm_", metrics, body)
        if not err:
            return measured, dropped, ""
        bad = [m for m in metrics if m not in CORE and m.split(".")[0] in err]
        if not bad:
            if len(metrics) > len(CORE):  # an unnamed refusal: fall back to the core counters
                dropped += [m for m in metrics if m not in CORE]
                metrics = list(CORE)
                continue
            return {}, dropped, err
        dropped += bad
        metrics = [m for m in metrics if m not in bad]
    return {}, dropped, "ncu kept refusing metrics"


# -- the bank model's prediction for the ncu kernels -------------------------------------------------------------
def epilogue_prediction(case_name: str, smem_c: Any, source: str) -> dict[str, Any]:
    """Predicted LSU (ld, st) wavefronts of a 64x64x64 smem-epilogue kernel, and the SASS stores it assumes: per warp
    ``w`` either one ``st.shared.v2.f32`` per value pair at ``4 * store(t = 32w + lane, v even)`` (``sts64``, where
    ``epilogue_pairs``) or one ``st.shared.f32`` per value (``sts32``); every copy-out ``ld.shared.f32`` at
    ``4 * load(i)``, ``i = t + 128 r``. The expressions are the ones printed into ``source`` (checked)."""
    from layoutcheck.codegen.wgmma_cases import epilogue_exprs, epilogue_pairs, wgmma_atom_name
    from layoutcheck.expr.c import c_expr
    from layoutcheck.expr.numpy import evaluate
    from layoutcheck.hw.mma import mma_atom
    from layoutcheck.models.banks.model import ideal_batch, wavefronts_batch
    from layoutcheck.models.tiled_mma import make_tiled_mma

    M = N = 64
    tiled = make_tiled_mma(mma_atom(wgmma_atom_name("f16", "f16", "f32", N, "SS")), (1, 1, 1))
    store, load = epilogue_exprs(tiled, M, N, smem_c)
    if c_expr(store) not in source or c_expr(load) not in source:
        raise RuntimeError(f"{case_name}: prediction out of sync with the kernel source")
    pairs = epilogue_pairs(tiled, M, N, smem_c)
    kind, step = ("sts64", 2) if pairs else ("sts32", 1)
    lane = np.arange(32)
    st = np.array([4 * evaluate(store, {"t": 32 * w + lane, "v": v}) for w in range(4) for v in range(0, N // 2, step)])
    ld = np.array([4 * evaluate(load, {"i": 32 * w + lane + 128 * r}) for w in range(4) for r in range(M * N // 128)])
    return {"ld": int(wavefronts_batch("lds32", ld).sum()), "st": int(wavefronts_batch(kind, st).sum()),
            "ideal_ld": int(ideal_batch("lds32", ld).sum()), "ideal_st": int(ideal_batch(kind, st).sum()),
            "inst_ld": len(ld), "inst_st": len(st), "store": kind,
            "sass_stores": {"STS.64" if pairs else "STS": N // 2 // step}}


def gmma_core_matrix_reads(args: dict[str, Any]) -> dict[str, int]:
    """What the operand reads of one ``ncu_cases`` kernel are, under the hypothesis that a wgmma reads its operands
    one 8 x 16-byte core matrix per wavefront: the byte addresses every wgmma's descriptors read (block 0's advanced
    as the kernel advances it: ``models.gmma.descriptor_reads``), cut into core matrices (8 rows of 16 bytes: MN rows
    for K-major, K rows for MN-major), four to a quarter-warp-phased ``lds128`` of the bank model.
    Returns the operand ``bytes``, the ``core_matrices`` and the model's ``wavefronts`` for them (equal to the core
    matrices when every core matrix meets all 32 banks once)."""
    from layoutcheck.codegen.wgmma_cases import _stage
    from layoutcheck.models.banks.model import wavefronts_batch
    from layoutcheck.models.gmma import descriptor_reads, element_bytes

    dtype, M, N, K = args["dtype"], args.get("M", 64), args.get("N", 64), args.get("K", 64)
    e, order = element_bytes(dtype), args.get("atom_order", "mn_first")
    chunks: list[np.ndarray] = []
    operands = [(args["major_a"], M, 64)] if args.get("form", "SS") == "SS" else []  # RS: A from registers
    for major, mn, blk in [*operands, (args["major_b"], N, N)]:  # A in 64-row blocks, B whole
        reads = descriptor_reads(_stage(major, args["swizzle"], dtype, mn, K, order).layout, dtype, major, blk)
        addrs = reads.addresses()
        if addrs is None:
            raise RuntimeError(f"{args}: a {major}-major block's descriptor cannot be formed")
        for addr in addrs:
            a = addr.reshape(-1, blk).T  # (mn, k): flat colex over (MN, K)
            per = 16 // e
            if major == "K":  # core matrix (i, j): rows mn = 8i..8i+7, the 16 bytes at k = per*j
                rows = a[:, ::per].reshape(blk // 8, 8, -1).transpose(0, 2, 1).reshape(-1, 8)
            else:  # core matrix (i, j): K rows 8j..8j+7, the 16 bytes at mn = per*i
                rows = a[::per, :].reshape(blk // per, -1, 8).reshape(-1, 8)
            chunks += [rows] * (M // 64 if blk == N else 1)  # every warpgroup's wgmma reads all of B
    cms = np.concatenate(chunks)
    if (cms % 16).any() or any(len(set(r.tolist())) != 8 for r in cms):
        raise RuntimeError("a core matrix is not 8 distinct 16-byte chunks")
    wf = wavefronts_batch("lds128", cms.reshape(-1, 32))
    return {"bytes": int(cms.size * 16), "core_matrices": len(cms), "wavefronts": int(wf.sum())}


def section_wgmma_ncu(out: Path) -> dict[str, Any]:
    """``wgmma_ncu`` (module docstring). ``ok``: every kernel's LSU ld/st wavefronts equal the bank model's (0 for
    the operand and control kernels, whose only shared-memory traffic is TMA, mbarrier and wgmma; every wavefront of
    the smem epilogues); the SASS stores are the ones the prediction assumes; and for every operand kernel the GMMA
    counters equal the core-matrix reading of its descriptors (``gmma_core_matrix_reads``: wavefronts
    ``l1tex__..._op_gmma``, bank conflicts = wavefronts - core matrices, bytes ``sm__sass_data_bytes_..._op_gmma``).
    The no-wgmma controls and the metrics that differ with and without the wgmma are recorded beside it."""
    from layoutcheck.gpu.tools import sass_ops

    cases = ncu_cases_with_predictions()
    discovered, qerr = discover_metrics(out)
    metrics = list(dict.fromkeys([*CORE, *GMMA, *SHARED, *discovered]))
    measured, dropped, err = _measure(out, metrics)
    if err:
        return {"ok": False, "error": err[-800:], "query_error": qerr, "gmma_counters_listed": discovered}
    with ThreadPoolExecutor(max_workers=8) as pool:
        sass = list(pool.map(lambda x: sass_ops(x[1].name, x[1].source, out, "sm_90a", ("HGMMA", "WARPGROUP")),
                             cases))
    rows = []
    for (role, c, pred, reads), ops in zip(cases, sass, strict=True):
        m = (measured.get(c.name) or [{}])[0]
        rows.append({"kernel": c.name, "role": role, "model": pred, "core_matrix_reads": reads, "sass": ops,
                     "ncu_ld": m.get(METRIC_LD), "ncu_st": m.get(METRIC_ST),
                     "gmma": {k: m.get(k) for k in GMMA}, "metrics": m,
                     "ld_excess": None if m.get(METRIC_LD) is None else m[METRIC_LD] - pred["ld"],
                     "sass_match": {k: v for k, v in ops.items() if k.startswith("STS")} == pred["sass_stores"],
                     "gmma_match": reads is None or (m.get(GMMA[0]) == reads["wavefronts"] and m.get(GMMA[1]) ==
                                                     reads["wavefronts"] - reads["core_matrices"]
                                                     and m.get(GMMA[3]) == reads["bytes"]),
                     "match": bool(m) and m.get(METRIC_LD) == pred["ld"] and m.get(METRIC_ST) == pred["st"]})
    seen = _seen_by(rows)
    for r in rows:
        g = {k.split("__")[1].replace("_mem_shared", ""): v for k, v in r["gmma"].items()}
        print(f"{r['kernel']:<48} [{r['role']}] ld model {r['model']['ld']} ncu {r['ncu_ld']}  st model "
              f"{r['model']['st']} ncu {r['ncu_st']}  {'match' if r['match'] else 'MISMATCH'}  core matrices "
              f"{r['core_matrix_reads']}  gmma {g}  sass {r['sass']}")
    for name, vals in seen.items():
        print(f"differs with/without wgmma: {name}: {vals}")
    (out / "wgmma_ncu.json").write_text(json.dumps({"rows": rows, "seen_by": seen, "dropped": dropped,
                                                    "asked": metrics, "gmma_counters_listed": discovered},
                                                   indent=1, default=str))
    return {"ok": bool(rows) and all(r["match"] and r["sass_match"] and r["gmma_match"] for r in rows),
            "matched": sum(r["match"] for r in rows), "sass_matched": sum(r["sass_match"] for r in rows),
            "gmma_matched": sum(r["gmma_match"] for r in rows if r["role"] == "operands"),
            "of": len(rows), "gmma_counters_listed": discovered, "metrics_dropped": dropped, "query_error": qerr,
            "seen_by_wgmma": sorted(seen), "kernels": rows,
            "operands": {r["kernel"]: {**{k.split("__")[1]: v for k, v in r["gmma"].items()},
                                       "core_matrices": r["core_matrix_reads"]["core_matrices"]}
                         for r in rows if r["role"] == "operands"},
            "epilogue": {r["kernel"]: {"model_ld": r["model"]["ld"], "ncu_ld": r["ncu_ld"],
                                       "model_st": r["model"]["st"], "ncu_st": r["ncu_st"]}
                         for r in rows if r["role"] == "epilogue"}}


def ncu_cases_with_predictions() -> list[tuple[str, Any, dict[str, int], dict[str, int] | None]]:
    """``(role, case, LSU prediction, core-matrix reading of the operands)`` for every ``ncu_cases`` kernel."""
    from layoutcheck.codegen.wgmma_cases import ncu_cases

    none = {"ld": 0, "st": 0, "ideal_ld": 0, "ideal_st": 0, "inst_ld": 0, "inst_st": 0, "sass_stores": {}}
    return [(role, c, epilogue_prediction(c.name, args["smem_c"], c.source) if "smem_c" in args else none,
             gmma_core_matrix_reads(args) if role == "operands" else None) for role, args, c in ncu_cases()]


def _seen_by(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Metrics whose value differs between an operand kernel and its no-wgmma control (same swizzle), with the
    values of every operand kernel and control: what sees the wgmma's reads (or anything else the wgmma adds)."""
    by = {r["kernel"]: r for r in rows}
    out: dict[str, dict[str, float]] = {}
    for r in rows:
        ctl = by.get(r["kernel"] + "_nowgmma")
        if r["role"] != "operands" or ctl is None:
            continue
        for k, v in r["metrics"].items():
            if ctl["metrics"].get(k) != v:
                out.setdefault(k, {})
    for k in out:
        for r in rows:
            if r["role"] in ("operands", "control"):
                out[k][r["kernel"]] = r["metrics"].get(k)
    return out


# -- corpus: the SM80 accesses the corpus derives, measured instruction by instruction --------------------------------
def corpus_claims(paths: tuple[str, ...] = CORPUS_SPECS) -> list[dict[str, Any]]:
    """Every bank claim (``conflict_free``, ``wavefront_count``) of the smem configs in ``paths``: its access kind,
    the byte addresses of each instruction (the claim's own ``byte_addresses``), the model's total and the claimed
    total (``n``, or the ideal for ``conflict_free``)."""
    from layoutcheck.models.banks.access import byte_addresses
    from layoutcheck.models.banks.model import ideal_batch, wavefronts_batch
    from layoutcheck.properties.banks import ConflictFree, WavefrontCount
    from layoutcheck.spec.bind import build_property
    from layoutcheck.spec.load import load_spec

    claims = []
    for path in paths:
        for cfg in load_spec(str(ROOT / path)).configs:
            for req in cfg.properties:
                prop = build_property(cfg, req)
                if not isinstance(prop, ConflictFree | WavefrontCount):  # the bank claims, by class
                    continue
                addrs = byte_addresses(prop.smem, prop.access)
                kind = prop.access.kind.name
                model = int(wavefronts_batch(kind, addrs).sum())
                total = isinstance(prop, WavefrontCount)
                claimed = prop.n if total else int(ideal_batch(kind, addrs).sum())
                claims.append({"config": cfg.name, "claim": req.name, "kind": kind, "addrs": addrs,
                               "model": model, "claimed": claimed, "total": total})
    return claims


def section_corpus_ncu(out: Path) -> dict[str, Any]:
    """``corpus_ncu`` (module docstring). ``ok``: every instruction's measured wavefronts equal the model's, and every
    claim's measured total equals its claimed total."""
    from layoutcheck.gpu.probes.banks import SMEM_BYTES, run

    claims = corpus_claims()
    pats = [(c["kind"], np.asarray(a, dtype=np.int64)) for c in claims for a in c["addrs"]]
    if any(int(a.max()) >= SMEM_BYTES for _, a in pats):
        return {"ok": False, "error": f"a corpus address exceeds the probe's {SMEM_BYTES} B buffer"}
    work = out / "corpus_ncu"
    work.mkdir(exist_ok=True)
    res = run(work, pats)
    i, rows = 0, []
    for c in claims:
        n = len(c["addrs"])
        part = res[i:i + n]
        i += n
        measured = sum(r["measured"] for r in part)
        rows.append({"config": c["config"], "claim": c["claim"], "kind": c["kind"], "instructions": n,
                     "claimed": c["claimed"], "model": c["model"], "ncu": measured,
                     "per_instruction_match": sum(r["match"] for r in part),
                     "ok": measured == c["claimed"] == c["model"] and all(r["match"] for r in part)})
        print(f"{c['config']:<32} {c['claim']:<16} {c['kind']:<8} x{n:<3} claimed {c['claimed']:>4} model "
              f"{c['model']:>4} ncu {measured:>4} per-instruction {rows[-1]['per_instruction_match']}/{n}")
    (out / "corpus_ncu.json").write_text(json.dumps(rows, indent=1))
    return {"ok": bool(rows) and all(r["ok"] for r in rows), "claims": len(rows), "instructions": len(pats),
            "conflicted": [{k: r[k] for k in ("config", "kind", "claimed", "model", "ncu")}
                           for c, r in zip(claims, rows, strict=True) if c["total"]],
            "mismatched_claims": sum(not r["ok"] for r in rows)}
