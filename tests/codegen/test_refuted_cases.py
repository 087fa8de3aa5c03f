"""#28 item 5 on the CPU: REFUTED configurations become kernels, the model's full prediction of what goes wrong, and
the comparison with fake GPU outputs; the report marks confirmed rows. (The GPU run is tests/gpu/test_refuted_gpu.py.)

The fake GPU runs the *generated kernel's* index expression (the ``off = ...`` line of its source, through the C
interpreter ``expr.c.eval_c``) for every thread and value in launch order, as the kernel does: the last writer of an
element keeps it, every write counts. The naive oracle of the prediction is pycute (CuTe's own semantics)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from functools import cache

import numpy as np
import pycute
import pytest

from layoutcheck.codegen.refuted_cases import confirm, ownership_prediction, refuted_cases
from layoutcheck.expr.c import eval_c

PATHS = ["specs/broken", "specs/zoo"]


@cache
def _all():
    return refuted_cases(PATHS)


def _fake_gpu(case):
    """(owner, count) the ownership kernel writes, from its source's index expression."""
    T = case.block
    values = int(re.search(r"v < (\d+)u", case.source).group(1))
    expr = re.search(r"const unsigned off = (.*);", case.source).group(1)
    owner_writes, counts = {}, {}
    for v in range(values):
        offs = eval_c(expr, {"t": np.arange(T), "v": v, "b": 0})
        for t, e in enumerate(np.broadcast_to(offs, (T,)).tolist()):
            owner_writes[e] = t + T * v
            counts[e] = counts.get(e, 0) + 1
    return owner_writes, counts


def _arrays(case, size):
    ow, ct = _fake_gpu(case)
    owner, count = np.zeros(size, np.uint32), np.zeros(size, np.uint32)
    for e, o in ow.items():
        owner[e] = o
    for e, c in ct.items():
        count[e] = c
    return owner, count


def test_every_refuted_row_is_listed_and_the_partitions_are_instantiated() -> None:
    from layoutcheck.check import check_paths

    rows = [r for r in check_paths(PATHS, include_broken=True) if r.status == "REFUTED"]
    got = _all()
    assert sorted((r.file, r.line, r.config, r.property) for r in rows) == \
        sorted((c.file, c.line, c.config, c.property) for c in got)
    inst = [c for c in got if c.prediction is not None]
    names = {c.config for c in inst}
    assert {"c_fragment_overlap", "simt_thread_overlap", "c_fragment_swapped_lane_bits",
            "split_k_double_write"} <= names
    assert all(c.reason for c in got if not c.instantiated)
    banked = {c.config for c in got if c.bank_patterns}
    assert {"linear_K_major_ldsm", "wrong_swizzle_base", "too_narrow_swizzle_for_tile", "transpose_write_no_xor",
            "transpose_rowmajor_read_cols"} <= banked
    oob = next(c for c in got if c.config == "tile_not_a_multiple_of_the_atom")
    assert oob.case is None and "out-of-bounds" in oob.reason  # never launched: it would store outside the buffer


def test_prediction_equals_pycute_enumeration() -> None:
    """The predicted owner counts equal a naive enumeration of the TV layout with pycute (CuTe's semantics)."""
    for rc in _all():
        if rc.prediction is None or rc.file.endswith("ownership.toml"):
            continue
        m = re.search(r"TV (\S+) over tile", rc.case.source)
        shape, stride = _parse_layout(m.group(1))
        lay = pycute.Layout(shape, stride)
        n = rc.tile[0] * rc.tile[1]
        naive = np.zeros(n, np.int64)
        for i in range(pycute.size(lay)):
            naive[lay(i)] += 1
        assert (naive == rc.prediction.count).all(), rc.label


def _parse_layout(text: str):
    shape, stride = text.split(":")
    to = lambda s: eval(s.replace("(", "(").replace(")", ",)").replace(",,", ","))  # noqa: E731
    return _untuple(to(shape)), _untuple(to(stride))


def _untuple(x):
    if isinstance(x, tuple):
        return x[0] if len(x) == 1 and not isinstance(x[0], tuple) else tuple(_untuple(y) for y in x)
    return x


