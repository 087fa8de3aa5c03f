"""#28 item 6: ``layoutcheck vectors --format h`` in device code -- the header's ``__device__`` copies compile in a
``__global__`` function with nvcc (skipped without nvcc), the host arrays still compile as C99, and the
``vectors_device`` case's compare counts wrong elements given fake GPU outputs."""

import shutil
import subprocess

import numpy as np
import pytest

from layoutcheck.codegen.render import kernel_include_dir
from layoutcheck.codegen.vectors_case import vectors_device_case, vectors_header
from layoutcheck.hw.mma import mma_atom

NVCC = shutil.which("nvcc")


def _header(monkeypatch, chunk: int) -> str:
    import layoutcheck.report.vectors as v

    monkeypatch.setattr(v, "CHUNK", chunk)  # several continuation lines per data macro
    tv = mma_atom("SM80_16x8x16_F32F16F16F32_TN").tv_layout_C
    return vectors_header("m16n8k16_C", tv, (16, 8))


def test_header_host_arrays_compile_as_c99(tmp_path, monkeypatch):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    (tmp_path / "v.h").write_text(_header(monkeypatch, 7))
    (tmp_path / "t.c").write_text('#include "v.h"\n#include <layoutcheck/ownership.h>\n'
                                  "int main(void) { int64_t first;\n"
                                  "  return (int)lc_map_errors(lc_m16n8k16_C_row, lc_m16n8k16_C_col, 16, 0, 0, &first)"
                                  " + lc_m16n8k16_C_owner[0]; }\n")
    r = subprocess.run([cc, "-std=c99", "-Wall", "-Werror", f"-I{kernel_include_dir()}", "-c", "t.c", "-o", "t.o"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_header_device_copies_compile_in_a_global_function(tmp_path, monkeypatch):
    (tmp_path / "v.h").write_text(_header(monkeypatch, 7))
    (tmp_path / "k.cu").write_text(
        '#include "v.h"\n#include <layoutcheck/ownership.h>\n'
        "__global__ void k(int64_t* out) { out[threadIdx.x] = lc_element(lc_m16n8k16_C_row_dev, "
        "lc_m16n8k16_C_col_dev, LC_M16N8K16_C_ROWS, LC_M16N8K16_C_THREADS, threadIdx.x, 0); }\n")
    r = subprocess.run([NVCC, "-arch=sm_90a", "-std=c++17", "-Werror", "all-warnings", f"-I{kernel_include_dir()}",
                        "-c", "k.cu", "-o", "k.o"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_vectors_device_case_compiles(tmp_path):
    case = vectors_device_case()
    (tmp_path / "k.cu").write_text(case.source)
    r = subprocess.run([NVCC, "-arch=sm_90a", "-std=c++17", *(f"-I{d}" for d in case.include_dirs), "-c", "k.cu",
                        "-o", "k.o"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_vectors_device_compare_with_fake_outputs():
    case = vectors_device_case()
    tv = mma_atom("SM80_16x8x16_F32F16F16F32_TN").tv_layout_C
    elem = tv.offsets().astype(np.int64)  # at the owner id t + T*v, as the kernel writes
    owns = np.ones(128, np.int32)
    assert case.compare([elem, owns], np)[:2] == (128, 0)
    bad = elem.copy()
    bad[[3, 77]] += 1
    owns[5] = 0
    assert case.compare([bad, owns], np)[:2] == (128, 3)
