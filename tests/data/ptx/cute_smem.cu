// tests/data/ptx/cute_smem.ptx: nvcc -ptx -arch=sm_80 -std=c++17 -lineinfo -I<cutlass_library>/source/include cute_smem.cu,
// with the layoutcheck run line (block=128: the kernels declare only .maxntid) put first.
// A CuTe C++ mainloop fragment: a 128x32 half tile of A copied global -> shared by 128 threads with 128-bit
// vectors (a TiledCopy), then read into the fragments of an SM80 16x8x16 tiled MMA with ldmatrix.x4.
// SWIZZLE=1 uses the 64-byte-row swizzle Sw<2,3,3> of CUTLASS's SM80 f16 configurations, SWIZZLE=0 the plain
// K-major layout (ldmatrix reads 8 rows of 64 bytes: bank conflicts).
#include <cute/tensor.hpp>
using namespace cute;

template <int SWIZZLE>
__device__ void mainloop(half_t const* gA_ptr, float* out) {
  __shared__ alignas(128) half_t smem[128 * 32];
  auto atom = [] {
    if constexpr (SWIZZLE) return composition(Swizzle<2, 3, 3>{}, Layout<Shape<_8, _32>, Stride<_32, _1>>{});
    else return Layout<Shape<_8, _32>, Stride<_32, _1>>{};
  }();
  auto sA_layout = tile_to_shape(atom, Shape<_128, _32>{});
  Tensor gA = make_tensor(make_gmem_ptr(gA_ptr), Layout<Shape<_128, _32>, Stride<_32, _1>>{});
  Tensor sA = make_tensor(make_smem_ptr(smem), sA_layout);
  auto g2s = make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{},
                             Layout<Shape<_32, _4>, Stride<_4, _1>>{}, Layout<Shape<_1, _8>>{});
  auto thr = g2s.get_thread_slice(threadIdx.x);
  copy(g2s, thr.partition_S(gA), thr.partition_D(sA));
  __syncthreads();
  TiledMMA mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2, _2, _1>>{});
  auto s2r = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma);
  auto s2r_thr = s2r.get_thread_slice(threadIdx.x);
  auto thr_mma = mma.get_thread_slice(threadIdx.x);
  Tensor tCrA = thr_mma.partition_fragment_A(sA);
  copy(s2r, s2r_thr.partition_S(sA), s2r_thr.retile_D(tCrA));
  float acc = 0.f;
  for (int i = 0; i < size(tCrA); ++i) acc += float(tCrA(i));
  out[threadIdx.x] = acc;
}

extern "C" __global__ void __launch_bounds__(128) smem_swizzled(half_t const* a, float* out) { mainloop<1>(a, out); }
extern "C" __global__ void __launch_bounds__(128) smem_plain(half_t const* a, float* out) { mainloop<0>(a, out); }