def test_fake_gpu_confirms_every_instantiated_row() -> None:
    for rc in _all():
        if rc.prediction is None:
            continue
        owner, count = _arrays(rc.case, rc.prediction.count.size)
        ok, detail = confirm(rc.prediction, owner, count, rc.witness)
        assert ok, (rc.label, detail)
        assert rc.prediction.wrong.size > 0
        assert int(rc.witness["y"]) in set(rc.prediction.wrong.tolist())  # the first witness is one of them


def test_a_gpu_that_disagrees_is_not_confirmed() -> None:
    rc = next(c for c in _all() if c.config == "c_fragment_overlap")
    owner, count = _arrays(rc.case, 128)
    wrong = rc.prediction.wrong
    c2 = count.copy()
    c2[wrong[-1]] = 1  # one of the predicted wrong elements comes out right
    ok, detail = confirm(rc.prediction, owner, c2, rc.witness)
    assert not ok and f"element {wrong[-1]}" in detail
    o2 = owner.copy()
    e = int(np.flatnonzero(rc.prediction.count == 1)[0])
    o2[e] = (o2[e] + 1) % 128  # right count, wrong owner: a misplaced element
    ok, detail = confirm(rc.prediction, o2, count, rc.witness)
    assert not ok and "holds owner" in detail
    ok, detail = confirm(rc.prediction, owner, count, {"y": int(np.flatnonzero(rc.prediction.count == 1)[0]),
                                                        "count": 2})
    assert not ok and "witness" in detail


def test_prediction_of_a_hand_built_partition() -> None:
    from layoutcheck.algebra.layout import Layout

    pred = ownership_prediction(Layout((4, 2), (1, 2)), (3, 3))  # offsets i + 2j: 2, 3 doubly owned, 6-8 missed
    assert pred.count.tolist() == [1, 1, 2, 2, 1, 1, 0, 0, 0]
    assert pred.wrong.tolist() == [2, 3, 6, 7, 8]
    assert pred.owners[2] == frozenset({2, 4})


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_refuted_kernels_compile_for_sm90a(tmp_path) -> None:
    cases = [rc.case for rc in _all() if rc.prediction is not None]
    for c in cases:
        (tmp_path / f"{c.name}.cu").write_text(c.source)
    procs = [subprocess.Popen(["nvcc", "-arch=sm_90a", "-std=c++17", "-Werror", "all-warnings", "-c",
                               f"{c.name}.cu", "-o", f"{c.name}.o"], cwd=tmp_path, stderr=subprocess.PIPE,
                              text=True) for c in cases]
    errs = [(c.name, p.communicate()[1]) for c, p in zip(cases, procs, strict=True) if p.wait() != 0]
    assert not errs, errs


def _fake_ncu(patterns, out):
    """The naive bank oracle of tests/semantics (written from the hardware's bank rules, no layoutcheck code)."""
    from tests.semantics.test_sem_banks import _cost

    return [_cost(kind, [int(x) for x in a])[0] for kind, a in patterns]


def test_bank_rows_predict_the_witness_count_and_a_naive_ncu_confirms_them() -> None:
    from layoutcheck.codegen.refuted_cases import confirm_banks

    for rc in _all():
        if not rc.bank_patterns:
            continue
        assert rc.bank_patterns[0][2] == rc.witness["wavefronts"] > rc.witness["ideal"]
        measured = _fake_ncu([(k, a) for k, a, _ in rc.bank_patterns], None)
        assert confirm_banks(rc, measured)[0], rc.label
        measured[0] = rc.witness["ideal"]  # silicon conflict-free where the model says conflicted
        ok, detail = confirm_banks(rc, measured)
        assert not ok and "instruction 0" in detail


