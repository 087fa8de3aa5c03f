"""Regenerate ``umma_descriptors.json`` and ``tmem_atoms.json`` from CUTLASS's own host-side code.

Not a test: a script run by hand when the tables should be refreshed. It writes a C++17 program that includes
CUTLASS's SM100 headers, builds the descriptors / copy traits for a table of inputs with CUTLASS's functions
(``UMMA::make_umma_desc``, ``UMMA::make_instr_desc``, ``make_instr_desc_block_scaled``,
``make_runtime_instr_desc_block_scaled``, ``Copy_Traits<SM100_TMEM_*>``) and prints one JSON line per input.
The program contains no CUTLASS code, only calls into it; host-only: ``cast_smem_ptr_to_uint`` is made the identity.

    python3 tests/data/cutlass_sm100_harness.py /path/to/cutlass [--cuda /usr/local/cuda] [--out tests/data]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path

CPP_T = {"f16": "half_t", "bf16": "bfloat16_t", "tf32": "tfloat32_t", "e4m3": "float_e4m3_t",
         "e5m2": "float_e5m2_t", "s8": "int8_t", "u8": "uint8_t", "f32": "float", "s32": "int32_t",
         "e2m1": "float_e2m1_t", "ue8m0": "float_ue8m0_t", "ue4m3": "float_ue4m3_t", "e2m3": "cutlass::float_e2m3_t",
         "e3m2": "cutlass::float_e3m2_t"}
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "s8": 8}
K_MMA = {16: 16, 32: 8, 8: 32}  # 256 bits of K per MMA
MJ = {"K": "UMMA::Major::K", "MN": "UMMA::Major::MN"}
SPAN = {"INTER": 16, "SW32": 32, "SW64": 64, "SW128": 128, "SW128_32B": 128}

PRELUDE = r'''
#include <cstdio>
#include <cstdint>
#include <cstddef>
static inline std::size_t host_cvta(const void* p) { return (std::size_t)p; }
#define CUTE_CVTA_GENERIC_TO_SHARED_ACTIVATED 1
#define __cvta_generic_to_shared host_cvta
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm100.hpp>
#include <cute/atom/copy_traits_sm100.hpp>
#include <cutlass/detail/sm100_blockscaled_layout.hpp>
using namespace cute;
template <class L> void pl(const char* k, L const& l) { printf("\"%s\": \"", k); print(l); printf("\", "); }
template <UMMA::Major MJ, class T, class Atom, int MN, int KT, int KM, int KB>
void smem(const char* dt, const char* mj, const char* atom, unsigned addr) {
  auto L = tile_to_shape(Atom{}, make_shape(Int<MN>{}, Int<KT>{}));
  Tensor s = make_tensor(make_smem_ptr((T*)(std::size_t)addr), L);
  Tensor x = flat_divide(s, make_shape(Int<MN>{}, Int<KM>{}))(_, _, 0, KB);
  uint64_t v = UMMA::make_umma_desc<MJ>(x);
  printf("{\"kind\": \"smem\", \"dtype\": \"%s\", \"major\": \"%s\", \"atom\": \"%s\", \"mn\": %d, \"k_tile\": %d, "
         "\"k_mma\": %d, \"k_block\": %d, \"base_address\": %u, ", dt, mj, atom, MN, KT, KM, KB, addr);
  pl("tile_layout", L); pl("slice_layout", x.layout());
  printf("\"slice_offset_bytes\": %lld, \"value\": \"0x%016llx\"}\n",
         (long long)((char*)raw_pointer_cast(x.data()) - (char*)(std::size_t)addr), (unsigned long long)v);
}
template <class A, class B, class C, int M, int N, UMMA::Major AM, UMMA::Major BM, UMMA::ScaleIn AN,
          UMMA::ScaleIn BN, UMMA::Saturate S, bool SP, UMMA::MaxShift MS>
void instr(const char* a, const char* b, const char* c, const char* am, const char* bm, int an, int bn, int s,
           int sp, int ms) {
  auto v = UMMA::make_instr_desc<A, B, C, M, N, AM, BM, AN, BN, S, SP, MS>();
  printf("{\"kind\": \"instr\", \"a\": \"%s\", \"b\": \"%s\", \"c\": \"%s\", \"m\": %d, \"n\": %d, \"a_major\": "
         "\"%s\", \"b_major\": \"%s\", \"a_negate\": %d, \"b_negate\": %d, \"saturate\": %d, \"sparse\": %d, "
         "\"max_shift\": %d, \"value\": \"0x%08x\"}\n", a, b, c, M, N, am, bm, an, bn, s, sp, ms,
         (unsigned)uint32_t(v));
}
template <class A, class B, class C, class SF, int M, int N, UMMA::Major AM, UMMA::Major BM>
void scaled(const char* a, const char* b, const char* c, const char* sf, const char* am, const char* bm,
            unsigned sfa, unsigned sfb) {
  auto v = UMMA::make_instr_desc_block_scaled<A, B, C, SF, M, N, AM, BM>();
  uint64_t r = UMMA::make_runtime_instr_desc_block_scaled<A, B, C, SF, M, N, AM, BM>(sfa, sfb);
  printf("{\"kind\": \"instr_block_scaled\", \"a\": \"%s\", \"b\": \"%s\", \"c\": \"%s\", \"sf\": \"%s\", \"m\": "
         "%d, \"n\": %d, \"a_major\": \"%s\", \"b_major\": \"%s\", \"tmem_sfa\": %u, \"tmem_sfb\": %u, \"value\": "
         "\"0x%08x\", \"runtime_value\": \"0x%016llx\"}\n", a, b, c, sf, M, N, am, bm, sfa, sfb,
         (unsigned)uint32_t(v), (unsigned long long)r);
}
template <class Op> void atom(const char* n) {
  using Tr = Copy_Traits<Op>;
  printf("{\"kind\": \"tmem_atom\", \"name\": \"%s\", ", n);
  pl("thr_id", typename Tr::ThrID{}); pl("val_id", typename Tr::ValID{}); pl("src_layout", typename Tr::SrcLayout{});
  pl("dst_layout", typename Tr::DstLayout{}); printf("\"ref_layout\": \""); print(typename Tr::RefLayout{});
  printf("\"}\n");
}
template <int VS, int M, int K> void sfa() {
  using Cfg = cutlass::detail::Sm1xxBlockScaledConfig<VS>;
  auto l = Cfg::tile_atom_to_shape_SFA(make_shape(Int<M>{}, Int<8>{}, Int<K>{}));
  printf("{\"kind\": \"sf_layout\", \"vec\": %d, \"mn\": %d, \"k\": %d, \"layout\": \"", VS, M, K);
  print(l); printf("\"}\n");
}
template <int NSM, int M, int N> void frg() {
  auto t = UMMA::tmem_frg<float, float, NSM>::make(make_shape(make_shape(Int<M>{}, Int<N>{}), Int<1>{}, Int<1>{}));
  printf("{\"kind\": \"data_path\", \"n_sm\": %d, \"m_mma\": %d, \"n_mma\": %d, \"layout\": \"", NSM, M, N);
  print(layout<0>(t.layout())); printf("\"}\n");
}
'''


def smem_calls() -> list[str]:
    out = []
    for dt, b in BITS.items():
        km = K_MMA[b]
        for mj in ("K", "MN"):
            for sw in ["INTER", "SW32", "SW64", "SW128"] + (["SW128_32B"] if mj == "MN" and b == 32 else []):
                atom, span = f"UMMA::Layout_{mj}_{sw}_Atom<{CPP_T[dt]}>", SPAN[sw] * 8 // b
                for mn in (64, 128, 256):
                    kt = max(4 * km, span) if mj == "K" else 4 * km
                    if mj == "MN" and mn % span:
                        continue
                    for kb in range(kt // km):
                        for addr in ([0x400, 0x2000] if kb == 0 and mn == 128 else [0x2000]):
                            out.append(f'smem<{MJ[mj]}, {CPP_T[dt]}, {atom}, {mn}, {kt}, {km}, {kb}>'
                                       f'("{dt}", "{mj}", "{sw}", {addr});')
    return out


def instr_calls() -> list[str]:
    types = [("f16", "f16", "f32"), ("f16", "f16", "f16"), ("bf16", "bf16", "f32"), ("tf32", "tf32", "f32"),
             ("e4m3", "e4m3", "f32"), ("e4m3", "e5m2", "f16"), ("e5m2", "e4m3", "f32"), ("s8", "s8", "s32"),
             ("u8", "s8", "s32"), ("s8", "u8", "s32"), ("u8", "u8", "s32"), ("e2m3", "e3m2", "f32")]
    shapes = [(64, 8), (64, 256), (128, 16), (128, 128), (128, 256), (256, 32), (256, 256), (256, 128), (64, 64),
              (128, 64)]
    cases = [(a, b, c, m, n, am, bm, 0, 0, 0, 0, 0) for a, b, c in types for m, n in shapes
             for am, bm in (("K", "K"), ("MN", "K"), ("K", "MN"), ("MN", "MN"))]
    cases += [("f16", "f16", "f32", 128, 128, "K", "K", 1, 0, 0, 0, 0), ("f16", "f16", "f32", 128, 128, "K", "K", 0, 1,
              0, 0, 0), ("s8", "s8", "s32", 128, 64, "K", "K", 0, 0, 1, 0, 0), ("f16", "f16", "f32", 128, 128, "K", "K",
              0, 0, 0, 1, 0), ("bf16", "bf16", "f32", 64, 128, "K", "MN", 0, 0, 0, 0, 1), ("bf16", "bf16", "f32", 64,
              128, "K", "MN", 0, 0, 0, 0, 3), ("e4m3", "e4m3", "f32", 256, 256, "MN", "MN", 1, 1, 0, 1, 2)]
    neg = {0: "UMMA::ScaleIn::One", 1: "UMMA::ScaleIn::Neg"}
    out = [f'instr<{CPP_T[a]}, {CPP_T[b]}, {CPP_T[c]}, {m}, {n}, {MJ[am]}, {MJ[bm]}, {neg[an]}, {neg[bn]}, '
           f'UMMA::Saturate::{"True" if s else "False"}, {"true" if sp else "false"}, UMMA::MaxShift({ms})>'
           f'("{a}", "{b}", "{c}", "{am}", "{bm}", {an}, {bn}, {s}, {sp}, {ms});'
           for a, b, c, m, n, am, bm, an, bn, s, sp, ms in cases]
    for a, b, sf in (("e4m3", "e4m3", "ue8m0"), ("e2m1", "e2m1", "ue8m0"), ("e2m1", "e2m1", "ue4m3"),
                     ("e5m2", "e4m3", "ue8m0")):
        for m, n in ((128, 128), (128, 256), (256, 256), (256, 128), (128, 64)):
            for am, bm in (("K", "K"), ("MN", "K"), ("K", "MN")) if a != "e2m1" else (("K", "K"),):
                for sfa, sfb in ((0, 0), (0x40000000, 0x80000000), (0xC0000010, 0x40000020)):
                    out.append(f'scaled<{CPP_T[a]}, {CPP_T[b]}, float, {CPP_T[sf]}, {m}, {n}, {MJ[am]}, {MJ[bm]}>'
                               f'("{a}", "{b}", "f32", "{sf}", "{am}", "{bm}", {sfa}u, {sfb}u);')
    return out


def program(cutlass: Path) -> str:
    hdr = (cutlass / "include/cute/atom/copy_traits_sm100.hpp").read_text()
    names = sorted(set(re.findall(r"struct Copy_Traits<(SM100_TMEM_(?:LOAD|STORE)_\w+)>", hdr)))
    body = smem_calls() + instr_calls() + [f'atom<{n}>("{n}");' for n in names]
    body += [f"sfa<{v}, {m}, {k}>();" for v in (16, 32) for m, k in ((128, 128), (256, 256), (384, 512))]
    body += [f"frg<{s}, {m}, {n}>();" for s, m in ((1, 128), (1, 64), (2, 64), (2, 128), (2, 32)) for n in (64, 256)]
    return PRELUDE + "int main() {\n" + "\n".join("  " + b for b in body) + "\n  return 0;\n}\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cutlass", type=Path)
    ap.add_argument("--cuda", type=Path, default=Path("/usr/local/cuda"))
    ap.add_argument("--out", type=Path, default=Path(__file__).parent)
    args = ap.parse_args()
    commit = subprocess.run(["git", "-C", str(args.cutlass), "rev-parse", "--short=9", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "harness.cpp", Path(tmp) / "harness"
        src.write_text(program(args.cutlass))
        inc = [f"-I{args.cutlass / 'include'}", f"-I{args.cuda / 'include'}", f"-I{args.cuda / 'include/cccl'}"]
        subprocess.run(["g++", "-std=c++17", *inc, str(src), "-o", str(exe)], check=True)
        rows = [json.loads(line) for line in subprocess.run([str(exe)], check=True, capture_output=True,
                                                            text=True).stdout.splitlines()]
    how = (f"tests/data/cutlass_sm100_harness.py at NVIDIA/cutlass commit {commit}: a host-only C++17 program (g++) "
           "calling CUTLASS's make_umma_desc / make_instr_desc / make_instr_desc_block_scaled / "
           "make_runtime_instr_desc_block_scaled and printing Copy_Traits<SM100_TMEM_*> and "
           "UMMA::tmem_frg<float, float, n_sm>::make(((m_mma, n_mma), 1, 1)) (mode 0: (m, n) -> lane << 16 | "
           "column) and Sm1xxBlockScaledConfig<vec>::tile_atom_to_shape_SFA((mn, 8, k)); smem rows: tile_to_shape("
           "UMMA::Layout_<major>_<atom>_Atom<T>, (mn, k_tile)) on make_smem_ptr(base_address), the k_block-th "
           "(mn, k_mma) slice by flat_divide. No CUTLASS code is stored here, only the printed values.")
    args.out.mkdir(parents=True, exist_ok=True)
    kinds: dict[str, list] = {}
    for r in rows:
        kinds.setdefault(r.pop("kind"), []).append(r)
    (args.out / "umma_descriptors.json").write_text(json.dumps(
        {"produced_by": how, "cutlass_commit": commit, "umma_smem": kinds["smem"], "umma_instr": kinds["instr"],
         "umma_instr_block_scaled": kinds["instr_block_scaled"]}, indent=0))
    (args.out / "tmem_atoms.json").write_text(json.dumps(
        {"produced_by": how, "cutlass_commit": commit, "tmem_atoms": kinds["tmem_atom"],
         "data_paths": kinds["data_path"], "sf_layouts": kinds["sf_layout"]}, indent=0))


if __name__ == "__main__":
    main()
