// Which lane/register holds which element: one warp loads A (16x16) and B (8x16) with ldmatrix.x4 / .x2 from
// shared memory whose elements encode their own coordinates, records every register, then runs
// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 on A' = [m, 1, 0...] and B' = [1, 16 n, 0...] so that
// C(m, n) = m + 16 n, and records the accumulators. The host compares with the atom's TV layouts.
// {{DESCRIPTION}}
#include <cuda_fp16.h>

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const __half* p) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}

__device__ __forceinline__ void ldmatrix_x2(unsigned (&r)[2], const __half* p) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
}

__device__ __forceinline__ float lo(unsigned r) { return __half2float(__ushort_as_half((unsigned short)(r & 0xffffu))); }
__device__ __forceinline__ float hi(unsigned r) { return __half2float(__ushort_as_half((unsigned short)(r >> 16))); }

// inA/inB: the coordinate-coded operands; inA2/inB2: A', B' (all M x K / N x K, K-major)
extern "C" __global__ void __launch_bounds__(32) {{KERNEL}}(const __half* __restrict__ inA, const __half* __restrict__ inB,
                                                            const __half* __restrict__ inA2,
                                                            const __half* __restrict__ inB2, float* __restrict__ outA,
                                                            float* __restrict__ outB, float* __restrict__ outC) {
  __shared__ alignas(128) __half sA[{{A_ELEMS}}], sB[{{B_ELEMS}}], sA2[{{A_ELEMS}}], sB2[{{B_ELEMS}}];
  const unsigned lane = threadIdx.x;
  for (unsigned i = lane; i < {{A_ELEMS}}u; i += 32u) { sA[i] = inA[i]; sA2[i] = inA2[i]; }
  for (unsigned i = lane; i < {{B_ELEMS}}u; i += 32u) { sB[i] = inB[i]; sB2[i] = inB2[i]; }
  __syncwarp();
  unsigned a[4], b[2], a2[4], b2[2];
  ldmatrix_x4(a, &sA[{{LDSM_A}}]);
  ldmatrix_x2(b, &sB[{{LDSM_B}}]);
  ldmatrix_x4(a2, &sA2[{{LDSM_A}}]);
  ldmatrix_x2(b2, &sB2[{{LDSM_B}}]);
  // (lane, v) -> out[lane + 32 v]: value v is half (v & 1) of register v >> 1 (PTX: a0 in the low half)
#pragma unroll
  for (unsigned r = 0; r < 4u; ++r) { outA[lane + 32u * (2u * r)] = lo(a[r]); outA[lane + 32u * (2u * r + 1u)] = hi(a[r]); }
#pragma unroll
  for (unsigned r = 0; r < 2u; ++r) { outB[lane + 32u * (2u * r)] = lo(b[r]); outB[lane + 32u * (2u * r + 1u)] = hi(b[r]); }
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a2[0]), "r"(a2[1]), "r"(a2[2]), "r"(a2[3]), "r"(b2[0]), "r"(b2[1]));
#pragma unroll
  for (unsigned v = 0; v < 4u; ++v) outC[lane + 32u * v] = d[v];
}