def test_results_document_and_html_marks(tmp_path) -> None:
    from layoutcheck.check import check_paths
    from layoutcheck.gpu.refuted import format_rows, results
    from layoutcheck.report.gpu_results import parse_gpu_results
    from layoutcheck.report.html import to_html

    def fake_run(rc):
        owner, count = _arrays(rc.case, rc.prediction.count.size)
        ok, detail = confirm(rc.prediction, owner, count, rc.witness)
        return ("confirmed" if ok else "not confirmed"), detail

    doc = results(["specs/broken/doubly_owned.toml", "specs/broken/ownership.toml",
                   "specs/broken/conflicted_swizzle.toml"], "FAKE H100", fake_run, _fake_ncu, tmp_path)
    assert doc["summary"]["confirmed"] == 6 and doc["summary"]["not confirmed"] == 0
    assert "6 confirmed on FAKE H100" in format_rows(doc)
    failing = results(["specs/broken/conflicted_swizzle.toml"], "FAKE", fake_run,
                      lambda p, o: (_ for _ in ()).throw(FileNotFoundError("ncu")), tmp_path)
    assert failing["summary"]["not confirmed"] == 3 and "ncu measurement failed" in failing["rows"][0]["detail"]
    gpu = parse_gpu_results(json.loads(json.dumps(doc)))
    rows = check_paths(["specs/broken/doubly_owned.toml"], include_broken=True)
    page = to_html(rows, gpu=gpu)
    assert page.count("confirmed on FAKE H100") == 2  # exact_cover of both configs; not 'injective'
    (tmp_path / "r.json").write_text(json.dumps(doc))
    from layoutcheck.cli import main

    assert main(["check", "--include-broken", "specs/broken/doubly_owned.toml", "--html", str(tmp_path / "r.html"),
                 "--gpu-results", str(tmp_path / "r.json"), "-q"]) == 1
    assert (tmp_path / "r.html").read_text().count('data-gpu="confirmed"') == 2


def test_gpu_results_flag_errors(tmp_path) -> None:
    from layoutcheck.cli import main

    (tmp_path / "bad.json").write_text("{}")
    assert main(["check", "specs/broken/doubly_owned.toml", "--html", str(tmp_path / "r.html"), "--gpu-results",
                 str(tmp_path / "bad.json"), "-q"]) == 2
    assert main(["check", "specs/broken/doubly_owned.toml", "--gpu-results", str(tmp_path / "bad.json"),
                 "-q"]) == 2


def test_validate_refuted_fails_cleanly_without_a_gpu(tmp_path) -> None:
    pytest.importorskip("numpy")
    try:
        import cupy  # noqa: F401

        pytest.skip("CuPy present: the GPU test runs this section")
    except ImportError:
        pass
    from layoutcheck.gpu.validate import main

    assert main([str(tmp_path), "--only", "refuted", "--only", "vectors_device"]) == 1
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert all("no GPU" in s["error"] for s in summary["sections"].values())


