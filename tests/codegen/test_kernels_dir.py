"""The top-level ``kernels/`` (issue #26): the templates the generator fills and the headers users include, shipped
in the wheel as ``layoutcheck/kernels/``. The ownership header is compiled with a C compiler against a vectors header
``layoutcheck vectors`` wrote; the layout dump header with g++ and the CUTLASS headers where they are found."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from layoutcheck.cli import main
from layoutcheck.codegen.render import KERNELS_DIR, kernel_include_dir

ROOT = Path(__file__).resolve().parents[2]
SPEC = str(ROOT / "specs" / "seed001_mma_c_fragment.toml")


def test_the_templates_and_headers_live_in_the_top_level_kernels_folder():
    assert KERNELS_DIR == ROOT / "kernels" / "templates" and kernel_include_dir() == ROOT / "kernels" / "include"
    assert sorted(KERNELS_DIR.glob("*.cu")) and not (ROOT / "layoutcheck" / "codegen" / "templates").exists()
    assert (kernel_include_dir() / "layoutcheck" / "ownership.h").is_file()


def test_the_wheel_lists_every_package_and_every_kernel_file():
    """pyproject lists the packages (the kernels mapping needs an explicit list): it must equal the tree, and the
    package-data globs must take every file of kernels/ but its README."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    tree = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "layoutcheck").rglob("__init__.py")}
    assert set(cfg["packages"]) == tree | {"layoutcheck.kernels"}
    assert cfg["package-dir"] == {"layoutcheck.kernels": "kernels"}
    globs = cfg["package-data"]["layoutcheck.kernels"]
    shipped = {p for g in globs for p in (ROOT / "kernels").glob(g)}
    files = {p for p in (ROOT / "kernels").rglob("*") if p.is_file() and p.name != "README.md"}
    assert shipped == files


C_TEST = r"""
#include <stdio.h>
#include <layoutcheck/ownership.h>
#include "v.h"
#define N (LC_M16N8K16_C_THREADS * LC_M16N8K16_C_VALUES)
#define E (LC_M16N8K16_C_ROWS * LC_M16N8K16_C_COLS)
int main(void) {
  int32_t writes[E] = {0};
  int64_t got[N], first;
  for (int t = 0; t < LC_M16N8K16_C_THREADS; ++t)      /* the kernel: the PTX fragment formula of mma.m16n8 C */
    for (int v = 0; v < LC_M16N8K16_C_VALUES; ++v) {
      int g = (t % 32) >> 2, tig = t % 4, row = g + 8 * (v >= 2), col = 2 * tig + (v & 1);
      got[t + LC_M16N8K16_C_THREADS * v] = row + LC_M16N8K16_C_ROWS * col;
      writes[row + LC_M16N8K16_C_ROWS * col] += 1;
      if (!lc_owns(lc_m16n8k16_C_owner_start, lc_m16n8k16_C_owner, got[t + LC_M16N8K16_C_THREADS * v],
                   t + LC_M16N8K16_C_THREADS * v)) return 10;
      if (lc_element(lc_m16n8k16_C_row, lc_m16n8k16_C_col, LC_M16N8K16_C_ROWS, LC_M16N8K16_C_THREADS, t, v)
          != got[t + LC_M16N8K16_C_THREADS * v]) return 11;
    }
  if (lc_cover_errors(lc_m16n8k16_C_owner_start, E, writes, &first) != 0 || first != -1) return 12;
  if (lc_map_errors(lc_m16n8k16_C_row, lc_m16n8k16_C_col, LC_M16N8K16_C_ROWS, N, got, &first) != 0) return 13;
  got[5] = got[6];                                      /* a broken kernel: pair 5 writes pair 6's element */
  writes[got[6]] += 1;
  if (lc_map_errors(lc_m16n8k16_C_row, lc_m16n8k16_C_col, LC_M16N8K16_C_ROWS, N, got, &first) != 1 || first != 5)
    return 14;
  if (lc_cover_errors(lc_m16n8k16_C_owner_start, E, writes, &first) != 1 || first != got[6]) return 15;
  if (lc_owns(lc_m16n8k16_C_owner_start, lc_m16n8k16_C_owner, got[6], 5)) return 16;
  puts("ok");
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_the_ownership_header_checks_a_kernel_against_the_vectors(tmp_path):
    assert main(["vectors", SPEC, "--config", "m16n8k16_C", "--format", "h", "-o", str(tmp_path / "v.h")]) == 0
    (tmp_path / "t.c").write_text(C_TEST)
    exe = tmp_path / "t"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", "-I", str(kernel_include_dir()), "-o", str(exe),
                    str(tmp_path / "t.c")], check=True, capture_output=True, cwd=tmp_path)
    got = subprocess.run([str(exe)], capture_output=True, text=True)
    assert (got.returncode, got.stdout) == (0, "ok\n")


def _cutlass_include() -> str | None:
    if os.environ.get("CUTLASS_INCLUDE"):
        return os.environ["CUTLASS_INCLUDE"]
    try:
        import cutlass_library
    except ImportError:
        return None
    inc = Path(cutlass_library.__file__).parent / "source" / "include"
    return str(inc) if (inc / "cute" / "layout.hpp").is_file() else None


CUDA = Path(os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include"))  # CuTe's headers include the CUDA runtime's


CPP_TEST = r"""
#include <layoutcheck/dump_layout.hpp>
using namespace cute;
int main(int argc, char** argv) {
  auto a = make_layout(make_shape(Int<8>{}, make_shape(Int<4>{}, 2)), make_stride(Int<2>{}, make_stride(16, Int<1>{})));
  auto bad = make_layout(make_shape(4, 4), make_stride(1, 2));
  bool ok = layoutcheck::dump_layout(argv[1], a) && layoutcheck::dump_layout(argv[2], bad);
  return ok && !layoutcheck::dump_layout("/proc/no/such/dir/x.txt", a) ? 0 : 1;
}
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None or _cutlass_include() is None
                    or not (CUDA / "cuda_runtime_api.h").is_file(), reason="needs g++, the CUTLASS and CUDA headers")
def test_a_dumped_cute_layout_is_checked_through_the_cute_printout_road(tmp_path):
    (tmp_path / "d.cpp").write_text(CPP_TEST)
    exe = tmp_path / "d"
    subprocess.run(["g++", "-std=c++17", "-O0", "-w", "-I", str(kernel_include_dir()), f"-I{_cutlass_include()}",
                    f"-I{CUDA}", f"-I{CUDA / 'cccl'}", "-o", str(exe), str(tmp_path / "d.cpp")], check=True,
                   capture_output=True)
    good, bad = tmp_path / "a.txt", tmp_path / "bad.txt"
    subprocess.run([str(exe), str(good), str(bad)], check=True)
    assert good.read_text() == "(8,(4,2)):(2,(16,1))\n" and bad.read_text() == "(4,4):(1,2)\n"
    assert main(["check", "-q", str(good)]) == 0  # injective, PROVEN
    assert main(["check", "-q", str(bad)]) == 1  # (4,4):(1,2) collides: REFUTED
