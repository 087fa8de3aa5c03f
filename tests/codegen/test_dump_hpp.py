"""``kernels/include/layoutcheck/dump.hpp`` (issue #28): CuTe C++ objects written as a spec that ``layoutcheck check``
reads. One translation unit (g++ -std=c++17, host only, against the CUTLASS headers the ``nvidia-cutlass`` wheel
ships and the CUDA headers CuTe includes) dumps right and wrong objects into three files; the checks must come out
PROVEN, REFUTED and ERROR (what the header cannot express) row by row, and the TV layouts it wrote must equal the
PTX ISA's fragment formulas (evaluated with pycute, not with layoutcheck) and layoutcheck's own tiled-MMA model, so
the header is checked, not trusted. The TMA part needs ``cuda.h`` and is skipped without it."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from layoutcheck.cli import main
from layoutcheck.codegen.render import kernel_include_dir

CUDA = Path(os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include"))  # CuTe's headers include the CUDA runtime's
HAS_TMA = (CUDA / "cuda.h").is_file()


def _cutlass_include() -> Path | None:
    if os.environ.get("CUTLASS_INCLUDE"):
        return Path(os.environ["CUTLASS_INCLUDE"])
    try:
        import cutlass_library
    except ImportError:
        return None
    inc = Path(cutlass_library.__file__).parent / "source" / "include"
    return inc if (inc / "cute" / "layout.hpp").is_file() else None


pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    shutil.which("g++") is None or _cutlass_include() is None or not (CUDA / "cuda_runtime_api.h").is_file(),
    reason="needs g++, the CUTLASS headers (nvidia-cutlass wheel) and the CUDA headers")]

CPP = r"""
#include <cstdio>
#include <fstream>
#include <layoutcheck/dump.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/atom/copy_traits_sm80.hpp>
using namespace cute;

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  using A16 = Copy_Atom<UniversalCopy<uint128_t>, half_t>;
  auto sA = tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(Int<128>{}, Int<64>{}));
  auto sB = tile_to_shape(GMMA::Layout_MN_SW128_Atom<half_t>{}, make_shape(Int<128>{}, Int<64>{}));
  auto mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{});
  auto mma_perm = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{},
                                 Tile<_32, Layout<Shape<_8,_2,_2>, Stride<_1,_16,_8>>, _16>{});
  auto gmma = make_tiled_mma(SM90_64x128x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::K>{});
  auto g2s = make_tiled_copy(A16{}, Layout<Shape<_16,_8>, Stride<_8,_1>>{}, Layout<Shape<_1,_8>>{});

  {  // argv[1]: every object right -- a whole file through the ostream overloads
    std::ofstream f(argv[1]);
    layoutcheck::header(f, "dump.hpp: right objects");
    layoutcheck::dump<half_t>(f, "sA", sA);
    layoutcheck::dump(f, "sB bytes", sB);                      // no dtype: kind layout; the space becomes _
    layoutcheck::dump(f, "plain", make_layout(make_shape(Int<8>{}, 64), make_stride(64, Int<1>{})));
    layoutcheck::dump(f, "mma", mma);
    layoutcheck::dump(f, "mma_perm", mma_perm);
    layoutcheck::dump(f, "gmma", gmma);
    layoutcheck::dump(f, "g2s", g2s);
#if __has_include(<cuda.h>)
    half_t* p = nullptr;
    auto gA = make_tensor(make_gmem_ptr(p), make_shape(4096, 1024), make_stride(1024, Int<1>{}));  // K-major
    layoutcheck::dump(f, "tma_a", make_tma_copy(SM90_TMA_LOAD{}, gA, sA), gA, sA);
    auto gB = make_tensor(make_gmem_ptr(p), make_shape(2048, 1024, 8), make_stride(Int<1>{}, 2048, 2048 * 1024));
    auto tma_b = make_tma_copy(SM90_TMA_LOAD_MULTICAST{}, gB, sB, make_shape(Int<128>{}, Int<64>{}), Int<2>{});
    layoutcheck::dump(f, "tma_b", tma_b, gB, sB);
#endif
  }
  {  // argv[2]: wrong objects -- through the FILE* overloads
    std::FILE* f = std::fopen(argv[2], "w");
    std::fputs("format = 1\n", f);
    auto rows_overlap = composition(Swizzle<3,3,3>{}, make_layout(make_shape(Int<8>{}, Int<64>{}),
                                                                  make_stride(Int<32>{}, Int<1>{})));
    bool ok = layoutcheck::dump<half_t>(f, "swizzled_overlap", rows_overlap);
    // a 32 x 8 thread-value map on a 16 x 32 tiler: half the tile is copied by nobody
    ok = ok && layoutcheck::dump(f, "copy_holes", make_tiled_copy_impl(A16{}, Layout<Shape<_32,_8>, Stride<_8,_1>>{},
                                                                        Shape<_16,_32>{}));
#if __has_include(<cuda.h>)
    half_t* p = nullptr;
    auto gB = make_tensor(make_gmem_ptr(p), make_shape(2048, 1024, 8), make_stride(Int<1>{}, 2048, 2048 * 1024));
    auto tma_b = make_tma_copy(SM90_TMA_LOAD_MULTICAST{}, gB, sB, make_shape(Int<128>{}, Int<64>{}), Int<2>{});
    ok = ok && layoutcheck::dump(f, "tma_b_read_k_major", tma_b, gB, sA);  // the kernel reads the box K-major
#endif
    std::fclose(f);
    if (!ok) return 3;
  }
  // argv[3]: what the header cannot express -- a whole file through the path overload
  auto two_layouts = make_composed_layout(make_layout(make_shape(Int<8>{}, Int<8>{})), Int<0>{},
                                          make_layout(Int<64>{}));
  if (!layoutcheck::dump(argv[3], "two_layouts", two_layouts)) return 4;
  {
    std::ofstream f(argv[3], std::ios::app);
    layoutcheck::dump<float>(f, "sA_as_f32", sA);          // the swizzle is built for 16-bit elements
    layoutcheck::dump(f, "mma_row_major", make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{},
                                                         Layout<Shape<_2,_2,_1>, Stride<_2,_1,_0>>{}));
    layoutcheck::dump(f, "identity", make_identity_layout(make_shape(4, 4)));
  }
  return layoutcheck::dump("/proc/no/such/dir/x.toml", "x", sA) ? 5 : 0;  // an unwritable path: false
}
"""


@pytest.fixture(scope="module")
def dumped(tmp_path_factory) -> dict[str, Path]:
    """Compile the one translation unit and run it: the three spec files it writes."""
    d = tmp_path_factory.mktemp("dump_hpp")
    (d / "d.cpp").write_text(CPP)
    exe = d / "d"
    # the header itself compiles warning-free (-Wall -Wextra -Werror); CUTLASS's and CUDA's own are system headers
    cmd = ["g++", "-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", "-I", str(kernel_include_dir()),
           "-isystem", str(_cutlass_include()), "-isystem", str(CUDA), "-isystem", str(CUDA / "cccl"),
           "-o", str(exe), str(d / "d.cpp")]
    built = subprocess.run(cmd, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-4000:]
    files = {k: d / f"{k}.toml" for k in ("good", "broken", "unexpressible")}
    assert subprocess.run([str(exe), *map(str, files.values())]).returncode == 0
    return files


def _rows(path: Path, tmp: Path) -> dict[str, tuple[str, str]]:
    """``config -> (status, detail)`` of ``layoutcheck check --json``."""
    out = tmp / (path.stem + ".json")
    main(["check", "-q", "--include-broken", str(path), "--json", str(out)])
    rows = json.loads(out.read_text())
    rows = rows["results"] if isinstance(rows, dict) else rows
    return {r["config"]: (r["status"], json.dumps(r)) for r in rows}


def test_every_right_object_is_proven(dumped, tmp_path):
    assert main(["check", "-q", str(dumped["good"])]) == 0
    rows = _rows(dumped["good"], tmp_path)
    want = {"sA", "sB_bytes", "plain", *(f"{m}.{p}" for m in ("mma", "mma_perm", "gmma")
                                          for p in ("C", "A", "B", "model_C", "model_A", "model_B")),
            "g2s.S", "g2s.D"} | ({"tma_a", "tma_b"} if HAS_TMA else set())
    assert set(rows) == want and {s for s, _ in rows.values()} == {"PROVEN"}


def test_every_wrong_object_is_refuted(dumped, tmp_path):
    assert main(["check", "-q", str(dumped["broken"])]) == 1
    rows = _rows(dumped["broken"], tmp_path)
    want = {"swizzled_overlap", "copy_holes.S", "copy_holes.D"} | ({"tma_b_read_k_major"} if HAS_TMA else set())
    assert set(rows) == want and {s for s, _ in rows.values()} == {"REFUTED"}
    assert "(0,16)" in rows["copy_holes.S"][1]  # the first element nobody copies, in tile coordinates


def test_what_the_header_cannot_express_is_an_error_naming_it(dumped, tmp_path):
    rows = _rows(dumped["unexpressible"], tmp_path)
    assert rows["two_layouts"][0] == "ERROR" and "outer function is not a Swizzle" in rows["two_layouts"][1]
    assert rows["sA_as_f32"][0] == "ERROR" and "built for 16-bit elements" in rows["sA_as_f32"][1]
    assert rows["identity"][0] == "ERROR" and "not an integer" in rows["identity"][1]
    # a row-major atom layout: CuTe's TV layouts are still checked, layoutcheck's model cannot be written
    assert {rows[f"mma_row_major.{p}"][0] for p in "CAB"} == {"PROVEN"}
    assert {rows[f"mma_row_major.model_{p}"][0] for p in "CAB"} == {"ERROR"}
    assert "not a column-major" in rows["mma_row_major.model_C"][1]


def _configs(path: Path) -> dict[str, dict]:
    return {c["name"]: c for c in tomllib.loads(path.read_text())["config"]}


def _ptx_m16n8k16(operand: str, lane: int, i: int) -> tuple[int, int]:
    """PTX ISA 9.7.14.5.8 (mma.m16n8k16, .f16): the (row, col) of fragment element ``i`` of ``lane``; A is M x K,
    B is K x N (returned as (n, k)), C is M x N. Written from the ISA's figures, independent of CuTe."""
    g, tig = lane // 4, lane % 4
    if operand == "C":
        return g + 8 * (i // 2), 2 * tig + i % 2
    if operand == "A":
        return g + 8 * (i // 2 % 2), 2 * tig + i % 2 + 8 * (i // 4)
    return g, 2 * tig + i % 2 + 8 * (i // 2)  # B: (n, k)


def test_the_tiled_mma_tv_layouts_equal_the_ptx_fragments_and_the_model(dumped):
    """SM80_16x8x16_F32F16F16F32_TN x (2,2,1): thread t = lane + 32*(wm + 2*wn) computes atom (wm, wn); the dumped
    TV layouts, evaluated by pycute, give every (thread, value) the element the PTX fragment formula gives it; and
    layoutcheck's own model of the same TiledMMA computes the same maps."""
    pycute = pytest.importorskip("pycute")
    from layoutcheck.algebra.notation import parse_layout
    from layoutcheck.models.tiled_mma import make_tiled_mma

    cfg = _configs(dumped["good"])
    model = make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1))
    for op, values in (("C", 4), ("A", 8), ("B", 4)):
        text = cfg[f"mma.{op}"]["tv"]
        shape, stride = (ast.literal_eval(p) for p in text.split(":"))  # pycute reads the text, not layoutcheck
        tv = pycute.Layout(shape, stride)
        assert pycute.size(tv) == 128 * values
        for t in range(128):
            lane, wm, wn = t % 32, t // 32 % 2, t // 64
            for v in range(values):
                r, c = _ptx_m16n8k16(op, lane, v)
                want = {"C": (16 * wm + r) + 32 * (8 * wn + c), "A": (16 * wm + r) + 32 * c,
                        "B": (8 * wn + r) + 16 * c}[op]
                assert tv((t, v)) == want, (op, t, v)
        ours = {"C": model.tv_layout_C, "A": model.tv_layout_A, "B": model.tv_layout_B}[op]
        assert ours.offsets().tolist() == parse_layout(text).offsets().tolist()


@pytest.mark.skipif(not HAS_TMA, reason="needs cuda.h for CuTe's TMA")
def test_the_tma_configs_hold_the_encode_arguments_cute_computes(dumped):
    """K-major A: one 64 x 128 box (K innermost) of a 4096 x 1024 f16 tensor, rows 2048 bytes apart; MN-major,
    batched B multicast over 2 CTAs: the 64 x 8 box CuTe's SW128 MN atom allows, halved along its last non-unit dim."""
    cfg = _configs(dumped["good"])
    a, b = cfg["tma_a"], cfg["tma_b"]
    assert (a["box"], a["global_shape"], a["global_strides"], a["swizzle"], a["modes"]) == \
        ([64, 128], [1024, 4096], [2048], "128B", [1, 0])
    assert (b["box"], b["global_shape"], b["global_strides"], b["modes"]) == \
        ([64, 4, 1], [2048, 1024, 8], [4096, 2 * 2048 * 1024], [0, 1, 2])
    assert b["smem_layout"].startswith("Sw<3,3,3> o 0 o ")  # Sw<3,4,3> of byte addresses, in f16 units


def test_names_are_sanitised_and_headers_written(dumped):
    good = dumped["good"].read_text()
    assert good.startswith("# written by layoutcheck/dump.hpp") and 'name = "sB_bytes"' in good
    assert "# mma: TiledMMA cute::SM80_16x8x16_F32F16F16F32_TN" in good
    assert "ThrLayoutVMNK:  (32,2,2,1):(1,32,64,0)" in good
    assert dumped["unexpressible"].read_text().startswith("# written by layoutcheck/dump.hpp")