# -- wgmma descriptor read-outs ----------------------------------------------------------------------------------------
def _fake_wgmma(case, major: str) -> np.ndarray:
    """The read-out kernel's raw dump as a naive wgmma would leave it: per K-block, the descriptor words decoded by
    the naive decoder of tests/semantics/test_sem_descriptors (PTX ISA canonical layouts, written from the ISA), the
    bytes read from the kernel's own shared-memory image (zero-filled, A and B stored at addrA / addrB)."""
    from layoutcheck.algebra.layout import size
    from layoutcheck.hw.mma import mma_atom
    from layoutcheck.models.tiled_mma import make_tiled_mma
    from tests.semantics.test_sem_descriptors import bits, canonical_bytes, xor_swizzle
    from tests.strategies_sem_descriptors import GMMA_MODES

    gA, gB, addr_a, addr_b, da, db, _ = case.inputs(np)
    K = int(re.search(r"kb < (\d+)u", case.source).group(1)) * 16
    N = int(re.search(r"m64n(\d+)k16", case.source).group(1))
    smem = int(re.search(r"smem\[(\d+)\]", case.source).group(1))
    image = np.zeros(smem // 2, np.float32)
    image[addr_a.astype(np.int64) // 2] = gA.view(np.float16).astype(np.float32)
    image[addr_b.astype(np.int64) // 2] = gB.view(np.float16).astype(np.float32)

    def read(word: int, maj: str, mn_ext: int) -> np.ndarray:
        start, lbo, sbo, b, code = 16 * bits(word, 0, 14), 16 * bits(word, 16, 14), 16 * bits(word, 32, 14), \
            bits(word, 49, 3), bits(word, 62, 2)
        units, sw = GMMA_MODES[code]
        period = 1 << sum(sw) if sw else 1
        anchor = (128 * b) % period if sw else 0
        p = start - ((start - anchor) % period) if sw else 0
        out = np.empty((mn_ext, 16), np.float32)
        for mn in range(mn_ext):
            for k in range(16):
                a = p + xor_swizzle(start - p + canonical_bytes(maj, 2, units, 8, lbo, sbo, mn, k), sw)
                out[mn, k] = image[a // 2]
        return out

    A = np.concatenate([read(int(w), major, 64) for w in da], axis=1)  # [m, k]
    B = np.concatenate([read(int(w), "K", N) for w in db], axis=1)  # [n, k]
    C = A @ B.T
    atom = mma_atom(f"SM90_64x{N}x16_F32F16F16_SS")
    nacc = size(atom.tv_layout_C[1])
    elem = make_tiled_mma(atom).tv_layout_C.offsets().reshape(nacc, 128).T
    assert A.shape[1] == K
    return C.T.reshape(-1)[elem].reshape(-1)


def test_readout_rows_are_instantiated_and_a_naive_wgmma_confirms_them() -> None:
    from layoutcheck.codegen.refuted_cases import confirm_readout
    from layoutcheck.codegen.wgmma_cases import readout_c

    ro = [rc for rc in _all() if rc.readout is not None and rc.readout_dump]  # the TMA row: the next test
    assert {(rc.config, rc.property) for rc in ro} >= {
        ("unaligned_stage_without_base_offset", "gmma_addresses"), ("unaligned_stage_without_base_offset",
                                                                    "gmma_fields"),
        ("base_offset_3_on_a_tma_written_stage", "gmma_addresses"), ("tma_64B_wgmma_128B", "gmma_addresses")}
    for rc in ro:
        predicted, stored = rc.readout
        raw = _fake_wgmma(rc.case, rc.readout_major)
        ok, detail = confirm_readout(rc, readout_c(raw, predicted.shape[1]))
        assert ok, (rc.label, detail)
        if rc.witness.get("kind") == "place":  # the counterexample's element is among the wrong ones
            from layoutcheck.models.gmma import block_crd

            m, k = block_crd(64, (64, 16), rc.witness["block"], rc.witness["i"])
            assert predicted[m, k] != stored[m, k]
        bad = raw.copy()
        bad[0] += 1  # one accumulator off: not confirmed, and the element is named
        assert not confirm_readout(rc, readout_c(bad, predicted.shape[1]))[0]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_readout_kernels_compile_for_sm90a(tmp_path) -> None:
    cases = [rc.case for rc in _all() if rc.readout is not None][:2]
    for c in cases:
        (tmp_path / f"{c.name}.cu").write_text(c.source)
        r = subprocess.run(["nvcc", "-gencode", "arch=compute_90a,code=sm_90a", "-std=c++17", "-Werror",
                            "all-warnings", "-c", f"{c.name}.cu", "-o", f"{c.name}.o"], cwd=tmp_path,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def _naive_tma_image(box, base_bytes: int, rows: int, cols: int, values: np.ndarray, image: np.ndarray) -> None:
    """TMA tiled loads of a ``rows x cols`` K-major f16 tile in boxes of ``box.box_dims`` (inner K first), box ``q``
    landing at ``base + q * box_bytes``, each 16-byte chunk moved by the swizzle pattern on the shared address
    (CUDA driver API, CU_TENSOR_MAP_SWIZZLE_*: byte bits [4,7) ^= bits [7,10) for 128B, [4,6) ^= [7,9) for 64B,
    bit 4 ^= bit 7 for 32B). ``values[m, k]``."""
    sw = {"128B": (3, 4, 3), "64B": (2, 4, 3), "32B": (1, 4, 3)}.get(box.swizzle.replace("SWIZZLE_", ""))
    inner, outer = box.box_dims[0], box.box_dims[1]
    for q in range(cols // inner):
        for r in range(min(rows, outer)):
            for c in range(inner):
                off = base_bytes + q * inner * outer * 2 + r * inner * 2 + 2 * c
                image[xor_swizzle_bytes(off, sw) // 2] = values[r, q * inner + c]


def xor_swizzle_bytes(x: int, sw):
    from tests.semantics.test_sem_descriptors import xor_swizzle

    return xor_swizzle(x, sw)


def test_tma_readout_row_is_confirmed_by_naive_tma_and_wgmma() -> None:
    from layoutcheck.codegen.refuted_cases import confirm_readout
    from tests.semantics.test_sem_descriptors import bits, canonical_bytes, xor_swizzle
    from tests.strategies_sem_descriptors import GMMA_MODES

    rc = next(c for c in _all() if c.config == "tma_64B_wgmma_128B" and c.property == "tma_wgmma")
    assert rc.case is not None and not rc.readout_dump
    src, (ga, gb, *_rest) = rc.case.source, rc.case.inputs(np)
    image = np.zeros(8192, np.float32)  # 2-byte words: A at byte 0, B at byte 8192 (both 1024-aligned)
    A = ga.view(np.float16).astype(np.float32).reshape(64, 64)  # K-major: [m, k]
    B = gb.view(np.float16).astype(np.float32).reshape(64, 64)  # [n, k]
    (_, _, box_a), (_, _, box_b) = rc.case.tensor_maps
    _naive_tma_image(box_a, 0, 64, 64, A, image)
    _naive_tma_image(box_b, 8192, 64, 64, B, image)
    d_a0 = int(re.search(r"desc_a0 = (0x[0-9a-f]+)ull", src).group(1), 16)
    d_b0 = int(re.search(r"desc_b0 = (0x[0-9a-f]+)ull", src).group(1), 16) + 8192 // 16
    off_a = re.search(r"desc_a = desc_a0 \+ \(\((.*)\) >> 4\);", src).group(1)
    off_b = re.search(r"desc_b = desc_b0 \+ \(\((.*)\) >> 4\);", src).group(1)

    def read(word: int, mn_ext: int) -> np.ndarray:
        start, lbo, sbo, b, code = 16 * bits(word, 0, 14), 16 * bits(word, 16, 14), 16 * bits(word, 32, 14), \
            bits(word, 49, 3), bits(word, 62, 2)
        units, sw = GMMA_MODES[code]
        period = 1 << sum(sw) if sw else 1
        p = start - ((start - (128 * b) % period) % period) if sw else 0
        return np.array([[image[(p + xor_swizzle(start - p + canonical_bytes("K", 2, units, 8, lbo, sbo, mn, k),
                                                 sw)) // 2] for k in range(16)] for mn in range(mn_ext)])

    Ar = np.concatenate([read(d_a0 + (int(eval_c(off_a, {"kb": kb, "wg": 0})) >> 4), 64) for kb in range(4)], 1)
    Br = np.concatenate([read(d_b0 + (int(eval_c(off_b, {"kb": kb})) >> 4), 64) for kb in range(4)], 1)
    assert (Br == B).all()  # B's descriptors describe what its TMA wrote
    ok, detail = confirm_readout(rc, Ar @ Br.T)
    assert ok, detail


def test_an_unsound_permutation_gives_a_row_without_a_kernel_not_a_crash(tmp_path) -> None:
    # a tiled MMA whose permutation is no injective tiler is REFUTED before any partition exists: nothing to launch
    from layoutcheck.codegen.refuted_cases import refuted_cases

    f = tmp_path / "perm.toml"
    f.write_text('format = 1\nexpect = "refuted"\n[[config]]\nname = "p"\nkind = "tiled_mma"\n'
                 'atom = "SM80_16x8x16_F32F16F16F32_TN"\natom_layout = [2, 2, 1]\n'
                 'permutation = ["(16,2):(2,16)", 32, 16]\ntile = [32, 32, 16]\nproperties = ["exact_cover"]\n')
    (rc,) = refuted_cases([str(f)])
    assert rc.case is None and "not an injective tiler" in rc.reason
